// The screens of the page's display (front.js): one problem, one copy trial,
// a message, the instruction pages. They draw and take input; the rows are
// written by the trial's run (trialrun.js: ProblemRun, CopyRun) and by the
// session's page rows (`ui.rows`), as the lab's screens (tol_tasks/runner/play.py
// ProblemTrial, CopyTrial, Stage.message, Stage.instructions,
// Stage.ready_to_continue) log what session_data/trial.py returns.
//
// `ui` is what they share (see front.js PageDisplay): the stage, the input
// router, the frame recorder, the texts, the display, input and timing
// settings, the abort promise (rejected by the quit key) and `rows`
// ({pageShown(id, t), pageLeft(id, t, input)}).

import { BoardView, boards, textBandY, TOP_LABELS_Y } from "./board.js";
import { drawShown, sleep } from "./runtime.js";
import { fill } from "./trialrun.js";

export { fill };

/** Show `text` for `seconds` (the quit key still ends the session). */
export async function showMessage(ui, text, seconds) {
  ui.stage.el.replaceChildren();
  ui.stage.el.dataset.screen = "message";
  const el = ui.stage.label("tol-message", 0, 0, { size: 0.035, width: ui.stage.aspect * 0.85 });
  el.textContent = text;
  await sleep(seconds, ui.abort);
}

/** The instruction pages, each left by a click, a touch or the space key (page_shown, page_left). */
export async function showPages(ui, pages) {
  for (let k = 1; k <= pages.length; k++) {
    await showPage(ui, pages[k - 1], `page-${k}`, String(k));
  }
}

/** The problem_id of the page rows of the screen a resumed session begins with. */
export const RESUME_READY = "resume-ready";

/** A resumed session's first screen: the participant starts again when ready (as tol-run). */
export async function readyToContinue(ui) {
  await showPage(ui, { text: ui.msg.resume_ready, image: null }, RESUME_READY, RESUME_READY);
}

/** One page until a click, a touch or the space key; logged with `id` as its problem_id. */
async function showPage(ui, page, id, name) {
  const shown = await drawShown(() => drawPage(ui, page));
  Object.assign(ui.stage.el.dataset, { screen: "page", page: name });
  ui.rows.pageShown(id, ui.clock.fromStamp(shown));
  const left = await new Promise((resolve, reject) => {
    ui.abort.catch(reject);
    ui.router.handler = (ev) => {
      if (ev.stamp < shown) return;
      if (ev.kind === "release" || (ev.kind === "key" && matchesKey(ui.input.continue_key, ev))) resolve(ev);
    };
  });
  ui.router.handler = null;
  ui.rows.pageLeft(id, left.t, left.source);
}

/** Whether a key event is the compiled key ({key} compared case-insensitively, or {code}). */
function matchesKey(spec, ev) {
  return spec.code ? ev.code === spec.code : String(ev.key).toLowerCase() === spec.key;
}

function drawPage(ui, page) {
  const stage = ui.stage;
  stage.el.replaceChildren();
  if (page.image) {
    const img = document.createElement("img");
    img.className = "tol-page-image";
    img.src = page.image;
    img.alt = "";
    const [x, y] = stage.px(0, 0.15);
    Object.assign(img.style, { left: `${x}px`, top: `${y}px`, maxHeight: `${0.45 * stage.H}px`, maxWidth: `${0.9 * stage.W}px` });
    stage.el.appendChild(img);
    stage.label("tol-page", 0, -0.2, { size: 0.035, width: stage.aspect * 0.85 }).textContent = page.text;
  } else {
    stage.label("tol-page", 0, 0.05, { size: 0.035, width: stage.aspect * 0.85 }).textContent = page.text;
  }
  stage.label("tol-continue", 0, -0.42).textContent = ui.msg.continue;
}

/** How the trial takes input, for automation: data-input (click, drag, keys) and data-keys. */
function inputData(ui) {
  const keys = ui.input.keys ? ui.input.keys.map((k) => k.code || k.key).join(" ") : "";
  return { input: ui.input.mode, keys };
}

/** The peg a pointer or key event means, or null. */
function pegOf(ui, areas, ev) {
  if (ev.kind === "key") {
    const i = (ui.input.keys || []).findIndex((spec) => matchesKey(spec, ev));
    return i < 0 ? null : i;
  }
  return ui.stage.hit(areas, ev.x, ev.y);
}

/**
 * The actions of one trial (a problem or a copy) until it is done: every
 * press, release and key becomes the run's peg actions, each logged with its
 * own stamp; the time limit is checked in every frame.
 */
function play(ui, run, areas, view, onRows, afterFrame = null) {
  const mode = ui.input.mode;
  const trial = run.trial;
  let drag = null;
  const redraw = () => view.show(trial.state, trial.held, drag, trial.cue ?? null);
  ui.router.wantsMoves = mode === "drag";
  return new Promise((resolve, reject) => {
    ui.abort.catch(reject);
    const finish = () => {
      if (run.done) {
        ui.router.handler = null;
        resolve();
      }
    };
    const tick = () => {
      onRows(run.tick(ui.clock.now()));
      if (run.done) redraw();
      finish();
    };
    ui.router.handler = (ev) => {
      if (run.done) return;
      if (ev.kind === "move") {
        if (trial.held !== null) {
          drag = [ev.x, ev.y];
          redraw();
        }
        return;
      }
      if (ev.kind !== "key" && ev.t < run.t0) return; // before the problem was on screen
      if (run.pastLimit(ev.t)) {
        tick(); // the limit came first
        return;
      }
      let rows = [];
      if (ev.kind === "key") {
        if (mode === "keys") rows = run.act("toggle", pegOf(ui, areas, ev), ev);
      } else if (mode === "drag") {
        if (ev.kind === "press") rows = run.act("pick", pegOf(ui, areas, ev), ev);
        else if (ev.kind === "release" || ev.kind === "cancel") {
          rows = run.act("drop", ev.kind === "cancel" ? null : pegOf(ui, areas, ev), ev);
          drag = null;
        }
      } else if (ev.kind === "press") {
        rows = run.act("toggle", pegOf(ui, areas, ev), ev);
      }
      onRows(rows);
      if (rows.length || drag) redraw();
      finish();
    };
    const limit = trial.spec.time_limit;
    if (limit != null) {
      // Frames stop in a hidden tab; the limit still ends the trial.
      const timer = setTimeout(tick, Math.max(0, (run.t0 + limit - ui.clock.now()) * 1000 + 5));
      ui.abort.catch(() => clearTimeout(timer));
    }
    ui.frames.start((ts) => {
      if (afterFrame) afterFrame(ts);
      if (!run.done) tick();
    });
  });
}

/**
 * One attempt at one problem (`run`: a ProblemRun): onset, actions, limits,
 * trial_end, feedback (when `feedback`) and the inter-trial interval. Returns
 * the run's result. Throws Abort when the quit key ends the session (the
 * attempt is then cut off: no trial_end row, as in the lab).
 */
export async function playProblem(ui, run, { feedback }) {
  const stage = ui.stage;
  const puzzle = run.puzzle;
  const spec = run.trial.spec;
  const d = ui.display;
  const [areas, goalAreas] = boards(puzzle, d, stage.aspect);
  // The notice of an illegal move and the feedback: where they cover no peg or piece.
  const textY = textBandY(goalAreas ? [areas, goalAreas] : [areas]);
  let notice = null;
  let view;
  let timeLabel = null;
  let movesLabel = null;
  let noticeLabel;
  const draw = () => {
    stage.el.replaceChildren();
    if (goalAreas) {
      const goal = new BoardView(stage, puzzle, goalAreas, d, ui.colors(puzzle), { goal: true, labels: ui.labels(puzzle) });
      goal.show(spec.goal);
      const top = Math.max(...goalAreas.map((a) => a.y + a.h / 2)) + 0.035;
      stage.label("tol-goal-label", 0, top).textContent = ui.msg.goal_label;
    }
    view = new BoardView(stage, puzzle, areas, d, ui.colors(puzzle), { labels: ui.labels(puzzle) });
    view.show(run.trial.state);
    if (d.show_move_counter) movesLabel = stage.label("tol-moves", -0.45 * stage.aspect + 0.12, TOP_LABELS_Y);
    if (d.show_time_left && spec.time_limit) timeLabel = stage.label("tol-time", 0.45 * stage.aspect - 0.15, TOP_LABELS_Y);
    noticeLabel = stage.label("tol-notice", 0, textY);
    labels(0);
  };
  const labels = (now) => {
    if (movesLabel) movesLabel.textContent = fill(ui.msg.moves_label, { moves: run.trial.moves });
    if (timeLabel && run.t0 !== null) {
      const left = Math.max(0, spec.time_limit - (now - run.t0));
      timeLabel.textContent = fill(ui.msg.time_label, { seconds: Math.trunc(left + 0.999) });
    }
    noticeLabel.textContent = notice && now < notice[1] ? notice[0] : "";
  };
  const onRows = (rows) => {
    for (const { fields } of rows) {
      if (fields.reason && d.show_illegal_message) {
        const text = ui.msg[`illegal_${fields.reason}`];
        if (text) notice = [text, ui.clock.now() + 1.2];
      }
      labels(ui.clock.now());
    }
  };
  const shown = await drawShown(draw);
  run.onset(ui.clock.fromStamp(shown));
  Object.assign(stage.el.dataset, { screen: "problem", trial: String(run.base.trial), problem: run.problem.id, puzzle: puzzle.code, goal: run.problem.goal, ...inputData(ui) });
  try {
    await play(ui, run, areas, view, onRows, (ts) => labels(ui.clock.fromStamp(ts)));
  } catch (exc) {
    run.end(ui.frames.stop(), true);
    ui.router.handler = null;
    throw exc;
  }
  const result = run.end(ui.frames.stop());
  ui.router.handler = null;
  if (feedback) {
    const text = run.feedback(ui.msg, ui.feedback);
    stage.el.dataset.screen = "feedback";
    noticeLabel.textContent = ""; // the feedback takes its place
    const el = stage.label("tol-feedback", 0, textY);
    el.textContent = text;
    await sleep(ui.timing.feedback_duration, ui.abort);
  }
  stage.el.replaceChildren();
  stage.el.dataset.screen = "interval";
  await sleep(ui.timing.inter_trial_interval, ui.abort);
  return result;
}

/** A yoked copy trial (`run`: a CopyRun): the moves shown one at a time on the problem's board, without the goal. */
export async function playCopy(ui, run) {
  const stage = ui.stage;
  const puzzle = run.puzzle;
  const [areas] = boards(puzzle, ui.display, stage.aspect);
  let view;
  const draw = () => {
    stage.el.replaceChildren();
    stage.label("tol-copy-label", 0, 0.42).textContent = ui.msg.copy_label;
    view = new BoardView(stage, puzzle, areas, ui.display, ui.colors(puzzle), { labels: ui.labels(puzzle) });
    view.show(run.trial.state, null, null, run.trial.cue);
  };
  const shown = await drawShown(draw);
  run.onset(ui.clock.fromStamp(shown));
  // The cue of each move is drawn as the move before it is placed; it is logged at the
  // frame after the one that drew it (when it was first on screen), like the onset.
  let drawnCue = null;
  const logCue = (ts) => {
    if (!run.cuePending) return;
    if (drawnCue !== run.trial.moves && ts !== shown) {
      drawnCue = run.trial.moves; // this frame draws it
      return;
    }
    run.cue(ui.clock.fromStamp(ts));
  };
  logCue(shown);
  Object.assign(stage.el.dataset, { screen: "copy", trial: String(run.base.trial), problem: run.problem.id, puzzle: puzzle.code, sequence: run.sequenceText, ...inputData(ui) });
  let aborted = true;
  let result;
  try {
    await play(ui, run, areas, view, () => {}, logCue);
    aborted = false;
  } finally {
    result = run.end(ui.frames.stop(), aborted);
    ui.router.handler = null;
  }
  stage.el.replaceChildren();
  await sleep(ui.timing.inter_trial_interval, ui.abort);
  return result;
}

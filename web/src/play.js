// The screens of the page's display (front.js): one problem, one copy trial,
// one planning-only problem, a message, the instruction pages. They draw and take
// input; the rows are written by the trial's run (trialrun.js: ProblemRun, CopyRun,
// PlanningRun) and by the session's page rows (`ui.rows`), as the lab's screens
// (tol_tasks/runner/play.py ProblemTrial, CopyTrial, tol_tasks/runner/planning.py
// PlanningTrial, Stage.message, Stage.instructions, Stage.ready_to_continue) log
// what session_data/trial.py returns.
//
// `ui` is what they share (see front.js PageDisplay): the stage, the input
// router, the frame recorder, the texts, the display, input and timing
// settings, the abort promise (rejected by the quit key) and `rows`
// ({pageShown(id, t), pageLeft(id, t, input)}).

import { BoardView } from "./board.js";
import DISPLAY from "./generated/display.json" with { type: "json" };
import { fromCode } from "./puzzle.js";
import { CopyState } from "./trial.js";
import { drawShown, sleep } from "./runtime.js";
import { fill } from "./trialrun.js";

export { fill };

/** Show `text` for `seconds` (the quit key still ends the session). */
export async function showMessage(ui, text, seconds) {
  ui.stage.el.replaceChildren();
  ui.stage.el.dataset.screen = "message";
  const p = ui.layout.places;
  const el = ui.stage.label("tol-message", 0, 0, { size: p.text_height, width: p.wrap });
  el.textContent = text;
  await sleep(seconds, ui.abort);
}

/** The instruction pages, each left by a click, a touch or the space key (page_shown, page_left). */
export async function showPages(ui, pages, prefix = "page") {
  for (let k = 1; k <= pages.length; k++) {
    await showPage(ui, pages[k - 1], `${prefix}-${k}`, String(k));
  }
}

/**
 * A pause only the examiner ends (as tol-run's Stage.pause): `text` until the protocol's
 * examiner key; clicks, touches and the space key do nothing. Logged as a page with `id`.
 */
export async function showPause(ui, text, id) {
  const p = ui.layout.places;
  const hint = fill(ui.msg.examiner_hint, { key: String(ui.input.examiner_key_name || "").toUpperCase() });
  const shown = await drawShown(() => {
    ui.stage.el.replaceChildren();
    ui.stage.label("tol-page", 0, p.page_y, { size: p.text_height, width: p.wrap }).textContent = text;
    ui.stage.label("tol-examiner", 0, p.continue_y, { size: p.label_height, width: p.wrap }).textContent = hint;
  });
  Object.assign(ui.stage.el.dataset, { screen: "pause", page: id });
  ui.rows.pageShown(id, ui.clock.fromStamp(shown));
  const left = await new Promise((resolve, reject) => {
    ui.abort.catch(reject);
    ui.router.handler = (ev) => {
      if (ev.stamp >= shown && ev.kind === "key" && ui.input.examiner_key && matchesKey(ui.input.examiner_key, ev)) resolve(ev);
    };
  });
  ui.router.handler = null;
  ui.rows.pageLeft(id, left.t, left.source);
}

/** The problem_id of the page rows of the screen a resumed session begins with. */
export const RESUME_READY = "resume-ready";

/** A resumed session's first screen: the participant starts again when ready (as tol-run). */
export async function readyToContinue(ui) {
  await showPage(ui, { text: ui.msg.resume_ready, image: null }, RESUME_READY, RESUME_READY);
}

/** One page until a click, a touch or the space key; logged with `id` as its problem_id. */
async function showPage(ui, page, id, name) {
  let animate = null;
  const shown = await drawShown(() => {
    animate = drawPage(ui, page);
  });
  Object.assign(ui.stage.el.dataset, { screen: "page", page: name });
  ui.rows.pageShown(id, ui.clock.fromStamp(shown));
  let timer = null;
  if (animate) {
    const t0 = ui.clock.now();
    timer = setInterval(() => animate(ui.clock.now() - t0), 50);
    ui.abort.catch(() => clearInterval(timer));
  }
  const left = await new Promise((resolve, reject) => {
    ui.abort.catch(reject);
    ui.router.handler = (ev) => {
      if (ev.stamp < shown) return;
      if (ev.kind === "release" || (ev.kind === "key" && matchesKey(ui.input.continue_key, ev))) resolve(ev);
    };
  });
  ui.router.handler = null;
  if (timer !== null) clearInterval(timer);
  ui.rows.pageLeft(id, left.t, left.source);
}

/**
 * The controls practice (practice.controls; tol-run's Stage.controls): on the session's
 * board at the first problem's start, one move of the outlined piece to the marked peg, as
 * the protocol's input takes it; a wrong piece or peg is refused. Logged as a page
 * ("controls"), left when the move is made; nothing of it is scored.
 */
export async function showControls(ui) {
  const { stage, shown } = ui;
  const puzzle = fromCode(shown.puzzle);
  const trial = new CopyState({ puzzle, start: puzzle.parse(shown.start) }, [shown.controls], 0);
  const board = ui.layout.board;
  const p = ui.layout.places;
  const mode = ui.input.mode;
  let view;
  let drag = null;
  const redraw = () => view.show(trial.state, trial.held, drag, trial.cue);
  const at = await drawShown(() => {
    stage.el.replaceChildren();
    stage.label("tol-copy-label", ...p.copy_label, { size: p.label_height, width: p.wrap }).textContent = ui.msg.controls_try;
    view = new BoardView(stage, puzzle, board, ui.display, ui.colors(puzzle), { labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
    redraw();
  });
  Object.assign(stage.el.dataset, { screen: "controls", ...inputData(ui) });
  ui.rows.pageShown("controls", ui.clock.fromStamp(at));
  ui.router.wantsMoves = mode === "drag";
  const last = await new Promise((resolve, reject) => {
    ui.abort.catch(reject);
    ui.router.handler = (ev) => {
      if (ev.kind === "move") {
        if (trial.held !== null) {
          drag = [ev.x, ev.y];
          redraw();
        }
        return;
      }
      if (ev.kind !== "key" && ev.stamp < at) return;
      const peg = pegOf(ui, board.pegs, ev);
      const toggle = () => (trial.held === null ? trial.pick(peg) : trial.drop(peg));
      if (ev.kind === "key") {
        if (mode === "keys" && peg !== null) toggle();
      } else if (mode === "drag") {
        if (ev.kind === "press" && peg !== null) trial.pick(peg);
        else if (ev.kind === "release" || ev.kind === "cancel") {
          trial.drop(ev.kind === "cancel" ? null : peg);
          drag = null;
        }
      } else if (ev.kind === "press" && peg !== null) {
        toggle();
      }
      redraw();
      if (trial.done) resolve(ev);
    };
  });
  ui.router.handler = null;
  ui.rows.pageLeft("controls", last.t, last.source);
}

/** The demonstration's frame at `t` seconds (it loops), as tol_tasks.display.demo.frame_at. */
function frameAt(frames, t) {
  const total = frames.reduce((n, f) => n + f.seconds, 0);
  t %= total;
  for (const f of frames) {
    if (t < f.seconds) return f;
    t -= f.seconds;
  }
  return frames[frames.length - 1];
}

/**
 * What a page shows above its text (tol_tasks.runner.screen TaskScreen.draw_shown): the
 * first problem's board and goal (`board`), or the demonstration (`demo`); for a
 * demonstration, the function that draws it at `t` seconds.
 */
function drawShownBoard(ui, show) {
  const { stage, shown } = ui;
  const puzzle = fromCode(shown.puzzle);
  const view = new BoardView(stage, puzzle, shown.layout.board, ui.display, ui.colors(puzzle), { labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
  if (show === "board") {
    view.show(puzzle.parse(shown.start));
    if (shown.layout.goal) {
      const goal = new BoardView(stage, puzzle, shown.layout.goal, ui.display, ui.colors(puzzle), { goal: true, labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
      goal.show(puzzle.parse(shown.goal));
      stage.label("tol-goal-label", ...shown.layout.places.goal_label, { size: ui.layout.places.label_height }).textContent = ui.msg.goal_label;
    }
    return null;
  }
  const notice = stage.label("tol-notice", 0, shown.notice_y, { size: ui.layout.places.label_height, width: ui.layout.places.wrap });
  let last = null;
  const at = (t) => {
    const f = frameAt(shown.demo, t);
    if (f === last) return;
    last = f;
    const b = shown.layout.board;
    const over = f.over === null ? null : stage.px(b.pegs[f.over].x, b.pegs[f.over].lifted_y);
    view.show(puzzle.parse(f.state), f.held, over);
    notice.textContent = f.refused ? ui.msg[`illegal_${f.refused}`] : "";
    stage.el.dataset.demoFrame = String(shown.demo.indexOf(f) + 1);
  };
  at(0);
  return at;
}

/** Whether a key event is the compiled key ({key} compared case-insensitively, or {code}). */
function matchesKey(spec, ev) {
  return spec.code ? ev.code === spec.code : String(ev.key).toLowerCase() === spec.key;
}

function drawPage(ui, page) {
  const stage = ui.stage;
  const p = ui.layout.places;
  const text = { size: p.text_height, width: p.wrap };
  stage.el.replaceChildren();
  let animate = null;
  if (page.show && !page.image && ui.shown) {
    animate = drawShownBoard(ui, page.show);
    stage.label("tol-page", 0, p.caption_y, text).textContent = page.text;
  } else if (page.image) {
    const img = document.createElement("img");
    img.className = "tol-page-image";
    img.src = page.image;
    img.alt = "";
    const [x, y] = stage.px(0, p.image_y);
    Object.assign(img.style, { left: `${x}px`, top: `${y}px`, maxHeight: `${p.image_height * stage.U}px`, maxWidth: `${0.9 * stage.W}px` });
    stage.el.appendChild(img);
    stage.label("tol-page", 0, p.caption_y, text).textContent = page.text;
  } else {
    stage.label("tol-page", 0, p.page_y, text).textContent = page.text;
  }
  stage.label("tol-continue", 0, p.continue_y, { size: p.label_height, width: p.wrap }).textContent = ui.msg.continue;
  return animate;
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
  // The session's one layout (the display model): boards, and one place for each text.
  const { board, goal: goalLayout, places } = ui.layout;
  const areas = board.pegs;
  const small = { size: places.label_height };
  const line = { size: places.label_height, width: places.wrap }; // centred, across the band
  // The notice of an illegal move and the feedback: one place, covering no peg or piece.
  const textY = places.text_y;
  let notice = null;
  let view;
  let timeLabel = null;
  let movesLabel = null;
  let noticeLabel;
  const draw = () => {
    stage.el.replaceChildren();
    if (goalLayout) {
      const goal = new BoardView(stage, puzzle, goalLayout, d, ui.colors(puzzle), { goal: true, labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
      goal.show(spec.goal);
      stage.label("tol-goal-label", ...places.goal_label, small).textContent = ui.msg.goal_label;
    }
    view = new BoardView(stage, puzzle, board, d, ui.colors(puzzle), { labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
    view.show(run.trial.state);
    // The counters: moves from its left end, the time left up to its right end (places).
    if (d.show_move_counter) movesLabel = stage.label("tol-moves", ...places.moves, { ...small, align: "left" });
    if (d.show_time_left && spec.time_limit) timeLabel = stage.label("tol-time", ...places.time, { ...small, align: "right" });
    noticeLabel = stage.label("tol-notice", 0, textY, line);
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
        if (text) notice = [text, ui.clock.now() + DISPLAY.NOTICE_S]; // the display model's time
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
    const el = stage.label("tol-feedback", 0, textY, line);
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
  const { board, places } = ui.layout;
  const areas = board.pegs;
  let view;
  const draw = () => {
    stage.el.replaceChildren();
    stage.label("tol-copy-label", ...places.copy_label, { size: places.label_height }).textContent = ui.msg.copy_label;
    view = new BoardView(stage, puzzle, board, ui.display, ui.colors(puzzle), { labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
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

/**
 * A planning-only problem (`run`: a PlanningRun; tol-run's PlanningTrial): the start, the
 * goal above it and the numbered boxes, where the display model's planning screen puts
 * them (`screen`: protocol.json's plan block planning.screens[puzzle]); each box chosen by
 * its key (planning.keys) or, without keys, by a click or touch on it. Nothing moves. Then
 * the inter-trial interval (no feedback, as in the lab). Returns the run's result; throws
 * Abort when the quit key ends the session (no planning_end row, as in the lab).
 */
export async function playPlanning(ui, run, screen) {
  const { stage, display: d } = ui;
  const puzzle = run.puzzle;
  const { view } = screen;
  const keys = run.planning.keys;
  const draw = () => {
    stage.el.replaceChildren();
    stage.label("tol-goal-label", ...view.places.goal_label, { size: view.places.label_height }).textContent = ui.msg.goal_label;
    const goal = new BoardView(stage, puzzle, view.goal, d, ui.colors(puzzle), { goal: true, labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
    goal.show(puzzle.parse(run.problem.goal));
    const board = new BoardView(stage, puzzle, view.board, d, ui.colors(puzzle), { labels: ui.labels(puzzle), edges: ui.edges?.(puzzle) });
    board.show(puzzle.parse(run.problem.start));
    const side = screen.box * stage.U;
    screen.boxes.forEach(([x, y], k) => {
      const el = document.createElement("div");
      el.className = "tol-choice";
      const [left, top] = stage.px(x - screen.box / 2, y + screen.box / 2);
      Object.assign(el.style, {
        left: `${left}px`, top: `${top}px`, width: `${side}px`, height: `${side}px`,
        borderColor: d.text_color, fontSize: `${screen.text_height * stage.U}px`,
      });
      el.dataset.choice = String(run.planning.choices[k]);
      el.textContent = String(run.planning.choices[k]);
      stage.el.appendChild(el);
    });
  };
  // The box an input event chooses (null: not a choice), as PlanningTrial._chosen.
  const chosen = (ev) => {
    if (ev.kind === "key") {
      const k = keys ? keys.findIndex((spec) => matchesKey(spec, ev)) : -1;
      return k < 0 ? null : k;
    }
    if (keys === null && ev.kind === "press") return boxAt(stage, screen, ev.x, ev.y);
    return null;
  };
  const shown = await drawShown(draw);
  run.onset(ui.clock.fromStamp(shown));
  Object.assign(stage.el.dataset, {
    screen: "planning", trial: String(run.base.trial), problem: run.problem.id, puzzle: puzzle.code,
    state: run.problem.start, goal: run.problem.goal, choices: run.planning.choices.join(" "),
    input: keys ? "keys" : "click", keys: keys ? keys.map((k) => k.code || k.key).join(" ") : "", chosen: "0",
  });
  ui.router.wantsMoves = false;
  let aborted = true;
  let result;
  try {
    await new Promise((resolve, reject) => {
      ui.abort.catch(reject);
      const finish = () => {
        if (!run.done) return;
        ui.router.handler = null;
        resolve();
      };
      ui.router.handler = (ev) => {
        if (run.done || ev.t < run.t0) return; // before the problem was on screen
        run.tick(ev.t); // a choice after the time limit: the limit came first
        const k = run.done ? null : chosen(ev);
        if (k !== null) {
          run.choose(k, ev);
          stage.el.dataset.chosen = String(run.choices.length); // for automation
        }
        finish();
      };
      const limit = run.problem.time_limit;
      if (limit != null) {
        // Frames stop in a hidden tab; the limit still ends the problem.
        const timer = setTimeout(() => {
          run.tick(ui.clock.now());
          finish();
        }, Math.max(0, (run.t0 + limit - ui.clock.now()) * 1000 + 5));
        ui.abort.catch(() => clearTimeout(timer));
      }
      ui.frames.start(() => {
        run.tick(ui.clock.now());
        finish();
      });
    });
    aborted = false;
  } finally {
    result = run.end(ui.frames.stop(), aborted);
    ui.router.handler = null;
  }
  stage.el.replaceChildren();
  stage.el.dataset.screen = "interval";
  await sleep(ui.timing.inter_trial_interval, ui.abort);
  return result;
}

/** Which box of a planning screen a point in stage pixels falls on (PlanningScreen.box_at). */
function boxAt(stage, screen, px, py) {
  const [x, y] = stage.units(px, py);
  const half = screen.box / 2;
  const k = screen.boxes.findIndex(([cx, cy]) => Math.abs(x - cx) <= half && Math.abs(y - cy) <= half);
  return k < 0 ? null : k;
}

// The screens of a session: one problem, one copy trial, a message, the
// instruction pages. Each is the browser's counterpart of the lab engine's
// method of the same name (tol_tasks/runner/engine.py _trial, _copy_trial,
// _message, _instructions) and writes the same rows.
//
// `ctx` is what they share (see session.js TaskContext): the stage, the
// session clock, the log, the input router, the frame recorder, the texts.

import { BoardView, boards, textBandY, TOP_LABELS_Y } from "./board.js";
import { frameDetail, frameStats } from "./frames.js";
import { PEG_LETTERS } from "./puzzle.js";
import { drawShown, sleep } from "./runtime.js";
import { CopyState, TrialState } from "./trial.js";

/** A message text with its {name} fields filled in (Python's str.format for plain names). */
export function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

/** Show `text` for `seconds` (the quit key still ends the session). */
export async function showMessage(ctx, text, seconds) {
  ctx.stage.el.replaceChildren();
  ctx.stage.el.dataset.screen = "message";
  const el = ctx.stage.label("tol-message", 0, 0, { size: 0.035, width: ctx.stage.aspect * 0.85 });
  el.textContent = text;
  await sleep(seconds, ctx.abort);
}

/** The instruction pages, each left by a click, a touch or the space key (page_shown, page_left). */
export async function showPages(ctx, pages) {
  for (let k = 1; k <= pages.length; k++) {
    await showPage(ctx, pages[k - 1], `page-${k}`, String(k));
  }
}

/** The problem_id of the page rows of the screen a resumed session begins with. */
export const RESUME_READY = "resume-ready";

/** A resumed session's first screen: the participant starts again when ready (as tol-run). */
export async function readyToContinue(ctx) {
  await showPage(ctx, { text: ctx.msg.resume_ready, image: null }, RESUME_READY, RESUME_READY);
}

/** One page until a click, a touch or the space key; logged with `id` as its problem_id. */
async function showPage(ctx, page, id, name) {
  const shown = await drawShown(() => drawPage(ctx, page));
  Object.assign(ctx.stage.el.dataset, { screen: "page", page: name });
  ctx.write("page_shown", { time: ctx.clock.fromStamp(shown), problem_id: id, stamp: "flip" });
  const left = await new Promise((resolve, reject) => {
    ctx.abort.catch(reject);
    ctx.router.handler = (ev) => {
      if (ev.stamp < shown) return;
      if (ev.kind === "release" || (ev.kind === "key" && matchesContinue(ctx, ev))) resolve(ev);
    };
  });
  ctx.router.handler = null;
  ctx.write("page_left", { time: left.t, problem_id: id, input: left.source, stamp: "arrival" });
}

function matchesContinue(ctx, ev) {
  const spec = ctx.input.continue_key;
  return spec.code ? ev.code === spec.code : String(ev.key).toLowerCase() === spec.key;
}

function drawPage(ctx, page) {
  const stage = ctx.stage;
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
  stage.label("tol-continue", 0, -0.42).textContent = ctx.msg.continue;
}

/** How the trial takes input, for automation: data-input (click, drag, keys) and data-keys. */
function inputData(ctx) {
  const keys = ctx.input.keys ? ctx.input.keys.map((k) => k.code || k.key).join(" ") : "";
  return { input: ctx.input.mode, keys };
}

/** The peg a pointer or key event means, or null. */
function pegOf(ctx, areas, ev) {
  if (ev.kind === "key") {
    const keys = ctx.input.keys || [];
    const i = keys.findIndex((spec) => (spec.code ? ev.code === spec.code : String(ev.key).toLowerCase() === spec.key));
    return i < 0 ? null : i;
  }
  return ctx.stage.hit(areas, ev.x, ev.y);
}

/**
 * The actions of one trial (a problem or a copy) until it is done: every
 * press, release and key becomes the trial's peg actions, each logged with
 * its own stamp; the time limit is checked in every frame.
 */
function play(ctx, trial, areas, t0, base, view, onEvent, afterFrame = null) {
  const mode = ctx.input.mode;
  let drag = null;
  const redraw = () => view.show(trial.state, trial.held, drag, trial.cue ?? null);
  ctx.router.wantsMoves = mode === "drag";
  return new Promise((resolve, reject) => {
    ctx.abort.catch(reject);
    const finish = () => {
      if (trial.done) {
        ctx.router.handler = null;
        resolve();
      }
    };
    const tick = () => {
      const now = ctx.clock.now();
      for (const r of trial.tick(now - t0)) {
        const { event, ...fields } = r;
        ctx.write(event, { time: now, trial_time: now - t0, stamp: "clock", ...base, ...fields });
        onEvent(null, event, fields);
      }
      if (trial.done) redraw();
      finish();
    };
    ctx.router.handler = (ev) => {
      if (trial.done) return;
      if (ev.kind === "move") {
        if (trial.held !== null) {
          drag = [ev.x, ev.y];
          redraw();
        }
        return;
      }
      if (ev.kind !== "key" && ev.t < t0) return; // before the problem was on screen
      if (ev.t - t0 >= (trial.spec.time_limit ?? Infinity)) {
        tick(); // the limit came first
        return;
      }
      let results = [];
      if (ev.kind === "key") {
        if (mode === "keys") {
          const peg = pegOf(ctx, areas, ev);
          if (peg !== null) results = trial.held === null ? trial.pick(peg) : trial.drop(peg);
        }
      } else if (mode === "drag") {
        const peg = pegOf(ctx, areas, ev);
        if (ev.kind === "press" && peg !== null) results = trial.pick(peg);
        else if (ev.kind === "release" || ev.kind === "cancel") {
          results = trial.drop(ev.kind === "cancel" ? null : peg);
          drag = null;
        }
      } else if (ev.kind === "press") {
        const peg = pegOf(ctx, areas, ev);
        if (peg !== null) results = trial.held === null ? trial.pick(peg) : trial.drop(peg);
      }
      const pointer = ev.kind !== "key";
      for (const r of results) {
        const { event, ...fields } = r;
        ctx.write(event, {
          time: ev.t, trial_time: ev.t - t0, x: pointer ? ev.x : null, y: pointer ? ev.y : null,
          input: ev.source, stamp: "arrival", ...base, ...fields,
        });
        onEvent(ev, event, fields);
      }
      if (results.length || drag) redraw();
      finish();
    };
    const limit = trial.spec.time_limit;
    if (limit != null) {
      // Frames stop in a hidden tab; the limit still ends the trial.
      const timer = setTimeout(tick, Math.max(0, (t0 + limit - ctx.clock.now()) * 1000 + 5));
      ctx.abort.catch(() => clearTimeout(timer));
    }
    ctx.frames.start((ts) => {
      if (afterFrame) afterFrame(ts);
      if (!trial.done) tick();
    });
  });
}

/** Stop the frame recording; the trial's statistics, kept for the sidecar. */
function stopFrames(ctx, problemId, copyOf = null) {
  const { intervals, work } = ctx.frames.stop();
  const stats = frameStats(intervals, ctx.refresh, work);
  const entry = { trial: ctx.trialNo, problem_id: problemId, ...stats };
  if (copyOf !== null) entry.copy_of = copyOf;
  ctx.frameTrials.push(entry);
  return stats;
}

/**
 * One attempt at one problem: onset, actions, limits, trial_end, feedback and
 * the inter-trial interval. Returns {outcome, placed, moves, planning_time, total_time}.
 * Throws Abort when the quit key ends the session (the attempt is then cut
 * off: no trial_end row, as in the lab).
 */
export async function playProblem(ctx, problem, { block, attempt, feedback }) {
  ctx.trialNo += 1;
  const stage = ctx.stage;
  const puzzle = ctx.puzzle(problem.puzzle);
  const spec = {
    puzzle,
    start: puzzle.parse(problem.start),
    goal: puzzle.parse(problem.goal),
    time_limit: problem.time_limit,
    move_limit: problem.move_limit,
  };
  const trial = new TrialState(spec, ctx.rules, attempt);
  const base = { block, trial: ctx.trialNo, attempt, problem_id: problem.id };
  const d = ctx.display;
  const [areas, goalAreas] = boards(puzzle, d, stage.aspect);
  // The notice of an illegal move and the feedback: where they cover no peg or piece.
  const textY = textBandY(goalAreas ? [areas, goalAreas] : [areas]);
  let firstPick = null;
  let notice = null;
  let view;
  let timeLabel = null;
  let movesLabel = null;
  let noticeLabel;
  let t0 = null;
  const draw = () => {
    stage.el.replaceChildren();
    if (goalAreas) {
      const goal = new BoardView(stage, puzzle, goalAreas, d, ctx.colors(puzzle), { goal: true, labels: ctx.labels?.(puzzle) });
      goal.show(spec.goal);
      const top = Math.max(...goalAreas.map((a) => a.y + a.h / 2)) + 0.035;
      stage.label("tol-goal-label", 0, top).textContent = ctx.msg.goal_label;
    }
    view = new BoardView(stage, puzzle, areas, d, ctx.colors(puzzle), { labels: ctx.labels?.(puzzle) });
    view.show(trial.state);
    if (d.show_move_counter) movesLabel = stage.label("tol-moves", -0.45 * stage.aspect + 0.12, TOP_LABELS_Y);
    if (d.show_time_left && spec.time_limit) timeLabel = stage.label("tol-time", 0.45 * stage.aspect - 0.15, TOP_LABELS_Y);
    noticeLabel = stage.label("tol-notice", 0, textY);
    labels(0);
  };
  const labels = (now) => {
    if (movesLabel) movesLabel.textContent = fill(ctx.msg.moves_label, { moves: trial.moves });
    if (timeLabel && t0 !== null) {
      const left = Math.max(0, spec.time_limit - (now - t0));
      timeLabel.textContent = fill(ctx.msg.time_label, { seconds: Math.trunc(left + 0.999) });
    }
    noticeLabel.textContent = notice && now < notice[1] ? notice[0] : "";
  };
  const onEvent = (ev, name, fields) => {
    if (name === "pick_up" && firstPick === null) firstPick = ev.t - t0;
    if (fields.reason && d.show_illegal_message) {
      const text = ctx.msg[`illegal_${fields.reason}`];
      if (text) notice = [text, ctx.clock.now() + 1.2];
    }
    labels(ctx.clock.now());
  };
  const shown = await drawShown(draw);
  t0 = ctx.clock.fromStamp(shown);
  ctx.write("trial_onset", {
    time: t0, trial_time: 0.0, state: problem.start, goal: problem.goal, puzzle: puzzle.code,
    moves: 0, stamp: "flip", ...base,
  });
  Object.assign(stage.el.dataset, { screen: "problem", trial: String(ctx.trialNo), problem: problem.id, puzzle: puzzle.code, goal: problem.goal, ...inputData(ctx) });
  try {
    await play(ctx, trial, areas, t0, base, view, onEvent, (ts) => labels(ctx.clock.fromStamp(ts)));
  } catch (exc) {
    endTrial(ctx, problem, trial, t0, base, "aborted");
    throw exc;
  }
  const result = endTrial(ctx, problem, trial, t0, base, trial.outcome);
  result.planning_time = firstPick;
  if (feedback) {
    const text = feedbackText(ctx, trial, problem);
    ctx.write("feedback", { detail: `text=${text}`, ...base });
    stage.el.dataset.screen = "feedback";
    noticeLabel.textContent = ""; // the feedback takes its place
    const el = stage.label("tol-feedback", 0, textY);
    el.textContent = text;
    await sleep(ctx.timing.feedback_duration, ctx.abort);
  }
  stage.el.replaceChildren();
  stage.el.dataset.screen = "interval";
  await sleep(ctx.timing.inter_trial_interval, ctx.abort);
  return result;
}

function endTrial(ctx, problem, trial, t0, base, outcome) {
  const frames = stopFrames(ctx, problem.id);
  ctx.router.handler = null;
  const total = ctx.clock.now() - t0;
  if (outcome !== "aborted") {
    ctx.write("trial_end", {
      trial_time: total, reason: trial.outcome, state: trial.stateText(), moves: trial.moves,
      detail: frameDetail(frames), ...base,
    });
  }
  return { outcome, placed: trial.placed.slice(), moves: trial.moves, total_time: total, trial: base.trial };
}

function feedbackText(ctx, trial, problem) {
  if (trial.outcome === "solved") {
    if (ctx.feedback === "moves") {
      return fill(ctx.msg.moves_feedback, { moves: trial.moves, min_moves: problem.min_moves });
    }
    return ctx.msg.solved;
  }
  const lead = { time_out: ctx.msg.time_out, move_limit: ctx.msg.move_limit }[trial.outcome] || "";
  return `${lead} ${ctx.msg.not_solved}`.trim();
}

/**
 * A yoked copy trial after attempt `copyOf` (a trial number): the moves of
 * `sequence` shown one at a time on the problem's board, without the goal.
 */
export async function playCopy(ctx, problem, { block, attempt, copyOf, source, sequence }) {
  if (!ctx.copyShown) {
    await showMessage(ctx, ctx.msg.copy_start, ctx.copyStartSeconds);
    ctx.copyShown = true;
  }
  ctx.trialNo += 1;
  const stage = ctx.stage;
  const puzzle = ctx.puzzle(problem.puzzle);
  const spec = { puzzle, start: puzzle.parse(problem.start), goal: puzzle.parse(problem.goal) };
  const trial = new CopyState(spec, sequence, attempt);
  const [areas] = boards(puzzle, ctx.display, stage.aspect);
  const base = { block, trial: ctx.trialNo, attempt, problem_id: problem.id, copy_of: copyOf };
  let view;
  let cueShown = -1; // the move index whose cue was last logged
  const draw = () => {
    stage.el.replaceChildren();
    stage.label("tol-copy-label", 0, 0.42).textContent = ctx.msg.copy_label;
    view = new BoardView(stage, puzzle, areas, ctx.display, ctx.colors(puzzle), { labels: ctx.labels?.(puzzle) });
    view.show(trial.state, null, null, trial.cue);
  };
  const shown = await drawShown(draw);
  const t0 = ctx.clock.fromStamp(shown);
  const moves = sequence.map(([a, b]) => `${PEG_LETTERS[a]}>${PEG_LETTERS[b]}`).join(",");
  ctx.write("copy_onset", {
    time: t0, trial_time: 0.0, state: problem.start, goal: puzzle.format(trial.endState()),
    puzzle: puzzle.code, moves: 0, stamp: "flip", detail: `source=${source};sequence=${moves}`, ...base,
  });
  // The cue of each move is drawn as the move before it is placed; it is logged at the
  // frame after the one that drew it (when it was first on screen), like the onset.
  let drawnCue = null;
  const logCue = (ts) => {
    if (trial.done || cueShown === trial.moves) return;
    if (drawnCue !== trial.moves && ts !== shown) {
      drawnCue = trial.moves; // this frame draws it
      return;
    }
    cueShown = trial.moves;
    const [a, b] = trial.cue;
    const t = ctx.clock.fromStamp(ts);
    ctx.write("copy_cue", {
      time: t, trial_time: t - t0, piece: trial.topPiece(a), from_peg: PEG_LETTERS[a],
      to_peg: PEG_LETTERS[b], moves: trial.moves, state: trial.stateText(), stamp: "flip", ...base,
    });
  };
  logCue(shown);
  Object.assign(stage.el.dataset, { screen: "copy", trial: String(ctx.trialNo), problem: problem.id, puzzle: puzzle.code, sequence: moves, ...inputData(ctx) });
  let outcome = "aborted";
  let firstPick = null;
  const onEvent = (ev, name) => {
    if (name === "pick_up" && firstPick === null) firstPick = ev.t - t0;
  };
  try {
    await play(ctx, trial, areas, t0, base, view, onEvent, logCue);
    outcome = trial.outcome;
  } finally {
    const frames = stopFrames(ctx, problem.id, copyOf);
    ctx.router.handler = null;
    const total = ctx.clock.now() - t0;
    if (outcome !== "aborted") {
      ctx.write("copy_end", {
        trial_time: total, reason: outcome, state: trial.stateText(), moves: trial.moves,
        detail: frameDetail(frames), ...base,
      });
    }
  }
  stage.el.replaceChildren();
  await sleep(ctx.timing.inter_trial_interval, ctx.abort);
  return { outcome, moves: trial.moves, refused: trial.refused, first_move_latency: firstPick };
}

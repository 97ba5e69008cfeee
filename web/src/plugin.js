// jsPsych 8 plugins: "tower" plays one problem (for a researcher's own
// timeline, beside other tasks); "tower-session" runs a whole compiled
// protocol (what tol-web build's page runs).

import { ParameterType } from "jspsych";
import { Stage } from "./board.js";
import { DEFAULT_DISPLAY, labelColor, messagesFor, pieceColor } from "./defaults.js";
import { planningScreen, screenLayout } from "./layout.js";
import { fromModel } from "./modelparams.js";
import { playCopy, playPlanning, playProblem, showMessage } from "./play.js";
import { fromCode, shortestPath } from "./puzzle.js";
import { Abort, InputRouter } from "./runtime.js";
import { runSession } from "./session.js";
import { injectStyle } from "./style.js";
import { copySequence } from "./trial.js";
import { CopyRun, PlanningRun, ProblemRun } from "./trialrun.js";
import { VERSION } from "./version.js";

const P = ParameterType;

/** How long the copy trials' first message stays (tol_tasks.session_data.plan.MESSAGE_SECONDS["copy_start"]). */
const COPY_START_SECONDS = 1.5;

const towerInfo = {
  name: "tower",
  version: VERSION,
  parameters: {
    /** The apparatus as the event log codes it: "hanoi:DISKS:PEGS:ADJACENT" or "london:BALLS:CAPACITIES". */
    puzzle: { type: P.STRING, default: "london:RGB:3-2-1" },
    /** The start, in the event log's notation ("GR|B|"; Hanoi: one peg letter per disk, largest first, "AAA"). */
    start: { type: P.STRING, default: undefined },
    /** The goal, in the same notation. */
    goal: { type: P.STRING, default: undefined },
    /** The problem's id (problem_id column); default p01, p02, ... in the session. */
    problem_id: { type: P.STRING, default: null },
    /** The block it belongs to (block column). */
    block: { type: P.STRING, default: "problems" },
    /** The fewest moves; computed by breadth-first search when not given (small puzzles). */
    min_moves: { type: P.INT, default: null },
    /** Seconds allowed (null: none). */
    time_limit: fromModel("problem.time_limit"),
    /** Moves allowed (null: none). */
    move_limit: fromModel("problem.move_limit"),
    /** "click" (a peg, then another), "drag" (drag and drop) or "keys". */
    input_mode: fromModel("input.mode"),
    /** With input_mode "keys": one KeyboardEvent.key per peg, e.g. ["1", "2", "3"]. */
    keys: { type: P.KEYS, default: null },
    /** A key that ends the trial at once (outcome "aborted"), or null. */
    quit_key: { type: P.KEY, default: null },
    /** "none", "solved" or "moves": what is said after the problem. */
    feedback: fromModel("protocol.feedback"),
    feedback_duration: fromModel("timing.feedback_duration"),
    /** Seconds of blank screen after the problem (jsPsych's post_trial_gap adds to it). */
    inter_trial_interval: fromModel("timing.inter_trial_interval"),
    /** The protocol's display settings (background, colours, show_goal, goal_position, ...). */
    display: { type: P.OBJECT, default: {} },
    /** Rules: same_peg_drop_counts_as_move, violation_counts_as_move. */
    rules: { type: P.OBJECT, default: {} },
    /** The language of the participant's texts: en, fr, de or es (tol-tasks' own texts). */
    language: { type: P.STRING, default: "en" },
    /** Texts that replace tol-tasks' own (keys as in a protocol's instructions.messages). */
    messages: { type: P.OBJECT, default: {} },
    /** A yoked copy trial after the problem: "own" (the participant's moves), "optimal", or null. */
    copy: fromModel("copy.moves", { options: [null, ...fromModel("copy.moves").options], default: null }),
    /** Copy an unsolved problem too. */
    copy_unsolved: { type: P.BOOL, default: false },
    /**
     * A planning-only problem (One Touch Stockings style) instead of a moves one: the
     * participant answers how many moves it needs by choosing a numbered box, as a protocol
     * block's `planning` says: {choices: [1, 2, ...] (the numbers on the boxes), keys: one
     * KeyboardEvent.key per box, or null to click or touch the boxes, until_correct: choose
     * again after a wrong choice (default true)}. null: a moves problem.
     */
    planning: { type: P.OBJECT, default: null },
    /** A TolTasks.TowerSession that gathers every tower trial into one event log, or null. */
    session: { type: P.OBJECT, default: null },
    /** Size of the task's stage in CSS pixels; null: the display element's size. */
    width: { type: P.INT, default: null },
    height: { type: P.INT, default: null },
  },
  data: {
    problem_id: { type: P.STRING },
    block: { type: P.STRING },
    attempt: { type: P.INT },
    start: { type: P.STRING },
    goal: { type: P.STRING },
    min_moves: { type: P.INT },
    moves: { type: P.INT },
    solved: { type: P.BOOL },
    outcome: { type: P.STRING },
    planning_time: { type: P.FLOAT },
    total_time: { type: P.FLOAT },
    event_log: { type: P.STRING },
    copy_trial: { type: P.INT },
    copy_outcome: { type: P.STRING },
    copy_moves: { type: P.INT },
    copy_refused: { type: P.INT },
    copy_first_move_latency: { type: P.FLOAT },
    copy_total_time: { type: P.FLOAT },
    rows: { type: P.COMPLEX },
  },
};

/** One tower problem as a jsPsych trial. */
export class TowerPlugin {
  static info = towerInfo;

  constructor(jsPsych) {
    this.jsPsych = jsPsych;
  }

  async trial(displayElement, trial) {
    injectStyle();
    const puzzle = fromCode(trial.puzzle);
    const start = puzzle.parse(trial.start);
    const goal = puzzle.parse(trial.goal);
    const path = trial.min_moves === null || trial.copy === "optimal" ? shortestPath(puzzle, start, goal) : null;
    const minMoves = trial.min_moves ?? (path ? path.length : null);
    const session = trial.session;
    if (!session) throw new Error("the tower plugin needs a session: TolTasks.createSession({participant: ...})");
    if (session.status !== null) {
      throw new Error(`the tower session has ended (${session.status}); no more problems can be run. Create a new TowerSession for a new session.`);
    }
    session.open();
    const problemId = trial.problem_id ?? `p${String(session.trialNo + 1).padStart(2, "0")}`;
    session.enterBlock(trial.block, problemId);
    const display = { ...DEFAULT_DISPLAY, ...trial.display };
    const rect = displayElement.getBoundingClientRect();
    const w = trial.width ?? Math.round(rect.width || innerWidth);
    const h = trial.height ?? Math.round(rect.height || innerHeight * 0.9);
    const el = document.createElement("div");
    el.className = "tol-stage";
    Object.assign(el.style, { width: `${w}px`, height: `${h}px`, background: display.background, color: display.text_color });
    displayElement.replaceChildren(el);
    const stage = new Stage(el, w, h);
    const keys = trial.keys ? trial.keys.map((k) => ({ key: String(k).toLowerCase() })) : null;
    let rejectAbort;
    const abort = new Promise((_, reject) => (rejectAbort = reject));
    abort.catch(() => {});
    // The display the screens draw on (play.js; front.js is the built page's).
    const ui = {
      stage,
      msg: { ...messagesFor(trial.language), ...trial.messages },
      display,
      layout: screenLayout(puzzle.kind, puzzle.capacities, display),
      input: { mode: trial.input_mode, keys, continue_key: { key: " " } },
      timing: { feedback_duration: trial.feedback_duration, inter_trial_interval: trial.inter_trial_interval },
      feedback: trial.feedback,
      clock: session.clock,
      frames: session.frames,
      abort,
      colors: () => Object.fromEntries(puzzle.pieces.map((p) => [String(p), pieceColor(puzzle, p, display.piece_colors)])),
      // display.piece_labels: each ball's letter (disk's number) in black or white, as in the lab.
      labels: () => (display.piece_labels
        ? Object.fromEntries(puzzle.pieces.map((p) => { const c = pieceColor(puzzle, p, display.piece_colors); return [String(p), [String(p), labelColor(c)]]; }))
        : null),
    };
    // What the trial's runs write to (trialrun.js): the session, with this trial's rules.
    const host = {
      write: (event, fields) => session.write(event, fields),
      clock: session.clock,
      rules: trial.rules,
      refresh: null,
      nextTrial: () => ++session.trialNo,
      recordFrames: (entry) => session.frameTrials.push(entry),
    };
    ui.router = new InputRouter(stage, session.clock, {
      quitKey: trial.quit_key ? { key: String(trial.quit_key).toLowerCase() } : null,
      onQuit: (ev) => rejectAbort(new Abort(ev.t)),
      frames: session.frames,
    });
    const problem = {
      id: problemId, puzzle: puzzle.code, start: puzzle.format(start), goal: puzzle.format(goal),
      min_moves: minMoves, time_limit: trial.time_limit, move_limit: trial.move_limit, optimal: path,
    };
    const first = session.log.rowsWritten + 1;
    const data = {
      problem_id: problemId, block: trial.block, attempt: 1, start: problem.start, goal: problem.goal,
      min_moves: minMoves, event_log: session.meta.event_log, copy_trial: null, copy_outcome: null,
      copy_moves: null, copy_refused: null, copy_first_move_latency: null, copy_total_time: null,
    };
    try {
      if (trial.planning) {
        const planning = planningOf(trial.planning);
        const screen = planningScreen(puzzle.kind, puzzle.capacities, display, null, planning.choices.length);
        const run = new PlanningRun(host, problem, puzzle, planning, { block: trial.block, attempt: 1 });
        const r = await playPlanning(ui, run, screen);
        Object.assign(data, { moves: r.moves, solved: r.outcome === "solved", outcome: r.outcome, planning_time: r.planning_time, total_time: r.total_time });
        return data;
      }
      const run = new ProblemRun(host, problem, puzzle, { block: trial.block, attempt: 1 });
      const r = await playProblem(ui, run, { feedback: trial.feedback !== "none" });
      Object.assign(data, { moves: r.moves, solved: r.outcome === "solved", outcome: r.outcome, planning_time: r.planning_time, total_time: r.total_time });
      const wanted = r.outcome === "solved" || (trial.copy && trial.copy_unsolved);
      if (trial.copy && wanted) {
        const sequence = copySequence(trial.copy, r.placed, path || []);
        if (sequence.length) {
          if (!session.copyShown) {
            await showMessage(ui, ui.msg.copy_start, COPY_START_SECONDS);
            session.copyShown = true;
          }
          const copy = new CopyRun(host, problem, puzzle, { block: trial.block, attempt: 1, copyOf: r.trial, source: trial.copy, sequence });
          const c = await playCopy(ui, copy);
          Object.assign(data, { copy_trial: session.trialNo, copy_outcome: c.outcome, copy_moves: c.moves, copy_refused: c.refused, copy_first_move_latency: c.first_move_latency });
        }
      }
    } catch (exc) {
      if (!(exc instanceof Abort)) throw exc;
      // As in the lab, the quit key ends the session: its result is kept, the log closed.
      session.write("abort", { time: exc.t, stamp: exc.stamp, input: "key" });
      session.end("aborted");
      Object.assign(data, { outcome: "aborted", solved: false });
    } finally {
      ui.router.close();
      data.rows = session.log.lines.slice(first - 1);
    }
    return data;
  }
}

/**
 * The plugin's `planning` parameter as a protocol block's compiled planning ({choices, keys,
 * until_correct}), checked as the protocol model checks it (tol_tasks.protocol_format.planning).
 */
function planningOf(p) {
  const choices = (p.choices ?? [1, 2, 3, 4, 5, 6]).map(Number);
  if (choices.length < 2 || new Set(choices).size !== choices.length || choices.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`the tower plugin's planning.choices ${JSON.stringify(p.choices)}: give two or more different whole numbers of 1 or more, e.g. [1, 2, 3, 4, 5, 6]`);
  }
  const keys = p.keys ?? null;
  if (keys !== null && keys.length !== choices.length) {
    throw new Error(`the tower plugin's planning.keys gives ${keys.length} keys for ${choices.length} choices: give one key per box, or null to click them`);
  }
  return {
    choices,
    keys: keys === null ? null : keys.map((k) => ({ key: String(k).toLowerCase() })),
    until_correct: p.until_correct ?? true,
  };
}

/** A whole compiled protocol (protocol.json) as one jsPsych trial. */
export class TowerSessionPlugin {
  static info = {
    name: "tower-session",
    version: VERSION,
    parameters: {
      /** The compiled protocol (the contents of protocol.json). */
      protocol: { type: P.OBJECT, default: undefined },
      /** tol-web build's settings: participant_param, session_param, destination, ... */
      settings: { type: P.OBJECT, default: {} },
    },
    data: {
      status: { type: P.STRING },
      saved: { type: P.STRING },
      event_log_name: { type: P.STRING },
      event_log: { type: P.STRING },
      sidecar_name: { type: P.STRING },
      sidecar: { type: P.STRING },
    },
  };

  constructor(jsPsych) {
    this.jsPsych = jsPsych;
  }

  async trial(displayElement, trial) {
    const summary = await runSession(displayElement, trial.protocol, trial.settings);
    return summary;
  }
}

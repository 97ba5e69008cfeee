// One trial's rows, independent of any display: the display reports what the
// participant did at the peg level (with the input's own time, place and
// source) and when things reached the screen; a run keeps the trial's state
// (trial.js), writes every row the lab writes for it and says when it is done.
// The lab's counterpart is tol_tasks/runner/play.py (ProblemTrial, CopyTrial,
// feedback_text), which logs what tol_tasks/session_data/trial.py returns in
// the same way, and tol_tasks/runner/planning.py (PlanningTrial) for a
// planning-only problem (PlanningRun).
//
// `host` is what the run writes to: {write(event, fields), clock, rules,
// nextTrial() -> the new trial number, recordFrames(entry), refresh}: the
// session driver (driver.js) or the plugin's TowerSession (embed.js).

import { formatDetail } from "./detail.js";
import { frameDetail, frameStats } from "./frames.js";
import { PEG_LETTERS } from "./puzzle.js";
import { pyFixed } from "./pyformat.js";
import { CopyState, TrialState } from "./trial.js";

/** A message text with its {name} fields filled in (Python's str.format for plain names). */
/**
 * `row` as a recorder writes it at `now`, after a last row of time `after`: as it is,
 * unless its own time is before the last row's; then at `now`, stamp clock, its
 * trial_time moved by as much, its own time and stamp in detail (at, at_stamp).
 * A port of tol_tasks/session_data/trial_rows.py in_time_order.
 */
export function inTimeOrder(row, after, now) {
  const own = row.time;
  if (own === undefined || own === null || !(own < after)) return row;
  const out = { ...row, time: now, stamp: "clock" };
  if (row.trial_time !== undefined && row.trial_time !== null) out.trial_time = row.trial_time + (now - own);
  const held = formatDetail({ at: pyFixed(own, 6), at_stamp: row.stamp ?? null });
  out.detail = row.detail ? `${row.detail};${held}` : held;
  return out;
}

export function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

class Run {
  constructor(host, trial, base) {
    this.host = host;
    this.trial = trial;
    this.base = base;
    this.t0 = null;
    this.firstPick = null;
  }

  get done() {
    return this.trial.done;
  }

  /**
   * The participant acted on `peg` (null: away from every peg): `kind` "pick",
   * "drop" or "toggle" (pick when nothing is held, else drop). `ev`: {kind ("key"
   * or a pointer's), t (session seconds), x, y (stage pixels), source}. Returns the rows
   * written, as {event, fields}.
   */
  act(kind, peg, ev) {
    if (this.trial.done) return [];
    let results;
    if (kind === "drop") results = this.trial.drop(peg);
    else if (peg === null) results = [];
    else if (kind === "pick" || this.trial.held === null) results = this.trial.pick(peg);
    else results = this.trial.drop(peg);
    const pointer = ev.kind !== "key";
    return this._log(results, (fields) => ({
      time: ev.t, trial_time: ev.t - this.t0, x: pointer ? ev.x : null, y: pointer ? ev.y : null,
      input: ev.source, stamp: "arrival", ...this.base, ...fields,
    }), ev);
  }

  /** Check the time limit at session time `now`; the rows written. */
  tick(now) {
    return this._log(this.trial.tick(now - this.t0), (fields) => ({
      time: now, trial_time: now - this.t0, stamp: "clock", ...this.base, ...fields,
    }), null);
  }

  /** Whether an input at session time `t` came after the time limit (which then comes first). */
  pastLimit(t) {
    return t - this.t0 >= (this.trial.spec.time_limit ?? Infinity);
  }

  _log(results, fieldsOf, ev) {
    const out = [];
    for (const r of results) {
      const { event, ...fields } = r;
      this.host.write(event, fieldsOf(fields));
      if (event === "pick_up" && this.firstPick === null && ev) this.firstPick = ev.t - this.t0;
      out.push({ event, fields });
    }
    return out;
  }

  /** Stop: the frame statistics of `frames` ({intervals, work}) kept for the sidecar. */
  _frames(frames, copyOf = null) {
    const stats = frameStats(frames.intervals, this.host.refresh, frames.work);
    const entry = { trial: this.base.trial, problem_id: this.base.problem_id, ...stats };
    if (copyOf !== null) entry.copy_of = copyOf;
    this.host.recordFrames(entry);
    return stats;
  }
}

/**
 * One attempt at one problem. `problem`: the compiled problem (id, start, goal,
 * min_moves, limits); `puzzle`: its apparatus.
 */
export class ProblemRun extends Run {
  constructor(host, problem, puzzle, { block, attempt }) {
    const spec = {
      puzzle,
      start: puzzle.parse(problem.start),
      goal: puzzle.parse(problem.goal),
      time_limit: problem.time_limit,
      move_limit: problem.move_limit,
    };
    const trial = new TrialState(spec, host.rules, attempt);
    super(host, trial, { block, trial: host.nextTrial(), attempt, problem_id: problem.id });
    this.problem = problem;
    this.puzzle = puzzle;
  }

  /** The problem was first on screen at session time `t0`. */
  onset(t0) {
    this.t0 = t0;
    this.host.write("trial_onset", {
      time: t0, trial_time: 0.0, state: this.problem.start, goal: this.problem.goal,
      puzzle: this.puzzle.code, moves: 0, stamp: "flip", ...this.base,
    });
  }

  /**
   * The attempt is over (`aborted`: cut off by the quit key, no trial_end row, as
   * in the lab). Returns {outcome, placed, moves, planning_time, total_time, trial}.
   */
  end(frames, aborted = false) {
    const stats = this._frames(frames);
    const total = this.host.clock.now() - this.t0;
    if (!aborted) {
      this.host.write("trial_end", {
        trial_time: total, reason: this.trial.outcome, state: this.trial.stateText(),
        moves: this.trial.moves, detail: frameDetail(stats), ...this.base,
      });
    }
    return {
      outcome: aborted ? "aborted" : this.trial.outcome, placed: this.trial.placed.slice(),
      moves: this.trial.moves, total_time: total, trial: this.base.trial, planning_time: this.firstPick,
    };
  }

  /** The feedback text after the attempt (`mode`: the protocol's feedback), logged. */
  feedback(msg, mode) {
    const text = feedbackText(msg, mode, this.trial, this.problem);
    this.host.write("feedback", { detail: `text=${text}`, ...this.base });
    return text;
  }
}

function feedbackText(msg, mode, trial, problem) {
  if (trial.outcome === "solved") {
    if (mode === "moves") return fill(msg.moves_feedback, { moves: trial.moves, min_moves: problem.min_moves });
    return msg.solved;
  }
  const lead = { time_out: msg.time_out, move_limit: msg.move_limit }[trial.outcome] || "";
  return `${lead} ${msg.not_solved}`.trim();
}

/**
 * A yoked copy trial after attempt `copyOf` (a trial number): the moves of
 * `sequence` ([from, to] pairs) shown one at a time on the problem's board.
 */
export class CopyRun extends Run {
  constructor(host, problem, puzzle, { block, attempt, copyOf, source, sequence }) {
    const spec = { puzzle, start: puzzle.parse(problem.start), goal: puzzle.parse(problem.goal) };
    const trial = new CopyState(spec, sequence, attempt);
    super(host, trial, { block, trial: host.nextTrial(), attempt, problem_id: problem.id, copy_of: copyOf });
    this.problem = problem;
    this.puzzle = puzzle;
    this.source = source;
    this.copyOf = copyOf;
    this.sequenceText = sequence.map(([a, b]) => `${PEG_LETTERS[a]}>${PEG_LETTERS[b]}`).join(",");
    this.cueShown = -1; // the move index whose cue was last logged
  }

  /** The copy trial was first on screen at session time `t0`. */
  onset(t0) {
    this.t0 = t0;
    this.host.write("copy_onset", {
      time: t0, trial_time: 0.0, state: this.problem.start, goal: this.puzzle.format(this.trial.endState()),
      puzzle: this.puzzle.code, moves: 0, stamp: "flip", detail: `source=${this.source};sequence=${this.sequenceText}`,
      ...this.base,
    });
  }

  /** Whether the cue of the current move still has to be logged. */
  get cuePending() {
    return !this.trial.done && this.cueShown !== this.trial.moves;
  }

  /** The cue of the current move was first on screen at session time `t`. */
  cue(t) {
    if (!this.cuePending) return;
    this.cueShown = this.trial.moves;
    const [a, b] = this.trial.cue;
    this.host.write("copy_cue", {
      time: t, trial_time: t - this.t0, piece: this.trial.topPiece(a), from_peg: PEG_LETTERS[a],
      to_peg: PEG_LETTERS[b], moves: this.trial.moves, state: this.trial.stateText(), stamp: "flip", ...this.base,
    });
  }

  /** The copy is over (or cut off: `aborted`). Returns {outcome, moves, refused, first_move_latency}. */
  end(frames, aborted = false) {
    const stats = this._frames(frames, this.copyOf);
    const total = this.host.clock.now() - this.t0;
    const outcome = aborted ? "aborted" : this.trial.outcome;
    if (!aborted) {
      this.host.write("copy_end", {
        trial_time: total, reason: outcome, state: this.trial.stateText(), moves: this.trial.moves,
        detail: frameDetail(stats), ...this.base,
      });
    }
    return { outcome, moves: this.trial.moves, refused: this.trial.refused, first_move_latency: this.firstPick, total_time: total };
  }
}

/**
 * A planning-only problem (One Touch Stockings style; the lab's PlanningTrial in
 * tol_tasks/runner/planning.py): the participant answers how many moves it needs by
 * choosing numbered boxes. `planning`: the block's compiled planning ({choices, keys,
 * until_correct}). Rows: planning_onset, one choice per answer (its own time, latency
 * from the onset, the number in `moves`, reason correct or wrong), planning_end (reason
 * solved, wrong when a first wrong choice ends the problem, or time_out; `moves` the
 * number of choices).
 */
export class PlanningRun extends Run {
  constructor(host, problem, puzzle, planning, { block, attempt }) {
    super(host, null, { block, trial: host.nextTrial(), attempt, problem_id: problem.id });
    this.problem = problem;
    this.puzzle = puzzle;
    this.planning = planning;
    this.choices = []; // [number chosen, latency]
    this.outcome = null;
  }

  get done() {
    return this.outcome !== null;
  }

  /** The problem was first on screen at session time `t0`. */
  onset(t0) {
    this.t0 = t0;
    this.host.write("planning_onset", {
      time: t0, trial_time: 0.0, state: this.problem.start, goal: this.problem.goal, puzzle: this.puzzle.code,
      stamp: "flip", detail: formatDetail({ choices: this.planning.choices.join(","), min_moves: this.problem.min_moves }),
      ...this.base,
    });
  }

  /**
   * The participant chose box `k` (left to right) with `ev` ({kind, t, x, y, source});
   * the row written, as {event, fields}, or null when the problem was already over.
   */
  choose(k, ev) {
    if (this.done) return null;
    const number = this.planning.choices[k];
    const right = number === this.problem.min_moves;
    const latency = ev.t - this.t0;
    this.choices.push([number, latency]);
    const pointer = ev.kind !== "key";
    const fields = {
      time: ev.t, trial_time: latency, moves: number, reason: right ? "correct" : "wrong", input: ev.source,
      stamp: "arrival", x: pointer ? ev.x : null, y: pointer ? ev.y : null, ...this.base,
    };
    this.host.write("choice", fields);
    if (right) this.outcome = "solved";
    else if (!this.planning.until_correct) this.outcome = "wrong";
    return { event: "choice", fields };
  }

  /** Whether an input at session time `t` came after the time limit (which then comes first). */
  pastLimit(t) {
    return t - this.t0 >= (this.problem.time_limit ?? Infinity);
  }

  /** Check the time limit at session time `now` (the problem ends, time_out). */
  tick(now) {
    if (!this.done && this.pastLimit(now)) this.outcome = "time_out";
    return [];
  }

  /** The problem is over (`aborted`: cut off by the quit key, no planning_end row). */
  end(frames, aborted = false) {
    const stats = this._frames(frames);
    const total = this.host.clock.now() - this.t0;
    if (!aborted) {
      this.host.write("planning_end", {
        trial_time: total, reason: this.outcome, moves: this.choices.length, detail: frameDetail(stats), ...this.base,
      });
    }
    return {
      outcome: aborted ? "aborted" : this.outcome, placed: [], moves: this.choices.length, total_time: total,
      trial: this.base.trial, planning_time: this.choices.length ? this.choices[0][1] : null,
    };
  }
}

// What happens in a trial, independent of any display
// (tol_tasks/session_data/trial.py TrialState and CopyState, rule for rule).
// The page feeds peg-level actions; each method returns the events to log, as
// objects of event-log fields. OnBoard holds what both kinds share (pick and
// drop, as Python's _OnBoard); each kind says what it refuses (refusePick)
// and what a drop on a peg does (put).

import { IllegalMove, PEG_LETTERS } from "./puzzle.js";
import { pyFormatG } from "./pyformat.js";

class OnBoard {
  constructor(spec) {
    this.spec = spec;
    this.puzzle = spec.puzzle;
    this.state = spec.puzzle.copy(spec.start);
    this.moves = 0;
    this.held = null;
    this.outcome = null;
  }

  get done() {
    return this.outcome !== null;
  }

  stateText() {
    return this.puzzle.format(this.state);
  }

  ev(event, fields = {}) {
    return { event, state: this.stateText(), moves: this.moves, ...fields };
  }

  topPiece(peg) {
    return this.puzzle.top(this.state, peg);
  }

  /** The participant takes the top piece of `peg`. */
  pick(peg) {
    if (this.done || this.held !== null) return [];
    const piece = this.topPiece(peg);
    if (piece === null) return [this.ev("empty_pick", { from_peg: PEG_LETTERS[peg] })];
    const refused = this.refusePick(peg, piece);
    if (refused.length) return refused;
    this.held = peg;
    return [this.ev("pick_up", { piece, from_peg: PEG_LETTERS[peg] })];
  }

  /** The participant puts the held piece on `peg` (null: away from every peg). */
  drop(peg) {
    if (this.done || this.held === null) return [];
    const src = this.held;
    this.held = null;
    const piece = this.topPiece(src);
    if (peg === null) return [this.ev("cancel", { piece, from_peg: PEG_LETTERS[src] })];
    return this.put(src, peg, piece);
  }

  /** The events of a pick-up that is refused (none: every piece may be taken). */
  refusePick() {
    return [];
  }
}

/**
 * One attempt at one problem. `spec`: {puzzle, start, goal, time_limit,
 * move_limit} (states as lists of pegs); `rules`: the protocol's rules.
 * `placed` keeps the completed moves, [from peg, to peg], in order.
 */
export class TrialState extends OnBoard {
  constructor(spec, rules = {}, attempt = 1) {
    super(spec);
    this.rules = rules;
    this.attempt = attempt;
    this.violations = 0;
    this.placed = [];
    this.goalText = spec.puzzle.format(spec.goal);
  }

  put(src, peg, piece) {
    const a = PEG_LETTERS[src];
    const b = PEG_LETTERS[peg];
    if (peg === src) {
      if (this.rules.same_peg_drop_counts_as_move) this.moves += 1;
      return [this.ev("same_peg_drop", { piece, from_peg: a, to_peg: b }), ...this.limits()];
    }
    try {
      this.puzzle.checkMove(this.state, src, peg);
    } catch (exc) {
      if (!(exc instanceof IllegalMove)) throw exc;
      this.violations += 1;
      if (this.rules.violation_counts_as_move) this.moves += 1;
      return [this.ev("illegal", { piece, from_peg: a, to_peg: b, reason: exc.rule }), ...this.limits()];
    }
    this.state = this.puzzle.move(this.state, src, peg);
    this.moves += 1;
    this.placed.push([src, peg]);
    const out = [this.ev("place", { piece, from_peg: a, to_peg: b })];
    if (this.stateText() === this.goalText) {
      this.outcome = "solved";
      return [...out, this.ev("solved")];
    }
    return [...out, ...this.limits()];
  }

  limits() {
    const limit = this.spec.move_limit;
    if (limit !== null && limit !== undefined && this.moves >= limit && !this.done) {
      this.outcome = "move_limit";
      return [this.ev("move_limit", { detail: `limit=${limit}` })];
    }
    return [];
  }

  /** Check the time limit at `trialTime` seconds after onset. */
  tick(trialTime) {
    const limit = this.spec.time_limit;
    if (limit !== null && limit !== undefined && !this.done && trialTime >= limit) {
      this.outcome = "time_out";
      this.held = null;
      return [this.ev("time_out", { detail: `limit=${pyFormatG(limit)}` })];
    }
    return [];
  }
}

/**
 * A yoked copy trial: the moves of `sequence` ([from, to] pairs) shown one at
 * a time; any other action is refused (copy_refused) and the same move stays shown.
 */
export class CopyState extends OnBoard {
  constructor(spec, sequence, attempt = 1) {
    super(spec);
    if (!sequence.length) throw new Error("a copy trial needs at least one move to copy");
    this.sequence = sequence;
    this.attempt = attempt;
    this.refused = 0;
  }

  /** [from peg, to peg] of the move shown now, or null when all are made. */
  get cue() {
    return this.done ? null : this.sequence[this.moves];
  }

  /** Where the sequence leads. */
  endState() {
    let s = this.spec.start;
    for (const [a, b] of this.sequence) s = this.puzzle.move(s, a, b);
    return s;
  }

  refusePick(peg, piece) {
    const [src, dst] = this.sequence[this.moves];
    if (peg === src) return [];
    this.refused += 1;
    return [
      this.ev("copy_refused", {
        piece,
        from_peg: PEG_LETTERS[peg],
        reason: "wrong_piece",
        detail: `shown=${PEG_LETTERS[src]}>${PEG_LETTERS[dst]}`,
      }),
    ];
  }

  put(src, peg, piece) {
    const a = PEG_LETTERS[src];
    const b = PEG_LETTERS[peg];
    if (peg === src) return [this.ev("same_peg_drop", { piece, from_peg: a, to_peg: b })];
    const dst = this.sequence[this.moves][1];
    if (peg !== dst) {
      this.refused += 1;
      return [
        this.ev("copy_refused", {
          piece,
          from_peg: a,
          to_peg: b,
          reason: "wrong_peg",
          detail: `shown=${a}>${PEG_LETTERS[dst]}`,
        }),
      ];
    }
    this.state = this.puzzle.move(this.state, src, peg);
    this.moves += 1;
    const out = [this.ev("place", { piece, from_peg: a, to_peg: b })];
    if (this.moves === this.sequence.length) {
      this.outcome = "copied";
      out.push(this.ev("copy_done"));
    }
    return out;
  }

  /** Copy trials have no time limit. */
  tick() {
    return [];
  }
}

/** The moves a copy trial shows: the attempt's own moves, or the compiled shortest solution. */
export function copySequence(source, placed, optimal) {
  return source === "own" ? placed.map((m) => m.slice()) : optimal.map((m) => m.slice());
}

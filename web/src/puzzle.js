// The two apparatus, as the event log writes them (tol_tasks/puzzles in Python).
//
// A state is a list of pegs, each a list of pieces bottom to top: disk numbers
// (1 = smallest) for the Tower of Hanoi, ball letters for the Tower of London.
// Its text is Python's str(state): Hanoi, one peg letter per disk, largest disk
// first ("ACC"); London, each peg's balls bottom to top, pegs split by "|"
// ("GR|B|"). Moves are checked rule for rule as Python's check_move does and
// an illegal one names the same rule (tol_tasks.config RULE_*).

export const PEG_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

export const RULES = Object.freeze({
  EMPTY_SOURCE: "empty_source",
  LARGER_ON_SMALLER: "larger_on_smaller",
  PEG_FULL: "peg_full",
  FORBIDDEN_PAIR: "forbidden_pair",
  SAME_PEG: "same_peg",
});

/** A move that breaks a rule; `rule` names it as the event log does. */
export class IllegalMove extends Error {
  constructor(message, rule) {
    super(message);
    this.name = "IllegalMove";
    this.rule = rule;
  }
}

class Puzzle {
  /** A copy of `state` (pegs of pieces). */
  copy(state) {
    return state.map((col) => col.slice());
  }

  /** The top piece of `peg`, or null when it is empty. */
  top(state, peg) {
    const col = state[peg];
    return col.length ? col[col.length - 1] : null;
  }

  equal(a, b) {
    return this.format(a) === this.format(b);
  }

  /** The piece that moves from `source` to `target`, or throw IllegalMove. */
  checkMove(state, source, target) {
    if (source === target) {
      throw new IllegalMove(`source and target are both peg ${PEG_LETTERS[source]}`, RULES.SAME_PEG);
    }
    const piece = this.top(state, source);
    if (piece === null) {
      throw new IllegalMove(`cannot move from peg ${PEG_LETTERS[source]}: it is empty`, RULES.EMPTY_SOURCE);
    }
    this._checkTarget(state, source, target, piece);
    return piece;
  }

  /** The state after moving the top piece of `source` onto `target` (checked). */
  move(state, source, target) {
    this.checkMove(state, source, target);
    const next = this.copy(state);
    next[target].push(next[source].pop());
    return next;
  }
}

export class Hanoi extends Puzzle {
  constructor(disks, pegs = 3, adjacentOnly = false) {
    super();
    this.kind = "hanoi";
    this.disks = disks;
    this.nPegs = pegs;
    this.adjacentOnly = adjacentOnly;
    this.code = `hanoi:${disks}:${pegs}:${adjacentOnly ? 1 : 0}`;
    this.pieces = Array.from({ length: disks }, (_, i) => i + 1);
    this.capacities = Array(pegs).fill(disks);
  }

  parse(text) {
    const t = String(text).trim().toUpperCase();
    if (t.length !== this.disks) {
      throw new Error(`"${text}": ${t.length} disks given, this puzzle has ${this.disks}`);
    }
    const state = Array.from({ length: this.nPegs }, () => []);
    // Largest disk first: disk n is the first letter; pegs fill bottom to top.
    for (let k = 0; k < t.length; k++) {
      const peg = PEG_LETTERS.indexOf(t[k]);
      if (peg < 0 || peg >= this.nPegs) throw new Error(`"${text}": no peg ${t[k]}`);
      state[peg].push(this.disks - k);
    }
    return state;
  }

  format(state) {
    const where = new Array(this.disks);
    state.forEach((col, peg) => col.forEach((d) => (where[this.disks - d] = PEG_LETTERS[peg])));
    return where.join("");
  }

  _checkTarget(state, source, target, piece) {
    if (this.adjacentOnly && Math.abs(source - target) !== 1) {
      throw new IllegalMove(
        `cannot move disk ${piece} directly from peg ${PEG_LETTERS[source]} to peg ${PEG_LETTERS[target]}`,
        RULES.FORBIDDEN_PAIR,
      );
    }
    const under = this.top(state, target);
    if (under !== null && under < piece) {
      throw new IllegalMove(`cannot move disk ${piece} onto disk ${under}`, RULES.LARGER_ON_SMALLER);
    }
  }
}

export class London extends Puzzle {
  constructor(balls = "RGB", capacities = [3, 2, 1]) {
    super();
    this.kind = "london";
    this.balls = balls;
    this.nPegs = capacities.length;
    this.capacities = capacities.slice();
    this.code = `london:${balls}:${capacities.join("-")}`;
    this.pieces = balls.split("");
  }

  parse(text) {
    const parts = String(text).trim().split("|").map((p) => p.trim().toUpperCase());
    if (parts.length !== this.nPegs) {
      throw new Error(`"${text}": ${parts.length} pegs given, this puzzle has ${this.nPegs}`);
    }
    return parts.map((p) => p.split(""));
  }

  format(state) {
    return state.map((col) => col.join("")).join("|");
  }

  _checkTarget(state, source, target, piece) {
    if (state[target].length >= this.capacities[target]) {
      throw new IllegalMove(`cannot move ball ${piece} onto peg ${PEG_LETTERS[target]}: it is full`, RULES.PEG_FULL);
    }
  }
}

/** The puzzle of an event log's `puzzle` code ("hanoi:3:3:0", "london:RGB:3-2-1"). */
export function fromCode(code) {
  const parts = String(code).split(":");
  if (parts[0] === "hanoi" && parts.length === 4) {
    return new Hanoi(Number(parts[1]), Number(parts[2]), parts[3] === "1");
  }
  if (parts[0] === "london" && parts.length === 3) {
    return new London(parts[1], parts[2].split("-").map(Number));
  }
  throw new Error(`puzzle ${JSON.stringify(code)} is not a puzzle code such as hanoi:3:3:0 or london:RGB:3-2-1`);
}

/**
 * A shortest solution from `start` to `goal` by breadth-first search, as
 * [from, to] peg pairs; null when the state space exceeds `maxStates`.
 * The build compiles exact minimums and solutions from Python's solver; this
 * serves a researcher who gives the plugin a problem without them.
 */
export function shortestPath(puzzle, start, goal, maxStates = 200000) {
  const goalText = puzzle.format(goal);
  const startText = puzzle.format(start);
  if (startText === goalText) return [];
  const parent = new Map([[startText, null]]);
  let frontier = [start];
  while (frontier.length) {
    const next = [];
    for (const s of frontier) {
      for (let a = 0; a < puzzle.nPegs; a++) {
        for (let b = 0; b < puzzle.nPegs; b++) {
          let t;
          try {
            t = puzzle.move(s, a, b);
          } catch {
            continue;
          }
          const key = puzzle.format(t);
          if (parent.has(key)) continue;
          parent.set(key, [puzzle.format(s), a, b]);
          if (key === goalText) {
            const path = [];
            for (let k = key; parent.get(k); k = parent.get(k)[0]) path.unshift(parent.get(k).slice(1));
            return path;
          }
          if (parent.size > maxStates) return null;
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  throw new Error(`the goal ${goalText} cannot be reached from ${startText}`);
}

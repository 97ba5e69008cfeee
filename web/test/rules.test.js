// The puzzles' rules and the trial state machine (tol_tasks/puzzles, session_data/trial.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Hanoi, IllegalMove, London, fromCode, shortestPath } from "../src/puzzle.js";
import { CopyState, TrialState } from "../src/trial.js";

function rule(fn) {
  try {
    fn();
  } catch (exc) {
    assert.ok(exc instanceof IllegalMove, String(exc));
    return exc.rule;
  }
  return null;
}

test("Hanoi states read and write as the event log does (largest disk first)", () => {
  const h = new Hanoi(3);
  const s = h.parse("ACC");
  assert.deepEqual(s, [[3], [], [2, 1]]);
  assert.equal(h.format(s), "ACC");
  assert.equal(h.code, "hanoi:3:3:0");
  assert.equal(fromCode("hanoi:4:4:1").code, "hanoi:4:4:1");
});

test("Hanoi refuses a larger disk on a smaller one, an empty peg and (adjacent only) a far peg", () => {
  const h = new Hanoi(3);
  const s = h.parse("AAB"); // disk 1 on B, disks 3 and 2 on A
  assert.equal(rule(() => h.checkMove(s, 0, 1)), "larger_on_smaller");
  assert.equal(rule(() => h.checkMove(s, 2, 0)), "empty_source");
  assert.equal(rule(() => h.checkMove(s, 1, 1)), "same_peg");
  assert.equal(h.checkMove(s, 1, 0), 1);
  const adj = new Hanoi(3, 3, true);
  assert.equal(rule(() => adj.checkMove(adj.parse("AAA"), 0, 2)), "forbidden_pair");
  // forbidden_pair is named before larger_on_smaller, as in Python
  assert.equal(rule(() => adj.checkMove(adj.parse("CAA"), 0, 2)), "forbidden_pair");
});

test("London refuses a full peg; balls are letters, pegs split by |", () => {
  const l = new London("RGB", [3, 2, 1]);
  const s = l.parse("GR|B|");
  assert.equal(l.format(s), "GR|B|");
  assert.equal(l.format(l.move(s, 0, 2)), "G|B|R");
  assert.equal(rule(() => l.checkMove(l.parse("G|B|R"), 1, 2)), "peg_full");
  assert.equal(rule(() => l.checkMove(s, 2, 0)), "empty_source");
  assert.equal(fromCode("london:RGBY:4-3-2-1").code, "london:RGBY:4-3-2-1");
});

test("breadth-first search finds the published minimums", () => {
  const h = new Hanoi(3);
  assert.equal(shortestPath(h, h.parse("AAA"), h.parse("CCC")).length, 7);
  const l = new London();
  assert.equal(shortestPath(l, l.parse("GR|B|"), l.parse("RGB||")).length, 5);
  assert.equal(shortestPath(new Hanoi(3, 3, true), new Hanoi(3).parse("AAA"), new Hanoi(3).parse("CCC")).length, 26);
});

function spec(puzzle, start, goal, limits = {}) {
  return { puzzle, start: puzzle.parse(start), goal: puzzle.parse(goal), time_limit: null, move_limit: null, ...limits };
}

test("a trial logs pick-up, place, illegal with its rule, same-peg drop, empty pick, cancel, solved", () => {
  const h = new Hanoi(2);
  const t = new TrialState(spec(h, "AA", "CC"), {});
  assert.deepEqual(t.pick(2), [{ event: "empty_pick", state: "AA", moves: 0, from_peg: "C" }]);
  assert.deepEqual(t.pick(0), [{ event: "pick_up", state: "AA", moves: 0, piece: 1, from_peg: "A" }]);
  assert.deepEqual(t.drop(0), [{ event: "same_peg_drop", state: "AA", moves: 0, piece: 1, from_peg: "A", to_peg: "A" }]);
  t.pick(0);
  assert.deepEqual(t.drop(null), [{ event: "cancel", state: "AA", moves: 0, piece: 1, from_peg: "A" }]);
  t.pick(0);
  assert.deepEqual(t.drop(1), [{ event: "place", state: "AB", moves: 1, piece: 1, from_peg: "A", to_peg: "B" }]);
  t.pick(0);
  assert.deepEqual(t.drop(1), [
    { event: "illegal", state: "AB", moves: 1, piece: 2, from_peg: "A", to_peg: "B", reason: "larger_on_smaller" },
  ]);
  assert.equal(t.violations, 1);
  t.pick(0);
  t.drop(2);
  t.pick(1);
  const end = t.drop(2);
  assert.deepEqual(end.map((e) => e.event), ["place", "solved"]);
  assert.equal(t.outcome, "solved");
  assert.deepEqual(t.placed, [[0, 1], [0, 2], [1, 2]]);
  assert.deepEqual(t.pick(0), []);
});

test("the protocol's conventions: violations and same-peg drops counted as moves; limits", () => {
  const h = new Hanoi(2);
  const t = new TrialState(spec(h, "AA", "CC", { move_limit: 3 }), {
    violation_counts_as_move: true,
    same_peg_drop_counts_as_move: true,
  });
  t.pick(0);
  t.drop(0);
  assert.equal(t.moves, 1);
  t.pick(0);
  t.drop(1);
  t.pick(0);
  const out = t.drop(1);
  assert.deepEqual(out.map((e) => e.event), ["illegal", "move_limit"]);
  assert.equal(out[1].detail, "limit=3");
  assert.equal(t.outcome, "move_limit");
  const timed = new TrialState(spec(h, "AA", "CC", { time_limit: 120 }), {});
  assert.deepEqual(timed.tick(119.9), []);
  timed.pick(0);
  assert.deepEqual(timed.tick(120), [{ event: "time_out", state: "AA", moves: 0, detail: "limit=120" }]);
  assert.equal(timed.held, null);
});

test("a copy trial refuses the wrong piece and the wrong peg and ends when all moves are made", () => {
  const l = new London();
  const c = new CopyState(spec(l, "GR|B|", "G|R|B"), [[0, 2], [0, 1]]);
  assert.deepEqual(c.cue, [0, 2]);
  assert.deepEqual(c.pick(1), [
    { event: "copy_refused", state: "GR|B|", moves: 0, piece: "B", from_peg: "B", reason: "wrong_piece", detail: "shown=A>C" },
  ]);
  c.pick(0);
  assert.equal(c.drop(1)[0].reason, "wrong_peg");
  c.pick(0);
  assert.equal(c.drop(2)[0].event, "place");
  c.pick(0);
  assert.deepEqual(c.drop(1).map((e) => e.event), ["place", "copy_done"]);
  assert.equal(c.outcome, "copied");
  assert.equal(c.refused, 2);
  assert.equal(l.format(c.endState()), "|BG|R");
});

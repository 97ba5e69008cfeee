// The session plan: the decisions of tol-run (tol_tasks/session_data/plan.py SessionPlan, rules R1-R7) over outcomes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { progressOf, sessionPlan } from "../src/plan.js";

const p = (id) => ({ id, puzzle: "hanoi:2:3:0", start: "AA", goal: "CC", min_moves: 3, optimal: [[0, 1], [0, 2], [1, 2]] });
// A plan as SessionPlan.describe() gives it (tests/test_web_plan.py checks real ones against Python).
const proto = {
  rules_version: 2,
  pauses: { before_test: false, between_blocks: false },
  messages: { practice_start: 1.5, test_start: 1.5, copy_start: 1.5, end: 2.0, try_again: 1.5 },
  practice: { tries: 3, repeat_until_solved: true, feedback: true, problems: [p("pr")] },
  blocks: [
    { name: "a", order: "fixed", seed: null, attempts: 2, discontinue_after: 2, feedback: true, copies: null, problems: [p("a1"), p("a2"), p("a3")] },
    { name: "b", order: "fixed", seed: null, attempts: 1, discontinue_after: null, feedback: true, copies: { moves: "own", unsolved: "skip" }, problems: [p("b1"), p("b2")] },
  ],
};
const order = (b) => [b.problems.map((_, i) => i), null];

/** Drive the plan with outcomes in turn; the steps it took, in a short notation. */
function walk(outcomes, opts = {}) {
  const plan = sessionPlan(proto, { blocks: [0, 1], order, ...opts });
  const seen = [];
  let step = plan.next();
  while (!step.done) {
    const s = step.value;
    let reply;
    if (s.kind === "problem") {
      const outcome = outcomes.shift();
      seen.push(`${s.problem.id}#${s.attempt}:${outcome}`);
      reply = { outcome, placed: outcome === "solved" ? [[0, 2], [0, 2]] : [[0, 1]] };
    } else if (s.kind === "message") seen.push(`msg:${s.key}`);
    else if (s.kind === "copy") seen.push(`copy:${s.problem.id}:${s.sequence.length}`);
    else if (s.kind === "block_start") seen.push(`block:${s.block}`);
    else if (s.kind === "discontinue") seen.push(`stop:${s.block}:${s.failures}`);
    else if (s.kind === "pause") seen.push(`pause:${s.key}:${s.block}`);
    else if (s.kind === "block_pages") seen.push(`pages:${s.block}`);
    else seen.push(s.kind);
    step = plan.next(reply);
  }
  return seen;
}

test("practice repeats until solved; blocks, attempts, discontinue and copies as tol-run", () => {
  const steps = walk(["time_out", "solved", "move_limit", "time_out", "time_out", "time_out", "solved", "time_out"]);
  assert.deepEqual(steps, [
    "instructions", "msg:practice_start", "pr#1:time_out", "msg:try_again", "pr#2:solved",
    "block:a", "msg:test_start", "a1#1:move_limit", "a1#2:time_out", "a2#1:time_out", "a2#2:time_out", "stop:a:2",
    "block:b", "b1#1:solved", "copy:b1:2", "b2#1:time_out", "msg:end", "end",
  ]);
});

test("examiner pauses before the test and between blocks, and a block's own pages, as tol-run", () => {
  const paced = { ...proto, pauses: { before_test: true, between_blocks: true } };
  paced.blocks = [proto.blocks[0], { ...proto.blocks[1], pages: true }];
  const plan = sessionPlan(paced, { blocks: [0, 1], order });
  const kinds = [];
  let step = plan.next();
  while (!step.done) {
    const s = step.value;
    kinds.push(s.kind === "pause" ? `pause:${s.key}:${s.block}` : s.kind === "block_pages" ? `pages:${s.block}` : s.kind);
    step = plan.next(s.kind === "problem" ? { outcome: "solved", placed: [[0, 2], [0, 2]] } : undefined);
  }
  assert.deepEqual(kinds, [
    "instructions", "message", "problem", "block_start", "pause:pause_test:a", "problem", "problem", "problem",
    "block_start", "pause:pause_block:b", "pages:b", "problem", "copy", "problem", "copy", "message", "end",
  ]);
});

test("a resumed session skips finished problems and blocks and continues attempts", () => {
  const rows = [
    { row: "1", event: "session_start", time: "0.1", trial: "", block: "", problem_id: "" },
    { row: "2", event: "trial_onset", time: "1", trial: "1", block: "practice", problem_id: "pr" },
    { row: "3", event: "trial_end", time: "2", trial: "1", block: "practice", problem_id: "pr", reason: "solved" },
    { row: "4", event: "trial_onset", time: "3", trial: "2", block: "a", problem_id: "a1" },
    { row: "5", event: "trial_end", time: "4", trial: "2", block: "a", problem_id: "a1", reason: "time_out" },
    { row: "6", event: "trial_onset", time: "5", trial: "3", block: "a", problem_id: "a1" },
  ];
  const progress = progressOf(rows);
  assert.deepEqual(progress.interrupted, ["a", "a1"]);
  assert.equal(progress.last_trial, 3);
  assert.equal(progress.last_time, 5);
  const steps = walk(["solved", "solved", "solved", "solved", "solved"], { progress, recorded: { a: ["a1", "a2", "a3"] } });
  assert.deepEqual(steps, [
    "a1#2:solved", "a2#1:solved", "a3#1:solved", "block:b", "b1#1:solved", "copy:b1:2", "b2#1:solved", "copy:b2:2", "msg:end", "end",
  ]);
});

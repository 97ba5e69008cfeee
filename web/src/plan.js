// The session plan: which screen comes next, given the outcomes so far.
//
// A port of tol_tasks/session_data/plan.py, rules R1-R7 of PLAN_RULES_VERSION
// (its docstring states them), over the plan that tol-web build compiles with
// SessionPlan.describe(): R1 instructions unless a resumed session already
// showed a problem; R2 practice, its tries, try_again between attempts; R3 the
// form's blocks, a block begun before a resume keeping its order, a new one
// drawing its order (shuffled with the seed, or a drawn one) and, first in the
// form after practice, test_start; R4 each unfinished problem's attempts
// until solved; R5 the discontinue rule; R6 the end message; R7 a yoked copy
// after a solved attempt, or an unsolved last one when the block says so
// (own moves: none without a completed move).
//
// sessionPlan() is a generator over plain data: it yields steps and is sent
// each problem's result ({outcome, placed}); it touches no page, clock or
// storage, so the tests drive it with outcome sequences alone.

/** The version of the plan's rules this port carries out (PLAN_RULES_VERSION in Python). */
export const PLAN_RULES_VERSION = 2;

import { copySequence } from "./trial.js";

/**
 * How far a session got, from its event log rows (objects of column -> text),
 * as tol_tasks.session_data.resume.progress_of reads them.
 */
export function progressOf(rows) {
  const p = {
    outcomes: new Map(),
    discontinued: new Set(),
    interrupted: null,
    last_trial: 0,
    last_row: 0,
    last_time: 0,
    instructions_done: false,
  };
  let open = null;
  for (const r of rows) {
    if (r.time) p.last_time = Math.max(p.last_time, Number(r.time));
    p.last_row = Number(r.row);
    if (r.trial) p.last_trial = Math.max(p.last_trial, Number(r.trial));
    if (r.event === "trial_onset" || r.event === "planning_onset") {
      p.instructions_done = true;
      open = [r.block, r.problem_id];
    } else if (r.event === "trial_end" || r.event === "planning_end") {
      const key = `${r.block}/${r.problem_id}`;
      if (!p.outcomes.has(key)) p.outcomes.set(key, []);
      p.outcomes.get(key).push(r.reason);
      open = null;
    } else if (r.event === "discontinue") {
      p.discontinued.add(r.block);
    }
  }
  p.interrupted = open;
  return p;
}

function attemptsUsed(progress, block, id) {
  return progress ? (progress.outcomes.get(`${block}/${id}`) || []).length : 0;
}

function finished(progress, block, id, attempts) {
  if (!progress) return false;
  const done = progress.outcomes.get(`${block}/${id}`) || [];
  return done.includes("solved") || done.length >= attempts;
}

/**
 * The steps of a session.
 *
 * @param {object} plan  the compiled plan (protocol.json's "plan": SessionPlan.describe())
 * @param {object} opts
 *   blocks: indices of the blocks this session's form runs, in order;
 *   progress: progressOf() of a resumed session's rows, or null;
 *   recorded: {blockName: [problem ids in order]} of blocks a resumed session began;
 *   order(block): [indices, seed] of a block not begun yet (blockOrder()).
 * Yields {kind: "instructions"} | {kind: "message", key, seconds} |
 *   {kind: "block_start", block, order, seed} | {kind: "pause", key, block} |
 *   {kind: "block_pages", block} | {kind: "problem", problem, block,
 *   attempt, feedback} (send back {outcome, placed}) | {kind: "copy", problem, block,
 *   attempt, source, sequence} | {kind: "discontinue", block, failures} | {kind: "end"}.
 */
export function* sessionPlan(plan, { blocks, progress = null, recorded = {}, order }) {
  if (plan.rules_version !== PLAN_RULES_VERSION) {
    throw new Error(`this page carries out the plan's rules version ${PLAN_RULES_VERSION}, the protocol was compiled with version ${plan.rules_version}: build it again with this tol-tasks`);
  }
  if (!(progress && progress.instructions_done)) yield { kind: "instructions" };
  yield* practice(plan, progress);
  for (const index of blocks) {
    yield* block(plan, index, blocks, progress, recorded, order);
  }
  yield { kind: "message", key: "end", seconds: plan.messages.end };
  yield { kind: "end" };
}

function* practice(plan, progress) {
  const p = plan.practice;
  if (!p.problems.length) return;
  const tries = p.tries;
  if (progress && p.problems.every((s) => finished(progress, "practice", s.id, tries))) return;
  yield { kind: "message", key: "practice_start", seconds: plan.messages.practice_start };
  for (const spec of p.problems) {
    const used = attemptsUsed(progress, "practice", spec.id);
    if (finished(progress, "practice", spec.id, tries)) continue;
    for (let attempt = used + 1; attempt <= tries; attempt++) {
      const result = yield { kind: "problem", problem: spec, block: "practice", attempt, feedback: p.feedback };
      if (result.outcome === "solved") break;
      if (attempt < tries) {
        yield { kind: "message", key: "try_again", seconds: plan.messages.try_again };
      }
    }
  }
}

function* block(plan, index, blocks, progress, recorded, order) {
  const b = plan.blocks[index];
  const specs = b.problems;
  let indices;
  if (recorded[b.name]) {
    const ids = specs.map((s) => s.id);
    indices = recorded[b.name].map((id) => ids.indexOf(id));
    if (
      !progress ||
      progress.discontinued.has(b.name) ||
      indices.every((i) => finished(progress, b.name, specs[i].id, b.attempts))
    ) {
      return;
    }
  } else {
    const [drawn, seed] = order(b);
    indices = drawn;
    yield { kind: "block_start", block: b.name, index, order: indices.map((i) => specs[i].id), seed };
    const pauses = plan.pauses || {};
    if (index !== blocks[0]) {
      if (pauses.between_blocks) yield { kind: "pause", key: "pause_block", block: b.name };
    } else if (plan.practice.problems.length) {
      if (pauses.before_test) yield { kind: "pause", key: "pause_test", block: b.name };
      else yield { kind: "message", key: "test_start", seconds: plan.messages.test_start };
    }
    if (b.pages) yield { kind: "block_pages", block: b.name };
  }
  let failures = 0;
  let outcome = null;
  for (const i of indices) {
    const spec = specs[i];
    const used = attemptsUsed(progress, b.name, spec.id);
    if (finished(progress, b.name, spec.id, b.attempts)) continue;
    for (let attempt = used + 1; attempt <= b.attempts; attempt++) {
      const result = yield {
        kind: "problem", problem: spec, block: b.name, attempt, feedback: b.feedback,
      };
      outcome = result.outcome;
      const last = attempt === b.attempts;
      const copies = b.copies;
      const wanted = outcome === "solved" || (last && copies && copies.unsolved === "copy");
      if (copies && wanted) {
        const sequence = copySequence(copies.moves, result.placed, spec.optimal || []);
        if (sequence.length) {
          yield { kind: "copy", problem: spec, block: b.name, attempt, source: copies.moves, sequence };
        }
      }
      if (outcome === "solved") break;
    }
    failures = outcome === "solved" ? 0 : failures + 1;
    if (b.discontinue_after && failures >= b.discontinue_after) {
      yield { kind: "discontinue", block: b.name, failures };
      break;
    }
  }
}

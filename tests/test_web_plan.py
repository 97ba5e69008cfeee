"""The browser's session plan makes the decisions tol-run made, outcome for outcome.

The outcomes of a lab session (its event log: each attempt's outcome and
moves) are fed to the JavaScript plan (``web/src/plan.js``, run with node)
over the protocol compiled by ``tol-web build``; the plan must choose the steps
the lab engine took: the blocks and their orders, each problem attempt in
turn, the copies, the discontinue rule, and, for a resumed session, where it
continued. The lab sessions are the reference recordings of
``tests/data/golden`` and, in the slow test, a fresh ``tol-run`` session of a
protocol with every rule (practice repeated until solved, attempts, a
discontinue rule, a shuffled block with a drawn seed, copies of unsolved
problems, counterbalanced forms).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.test_web_js import node, node_each
from tol_tasks.protocol_format import load_protocol
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.web import compile_protocol

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/data/golden/sessions"
PROTOCOLS = {"copies": ROOT / "tests/data/copies/copies.yaml", "resumed": "london-shallice"}

DRIVE = """
const { proto, blocks, orders, outcomes, before } = input;
const rows = before ? lib.progressOf(before) : null;
const recorded = {};
for (const [name, [ids]] of Object.entries(orders)) if (input.begun.includes(name)) recorded[name] = ids;
const plan = lib.sessionPlan(proto.plan, {
  blocks, progress: rows, recorded,
  order: (b) => [orders[b.name][0].map((id) => b.problems.findIndex((p) => p.id === id)), orders[b.name][1]],
});
const steps = [];
let k = 0;
let step = plan.next();
while (!step.done) {
  const s = step.value;
  let reply;
  if (s.kind === "block_start") steps.push(["block", s.block, s.order.join(","), s.seed === null ? "None" : String(s.seed)]);
  else if (s.kind === "problem") {
    reply = outcomes[k++];
    steps.push(["problem", s.block, s.problem.id, s.attempt, reply.outcome]);
  } else if (s.kind === "copy") steps.push(["copy", s.problem.id, s.sequence.map(([a, b]) => "ABCDEFGH"[a] + ">" + "ABCDEFGH"[b]).join(",")]);
  else if (s.kind === "discontinue") steps.push(["discontinue", s.block]);
  step = plan.next(reply);
}
// Drawn seeds give the recorded orders with Python's shuffle.
const shuffles = Object.entries(orders).filter(([, [, seed]]) => seed !== null).map(([name, [ids, seed]]) => {
  const b = proto.plan.blocks.find((x) => x.name === name);
  const [order] = lib.blockOrder(b.problems.length, "shuffled", seed);
  return [name, order.map((i) => b.problems[i].id).join(","), ids.join(",")];
});
return { steps, shuffles };
"""


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def lab_steps(rows: list[dict]) -> tuple[list, list[dict], dict]:
    """The steps a lab log shows, each attempt's outcome and moves, and each block's order."""
    steps, outcomes, orders = [], [], {}
    attempt = None
    for r in rows:
        ev = r["event"]
        if ev == "block_start":
            d = parse_detail(r["detail"])
            seed = None if d["seed"] == "None" else int(d["seed"])
            orders[r["block"]] = [d["order"].split(","), seed]
            steps.append(["block", r["block"], d["order"], d["seed"]])
        elif ev == "trial_onset":
            attempt = {"outcome": "aborted", "placed": []}
            outcomes.append(attempt)
            steps.append(["problem", r["block"], r["problem_id"], int(r["attempt"]), None])
        elif ev == "place" and not r["copy_of"] and attempt is not None:
            attempt["placed"].append(
                ["ABCDEFGH".index(r["from_peg"]), "ABCDEFGH".index(r["to_peg"])]
            )
        elif ev == "trial_end":
            attempt["outcome"] = r["reason"]
            steps[-1][-1] = r["reason"]
        elif ev == "copy_onset":
            steps.append(["copy", r["problem_id"], parse_detail(r["detail"])["sequence"]])
        elif ev == "discontinue":
            steps.append(["discontinue", r["block"]])
    return steps, outcomes, orders


def check_plan(protocol, log: Path) -> None:
    rows = _rows(log)
    meta = json.loads(log.with_suffix(".json").read_text())
    lp = load_protocol(protocol)
    compiled = compile_protocol(lp)
    names = [b["name"] for b in compiled["plan"]["blocks"]]
    cb = meta.get("counterbalance")
    blocks = [names.index(b) for b in cb["blocks"]] if cb else list(range(len(names)))
    resume = next((i for i, r in enumerate(rows) if r["event"] == "resume"), None)
    before, after = (rows[:resume], rows[resume:]) if resume is not None else (None, rows)
    expected, outcomes, orders = lab_steps(after)
    begun = []
    if before is not None:
        _, _, earlier = lab_steps(before)
        begun = list(earlier)
        orders = {**earlier, **orders}
    got = node(DRIVE, {"proto": compiled, "blocks": blocks, "orders": orders,
                       "outcomes": outcomes, "before": before, "begun": begun})  # fmt: skip
    assert got["steps"] == expected
    for name, drawn, recorded in got["shuffles"]:
        assert drawn == recorded, name


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.csv")))
def test_the_plan_takes_the_steps_of_the_reference_lab_sessions(name):
    check_plan(PROTOCOLS.get(name, name), GOLDEN / f"{name}.csv")


EVERY_RULE = """
format: 1
name: every-rule
task: {type: hanoi, disks: 3}
display: {fullscreen: false, window_size: [800, 600]}
timing: {inter_trial_interval: 0.1, feedback_duration: 0.1}
practice:
  repeat_until_solved: true
  max_attempts: 3
  problems:
    - {id: pr1, start: AAA, goal: CCC, move_limit: 7}
    - {id: pr2, start: AAB, goal: CCC, move_limit: 7}
counterbalance:
  by: participant
  forms: {f1: [easy, hard, copied], f2: [copied, hard, easy]}
blocks:
  - name: easy
    order: shuffled
    attempts: 2
    problems:
      - {id: e1, start: AAA, goal: AAB, move_limit: 1}
      - {id: e2, start: AAA, goal: AAC, move_limit: 1}
      - {id: e3, start: AAA, goal: ACC, move_limit: 3}
      - {id: e4, start: AAA, goal: ABB, move_limit: 3}
      - {id: e5, start: AAB, goal: AAA, move_limit: 1}
  - name: hard
    discontinue_after: 1
    problems:
      - {id: h1, start: AAA, goal: CCC, move_limit: 7}
      - {id: h2, start: CCC, goal: AAA, move_limit: 7}
      - {id: h3, start: AAA, goal: BBB, move_limit: 7}
      - {id: h4, start: BBB, goal: CCC, move_limit: 7}
      - {id: h5, start: CCC, goal: BBB, move_limit: 7}
      - {id: h6, start: BBB, goal: AAA, move_limit: 7}
  - name: copied
    copies: {moves: own, unsolved: copy}
    problems:
      - {id: c1, start: AAA, goal: ACC, move_limit: 3}
      - {id: c2, start: AAA, goal: CCC, move_limit: 7}
"""


@pytest.mark.slow
@pytest.mark.parametrize("participant", ["R1", "R2"])
def test_the_plan_takes_the_steps_of_a_lab_session_with_every_rule(tmp_path, xdisplay, participant):
    from tests.runner_tools import tol_run

    proto = tmp_path / "every-rule.yaml"
    proto.write_text(EVERY_RULE)
    out = tmp_path / "data"
    done = tol_run(str(proto), "--simulate", "--seed", "5", "--speed", "20", "--windowed",
                   "--participant", participant, "--input-timing", "polled", "--output",
                   str(out), env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (log,) = out.glob("*.csv")
    steps, outcomes, _ = lab_steps(_rows(log))
    kinds = {s[0] for s in steps}
    assert {"block", "problem", "copy", "discontinue"} <= kinds  # (seed 5 fails a hard problem)
    assert {o["outcome"] for o in outcomes} >= {"solved", "move_limit"}
    check_plan(proto, log)


# ------------------------------------------------------- the Python plan, outcome for outcome
PY_DRIVE = """
const { plan, blocks, orders, results, rows } = input;
const progress = rows ? lib.progressOf(rows) : null;
const walk = lib.sessionPlan(plan, {
  blocks, progress, recorded: orders,
  order: (b) => lib.blockOrder(b.problems.length, b.order, b.order === "shuffled" ? (b.seed ?? input.drawn) : b.seed),
});
const steps = [];
let k = 0;
let step = walk.next();
while (!step.done) {
  const s = step.value;
  let reply;
  if (s.kind === "instructions" || s.kind === "end") steps.push([s.kind]);
  else if (s.kind === "message") steps.push(["message", s.key, s.seconds]);
  else if (s.kind === "block_start") steps.push(["block", s.block, s.order, s.seed]);
  else if (s.kind === "problem") {
    reply = results[k++];
    steps.push(["problem", s.block, s.problem.id, s.attempt, s.feedback, reply.outcome]);
  } else if (s.kind === "copy") steps.push(["copy", s.problem.id, s.sequence]);
  else if (s.kind === "discontinue") steps.push(["discontinue", s.block, s.failures]);
  else if (s.kind === "pause") steps.push(["pause", s.key, s.block]);
  else if (s.kind === "block_pages") steps.push(["block_pages", s.block]);
  step = walk.next(reply);
}
return steps;
"""

DRAWN = 424242  # the seed both sides draw for a shuffle the protocol gives none for


def python_walk(lp, form_blocks, results, progress=None, orders=None, stop_after=None):
    """Steps of the Python plan (issue 20's SessionPlan) for the given attempt results.

    Copies follow rule R7 (copy_follows), with the attempt's own moves or the
    solver's shortest solution, none for an own copy without a completed move.
    Stops after ``stop_after`` attempts (for a resumed session's first part).
    """
    from tol_tasks.session_data.plan import (
        Attempt,
        BlockPages,
        BlockStart,
        Discontinue,
        End,
        Instructions,
        Message,
        Pause,
        SessionPlan,
        copy_follows,
    )  # fmt: skip

    plan = SessionPlan(lp, None, form_blocks, progress, dict(orders or {}), lambda: DRAWN)
    walk = plan.walk()
    steps, done, k = [], [], 0
    step = walk.next()
    while not isinstance(step, End):
        outcome = None
        if isinstance(step, Instructions):
            steps.append(["instructions"])
        elif isinstance(step, Message):
            steps.append(["message", step.key, step.seconds])
        elif isinstance(step, BlockStart):
            steps.append(["block", step.block, list(step.order), step.seed])
        elif isinstance(step, Pause):
            steps.append(["pause", step.key, step.block])
        elif isinstance(step, BlockPages):
            steps.append(["block_pages", step.block])
        elif isinstance(step, Discontinue):
            steps.append(["discontinue", step.block, step.failures])
            done.append(("discontinue", step.block))
        elif isinstance(step, Attempt):
            if stop_after is not None and k == stop_after:
                return steps, done
            r = results[k]
            k += 1
            outcome = r["outcome"]
            steps.append(
                ["problem", step.block, step.problem.id, step.attempt, step.feedback, outcome]
            )
            done.append(("attempt", step.block, step.problem.id, outcome))
            if copy_follows(step, outcome):
                spec = step.problem
                seq = (r["placed"] if step.copies.moves == "own" else
                       [[m.source, m.target] for m in spec.puzzle.solve(spec.start, spec.goal)])  # fmt: skip
                if seq:
                    steps.append(["copy", spec.id, seq])
        step = walk.next(outcome)
    steps += [["end"]]
    return steps, done


def _results(rng, n):
    return [{"outcome": rng.choice(["solved", "solved", "time_out", "move_limit"]),
             "placed": rng.choice([[], [[0, 1]], [[0, 2], [2, 1]]])} for _ in range(n)]  # fmt: skip


PLAN_PROTOCOLS = ["demo", "london-shallice", "hanoi-generalized", "london-tol-dx"]


@pytest.mark.parametrize(
    "protocol", [*PLAN_PROTOCOLS, "copies", "every-rule", "discontinue-2", "paced"]
)
def test_the_javascript_plan_decides_as_the_python_plan(protocol, rng, tmp_path):
    """The same outcomes, new and resumed sessions: the same steps from both plans."""
    from tol_tasks.protocol_format import load_protocol_text
    from tol_tasks.session_data.resume import Progress

    if protocol == "every-rule":
        lp = load_protocol_text(EVERY_RULE)
    elif protocol == "discontinue-2":  # two failures in a row end the block, a success resets
        lp = load_protocol_text(EVERY_RULE.replace("discontinue_after: 1", "discontinue_after: 2"))
    elif protocol == "paced":  # examiner pauses before the test and between blocks, block pages
        lp = load_protocol_text(EVERY_RULE.replace(
            "blocks:\n", "pauses: {before_test: true, between_blocks: true}\nblocks:\n"
        ).replace("  - name: hard\n", "  - name: hard\n    pages: {en: [{text: Hard ones.}]}\n"))  # fmt: skip
    else:
        lp = load_protocol(PROTOCOLS.get(protocol, protocol))
    plan = compile_protocol(lp)["plan"]
    names = [b["name"] for b in plan["blocks"]]
    cases, expected = [], []
    for _ in range(12):
        participant, session = f"P{rng.randrange(1, 40)}", rng.randrange(1, 5)
        _, blocks = lp.form_for(participant, session)
        results = _results(rng, 200)
        cut = rng.choice([None, 0, 1, 3, 6])
        rows, orders, progress = None, {}, None
        if cut is not None:  # a session resumed after `cut` attempts ended
            first, done = python_walk(lp, blocks, results, stop_after=cut)
            orders = {s[1]: s[2] for s in first if s[0] == "block"}
            progress = Progress(instructions_done=bool(cut))
            rows, n = [], 0
            for d in done:
                if d[0] == "attempt":
                    progress.outcomes[(d[1], d[2])].append(d[3])
                    n += 1
                    base = {"block": d[1], "problem_id": d[2], "trial": str(n), "time": str(n)}
                    rows += [{**base, "event": "trial_onset", "row": str(2 * n - 1)},
                             {**base, "event": "trial_end", "row": str(2 * n), "reason": d[3]}]  # fmt: skip
                else:
                    progress.discontinued.add(d[1])
                    rows.append({"block": d[1], "event": "discontinue", "row": str(len(rows) + 1),
                                 "time": "", "trial": "", "problem_id": ""})  # fmt: skip
            results = results[cut:]
        steps, _ = python_walk(lp, blocks, results, progress, orders)
        cases.append({"plan": plan, "blocks": blocks, "orders": orders, "results": results,
                      "rows": rows, "drawn": DRAWN})  # fmt: skip
        expected.append(steps)
    got = node_each(PY_DRIVE, cases)
    assert got == expected
    assert names == [b.name for b in lp.model.blocks]

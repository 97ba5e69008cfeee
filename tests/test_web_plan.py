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

from tests.test_web_js import node
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
const plan = lib.sessionPlan(proto, {
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
  const b = proto.blocks.find((x) => x.name === name);
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
    names = [b["name"] for b in compiled["blocks"]]
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

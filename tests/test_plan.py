"""The session plan without a window: each rule (R1-R7 of tol_tasks.session_data.plan) and
resuming at every point of recorded sessions.

Expected sequences are written out by hand from the rules, or taken from the
sessions recorded before the plan existed (``tests/data/golden``): cut such a
log after any row, and the plan must run exactly the attempts the full log
ran after that row.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import load_protocol, load_protocol_text
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.plan import (
    Attempt,
    End,
    SessionPlan,
    choose_form,
    copy_follows,
)
from tol_tasks.session_data.resume import Progress, plan_resume, progress_of
from tol_tasks.session_data.sidecar import CounterbalanceRecord

GOLDEN = Path(__file__).parent / "data" / "golden" / "sessions"

HEAD = """\
format: 1
name: plan
task: {type: hanoi, disks: 3}
timing: {feedback_duration: 0.7, inter_trial_interval: 0}
"""


def _protocol(body: str):
    return load_protocol_text(HEAD + body, "plan.yaml")


def _steps(plan: SessionPlan, outcome=lambda block, pid, attempt: "solved") -> list[str]:
    """Walk the plan, each attempt's outcome from ``outcome``; the steps in short form."""
    out = []
    walk = plan.walk()
    step = walk.next()
    while not isinstance(step, End):
        given = None
        if isinstance(step, Attempt):
            given = outcome(step.block, step.problem.id, step.attempt)
            out.append(f"{step.block}/{step.problem.id}#{step.attempt}")
        elif step.kind == "message":
            out.append(f"{step.key} {step.seconds:g}s")
        elif step.kind == "block_start":
            out.append(f"start {step.block}: {','.join(step.order)} seed={step.seed}")
        elif step.kind == "discontinue":
            out.append(f"discontinue {step.block} after {step.failures}")
        else:
            out.append(step.kind)
        step = walk.next(given)
    assert walk.next() == End()  # and it stays ended
    return out


def _fails(*keys: str):
    """Outcomes: ``time_out`` for the attempts named ``block/pid#n`` (or ``block/pid``: all)."""

    def outcome(block, pid, attempt):
        hit = f"{block}/{pid}#{attempt}" in keys or f"{block}/{pid}" in keys
        return "time_out" if hit else "solved"

    return outcome


def _new(lp, participant="P1", session=1, **kw) -> SessionPlan:
    return SessionPlan.for_session(lp, participant, session, **kw)


# --------------------------------------------------------------------- R1, R2
PRACTICE = """\
practice:
  repeat_until_solved: true
  max_attempts: 3
  problems:
    - {id: a, start: AAA, goal: AAB}
    - {id: b, start: AAA, goal: AAC}
blocks:
  - problems:
      - {id: t1, start: AAA, goal: CCC}
"""


def test_practice_repeats_until_solved_with_a_message_between_attempts():
    steps = _steps(_new(_protocol(PRACTICE)), _fails("practice/a#1", "practice/a#2"))
    assert steps == [
        "instructions", "practice_start 1.5s",
        "practice/a#1", "try_again 0.7s", "practice/a#2", "try_again 0.7s", "practice/a#3",
        "practice/b#1",
        "start test: t1 seed=None", "test_start 1.5s", "test/t1#1",
        "end 2s",
    ]  # fmt: skip


def test_practice_stops_after_its_tries_and_gives_no_message_after_the_last():
    steps = _steps(_new(_protocol(PRACTICE)), _fails("practice/a"))
    assert steps[1:8] == ["practice_start 1.5s", "practice/a#1", "try_again 0.7s",
                          "practice/a#2", "try_again 0.7s", "practice/a#3", "practice/b#1"]  # fmt: skip


def test_practice_without_repeat_gives_one_try_whatever_max_attempts_says():
    lp = _protocol(PRACTICE.replace("repeat_until_solved: true", "repeat_until_solved: false"))
    steps = _steps(_new(lp), _fails("practice/a"))
    assert steps[1:4] == ["practice_start 1.5s", "practice/a#1", "practice/b#1"]
    assert all(a.attempt == 1 for a in _attempts(_new(lp), _fails("practice/a")))


def test_without_practice_there_is_no_practice_and_no_test_start():
    lp = _protocol("blocks:\n  - problems:\n      - {id: t1, start: AAA, goal: CCC}\n")
    assert _steps(_new(lp)) == ["instructions", "start test: t1 seed=None", "test/t1#1", "end 2s"]


def test_practice_always_has_feedback_and_test_problems_as_the_protocol_says():
    for feedback, expected in (("solved", True), ("moves", True), ("none", False)):
        lp = _protocol(PRACTICE + f"feedback: {feedback}\n")
        attempts = _attempts(_new(lp))
        assert [a.feedback for a in attempts if a.block == "practice"] == [True, True]
        assert [a.feedback for a in attempts if a.block == "test"] == [expected]


def _attempts(plan, outcome=lambda *a: "solved") -> list[Attempt]:
    out, walk = [], plan.walk()
    step = walk.next()
    while not isinstance(step, End):
        given = None
        if isinstance(step, Attempt):
            out.append(step)
            given = outcome(step.block, step.problem.id, step.attempt)
        step = walk.next(given)
    return out


# --------------------------------------------------------------------- R3, R4
BLOCKS = """\
blocks:
  - name: one
    attempts: 3
    problems: [{id: p1, start: AAA, goal: CCC}, {id: p2, start: AAA, goal: BBB}]
  - name: two
    problems: [{id: q1, start: AAA, goal: ACC}]
"""


def test_attempts_until_solved_then_the_next_problem_and_the_next_block():
    steps = _steps(_new(_protocol(BLOCKS)), _fails("one/p1#1", "one/p1#2", "one/p2"))
    assert steps == [
        "instructions", "start one: p1,p2 seed=None",
        "one/p1#1", "one/p1#2", "one/p1#3", "one/p2#1", "one/p2#2", "one/p2#3",
        "start two: q1 seed=None", "two/q1#1", "end 2s",
    ]  # fmt: skip
    last = [a.last for a in _attempts(_new(_protocol(BLOCKS)), _fails("one/p1"))]
    assert last == [False, False, True, False, True]  # p1: 3 tries; p2 solved at 1; q1


def test_a_shuffled_block_uses_python_s_shuffle_of_its_seed_and_records_it():
    more = ", ".join(f"{{id: p{k}, start: AAA, goal: BBB}}" for k in range(2, 8))
    lp = _protocol(BLOCKS.replace("    attempts: 3\n", "    order: shuffled\n    seed: 41\n")
                   .replace("{id: p2, start: AAA, goal: BBB}", more))  # fmt: skip
    ids = [f"p{k}" for k in range(1, 8)]
    expected = ids[:]
    random.Random(41).shuffle(expected)  # the documented algorithm, independently
    assert expected != ids
    steps = _steps(_new(lp))
    assert steps[1] == f"start one: {','.join(expected)} seed=41"
    assert steps[2:9] == [f"one/{p}#1" for p in expected]


def test_a_shuffle_without_a_seed_draws_one_and_records_it():
    lp = _protocol(BLOCKS.replace("    attempts: 3\n", "    order: shuffled\n"))
    expected = ["p1", "p2"]
    random.Random(977).shuffle(expected)
    steps = _steps(_new(lp, draw_seed=lambda: 977))
    assert steps[1] == f"start one: {','.join(expected)} seed=977"


# ------------------------------------------------------------------------ R5
DISCONTINUE = """\
blocks:
  - {name: d, attempts: 2, discontinue_after: 2, problems: [
      {id: p1, start: AAA, goal: CCC}, {id: p2, start: AAA, goal: BBB},
      {id: p3, start: AAA, goal: ACC}, {id: p4, start: AAA, goal: ABB}]}
  - {name: e, problems: [{id: q1, start: AAA, goal: CCC}]}
"""


def test_two_consecutive_failures_discontinue_the_block_only():
    steps = _steps(_new(_protocol(DISCONTINUE)), _fails("d/p1", "d/p2"))
    assert steps[1:] == ["start d: p1,p2,p3,p4 seed=None", "d/p1#1", "d/p1#2", "d/p2#1",
                         "d/p2#2", "discontinue d after 2", "start e: q1 seed=None", "e/q1#1",
                         "end 2s"]  # fmt: skip


def test_a_solved_problem_resets_the_count_and_a_second_attempt_can_save_a_problem():
    # p1 fails; p2 fails once then is solved (not a failure); p3 and p4 fail: discontinued
    # after p4, the last problem, all the same.
    steps = _steps(_new(_protocol(DISCONTINUE)), _fails("d/p1", "d/p2#1", "d/p3", "d/p4"))
    attempts = [s for s in steps if s.startswith("d/")]
    assert attempts == ["d/p1#1", "d/p1#2", "d/p2#1", "d/p2#2", "d/p3#1", "d/p3#2", "d/p4#1",
                        "d/p4#2"]  # fmt: skip
    assert "discontinue d after 2" in steps
    assert steps.index("discontinue d after 2") == steps.index("d/p4#2") + 1


def test_no_discontinue_without_consecutive_failures():
    steps = _steps(_new(_protocol(DISCONTINUE)), _fails("d/p1", "d/p3"))
    assert not any(s.startswith("discontinue") for s in steps)


# ------------------------------------------------------------------------ R7
def test_a_copy_follows_a_solved_attempt_and_an_unsolved_last_one_when_asked():
    lp = _protocol(BLOCKS.replace("    attempts: 3\n", "    attempts: 2\n    copies: true\n"))
    a1, a2 = (Attempt(lp.block_problems(0)[0], "one", k, True, lp.model.blocks[0].copies,
                      last=k == 2) for k in (1, 2))  # fmt: skip
    assert [copy_follows(a, "solved") for a in (a1, a2)] == [True, True]
    assert [copy_follows(a, "time_out") for a in (a1, a2)] == [False, False]  # unsolved: skip
    unsolved = lp.model.blocks[0].copies.model_copy(update={"unsolved": "copy"})
    b1, b2 = (Attempt(a.problem, a.block, a.attempt, True, unsolved, last=a.last) for a in (a1, a2))
    assert not copy_follows(b1, "move_limit")  # another attempt is still allowed
    assert copy_follows(b2, "move_limit")
    assert not copy_follows(Attempt(a1.problem, "two", 1, True, None), "solved")
    assert [a.copies is not None for a in _attempts(_new(lp))] == [True, True, False]


# --------------------------------------------------------------------- forms
FORMS = """\
counterbalance:
  by: {by}
  forms: {{A: [x, y], B: [y]}}
blocks:
  - {{name: x, problems: [{{id: x1, start: AAA, goal: CCC}}]}}
  - {{name: y, problems: [{{id: y1, start: AAA, goal: BBB}}]}}
"""


@pytest.mark.parametrize(
    ("by", "participant", "session", "form", "blocks"),
    [
        ("session", "P1", 1, "A", ["x", "y"]),
        ("session", "P1", 2, "B", ["y"]),
        ("session", "P9", 3, "A", ["x", "y"]),
        ("participant", "P007", 1, "A", ["x", "y"]),  # 7th participant: (7 - 1) % 2 = 0
        ("participant", "P008", 2, "B", ["y"]),
    ],
)
def test_a_counterbalanced_form_runs_its_blocks_in_its_order(by, participant, session, form,
                                                             blocks):  # fmt: skip
    plan = _new(_protocol(FORMS.format(by=by)), participant, session)
    assert plan.form == form
    starts = [s for s in _steps(plan) if s.startswith("start ")]
    assert [s.split()[1].rstrip(":") for s in starts] == blocks
    assert plan.counterbalance_record() == CounterbalanceRecord(by=by, form=form, blocks=blocks)


def test_latin_square_orders_without_forms():
    # Williams (1949) for three conditions: the rows 0-1-2, 1-2-0, 2-0-1 and their reverses.
    lp = _protocol(FORMS.format(by="session").replace("  forms: {A: [x, y], B: [y]}\n", "")
                   + "  - {name: z, problems: [{id: z1, start: AAA, goal: ACC}]}\n")  # fmt: skip
    expected = ["xyz", "yzx", "zxy", "zyx", "xzy", "yxz"]
    got = []
    for session in range(1, 7):
        plan = _new(lp, "P1", session)
        got.append("".join(s.split()[1][0] for s in _steps(plan) if s.startswith("start ")))
        assert plan.form == f"order-{session}"
    assert sorted(got) == sorted(expected)  # every order of the design, once
    assert got[0] == "xyz"


def test_a_resumed_session_keeps_its_recorded_form():
    lp = _protocol(FORMS.format(by="session"))
    recorded = CounterbalanceRecord(by="session", form="B", blocks=["y"])
    assert choose_form(lp, "P1", 1, recorded) == ("B", [1])  # session 1 would get A


# -------------------------------------------------------------------- resume
def _progress(outcomes=(), discontinued=(), started=True) -> Progress:
    p = Progress(instructions_done=started, discontinued=set(discontinued))
    for key, outs in outcomes:
        p.outcomes[tuple(key.split("/"))].extend(outs)
    return p


def _resumed(lp, progress, orders=None) -> SessionPlan:
    form, indices = choose_form(lp, "P1", 1)
    return SessionPlan(lp, form, indices, progress, dict(orders or {}))


def test_resumed_before_any_problem_shows_the_instructions_again():
    lp = _protocol(PRACTICE)
    assert _steps(_resumed(lp, _progress(started=False))) == _steps(_new(lp))


def test_resumed_in_the_practice_continues_with_the_next_attempt():
    lp = _protocol(PRACTICE)
    steps = _steps(_resumed(lp, _progress([("practice/a", ["time_out"])])))
    assert steps[:4] == ["practice_start 1.5s", "practice/a#2", "practice/b#1",
                         "start test: t1 seed=None"]  # fmt: skip


def test_resumed_after_the_practice_starts_the_block_with_its_message():
    lp = _protocol(PRACTICE)
    done = [("practice/a", ["time_out", "time_out", "time_out"]), ("practice/b", ["solved"])]
    assert _steps(_resumed(lp, _progress(done))) == [
        "start test: t1 seed=None", "test_start 1.5s", "test/t1#1", "end 2s"]  # fmt: skip


def test_resumed_in_a_block_keeps_its_recorded_order_and_skips_what_is_finished():
    lp = _protocol(BLOCKS)
    progress = _progress([("one/p2", ["solved"]), ("one/p1", ["time_out"])])
    steps = _steps(_resumed(lp, progress, {"one": ["p2", "p1"]}), _fails("one/p1#2"))
    # No block_start, p2 finished, p1 at its second attempt; then the next block starts.
    assert steps == ["one/p1#2", "one/p1#3", "start two: q1 seed=None", "two/q1#1", "end 2s"]


def test_a_finished_or_discontinued_block_is_skipped_on_resume():
    lp = _protocol(DISCONTINUE)
    orders = {"d": ["p1", "p2", "p3", "p4"]}
    steps = _steps(_resumed(lp, _progress(discontinued=["d"]), orders))
    assert steps == ["start e: q1 seed=None", "e/q1#1", "end 2s"]
    done = [(f"d/p{k}", ["solved"]) for k in range(1, 5)]
    assert _steps(_resumed(lp, _progress(done), orders)) == steps


def test_the_failure_count_starts_again_after_a_resume():
    lp = _protocol(DISCONTINUE)
    done = [("d/p1", ["time_out", "time_out"])]  # one failure before the interruption
    steps = _steps(_resumed(lp, _progress(done), {"d": ["p1", "p2", "p3", "p4"]}),
                   _fails("d/p2", "d/p4"))  # fmt: skip
    assert not any(s.startswith("discontinue") for s in steps)  # p1 is not counted again


def _cut(log: Path, rows: int, tmp: Path) -> Path:
    """The first ``rows`` rows of a recorded log and its sidecar, as a crash leaves them."""
    lines = log.read_text(encoding="utf-8").split("\n")
    cut = tmp / log.name
    cut.write_text("\n".join(lines[: rows + 1]) + "\n", encoding="utf-8")
    meta = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
    meta.update(status="incomplete", end_time=None, rows_written=rows)
    meta["protocol"]["path"] = None  # resume from the copy in the sidecar
    cut.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    return cut


@pytest.mark.parametrize("name", ["london-shallice", "hanoi-classic", "copies", "demo"])
def test_resuming_after_any_row_runs_what_the_recorded_session_ran_after_it(name, tmp_path):
    # The recorded session is the reference: cut after row k, the plan must run exactly the
    # attempts that had not ended by row k, in the recorded order, with the recorded
    # outcomes, and start the blocks and show the instructions that had not begun.
    log = GOLDEN / f"{name}.csv"
    rows = read_event_log(log).rows
    outcome = {(r["block"], r["problem_id"], int(r["attempt"])): r["reason"]
               for r in rows if r["event"] == "trial_end"}  # fmt: skip
    meta = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
    for k in range(1, len(rows)):
        cut = _cut(log, k, tmp_path)
        resume = plan_resume(cut)
        assert resume.progress.last_row == k
        started = {r["block"] for r in rows[:k] if r["event"] == "block_start"}
        resume.meta.blocks = [b for b in resume.meta.blocks if b.name in started]
        plan = SessionPlan.for_session(resume.protocol, meta["participant"], 1, resume=resume)
        steps = _steps(plan, lambda b, p, a: outcome[(b, p, a)])
        ended = {i for i, r in enumerate(rows[:k]) if r["event"] == "trial_end"}
        expected = [f"{r['block']}/{r['problem_id']}#{r['attempt']}"
                    for i, r in enumerate(rows) if r["event"] == "trial_onset"
                    and not any(j > i and rows[j]["trial"] == r["trial"] for j in ended)]  # fmt: skip
        assert [s for s in steps if "#" in s] == expected, f"cut after row {k}"
        later_starts = [r["block"] for r in rows[k:] if r["event"] == "block_start"]
        assert [s.split()[1].rstrip(":") for s in steps if s.startswith("start ")] == later_starts
        assert ("instructions" in steps) == (not any(r["event"] == "trial_onset" for r in rows[:k]))
        for s in steps:
            if s.startswith("start "):
                block = s.split()[1].rstrip(":")
                recorded = parse_detail(next(r["detail"] for r in rows if r["event"] ==
                                             "block_start" and r["block"] == block))  # fmt: skip
                assert s.endswith(f"{recorded['order']} seed={recorded['seed']}")


def test_the_resumed_golden_session_continued_as_the_plan_says(tmp_path):
    # tests/data/golden/sessions/resumed.csv: london-shallice cut after row 40 (+ a torn
    # line), then resumed by tol-run at ab09369. What it ran after its resume row is what
    # the plan of the cut log runs.
    rows = read_event_log(GOLDEN / "resumed.csv").rows
    at = next(i for i, r in enumerate(rows) if r["event"] == "resume")
    assert parse_detail(rows[at]["detail"])["after_row"] == "40"
    cut = _cut(GOLDEN / "resumed.csv", 40, tmp_path)
    resume = plan_resume(cut)
    outcome = {(r["block"], r["problem_id"], int(r["attempt"])): r["reason"]
               for r in rows[at:] if r["event"] == "trial_end"}  # fmt: skip
    plan = SessionPlan.for_session(resume.protocol, "G-cut", 1, resume=resume)
    ran = [f"{r['block']}/{r['problem_id']}#{r['attempt']}" for r in rows[at:]
           if r["event"] == "trial_onset"]  # fmt: skip
    assert [s for s in _steps(plan, lambda b, p, a: outcome[(b, p, a)]) if "#" in s] == ran
    assert progress_of(read_event_log(cut)).interrupted == ("test", rows[at - 1]["problem_id"])


# ---------------------------------------------------------------- the data
def test_the_description_is_json_and_names_everything_a_port_needs():
    lp = load_protocol("london-shallice")
    d = _new(lp).describe()
    assert json.loads(json.dumps(d)) == d
    assert d["protocol"] == {"name": "london-shallice", "sha256": lp.sha256}
    assert d["practice"]["tries"] == 3  # repeat_until_solved with the default max_attempts
    (block,) = d["blocks"]
    assert (block["name"], block["attempts"], block["order"]) == ("test", 3, "fixed")
    assert [p["min_moves"] for p in block["problems"]] == [2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
    assert block["problems"][0]["puzzle"] == "london:RGB:3-2-1"
    assert d["messages"] == {"practice_start": 1.5, "test_start": 1.5, "copy_start": 1.5,
                             "end": 2.0, "try_again": 1.5}  # fmt: skip
    forms = _new(_protocol(FORMS.format(by="session"))).describe()["counterbalance"]
    assert forms == {"by": "session", "forms": [{"name": "A", "blocks": ["x", "y"]},
                                                {"name": "B", "blocks": ["y"]}]}  # fmt: skip


def test_steps_as_data():
    plan = _new(_protocol(PRACTICE))
    walk = plan.walk()
    assert walk.next().as_dict() == {"kind": "instructions"}
    assert walk.next().as_dict() == {"kind": "message", "key": "practice_start", "seconds": 1.5}
    assert walk.next().as_dict() == {"kind": "attempt", "block": "practice", "problem_id": "a",
                                     "attempt": 1, "feedback": True, "copies": None,
                                     "last": False}  # fmt: skip
    assert [s.kind for s in plan.walk()][-2:] == ["attempt", "message"]


def test_block_names_must_differ():
    # Blocks are told apart by name in the log, the sidecar and a resume.
    # (At ab09369 a second block of the same name was silently skipped.)
    with pytest.raises(ProtocolError) as err:
        _protocol(BLOCKS.replace("name: two", "name: one"))
    (issue,) = err.value.issues
    assert (issue.line, issue.field) == (9, "blocks[1].name")
    assert "the block name 'one' is already used by block 1" in issue.message
    assert issue.fix.startswith("give every block its own name")


def test_the_plan_runs_the_problems_of_the_resolved_protocol_it_is_given():
    # The runner plays from LoadedProtocol.resolve(language), as the browser's compiled
    # protocol does: the plan's problems are the view's (by default, resolve()'s).
    import dataclasses

    lp = _protocol(PRACTICE)
    view = lp.resolve("fr")
    assert _new(lp).view.practice == view.practice == tuple(lp.practice_problems())
    assert _new(lp).view.blocks == view.blocks
    given = dataclasses.replace(view, practice=view.practice[1:])  # problem a left out
    assert _steps(_new(lp, view=given), _fails()) == [
        "instructions", "practice_start 1.5s", "practice/b#1",
        "start test: t1 seed=None", "test_start 1.5s", "test/t1#1", "end 2s",
    ]  # fmt: skip

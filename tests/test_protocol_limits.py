"""``tol-protocol check`` refuses what later commands cannot carry out, and reads within bounds.

Each bad input a lab met (an infinite time limit, a 64-disk Hanoi, a billion-laughs
YAML, nesting thousands deep, a protocol of tens of megabytes, a sidecar nested too deep)
is refused with a message that names the limit, never a traceback. Then a fuzzer:
protocols built from random values of every number a protocol holds, and random
``tol-run`` option values. A protocol ``check`` accepts must then be carried out by
what comes after it: ``tol-web build``, the session's checks and plan (what ``tol-run``
does before its window), and ``tol-score`` of a session of it (written by the runner's own
trial state machine). The commands run in-process: any exception escaping them is the
traceback a person would see.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_fuzz import _run
from tol_analysis.read.logs import read_session
from tol_analysis.score.scores import score_sessions
from tol_tasks.cli import _run_parser, protocol_main
from tol_tasks.config import MAX_PROTOCOL_BYTES, MAX_PROTOCOL_DEPTH, MAX_PROTOCOL_VALUES
from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format import load_protocol
from tol_tasks.runner.prepare import prepare
from tol_tasks.runner.settings import settings_from_cli
from tol_tasks.session_data.detail import format_detail
from tol_tasks.session_data.livelog import EventLog
from tol_tasks.session_data.plan import End, SessionPlan
from tol_tasks.session_data.sidecar import Sidecar, SidecarError
from tol_tasks.session_data.trial import TrialState
from tol_tasks.web.cli import main as web_main


def _check(tmp_path: Path, text: str, name: str = "p.yaml") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out = _run(protocol_main, ["check", str(path)])
    assert "Traceback" not in out
    return code, out


def _hanoi(n: int, extra: str = "") -> str:
    return (f"format: 1\nname: big\ntask: {{type: hanoi, disks: {n}}}\nblocks:\n  - problems:\n"
            f"      - {{id: p1, start: {'A' * n}, goal: {'C' * n}{extra}}}\n")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (_hanoi(3, ", time_limit: .inf"), "time_limit: inf is not allowed: input should be a finite"),
        (_hanoi(3, ", time_limit: 1.0e+300"), "less than or equal to 86400"),
        (_hanoi(3, ", move_limit: 100000000000000000000"), "less than or equal to 1000000"),
        (_hanoi(64), "2**64 - 1 = 18446744073709551615, more than the 9223372036854775807"),
        (_hanoi(3).replace("blocks:", "timing: {feedback_duration: .nan}\nblocks:"), "finite"),
        (_hanoi(3).replace("blocks:", "display: {window_size: [100000, 10]}\nblocks:"),
         "less than or equal to 16384"),
        # An item of a list gets its list's fix (the fuzzer found none was given).
        ("format: 1\nname: l\ntask: {type: london, capacities: [0, 2, 1]}\nblocks:\n"
         "  - problems:\n      - {id: p1, start: 'RG|B|', goal: '|RB|G'}\n",
         "task.capacities[0]: 0 is not allowed: input should be greater than or equal to 1. "
         "Suggested fix: give each peg's capacity left to right, e.g. [3, 2, 1]."),
        # Too many states to search: the problem's line and field, not a bare message (idem).
        (_hanoi(20).replace("disks: 20}", "disks: 20, pegs: 4}"),
         "p.yaml:6: blocks[0].problems[0].disks: Hanoi(disks=20, pegs=4) has 1,099,511,627,776 "
         "states, more than the 1,048,576 that exact search allows. Suggested fix: use fewer"),
    ],
)  # fmt: skip
def test_check_refuses_what_no_session_could_carry_out(tmp_path, text, named):
    code, out = _check(tmp_path, text)
    assert code == 1, out
    assert named in out


def test_the_largest_hanoi_the_scores_hold_is_accepted_and_scored(tmp_path):
    code, out = _check(tmp_path, _hanoi(63))
    assert code == 0, out
    _score_a_session(load_protocol(tmp_path / "p.yaml"), tmp_path)


def test_reading_is_bounded_and_the_message_names_the_limit(tmp_path):
    laughs = "format: 1\nname: lol\na: &a [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 10):
        laughs += f"l{i}: &l{i} [" + ", ".join([f"*{'a' if i == 1 else f'l{i - 1}'}"] * 9) + "]\n"
    cases = [
        (laughs, f"more than {MAX_PROTOCOL_VALUES:,} values once its aliases"),
        ("format: 1\nx: " + "[" * 5000 + "]" * 5000 + "\n", f"nested more than {MAX_PROTOCOL_DEPTH}"),
        ("".join("  " * i + f"k{i}:\n" for i in range(100)), f"nested more than {MAX_PROTOCOL_DEPTH}"),
        ("format: 1\n# " + "x" * MAX_PROTOCOL_BYTES + "\n", f"larger than the {MAX_PROTOCOL_BYTES:,}"),
    ]  # fmt: skip
    for k, (text, named) in enumerate(cases):
        code, out = _check(tmp_path, text, f"case{k}.yaml")
        assert code == 1, out
        assert named in out


def test_a_sidecar_too_deep_or_too_large_is_refused_with_a_message(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SidecarError, match="nested too deep"):
        Sidecar.read(deep)


# ------------------------------------------------------------------ the fuzzer
#: Anything a YAML number can be.
_ANY_NUMBER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**25), 10**25),
    st.sampled_from([0, -1, 1, 86_400, 86_401, 1e-9, 2**31, 2**63, float("inf"), float("nan")]),
)  # fmt: skip
#: The fields the fuzzer makes wild, one an example (or none: a protocol that must run).
_WILD = ("disks", "pegs", "capacities", "balls", "time_limit", "move_limit", "attempts", "seed",
         "inter_trial_interval", "feedback_duration", "window_size", None)  # fmt: skip


@st.composite
def _protocols(draw) -> dict:
    """A protocol with plausible values but (mostly) one field drawn from anything."""
    wild = draw(st.sampled_from(_WILD))

    def pick(name, plausible):
        return draw(_ANY_NUMBER if name == wild else plausible)

    if draw(st.booleans()):
        n = pick("disks", st.one_of(st.integers(1, 8), st.sampled_from([20, 63])))
        pegs = pick("pegs", st.sampled_from([3, 3, 3, 4]))
        adjacent = draw(st.booleans()) and (pegs != 3 or not isinstance(n, int) or n < 10)
        task = {"type": "hanoi", "disks": n, "pegs": pegs, "adjacent_only": adjacent}
        size = max(1, min(n, 70)) if isinstance(n, int) else 3
        start, goal = "A" * size, "C" * size
    else:
        caps = ([pick("capacities", st.integers(1, 3)), 2, 1] if wild == "capacities"
                else draw(st.sampled_from([[3, 2, 1], [3, 3, 3], [4, 2, 1]])))  # fmt: skip
        balls = draw(st.sampled_from(["R", "", "RGBYW", "rgb"])) if wild == "balls" else "RGB"
        task = {"type": "london", "balls": balls, "capacities": caps}
        start, goal = "GR|B|", "|RB|G"
    problem = {"id": "p1", "start": start, "goal": goal}
    limit = pick("time_limit", st.one_of(st.none(), st.floats(min_value=0.5, max_value=600)))
    moves = pick("move_limit", st.one_of(st.none(), st.integers(2**9, 5000)))
    problem |= {k: v for k, v in (("time_limit", limit), ("move_limit", moves)) if v is not None}
    block = {"name": "test", "problems": [problem],
             "attempts": pick("attempts", st.integers(1, 4)),
             "seed": pick("seed", st.one_of(st.none(), st.integers(0, 2**31 - 1))),
             "order": draw(st.sampled_from(["fixed", "shuffled"]))}  # fmt: skip
    timing = {"inter_trial_interval": pick("inter_trial_interval", st.floats(0, 5)),
              "feedback_duration": pick("feedback_duration", st.floats(0, 5))}  # fmt: skip
    size = [pick("window_size", st.integers(200, 2000)), draw(st.integers(200, 2000))]
    return {"format": 1, "name": "fuzz", "task": task, "timing": timing,
            "display": {"fullscreen": False, "window_size": size},
            "instructions": "none", "blocks": [block]}  # fmt: skip


def _dump(data: dict) -> str:
    # PyYAML writes inf and nan as .inf and .nan; a protocol file could hold them so.
    return yaml.safe_dump(data, sort_keys=False)


def _score_a_session(lp, folder: Path) -> None:
    """A session of ``lp``'s first problem, its rows written by the runner's own state
    machine (one legal move, then the time runs out), scored by tol-score's code."""
    spec = next(iter(lp.all_problems()))
    log = folder / "P1_fuzz_session.csv"
    if log.exists():
        log.unlink()
    with EventLog(log) as out:

        def row(event: str, t: float, **values) -> None:
            out.write(participant="P1", session=1, event=event, time=t, **values)

        row("session_start", 0.0, detail=format_detail(protocol=lp.name, sha256=lp.sha256))
        row("block_start", 0.01, block=spec.block, detail=format_detail(order=spec.id, seed=None))
        base = {"block": spec.block, "trial": 1, "attempt": 1, "problem_id": spec.id}
        row("trial_onset", 0.1, trial_time=0.0, state=str(spec.start), goal=str(spec.goal),
            puzzle=spec.puzzle.code, moves=0, stamp="flip", **base)  # fmt: skip
        trial, t = TrialState(spec, lp.model.rules), 0.5
        move = spec.puzzle.legal_moves(spec.start)[0]
        for r in trial.pick(move.source) + trial.drop(move.target):
            row(r.pop("event"), t, trial_time=t - 0.1, stamp="arrival", **base, **r)
            t += 0.2
        row("trial_end", t, trial_time=t - 0.1, reason="time_out", state=str(trial.state),
            moves=trial.moves, **base)  # fmt: skip
        row("session_end", t + 0.1, reason="completed")
    scores = score_sessions([read_session(log)])
    assert len(scores.trials) == 1


def _carry_out(path: Path, tmp: Path) -> None:
    """What comes after an accepted protocol: every later command must carry it out."""
    lp = load_protocol(path)
    code, out = _run(
        web_main, ["build", str(path), "--output", str(tmp / "web"), "--force", "--download"]
    )
    assert code == 0, out  # tol-web build (the browser's data: its times, seeds, sizes)
    args = _run_parser().parse_args([str(path), "--participant", "P1", "--output", str(tmp / "d")])
    prepared = prepare(settings_from_cli(args), lp)  # what tol-run checks before its window
    prepared.release()
    walk = SessionPlan.for_session(lp, "P1", 1).walk()  # the session's plan, step by step
    step, steps = walk.next(), 0
    while not isinstance(step, End) and steps < 50:
        step, steps = walk.next(None), steps + 1
    _score_a_session(lp, tmp)


def _fuzz_protocol(tmp_path: Path, data: dict) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(_dump(data), encoding="utf-8")
    code, out = _run(protocol_main, ["check", str(path)])
    assert code in (0, 1, 2), out
    assert "Traceback" not in out
    if code == 0:
        _carry_out(path, tmp_path)
    else:
        # Every refusal names the file (its line) and the fix.
        assert str(path) in out, out
        assert "Suggested fix" in out, out


@settings(max_examples=60)
@given(data=_protocols())
def test_fuzzed_protocol_values_are_refused_or_carried_out(tmp_path_factory, data):
    from tests.system_tools import web_bundle

    web_bundle()
    _fuzz_protocol(tmp_path_factory.mktemp("fuzz"), data)


@pytest.mark.slow
@settings(max_examples=600)
@given(data=_protocols())
def test_fuzzed_protocol_values_are_refused_or_carried_out_thoroughly(tmp_path_factory, data):
    from tests.system_tools import web_bundle

    web_bundle()
    _fuzz_protocol(tmp_path_factory.mktemp("fuzz"), data)


_OPTION_VALUES = st.one_of(st.text(max_size=30), st.sampled_from(
    ["0", "-1", "1e3", "99999999999999999999", "2147483648", "inf", "nan", "1e308", "1.5", "P001\n",
     "P 1", "Jé", "", " 2", "auto", "polled", "fr", "xx", "--simulate"]))  # fmt: skip
_OPTIONS = ["--participant", "--session", "--language", "--input-timing", "--seed", "--speed",
            "--field", "--output", "--rescue"]  # fmt: skip


@settings(max_examples=300)
@given(pairs=st.lists(st.tuples(st.sampled_from(_OPTIONS), _OPTION_VALUES), max_size=4),
       simulate=st.booleans())  # fmt: skip
def test_fuzzed_run_options_give_a_message_never_a_traceback(tmp_path_factory, pairs, simulate):
    tmp = tmp_path_factory.mktemp("opts")
    argv = ["demo", *(["--simulate"] if simulate else [])]
    for flag, value in pairs:
        if flag in ("--output", "--rescue") and value.strip():
            value = str(tmp / value.replace("/", "_").replace("\x00", "_"))[:200]
        argv += [flag, value]
    settings, refused = _attempt(lambda: settings_from_cli(_run_parser().parse_args(argv)))
    if refused is not None:  # argparse's usage message (exit 2), or the setting's own error
        assert refused == 2 or (
            isinstance(refused, TolTasksError) and (refused.fix or refused.field)
        )
        return
    if settings.participant is None:
        return  # tol-run would ask in its dialog
    prepared, refused = _attempt(lambda: prepare(settings, "demo"))
    if refused is not None:  # a setting's own error (its field or its fix), or the file's
        assert isinstance(refused, (TolTasksError, OSError)), refused
        if isinstance(refused, TolTasksError):
            assert refused.fix or refused.field, refused
        else:
            assert refused.filename, refused
        return
    prepared.release()
    assert math.isfinite(settings.speed)
    json.dumps({"speed": settings.speed, "seed": settings.seed}, allow_nan=False)


def _attempt(call):
    """``call()``'s value and None, or None and what refused it (an exit status or an error)."""
    try:
        return call(), None
    except SystemExit as exc:
        return None, exc.code
    except (TolTasksError, OSError) as exc:
        return None, exc

"""Today's runner writes the event sequences recorded before the rebuild (runner part).

``tests/data/golden/sessions`` holds seeded simulated sessions recorded at
commit ab09369 by ``tests/data/golden/make_golden.py``: every bundled
protocol, a protocol with yoked copy trials, and a session cut off as
``kill -9`` leaves it and then resumed. Each test here runs the same session
the same way, with the same script's own functions (into ``tmp_path``), and
compares the logs row by row: every column but the timestamps (``time``,
``trial_time``) and the pointer positions (``x``, ``y``), and every ``detail``
pair but the frame statistics of ``trial_end`` and ``copy_end`` rows (the only
values that depend on the machine). Block orders, seeds, feedback texts, copy
sequences and resume details must be equal.

The same run also checks what every session must satisfy on its own: rows
numbered without a gap, every placement one legal move of an independent
breadth-first graph, every attempt ended with its frame statistics, and a
sidecar that describes the session.

The golden files are never re-made: they are the proof that behaviour did not change.
Three changes since the recording are deliberate (issue 22) and are checked, then set
aside, by :func:`_set_aside_deliberate`, and nothing else may differ:

- the instruction pages: every bundled protocol now carries its pages and a protocol
  without any (``copies``) shows the task's default pages, three in English, so that each
  session begins with ``page_shown``/``page_left`` for ``page-1`` to ``page-3`` (the demo's
  one page of the recording became three); and the ``session_start`` row's ``sha256`` is
  that of today's protocol file, which holds those pages;
- a resumed session begins with the "ready to continue" screen: ``page_shown`` and
  ``page_left`` with ``problem_id`` ``resume-ready`` right after the ``resume`` row;
- rows are numbered as they are written, so every row number after those rows (and the
  ``after_row`` of the ``resume`` row) is shifted by them. The resumed session is cut at
  the same event as the recording was (``CUT_AFTER_ROWS`` rows of the recording, plus the
  page rows before them).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.reference import replay
from tests.runner_tools import make_golden
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import columns, read_event_log
from tol_tasks.session_data.sidecar import SIDECAR_VERSION, Sidecar, read_sidecar

GOLDEN = Path(__file__).parent / "data" / "golden"
SCHEMA = (
    Path(__file__).parents[1]
    / f"tol_tasks/session_data/codebook/sidecar-v{SIDECAR_VERSION}.schema.json"
)

#: Columns whose values depend on the clock or the window's place, not on behaviour.
UNSTABLE_COLUMNS = ("time", "trial_time", "x", "y")
#: ``detail`` keys of trial_end and copy_end rows that measure the machine (frame statistics).
FRAME_KEYS = frozenset(
    {
        "frames", "dropped_frames", "frame_period_ms", "period_source",
        "frame_interval_mean_ms", "frame_interval_max_ms",
        "frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms",
    }
)  # fmt: skip


#: The recording script itself, so that the sessions are run exactly as it ran them.
MAKE = make_golden()

#: The longest sessions; the everyday loop runs the others (tests/test_plan.py resumes
#: london-shallice after every row of its recording without a window).
_SLOW = {"hanoi-generalized", "resumed", "london-shallice", "hanoi-adjacent"}
#: The sessions also played on the oldest supported PsychoPy: the same events, move for move.
_COMPAT = {"demo", "copies"}


def _marks(name: str) -> list:
    """``name``'s marks: slow, psychopy_compat."""
    marks = [m for names, m in ((_SLOW, pytest.mark.slow), (_COMPAT, pytest.mark.psychopy_compat))
             if name in names]  # fmt: skip
    return marks


def _comparable(path: Path) -> list[dict]:
    rows = read_event_log(path).rows
    keep = [c for c in columns() if c not in UNSTABLE_COLUMNS]
    out = []
    for r in rows:
        row = {c: r[c] for c in keep}
        detail = parse_detail(r["detail"])
        if r["event"] in ("trial_end", "copy_end"):
            detail = {k: v for k, v in detail.items() if k not in FRAME_KEYS}
        row["detail"] = detail
        out.append(row)
    return out


def _check_on_its_own(rows: list[dict], meta: dict) -> None:
    """What every simulated session satisfies, whatever it was compared with."""
    assert [int(r["row"]) for r in rows] == list(range(1, len(rows) + 1))
    assert rows[-1]["event"] == "session_end"
    assert rows[-1]["reason"] == "completed"
    assert replay(rows) >= 3
    onsets = sum(r["event"] in ("trial_onset", "copy_onset") for r in rows)
    ends = [r for r in rows if r["event"] in ("trial_end", "copy_end")]
    cut_off = sum(
        r["event"] == "resume" and parse_detail(r["detail"])["interrupted"] != "/" for r in rows
    )
    assert len(ends) == onsets - cut_off
    assert all("dropped_frames=" in r["detail"] for r in ends)
    assert meta["status"] == "completed"
    assert meta["protocol"]["name"] == parse_detail(rows[0]["detail"])["protocol"]
    assert meta["rows_written"] == len(rows)
    assert meta["timing"]["input_method"] == "polled"
    assert len(meta["layout"]["pegs"]) >= 3
    # Today's sidecar: the current version, valid for the shipped schema and the model.
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(meta)
    assert meta["sidecar_version"] == SIDECAR_VERSION
    assert Sidecar.from_dict(meta).recorder.name == "tol-run"


#: Instruction pages a session shows today (every bundled protocol's own; copies: defaults).
PAGES_TODAY = 3
#: The instruction pages of each recording (only the demo had one).
PAGES_RECORDED = {"demo": 1}


def _set_aside_deliberate(rows: list[dict], name: str, pages: int, today: bool) -> list[dict]:
    """Check the deliberate changes in ``rows`` (see the module's description), then take
    them out: the page rows, the shift of row numbers, the protocol's hash. ``pages``: the
    instruction pages the session showed; ``today``: made by today's runner (a resume
    shows the ready screen), not the recording."""
    page_rows = [r for r in rows if r["event"] in ("page_shown", "page_left")]
    instructions = [r for r in page_rows if r["problem_id"].startswith("page-")]
    assert [(r["event"], r["problem_id"]) for r in instructions] == [
        (e, f"page-{k}") for k in range(1, pages + 1) for e in ("page_shown", "page_left")
    ], name
    assert rows[1 : 1 + 2 * pages] == instructions  # right after session_start
    ready = [r for r in page_rows if r["problem_id"] == "resume-ready"]
    resumes = [i for i, r in enumerate(rows) if r["event"] == "resume"]
    assert len(ready) == (2 * len(resumes) if today else 0), name
    for i in resumes if today else ():
        assert [(r["event"], r["problem_id"]) for r in rows[i + 1 : i + 3]] == [
            ("page_shown", "resume-ready"), ("page_left", "resume-ready")]  # fmt: skip
    kept = [r for r in rows if r not in page_rows]
    renumber = {r["row"]: str(k) for k, r in enumerate(kept, start=1)}
    out = []
    for r in kept:
        r = {**r, "row": renumber[r["row"]], "detail": dict(r["detail"])}
        if r["event"] == "resume":
            r["detail"]["after_row"] = str(
                sum(1 for k in kept if int(k["row"]) <= int(r["detail"]["after_row"]))
            )
        if r["event"] == "session_start":
            r["detail"].pop("sha256")  # checked against today's file by the caller
        out.append(r)
    return out


def _resumed(tmp_path: Path) -> tuple[Path, Path]:
    """make_golden.py's resumed session, cut at the same event as the recording was."""
    log, side = MAKE.run("cut", "london-shallice", tmp_path)
    cut = MAKE.CUT_AFTER_ROWS + 2 * PAGES_TODAY  # the page rows come before the cut now
    lines = log.read_bytes().split(b"\n")
    log.write_bytes(b"\n".join(lines[: cut + 1]) + b"\n" + lines[cut + 1][:9])
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta.update(status="incomplete", end_time=None, rows_written=cut)
    side.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    MAKE.tol_run("--resume", str(log), "--simulate", "--seed", MAKE.SEED, "--speed", MAKE.SPEED,
                 "--windowed", "--input-timing", "polled")  # fmt: skip
    return log, side


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=_marks(n)) for n in [*MAKE.PROTOCOLS, "resumed"]],
)
def test_a_seeded_session_writes_the_recorded_event_sequence(
    name, seeded_sessions, xdisplay, tmp_path, monkeypatch
):
    if name == "resumed":
        monkeypatch.setenv("DISPLAY", xdisplay["DISPLAY"])
        log, side = _resumed(tmp_path)
    else:  # played once, read here and by tests/test_round_trip.py
        log, side = seeded_sessions(name)
    got = _set_aside_deliberate(_comparable(log), name, PAGES_TODAY, today=True)
    want = _comparable(GOLDEN / "sessions" / f"{name}.csv")
    want = _set_aside_deliberate(want, name, PAGES_RECORDED.get(name, 0), today=False)
    protocol = MAKE.PROTOCOLS["london-shallice" if name == "resumed" else name]
    assert parse_detail(read_event_log(log).rows[0]["detail"])["sha256"] == (
        load_protocol(protocol).sha256)  # fmt: skip
    for k, (g, w) in enumerate(zip(got, want, strict=False), start=2):
        assert g == w, f"{name}: row {k} differs from the recording"
    assert len(got) == len(want), f"{name}: {len(got)} rows, the recording has {len(want)}"
    _check_on_its_own(read_event_log(log).rows, read_sidecar(side))


def test_the_comparison_sees_a_changed_move_and_a_changed_order(tmp_path):
    # The comparison itself can fail: a different placement or block order is seen,
    # a different frame count is not.
    want = _comparable(GOLDEN / "sessions" / "demo.csv")
    text = (GOLDEN / "sessions" / "demo.csv").read_text(encoding="utf-8")
    first_place = next(line for line in text.splitlines() if ",place," in line)
    for old, new in [
        (first_place, first_place.replace(",place,", ",illegal,")),
        ("order=demo-1,demo-2,demo-3", "order=demo-2,demo-1,demo-3"),
        ("frames=", "frames=9"),
    ]:
        changed = tmp_path / "changed.csv"
        changed.write_text(text.replace(old, new, 1), encoding="utf-8")
        same = _comparable(changed) == want
        assert same == (old == "frames="), old

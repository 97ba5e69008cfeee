"""The texts tol-import writes, made the fast way, are the texts made cell by cell and by
the sidecar model: an event log's (session_data.whole) and a sidecar's (importers.sidecars),
whatever the values."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import replace
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES
from tol_tasks.importers import ImportOptions, Source, sidecars
from tol_tasks.importers.jspsych import FORMAT as JSPSYCH
from tol_tasks.importers.pebl import TOL_FORMAT as PEBL_TOL
from tol_tasks.importers.sidecars import SidecarTexts, sidecar
from tol_tasks.importers.source import read_source
from tol_tasks.session_data.eventlog import cell, columns
from tol_tasks.session_data.sidecar import sidecar_text
from tol_tasks.session_data.whole import event_log_text


def _by_cells(rows: list[dict]) -> str:
    """An event log's text from eventlog.cell, cell by cell (the reference)."""
    cols = columns()
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(cols)
    for n, r in enumerate(rows, start=1):
        out.writerow([cell(r.get(c)) if c != "row" else str(n) for c in cols])
    return buf.getvalue()


class _Shown:
    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class _Label(str):
    pass


ROWS = [
    {"participant": "P1", "session": 1, "time": 0.0, "event": "session_start", "stamp": "clock"},
    {"participant": "P1", "session": 1, "time": 1.25, "trial_time": -0.0, "event": "place",
     "moves": 3, "piece": "R", "from_peg": "A", "to_peg": "C", "x": 0.5, "y": None},
    {"participant": "P,1", "session": 1, "time": 2.0, "event": "trial_end", "reason": 'say "x"',
     "detail": "a=1;b=2", "input": True, "x": False},
    {"event": "place", "piece": _Shown("G"), "time": math.nan, "moves": 10**20},
    {"event": "place", "block": _Label("test"), "detail": _Shown("two\nlines")},
    {"event": "trial_end", "reason": "line\r\nbreak", "detail": "one\rtwo", "copy_of": 2},
    {"event": "note", "unknown_but_empty": None},
]  # fmt: skip


@pytest.mark.parametrize("upto", range(1, len(ROWS) + 1))
def test_a_log_text_is_the_cells_text_whatever_the_values(upto):
    rows = ROWS[:upto]
    assert event_log_text(rows) == (_by_cells(rows), upto)
    assert event_log_text(iter(rows)) == (_by_cells(rows), upto)  # any iterable


def test_a_row_with_a_column_the_log_has_not_is_refused():
    with pytest.raises(ValueError, match="not event log columns: colour"):
        event_log_text([ROWS[0], {"event": "place", "colour": "red"}])


def _sessions() -> list:
    """Built sessions of two formats (their rows as the importers make them)."""
    out = []
    for fmt, path, options in (
        (JSPSYCH, FIXTURES / "jspsych" / "J02.json", ImportOptions()),
        (PEBL_TOL, FIXTURES / "pebl" / "tol-101.csv", ImportOptions(capacities=(3, 2, 1))),
    ):
        source = read_source(path)
        out += [build() for _label, build in fmt.read(source, options)]
    return out


def _same(texts: SidecarTexts, s, log: str = "log.csv", rows: int = 7) -> None:
    assert texts.text(s, log, rows) == sidecar_text(sidecar(s, log, rows, "WHEN").to_dict())


@pytest.fixture
def fixed_time(monkeypatch):
    monkeypatch.setattr(sidecars, "imported_at", lambda: "WHEN")


def test_sidecar_texts_are_the_models_for_every_session(fixed_time):
    texts = SidecarTexts()
    sessions = _sessions()
    assert len({s.format for s in sessions}) == 2
    for s in sessions * 3:  # the pieces kept from earlier sessions, used again
        _same(texts, s, f"{s.participant}.csv", len(s.rows))


def _odd(s, **meta):
    return replace(s, meta={**s.meta, **meta})


@pytest.mark.parametrize(
    "change",
    [
        {"note": (1, 2)},  # a tuple: a list for both
        {"note": math.nan},  # NaN: the model writes null
        {"note": {1: "one"}},  # a key that is not a text
        {"note": {"when": Path("/x")}},
        {"note": 1},
        {"note": 1.0},  # the same number, another type: another text
        {"note": True},
        {"note": [1, 1.0, True, None, "é"]},
        {"unavailable": []},
        {"times": {"clock": "another clock", "resolution_s": 1}},
        {"format_title": None},
    ],
    ids=str,
)
def test_sidecar_texts_are_the_models_for_odd_values(fixed_time, change):
    texts = SidecarTexts()
    first, *others = _sessions()
    _same(texts, first)
    _same(texts, _odd(first, **change))
    _same(texts, others[0])


def test_a_shared_value_changed_between_sessions_is_written_as_it_is_now(fixed_time):
    texts = SidecarTexts()
    first, second = _sessions()[:2]
    shared = {"a": [1, 2], "b": "x"}
    for s in (first, second):
        _same(texts, _odd(s, shared=shared))
    shared["a"].append(3)  # the same object, changed: not the text kept for it
    _same(texts, _odd(first, shared=shared))
    shared["a"][2] = 3.0
    _same(texts, _odd(second, shared=shared))


def test_top_level_values_the_model_converts_get_the_models_text(fixed_time):
    texts = SidecarTexts()
    s = _sessions()[0]
    _same(texts, s)
    _same(texts, replace(s, session=True))  # a bool the model reads as 1
    _same(texts, replace(s, start_time="2026-01-01T10:00:00"))
    _same(texts, replace(s, participant='é\u2028"q"'))
    with pytest.raises(ValueError, match="participant"):
        texts.text(replace(s, participant=5), "log.csv", 7)  # the model's own error
    assert isinstance(s.source, Source)

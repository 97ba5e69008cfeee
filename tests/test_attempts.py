"""The attempt walker and the detail codec: the event log's shared readers."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tol_tasks.session_data.attempts import COPY, PROBLEM, log_attempts, walk_attempts
from tol_tasks.session_data.detail import format_detail, parse_detail
from tol_tasks.session_data.eventlog import EventLogError, read_event_log

GOLDEN = Path(__file__).parent / "data" / "golden"


def _walk(rows: list[dict]):
    cols = {k: [r.get(k, "") for r in rows] for k in
            ("event", "trial", "attempt", "problem_id", "block", "copy_of", "reason")}  # fmt: skip
    return walk_attempts(**cols, path="x.csv")


def _row(event, trial="", pid="", attempt="1", copy_of="", reason="", block="b"):
    return {"event": event, "trial": trial, "problem_id": pid, "attempt": attempt if trial else "",
            "copy_of": copy_of, "reason": reason, "block": block if trial else ""}  # fmt: skip


@pytest.mark.parametrize("name", sorted(p.stem for p in (GOLDEN / "sessions").glob("*.csv")))
def test_attempts_of_reference_logs_match_the_scored_trials(name):
    """Every problem attempt is a row of trials.csv (scored before the walker existed), with
    its trial number, problem and completeness; every copy is that row's copy_trial."""
    data = read_event_log(GOLDEN / "sessions" / f"{name}.csv")
    attempts = log_attempts(data)
    participant = data.records[0][1]
    with open(GOLDEN / "scored" / "default" / "trials.csv", encoding="utf-8") as f:
        scored = [r for r in csv.DictReader(f) if r["participant"] == participant]
    problems = [a for a in attempts if a.kind == PROBLEM]
    assert [(str(a.trial), a.problem_id, a.block, str(a.complete).lower()) for a in problems] == [
        (r["trial"], r["problem_id"], r["block"], r["complete"]) for r in scored
    ]
    copies = [a for a in attempts if a.kind == COPY]
    assert [(a.trial, a.copy_of) for a in copies] == [
        (int(r["copy_trial"]), int(r["trial"])) for r in scored if r["copy_trial"]
    ]
    for a in attempts:
        rows = data.records[a.onset : a.stop]
        assert rows[0][7] == ("trial_onset" if a.kind == PROBLEM else "copy_onset")
        if a.complete:
            assert rows[-1][7] == ("trial_end" if a.kind == PROBLEM else "copy_end")


def test_a_cut_off_attempt_ends_where_the_next_begins():
    rows = [_row("session_start"), _row("trial_onset", "1", "p1"), _row("pick_up", "1", "p1"),
            _row("resume"), _row("trial_onset", "2", "p1"), _row("trial_end", "2", "p1",
            reason="solved"), _row("feedback", "2", "p1")]  # fmt: skip
    first, second = _walk(rows)
    assert (first.onset, first.stop, first.end, first.outcome) == (1, 4, None, None)
    assert (second.onset, second.stop, second.end, second.outcome) == (4, 6, 5, "solved")
    assert not first.complete
    assert second.complete


def test_a_copy_row_closes_an_open_problem_attempt():
    rows = [_row("trial_onset", "1", "p1"), _row("copy_onset", "2", "p1", copy_of="1"),
            _row("copy_end", "2", "p1", copy_of="1", reason="copied")]  # fmt: skip
    problem, copy = _walk(rows)
    assert (problem.kind, problem.stop, problem.end) == (PROBLEM, 1, None)
    assert (copy.kind, copy.copy_of, copy.outcome) == (COPY, 1, "copied")


def test_interleaved_attempts_are_an_error_naming_the_rows():
    rows = [_row("trial_onset", "1", "p1"), _row("place", "2", "p2")]
    # Rows are named by the log's own numbering (here each row's place, from 1).
    with pytest.raises(EventLogError, match=r"x.csv: row 2: place belongs to trial 2 \(p2\), "
                       r"but trial 1 \(p1\) began at row 1 and has not ended"):  # fmt: skip
        _walk(rows)


def test_a_copy_row_without_its_onset_is_an_error():
    with pytest.raises(EventLogError, match=r"row 1: place belongs to a copy trial \(copy_of 1\) "
                       r"that has no copy_onset row before it"):  # fmt: skip
        _walk([_row("place", "2", "p1", copy_of="1")])


def test_detail_round_trip_keeps_semicolons_inside_a_text():
    text = "Solved in 5 moves; the fewest possible is 3."
    cell = format_detail(text=text)
    assert cell == f"text={text}"
    assert parse_detail(cell) == {"text": text}
    assert parse_detail("frames=12;dropped_frames=0;frame_period_ms=16.667") == {
        "frames": "12", "dropped_frames": "0", "frame_period_ms": "16.667"}  # fmt: skip
    assert parse_detail("") == {}
    assert format_detail({"a": 1.0, "b": None}) == "a=1.000;b=None"


def test_puzzle_codes_round_trip_and_the_interface_answers_without_isinstance():
    from tol_tasks import Hanoi, London
    from tol_tasks.puzzles import from_code

    for p in (Hanoi(3), Hanoi(4, 4), Hanoi(4, 3, adjacent_only=True), London(),
              London("RGBY", (4, 3, 2, 1))):  # fmt: skip
        assert from_code(p.code) == p
    h, lo = Hanoi(5), London("RGBY", (2, 2, 2))
    assert (h.kind, h.size, h.pieces, h.capacities, h.is_classic, h.code) == (
        "hanoi", 5, (1, 2, 3, 4, 5), (5, 5, 5), True, "hanoi:5:3:0")  # fmt: skip
    assert (lo.kind, lo.size, lo.pieces, lo.capacities, lo.is_classic, lo.code) == (
        "london", 4, ("R", "G", "B", "Y"), (2, 2, 2), False, "london:RGBY:2-2-2")  # fmt: skip
    assert not Hanoi(3, 4).is_classic
    assert not Hanoi(3, adjacent_only=True).is_classic
    for bad in ("hanoi:3:3", "hanoi:x:3:0", "hanoi:3:3:2", "london:rgb:3-2-1", "chess"):
        with pytest.raises(ValueError, match=f"puzzle '{bad}' is not a puzzle code"):
            from_code(bad)


def _reference_walk(event, trial, attempt, problem_id, block, copy_of, reason):
    """The walker as first written (row by row, at 6a0c374): the reference for the vectorized one.

    Returns the attempts as tuples, or the error text.
    """
    out, open_problem, open_copy = [], None, None

    def close(opened, kind, stop, end):
        if opened is not None:
            i = opened[0]
            out.append((kind, int(trial[i]), int(attempt[i]) if attempt[i] else 1, block[i],
                        problem_id[i], int(copy_of[i]) if copy_of[i] else None, i, stop, end,
                        reason[end] if end is not None else None))  # fmt: skip

    for n, ev in enumerate(event):
        t, key = trial[n], (trial[n], attempt[n], problem_id[n])
        if copy_of[n]:
            if open_problem is not None:
                close(open_problem, PROBLEM, n, None)
                open_problem = None
            if ev == "copy_onset":
                close(open_copy, COPY, n, None)
                open_copy = (n, key)
                continue
            if open_copy is None:
                return f"row {n + 1}: no copy_onset"
            if key != open_copy[1]:
                return f"row {n + 1}: interleaved copy"
            if ev == "copy_end":
                close(open_copy, COPY, n + 1, n)
                open_copy = None
            continue
        if ev == "trial_onset":
            close(open_copy, COPY, n, None)
            open_copy = None
            close(open_problem, PROBLEM, n, None)
            open_problem = (n, key)
            continue
        if open_problem is None or not t:
            continue
        if key != open_problem[1]:
            return f"row {n + 1}: interleaved"
        if ev == "trial_end":
            close(open_problem, PROBLEM, n + 1, n)
            open_problem = None
    close(open_problem, PROBLEM, len(event), None)
    close(open_copy, COPY, len(event), None)
    return out


_EVENTS = ["trial_onset", "trial_end", "place", "pick_up", "copy_onset", "copy_end",
           "copy_cue", "feedback", "resume", "session_end"]  # fmt: skip


@given(st.lists(st.tuples(st.sampled_from(_EVENTS), st.sampled_from(["", "1", "2", "01"]),
                          st.sampled_from(["", "1", "2"]), st.sampled_from(["p1", "p2"]),
                          st.sampled_from(["", "", "", "1", "2"])), max_size=30))  # fmt: skip
def test_the_walker_agrees_with_the_row_by_row_reference(rows):
    cols = {"event": [r[0] for r in rows], "trial": [r[1] for r in rows],
            "attempt": [r[2] for r in rows], "problem_id": [r[3] for r in rows],
            "block": ["b"] * len(rows), "copy_of": [r[4] for r in rows],
            "reason": [f"r{i}" for i in range(len(rows))]}  # fmt: skip
    # The reference checks no onset cells: give every onset a trial number, as logs have.
    for i, r in enumerate(rows):
        if r[0] in ("trial_onset", "copy_onset") and not r[1]:
            cols["trial"][i] = "3"
    expected = _reference_walk(**cols)
    if isinstance(expected, str):
        with pytest.raises(EventLogError, match=expected.split(":")[0] + ":"):
            walk_attempts(**cols, path="x.csv")
        return
    got = walk_attempts(**cols, path="x.csv")
    assert [(a.kind, a.trial, a.attempt, a.block, a.problem_id, a.copy_of, a.onset, a.stop,
             a.end, a.outcome) for a in got] == expected  # fmt: skip


_LOG = st.lists(st.tuples(st.sampled_from(_EVENTS), st.sampled_from(["", "1", "2"]),
                          st.sampled_from(["", "1", "2"]), st.sampled_from(["p1", "p2"]),
                          st.sampled_from(["", "", "", "1"])), max_size=12)  # fmt: skip


@given(st.lists(_LOG, min_size=1, max_size=5))
def test_logs_walked_together_are_walked_each_as_if_alone(logs):
    """Scoring walks many logs at once (attempt_spans with their starts): the spans are each
    log's own, and an error names the first log that breaks a rule, and its own row."""
    import numpy as np

    from tol_tasks.session_data.attempts import _coded, attempt_spans

    def columns(rows):
        cols = [[r[k] for r in rows] for k in range(5)]
        for i, r in enumerate(rows):  # onsets carry a trial number, as logs have
            if r[0] in ("trial_onset", "copy_onset") and not r[1]:
                cols[1][i] = "3"
        return cols

    each = []
    for k, rows in enumerate(logs):
        try:
            each.append(attempt_spans(*map(_coded, columns(rows)), path=f"log{k}.csv"))
        except EventLogError as exc:
            each.append(exc)
    together = [[cell for rows in logs for cell in columns(rows)[c]] for c in range(5)]
    starts = np.cumsum([0] + [len(rows) for rows in logs[:-1]])
    paths = [f"log{k}.csv" for k in range(len(logs))]
    bad = [e for e in each if isinstance(e, EventLogError)]
    if bad:
        with pytest.raises(EventLogError) as got:
            attempt_spans(*map(_coded, together), path=paths, starts=starts)
        assert str(got.value) == str(bad[0])
        return
    spans = attempt_spans(*map(_coded, together), path=paths, starts=starts)
    expected = [np.concatenate([np.asarray(getattr(s, f)) + (start if f != "is_copy" else 0)
                                for s, start in zip(each, starts, strict=True)])
                for f in ("is_copy", "onset", "stop")]  # fmt: skip
    ends = np.concatenate([np.where(s.end >= 0, s.end + start, -1)
                           for s, start in zip(each, starts, strict=True)])  # fmt: skip
    assert [np.asarray(spans.is_copy, bool).tolist(), spans.onset.tolist(),
            spans.stop.tolist()] == [np.asarray(e).tolist() for e in expected]  # fmt: skip
    assert spans.end.tolist() == ends.tolist()

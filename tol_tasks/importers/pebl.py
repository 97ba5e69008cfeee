"""``pebl-tol`` and ``pebl-toh``: PEBL's Tower of London and Tower of Hanoi (battery/tol, battery/toh).

Both write ``<tol|toh>-<sub>.csv``, one row when an attempt begins (``step``
0, the start position) and one per step after it: the position after the step
(``current``), the goal (``end``), ``abstime`` (ms since PEBL started, read
after the drop was drawn), ``trialtime`` (ms since the attempt began),
``clicktime`` (ms since the previous step) and ``done``. A step is a click on
a pile to take its top disk and a click on a pile to put it; PEBL logs only
the position after it, so the move is the one legal move between the two
positions. A step that changes nothing (the disk put back where it was; in the
Tower of Hanoi, also a first click on an empty pile) is logged as a
``same_peg_drop`` without piece or peg. Clicks on a full pile (Tower of London)
or onto a smaller disk (Tower of Hanoi) are ignored by PEBL and not logged.

``tol-<sub>.csv`` adds ``reset`` (the reset button: the attempt ends, the
next ``tries`` begins), ``tries`` and ``score``; its position notation is
``|21|3||``: the balls of each pile bottom first between bars, balls 1-3 red,
yellow and blue in PEBL's comments (R, Y, B here; balls 4-6 are G, P, O). The
piles' heights are not in the file: ``--capacities`` gives them, else they are
worked out from PEBL's problem sets (see :func:`tol_capacities`).
``toh-<sub>.csv`` writes a position as one digit per disk, largest first,
giving its pile (``211``: the largest disk on pile 2, the others on pile 1;
pile 1 is A).

The summary beside a log (``tol-summary-<sub>.csv``, ``toh-summary-<sub>.csv``)
is read with it when present: ``shortest`` (PEBL's stated minimum, -1 when
unknown) is compared with the solver's, ``roundstart`` dates PEBL's time limit,
and a trial with a summary row has ended.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tol_tasks.config import MAX_DISKS
from tol_tasks.puzzles import Hanoi, London

from .format import Format, ImportOptions, Unit
from .people import group_sessions
from .session import ImportedSession, SessionBuilder, Unavailable, int_value, ms_value
from .source import ImportSourceError, Source, fault, read_source

TOL_NAME, TOH_NAME = "pebl-tol", "pebl-toh"


def _header(line: str) -> tuple[str, ...]:
    return tuple(line.split(","))


# The headers as PEBL's GetNewDataFile calls write them (TOL.pbl, TOH.pbl).
TOL_COLUMNS = _header("sub,trial,size,current,end,step,reset,tries,score,abstime,trialtime,"
                      "clicktime,done")  # fmt: skip
TOH_COLUMNS = _header("sub,trial,size,current,end,step,abstime,trialtime,clicktime,done")
TOL_SUMMARY = _header("sub,trial,size,shortest,startlab,endlab,startconf,endconf,success,tries,"
                      "score,steps,roundstart,starttime,firsttime,time")  # fmt: skip
TOH_SUMMARY = _header("sub,trial,size,shortest,startlab,endlab,startconf,endconf,success,steps,"
                      "time")  # fmt: skip

#: PEBL's balls 1-6 as ball letters (1-3 red, yellow, blue in PEBL's comments; 4-6 are labels).
BALLS = "RYBGPO"

#: PEBL's default time limit (parameter ``timelimit``), seconds; only some of its sets use it.
TIME_LIMIT_S = 120.0

FIX = "restore the file from PEBL's own output (data/<sub>/)"

TIMES = {
    "clock": "PEBL's abstime: GetTime(), milliseconds since PEBL started; zero of the session "
    "clock",
    "resolution_s": 0.001,
    "trial_onset": "abstime of the attempt's step-0 row (read after the start position was drawn)",
    "place": "abstime of the step's row: read after PEBL drew the dropped disk (its drop "
    "animation takes a few frames), not at the click",
    "same_peg_drop": "abstime of a step that left the position unchanged",
    "solved": "the step that made the position equal the goal (done = 1)",
    "time_out": "PEBL's round start (summary roundstart, else the first attempt's start) + the "
    "time limit",
    "move_limit": "the step that reached PEBL's turn limit (its stated shortest)",
    "trial_end": "the attempt's last row",
}

UNAVAILABLE = (
    Unavailable(
        "pick-ups",
        "PEBL logs a step once the disk is put down; the click that took it is not logged",
        "no pick_up rows: tol-score's planning time is the time to the first "
        "completed move, PEBL's own firsttime (planning_ends says move), under either "
        "--planning-ends",
    ),
    Unavailable(
        "illegal attempts",
        "PEBL ignores a drop on a full pile (TOL) or onto a smaller disk (TOH) and logs nothing",
        "rule_violations and violations_* are empty: not recorded, not zero",
    ),
    Unavailable(
        "which peg a step that changed nothing used",
        "PEBL logs only the position after a step",
        "such steps are same_peg_drop rows without piece or peg; tol-score "
        "counts them in same_peg_drops (and in moves with --same-peg-counts, as PEBL's "
        "steps do)",
    ),
    Unavailable(
        "pointer positions (x, y)",
        "PEBL logs the pile, not the click's position",
        "x and y are empty",
    ),
    Unavailable("frame statistics", "not logged", "frames and dropped_frames are empty"),
)

DEFINITIONS = {
    "moves": "completed moves; PEBL's steps also count steps that changed nothing "
    "(tol-score --same-peg-counts counts them too)",
    "planning_time": "from the attempt's start to the first completed move, as PEBL's "
    "firsttime (there are no pick-ups)",
    "min_moves": "from the solver; PEBL's shortest (summary file) is kept as source_min_moves "
    "and compared",
    "attempt": "PEBL's tries (a reset starts the next)",
}


def is_summary(source: Source) -> bool:
    """Whether ``source`` is a PEBL summary file (tol-summary-*, toh-summary-*)."""
    cols = set(source.columns)
    return {"shortest", "startconf", "endconf", "steps"} <= cols and "current" not in cols


def log_of(summary: Path) -> Path:
    """The log a summary file describes: ``tol-summary-X.csv`` -> ``tol-X.csv``."""
    name = summary.name
    for kind in ("tol", "toh"):
        if name.startswith(f"{kind}-summary-"):
            return summary.with_name(f"{kind}-" + name[len(f"{kind}-summary-") :])
    return summary


def summary_of(log: Path) -> Path:
    for kind in ("tol", "toh"):
        if log.name.startswith(f"{kind}-"):
            return log.with_name(f"{kind}-summary-" + log.name[len(f"{kind}-") :])
    return log.with_name("summary-" + log.name)


def _recognise(log_cols: tuple[str, ...], summary_cols: tuple[str, ...]):
    def recognise(source: Source) -> bool:
        cols = tuple(source.columns)
        return cols[: len(log_cols)] == log_cols or cols[: len(summary_cols)] == summary_cols

    return recognise


@dataclass
class _Summary:
    rows: dict[tuple[str, int], dict[str, str]]
    numbers: dict[tuple[str, int], int]
    source: Source


def _read_summary(log: Source, columns: tuple[str, ...]) -> _Summary | None:
    path = summary_of(log.path)
    if not path.is_file():
        return None
    src = read_source(path)
    if tuple(src.columns[: len(columns)]) != columns:
        raise fault(
            path, f"not a PEBL summary file (expected the columns {', '.join(columns)})", FIX, row=1
        )
    rows, numbers = {}, {}
    for r, n in zip(src.rows, src.numbers, strict=True):
        key = (r["sub"].strip(), int_value(path, r["trial"], row=n, column="trial"))
        rows[key], numbers[key] = r, n
    return _Summary(rows, numbers, src)


def read_tol(source: Source, options: ImportOptions) -> Iterator[Unit]:
    return _read(source, options, TOL_NAME)


def read_toh(source: Source, options: ImportOptions) -> Iterator[Unit]:
    return _read(source, options, TOH_NAME)


def _read(source: Source, options: ImportOptions, fmt: str) -> Iterator[Unit]:
    columns = TOL_COLUMNS if fmt == TOL_NAME else TOH_COLUMNS
    source.require(
        columns,
        fmt,
        "give the log PEBL wrote (" + ("tol" if fmt == TOL_NAME else "toh") + "-<sub>.csv)",
    )
    summary = _read_summary(source, TOL_SUMMARY if fmt == TOL_NAME else TOH_SUMMARY)
    for group in group_sessions(source, options, clock="abstime"):
        yield (
            f"participant {group.participant} session {group.session}",
            lambda g=group: _session(source, options, g, fmt, summary),
        )


def tol_capacities(
    source: Source, rows: list[dict], numbers: list[int], summary: _Summary | None, participant: str
) -> tuple[tuple[int, ...], str]:
    """The piles' heights of a PEBL TOL session, which its log does not record.

    PEBL sets them by problem set: 3-2-1 (Shallice; TOL-DX, mirrored), 1-2-3
    (Fimbel et al., TOL-R, random Shallice-type problems), 5-5-5 (Phillips et
    al., five balls) and 6-6-6 (random and progressive sets of 3 to 5 balls,
    whose stated minimum is -1). For three balls, the one of 3-2-1 and 1-2-3
    that holds every position of the session is taken.

    Raises
    ------
    ImportSourceError
        When the log does not decide (pass ``--capacities``).
    """
    sizes = {r["size"].strip() for r in rows}
    stated = [
        r["shortest"].strip()
        for k, r in (summary.rows.items() if summary else ())
        if k[0] == participant
    ]
    if len(sizes) > 1 or (stated and all(s == "-1" for s in stated)):
        return (6, 6, 6), (
            "several numbers of balls, or stated minimums of -1: PEBL's random or "
            "progressive sets, on piles of 6"
        )
    n = int_value(source.path, next(iter(sizes)), row=numbers[0], column="size", most=len(BALLS))
    if n == 5:
        return (5, 5, 5), "five balls: PEBL's Phillips et al. (1999) sets, on piles of 5"
    if n == 3:
        heights = {}
        for r in rows:
            for column in ("current", "end"):
                for k, pile in enumerate(r[column].strip()[1:-1].split("|")):
                    heights[k] = max(heights.get(k, 0), len(pile))
        fits = [
            c for c in ((3, 2, 1), (1, 2, 3)) if all(heights.get(k, 0) <= c[k] for k in range(3))
        ]
        if len(fits) == 1:
            caps = "-".join(map(str, fits[0]))
            return fits[0], (
                f"three balls: PEBL's Shallice-type sets use piles of 3-2-1 or "
                f"1-2-3, and only {caps} holds every position of this session"
            )
    raise fault(
        source.path,
        f"the piles' heights are not in the file and cannot be worked out "
        f"for participant {participant!r} ({n} balls)",
        "pass the heights PEBL used with --capacities (3,2,1 for its Shallice set and "
        "TOL-DX; 1,2,3 for Fimbel et al. and TOL-R)",
        row=numbers[0],
        column="size",
        value=str(n),
    )


def _tol_text(source: Source, text: str, n_balls: int, *, row: int, column: str) -> str:
    t = text.strip()
    piles = t[1:-1].split("|") if len(t) >= 2 and t[0] == "|" and t[-1] == "|" else None
    if (
        piles is None
        or len(piles) != 3
        or any(not p.isdigit() for p in piles if p)
        or sorted("".join(piles)) != [str(k) for k in range(1, n_balls + 1)]
    ):
        raise fault(
            source.path,
            f"not a PEBL Tower of London position: three piles between bars, "
            f"bottom ball first, balls 1-{n_balls} once each (e.g. |21|3||)",
            FIX,
            row=row,
            column=column,
            value=text,
        )
    return "|".join("".join(BALLS[int(c) - 1] for c in p) for p in piles)


def _toh_text(source: Source, text: str, n_disks: int, *, row: int, column: str) -> str:
    t = text.strip()
    if len(t) != n_disks or any(c not in "123" for c in t):
        raise fault(
            source.path,
            f"not a PEBL Tower of Hanoi position: one digit 1-3 per disk "
            f"({n_disks}), largest disk first (e.g. 211)",
            FIX,
            row=row,
            column=column,
            value=text,
        )
    return "".join("ABC"[int(c) - 1] for c in t)


@dataclass
class _Attempt:
    trial: int
    tries: int
    rows: list[int]  # indices into the group's rows


def _session(
    source: Source, options: ImportOptions, group, fmt: str, summary: _Summary | None
) -> ImportedSession:
    path = source.path
    rows = [source.rows[i] for i in group.indices]
    numbers = [source.numbers[i] for i in group.indices]
    who = group.participant
    b = SessionBuilder(source, fmt, who, group.session)
    apparatus: dict = {}
    if fmt == TOL_NAME:
        if options.capacities is not None:
            capacities, basis = tuple(options.capacities), "--capacities"
        else:
            capacities, basis = tol_capacities(source, rows, numbers, summary, who)
        apparatus = {
            "capacities": list(capacities),
            "basis": basis,
            "pieces": {str(k + 1): BALLS[k] for k in range(6)},
        }
    else:
        apparatus = {"pegs": 3, "pieces": "disks 1 (smallest) to n; PEBL's digits 1-3 are pegs A-C"}
    limit_s = options.time_limit if options.time_limit is not None else TIME_LIMIT_S
    attempts = _attempts(source, rows, numbers)
    ended_trials = {k[1] for k in summary.rows if k[0] == who} if summary else set()
    last_ms = 0.0
    for k, att in enumerate(attempts):
        first = rows[att.rows[0]]
        n0 = numbers[att.rows[0]]
        most = len(BALLS) if fmt == TOL_NAME else MAX_DISKS  # PEBL's colours; Hanoi's rule
        size = int_value(path, first["size"], row=n0, column="size", most=most)
        if fmt == TOL_NAME:
            puzzle = London(BALLS[:size], capacities)
            start = _tol_text(source, first["current"], size, row=n0, column="current")
            goal = _tol_text(source, first["end"], size, row=n0, column="end")
        else:
            puzzle = Hanoi(size, 3)
            start = _toh_text(source, first["current"], size, row=n0, column="current")
            goal = _toh_text(source, first["end"], size, row=n0, column="end")
        srow = summary.rows.get((who, att.trial)) if summary else None
        stated = None
        detail = {}
        if srow is not None:
            shortest = int_value(
                summary.source.path,
                srow["shortest"],
                row=summary.numbers[(who, att.trial)],
                column="shortest",
            )
            stated = shortest if shortest >= 0 else None
            labels = (srow.get("startlab", "").strip(), srow.get("endlab", "").strip())
            if any(lab not in ("", "0") for lab in labels):
                detail["source_labels"] = "-".join(labels)
        onset = ms_value(path, first["abstime"], row=n0, column="abstime")
        if rows[att.rows[0]]["step"].strip() != "0":
            raise fault(
                path,
                "an attempt must begin with its step-0 row (the start position)",
                FIX,
                row=n0,
                column="step",
                value=first["step"],
            )
        b.onset(
            onset,
            puzzle=puzzle,
            start=start,
            goal=goal,
            block="test",
            problem_id=str(att.trial),
            attempt=att.tries,
            row=n0,
            column="current",
            stated_min=stated,
            stated_column="shortest",
            stated_at=(summary.source.name, summary.numbers[(who, att.trial)]) if srow else None,
            detail=detail,
        )
        parse = _tol_text if fmt == TOL_NAME else _toh_text
        outcome = None
        steps = 0
        last = onset
        pending = None  # a step that changed nothing, logged once the next row says what it was
        for j in att.rows[1:]:
            r, n = rows[j], numbers[j]
            ms = ms_value(path, r["abstime"], row=n, column="abstime")
            steps = int_value(path, r["step"], row=n, column="step")
            state = parse(source, r["current"], size, row=n, column="current")
            pending = _flush(b, pending)
            last = ms
            if fmt == TOL_NAME and r["reset"].strip() == "1":
                outcome = ("reset", ms, n)
                break
            if state == b.state:
                pending = (ms, n, steps)
            else:
                b.move_to(ms, state, row=n, column="current", value=r["current"])
            if r["done"].strip() == "1":
                if b.state != b.goal:
                    raise fault(
                        path,
                        f"done is 1 but the position {b.state} is not the goal {b.goal}",
                        FIX,
                        row=n,
                        column="done",
                        value=r["done"],
                    )
                b.solved(ms, row=n)
                outcome = ("solved", ms, n)
                break
        last_row = numbers[att.rows[-1]]
        later = k + 1 < len(attempts)
        if outcome is None and (later or att.trial in ended_trials):  # ended unsolved
            roundstart = _round_start(summary, who, att, attempts, rows, path, numbers)
            timed_out = last - roundstart >= limit_s * 1000 - 100
            if timed_out and pending is not None:
                # PEBL logs a time-out while waiting for the first click as a step that
                # changed nothing: that last row is the time-out, not a drop
                pending = None
                b.time_out(max(b.last_ms, roundstart + limit_s * 1000), limit_s, row=last_row)
                outcome = ("time_out", last, last_row)
            elif stated and steps >= stated:  # PEBL's turn limit: its stated shortest
                pending = _flush(b, pending)
                b.move_limit(last, stated, row=last_row)
                outcome = ("move_limit", last, last_row)
            elif timed_out:  # the time ran out with a disk in hand; PEBL placed it first
                pending = _flush(b, pending)
                b.time_out(max(b.last_ms, roundstart + limit_s * 1000), limit_s, row=last_row)
                outcome = ("time_out", last, last_row)
            else:
                pending = _flush(b, pending)
                outcome = ("gave_up", last, last_row)
        pending = _flush(b, pending)
        if outcome is None:  # cut off: the session ended inside this attempt
            last_ms = max(last_ms, last)
            break
        reason = outcome[0] if outcome[0] in ("reset", "gave_up") else None
        end_detail = {}
        if fmt == TOL_NAME:
            end_detail["source_score"] = rows[att.rows[-1]]["score"].strip()
        b.end_trial(max(last, b.last_ms), reason, row=outcome[2], detail=end_detail or None)
        last_ms = b.last_ms
    complete = not b.open and (summary is None or all(a.trial in ended_trials for a in attempts))
    return b.finish(
        last_ms,
        rows=(numbers[0], numbers[-1]),
        complete=complete,
        meta={
            "format_title": "PEBL Tower of London (battery/tol)"
            if fmt == TOL_NAME
            else "PEBL Tower of Hanoi (battery/toh)",
            "summary_file": summary.source.name if summary else None,
            "summary_sha256": summary.source.sha256 if summary else None,
            "apparatus": apparatus,
            "time_limit_s": limit_s,
            "times": TIMES,
            "definitions": DEFINITIONS,
            "status_basis": "completed when every attempt in the log ended (and, with the "
            "summary, every trial has its summary row)",
        },
        unavailable=UNAVAILABLE,
    )


def _flush(b: SessionBuilder, pending) -> None:
    """Log a pending step that changed nothing, as a same-peg drop; returns None."""
    if pending is not None:
        b.same_peg_drop(pending[0], row=pending[1], detail={"source_step": pending[2]})


def _round_start(summary, who, att, attempts, rows, path, numbers) -> float:
    if summary is not None and (who, att.trial) in summary.rows:
        key = (who, att.trial)
        text = summary.rows[key].get("roundstart", "")
        if text not in ("", None):
            return ms_value(
                summary.source.path, text, row=summary.numbers[key], column="roundstart"
            )
    first = next(a for a in attempts if a.trial == att.trial)
    return ms_value(
        path, rows[first.rows[0]]["abstime"], row=numbers[first.rows[0]], column="abstime"
    )


def _attempts(source: Source, rows: list[dict], numbers: list[int]) -> list[_Attempt]:
    """The session's attempts: each begins at a step-0 row."""
    out: list[_Attempt] = []
    for j, (r, n) in enumerate(zip(rows, numbers, strict=True)):
        trial = int_value(source.path, r["trial"], row=n, column="trial")
        step = r["step"].strip()
        tries = int_value(source.path, r["tries"], row=n, column="tries") if "tries" in r else 1
        if step == "0":
            out.append(_Attempt(trial, tries, [j]))
            continue
        if not out or out[-1].trial != trial:
            raise fault(
                source.path,
                f"a step of trial {trial} without its step-0 row (the start position) before it",
                FIX,
                row=n,
                column="step",
                value=step,
            )
        out[-1].rows.append(j)
    return out


TOL_FORMAT = Format(
    name=TOL_NAME,
    title="PEBL Tower of London (battery/tol)",
    signature=(),
    required=TOL_COLUMNS,
    options=frozenset({"session", "capacities", "time_limit"}),
    read=read_tol,
    doc="docs/import/pebl-tol.md",
    recognise=_recognise(TOL_COLUMNS, TOL_SUMMARY),
)

TOH_FORMAT = Format(
    name=TOH_NAME,
    title="PEBL Tower of Hanoi (battery/toh)",
    signature=(),
    required=TOH_COLUMNS,
    options=frozenset({"session", "time_limit"}),
    read=read_toh,
    doc="docs/import/pebl-toh.md",
    recognise=_recognise(TOH_COLUMNS, TOH_SUMMARY),
)

__all__ = [
    "TOH_FORMAT",
    "TOL_FORMAT",
    "ImportSourceError",
    "is_summary",
    "log_of",
    "tol_capacities",
]

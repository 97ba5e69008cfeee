"""``expfactory-tol``: the Experiment Factory's Tower of London (jsPsych 5, one row per click).

The task (github.com/expfactory-experiments/tower-of-london, also
``tower_of_london`` in expfactory/expfactory-experiments) shows the board and
the target; a click on a peg takes its top ball into a "Ball in Hand" box, the
next click puts it on the clicked peg. Each click is a jsPsych trial of its
own, saved with ``mouse_click`` (``tol_peg_1``..``tol_peg_3``, ``-1`` when the
screen timed out), ``rt`` (ms since that screen appeared), jsPsych's
``time_elapsed`` (ms since the experiment began, when the click ended the
screen) and the board after the click, ``current_position``: one list per peg,
bottom first, each padded with 0 to its capacity (3, 2, 1), the ball in hand
absent. ``target`` is the goal in the same notation, ``min_moves`` the fewest
moves as the task states them, ``num_moves_made`` the pick-ups so far.
A ``feedback`` row (``correct``, ``problem_time``) ends each problem; the
practice problem has ``exp_stage`` ``practice``, the twelve test problems
``test``. Balls 1, 2, 3 are green, red and blue (G, R, B here); pegs 1-3 are
A-C. Clicks on an empty peg (to take) or a full one (to put) are ignored by
the task and leave no row.

Positions come as the task keeps them in the JSON it saves
(``[[1,2,0],[3,0],[0]]``), as pandas writes them (``[[1, 2, 0], [3, 0], [0]]``)
or flattened by jsPsych 5's own CSV export (``1,2,0,3,0,0``, read with the
capacities 3, 2, 1). Whether a click took or put a ball is read from the
positions, not from ``trial_id``, so older versions of the task (one ``stim``
trial per click) import too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache

from tol_tasks.puzzles import London

from .format import Format, ImportOptions, Unit
from .people import group_sessions
from .session import ImportedSession, SessionBuilder, Unavailable, int_value, ms_value
from .source import Source, cell_text, fault, text_cell

NAME = "expfactory-tol"
TITLE = "Experiment Factory Tower of London (jsPsych)"

#: The task's balls 1, 2, 3 (``colors = ['Green', 'Red', 'Blue']``) as ball letters.
BALLS = {1: "G", 2: "R", 3: "B"}

#: Its pegs' capacities, for positions that jsPsych 5's CSV export flattened.
CAPACITIES = (3, 2, 1)

#: Its time per problem (``time_per_trial``), in seconds.
TIME_LIMIT_S = 20.0

FIX = (
    "restore the file from the Experiment Factory's own output (the JSON it saves, "
    "or jsPsych's CSV export)"
)
REQUIRED = ("trial_id", "mouse_click", "rt", "time_elapsed", "current_position", "target")

TIMES = {
    "clock": "jsPsych's time_elapsed: milliseconds since the experiment began (jsPsych.init), "
    "from Date.getTime() differences; zero of the session clock",
    "resolution_s": 0.001,
    "trial_onset": "time_elapsed minus rt of the problem's first click: when its first screen "
    "was set up",
    "pick_up": "time_elapsed of the click that took the ball (it ended that screen)",
    "place": "time_elapsed of the click that put the ball down",
    "same_peg_drop": "time_elapsed of the click that put the ball back on its own peg",
    "time_out": "time_elapsed of the row whose mouse_click is -1 (the screen timed out)",
    "solved": "the placement that made the board equal the target",
    "trial_end": "the problem's last event (its feedback row follows)",
}

UNAVAILABLE = (
    Unavailable(
        "illegal attempts",
        "the task ignores a click on an empty peg (to take) or a "
        "full peg (to put) and logs nothing",
        "rule_violations and violations_* are empty: not recorded, not zero",
    ),
    Unavailable(
        "pointer positions (x, y)", "the task logs the peg clicked, not where", "x and y are empty"
    ),
    Unavailable(
        "frame statistics",
        "jsPsych 5 does not measure frames",
        "frames and dropped_frames are empty",
    ),
    Unavailable(
        "input device",
        "the task listens to click events, which a mouse and a touch both send",
        "input is 'mouse' for every click",
    ),
)

DEFINITIONS = {
    "moves": "completed placements (a ball put on another peg); the task's num_moves_made "
    "counts pick-ups, including one put back on its own peg (logged same_peg_drop) "
    "and one held when the time ran out",
    "planning_time": "tol-score's default (--planning-ends pick_up) gives the time to the "
    "first pick-up, the latency of the first click: the Experiment Factory's "
    "own definition",
    "min_moves": "from the solver; the task's min_moves is kept as source_min_moves on the "
    "trial_onset row and compared",
}


def read(source: Source, options: ImportOptions) -> Iterator[Unit]:
    source.require(REQUIRED, NAME, "export the whole jsPsych data of the task (all columns)")
    for group in group_sessions(source, options, clock="time_elapsed"):
        yield (
            f"participant {group.participant} session {group.session}",
            lambda g=group: _session(source, g),
        )


def _parse_position(
    source: Source, text: str, *, row: int, column: str, capacities: tuple[int, ...] | None = None
) -> tuple[list[list[int]], tuple[int, ...]]:
    """Each peg's ball numbers (bottom first, zeros dropped) and the capacities seen."""
    got = _decode(cell_text(text).strip(), capacities or CAPACITIES)
    if got is None:
        raise fault(
            source.path,
            "not a position of the task's board: one list per peg, bottom first, padded with 0 "
            "to the peg's capacity, balls 1-3 each at most once",
            FIX,
            row=row,
            column=column,
            value=text,
        )
    pegs, caps = got
    return [list(p) for p in pegs], caps


@lru_cache(maxsize=4096)
def _decode(t: str, flat_capacities: tuple[int, ...]):
    """(pegs, capacities) of a position's text, or None; ``flat_capacities`` split a
    flattened position (jsPsych 5's CSV)."""
    try:
        if t.startswith("["):
            pegs = json.loads(t)
            if not isinstance(pegs, list) or not all(isinstance(p, list) for p in pegs):
                return None
            slots = [[int(v) for v in p] for p in pegs]
        else:
            flat = [int(v) for v in t.split(",")]
            if len(flat) != sum(flat_capacities):
                return None
            slots, k = [], 0
            for c in flat_capacities:
                slots.append(flat[k : k + c])
                k += c
    except (ValueError, TypeError):
        return None
    balls: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for peg in slots:
        on = [v for v in peg if v != 0]
        if any(v not in BALLS or v in seen for v in on) or peg[: len(on)] != on:
            return None
        seen.update(on)
        balls.append(tuple(on))
    return tuple(balls), tuple(len(p) for p in slots)


def _text(pegs: list[list[int]]) -> str:
    return "|".join("".join(BALLS[v] for v in p) for p in pegs)


def _session(source: Source, group) -> ImportedSession:
    b = SessionBuilder(source, NAME, group.participant, group.session)
    path = source.path
    rows, numbers = source.rows, source.numbers
    puzzle = None
    capacities: tuple[int, ...] | None = None
    held: int | None = None
    problems = 0
    last_ms = 0.0
    last_click: dict | None = None
    complete = False
    end_ms = 0.0
    for i in group.indices:
        row, n = rows[i], numbers[i]
        tid = text_cell(source, row, "trial_id", n=n)
        position = row.get("current_position", "")
        te = row.get("time_elapsed", "")
        if tid == "end":
            complete = True
            end_ms = max(last_ms, ms_value(path, te, row=n, column="time_elapsed"))
        if not position or position == "null":
            if tid == "feedback" and b.open:
                _end(b, last_ms, row, n, last_click, source)
                held = None
            continue
        ms = ms_value(path, te, row=n, column="time_elapsed")
        click = text_cell(source, row, "mouse_click", n=n).strip()
        rt = ms_value(path, row.get("rt", ""), row=n, column="rt", allow_negative=True)
        pegs, caps = _parse_position(
            source, position, row=n, column="current_position", capacities=capacities
        )
        if capacities is None:
            capacities = caps
            puzzle = London("RGB", capacities)
        if not b.open:
            problems += 1
            goal, _ = _parse_position(
                source, row.get("target", ""), row=n, column="target", capacities=capacities
            )
            if sum(map(len, goal)) != len(BALLS):
                raise fault(
                    path,
                    "the target does not hold the three balls",
                    FIX,
                    row=n,
                    column="target",
                    value=row.get("target"),
                )
            start = [list(p) for p in pegs]
            timed_out = click in ("-1", "") or rt < 0
            if not timed_out:  # the first click took a ball: put it back where it was
                peg = _peg(source, click, row=n)
                missing = [v for v in BALLS if v not in {x for p in pegs for x in p}]
                if len(missing) != 1:
                    raise fault(
                        path,
                        "the first click of a problem must take a ball, but no ball is in hand",
                        FIX,
                        row=n,
                        column="current_position",
                        value=position,
                    )
                start[peg].append(missing[0])
            onset = ms - (rt if not timed_out else _screen_ms(row, n, source))
            stated = text_cell(source, row, "min_moves", n=n)
            b.onset(
                onset,
                puzzle=puzzle,
                start=_text(start),
                goal=_text(goal),
                block=text_cell(source, row, "exp_stage", n=n) or "test",
                problem_id=text_cell(source, row, "problem_id", n=n) or str(problems - 1),
                row=n,
                column="current_position",
                stated_min=int_value(path, stated, row=n, column="min_moves") if stated else None,
                stated_column="min_moves",
            )
            held = None
        text_cell(source, row, "num_moves_made", n=n)  # one value, for the trial's end
        last_click = row
        last_ms = ms
        if click in ("-1", "") or rt < 0:  # the screen timed out: the time is up
            b.time_out(ms, TIME_LIMIT_S, row=n)
            held = None
            continue
        peg = _peg(source, click, row=n)
        text = _text(pegs)
        if held is None:  # a take: the clicked peg's top ball is now in hand
            b.pick_up(ms, peg, row=n, column="mouse_click", value=click)
            expected = _without_top(b.puzzle, b.state, peg)
            if text != expected:
                raise fault(
                    path,
                    f"taking the top ball of peg {'ABC'[peg]} from {b.state} leaves "
                    f"{expected}, not this position ({text})",
                    FIX,
                    row=n,
                    column="current_position",
                    value=position,
                )
            held = peg
        elif peg == held:
            if text != b.state:
                raise fault(
                    path,
                    f"the ball went back on peg {'ABC'[peg]}, which gives {b.state}, "
                    f"not this position ({text})",
                    FIX,
                    row=n,
                    column="current_position",
                    value=position,
                )
            b.same_peg_drop(ms, peg, row=n)
            held = None
        else:
            b.place(ms, held, peg, row=n, column="current_position", value=position, expected=text)
            held = None
            if b.state == b.goal:
                b.solved(ms, row=n)
    if b.open and complete:  # the task ended without the problem's feedback row
        _end(b, last_ms, {}, numbers[group.indices[-1]], last_click, source)
    # else an open problem was cut off (the participant left): no trial_end, scored incomplete
    return b.finish(
        end_ms if complete else last_ms,
        rows=(numbers[group.indices[0]], numbers[group.indices[-1]]),
        stage=("exp_stage", "test"),
        complete=complete and not b.open,
        meta={
            "format_title": TITLE,
            "apparatus": {
                "puzzle": puzzle.code if puzzle else None,
                "capacities": list(capacities or CAPACITIES),
                "basis": "the padding of the task's positions",
                "pieces": {str(k): v for k, v in BALLS.items()},
                "pegs": {"tol_peg_1": "A", "tol_peg_2": "B", "tol_peg_3": "C"},
            },
            "time_limit_s": TIME_LIMIT_S,
            "times": TIMES,
            "definitions": DEFINITIONS,
            "status_basis": "completed when the task's 'end' row is present",
        },
        unavailable=UNAVAILABLE,
    )


def _end(
    b: SessionBuilder, ms: float, feedback: dict, n: int, last_click: dict | None, source: Source
) -> None:
    detail = {}
    for column, key in (("correct", "source_correct"), ("problem_time", "source_problem_time_ms")):
        if text_cell(source, feedback, column, n=n) != "":
            detail[key] = feedback[column]
    if last_click and last_click.get("num_moves_made", "") != "":
        detail["source_num_moves"] = last_click["num_moves_made"]  # one value (checked)
    b.end_trial(ms, row=n, detail=detail or None)


def _peg(source: Source, click: str, *, row: int) -> int:
    if click.startswith("tol_peg_") and click[-1] in "123" and len(click) == 9:
        return int(click[-1]) - 1
    raise fault(
        source.path,
        "expected tol_peg_1, tol_peg_2, tol_peg_3 or -1 (a time-out)",
        FIX,
        row=row,
        column="mouse_click",
        value=click,
    )


def _without_top(puzzle, state: str, peg: int) -> str:
    pegs = state.split("|")
    pegs[peg] = pegs[peg][:-1]
    return "|".join(pegs)


def _screen_ms(row: dict, n: int, source: Source) -> float:
    """How long a screen that timed out was shown: jsPsych's block_duration, else the limit."""
    text = row.get("block_duration", "")
    if text not in ("", "null"):
        return ms_value(source.path, text, row=n, column="block_duration")
    return TIME_LIMIT_S * 1000


FORMAT = Format(
    name=NAME,
    title=TITLE,
    signature=("trial_id", "current_position", "mouse_click"),
    required=REQUIRED,
    options=frozenset({"participant", "session", "participant_column", "session_column"}),
    read=read,
    doc="docs/import/expfactory-tol.md",
)

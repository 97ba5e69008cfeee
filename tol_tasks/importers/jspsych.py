"""``jspsych-tol``: the jsPsych-contrib ``plugin-tower-of-london`` (jsPsych 8, one row per trial).

The plugin (github.com/jspsych/jspsych-contrib, ``packages/plugin-tower-of-london``)
draws three pegs; a click (or touch) selects a peg with balls, a click on
another peg moves its top ball there if the peg has room. Each trial saves
``start_state``, ``goal_state`` and ``final_state`` (three lists of ball names,
bottom first), ``moves`` (``[{from, to, ball, time}]``: pegs 0-2, the ball's
name, ms since the trial began, taken when the second click made the move),
``num_moves``, ``solved``, ``optimal`` (against the ``optimal_moves`` the
researcher typed), ``rt`` (ms from the trial's start to its end), and jsPsych's
``time_elapsed`` (ms since the experiment began, when the trial's data were
saved, ``end_delay`` after its end). The first click of a move (the
selection), a second click on the selected peg (deselect) and a move onto a
full peg (refused) are not saved.

The trial's parameters are not saved unless the experiment asks jsPsych to
(``save_trial_parameters``): ``peg_capacities``, ``time_limit``,
``max_moves``, ``end_delay`` and ``optimal_moves`` columns are used when
present, else ``--capacities``, ``--time-limit``, ``--move-limit``,
``--end-delay``, else the plugin's defaults (3-3-3, no limits, 1000 ms), each
default named in a warning and in the sidecar.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from .format import Format, ImportOptions, Unit
from .letters import Letters, ball_names, ball_order, london
from .people import Group, group_sessions
from .session import ImportedSession, SessionBuilder, Unavailable, int_value, ms_value
from .source import Source, fault, json_cell, text_cell

NAME = "jspsych-tol"
TITLE = "jsPsych-contrib Tower of London plugin (jsPsych 8)"
TRIAL_TYPE = "tower-of-london"
FIX = "restore the file from jsPsych's own export (jsPsych.data.get().csv() or .json())"
REQUIRED = ("start_state", "goal_state", "moves", "rt", "time_elapsed")
CLOCK = "time_elapsed"

#: The pegs a move names (0 is the left one).
_PEGS = (0, 1, 2)

#: The plugin's defaults for what a trial does not save.
DEFAULTS = {"peg_capacities": (3, 3, 3), "time_limit": None, "max_moves": None, "end_delay": 1000}

#: The ImportOptions field that gives each of them.
OPTION_OF = {"peg_capacities": "capacities", "time_limit": "time_limit",
             "max_moves": "move_limit", "end_delay": "end_delay"}  # fmt: skip

TIMES = {
    "clock": "jsPsych's time_elapsed: milliseconds since the experiment began, from "
    "Date.getTime() differences; zero of the session clock",
    "resolution_s": 0.001,
    "trial_onset": "time_elapsed - end_delay - rt: when the plugin started the trial's clock "
    "(performance.now(), after drawing the board)",
    "place": "the move's time (ms since the trial began, performance.now(), sub-millisecond), "
    "taken when the second click made the move",
    "solved": "the move that made the board equal the goal",
    "time_out": "trial onset + time_limit",
    "trial_end": "trial onset + rt (the plugin ended the trial; its data were saved end_delay "
    "later)",
}

UNAVAILABLE = (
    Unavailable(
        "pick-ups",
        "the plugin saves a move when its second click makes it, not the "
        "first click that selected the peg",
        "no pick_up rows: tol-score's planning "
        "time is the time to the first completed move (planning_ends says move), under "
        "either --planning-ends",
    ),
    Unavailable(
        "illegal attempts",
        "a move onto a full peg is refused without a trace",
        "rule_violations and violations_* are empty: not recorded, not zero",
    ),
    Unavailable(
        "same-peg drops",
        "a second click on the selected peg deselects it without a trace",
        "same_peg_drops is empty: not recorded",
    ),
    Unavailable(
        "pointer positions (x, y)",
        "the plugin saves the pegs, not where the click was",
        "x and y are empty",
    ),
    Unavailable(
        "frame statistics", "jsPsych does not measure frames", "frames and dropped_frames are empty"
    ),
    Unavailable(
        "input device",
        "the plugin handles clicks and touches alike and saves neither",
        "input is 'mouse' for every move",
    ),
)

DEFINITIONS = {
    "moves": "completed moves (the plugin's num_moves)",
    "planning_time": "the time to the first completed move (no pick-ups), under either "
    "--planning-ends",
    "total_time": "to the solving move, or to the time limit; the plugin's rt (to the end of "
    "the trial, after the last move's animation or the done button) is kept as "
    "source_rt_ms on the trial_end row",
    "min_moves": "from the solver; optimal_moves (when saved) and the plugin's optimal flag "
    "are compared with it",
}


def read(source: Source, options: ImportOptions) -> Iterator[Unit]:
    for group in groups(source, options):
        yield (
            f"participant {group.participant} session {group.session}",
            lambda g=group: _session(source, options, g),
        )


def groups(source: Source, options: ImportOptions) -> list[Group]:
    """The file's participant sessions (file-level faults raised here), each row kept for
    :meth:`~tol_tasks.importers.source.Source.row`."""
    source.require(
        REQUIRED, NAME, "export the whole jsPsych data (jsPsych.data.get().csv() or .json())"
    )
    if "trial_type" in source.columns:
        rows = [i for i, r in enumerate(source.rows) if r.get("trial_type") == TRIAL_TYPE]
    else:
        rows = [i for i, r in enumerate(source.rows) if r.get("moves", "") not in ("", "null")]
    if not rows:
        raise fault(
            source.path,
            f"no {TRIAL_TYPE} trials (column 'trial_type' never holds {TRIAL_TYPE!r})",
            "give the data of an experiment that ran the jsPsych-contrib plugin-tower-of-london",
            row=1 if source.kind == "csv" else None,
        )
    found = group_sessions(source, options, rows, clock=CLOCK)
    return found


def _json(source: Source, text: str, *, row: int, column: str, what: str):
    try:
        return json_cell(text)
    except ValueError:
        raise fault(
            source.path, f"expected {what} (JSON)", FIX, row=row, column=column, value=text
        ) from None


def _state(source: Source, text: str, *, row: int, column: str) -> list[list[str]]:
    value = _json(source, text, row=row, column=column, what="three lists of ball names")
    if not (isinstance(value, list) and len(value) == 3 and ball_names(*value)):
        raise fault(
            source.path,
            "expected three lists of ball names, bottom first",
            FIX,
            row=row,
            column=column,
            value=text,
        )
    return value


def _setting(saved: frozenset, row: dict, n: int, column: str, option, defaults_used: set):
    """A trial parameter: its saved column (``saved``: the file's columns among
    :data:`DEFAULTS`; empty or null: saved as none), else the option, else the plugin's
    default."""
    if column in saved:
        text = row.get(column, "")
        return (None if text in ("", "null") else text), "saved"
    if option is not None:
        return option, "option"
    defaults_used.add(column)
    return DEFAULTS[column], "default"


def _session(source: Source, options: ImportOptions, group: Group) -> ImportedSession:
    path = source.path
    b = SessionBuilder(source, NAME, group.participant, group.session)
    letters = Letters()
    letter, of, place = letters.letter, letters.of, b.place
    defaults_used: set[str] = set()
    settings_basis: dict[str, set[str]] = {}
    saved = frozenset(DEFAULTS).intersection(source.columns)  # once, not per trial
    last_ms = 0.0
    for k, i in enumerate(group.indices, start=1):
        row, n = source.row(i), source.numbers[i]
        start = _state(source, row["start_state"], row=n, column="start_state")
        goal = _state(source, row["goal_state"], row=n, column="goal_state")
        letters.learn(start)
        letters.learn(goal)
        caps_value, basis = _setting(
            saved, row, n, "peg_capacities", options.capacities, defaults_used
        )
        settings_basis.setdefault("peg_capacities", set()).add(basis)
        if basis == "saved" and caps_value is None:
            caps_value, basis = DEFAULTS["peg_capacities"], "default"
            defaults_used.add("peg_capacities")
        capacities = _capacities(source, caps_value, n) if basis == "saved" else tuple(caps_value)
        limit_value, basis = _setting(
            saved,
            row,
            n,
            "time_limit",
            options.time_limit * 1000 if options.time_limit else None,
            defaults_used,
        )
        settings_basis.setdefault("time_limit", set()).add(basis)
        time_limit = (
            ms_value(path, limit_value, row=n, column="time_limit")
            if basis == "saved" and limit_value is not None
            else limit_value
        )
        moves_value, basis = _setting(saved, row, n, "max_moves", options.move_limit, defaults_used)
        settings_basis.setdefault("max_moves", set()).add(basis)
        max_moves = (
            int_value(path, moves_value, row=n, column="max_moves")
            if basis == "saved" and moves_value is not None
            else moves_value
        )
        delay_value, basis = _setting(saved, row, n, "end_delay", options.end_delay, defaults_used)
        settings_basis.setdefault("end_delay", set()).add(basis)
        if basis == "saved" and delay_value is None:
            delay_value, basis = DEFAULTS["end_delay"], "default"
            defaults_used.add("end_delay")
        end_delay = (
            ms_value(path, delay_value, row=n, column="end_delay")
            if basis == "saved"
            else float(delay_value)
        )
        balls = ball_order(frozenset(letters.of[x] for p in start for x in p))
        try:
            puzzle = london(balls, capacities)
        except ValueError as exc:
            raise fault(
                path,
                str(exc).rstrip("."),
                FIX,
                row=n,
                column="start_state",
                value=row["start_state"],
            ) from None
        rt = ms_value(path, row["rt"], row=n, column="rt")
        elapsed = ms_value(path, row["time_elapsed"], row=n, column="time_elapsed")
        onset = elapsed - end_delay - rt
        if onset < last_ms - 1e-6:
            raise fault(
                path,
                f"the trial would begin ({onset:g} ms) before the previous one ended "
                f"({last_ms:g} ms) with end_delay {end_delay:g} ms",
                "pass the trials' "
                "end_delay with --end-delay MS (or save it with save_trial_parameters)",
                row=n,
                column="time_elapsed",
                value=row["time_elapsed"],
            )
        stated = text_cell(source, row, "optimal_moves", n=n)
        stated_min = (
            int_value(path, stated, row=n, column="optimal_moves")
            if stated not in ("", "null")
            else None
        )
        problem_id = (
            text_cell(source, row, "problem_id", n=n)
            or text_cell(source, row, "trial_index", n=n)
            or str(k)
        )
        minimum = b.onset(
            onset,
            puzzle=puzzle,
            start=letters.text(start),
            goal=letters.text(goal),
            block=text_cell(source, row, "block", n=n) or "test",
            problem_id=problem_id,
            row=n,
            column="start_state",
            stated_min=stated_min,
            stated_column="optimal_moves",
        )
        moves = _json(source, row["moves"], row=n, column="moves", what="a list of moves")
        if not isinstance(moves, list):
            raise fault(
                path, "expected a list of moves", FIX, row=n, column="moves", value=row["moves"]
            )
        prev = 0.0
        last_move = onset
        for m in moves:
            if type(m) is dict or isinstance(m, dict):
                a, z, ms, ball = m.get("from"), m.get("to"), m.get("time"), m.get("ball")
                ok = (
                    type(a) is int  # not a bool (True == 1) or a float (1.0 == 1)
                    and type(z) is int
                    and a in _PEGS
                    and z in _PEGS
                    and isinstance(ms, (int, float))
                    and math.isfinite(ms)
                    and ms >= prev
                )
            else:
                ok = False
            if not ok:
                raise fault(
                    path,
                    "expected a move {from: 0-2, to: 0-2, ball, time: ms, not "
                    "before the previous move}",
                    FIX,
                    row=n,
                    column="moves",
                    value=m,
                )
            prev = ms
            last_move = onset + ms
            if ball is None:
                piece = None
            else:
                piece = of.get(ball) if type(ball) is str else None
                if piece is None:
                    piece = letter(str(ball))
            place(last_move, a, z, row=n, column="moves", value=m, piece=piece)
        final = row.get("final_state", "")
        if final not in ("", "null"):
            final_text = letters.text(_state(source, final, row=n, column="final_state"))
            if final_text != b.state:
                raise fault(
                    path,
                    f"the moves lead to {b.state}, not to this final state ({final_text})",
                    FIX,
                    row=n,
                    column="final_state",
                    value=final,
                )
        solved_text = text_cell(source, row, "solved", n=n).lower()
        solved = b.state == b.goal
        if solved_text in ("true", "false") and (solved_text == "true") != solved:
            raise fault(
                path,
                f"the trial says solved={solved_text}, but its moves lead to "
                f"{b.state} and the goal is {b.goal}",
                FIX,
                row=n,
                column="solved",
                value=row.get("solved"),
            )
        end = onset + rt
        reason = None
        if solved:
            b.solved(last_move, row=n)
            _check_optimal(b, row, n, len(moves), minimum, stated_min)
        elif time_limit is not None and rt >= time_limit - 1:
            b.time_out(onset + time_limit, time_limit / 1000, row=n)
        elif max_moves is not None and len(moves) >= max_moves:
            b.move_limit(last_move, max_moves, row=n)
        else:
            reason = "gave_up"  # ended unsolved within its limits: the done button
        detail = {"source_rt_ms": row["rt"], "source_num_moves": row.get("num_moves", "")}
        if row.get("optimal", "") not in ("", "null"):
            detail["source_optimal"] = row["optimal"]
        b.end_trial(max(end, b.last_ms), reason, row=n, detail=detail)
        last_ms = b.last_ms
    warnings = []
    if defaults_used:
        used = ", ".join(f"{c}={_show(DEFAULTS[c])}" for c in sorted(defaults_used))
        flags = ", ".join(ImportOptions.flag(OPTION_OF[c]) for c in sorted(defaults_used))
        warnings.append(
            f"{source.name}: participant {group.participant}: the trials do not save {used}; "
            f"the plugin's defaults were used (if the experiment set them, pass {flags}, or "
            "save them with save_trial_parameters)"
        )
    session = b.finish(
        last_ms,
        rows=(source.numbers[group.indices[0]], source.numbers[group.indices[-1]]),
        complete=True,
        meta={
            "format_title": TITLE,
            "apparatus": {
                "pieces": dict(letters.of),
                "settings": {k: sorted(v) for k, v in settings_basis.items()},
                "defaults_used": {c: _show(DEFAULTS[c]) for c in sorted(defaults_used)},
                "basis": "saved: a column of the data (save_trial_parameters); "
                "option: tol-import's option; default: the plugin's default",
            },
            "times": TIMES,
            "definitions": DEFINITIONS,
            "status_basis": "jsPsych data have no end marker: the session is taken as completed "
            "with the trials the file holds",
        },
        unavailable=UNAVAILABLE,
    )
    session.warnings.extend(warnings)
    return session


def _show(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return "-".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _capacities(source: Source, text: str, n: int) -> tuple[int, ...]:
    value = _json(source, text, row=n, column="peg_capacities", what="three capacities")
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(c, int) and c >= 1 for c in value)
    ):
        raise fault(
            source.path,
            "expected three whole numbers of 1 or more",
            FIX,
            row=n,
            column="peg_capacities",
            value=text,
        )
    return tuple(value)


def _check_optimal(
    b: SessionBuilder, row: dict, n: int, moves: int, minimum: int, stated_min: int | None
) -> None:
    """The plugin's optimal flag, against the solver (when optimal_moves was not saved)."""
    flag = text_cell(b.source, row, "optimal", n=n).lower()
    if stated_min is not None or flag not in ("true", "false"):
        return
    said = flag == "true"
    if said == (moves == minimum):
        return
    why = (
        (
            f"the plugin calls this {moves}-move solution optimal, so the optimal_moves typed "
            f"for it was {moves} or more; the fewest possible is {minimum}"
        )
        if said
        else (
            f"the plugin calls this {moves}-move solution not optimal, so the optimal_moves typed "
            f"for it was below {moves}, the fewest possible"
        )
    )
    b.note_disagreement(row=n, column="optimal", source_optimal=said, text=why)


FORMAT = Format(
    name=NAME,
    title=TITLE,
    signature=("moves", "start_state", "goal_state"),
    required=REQUIRED,
    options=frozenset(
        {
            "participant",
            "session",
            "participant_column",
            "session_column",
            "capacities",
            "time_limit",
            "move_limit",
            "end_delay",
        }
    ),
    read=read,
    doc="docs/import/jspsych-tol.md",
    groups=groups,
    session=_session,
    streams=True,
    index_columns=("trial_type", "moves", CLOCK),
)

"""The rows of a trial, built in one place for the runner and the importers.

Every event of a problem attempt or a yoked copy trial (its onset, each
pick-up, drop and placement, a refusal, the limits, its end) becomes an
event-log row here: the trial state machines of ``session_data.trial`` (which the
runner, the simulated participant and the browser task's port follow) and
``tol_tasks.importers.SessionBuilder`` (every importer) call these
functions, so that a row means the same whatever recorded it.

Each function returns the trial's part of a row: ``event``, ``state`` (the
configuration after the event, as text), ``moves`` (the count after it) and
the event's own columns, pegs given as indices (0 is ``A``) and written as
letters. An optional column left None is not in the row. The caller adds who,
when and how it was stamped (``participant``, ``time``, ``trial_time``,
``stamp``, ``input``, ``x``, ``y``) and the trial's columns (``block``,
``trial``, ``attempt``, ``problem_id``, ``copy_of``). The pieces are passed
through as given (the runner's piece objects, an importer's texts).

>>> place_row("|BG|R", 1, "R", 0, 2)
{'event': 'place', 'state': '|BG|R', 'moves': 1, 'piece': 'R', 'from_peg': 'A', 'to_peg': 'C'}
>>> time_out_row("|BG|R", 4, 30.0)["detail"]
'limit=30'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tol_tasks.config import PEG_LETTERS

from .detail import format_detail

Detail = Mapping[str, Any] | str | None
"""A ``detail`` cell: its pairs (formatted by ``detail.format_detail``) or its text."""


def _with_detail(row: dict[str, Any], detail: Detail) -> dict[str, Any]:
    if detail:
        row["detail"] = detail if isinstance(detail, str) else format_detail(detail)
    return row


def moves_text(moves: list[tuple[int, int]]) -> str:
    """Moves as the ``detail`` column writes them: ``A>C,A>B`` (from peg > to peg)."""
    return ",".join(f"{PEG_LETTERS[a]}>{PEG_LETTERS[b]}" for a, b in moves)


def onset_row(start, goal, puzzle: str, detail: Detail = None, *, copy: bool = False) -> dict:
    """The opening row of a problem attempt (``trial_onset``) or of a copy trial
    (``copy_onset``, ``copy`` true): the start, the goal, the puzzle's code."""
    row = {"event": "copy_onset" if copy else "trial_onset", "state": str(start), "goal": str(goal),
           "puzzle": puzzle, "moves": 0}  # fmt: skip
    return _with_detail(row, detail)


def end_row(state, moves: int, reason: str | None, detail: Detail = None, *,
            copy: bool = False) -> dict:  # fmt: skip
    """The closing row of a problem attempt (``trial_end``) or of a copy trial
    (``copy_end``): why it ended and where the board stands."""
    row = {"event": "copy_end" if copy else "trial_end", "state": str(state), "moves": moves,
           "reason": reason}  # fmt: skip
    return _with_detail(row, detail)


def pick_up_row(state, moves: int, piece, peg: int) -> dict:
    """The participant took ``piece``, the top piece of ``peg``."""
    return {"event": "pick_up", "state": str(state), "moves": moves, "piece": piece,
            "from_peg": PEG_LETTERS[peg]}  # fmt: skip


def empty_pick_row(state, moves: int, peg: int) -> dict:
    """The participant tried to take a piece from ``peg``, which is empty."""
    return {"event": "empty_pick", "state": str(state), "moves": moves,
            "from_peg": PEG_LETTERS[peg]}  # fmt: skip


def cancel_row(state, moves: int, piece, peg: int) -> dict:
    """The held piece, taken from ``peg``, was let go away from every peg (it goes back)."""
    return {"event": "cancel", "state": str(state), "moves": moves, "piece": piece,
            "from_peg": PEG_LETTERS[peg]}  # fmt: skip


def place_row(state, moves: int, piece, src: int, dst: int) -> dict:
    """A completed move of ``piece`` from peg ``src`` onto peg ``dst`` (``state`` after it)."""
    return {"event": "place", "state": str(state), "moves": moves, "piece": piece,
            "from_peg": PEG_LETTERS[src], "to_peg": PEG_LETTERS[dst]}  # fmt: skip


def same_peg_drop_row(state, moves: int, piece, peg: int | None, detail: Detail = None) -> dict:
    """The piece went back on the peg it came from (``peg`` and ``piece`` None: a source
    that does not say which)."""
    letter = None if peg is None else PEG_LETTERS[peg]
    row = {"event": "same_peg_drop", "state": str(state), "moves": moves}
    if piece is not None:
        row["piece"] = piece
    if letter is not None:
        row["from_peg"] = row["to_peg"] = letter
    return _with_detail(row, detail)


def illegal_row(state, moves: int, piece, src: int, dst: int, reason: str) -> dict:
    """A placement the rules refuse (``reason``: the rule, ``IllegalMoveError.rule``)."""
    return {"event": "illegal", "state": str(state), "moves": moves, "piece": piece,
            "from_peg": PEG_LETTERS[src], "to_peg": PEG_LETTERS[dst], "reason": reason}  # fmt: skip


def copy_refused_row(state, moves: int, piece, src: int, dst: int | None, reason: str,
                     shown: tuple[int, int]) -> dict:  # fmt: skip
    """In a copy trial, a pick-up (``dst`` None, ``reason`` ``wrong_piece``) or a drop
    (``wrong_peg``) other than the move ``shown``, (from peg, to peg)."""
    row = {"event": "copy_refused", "state": str(state), "moves": moves, "piece": piece,
           "from_peg": PEG_LETTERS[src]}  # fmt: skip
    if dst is not None:
        row["to_peg"] = PEG_LETTERS[dst]
    row["reason"] = reason
    row["detail"] = format_detail(shown=moves_text([shown]))
    return row


def copy_cue_row(state, moves: int, piece, shown: tuple[int, int]) -> dict:
    """In a copy trial, the move ``shown`` (from peg, to peg) came on screen."""
    return {"event": "copy_cue", "state": str(state), "moves": moves, "piece": piece,
            "from_peg": PEG_LETTERS[shown[0]], "to_peg": PEG_LETTERS[shown[1]]}  # fmt: skip


def copy_done_row(state, moves: int) -> dict:
    """In a copy trial, the last move shown was made."""
    return {"event": "copy_done", "state": str(state), "moves": moves}


def solved_row(state, moves: int) -> dict:
    """The board reached the goal."""
    return {"event": "solved", "state": str(state), "moves": moves}


def move_limit_row(state, moves: int, limit: int) -> dict:
    """The attempt reached its move limit, ``limit`` moves."""
    return {"event": "move_limit", "state": str(state), "moves": moves,
            "detail": format_detail(limit=limit)}  # fmt: skip


def time_out_row(state, moves: int, limit_s: float | None) -> dict:
    """The attempt ran out of time; ``limit_s``, its time limit in seconds (None: a source
    that does not say), goes into ``detail``."""
    row = {"event": "time_out", "state": str(state), "moves": moves}
    if limit_s is not None:
        row["detail"] = format_detail(limit=f"{limit_s:g}")
    return row


__all__ = [
    "cancel_row",
    "copy_cue_row",
    "copy_done_row",
    "copy_refused_row",
    "empty_pick_row",
    "end_row",
    "illegal_row",
    "move_limit_row",
    "moves_text",
    "onset_row",
    "pick_up_row",
    "place_row",
    "same_peg_drop_row",
    "solved_row",
    "time_out_row",
]


def in_time_order(row: dict, after: float, now: float) -> dict:
    """``row`` as a recorder writes it at ``now``, after a last row of time ``after``.

    A log's times never go backwards. A row whose own time is before the last row's
    (on a loaded machine: a press that came before a flip whose row is already written,
    read only after it; the quit key pressed as a problem appeared) is written when it
    was written (``now``, stamp ``clock``, its ``trial_time`` moved by as much), its own
    time and stamp kept in ``detail`` (``at``, ``at_stamp``), as a scanner trigger is.
    Any other row is returned as it is.

    >>> in_time_order({"event": "abort", "time": 12.5, "stamp": "arrival"}, 12.0, 12.6)
    {'event': 'abort', 'time': 12.5, 'stamp': 'arrival'}
    >>> late = in_time_order({"event": "pick_up", "time": 11.99, "trial_time": 1.99,
    ...                       "stamp": "arrival"}, 12.0, 12.02)
    >>> late["time"], round(late["trial_time"], 2), late["stamp"], late["detail"]
    (12.02, 2.02, 'clock', 'at=11.990000;at_stamp=arrival')
    """
    own = row.get("time")
    if own is None or own >= after:
        return row
    out = {**row, "time": now, "stamp": "clock"}
    if row.get("trial_time") is not None:
        out["trial_time"] = row["trial_time"] + (now - own)
    held = format_detail(at=f"{own:.6f}", at_stamp=row.get("stamp"))
    out["detail"] = f"{row['detail']};{held}" if row.get("detail") else held
    return out

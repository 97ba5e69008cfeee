"""Building one participant session's event log from a foreign file's rows.

:class:`SessionBuilder` is the one place where imported events are made: every
importer calls it with the source's times (milliseconds on the source's own
clock, which becomes the session clock) and the pegs of each action, and it

- keeps each trial's configuration and checks every placement against the
  puzzle's rules (:meth:`Puzzle.check_move`), so a position that does not
  follow from a legal move is an error naming the file, the row, the column
  and the value, before anything is written;
- writes the rows in the event log's columns (the current format), each built by
  :mod:`tol_tasks.session_data.trial_rows`, the code the runner's trials use, with
  ``trial_time`` from the trial's onset, ``moves`` as completed moves so far, and
  ``stamp`` ``clock`` (the source program read its clock when it acted; which clock
  and its resolution are in the sidecar);
- compares a minimum the source states with the solver's and keeps each
  disagreement for the sidecar and the trial's onset row (never replacing
  the solver's value);
- collects the sidecar's ``import`` section.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tol_tasks.config import PEG_LETTERS
from tol_tasks.errors import IllegalMoveError, TolTasksError
from tol_tasks.puzzles import Puzzle, from_code
from tol_tasks.session_data import trial_rows as rows
from tol_tasks.session_data.detail import format_detail

from .source import ImportSourceError, Source, fault

#: ``stamp`` of every imported row: the source program read its clock when it acted.
STAMP = "clock"

#: The block name of practice problems (as tol-tasks' own sessions and tol-score use it).
PRACTICE = "practice"


@dataclass(frozen=True)
class Unavailable:
    """A measure the source cannot give, why, and what the scores then mean."""

    measure: str
    why: str
    effect: str

    def as_dict(self) -> dict[str, str]:
        return {"measure": self.measure, "why": self.why, "effect": self.effect}


@dataclass
class _Trial:
    puzzle: Puzzle
    trial: int
    attempt: int
    block: str
    problem_id: str
    onset_ms: float
    start: str
    goal: str
    state: str = ""
    moves: int = 0
    ended: bool = False
    outcome: str | None = None
    code: str = ""  # the puzzle's code, asked once
    head: dict[str, Any] = field(default_factory=dict)  # who and which trial, every row's


@dataclass
class ImportedSession:
    """One participant session, ready to be written.

    Attributes
    ----------
    participant : str
        As the source names them.
    session : int
    format : str
        The importer's name (``expfactory-tol``, ...).
    source : Source
    rows : list of dict
        Event-log rows (column -> value), in order, without row numbers.
    meta : dict
        The sidecar's ``import`` section.
    complete : bool
        Whether the source shows the session ended (then a ``session_end`` row closes it).
    trials : int
        Problem attempts in it.
    warnings : list of str
        For the person importing (a stated minimum the solver disagrees with, a
        default used for a setting the source does not record).
    """

    participant: str
    session: int
    format: str
    source: Source
    rows: list[dict[str, Any]]
    meta: dict[str, Any]
    complete: bool
    trials: int
    warnings: list[str] = field(default_factory=list)
    start_time: str | None = None
    end_time: str | None = None


class SessionBuilder:
    """Events of one participant session, checked as they are added.

    Parameters
    ----------
    source : Source
    fmt : str
        The importer's name, for the log's ``session_start`` row and the sidecar.
    participant : str
    session : int
    """

    def __init__(self, source: Source, fmt: str, participant: str, session: int) -> None:
        self.source = source
        self.fmt = fmt
        self.participant = participant
        self.session = session
        self.rows: list[dict[str, Any]] = []
        self.trial: _Trial | None = None
        self.n_trials = 0
        self.test_trials = 0
        self.last_ms = 0.0
        self.disagreements: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        # Every row's who and how (the open trial's rows add its columns), made once.
        self._head = {"participant": participant, "session": session, "stamp": STAMP}
        self._emit(
            {
                "event": "session_start",
                "detail": format_detail(format=fmt, source=source.name, sha256=source.sha256),
            },
            0.0,
        )

    # ------------------------------------------------------------ internals
    def _emit(
        self, event: dict[str, Any], ms: float, *, row: int | None = None, mouse: bool = False
    ) -> None:
        """Log ``event`` (a row of :mod:`~tol_tasks.session_data.trial_rows` in a trial: the
        runner's code) at ``ms`` with who, when, how stamped, and the open trial's columns."""
        if ms < self.last_ms - 1e-9:
            raise fault(
                self.source.path,
                f"the time goes back ({ms:g} ms after {self.last_ms:g} ms "
                "on the same session clock)",
                "give the rows in the order the tool wrote them",
                row=row,
            )
        self.last_ms = ms
        t = self.trial
        if t is not None and not t.ended:
            out = {**t.head, "time": ms / 1000.0, "trial_time": (ms - t.onset_ms) / 1000.0,
                   **event}  # fmt: skip
        else:
            out = {**self._head, "time": ms / 1000.0, **event}
        if mouse:
            out["input"] = "mouse"
        self.rows.append(out)

    def _open(self) -> _Trial:
        if self.trial is None or self.trial.ended:
            raise RuntimeError("no open trial")  # an importer's bug, not the data's
        return self.trial

    def distance(self, puzzle: Puzzle, start: str, goal: str) -> int:
        return _fewest(puzzle.code, start, goal)

    # -------------------------------------------------------------- events
    def onset(
        self,
        ms: float,
        *,
        puzzle: Puzzle,
        start: str,
        goal: str,
        block: str,
        problem_id: str,
        attempt: int = 1,
        row: int,
        column: str,
        stated_min: int | None = None,
        stated_column: str | None = None,
        stated_at: tuple[str, int] | None = None,
        detail: dict[str, Any] | None = None,
    ) -> int:
        """Open a problem attempt (closing nothing: end the previous one first).

        ``start`` and ``goal`` are texts of ``puzzle``'s notation; ``column``
        names the source column they came from (for the error if they are not
        legal states or the goal cannot be reached). ``stated_min``: the
        minimum the source states, compared with the solver's (``stated_at``: the file
        and row it comes from, when not this row).

        Returns the solver's minimum number of moves.
        """
        code = puzzle.code
        try:
            start = _canonical(code, start)
            goal = _canonical(code, goal)
            minimum = _fewest(code, start, goal)
        except TolTasksError as exc:
            raise fault(
                self.source.path,
                str(exc).rstrip("."),
                "restore the file from the tool's own output",
                row=row,
                column=column,
                value=f"{start} -> {goal}",
            ) from None
        if self.trial is not None and not self.trial.ended:
            raise RuntimeError("a trial is still open")
        self.n_trials += 1
        if block != PRACTICE:
            self.test_trials += 1
        extra = dict(detail or {})
        if stated_min is not None:
            extra["source_min_moves"] = stated_min
            known = {(d["block"], d["problem_id"]) for d in self.disagreements}
            if stated_min != minimum and (block, problem_id) not in known:
                file, line = stated_at or (self.source.name, row)
                self.disagreements.append(
                    {
                        "trial": self.n_trials,
                        "block": block,
                        "problem_id": problem_id,
                        "file": file,
                        "row": line,
                        "column": stated_column,
                        "start": start,
                        "goal": goal,
                        "source_min_moves": stated_min,
                        "min_moves": minimum,
                    }
                )
                self.warnings.append(
                    f"{file}: row {line}: participant {self.participant}, problem {problem_id}: "
                    f"column {stated_column!r} states {stated_min} as the fewest moves, the "
                    f"solver finds {minimum}; the scores use {minimum} and the sidecar lists "
                    "the disagreement"
                )
        head = {**self._head, "block": block, "trial": self.n_trials, "attempt": attempt,
                "problem_id": problem_id}  # fmt: skip
        self.trial = _Trial(puzzle, self.n_trials, attempt, block, problem_id, ms, start, goal,
                            state=start, code=code, head=head)  # fmt: skip
        self._emit(rows.onset_row(start, goal, code, extra), ms, row=row)
        return minimum

    def note_disagreement(self, *, row: int, column: str, text: str, **fields: Any) -> None:
        """A source's claim about the open trial's minimum that the solver contradicts."""
        t = self._open()
        self.disagreements.append(
            {
                "trial": t.trial,
                "block": t.block,
                "problem_id": t.problem_id,
                "file": self.source.name,
                "row": row,
                "column": column,
                "start": t.start,
                "goal": t.goal,
                **fields,
                "min_moves": self.distance(t.puzzle, t.start, t.goal),
                "note": text,
            }
        )
        self.warnings.append(
            f"{self.source.name}: row {row}: participant {self.participant}, "
            f"problem {t.problem_id}: {text}"
        )

    @property
    def state(self) -> str:
        """The open trial's configuration."""
        return self._open().state

    @property
    def goal(self) -> str:
        return self._open().goal

    @property
    def puzzle(self) -> Puzzle:
        return self._open().puzzle

    def top(self, peg: int) -> str | None:
        """The piece on top of ``peg`` now (None if empty)."""
        t = self._open()
        return _tops(t.code, t.state)[peg]

    def pick_up(self, ms: float, peg: int, *, row: int, column: str, value) -> str:
        """The participant took the top piece of ``peg``; returns the piece."""
        t = self._open()
        piece = _tops(t.code, t.state)[peg]
        if piece is None:
            raise fault(
                self.source.path,
                f"a piece is taken from peg {PEG_LETTERS[peg]}, which is empty in {self.state}",
                "restore the file from the tool's own output",
                row=row,
                column=column,
                value=value,
            )
        self._emit(rows.pick_up_row(t.state, t.moves, piece, peg), ms, row=row, mouse=True)
        return piece

    def place(
        self,
        ms: float,
        a: int,
        b: int,
        *,
        row: int,
        column: str,
        value,
        expected: str | None = None,
        piece: str | None = None,
    ) -> str:
        """A completed move of the top piece of peg ``a`` onto peg ``b``; returns the new state.

        ``expected``: the configuration the source says followed (checked);
        ``piece``: the piece the source says moved (checked).
        """
        t = self.trial
        if t is None or t.ended:
            raise RuntimeError("no open trial")  # an importer's bug, not the data's
        hit = _step(t.code, t.state, a, b)
        if type(hit) is str:
            raise fault(
                self.source.path,
                f"moving the top piece of peg {PEG_LETTERS[a]} onto peg {PEG_LETTERS[b]} "
                f"is not a legal move from {t.state}: {hit}",
                "restore the file from the tool's own output (a position that does not "
                "follow from a legal move cannot be scored)",
                row=row,
                column=column,
                value=value,
            )
        after, moved = hit
        if piece is not None and piece != moved:
            raise fault(
                self.source.path,
                f"the source moves piece {piece} from peg "
                f"{PEG_LETTERS[a]}, but the top piece there is {moved} in {t.state}",
                "restore the file from the tool's own output",
                row=row,
                column=column,
                value=value,
            )
        if expected is not None and expected != after:
            raise fault(
                self.source.path,
                f"this position ({expected}) does not follow from "
                f"{t.state} by moving peg {PEG_LETTERS[a]} onto peg {PEG_LETTERS[b]}, "
                f"which gives {after}",
                "restore the file from the tool's own output",
                row=row,
                column=column,
                value=value,
            )
        t.state = after
        t.moves += 1
        self._emit(rows.place_row(after, t.moves, moved, a, b), ms, row=row, mouse=True)
        return after

    def move_to(self, ms: float, new_state: str, *, row: int, column: str, value) -> str | None:
        """A step to ``new_state`` (a source that logs positions, not moves): the one legal
        move that leads there, placed; returns the move's pegs as ``"AB"``, or None when the
        position did not change.

        Raises the error naming the row when no legal move leads there.
        """
        t = self._open()
        if new_state == t.state:
            return None
        found = _between(t.code, t.state, new_state)
        if found is None:
            raise fault(
                self.source.path,
                f"this position ({new_state}) does not follow from {t.state} by one legal move",
                "restore the file from the tool's own "
                "output (a position that does not follow from a legal move cannot be scored)",
                row=row,
                column=column,
                value=value,
            )
        self.place(ms, *found, row=row, column=column, value=value)
        return PEG_LETTERS[found[0]] + PEG_LETTERS[found[1]]

    def same_peg_drop(
        self, ms: float, peg: int | None = None, *, row: int, detail: dict[str, Any] | None = None
    ) -> None:
        """The piece went back on the peg it came from (``peg`` None: the source does not
        say which)."""
        t = self._open()
        piece = _tops(t.code, t.state)[peg] if peg is not None else None
        event = rows.same_peg_drop_row(t.state, t.moves, piece, peg, detail)
        self._emit(event, ms, row=row, mouse=True)

    def solved(self, ms: float, *, row: int) -> None:
        t = self._open()
        if t.state != t.goal:
            raise RuntimeError("solved called off the goal")
        t.outcome = "solved"
        self._emit(rows.solved_row(t.state, t.moves), ms, row=row)

    def time_out(self, ms: float, limit_s: float | None, *, row: int) -> None:
        t = self._open()
        t.outcome = "time_out"
        self._emit(rows.time_out_row(t.state, t.moves, limit_s), ms, row=row)

    def move_limit(self, ms: float, limit: int, *, row: int) -> None:
        t = self._open()
        t.outcome = "move_limit"
        self._emit(rows.move_limit_row(t.state, t.moves, limit), ms, row=row)

    def end_trial(
        self,
        ms: float,
        reason: str | None = None,
        *,
        row: int,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Close the open attempt; ``reason`` defaults to its outcome (solved, time_out,
        move_limit)."""
        t = self._open()
        if reason is None:
            reason = t.outcome or ("solved" if t.state == t.goal else "unsolved")
        self._emit(rows.end_row(t.state, t.moves, reason, detail), ms, row=row)
        t.ended = True

    @property
    def open(self) -> bool:
        """Whether a problem attempt is open."""
        return self.trial is not None and not self.trial.ended

    def finish(
        self,
        ms: float | None,
        *,
        complete: bool,
        meta: dict[str, Any],
        unavailable: Iterable[Unavailable],
        rows: tuple[int, int],
        stage: tuple[str, str] | None = None,
        start_time: str | None = None,
        end_time: str | None = None,
    ) -> ImportedSession:
        """The session: a ``session_end`` row when the source shows it ended (``complete``).

        ``rows``: the first and last source rows of the session (for the error when it
        has no test trials); ``stage``: the column and value that mark test trials in
        the source, if it marks them.

        Raises
        ------
        ImportSourceError
            When the session has no test trial (practice only, or nothing).
        """
        if self.test_trials == 0:
            what = "no problem attempts"
            column = value = None
            if stage is not None and self.n_trials:
                what = "practice only, no test trials"
                column, value = stage[0], f"never {stage[1]!r}"
            raise fault(
                self.source.path,
                f"participant {self.participant!r} session {self.session} (rows "
                f"{rows[0]}-{rows[1]}) has {what}, so nothing can be scored",
                "give the file with this participant's test trials, or leave them out with "
                "--skip-bad",
                column=column,
                value=value,
            )
        if complete:
            if self.open:
                raise RuntimeError("an attempt is still open at the end of a complete session")
            self._emit(
                {"event": "session_end", "reason": "completed"}, max(ms or 0.0, self.last_ms)
            )
        section = {
            "source_path": str(self.source.path),
            "source_participant": self.participant,
            **meta,
            "unavailable": _as_dicts(tuple(unavailable)),
            "min_moves_disagreements": self.disagreements,
        }
        return ImportedSession(
            participant=self.participant,
            session=self.session,
            format=self.fmt,
            source=self.source,
            rows=self.rows,
            meta=section,
            complete=complete,
            trials=self.n_trials,
            warnings=self.warnings,
            start_time=start_time,
            end_time=end_time,
        )


@lru_cache(maxsize=64)
def _as_dicts(unavailable: tuple[Unavailable, ...]) -> list[dict[str, str]]:
    """The sidecar's ``import.unavailable``: one list per format's measures, shared by its
    sessions (as their other constants are), its text made once (importers.sidecars)."""
    return [u.as_dict() for u in unavailable]


# The puzzle questions of importing, asked by puzzle code and state text and cached across
# sessions (a file of many participants asks the same ones again and again).
@lru_cache(maxsize=1 << 14)
def _canonical(code: str, text: str) -> str:
    return str(from_code(code).parse(text))


@lru_cache(maxsize=1 << 14)
def _fewest(code: str, start: str, goal: str) -> int:
    return from_code(code).distance(start, goal)


@lru_cache(maxsize=1 << 16)
def _tops(code: str, state: str) -> tuple[str | None, ...]:
    return tuple(str(col[-1]) if col else None for col in from_code(code).pegs_of(state))


@lru_cache(maxsize=1 << 16)
def _step(code: str, state: str, a: int, b: int) -> tuple[str, str] | str:
    """(the state after, the piece moved), or why the move is illegal."""
    puzzle = from_code(code)
    try:
        move = puzzle.check_move(state, a, b)
    except IllegalMoveError as exc:
        return str(exc).rstrip(".")
    return str(puzzle.apply(state, move)), str(move.piece)


@lru_cache(maxsize=1 << 16)
def _between(code: str, state: str, new: str) -> tuple[int, int] | None:
    """(source, target) of the one legal move from ``state`` to ``new``, or None."""
    puzzle = from_code(code)
    for m in puzzle.legal_moves(state):
        if str(puzzle.apply(state, m)) == new:
            return m.source, m.target
    return None


def ms_value(path, text: str, *, row: int, column: str, allow_negative: bool = False) -> float:
    """A number of milliseconds from a cell, or the error naming the cell."""
    try:
        value = float(text)
    except (ValueError, TypeError):  # TypeError: a JSON source's list or object
        value = math.nan
    if not math.isfinite(value) or (value < 0 and not allow_negative):
        raise fault(
            path,
            "expected a number of milliseconds of 0 or more",
            "restore the file from the tool's own output",
            row=row,
            column=column,
            value=text,
        )
    return value


def int_value(path, text: str, *, row: int, column: str, most: int | None = None) -> int:
    """A whole number from a cell (``"3"`` or ``"3.0"``; given ``most``, from 1 to ``most``),
    or the error naming the cell."""
    try:
        value = float(text)
    except (ValueError, TypeError):  # TypeError: a JSON source's list or object
        value = math.nan
    if not math.isfinite(value) or value != int(value) or (most and not 1 <= value <= most):
        raise fault(
            path,
            "expected a whole number" + (f" from 1 to {most}" if most else ""),
            "restore the file from the tool's own output",
            row=row,
            column=column,
            value=text,
        )
    return int(value)


__all__ = [
    "STAMP",
    "ImportSourceError",
    "ImportedSession",
    "SessionBuilder",
    "Unavailable",
    "int_value",
    "ms_value",
]

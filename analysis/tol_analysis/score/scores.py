"""Scoring: every move measured against the exact distance to the goal.

:func:`score_sessions` reads each log once, walks it into attempts (the one
walker, :func:`tol_tasks.session_data.attempts.attempt_spans`), replays every
trial from its logged start checking that every logged configuration follows
from a legal move (a log that disagrees is an error naming the file and the
row, never a silently wrong score), and returns tidy tables whose columns are
declared in :mod:`tol_analysis.columns`.

The work is split by job: :mod:`~tol_analysis.score.replay` (states, moves and
distances as integer tables), :mod:`~tol_analysis.score.moves` (per-move measures),
:mod:`~tol_analysis.score.trials` (per-attempt measures), :mod:`~tol_analysis.score.yoked`
(yoked copy trials and thinking times), :mod:`~tol_analysis.score.sessions`
(session summaries) and :mod:`~tol_analysis.score.tables` (typed DataFrames).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, closing
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tol_analysis.columns import COPY_MOVES, MOVES, TRIALS, UNRECORDED, WIDE_TRIALS
from tol_analysis.conventions import Conventions
from tol_analysis.read.logs import SessionLog, give_memory_back
from tol_analysis.read.logview import LogView, last_in_group
from tol_analysis.read.spill import Records, Sidecars
from tol_analysis.score.builder import SpilledTable, TableBuilder
from tol_analysis.score.csvfile import TableWriter
from tol_analysis.score.replay import Replays
from tol_analysis.score.sessions import (
    SESSION_TRIALS,
    session_info,
    summarize_sessions,
    write_sessions,
)
from tol_analysis.score.tables import TableData
from tol_analysis.score.trials import problem_attempts
from tol_analysis.score.yoked import copy_trials, empty_copy_columns
from tol_tasks.session_data import gc_paused
from tol_tasks.session_data.attempts import Coded
from tol_tasks.session_data.eventlog import EventLogError

if TYPE_CHECKING:
    import pandas as pd


#: Logs are scored together up to this many rows: the work is done over whole columns
#: of many logs at once (small sessions cost little more than their rows).
BATCH_ROWS = 1 << 18

#: At most this many logs are scored together, however short they are: each log read
#: holds its sidecar (a validated model, about 20 KB) until its batch is scored, so that a
#: batch of a few thousand one-trial logs would otherwise hold hundreds of MB. Scoring
#: 10,000 one-trial sessions peaked at 257 MB with batches of 1,024 logs, 219 with 512 and
#: 204 with 256, in the same CPU time (benchmarks/README.md); small sessions' batches are
#: bound by BATCH_ROWS first.
BATCH_LOGS = 256


class Scores:
    """The tables and the conventions they were computed under.

    Each table is a pandas DataFrame, made when first asked for (writing the
    tables as CSV files needs no DataFrame: :meth:`table`).

    Attributes
    ----------
    moves : DataFrame
        One row per completed move; columns of :data:`tol_analysis.columns.MOVES`.
    trials : DataFrame
        One row per problem attempt; :data:`tol_analysis.columns.TRIALS`.
    sessions : DataFrame
        One row per participant session; :data:`tol_analysis.columns.SESSIONS`
        followed by per-level columns (``min{k}_*``, :data:`~tol_analysis.columns.SESSION_LEVELS`).
    copy_moves : DataFrame
        One row per move carried out in a yoked copy trial;
        :data:`tol_analysis.columns.COPY_MOVES` (empty without copy trials).
    conventions : Conventions
    warnings : list of str
        Recoverable faults found while reading (torn last lines, ...).
    sidecars : Mapping
        Each session's sidecar model (or None), by (participant, session, protocol): the
        protocol text, software and timing that exports and reports describe
        (:class:`~tol_analysis.read.spill.Sidecars`: read from disk when asked for).
    """

    #: The tables, by name.
    NAMES = ("moves", "trials", "sessions", "copy_moves")

    def __init__(self, tables: dict[str, TableData], conventions: Conventions,
                 warnings: list[str] | None = None, sidecars: Mapping | None = None,
                 written: Mapping[str, Path] | None = None) -> None:  # fmt: skip
        self._tables = dict(tables)
        self._frames: dict[str, pd.DataFrame] = {}
        self.conventions = conventions
        self.warnings = list(warnings or [])
        self.sidecars = sidecars if sidecars is not None else {}
        #: The tables written to CSV files as they were scored (``write_to``), by name: of
        #: these only the columns other tables are made from are kept.
        self.written: dict[str, Path] = dict(written or {})

    def table(self, name: str) -> TableData | SpilledTable:
        """Table ``name`` as columns (see :class:`tol_analysis.score.tables.TableData`); of a
        table in :attr:`written`, the columns kept (of the trials, a
        :class:`~tol_analysis.score.builder.SpilledTable`: they wait in a temporary file and are
        read back a range of rows at a time)."""
        got = self._tables.get(name)
        return got if got is not None else TableData.from_frame(self._frames[name])

    def frame(self, name: str) -> pd.DataFrame:
        """Table ``name`` as a DataFrame (made once; the columns are then let go).

        Raises
        ------
        ValueError
            For a table written to its file as it was scored (:attr:`written`).
        """
        if name in self.written:
            raise ValueError(
                f"the {name} table was written to {self.written[name]} as it was scored and "
                f"is not kept in memory. Suggested fix: read it from that file "
                f"(pandas.read_csv), or score without write_to."
            )
        df = self._frames.get(name)
        if df is None:
            df = self._frames[name] = self._tables.pop(name).frame(consume=True)
        return df

    def rows(self, name: str) -> int:
        return len(self._tables[name]) if name in self._tables else len(self._frames[name])

    @property
    def moves(self) -> pd.DataFrame:
        return self.frame("moves")

    @property
    def trials(self) -> pd.DataFrame:
        return self.frame("trials")

    @property
    def sessions(self) -> pd.DataFrame:
        return self.frame("sessions")

    @property
    def copy_moves(self) -> pd.DataFrame:
        return self.frame("copy_moves")


def score_sessions(
    logs: Iterable[SessionLog],
    conventions: Conventions | None = None,
    on_error: Callable[[SessionLog, EventLogError], None] | None = None,
    *,
    write_to: str | Path | None = None,
) -> Scores:
    """Score sessions into moves, trials, sessions and copy_moves tables.

    Parameters
    ----------
    logs : iterable of SessionLog
        From :func:`tol_analysis.read.logs.read_session` or
        :func:`~tol_analysis.read.logs.read_sessions`. A generator is consumed a few
        logs at a time (:data:`BATCH_ROWS`), so memory holds the output tables,
        not every log.
    conventions : Conventions, optional
        Defaults documented in :class:`tol_analysis.conventions.Conventions`.
    on_error : callable, optional
        Called with a log and its error when the log contradicts itself; the
        log is then left out whole (none of its rows enter the tables). Without
        it the error is raised.
    write_to : path, optional
        A folder (it must exist) to write ``moves.csv``, ``copy_moves.csv`` and
        ``trials.csv`` to as the logs are scored, a batch at a time (the same
        bytes as :func:`tol_analysis.export.write.export` writes): memory then holds
        none of the moves and only the trial columns that the sessions and wide
        tables are made from (:data:`TRIALS_KEPT`), however many sessions there
        are. Those tables are then in :attr:`Scores.written`, not as DataFrames.

    Raises
    ------
    EventLogError
        When a log contradicts itself: a placement that is not a legal move, a
        configuration that does not follow from the previous one, rows of two
        attempts interleaved. The message names the file and the row.
    """
    conv = conventions or Conventions()
    replays = Replays()  # states, moves and distances, kept for this call only
    with ExitStack() as files:
        tables, written = _builders(write_to, files)
        scores = _score_into(tables, logs, conv, replays, on_error)
    if write_to is not None:
        written["sessions"] = Path(write_to) / "sessions.csv"
    scores.written = written
    return scores


#: The trials.csv columns kept in memory when the table is written as it is scored
#: (``write_to``): those sessions.csv and wide.csv are made from.
TRIALS_KEPT = (*SESSION_TRIALS, *WIDE_TRIALS)


def _builders(write_to, files: ExitStack) -> tuple[dict[str, TableBuilder], dict[str, Path]]:
    """A builder per scored table, each writing its file as it goes when ``write_to`` is
    given (the files closed by ``files``)."""
    tables, written = {}, {}
    for name, table, keep in (("moves", MOVES, ()), ("trials", TRIALS, TRIALS_KEPT),
                              ("copy_moves", COPY_MOVES, ())):  # fmt: skip
        if write_to is None:
            tables[name] = TableBuilder(table, release=give_memory_back)
            continue
        path = written[name] = Path(write_to) / f"{name}.csv"
        # Small batches (a few logs' trials) written together: each write costs per column.
        sink = files.enter_context(TableWriter(path, table.names, gather=True))
        # The kept columns wait on disk beside the tables while the logs are scored.
        tables[name] = files.enter_context(
            closing(TableBuilder(table, release=give_memory_back, sink=sink, keep=keep,
                                 spill_in=write_to if keep else None)))  # fmt: skip
    return tables, written


def _score_into(tables: dict[str, TableBuilder], logs: Iterable[SessionLog], conv: Conventions,
                replays: Replays, on_error) -> Scores:  # fmt: skip
    warnings: list[str] = []
    sink = tables["trials"].sink  # written as scored: the session records spilled beside it
    infos = Records(spill_in=None if sink is None else sink.path.parent)
    sidecars = Sidecars(on_disk=sink is not None)
    done: dict = {}
    try:
        done = _score_logs_into(tables, logs, conv, replays, on_error, infos, sidecars, warnings)
        if sink is None:
            done["sessions"] = summarize_sessions(done["trials"], infos, conv)
        else:  # written as scored: sessions.csv too, beside trials.csv
            path = sink.path.with_name("sessions.csv")
            done["sessions"] = write_sessions(done["trials"], infos, conv, path)
    except BaseException:
        sidecars.close()  # an error: its table let go now, not when collected
        if isinstance(done.get("trials"), SpilledTable):
            done["trials"].close()  # the kept columns' file too
        raise
    finally:
        infos.close()  # the records' file removed, whatever happened
    return Scores(done, conv, warnings, sidecars)


def _score_logs_into(tables, logs, conv, replays, on_error, infos, sidecars, warnings) -> dict:
    """Score ``logs`` into ``tables``, a session record to ``infos`` and its sidecar to
    ``sidecars`` per log scored; the tables done."""
    plans: dict = {}  # each protocol's problems, by its SHA-256 (read once)
    with gc_paused():
        for batch in _batches(_one_log_per_session(logs, on_error, sidecars)):
            for scored, (parts, sessions) in _score_batch(batch, conv, replays, on_error):
                for name, (n, columns) in parts.items():
                    tables[name].add(n, columns)
                for log, (status, discontinued) in zip(scored, sessions, strict=True):
                    warnings.extend(log.warnings)
                    if log.sidecar_error is not None:
                        warnings.append(f"sidecar unreadable: {log.sidecar_error} The session "
                                        "is scored from its log alone.")  # fmt: skip
                    infos.append(session_info(log, status, discontinued, is_simulated(log), conv,
                                              plans, warnings))  # fmt: skip
                    sidecars.add(log.key, log)
                # This batch's logs let go before the next is read (their sidecars with them).
                scored = parts = columns = log = sessions = None
            batch = None
        give_memory_back()  # what reading and scoring used, before the tables are made
        return {name: builder.done() for name, builder in tables.items()}


def is_simulated(log: SessionLog) -> bool | None:
    """Whether tol-run's simulated participant played the session (its sidecar's
    ``simulate``); None without a readable sidecar. Imported and browser sessions are
    played by people."""
    return None if log.sidecar is None else log.sidecar.simulate is not None


def _one_log_per_session(logs: Iterable[SessionLog], on_error,
                         sidecars: Sidecars) -> Iterator[SessionLog]:  # fmt: skip
    """The logs, each session task's first only: another log of a (participant, session,
    protocol) already scored is an error naming both (:mod:`tol_analysis.read.duplicates` sorts
    copies and new attempts out before scoring), so that no (participant, session,
    protocol, trial, attempt) key is written twice."""
    from tol_analysis.read.duplicates import DuplicateSessionError

    for log in logs:
        key, where = log.key, str(log.path)
        seen = sidecars.claim(key, where)
        if seen is None:
            yield log
            continue
        if seen == where:
            exc = EventLogError(f"{log.path}: given twice.", where=where,
                                fix="give each log once.")  # fmt: skip
        else:
            exc = DuplicateSessionError(key, [Path(seen), log.path])
        if on_error is None:
            raise exc
        on_error(log, exc)


def _batches(logs: Iterable[SessionLog]) -> Iterator[list[SessionLog]]:
    """Logs in batches of up to :data:`BATCH_ROWS` rows and :data:`BATCH_LOGS` logs; logs
    read together (:func:`~tol_analysis.read.logs.read_sessions`) stay together."""
    batch: list[SessionLog] = []
    rows = 0
    batch_parent = None
    for log in logs:
        parent = log.data.parent[0] if log.data.parent else None
        if batch and (rows + log.data.n > BATCH_ROWS or len(batch) >= BATCH_LOGS
                      or parent is not batch_parent):  # fmt: skip
            yield batch
            batch, rows = [], 0
        if not batch:
            batch_parent = parent
        batch.append(log)
        rows += log.data.n
    if batch:
        yield batch


def _score_batch(batch: list[SessionLog], conv: Conventions, replays: Replays, on_error):
    """``(logs, score_logs(logs))`` for the logs of a batch that score; the others to
    ``on_error`` (or raised)."""
    try:
        yield batch, score_logs(batch, conv, replays)
        return
    except EventLogError as exc:
        if len(batch) == 1:
            if on_error is None:
                raise
            on_error(batch[0], exc)
            return
    # One of them contradicts itself: score them one by one, to leave out only that one.
    for log in batch:
        try:
            got = score_logs([log], conv, replays)
        except EventLogError as exc:
            if on_error is None:
                raise
            on_error(log, exc)
            continue
        yield [log], got


def score_logs(logs: list[SessionLog], conv: Conventions,
               replays: Replays) -> tuple[dict[str, tuple[int, dict]], list[str]]:  # fmt: skip
    """The rows of the moves, trials and copy_moves tables of some logs, scored together:
    ``({table: (rows, columns)}, each log's (status, blocks discontinued))``.

    Raises
    ------
    EventLogError
        Naming the file and the row where a log contradicts itself.
    """
    view = LogView(logs)
    view.check_trial_times()
    participant = view.per_log("participant")
    session = np.array([int(s) if s.isdigit() else 0 for s in view.per_log("session")], np.int64)
    protocol = [log.task for log in logs]
    problems = problem_attempts(view, replays, conv)
    n_trials = len(problems.index)
    problems.columns.update(empty_copy_columns(n_trials))
    _not_recorded(problems.columns, logs, view.attempt_log[problems.index])
    copies = copy_trials(view, replays, problems)
    of_trial = view.attempt_log[problems.index]
    simulated = np.array([np.nan if (s := is_simulated(log)) is None else s for log in logs],
                         np.float64)  # fmt: skip
    ids = {"participant": Coded(of_trial, participant), "session": session[of_trial],
           "protocol": Coded(of_trial, protocol), "simulated": simulated[of_trial]}  # fmt: skip
    of_copy = view.attempt_log[view.spans.is_copy]
    who = (participant, session, protocol)
    parts = {
        "moves": _moves_table(problems, who, of_trial),
        "trials": (n_trials, {**ids, **problems.columns}),
        "copy_moves": _copy_moves_table(copies, who, of_copy),
    }
    return parts, list(zip(_statuses(view), _discontinued(view), strict=True))


def _discontinued(view: LogView) -> list[tuple[str, ...]]:
    """Each log's blocks ended by the discontinue rule (its ``discontinue`` rows)."""
    rows = np.flatnonzero(view.event("discontinue"))
    out: list[list[str]] = [[] for _ in view.logs]
    for log, block in zip(view.log_of[rows].tolist(), view.texts("block", rows), strict=True):
        if block not in out[log]:
            out[log].append(block)
    return [tuple(b) for b in out]


def _not_recorded(columns: dict, logs: list[SessionLog], of_trial: np.ndarray) -> None:
    """Counts the recorder could not make (its sidecar's ``unavailable``) made missing."""
    for measure, names in UNRECORDED.items():
        lacking = np.array([log.sidecar is not None and measure in log.sidecar.unavailable
                            for log in logs], bool)  # fmt: skip
        if not lacking.any():
            continue
        missing = lacking[of_trial]
        for name in names:
            columns[name] = (np.asarray(columns[name]), missing)


def _statuses(view: LogView) -> list[str]:
    """Each log's status: the reason of its last session_end row (``completed`` if empty),
    or ``incomplete`` without one."""
    ends = np.flatnonzero(view.event("session_end"))
    last = last_in_group(view.log_of[ends], len(view.logs), ends, fill=-1).astype(np.int64)
    reasons = iter(view.texts("reason", last[last >= 0]))
    return [next(reasons) or "completed" if row >= 0 else "incomplete" for row in last.tolist()]


def _moves_table(problems, who: tuple, of_trial: np.ndarray) -> tuple[int, dict]:
    """moves.csv's columns of the problem attempts, puzzle by puzzle, put back in row order."""
    participant, session, protocol = who
    parts = []
    cols = problems.columns
    void = np.asarray(cols["void"], bool)
    for m, space in problems.moves:
        r = m.replayed
        g = r.group
        # The first move of an attempt starts from its start as the log wrote it.
        start = cols["start"]
        states = [*space.texts, *start.values]
        before = np.where(r.first, len(space.texts) + np.asarray(start.codes)[g], r.before)
        parts.append((r.rows, {
            "participant": Coded(of_trial[g], participant), "session": session[of_trial[g]],
            "protocol": _per_log(protocol, of_trial, g),
            "block": _per_move(cols["block"], g), "trial": cols["trial"][g],
            "attempt": cols["attempt"][g], "problem_id": _per_move(cols["problem_id"], g),
            "move_index": m.move_index, "piece": Coded(r.piece, list(space.piece_texts())),
            "from_peg": r.from_peg, "to_peg": r.to_peg,
            "state_before": Coded(before, states), "state_after": Coded(r.after, list(space.texts)),
            "time": m.time, "latency": m.latency, "distance_before": m.distance_before,
            "distance_after": m.distance_after, "optimal": m.optimal,
            "counterproductive": m.counterproductive, "backtrack": m.backtrack,
            "revisit": m.revisit, "void": void[g],
        }))  # fmt: skip
    return _in_row_order(parts, MOVES.names)


def _per_log(texts: list[str], of_trial: np.ndarray, group: np.ndarray) -> Coded | str:
    """A per-log text for each move (one text when every log of the batch has it)."""
    if len(set(texts)) == 1:
        return texts[0]
    return Coded(of_trial[group], texts)


def _per_move(per_attempt: Coded, group: np.ndarray) -> Coded:
    """A per-attempt text column, repeated for each move of the attempt."""
    return Coded(np.asarray(per_attempt.codes)[group], per_attempt.values)


def _copy_moves_table(c, who: tuple, of_copy: np.ndarray) -> tuple[int, dict]:
    participant, session, protocol = who
    parts = []
    for r, space in c.replayed:
        g = r.group
        parts.append((r.rows, {
            "participant": Coded(of_copy[g], participant), "session": session[of_copy[g]],
            "protocol": Coded(of_copy[g], protocol), "block": Coded(g, c.block), "trial": c.trial[g], "copy_of": c.copy_of[g],
            "problem_id": Coded(g, c.problem_id), "piece": Coded(r.piece, list(space.piece_texts())),
            "from_peg": r.from_peg, "to_peg": r.to_peg,
        }))  # fmt: skip
    _, columns = _in_row_order(parts, COPY_MOVES.names)
    columns.update(move_index=c.move_index, cue_time=c.cue_time, pick_time=c.pick_time,
                   time=c.time, move_time=c.move_time, refused=c.refused)  # fmt: skip
    return len(c.move_index), columns


def _in_row_order(parts: list, names: list[str]) -> tuple[int, dict]:
    """Columns of several puzzles' moves merged into one set, ordered by log row."""
    if not parts:
        return 0, _empty_moves(names)
    if len(parts) == 1:
        rows, cols = parts[0]
        return len(rows), cols
    order = np.argsort(np.concatenate([rows for rows, _ in parts]), kind="stable")
    merged = {}
    for name in parts[0][1]:
        values = [cols[name] for _, cols in parts]
        if isinstance(values[0], str):  # one text for every row (see _per_log)
            merged[name] = values[0]
        elif isinstance(values[0], Coded):
            texts = [list(v.values) for v in values]
            offsets = np.cumsum([0] + [len(t) for t in texts[:-1]])
            codes = np.concatenate([np.asarray(v.codes) + o for v, o in
                                    zip(values, offsets, strict=True)])  # fmt: skip
            merged[name] = Coded(codes[order], [t for ts in texts for t in ts])
        elif isinstance(values[0], list):
            flat = [x for v in values for x in v]
            merged[name] = [flat[i] for i in order.tolist()]
        else:
            merged[name] = np.concatenate(values)[order]
    return len(order), merged


def _empty_moves(names: list[str]) -> dict:
    """No rows, for every column of moves.csv or copy_moves.csv."""
    return {name: np.empty(0) for name in names}

"""Session summaries: one sessions.csv row per session task, overall and per level.

Computed over the whole trials table at once, with numpy (so it stays fast for
tens of thousands of sessions); the columns and their order come from
:data:`tol_analysis.columns.SESSIONS` and :data:`~tol_analysis.columns.SESSION_LEVELS`.
Sums and means of times are added exactly as pandas' group-by adds them (which
is how tol-score computed them before; see :func:`group_sums`).

Void, missing and failed are kept apart (each rule said once, in the column
registry): a void attempt (cut off) is in trials.csv but in no summary; a
problem of the protocol never given is *missing* (``problems_missing``, with
its reason), not failed; a level the session never gave is empty, never 0.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tol_analysis.columns import (
    BOOLEAN,
    FLOAT,
    INTEGER,
    SESSION_IDS,
    SESSION_LEVELS,
    SESSIONS,
    STRING,
    level_name,
)
from tol_analysis.conventions import Conventions
from tol_analysis.read.spill import KeyIndex
from tol_analysis.score.builder import SpilledTable
from tol_analysis.score.compact import Distinct, same_texts
from tol_analysis.score.csvfile import TableWriter
from tol_analysis.score.infos import SessionInfo, session_info  # noqa: F401 - also here
from tol_analysis.score.sums import group_sums, rows_apart
from tol_analysis.score.tables import ColumnData, TableData, code_type, smallest_int_type

#: Time summaries: (summary, trials.csv column, "sum" or "mean").
_TIMES = (
    ("total_planning_time", "planning_time", "sum"),
    ("total_execution_time", "execution_time", "sum"),
    ("total_solving_time", "total_time", "sum"),
    ("mean_planning_time", "planning_time", "mean"),
    ("mean_time_per_move", "time_per_move", "mean"),
    ("mean_initial_thinking_time", "initial_thinking_time", "mean"),
    ("mean_subsequent_thinking_time", "subsequent_thinking_time", "mean"),
    ("mean_subsequent_thinking_time_per_move", "subsequent_thinking_time_per_move", "mean"),
)

#: The trials.csv columns the session summaries are made from (all that
#: :func:`summarize_sessions` reads).
SESSION_TRIALS = (
    "participant", "session", "protocol", "block", "problem_id", "practice", "void",
    "min_moves", "solved", "solved_in_min", "moves", "excess_moves", "rule_violations",
    "toldx_move_score", "time_out", "toldx_time_violation", *(c for _, c, _ in _TIMES),
)  # fmt: skip

#: Why problems of the protocol were never given, by the session's status.
_MISSING_BECAUSE = {"aborted": "session aborted", "incomplete": "session cut off"}


def summarize_sessions(trials: TableData, infos: list[SessionInfo],
                       conv: Conventions) -> TableData:  # fmt: skip
    """One row per session task (the first log of each, in order); see the registry's
    ``SESSIONS`` and ``SESSION_LEVELS``, and the participant fields after the identifying
    columns (:func:`field_columns`).

    Counts are 0 and means missing for a session without attempts given; a level the
    session never gave is empty; a sum of times over attempts that all lack one is 0.
    """
    summaries = _Summaries(trials, infos, conv)
    return summaries.rows(0, summaries.n)


#: Sessions summarized and written at once by :func:`write_sessions`: making the rows of
#: 8,192 small sessions took 72 MB at its peak, of 2,048 18 MB.
SESSION_ROWS = 2048


def write_sessions(trials: TableData | SpilledTable, infos: list[SessionInfo], conv: Conventions,
                   path: str | Path) -> TableData:  # fmt: skip
    """Write sessions.csv (:func:`summarize_sessions`) to ``path``, :data:`SESSION_ROWS`
    sessions at a time, the same bytes as written whole; return the table's identifying
    columns and participant fields (what wide.csv and the codebook need; the names of
    every column)."""
    summaries = _Summaries(trials, infos, conv)
    step = SESSION_ROWS if summaries.in_order else max(1, summaries.n)
    kept = _ids([])
    kept.update(field_columns([], kinds=summaries.fields))
    parts = {name: _Gathered() for name in kept}
    with TableWriter(path, summaries.names) as out:
        for start in range(0, summaries.n, step):
            rows = summaries.rows(start, min(start + step, summaries.n))
            out.write(rows)
            for name, got in parts.items():
                got.add(rows[name])
    if summaries.n:
        kept = {name: got.done() for name, got in parts.items()}
        kept["participant"] = _shared_texts(kept["participant"], trials, "participant")
    return TableData(summaries.names, kept, summaries.n)


def _shared_texts(column: ColumnData, trials: TableData | SpilledTable, name: str) -> ColumnData:
    """``column`` with the trials column ``name``'s distinct texts when they are the same
    texts in the same order (as when every session has trials): one copy of a million
    participants' ids kept for wide.csv, not two."""
    theirs = (trials.categories(name) if isinstance(trials, SpilledTable)
              else trials[name].categories)  # fmt: skip
    if theirs is column.categories or not same_texts(theirs, column.categories):
        return column
    return ColumnData(STRING, column.values, categories=theirs, plain=column.plain)


class _Gathered:
    """A column's rows gathered range by range, as :meth:`ColumnData.concat` joins them, the
    texts coded as each range comes (no Python string kept per row until the end: a million
    participants' ids)."""

    def __init__(self) -> None:
        self._parts: list[ColumnData] = []
        self._texts: Distinct | None = None

    def add(self, column: ColumnData) -> None:
        if column.kind == STRING:
            if self._texts is None:
                self._texts = Distinct()
            codes = np.append(self._texts.codes(list(column.categories)), -1)
            codes = codes[np.asarray(column.values, np.int64)]  # in as few bytes as they need
            column = ColumnData(STRING, codes.astype(code_type(len(self._texts))),
                                plain=column.plain)  # fmt: skip
        elif column.kind == INTEGER:
            column = ColumnData(INTEGER, column.values.astype(smallest_int_type(column.values)),
                                column.missing, plain=column.plain)  # fmt: skip
        self._parts.append(column)

    def done(self) -> ColumnData:
        parts, self._parts = self._parts, []
        if self._texts is None:
            return ColumnData.concat(parts)
        codes = np.concatenate([p.values for p in parts], dtype=code_type(len(self._texts)))
        return ColumnData(STRING, codes,
                          categories=self._texts.categories(),
                          plain=all(p.plain for p in parts))  # fmt: skip


class _Summaries:
    """The session summaries, made for any range of sessions: the trials of a range of
    sessions are a range of trials when the trials are in session order (as scoring gives
    them). What depends on every session (the levels, the participant fields, how times are
    added) is settled once over whole columns, so that the rows of a range are those of the
    whole table."""

    def __init__(self, trials: TableData | SpilledTable, infos: list[SessionInfo],
                 conv: Conventions) -> None:  # fmt: skip
        # Each session task's row: its first record (hashes when the keys are distinct, as
        # scoring gives them: no dict of every key; the records may be on disk).
        index = KeyIndex(info.key for info in infos)
        sessions = infos
        if not index.unique:
            index, sessions = {}, []
            for info in infos:
                if info.key not in index:
                    index[info.key] = len(sessions)
                    sessions.append(info)
        self.trials, self.sessions, self.n = trials, sessions, len(sessions)
        self._practice = conv.include_practice
        # Looked over :data:`SCAN_ROWS` trials at a time (read back from disk when they wait
        # there): each trial's session (4 bytes a trial kept), and what depends on every
        # session: the levels, which time columns have a gap, whether rows are apart.
        rows = len(trials)
        of = np.empty(rows, np.int32 if self.n < 2**31 else np.int64)
        gaps = np.zeros(len(_TIMES), bool)
        levels = np.empty(0, np.int64)
        in_order, last, level_apart = True, -1, False
        tail_group, tail_level = np.empty(0, np.int64), np.empty(0, np.int64)
        for lo in range(0, rows, SCAN_ROWS):
            hi = min(lo + SCAN_ROWS, rows)
            part = _trial_rows(trials, lo, hi)
            at = of[lo:hi] = _session_of(part, index)
            if len(at) and (at[0] < last or np.any(at[1:] < at[:-1])):
                in_order = False
            last = int(at[-1]) if len(at) else last
            shown, _, keep = self._flags(part)
            gaps |= [np.isnan(part[c].as_float()[shown]).any() for _, c, _ in _TIMES]
            min_moves = np.asarray(part["min_moves"].values, np.int64)[keep]
            levels = np.union1d(levels, min_moves)
            if in_order and not level_apart:  # each (session, level)'s rows together?
                group = np.concatenate([tail_group, at[keep]])
                level = np.concatenate([tail_level, min_moves])
                if len(group):
                    level_apart = rows_apart(_pair_keys(group, level)[0])
                    cut = np.searchsorted(group, group[-1])  # the last session goes on
                    tail_group, tail_level = group[cut:], level[cut:]
        self._of, self.in_order, self._gaps = of, in_order, gaps
        self.levels = levels.tolist()
        # Times are added as tol-score 0.2 added them: pandas' group-by over every attempt
        # shown (void ones included), which adds a column without a missing value pairwise,
        # else in order; void attempts then add nothing (see :func:`group_sums`). The trials in
        # session order, each session's rows are together.
        self._apart, self._level_apart = False, level_apart
        if not in_order:  # settled over the whole table
            part = _trial_rows(trials, 0, rows)
            keep = self._flags(part)[2]
            group = of[keep].astype(np.int64)
            min_moves = np.asarray(part["min_moves"].values, np.int64)[keep]
            self._apart = rows_apart(group)
            self._level_apart = (rows_apart(group * len(self.levels) + np.searchsorted(self.levels,
                                                                                   min_moves))
                                 if self.levels else False)  # fmt: skip
        self.fields = _field_kinds(sessions)
        self.names = [
            *_ids([]),
            *(field_name(name) for name in self.fields),
            *(c.name for c in SESSIONS if c.name not in SESSION_IDS),
            *(level_name(k, c.name) for k in self.levels for c in SESSION_LEVELS),
        ]

    def _flags(self, trials: TableData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which trials are shown (practice unless included), void, and kept (shown, not
        void)."""
        shown = np.ones(len(trials), bool)
        if not self._practice:
            shown = ~np.asarray(trials["practice"].values, bool)
        void = np.asarray(trials["void"].values, bool)
        return shown, void, shown & ~void

    def rows(self, start: int, stop: int) -> TableData:
        """The summaries of sessions ``start`` to ``stop``."""
        if (start, stop) != (0, self.n) and not self.in_order:  # pragma: no cover
            raise ValueError("the trials are not in session order")  # written whole then
        lo, hi = (np.searchsorted(self._of, [start, stop]).tolist() if self.in_order
                  else (0, len(self.trials)))  # fmt: skip
        trials = _trial_rows(self.trials, lo, hi)
        of = self._of[lo:hi].astype(np.int64) - start
        shown, void, keep = self._flags(trials)
        sessions = self.sessions[start:stop]
        n = stop - start
        group = of[keep]
        overall = _summaries(trials, keep, group, n, self._gaps, self._apart)
        overall["void_attempts"] = np.bincount(of[shown & void], minlength=n)
        planned, missing, reasons = _missing(trials, keep, group, sessions)
        overall.update(problems_planned=planned, problems_missing=missing)
        data = _ids(sessions)
        data.update(field_columns(sessions, kinds=self.fields))
        for c in SESSIONS:
            if c.name in SESSION_IDS:
                continue
            data[c.name] = (ColumnData.texts(reasons, plain=True) if c.name == "missing_reason"
                            else _column(c.type, overall[c.name]))  # fmt: skip
        levels = self.levels
        if levels:
            at = np.searchsorted(levels, np.asarray(trials["min_moves"].values, np.int64)[keep])
            per = _summaries(trials, keep, group * len(levels) + at, n * len(levels), self._gaps,
                             self._level_apart)  # fmt: skip
            given = per["attempts"] > 0
            for j, k in enumerate(levels):
                here = given[j :: len(levels)]
                for c in SESSION_LEVELS:
                    values = np.asarray(per[c.name][j :: len(levels)], np.float64)
                    data[level_name(k, c.name)] = _column(c.type, np.where(here, values, np.nan))
        return TableData(list(data), data, n)


#: Trials looked over at once as the sessions are first summed up (:class:`_Summaries`):
#: read back from disk when they wait there.
SCAN_ROWS = 1 << 17


def _trial_rows(trials: TableData | SpilledTable, start: int, stop: int) -> TableData:
    """Rows ``start`` to ``stop`` of the trial columns the summaries are made from."""
    if isinstance(trials, SpilledTable):
        return trials.slice(start, stop, SESSION_TRIALS)
    return trials.slice(start, stop, narrow=False)


def _ids(sessions: list[SessionInfo]) -> dict[str, ColumnData]:
    """The identifying and describing columns (:data:`~tol_analysis.columns.SESSION_IDS`)."""
    start = [_date_time(s.start) for s in sessions]
    return {
        "participant": ColumnData.texts([s.participant for s in sessions], plain=True),
        "session": ColumnData(INTEGER, np.array([s.session for s in sessions], np.int64),
                              plain=True),
        "protocol": ColumnData.texts([s.protocol for s in sessions], plain=True),
        "protocol_version": ColumnData.texts([s.version for s in sessions]),
        "status": ColumnData.texts([s.status for s in sessions], plain=True),
        "simulated": ColumnData(
            BOOLEAN,
            np.array([bool(s.simulated) for s in sessions], bool),
            np.array([s.simulated is None for s in sessions], bool),
        ),
        "start_date": ColumnData.texts([d for d, _ in start]),
        "start_time": ColumnData.texts([t for _, t in start]),
        "recorder": ColumnData.texts([s.recorder for s in sessions]),
    }  # fmt: skip


def _date_time(text: str | None) -> tuple[str | None, str | None]:
    """(YYYY-MM-DD, HH:MM:SS) of an ISO 8601 time as recorded (its own clock and zone)."""
    if not text or len(text) < 19 or text[4] != "-" or text[10] not in "T " or text[13] != ":":
        return None, None
    return text[:10], text[11:19]


#: The column types of participant fields, by the type their protocol declares.
_FIELD_KINDS = {"integer": INTEGER, "number": FLOAT}


def field_name(name: str, taken=SESSIONS.names) -> str:
    """The column of participant field ``name``: its own name, or ``field_<name>`` when a
    table already has a column of that name (``status``, ``session``, ...)."""
    return f"field_{name}" if name in taken else name


_LEVEL_COLUMN = re.compile(r"^min\d+_")


def field_names(names) -> list[str]:
    """The participant field columns among a sessions table's column names."""
    return [n for n in names if n not in SESSIONS.names and not _LEVEL_COLUMN.match(n)]


def _field_kinds(sessions: list[SessionInfo]) -> dict[str, str]:
    """Every participant field of any session (in order of first appearance) and the type
    the first session's protocol declares for it."""
    names: dict[str, str] = {}
    for s in sessions:
        for name in s.fields:
            names.setdefault(name, s.field_types.get(name, "text"))
    return names


def field_columns(sessions: list[SessionInfo], taken=SESSIONS.names,
                  kinds: dict[str, str] | None = None) -> dict[str, ColumnData]:  # fmt: skip
    """One column per participant field of any session (in order of first appearance),
    typed as its protocol declares it (text when it declares no type); empty for a session
    without the field. ``kinds``: the fields and their types, when settled over more
    sessions than these."""
    names = _field_kinds(sessions) if kinds is None else kinds
    out = {}
    for name, kind in names.items():
        texts = [s.fields.get(name) or None for s in sessions]
        kind = _FIELD_KINDS.get(kind, STRING)
        if kind == STRING:
            out[field_name(name, taken)] = ColumnData.texts(texts)
            continue
        values = np.array([float(t) if t else np.nan for t in texts], np.float64)
        out[field_name(name, taken)] = _column(kind, values)
    return out


def _missing(trials: TableData, keep: np.ndarray, group: np.ndarray,
             sessions: list[SessionInfo]) -> tuple[np.ndarray, np.ndarray, list]:  # fmt: skip
    """Per session: the problems the protocol plans, those never given, and why.

    Counted over whole columns: each distinct plan (many sessions share one) is turned into
    the (block, problem) codes of the trials once; only a session with problems missing
    has them listed, for the reason."""
    n = len(sessions)
    planned, missing = np.full(n, np.nan), np.full(n, np.nan)
    reasons: list[str | None] = [None] * n
    plans = {}  # each distinct plan's number (plans are shared tuples)
    plan_of = np.array([-1 if s.planned is None else plans.setdefault(id(s.planned), len(plans))
                        for s in sessions], np.int64)  # fmt: skip
    if not plans:
        return planned, missing, reasons  # no protocol known: nothing is known to be missing
    block, pid = trials["block"], trials["problem_id"]
    width = len(pid.categories) + 1
    code_of = {(b, p): i * width + j for i, b in enumerate(block.categories)
               for j, p in enumerate(pid.categories)}  # fmt: skip
    problem = (np.asarray(block.values, np.int64) * width + np.asarray(pid.values))[keep]
    keys, span = _pair_keys(group, problem)
    low = int(problem.min()) if len(problem) else 0
    given = np.unique(keys)
    given_group, given_code = given // span, given % span + low
    found = np.zeros(n, np.int64)
    first = {}
    for k, s in enumerate(sessions):
        if s.planned is not None:
            first.setdefault(int(plan_of[k]), s.planned)
    for j, plan in first.items():
        codes = np.array([code_of.get(bp, -1) for bp in plan], np.int64)
        mine = plan_of[given_group] == j
        hit = np.isin(given_code[mine], codes[codes >= 0])
        found += np.bincount(given_group[mine][hit], minlength=n)
    has = plan_of >= 0
    sizes = np.array([len(s.planned) if s.planned is not None else 0 for s in sessions])
    planned[has], missing[has] = sizes[has], (sizes - found)[has]
    lost_ones = np.flatnonzero(has & (sizes > found))  # the sessions with problems missing
    starts = np.searchsorted(given_group, lost_ones)  # keys are sorted by session
    stops = np.searchsorted(given_group, lost_ones, side="right")
    for k, a, b in zip(lost_ones.tolist(), starts.tolist(), stops.tolist(), strict=True):
        s = sessions[k]
        codes = set(given_code[a:b].tolist())
        lost = [bp for bp in s.planned if code_of.get(bp, -1) not in codes]
        why = [f"discontinue rule (block {name})" if name in s.discontinued
               else _MISSING_BECAUSE.get(s.status, "not given") for name, _ in lost]  # fmt: skip
        reasons[k] = "; ".join(dict.fromkeys(why)) or None
    return planned, missing, reasons


def _column(kind: str, values: np.ndarray) -> ColumnData:
    if kind == INTEGER:
        missing = np.isnan(values) if values.dtype.kind == "f" else None
        if missing is not None and missing.any():
            return ColumnData(INTEGER, np.where(missing, 0, values).astype(np.int64), missing)
        return ColumnData(INTEGER, values.astype(np.int64), plain=True)
    return ColumnData(FLOAT, values.astype(np.float64))


def _session_of(trials: TableData, index: KeyIndex | dict) -> np.ndarray:
    """Each trial's session task (its row in sessions.csv): looked up once per run of
    trials of one session task (scoring gives each session's trials together)."""
    who, proto = trials["participant"], trials["protocol"]
    number = np.asarray(trials["session"].values)
    codes, tasks = np.asarray(who.values), np.asarray(proto.values)
    if not len(codes):
        return np.empty(0, np.int64)
    new = np.ones(len(codes), bool)
    new[1:] = (codes[1:] != codes[:-1]) | (number[1:] != number[:-1]) | (tasks[1:] != tasks[:-1])
    starts = np.flatnonzero(new)
    rows = np.empty(len(starts), np.int64)
    step = 1 << 16  # keys made this many at a time: a million as tuples take 150 MB
    for lo in range(0, len(starts), step):
        at = starts[lo : lo + step]
        keys = [(who.categories[c], s, proto.categories[t]) for c, s, t in
                zip(codes[at].tolist(), number[at].tolist(), tasks[at].tolist(),
                    strict=True)]  # fmt: skip
        rows[lo : lo + step] = (index.rows(keys) if isinstance(index, KeyIndex)
                                else np.array([index[k] for k in keys], np.int64))  # fmt: skip
    return np.repeat(rows, np.diff(np.r_[starts, len(codes)]))


def _summaries(trials: TableData, keep: np.ndarray, group: np.ndarray, n: int,
               gaps: np.ndarray, apart: bool | None = None) -> dict:  # fmt: skip
    """The summary measures of the kept trials per group (``n`` groups); ``gaps`` says which
    time columns :func:`group_sums` adds in order (see :func:`summarize_sessions`)."""

    def values(name: str) -> np.ndarray:
        return trials[name].as_float()[keep]

    def flag(name: str) -> np.ndarray:
        return np.asarray(trials[name].values, bool)[keep]

    problem = _pair(trials["block"], trials["problem_id"])[keep]
    solved, in_min = flag("solved"), flag("solved_in_min")
    attempts = np.bincount(group, minlength=n)
    violations = _total(group, values("rule_violations"), n, keep_missing=True)
    out = {
        "problems": _distinct_count(group, problem, n),
        "attempts": attempts,
        "problems_solved": _distinct_count(group[solved], problem[solved], n),
        "problems_solved_in_min": _distinct_count(group[in_min], problem[in_min], n),
        "total_moves": _total(group, values("moves"), n),
        "total_excess_moves": _total(group, np.nan_to_num(values("excess_moves")), n),
        "toldx_total_move_score": _total(group, values("toldx_move_score"), n,
                                         keep_missing=True),
        "total_rule_violations": violations,
        "total_time_violations": _total(group, flag("time_out").astype(np.float64), n),
        "toldx_time_violations": _total(group, flag("toldx_time_violation").astype(np.float64),
                                        n),
    }  # fmt: skip
    sums, counts = group_sums(group, np.column_stack([values(c) for _, c, _ in _TIMES]), n, gaps,
                         apart)  # fmt: skip
    for j, (name, _, how) in enumerate(_TIMES):
        with np.errstate(invalid="ignore", divide="ignore"):
            got = sums[:, j] if how == "sum" else np.where(counts[:, j] > 0,
                                                            sums[:, j] / counts[:, j], np.nan)  # fmt: skip
        out[name] = np.where(attempts > 0, got, np.nan)  # no trials: missing
    out.update(_dkefs(group[solved], values("moves")[solved], values("min_moves")[solved],
                      values("total_time")[solved], n))  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        out["dkefs_rule_violations_per_item"] = np.where(
            attempts > 0, np.asarray(violations, np.float64) / attempts, np.nan
        )
    return out


def _dkefs(group: np.ndarray, moves: np.ndarray, fewest: np.ndarray, time: np.ndarray,
           n: int) -> dict:  # fmt: skip
    """The D-KEFS ratios of sums over the problems solved: moves / minimum moves, and time /
    moves (time over the solved attempts that have one)."""
    moved = np.bincount(group, weights=moves, minlength=n)
    need = np.bincount(group, weights=fewest, minlength=n)
    timed = ~np.isnan(time)
    spent = np.bincount(group[timed], weights=time[timed], minlength=n)
    moved_timed = np.bincount(group[timed], weights=moves[timed], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "dkefs_move_accuracy_ratio": np.where(need > 0, moved / need, np.nan),
            "dkefs_time_per_move_ratio": np.where(moved_timed > 0, spent / moved_timed, np.nan),
        }


def _pair(a: ColumnData, b: ColumnData) -> np.ndarray:
    """Two text columns' codes as one number per row (equal pairs of texts, equal numbers)."""
    return np.asarray(a.values, np.int64) * (len(b.categories) + 1) + np.asarray(b.values)


def _distinct_count(group: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Per group, how many distinct keys."""
    if not len(group):
        return np.zeros(n, np.int64)
    keys, width = _pair_keys(group, key)
    if n * width <= 4 * len(keys) + (1 << 16):  # few possible pairs: marked in a table
        seen = np.zeros(n * width, bool)
        seen[keys] = True
        return np.count_nonzero(seen.reshape(n, width), axis=1)
    return np.bincount(np.unique(keys) // width, minlength=n)


def _pair_keys(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """Pairs of whole numbers (``a`` not negative) as one number each, and the width that
    divides it back into ``a``: a one-dimensional key, which numpy sorts many times faster
    than rows of two. Equal pairs, equal keys."""
    b = np.asarray(b, np.int64)
    low, width = (int(b.min()), int(b.max()) - int(b.min()) + 1) if len(b) else (0, 1)
    if len(a) and int(a.max()) >= np.iinfo(np.int64).max // width:  # b's far apart: by rank
        b = np.unique(b, return_inverse=True)[1].ravel().astype(np.int64)
        low, width = 0, int(b.max()) + 1
    return np.asarray(a, np.int64) * width + (b - low), width


def _total(group: np.ndarray, values: np.ndarray, n: int,
           keep_missing: bool = False) -> np.ndarray:  # fmt: skip
    """Per group, the sum of whole numbers (given as floats); with ``keep_missing``, NaN for
    a group in which any is missing (not recorded), as floats."""
    nan = np.isnan(values)
    total = np.rint(np.bincount(group, weights=np.where(nan, 0, values), minlength=n))
    if keep_missing and nan.any():
        return np.where(np.bincount(group, weights=nan, minlength=n) > 0, np.nan, total)
    return total.astype(np.int64)

"""Reading event logs into columns (finding them: :mod:`tol_analysis.read.find`).

A log is read whole into a :class:`SessionLog`: the columns scoring uses, as
texts (Arrow string arrays, with integer codes into their distinct texts made
when a column is needed row by row) and ``trial_time`` as numbers, with every
numeric cell and every event checked against the event log's codebook. Logs
are parsed several files at a time by Arrow's CSV reader; anything unusual (a
row numbering gap, a cell that is not what its column holds, a damaged line,
another encoding, an older format) is read again by
:func:`tol_tasks.session_data.read_event_log`, the event log's own reader,
which names the file, the row and the fault.

Columns scoring never uses (``piece``, ``input``, ``stamp``: free text) are not
read; ``row``, ``time``, ``moves``, ``x`` and ``y`` are checked, not kept.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from pyarrow import csv as pacsv

from tol_analysis.arrow import dictionary_encode, offsets, strings, take, to_numpy
from tol_analysis.read import find as _find
from tol_tasks.session_data.attempts import Coded
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import (
    CELL_FIX,
    RESAVED_FIX,
    EventLogError,
    check_cells,
    codebook,
    columns,
    events,
    read_event_log,
)
from tol_tasks.session_data.session_key import SessionKey, task_in

if TYPE_CHECKING:
    from tol_tasks.session_data.sidecar import Sidecar


#: The columns scoring reads, kept as texts.
TEXT_COLUMNS = ("participant", "session", "block", "trial", "attempt", "problem_id", "event",
                "from_peg", "to_peg", "state", "goal", "puzzle", "reason", "detail", "copy_of")  # fmt: skip

#: The one numeric column scoring reads (seconds since trial onset).
TIME = "trial_time"

#: Columns only checked against the codebook while reading (scoring does not use them).
_CHECKED = ("row", "time", "moves", "x", "y")

#: Whole numbers in a log have at most this many digits (they are counts and numbers of
#: rows, trials and sessions; longer ones do not fit the tables' 64-bit integers).
_DIGITS = 18

#: Logs read together by :func:`read_sessions`, up to this many bytes at once. A batch of
#: small sessions peaks at about 20 times its bytes (1k sessions: 217 MB at 8 MB, 178 at 4),
#: but has a fixed cost: 4 MB cost 10 % more CPU time than 8 MB on 10k small sessions.
BATCH_BYTES = 8 << 20


def give_memory_back() -> None:
    """Return memory freed since the last call to the operating system.

    Arrow's pool and the C library's allocator both keep freed blocks for
    reuse; a block kept between long-lived ones is never reused by the larger
    arrays made later (the columns of a finished table), so scoring calls this
    once its batches are done and as it makes each column.
    """
    pa.default_memory_pool().release_unused()
    if _malloc_trim is not None:
        _malloc_trim(0)


def _trim_function():
    """glibc's ``malloc_trim`` (None elsewhere: other allocators give memory back by themselves)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _trim_function()


# --------------------------------------------------------------------------- columns
def _encode(array: pa.Array) -> Coded:
    """A string array as codes into its distinct texts (in order of appearance)."""
    if len(array) and not array.null_count:
        ends = offsets(array)
        if ends[0] == ends[-1]:  # every text empty: copy_of, most often
            return Coded(np.zeros(len(array), np.int32), [""])
        short = _one_byte_codes(array, ends)
        if short is not None:
            return short
    d = dictionary_encode(array)
    return Coded(to_numpy(d.indices), d.dictionary.to_pylist())


#: Texts of at most one byte are coded from their bytes: this many rows are looked at
#: first to find the order in which they appear.
_FIRST_ROWS = 4096


def _one_byte_codes(array: pa.Array, ends: np.ndarray) -> Coded | None:
    """A string array whose texts are empty or one ASCII character (pegs, attempts) as
    :func:`_encode` codes it, from its bytes without hashing them; None for any other."""
    lengths = np.diff(ends)
    if lengths.max() > 1:
        return None
    data = np.frombuffer(array.buffers()[2], np.uint8)
    key = np.take(data, np.minimum(ends[:-1], len(data) - 1)).astype(np.int16)
    key += 1
    key[lengths == 0] = 0  # 0: empty, else the byte + 1
    present = np.flatnonzero(np.bincount(key, minlength=257))
    if present[-1] > 128:
        return None  # not ASCII: the hashing coder
    found, at = np.unique(key[:_FIRST_ROWS], return_index=True)
    first = dict(zip(found.tolist(), at.tolist(), strict=True))
    keys = present.tolist()
    order = sorted(keys, key=lambda k: first[k] if k in first else int(np.argmax(key == k)))
    lookup = np.zeros(257, np.int32)
    lookup[order] = np.arange(len(order), dtype=np.int32)
    return Coded(np.take(lookup, key), [chr(k - 1) if k else "" for k in order])


class LogColumns:
    """The complete rows of a log, or of several logs one after another, as columns.

    Row ``i`` is the log's file row ``i + 2`` (row 1 is the header). Texts are
    kept as Arrow string arrays (:data:`TEXT_COLUMNS`); :meth:`coded` gives a
    column as integer codes into its distinct texts (made once, then kept), so
    that code that looks at every row never compares texts.

    Attributes
    ----------
    n : int
        Number of rows.
    time : ndarray of float64
        ``trial_time`` (NaN for an empty cell).
    """

    def __init__(self, strings: dict[str, pa.Array], time: np.ndarray,
                 coded: dict[str, Coded] | None = None,
                 numbers: np.ndarray | None = None) -> None:  # fmt: skip
        self._strings = strings
        self.time = time
        self.n = len(time)
        self._coded: dict[str, Coded] = dict(coded or {})
        #: Each row's ``row`` number, when the log's numbering skips (None: 1, 2, ... n).
        self.numbers = numbers
        #: (columns, start) when these rows are a slice of other columns (read together).
        self.parent: tuple[LogColumns, int] | None = None

    @classmethod
    def from_texts(cls, texts: dict[str, list[str]], time: np.ndarray,
                   numbers: np.ndarray | None = None) -> LogColumns:  # fmt: skip
        """From lists of texts (one per row) for each of :data:`TEXT_COLUMNS`."""
        return cls({c: strings(texts[c]) for c in TEXT_COLUMNS}, time, numbers=numbers)

    def row_numbers(self) -> np.ndarray:
        """Each row's ``row`` number (the log's own numbering)."""
        return self.numbers if self.numbers is not None else np.arange(1, self.n + 1)

    def coded(self, name: str) -> Coded:
        """A whole column as codes (``values[codes[i]]`` is row ``i``'s text)."""
        c = self._coded.get(name)
        if c is None:
            c = self._coded[name] = _encode(self._strings[name])
        return c

    def coded_at(self, name: str, rows: np.ndarray) -> Coded:
        """The cells of ``rows`` (row indices) as codes into their distinct texts."""
        c = self._coded.get(name)
        if c is None and len(rows) * 8 > self.n:  # many rows: code the whole column, once
            c = self.coded(name)
        if c is not None:
            return Coded(np.asarray(c.codes)[rows], c.values)
        return _encode(take(self._strings[name], rows))

    def texts(self, name: str, rows: np.ndarray) -> list[str]:
        """The texts of ``rows`` (row indices)."""
        return take(self._strings[name], rows).to_pylist()

    def cell(self, name: str, row: int) -> str:
        return self._strings[name][row].as_py()

    def slice(self, start: int, stop: int) -> LogColumns:
        """Rows ``start:stop`` (no copy)."""
        cut = slice(start, stop)
        out = LogColumns(
            {c: a.slice(start, stop - start) for c, a in self._strings.items()},
            self.time[cut],
            {c: Coded(np.asarray(v.codes)[cut], v.values) for c, v in self._coded.items()},
            None if self.numbers is None else self.numbers[cut],
        )
        out.parent = (self, start)
        return out

    @classmethod
    def concat(cls, parts: list[LogColumns]) -> LogColumns:
        """The rows of ``parts``, one after another (codes kept where every part has them)."""
        if len(parts) == 1:
            return parts[0]
        if parts[0].parent is not None:  # slices one after another of the same rows: no copy
            whole, start = parts[0].parent
            at = start
            for p in parts:
                if p.parent is None or p.parent[0] is not whole or p.parent[1] != at:
                    break
                at += p.n
            else:
                return whole.slice(start, at)
        strings = {c: pa.concat_arrays([p._strings[c] for p in parts]) for c in TEXT_COLUMNS}
        coded = {}
        for c in set.intersection(*(set(p._coded) for p in parts)):
            values = parts[0]._coded[c].values
            if all(p._coded[c].values is values for p in parts):  # slices of one read
                coded[c] = Coded(np.concatenate([p._coded[c].codes for p in parts]), values)
        numbers = None
        if any(p.numbers is not None for p in parts):  # each log's own numbering
            numbers = np.concatenate([p.row_numbers() for p in parts])
        return cls(strings, np.concatenate([p.time for p in parts]), coded, numbers)


class _once:  # noqa: N801 - used as a decorator, like property
    """A property computed once per object, then kept in the object (as
    ``functools.cached_property``, without its lock: a log is read by one thread)."""

    def __init__(self, func) -> None:
        self.func, self.name = func, func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@dataclass
class SessionLog:
    """One session's event log, read and checked.

    Attributes
    ----------
    path : Path
        The event log.
    data : LogColumns
        Its complete rows, as columns.
    warnings : list of str
        Recoverable faults (a torn last line, a missing row).
    sidecar : Sidecar or None
        The sidecar beside it (:class:`tol_tasks.session_data.sidecar.Sidecar`),
        if there is one and it reads (never needed for scores).
    sidecar_path : Path or None
        The file ``sidecar`` was read from.
    sidecar_error : str or None
        Why the sidecar beside the log could not be read (it is then None).
    """

    path: Path
    data: LogColumns
    warnings: list[str] = field(default_factory=list)
    sidecar: Sidecar | None = None
    sidecar_path: Path | None = None
    sidecar_error: str | None = None

    @_once
    def start(self) -> dict[str, str]:
        """The pairs of the session_start row's detail (its protocol and its SHA-256, or an
        import's format and source)."""
        return parse_detail(self.data.cell("detail", 0)) if self.data.n else {}

    @_once
    def task(self) -> str:
        """The task (protocol) the log's session_start row names
        (:func:`tol_tasks.session_data.session_key.task_in`; empty when none)."""
        return task_in(self.start)

    @_once
    def key(self) -> SessionKey:
        """(participant, session, task): what the log is a session of (rule I1)."""
        return SessionKey(self.participant, self.session, self.task)

    @property
    def n_events(self) -> int:
        return self.data.n

    @_once
    def participant(self) -> str:
        return self.data.cell("participant", 0) if self.data.n else ""

    @_once
    def session(self) -> int:
        text = self.data.cell("session", 0) if self.data.n else ""
        return int(text) if text.isdigit() else 0

    @property
    def status(self) -> str:
        """``completed``, ``aborted`` (a session_end row's reason) or ``incomplete``."""
        rows = self._rows("session_end")
        if not len(rows):
            return "incomplete"
        return self.data.cell("reason", int(rows[-1])) or "completed"

    def count(self, event: str) -> int:
        """How many rows hold ``event``."""
        return len(self._rows(event))

    def _rows(self, event: str) -> np.ndarray:
        ev = self.data.coded("event")
        if event not in ev.values:
            return np.empty(0, np.int64)
        return np.flatnonzero(np.asarray(ev.codes) == ev.values.index(event))


def find_logs(inputs: list[str | Path], exclude: Path | None = None) -> list[Path]:
    """The event logs among ``inputs``: :func:`tol_analysis.read.find.find_logs`, also here for
    the researchers' scripts that import it with :func:`read_session` (docs/scoring.md)."""
    return _find.find_logs(inputs, exclude)


# --------------------------------------------------------------------------- reading a log
def read_session(path: str | Path) -> SessionLog:
    """Read one event log (and its sidecar, if present).

    Raises
    ------
    EventLogError
        Naming the file, the row and the fault.
    """
    p = Path(path)
    batch = _Batch()
    data = None
    resaved: list[str] = []
    if batch.add(p):
        warnings = batch.files[0][2]
        data = batch.parse()
    if data is None:
        data, warnings, resaved = _read_careful(p)
    return _session(p, data, warnings, resaved)


def read_sessions(paths: Iterable[str | Path]) -> Iterator[tuple[Path, SessionLog | EventLogError]]:
    """Read logs, several files at a time; yield ``(path, SessionLog or EventLogError)`` in order.

    Memory holds one batch of files (:data:`BATCH_BYTES`), never all of them.
    """
    batch = _Batch(room=BATCH_BYTES + (1 << 20))
    for item in paths:
        path = Path(item)
        if not batch.add(path):
            yield from _flush(batch)
            yield path, _read_one(path)
        elif batch.size >= BATCH_BYTES:
            yield from _flush(batch)
    yield from _flush(batch)


def _read_one(path: Path) -> SessionLog | EventLogError:
    try:
        return read_session(path)
    except EventLogError as exc:
        return exc


def _flush(batch: _Batch):
    if not batch.files:
        return
    files = batch.files
    data = batch.parse()
    if data is None:
        for path, _, _ in files:
            yield path, _read_one(path)
        return
    start = 0
    for path, rows, warnings in files:
        try:
            yield path, _session(path, data.slice(start, start + rows), warnings)
        except EventLogError as exc:
            yield path, exc
        start += rows


def _session(p: Path, data: LogColumns, warnings: list[str],
             resaved: list[str] | None = None) -> SessionLog:  # fmt: skip
    if data.n == 0:
        raise EventLogError(f"{p}: has a header but no events.", where=str(p), fix=CELL_FIX)
    first = data.cell("event", 0)
    if first != "session_start":
        where = f"{p}: row {data.row_numbers()[0]}"
        raise EventLogError(
            f"{where}: starts with {first!r}, not session_start: the beginning of the log "
            "is missing.", where=where, field="event", value=first, fix=CELL_FIX,
        )  # fmt: skip
    side = p.with_suffix(".json")
    if not side.is_file():
        return SessionLog(p, data, warnings)
    from tol_tasks.session_data.sidecar import Sidecar, SidecarError

    try:
        log = SessionLog(p, data, warnings, Sidecar.read(side), side)
    except SidecarError as exc:
        return SessionLog(p, data, warnings, sidecar_error=str(exc))
    faults = sidecar_disagrees(log, every=bool(resaved))
    if faults:
        where, text, fix = faults[0]
        how = (f" The log was re-saved by a spreadsheet ({', '.join(resaved)}), which can "
               "change cells." if resaved else "")  # fmt: skip
        raise EventLogError(f"{where}: {text}.{how}", where=where, field="sidecar",
                            fix=RESAVED_FIX if resaved else fix)  # fmt: skip
    return log


#: What to do about a sidecar that does not match its log.
SIDECAR_FIX = (
    "put back the sidecar (.json) the recorder wrote beside this log (a sidecar is never "
    "edited, nor copied from another session); to score the log alone, move the sidecar away."
)


def sidecar_disagrees(log: SessionLog, every: bool = False) -> list[tuple[str, str, str]]:
    """Where the sidecar beside a log contradicts it: ``(where, what, fix)`` for each fault.

    Always checked: the sidecar names this log's protocol (its SHA-256 is the one the
    log's session_start row gives, or one a resume row of the log or the sidecar's own
    ``resumes`` took up), and its protocol text has that SHA-256. With ``every`` (a log a
    spreadsheet re-saved), also its participant, session and number of rows.
    """
    meta = log.sidecar
    if meta is None or not log.data.n:
        return []
    first = _FirstRow(log)
    out = []
    detail = log.start
    stated = detail.get("sha256", "")
    proto = meta.protocol
    if stated and "protocol" in detail and proto is not None and proto.sha256:
        taken_up = {stated} | {n.rsplit("sha256 ", 1)[-1].rstrip(")") for n in
                               (r.note or "" for r in meta.resumes) if "sha256 " in n}  # fmt: skip
        if proto.sha256 not in taken_up:
            out.append((first, f"the sidecar {log.sidecar_path} names protocol "
                        f"{proto.name!r} with SHA-256 {proto.sha256[:12]}..., but the log's "
                        f"session_start row gives {stated[:12]}...: the sidecar belongs to "
                        "another session or protocol", SIDECAR_FIX))  # fmt: skip
    if proto is not None and proto.sha256 and (proto.text or "protocol" in detail):
        digest = _sha256(proto.text or "")
        if digest != proto.sha256:
            out.append((first, f"the protocol text kept in the sidecar {log.sidecar_path} "
                        f"does not have the SHA-256 it states ({proto.sha256[:12]}...; the "
                        f"text's is {digest[:12]}...): the text was changed after the "
                        "session", SIDECAR_FIX))  # fmt: skip
    source = meta.source
    if (
        stated
        and "format" in detail
        and source is not None
        and source.sha256
        and (stated not in source.sha256)
    ):
        out.append((first, f"the sidecar {log.sidecar_path} names the source file(s) "
                        f"{', '.join(source.files)}, but the log's session_start row gives "
                        f"another source's SHA-256 ({stated[:12]}...)", SIDECAR_FIX))  # fmt: skip
    if every:
        if meta.participant != log.participant:
            out.append((first, f"the sidecar's participant is {meta.participant!r}, the "
                        f"log's {log.participant!r}", RESAVED_FIX))  # fmt: skip
        if meta.session != log.session:
            out.append((first, f"the sidecar's session is {meta.session}, the log's "
                        f"{log.session}", RESAVED_FIX))  # fmt: skip
    return [(str(where), text, fix) for where, text, fix in out]


class _FirstRow:
    """Where a log's first row is, as a message names it (made only when said)."""

    def __init__(self, log: SessionLog) -> None:
        self.log = log

    def __str__(self) -> str:
        return f"{self.log.path}: row {self.log.data.row_numbers()[0]}"


@lru_cache(maxsize=64)
def _sha256(text: str) -> str:
    """The SHA-256 of a protocol text (the same text is kept in many sidecars)."""
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def _kinds() -> dict[str, str]:
    return {c["name"]: c["type"] for c in codebook()["columns"]}


def _read_careful(path: Path) -> tuple[LogColumns, list[str], list[str]]:
    """The event log's own reader, then every cell checked against the codebook, and times
    that go backwards refused: (columns, warnings, how a spreadsheet re-saved it)."""
    data = read_event_log(path)
    check_cells(data)
    names = columns()
    cols = list(zip(*data.records, strict=True)) if data.records else [()] * len(names)
    by_name = dict(zip(names, cols, strict=True))
    kinds = _kinds()
    for name in names:
        if kinds[name] == "integer":
            for row, value in zip(by_name["row"], by_name[name], strict=True):
                if len(value) > _DIGITS:
                    raise EventLogError(
                        f"{path}: row {row}: column {name!r} holds {value!r}, a whole number "
                        f"of more than {_DIGITS} digits, which no recorder writes.",
                        where=f"{path}: row {row}", field=name, value=value, fix=CELL_FIX,
                    )  # fmt: skip
    numbers = np.array([int(r) for r in by_name["row"]], np.int64)
    if np.array_equal(numbers, np.arange(1, len(numbers) + 1)):
        numbers = None
    clock = np.array([float(v) if v else np.nan for v in by_name["time"]], np.float64)
    _check_clock(path, clock, by_name["row"])
    time = np.array([float(v) if v else np.nan for v in by_name[TIME]], np.float64)
    texts = {c: list(by_name[c]) for c in TEXT_COLUMNS}
    return LogColumns.from_texts(texts, time, numbers), list(data.warnings), data.resaved


#: What to do about a log whose times go backwards.
CLOCK_FIX = (
    "restore the log from a backup (a recorder's clock never runs backwards: the rows were "
    "edited, or two logs were pasted together)."
)


def _check_clock(path: Path, clock: np.ndarray, rows) -> None:
    """Refuse a log whose session time (the ``time`` column) goes backwards."""
    have = np.flatnonzero(~np.isnan(clock))
    back = np.flatnonzero(np.diff(clock[have]) < 0)
    if not len(back):
        return
    a, b = int(have[back[0]]), int(have[back[0] + 1])
    where = f"{path}: row {rows[b]}"
    raise EventLogError(
        f"{where}: its time {clock[b]:.6f} s is before the time of row {rows[a]} "
        f"({clock[a]:.6f} s): the times go backwards.", where=where, field="time",
        value=f"{clock[b]:.6f}", fix=CLOCK_FIX,
    )  # fmt: skip


def _last_line_end(data: np.ndarray) -> int:
    """Where the last complete line of ``data`` (bytes holding a line break) ends: looked
    for in the last few KB (a torn line is short), else in the whole."""
    tail = data[-4096:]
    ends = np.flatnonzero(tail == 10)
    if not len(ends):
        ends = np.flatnonzero(data == 10)
        return int(ends[-1]) + 1
    return len(data) - len(tail) + int(ends[-1]) + 1


class _Batch:
    """Log files read one after another into one buffer (their rows, without their headers),
    for one Arrow parse."""

    def __init__(self, room: int = 0) -> None:
        self._room = room  # bytes made room for at the first file (then grown as needed)
        self.buf = np.empty(0, np.uint8)  # not zero-filled: every byte used is read into it
        self.size = 0
        self.files: list[tuple[Path, int, list[str]]] = []  # (path, rows, warnings)
        self._header = (",".join(columns()) + "\n").encode()

    def add(self, path: Path) -> bool:
        """Append a log of the current format; False (and nothing appended) for anything
        the careful reader must look at."""
        try:
            with path.open("rb") as f:
                if f.read(len(self._header)) != self._header:
                    return False
                body = os.fstat(f.fileno()).st_size - len(self._header)
                if len(self.buf) < self.size + body:
                    self._grow(self.size + body)
                got = f.readinto(memoryview(self.buf)[self.size : self.size + body])
        except OSError:
            return False
        start, stop = self.size, self.size + got
        rows = int(np.count_nonzero(self.buf[start:stop] == 10))  # lines ended, in one pass
        if not rows:
            return False  # a header only, or one torn line: the careful reader says which
        end = start + _last_line_end(self.buf[start:stop])
        part = self.buf[start:end]
        if part.max() >= 0x80:
            try:
                part.tobytes().decode("utf-8")
            except UnicodeDecodeError:
                return False
        warnings = []
        if end < stop:
            warnings.append(f"{path}: row {rows + 1}: torn last line ignored (the session "
                            "was cut off).")  # fmt: skip
        self.files.append((path, rows, warnings))
        self.size = end
        return True

    def _grow(self, need: int) -> None:
        """Room for ``need`` bytes: the batch's ``room`` at once (and twice as much when a file
        needs more), so that appending a file copies none of the files before it."""
        grown = np.empty(max(need, 2 * len(self.buf), self._room), np.uint8)
        grown[: self.size] = self.buf[: self.size]
        self.buf = grown

    def parse(self) -> LogColumns | None:
        """The rows of every file (see :func:`_parse`); the batch is then empty."""
        body = memoryview(self.buf)[: self.size]
        counts = np.array([rows for _, rows, _ in self.files], np.int64)
        self.buf, self.size, self.files = np.empty(0, np.uint8), 0, []  # Arrow may keep the old one
        return _parse(body, counts)


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _goes_back(clock: np.ndarray, counts: np.ndarray) -> bool:
    """Whether any file's session times (``counts`` rows each, one after another) go back."""
    if not len(clock):
        return False
    have = ~np.isnan(clock)
    if have.all():
        step = np.diff(clock) < 0
        step[(np.cumsum(counts) - 1)[:-1]] = False  # from one file's last row to the next's first
        return bool(step.any())
    file_of = np.repeat(np.arange(len(counts)), counts)[have]
    kept = clock[have]
    return bool(((np.diff(kept) < 0) & (file_of[1:] == file_of[:-1])).any())


def _numbered(row: np.ndarray, counts: np.ndarray) -> bool:
    """Whether the ``row`` numbers of files one after another (``counts`` rows each, none
    empty) are each file's 1, 2, 3, ...: every file's first 1, and each next one more."""
    if not len(row):
        return True
    starts = np.cumsum(counts) - counts
    if (row[starts] != 1).any():
        return False
    step = np.diff(row)
    step[starts[1:] - 1] = 1  # into the next file: its first row was looked at
    return bool((step == 1).all())


def _digits_only(array: pa.Array) -> bool:
    """Whether every text of a string array is empty or a whole number of at most
    :data:`_DIGITS` ASCII digits (anything else, another script's digits included, is
    for the careful reader to judge): one look at its bytes, no text made."""
    ends = offsets(array)
    if len(array) and int(np.diff(ends).max()) > _DIGITS:
        return False
    if ends[0] == ends[-1]:
        return True
    data = np.frombuffer(array.buffers()[2], np.uint8, int(ends[-1] - ends[0]), int(ends[0]))
    return bool((data - np.uint8(48) < 10).all())  # below "0" wraps round to 208 and up


def _parse(body, counts: np.ndarray) -> LogColumns | None:
    """Arrow's reader over the complete rows of several files (one after another, ``counts``
    rows each): their columns, or None when any cell, event or row number needs the careful
    reader."""
    kinds = _kinds()
    wanted = [*TEXT_COLUMNS, TIME, *_CHECKED]
    types = {c: pa.float64() if kinds[c] == "float" else pa.string() for c in wanted}
    types["row"] = pa.int64()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(body)),
            # One block, one thread: threads save little on two cores and hold more memory.
            read_options=pacsv.ReadOptions(column_names=list(columns()), use_threads=False,
                                           block_size=len(body) + 1),
            parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=wanted, null_values=[""],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
                check_utf8=False,  # checked as the files were read
            ),
        )  # fmt: skip
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows != counts.sum():
        return None
    row = _one_array(table["row"])
    if row.null_count or not _numbered(to_numpy(row), counts):
        return None  # a row is missing or misnumbered: the careful reader says which
    for c in wanted:
        if kinds[c] == "float":
            column = _one_array(table[c])
            values = to_numpy(column)
            if np.count_nonzero(~np.isfinite(values)) != column.null_count:
                return None  # nan, inf: the careful reader names the cell
            if c == "time" and _goes_back(values, counts):
                return None  # the careful reader names the row
    texts = {c: _one_array(table[c]) for c in TEXT_COLUMNS}
    data = LogColumns(texts, to_numpy(_one_array(table[TIME])))
    for c in (*TEXT_COLUMNS, "moves"):
        if kinds[c] == "integer" and not _digits_only(texts[c] if c in texts else
                                                      _one_array(table[c])):  # fmt: skip
            return None
    if not set(data.coded("event").values) <= events():
        return None
    return data

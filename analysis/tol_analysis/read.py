"""Finding event logs in data folders and reading each one into columns.

A log is read whole into a :class:`SessionLog`: its columns as integer codes
into their distinct texts (:class:`~tol_tasks.session_data.attempts.Coded`)
and its times as numbers, with every numeric cell and every event checked
against the event log's codebook. Well-formed logs are parsed by Arrow's CSV
reader; anything unusual (a row numbering gap, a cell that is not what its
column holds, a damaged line, another encoding) is read again by
:func:`tol_tasks.session_data.read_event_log`, the event log's own reader,
which names the file, the row and the fault.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tol_tasks.session_data.attempts import Coded
from tol_tasks.session_data.eventlog import (
    READABLE_VERSIONS,
    EventLogError,
    check_cells,
    codebook,
    columns,
    events,
    read_event_log,
)

#: File names tol-score writes; never read back as session logs.
OUTPUT_NAMES = {"moves.csv", "trials.csv", "sessions.csv", "wide.csv", "copy_moves.csv"}

#: Columns scoring does not use and that hold free text: not read.
_UNUSED = ("piece", "input", "stamp")


@dataclass
class LogColumns:
    """One log's complete rows as columns (row ``i`` is file row ``i + 2``).

    Text columns are :class:`Coded`; ``numbers`` holds the float64 values of the
    codebook's float columns (NaN for an empty cell) by name.
    """

    n: int
    text: dict[str, Coded]
    numbers: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> Coded:
        return self.text[name]

    def cell(self, name: str, row: int) -> str:
        c = self.text[name]
        return c.values[c.codes[row]]


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
    sidecar : dict or None
        The JSON sidecar beside it, if there is one (never needed for scores).
    """

    path: Path
    data: LogColumns
    warnings: list[str] = field(default_factory=list)
    sidecar: dict | None = None

    @property
    def n_events(self) -> int:
        return self.data.n

    @property
    def participant(self) -> str:
        return self.data.cell("participant", 0) if self.data.n else ""

    @property
    def session(self) -> int:
        text = self.data.cell("session", 0) if self.data.n else ""
        return int(text) if text.isdigit() else 0

    @property
    def status(self) -> str:
        """``completed``, ``aborted`` (a session_end row's reason) or ``incomplete``."""
        ev = self.data["event"]
        end = ev.values.index("session_end") if "session_end" in ev.values else -1
        rows = np.flatnonzero(np.asarray(ev.codes) == end)
        if not len(rows):
            return "incomplete"
        return self.data.cell("reason", int(rows[-1])) or "completed"

    def count(self, event: str) -> int:
        """How many rows hold ``event``."""
        ev = self.data["event"]
        if event not in ev.values:
            return 0
        return int(np.count_nonzero(np.asarray(ev.codes) == ev.values.index(event)))


# --------------------------------------------------------------------------- finding logs
@dataclass
class Scan:
    """What a search of the inputs found.

    Attributes
    ----------
    logs : list of Path
        Event logs (and files named as inputs, which are always read as logs).
    left_out : list of Path
        Other CSV files in the folders searched (an experiment's own data file,
        a participant list): not event logs, left out.
    """

    logs: list[Path] = field(default_factory=list)
    left_out: list[Path] = field(default_factory=list)


def scan(inputs: list[str | Path], exclude: Path | None = None) -> Scan:
    """Event log files among ``inputs`` (files, or folders searched recursively).

    In folders, a ``.csv`` file is an event log when its first line is an event
    log's header, or looks like one (it begins with ``row``, or names most of
    the event log's columns: a damaged log, which reading will refuse). Other
    CSV files, such as an ExperimentHandler's data file or a participant list
    kept beside the logs, are left out (:attr:`Scan.left_out`), as are the
    tables tol-score writes and anything under ``exclude``. A file named as an
    input is always read as an event log.

    Raises
    ------
    FileNotFoundError
        Naming an input that does not exist.
    """
    found = Scan()
    skip = exclude.resolve() if exclude is not None else None
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            for f in sorted(p.rglob("*.csv")):
                if f.name in OUTPUT_NAMES:
                    continue
                if skip is not None and skip in f.resolve().parents:
                    continue
                (found.logs if _looks_like_a_log(f) else found.left_out).append(f)
        elif p.is_file():
            found.logs.append(p)
        else:
            raise FileNotFoundError(
                f"{p}: no such file or folder. Suggested fix: give event log files (.csv) "
                "written by tol-run, or folders holding them."
            )
    found.logs = list(dict.fromkeys(found.logs))
    found.left_out = [f for f in dict.fromkeys(found.left_out) if f not in found.logs]
    return found


def find_logs(inputs: list[str | Path], exclude: Path | None = None) -> list[Path]:
    """The event logs among ``inputs``: :attr:`Scan.logs` of :func:`scan`."""
    return scan(inputs, exclude).logs


def _looks_like_a_log(path: Path) -> bool:
    """Whether a CSV file found in a folder is (or was meant to be) an event log: by its header."""
    try:
        with path.open("rb") as f:
            head = f.readline(65536)
    except OSError:
        return True  # reading it will say why it cannot be read
    text = head.decode("utf-8-sig", errors="replace").strip("\r\n")
    if not text:
        return True  # empty: a log cut off as it was created, which reading reports
    names = next(csv.reader([text]), [])
    if names[:1] == ["row"]:
        return True
    ours = set(columns())
    return len(ours & set(names)) * 2 > len(ours)


# --------------------------------------------------------------------------- reading a log
def read_session(path: str | Path) -> SessionLog:
    """Read one event log (and its sidecar, if present).

    Raises
    ------
    EventLogError
        Naming the file, the row and the fault.
    """
    p = Path(path)
    got = _read_fast(p)
    if got is None:
        got = _read_careful(p)
    data, warnings = got
    return _session(p, data, warnings)


def _session(p: Path, data: LogColumns, warnings: list[str]) -> SessionLog:
    if data.n == 0:
        raise EventLogError(f"{p}: has a header but no events.")
    first = data.cell("event", 0)
    if first != "session_start":
        raise EventLogError(
            f"{p}: row 2: starts with {first!r}, not session_start: the "
            "beginning of the log is missing."
        )
    sidecar = None
    side = p.with_suffix(".json")
    if side.is_file():
        try:
            sidecar = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            warnings.append(f"{side}: sidecar unreadable ({exc}); scored from the log alone.")
    return SessionLog(p, data, warnings, sidecar)


def _kinds() -> dict[str, str]:
    return {c["name"]: c["type"] for c in codebook()["columns"]}


def _read_careful(path: Path) -> tuple[LogColumns, list[str]]:
    """The event log's own reader, then every cell checked against the codebook."""
    data = read_event_log(path)
    check_cells(data)
    kinds = _kinds()
    cols = list(zip(*data.records, strict=True)) if data.records else [()] * len(columns())
    text, numbers = {}, {}
    for name, values in zip(columns(), cols, strict=True):
        if name in _UNUSED or name == "row":
            continue
        if kinds[name] == "float":
            numbers[name] = np.array([float(v) if v else math.nan for v in values], np.float64)
        else:
            seen: dict[str, int] = {}
            codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.int32,
                                count=len(values))  # fmt: skip
            text[name] = Coded(codes, list(seen))
    return LogColumns(len(data.records), text, numbers), list(data.warnings)


class _Prepared:
    """A log file's bytes, checked as far as that can be done without parsing its rows."""

    def __init__(self, path: Path, raw: bytes, head: int, end: int, header: list[str]) -> None:
        self.path, self.raw, self.head, self.end, self.header = path, raw, head, end, header
        self.warnings = []
        if end < len(raw):
            row = raw.count(b"\n", 0, end) + 1
            self.warnings.append(
                f"{path}: row {row}: torn last line ignored (the session was cut off)."
            )

    @property
    def body(self) -> memoryview:
        return memoryview(self.raw)[self.head + 1 : self.end]


def _prepare(path: Path) -> _Prepared | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    head = raw.find(b"\n")
    end = raw.rfind(b"\n") + 1
    if head < 0 or end <= head + 1 or b"\r" in raw[:head]:
        return None
    header = next(csv.reader([raw[:head].decode("utf-8")]))
    if header not in [list(columns(v)) for v in READABLE_VERSIONS]:
        return None
    return _Prepared(path, raw, head, end, header)


def _parse(header: list[str], body) -> tuple[dict, dict, int] | None:
    """Arrow's reader over complete rows: (coded text columns, float columns, rows), or None."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    kinds = _kinds()
    wanted = [c for c in header if c not in _UNUSED]
    types = {}
    for c in wanted:
        if c == "row":
            types[c] = pa.string()
        elif kinds[c] == "float":
            types[c] = pa.float64()
        else:
            types[c] = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(body)),
            read_options=pacsv.ReadOptions(column_names=header),
            parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=wanted, null_values=[""],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
            memory_pool=pa.system_memory_pool(),  # gives memory back between batches
        ).unify_dictionaries()  # fmt: skip
    except (pa.ArrowException, ValueError):
        return None
    n = table.num_rows
    text, numbers = {}, {}
    for c in wanted:
        col = table[c].combine_chunks()
        if c == "row":
            text[c] = col
            continue
        if kinds[c] == "float":
            values = col.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
            empty = col.is_null().to_numpy(zero_copy_only=False)
            if (~np.isfinite(values) & ~empty).any():
                return None  # nan, inf: the careful reader names the cell
            numbers[c] = values
            continue
        values = col.dictionary.to_pylist()
        if kinds[c] == "integer" and not all(v.isdigit() or v == "" for v in values):
            return None
        text[c] = Coded(col.indices.to_numpy(zero_copy_only=False), values)
    if not set(text["event"].values) <= events():
        return None
    if "copy_of" not in text:  # format 1: no copy trials
        text["copy_of"] = Coded(np.zeros(n, np.int32), [""])
    return text, numbers, n


def _numbered(rows, counts: list[int]) -> bool:
    """Whether the row column numbers each file's rows 1, 2, 3, ... (as text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    expected = np.concatenate([np.arange(1, k + 1) for k in counts]) if counts else np.empty(0)
    return bool(pc.all(pc.equal(rows, pa.array(expected).cast(pa.string()))).as_py())


def _read_fast(path: Path) -> tuple[LogColumns, list[str]] | None:
    """Arrow's reader for a well-formed log; None when the careful reader must look at it."""
    prep = _prepare(path)
    if prep is None:
        return None
    got = _parse(prep.header, prep.body)
    if got is None:
        return None
    text, numbers, n = got
    if n == 0 or not _numbered(text.pop("row"), [n]):
        return None  # a row is missing or misnumbered: the careful reader says which
    return LogColumns(n, text, numbers), prep.warnings


#: Logs read together by read_sessions, up to this many bytes at once.
BATCH_BYTES = 8 << 20


def read_sessions(paths: list[Path]):
    """Read logs, several files at a time; yield ``(path, SessionLog or EventLogError)``.

    Memory holds one batch of files (:data:`BATCH_BYTES`), never all of them.
    """
    batch: list[_Prepared] = []
    size = 0
    for path in paths:
        prep = _prepare(Path(path))
        if prep is None or prep.header != list(columns()):
            yield from _flush(batch)
            batch, size = [], 0
            yield path, _read_one(Path(path))
            continue
        batch.append(prep)
        size += len(prep.raw)
        if size >= BATCH_BYTES:
            yield from _flush(batch)
            batch, size = [], 0
    yield from _flush(batch)


def _read_one(path: Path):
    try:
        return read_session(path)
    except EventLogError as exc:
        return exc


def _flush(batch: list[_Prepared]):
    if not batch:
        return
    counts = [p.raw.count(b"\n", p.head + 1, p.end) for p in batch]
    got = _parse(batch[0].header, b"".join(p.body for p in batch)) if len(batch) > 1 else None
    if got is None or got[2] != sum(counts) or not _numbered(got[0]["row"], counts):
        for p in batch:
            yield p.path, _read_one(p.path)
        return
    text, numbers, _ = got
    text.pop("row")
    start = 0
    for p, k in zip(batch, counts, strict=True):
        cut = slice(start, start + k)
        data = LogColumns(k, {c: Coded(v.codes[cut], v.values) for c, v in text.items()},
                          {c: v[cut] for c, v in numbers.items()})  # fmt: skip
        start += k
        try:
            yield p.path, _session(p.path, data, list(p.warnings))
        except EventLogError as exc:
            yield p.path, exc

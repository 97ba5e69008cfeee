"""The event log: the one data contract between the runner and every score.

Writing: :class:`~tol_tasks.session_data.livelog.EventLog` (its own module) appends one
CSV row per event as it happens. Reading: :func:`read_event_log` accepts a log cut
anywhere (a torn last line is reported, not fatal) and refuses foreign files
with a message naming the file, the row and the fault.

The columns are described by the codebook ``codebook/events-v3.json`` that
ships with the package (:func:`codebook`). Logs of format 1 (before yoked copy
trials) are still read: their rows come back in format 3's columns, with an
empty ``copy_of``; a resumed format 1 log is continued in format 1. Formats 2
and 3 share their columns (3 adds events), so a format 2 log is read as it is
and continued in format 3 (its sidecar then says 3).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from tol_tasks.errors import TolTasksError

from ._gc import gc_paused

#: Version of the event log format written by this release.
EVENT_LOG_VERSION = 3

#: Every format this release reads (each has its codebook ``events-v<n>.json``).
READABLE_VERSIONS = (1, 2, 3)


@cache
def codebook(version: int = EVENT_LOG_VERSION) -> dict[str, Any]:
    """The event log codebook: columns (name, type, unit, description) and event types.

    Parameters
    ----------
    version : int
        The format (default: the one this release writes).
    """
    if version not in READABLE_VERSIONS:
        raise ValueError(f"event log format {version!r} is not one of {READABLE_VERSIONS}")
    text = (
        resources.files("tol_tasks.session_data.codebook")
        .joinpath(f"events-v{version}.json")
        .read_text("utf-8")
    )
    return json.loads(text)


@cache
def columns(version: int = EVENT_LOG_VERSION) -> tuple[str, ...]:
    """The event log's columns, in order (of format ``version``)."""
    return tuple(c["name"] for c in codebook(version)["columns"])


@cache
def events() -> frozenset[str]:
    """The event names of this format (the codebook's ``events``)."""
    return frozenset(codebook()["events"])


def column_index() -> dict[str, int]:
    """Each column's position in a row (for code that reads rows as lists)."""
    return {name: i for i, name in enumerate(columns())}


#: What a log that never started is called in messages.
NEVER_STARTED = "never started"


def never_started(path: str | Path) -> bool:
    """Whether the file at ``path`` is an event log that never started: it holds no event.

    A session cut off (a kill, a crash, a full disk) after its log was created and
    before its first row was whole leaves such a file: empty, an event log's header
    (perhaps itself cut), or the header and a first row cut before its end. Readers
    name it and leave it out; it is kept (never deleted) and blocks nothing.
    A file that is not an event log's beginning, or cannot be read, is not one.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES + 1)
    except OSError:
        return False
    return never_started_head(head)


#: How much of a log's beginning :func:`read_head` reads: the header and the first row.
HEAD_BYTES = 65536


def read_head(path: str | Path) -> bytes:
    """A log's first :data:`HEAD_BYTES` bytes and one more (what :func:`never_started_head`
    and :func:`first_row_in` look at; one read of the file for both).

    Raises
    ------
    OSError
        It cannot be read.
    """
    with open(path, "rb") as f:
        return f.read(HEAD_BYTES + 1)


def never_started_head(head: bytes) -> bool:
    """:func:`never_started` of a log whose beginning is ``head`` (:func:`read_head`)."""
    if len(head) > HEAD_BYTES:
        return False
    first, newline, rest = head.partition(b"\n")
    if b"\n" in rest:
        return False  # a whole row after the header
    if rest and not newline:
        return False  # pragma: no cover - partition puts the rest after a newline
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        return False
    headers = [",".join(columns(v)) for v in READABLE_VERSIONS]
    if not newline:  # no line ended: empty, or a header cut short
        return any(h.startswith(text) for h in headers)
    return text in headers


class EventLogError(TolTasksError, ValueError):
    """An event log cannot be read; the message names the file, the row and the fault."""


class EventLogWriteError(TolTasksError, OSError):
    """An event could not be written (disk full, file too large, folder gone)."""


def _typed_columns() -> tuple[tuple[int, str, str], ...]:
    """(index, name, type) of the columns whose cells must hold numbers."""
    return tuple(
        (i, c["name"], c["type"])
        for i, c in enumerate(codebook()["columns"])
        if c["type"] in ("integer", "float")
    )


_TYPED = _typed_columns()
_EVENT_INDEX = column_index()["event"]
_EVENTS = events()

_EXPECTED = {
    "integer": "a whole number of 0 or more, or an empty cell",
    "float": "a number (seconds or pixels, as the codebook says), or an empty cell",
}


#: What to do about a damaged cell or row: logs are written by the recorder, never by hand.
CELL_FIX = "restore the file from a backup (event logs are never edited by hand)."


def cell_fault(row: list[str]) -> tuple[str, str, str] | None:
    """The first cell of one row that breaks the codebook, or None.

    Returns ``(column, value, what was expected)``: a cell that does not hold
    its codebook type, or an event the codebook does not know.
    """
    for i, name, kind in _TYPED:
        value = row[i]
        if value == "":
            continue
        if kind == "integer":
            ok = value.isdigit()
        else:
            try:
                ok = math.isfinite(float(value))
            except ValueError:
                ok = False
        if not ok:
            return name, value, _EXPECTED[kind]
    event = row[_EVENT_INDEX]
    if event not in _EVENTS:
        return "event", event, (f"an event of format {EVENT_LOG_VERSION} "
                                f"({', '.join(sorted(_EVENTS))})")  # fmt: skip
    return None


def row_fault(row: list[str]) -> str | None:
    """What is wrong with one row's cells, or None (see :func:`cell_fault`).

    The text names the column, the bad value and what was expected; the fix is the
    caller's (a log on the disk is restored from a backup, a piece sent again).
    """
    fault = cell_fault(row)
    if fault is None:
        return None
    column, value, expected = fault
    return f"column {column!r} holds {value!r}; expected {expected}."


def check_cells(data: EventLogData) -> None:
    """Check every cell of a log against the codebook's types.

    Raises
    ------
    EventLogError
        Naming the file, the row (the log's own ``row`` number), the column,
        the bad value and what was expected (``where``, ``field``, ``value`` and
        ``fix`` attributes too).
    """
    for row in data.records:
        fault = cell_fault(row)
        if fault is not None:
            column, value, expected = fault
            where = f"{data.path}: row {row[0]}"
            resaved = (f" The file was re-saved by a spreadsheet ({', '.join(data.resaved)}), "
                       "which may have changed the cell." if data.resaved else "")  # fmt: skip
            raise EventLogError(
                f"{where}: column {column!r} holds {value!r}; expected {expected}.{resaved}",
                where=where, field=column, value=value,
                fix=RESAVED_FIX if data.resaved else CELL_FIX,
            )  # fmt: skip


def cell(v: Any) -> str:
    """A value as its event log cell: empty for None, 1/0 for a bool, six decimals for a
    float, anything else as text with its line breaks made spaces (one row per line)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return f"{v:.6f}"
    # One row per line, always: line breaks inside a value become spaces.
    return str(v).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


@dataclass
class EventLogData:
    """What :func:`read_event_log` found.

    Attributes
    ----------
    path : Path
    records : list of list of str
        One list per complete row, in the order of :func:`columns` (a format 1
        log's rows are widened to format 3 with empty ``copy_of`` cells).
    warnings : list of str
        Recoverable faults, e.g. a torn last line left by a crash.
    version : int
        The format of the file's header: 1, or 3 for a header of format 2 or 3 (they share
        their columns; the sidecar's ``event_log_version`` says which release wrote it).
    resaved : list of str
        How a spreadsheet's re-save changed the file (its encoding, separator,
        line ends); empty for a log as the recorder wrote it.
    """

    path: Path
    records: list[list[str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    version: int = EVENT_LOG_VERSION
    resaved: list[str] = field(default_factory=list)
    _rows: list[dict[str, str]] | None = field(default=None, repr=False)

    @property
    def rows(self) -> list[dict[str, str]]:
        """One dict per complete row, column name -> text (built on first use)."""
        if self._rows is None:
            cols = columns()
            self._rows = [dict(zip(cols, r, strict=True)) for r in self.records]
        return self._rows


def read_event_log(path: str | Path) -> EventLogData:
    """Read an event log, tolerating a torn last line and a spreadsheet's re-save.

    The writer ends every row with a newline in the same write, so a last line
    without one was cut off by a crash. It is never trusted, even when its
    fields look complete (the last of them may be truncated), and a warning
    says so. A log opened and saved again by a spreadsheet program (UTF-16 text,
    a byte-order mark, ``;`` or tabs between cells, Windows line ends) is read
    as the spreadsheet wrote it, with a warning (:attr:`EventLogData.resaved`
    says how); its cells must still be what the codebook says.

    Raises
    ------
    EventLogError
        If the file is missing, not an event log, damaged before its last
        line, or has rows out of order.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise EventLogError(f"{p}: cannot be read: {exc.strerror}.", where=str(p)) from None
    out = EventLogData(p)
    text = _decode(p, raw, out.resaved)
    lines = text.split("\n")
    torn = lines.pop()
    if not lines:
        lines = [torn] if torn else []  # only a header, cut before its newline
    elif torn:
        out.warnings.append("")  # said once the last whole row's number is known
    expected = list(columns())
    if not lines or not lines[0].strip():
        raise EventLogError(
            f"{p}: empty file, not a tol-tasks event log (no header row).", where=str(p)
        )
    delimiter, header = _header(lines[0])
    if delimiter != ",":
        out.resaved.append(f"{_DELIMITER_NAMES[delimiter]} between cells")
    for version in reversed(READABLE_VERSIONS):  # the newest of the formats with this header
        if header == list(columns(version)):
            out.version = version
            break
    else:
        missing = [c for c in expected if c not in header]
        raise EventLogError(
            f"{p}: the header (line 1): not a tol-tasks event log (format "
            f"{', '.join(map(str, READABLE_VERSIONS[:-1]))} or {READABLE_VERSIONS[-1]}): the header "
            + (f"lacks {', '.join(missing[:5])}." if missing else "has other columns."),
            where=f"{p}: line 1",
            field="header",
            fix="give the .csv event log written by tol-run.",
        )
    if out.resaved:
        out.warnings.append(
            f"{p}: re-saved by a spreadsheet program ({', '.join(out.resaved)}); read as it "
            "was saved. Keep the log the recorder wrote: a spreadsheet can change cells "
            "(numbers, dates, leading zeros) without saying so."
        )
    width = len(header)
    records = out.records
    with gc_paused():
        _parse_rows(p, lines, width, records, out.warnings, delimiter, out.resaved)
        if "" in out.warnings:
            last = int(records[-1][0]) if records else 0
            out.warnings[out.warnings.index("")] = (
                f"{p}: row {last + 1}: torn last line ignored (the session was cut off)."
            )
        if header != expected:
            _widen(records, header, expected)
    return out


#: The cell separators a spreadsheet's "save as CSV" may use, by name.
_DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}

#: What to do about a log a spreadsheet re-saved that cannot be read as it is.
RESAVED_FIX = (
    "use the log tol-run (or the browser, or tol-import) wrote, from a backup if need be; or "
    "save it again from the spreadsheet as \"CSV UTF-8 (comma delimited)\" with '.' as the "
    "decimal point, every cell as text."
)


def _decode(p: Path, raw: bytes, resaved: list[str]) -> str:
    """The text of a log: UTF-8 as written, or what a spreadsheet's re-save made of it
    (a UTF-8 byte-order mark, UTF-16 with its mark, Windows line ends: noted in ``resaved``)."""
    try:
        if raw.startswith(b"\xef\xbb\xbf"):
            text = raw[3:].decode("utf-8")
            resaved.append("a UTF-8 byte-order mark")
        elif raw.startswith(_UTF16):
            text = raw.decode("utf-16")
            resaved.append("UTF-16 text")
        else:
            text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EventLogError(
            f"{p}: not a tol-tasks event log: not {exc.encoding.upper()} text at byte "
            f"{exc.start} (a file saved by a spreadsheet in a legacy encoding, or not a log).",
            where=str(p),
            field="encoding", value=exc.encoding, fix=RESAVED_FIX,
        ) from None  # fmt: skip
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
        resaved.append("Windows line ends")
    return text


@cache
def _header_lines() -> dict[str, tuple[str, ...]]:
    """Each readable format's header line as the recorders write it (commas, no quotes)."""
    return {",".join(columns(v)): columns(v) for v in READABLE_VERSIONS}


def _header(line: str) -> tuple[str, list[str]]:
    """The separator of a log's header line and its names (commas unless another separator
    gives a header this release reads)."""
    known = _header_lines().get(line)
    if known is not None:  # a header as written (most logs): no CSV parsing
        return ",", list(known)
    header = next(csv.reader([line]))
    if any(header == list(columns(v)) for v in READABLE_VERSIONS):
        return ",", header
    for sep in (";", "\t"):
        other = next(csv.reader([line], delimiter=sep))
        if any(other == list(columns(v)) for v in READABLE_VERSIONS):
            return sep, other
    return ",", header


#: The byte-order marks of UTF-16 text.
_UTF16 = (b"\xff\xfe", b"\xfe\xff")


def first_row(path: str | Path) -> dict[str, str] | None:
    """A log's first row (column name -> text), read as :func:`read_event_log` reads the
    file (a spreadsheet's re-save too); None when it has none or is not a log."""
    p = path if isinstance(path, Path) else Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(1 << 12)  # a header and a first row, most often
            if raw.count(b"\n") < 2:
                raw += f.read(HEAD_BYTES - len(raw))
    except OSError:
        return None
    return first_row_in(raw[:HEAD_BYTES], p)


def first_row_in(raw: bytes, path: str | Path) -> dict[str, str] | None:
    """:func:`first_row` of the log ``path`` whose beginning is ``raw`` (:func:`read_head`)."""
    p = path if isinstance(path, Path) else Path(path)
    raw = raw[:HEAD_BYTES]
    try:
        newline = (
            b"\n\x00" if raw[:2] == b"\xff\xfe" else b"\x00\n" if raw[:2] == b"\xfe\xff" else b"\n"
        )
        first = raw.find(newline)
        second = raw.find(newline, first + len(newline)) if first >= 0 else -1
        if second < 0:
            return None  # no whole first row
        text = _decode(p, raw[: second + len(newline)], [])  # the two lines only
    except (OSError, EventLogError):
        return None
    lines = text.split("\n")
    if len(lines) < 3:  # a header and a whole first row (its newline read)
        return None
    delimiter, header = _header(lines[0])
    try:
        values = next(csv.reader([lines[1]], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return None
    return dict(zip(header, values, strict=False))


def _widen(records: list[list[str]], header: list[str], expected: list[str]) -> None:
    """Rows of an older format, in place, in the current columns (new cells empty)."""
    where = [header.index(c) if c in header else None for c in expected]
    for k, row in enumerate(records):
        records[k] = [row[i] if i is not None else "" for i in where]


def _parse_rows(p: Path, lines: list[str], width: int, records: list, warnings: list,
                delimiter: str = ",", resaved: list[str] | None = None) -> None:  # fmt: skip
    """The rows after the header, checked for their width and their numbering: a row
    number that skips is a lost row (a warning); one that does not increase is rows out of
    order (an error: a log is written in order, so it was edited or sorted)."""
    last = 0
    try:
        for i, values in enumerate(csv.reader(lines[1:], delimiter=delimiter), start=2):
            if len(values) != width:
                label = f"row {values[0]}" if values and values[0].isdigit() else "a row"
                where = f"{p}: {label} (line {i})"
                raise EventLogError(
                    f"{where}: {len(values)} fields, expected {width}. The file is damaged "
                    "before its end" + (f" (re-saved by a spreadsheet: {', '.join(resaved)})"
                                        if resaved else "") + ".",
                    where=where, fix=RESAVED_FIX if resaved else "restore it from a backup.",
                )  # fmt: skip
            number = values[0]
            if not number.isdigit() or int(number) <= last:
                where = f"{p}: line {i}"
                raise EventLogError(
                    f"{where}: row {number!r} comes after row {last}: the rows are out of "
                    "order (or a row number was changed), so the log was edited or sorted "
                    "after it was written.", where=where, field="row", value=number,
                    fix=CELL_FIX,
                )  # fmt: skip
            if int(number) != last + 1:
                warnings.append(f"{p}: row {number} follows row {last}: "
                                f"{int(number) - last - 1} row(s) missing.")  # fmt: skip
            last = int(number)
            records.append(values)
    except csv.Error as exc:
        where = f"{p}: line {len(records) + 2}"
        raise EventLogError(f"{where}: unreadable CSV ({exc}).", where=where) from None

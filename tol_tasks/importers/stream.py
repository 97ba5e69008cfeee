"""A JSON list of records read as a stream: memory holds the sessions being built, not the file.

:func:`stream_source` reads the file record by record (a 1 MB piece at a time, by msgspec:
:mod:`~tol_tasks.importers.rawlist`; by Python's json where msgspec refuses); the
:class:`~tol_tasks.importers.source.Source` it gives keeps, in ``rows``, only the columns
that say whose row each is, and :meth:`~tol_tasks.importers.source.Source.row` parses a whole row again when its
session is built.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
from array import array
from pathlib import Path

import msgspec

from .rawlist import CHUNK, LIST_OR_OBJECT, OPEN, RECORD, VALUE, NotFastError, raw_records
from .source import ImportSourceError, Source, cell_of, read_source, record_row

#: Bytes read at once when a streamed file's rows are read again (a row and those after it).
WINDOW = 1 << 16

#: A list or object in a streamed source's ``rows`` (the whole value is in :meth:`~tol_tasks.importers.source.Source.row`).
ELIDED = "[...]"


def stream_source(path: str | Path, columns: tuple[str, ...]) -> Source:
    """A JSON list of records read as a stream, for a format that builds its sessions one
    by one (:attr:`~tol_tasks.importers.format.Format.streams`): ``rows`` keep only ``columns`` (those that say whose
    row it is; a list or object there as :data:`ELIDED`), and each whole row is parsed again when :meth:`~tol_tasks.importers.source.Source.row` asks for it,
    so that memory holds the sessions being built, not the file. The file's SHA-256,
    columns, row numbers and errors are those of :func:`read_source`, which reads every
    other file (CSV, text, a JSON object around its records) whole, as does a file that
    cannot be read as a stream (its error then comes from reading it whole).
    """
    p = Path(path)
    try:
        try:
            return _stream(p, columns, fast=True)
        except NotFastError:
            return _stream(p, columns, fast=False)  # Python's json decides
    except _NotAStreamError:
        return read_source(p)


def _stream(p: Path, columns: tuple[str, ...], *, fast: bool) -> Source:
    rows = _Columns(tuple(dict.fromkeys(columns)))
    src = Source(p, "", "json", rows=rows, streamed=True)  # type: ignore[arg-type]
    seen: dict[str, None] = {}
    numbers = src.numbers
    digest = hashlib.sha256()
    spans = array("q")  # each record's first byte and the byte after it, in the file
    if fast:
        try:
            for n, record in raw_records(p, digest, spans):
                if "trialdata" in record and memoryview(record["trialdata"])[0] == OPEN:
                    record = {**record, **RECORD.decode(record["trialdata"])}
                    record.pop("trialdata")  # its keys and cells are the unwrapped row's
                if not seen.keys() >= record.keys():
                    seen.update(dict.fromkeys(record))
                rows.append_raw(record)
                numbers.append(n)
        except msgspec.MsgspecError:
            raise NotFastError from None  # a value msgspec refuses: Python's json decides
    else:
        for n, record in _records(p, digest, spans):
            if type(record.get("trialdata")) is dict:
                record = record_row(record)  # its keys and cells are the unwrapped row's
            if not seen.keys() >= record.keys():
                seen.update(dict.fromkeys(record))
            rows.append(record)
            numbers.append(n)
    rows.close()
    src.sha256 = digest.hexdigest()
    src.columns = list(seen)
    src._reader = _Rows(p, spans)
    return src


class _Columns:
    """A streamed source's ``rows``: a few columns kept column by column (a list of values
    each, repeated values shared, a column's list as long as its last row that has it),
    each row given as a dict of its cells when asked for."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self._named = frozenset(names)
        self._place = {name: j for j, name in enumerate(names)}
        self.cells: list[list[str | None]] = [[] for _ in names]
        self._same: list[dict[str, str]] = [{} for _ in names]
        self._n = 0
        self._used: list[tuple[str, list[str | None]]] = []  # the columns a row has (close)

    def append(self, record: dict) -> None:
        """Keep the columns of a record (as parsed: each cell as :func:`record_row` makes it):
        only those it has are visited (a set intersection in C), most of them absent."""
        for name in self._named.intersection(record):
            v = record[name]
            if type(v) is not str:
                v = ELIDED if isinstance(v, (list, dict)) else cell_of(v)
            self._keep(self._place[name], v)
        self._n += 1

    def append_raw(self, record: dict[str, msgspec.Raw]) -> None:
        """:meth:`append` of a record whose values are still JSON text (:func:`~tol_tasks.importers.rawlist.raw_records`):
        only the kept columns' values are decoded, a list or object not at all."""
        for name in self._named.intersection(record):
            raw = record[name]
            if memoryview(raw)[0] in LIST_OR_OBJECT:
                v = ELIDED
            else:
                v = VALUE.decode(raw)
                if type(v) is not str:
                    v = cell_of(v)
            self._keep(self._place[name], v)
        self._n += 1

    def _keep(self, j: int, v: str) -> None:
        """Cell ``v`` of column ``j`` in the row being added (repeated values shared)."""
        same = self._same[j]
        if len(same) < 1 << 16:
            v = same.setdefault(v, v)
        cells, n = self.cells[j], self._n
        if len(cells) < n:
            cells.extend([None] * (n - len(cells)))
        cells.append(v)

    def close(self) -> None:
        """Every column made as long as the rows (after the last record)."""
        n = self._n
        for cells in self.cells:
            cells.extend([None] * (n - len(cells)))
        self._used = [
            (k, c) for k, c in zip(self.names, self.cells, strict=True) if c.count(None) < n
        ]

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> dict[str, str]:
        if not 0 <= i < self._n:
            raise IndexError(i)
        return {k: v for k, c in self._used if (v := c[i]) is not None}

    def __iter__(self):
        return (self[i] for i in range(self._n))


_ABSENT = object()


class _NotAStreamError(Exception):
    """The file is not a JSON list of records that decodes as UTF-8: read it whole."""


def _records(p: Path, digest=None, spans: array | None = None):
    """(number from 1, record as parsed: :func:`record_row` makes it a row) of a JSON list,
    parsed as the file is read; ``digest`` takes the file's bytes, ``spans`` each record's
    first byte in the file and the byte after its end."""
    decode = codecs.getincrementaldecoder("utf-8")()
    parse = _DECODER.raw_decode
    buf, pos, n, expect = "", 0, 0, "["
    at, at_byte = 0, 0  # a place in buf and its byte in the file
    try:
        f = p.open("rb")
    except OSError:
        raise _NotAStreamError from None

    def byte(x: int) -> int:  # the file's byte at buf[x] (x from the last place asked)
        nonlocal at, at_byte
        at_byte += x - at if buf.isascii() else len(buf[at:x].encode("utf-8", "surrogatepass"))
        at = x
        return at_byte

    with f:
        head = f.read(len(codecs.BOM_UTF8))
        if head == codecs.BOM_UTF8:  # a byte-order mark: not the text's
            at_byte = len(head)
            if digest is not None:
                digest.update(head)
        else:
            f.seek(0)
        while True:
            raw = f.read(CHUNK)
            if digest is not None:
                digest.update(raw)
            try:
                at_byte, at = byte(pos), 0
                buf = buf[pos:] + decode.decode(raw, final=not raw)
            except UnicodeDecodeError:
                raise _NotAStreamError from None
            pos = 0
            while True:
                pos = _SPACE.match(buf, pos).end()
                if pos == len(buf):
                    break  # read more
                c = buf[pos]
                if expect == "[" and c == "[":
                    expect, pos = "first", pos + 1
                elif expect in ("first", ",") and c == "]":
                    expect, pos = "end", pos + 1
                elif expect == "," and c == ",":
                    expect, pos = "record", pos + 1
                elif expect in ("first", "record"):
                    try:
                        record, end = parse(buf, pos)
                    except ValueError:
                        if raw:
                            break  # cut by the chunk: read more
                        raise _NotAStreamError from None
                    if not isinstance(record, dict):
                        raise _NotAStreamError
                    if spans is not None:
                        spans.append(byte(pos))
                        spans.append(byte(end))
                    expect, pos, n = ",", end, n + 1
                    yield n, record
                else:
                    raise _NotAStreamError  # not a list of records: reading it whole says why
            if not raw:
                if expect != "end":
                    raise _NotAStreamError
                return


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


class _Rows:
    """The whole rows of a streamed file, each parsed again from its own bytes (its place in
    the file, kept by the first reading) when it is asked for: the bytes of the rows that
    follow it in the file are read with it (up to :data:`WINDOW` bytes, one read), as a
    session's rows usually follow each other."""

    def __init__(self, path: Path, spans: array) -> None:
        self.path = path
        self.spans = spans
        self._fd: int | None = None
        self._window = (0, 0, 0, b"")  # first row, row after the last, first byte, bytes

    def take(self, i: int) -> dict:
        """Row ``i`` whole (:func:`record_row` of its record)."""
        return record_row(self.record(i))

    def record(self, i: int) -> dict:
        """Record ``i`` as parsed, read from its bytes in the file."""
        spans = self.spans
        if not 0 <= i < len(spans) // 2:
            raise IndexError(i)
        first, last, lo, data = self._window
        if not first <= i < last:
            first, last, lo, data = self._window = self._read(i)
        raw = data[spans[2 * i] - lo : spans[2 * i + 1] - lo]
        try:
            record = VALUE.decode(raw)  # as Python's json reads it, or refused
        except (msgspec.MsgspecError, ValueError):
            try:  # Python's json decides (NaN, a lone surrogate, a fault)
                text = raw.decode("utf-8")
                record, stop = _DECODER.raw_decode(text)
                if stop != len(text):
                    record = None
            except ValueError:
                record = None
        if type(record) is not dict:
            raise self._changed(i)
        return record

    def _read(self, i: int) -> tuple[int, int, int, bytes]:
        """The window from row ``i``: it and the rows after it, up to :data:`WINDOW` bytes."""
        spans = self.spans
        lo = spans[2 * i]
        last, rows = i + 1, len(spans) // 2
        while last < rows and spans[2 * last + 1] - lo <= WINDOW:
            last += 1
        size = spans[2 * last - 1] - lo
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            data = _pread(self._fd, size, lo)
        except OSError:
            raise self._changed(i) from None
        while last > i and spans[2 * last - 1] - lo > len(data):
            last -= 1  # the file is shorter now: its rows up to its end
        if last == i:
            raise self._changed(i)
        return i, last, lo, data

    def _changed(self, i: int) -> ImportSourceError:
        return ImportSourceError(
            f"{self.path}: changed while it was imported (row {i + 1} is gone). Suggested "
            "fix: import a copy that nothing writes to."
        )

    def reopened(self) -> _Rows:
        """The same rows through a file handle of its own (for a forked copy)."""
        return type(self)(self.path, self.spans)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.close()


def _pread(fd: int, size: int, offset: int) -> bytes:
    """``size`` bytes of the file at ``offset`` (fewer at its end)."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows
    return os.read(fd, size)

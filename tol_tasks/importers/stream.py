"""A JSON list of records read as a stream: memory holds the sessions being built, not the file.

:func:`stream_source` reads the file record by record (a 1 MB piece at a time); the
:class:`~tol_tasks.importers.source.Source` it gives keeps, in ``rows``, only the columns
that say whose row each is, and :meth:`~tol_tasks.importers.source.Source.row` parses a whole row again when its
session is built.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from pathlib import Path

from .source import ImportSourceError, Source, cell_of, read_source, record_row

#: The size of each read of a streamed file.
CHUNK = 1 << 20

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
    rows = _Columns(tuple(dict.fromkeys(columns)))
    src = Source(p, "", "json", rows=rows, streamed=True)  # type: ignore[arg-type]
    seen: dict[str, None] = {}
    numbers = src.numbers
    digest = hashlib.sha256()
    try:
        for n, record in _records(p, digest):
            if type(record.get("trialdata")) is dict:
                record = record_row(record)  # its keys and cells are the unwrapped row's
            if not seen.keys() >= record.keys():
                seen.update(dict.fromkeys(record))
            rows.append(record)
            numbers.append(n)
    except _NotAStreamError:
        return read_source(p)
    rows.close()
    src.sha256 = digest.hexdigest()
    src.columns = list(seen)
    src._reader = _Rows(p)
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
        n = self._n
        for name in self._named.intersection(record):
            j = self._place[name]
            v = record[name]
            if type(v) is not str:
                v = ELIDED if isinstance(v, (list, dict)) else cell_of(v)
            same = self._same[j]
            if len(same) < 1 << 16:
                v = same.setdefault(v, v)
            cells = self.cells[j]
            if len(cells) < n:
                cells.extend([None] * (n - len(cells)))
            cells.append(v)
        self._n = n + 1

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


def _records(p: Path, digest=None):
    """(number from 1, record as parsed: :func:`record_row` makes it a row) of a JSON list,
    parsed as the file is read; ``digest`` takes the file's bytes."""
    decode = codecs.getincrementaldecoder("utf-8-sig")()
    parse = _DECODER.raw_decode
    buf, pos, n, expect = "", 0, 0, "["
    try:
        f = p.open("rb")
    except OSError:
        raise _NotAStreamError from None
    with f:
        while True:
            raw = f.read(CHUNK)
            if digest is not None:
                digest.update(raw)
            try:
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
    """The whole rows of a streamed file, read forward as they are asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wanted: set[int] | None = None
        self.ahead: dict[int, dict] = {}
        self._restart()

    def _restart(self) -> None:
        self._it = _records(self.path)
        self.next = 0  # index of the next row the file gives

    def take(self, i: int) -> dict:
        """Row ``i`` whole (:func:`record_row` of its record)."""
        return record_row(self.record(i))

    def record(self, i: int) -> dict:
        """Record ``i`` as parsed (a list of records read forward as they are asked for)."""
        got = self.ahead.pop(i, None)
        if got is not None:
            return got
        if i < self.next:  # asked again: read the file again from its start
            self.ahead.clear()
            self._restart()
        try:
            while True:
                _n, row = next(self._it)
                k, self.next = self.next, self.next + 1
                if k == i:
                    return row
                if self.wanted is None or k in self.wanted:
                    self.ahead[k] = row
        except (StopIteration, _NotAStreamError):
            raise ImportSourceError(
                f"{self.path}: changed while it was imported (row {i + 1} is gone). Suggested "
                "fix: import a copy that nothing writes to."
            ) from None

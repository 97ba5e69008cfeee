"""Tables gathered batch by batch: :class:`TableBuilder` takes one registry table's columns
(:mod:`tol_analysis.columns`) a few logs at a time and makes the
:class:`~tol_analysis.score.tables.TableData` at the end, or, when the columns waited in a
file, a :class:`SpilledTable` that reads them back a range of rows at a time.

A column's values may be given to :meth:`TableBuilder.add` as: one text for
every row; a list of texts (``None`` for a missing one);
:class:`~tol_tasks.session_data.attempts.Coded` texts; a numpy array (NaN marks
a missing integer or boolean); or a tuple ``(values, missing)``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from tol_analysis.columns import BOOLEAN, FLOAT, INTEGER, STRING, Table
from tol_analysis.score.compact import IN_MEMORY, ChunkStore, Distinct, TextList
from tol_analysis.score.tables import ColumnData, TableData, code_type, smallest_int_type
from tol_tasks.session_data.attempts import Coded


class _Texts:
    """A text column's categories, numbered in order of appearance, and its codes so far."""

    def __init__(self, store: ChunkStore | None = None) -> None:
        self._distinct = Distinct()
        self._store = IN_MEMORY if store is None else store
        self.chunks = self._store.handles()

    def add(self, n: int, value) -> None:
        coder = self._distinct
        if isinstance(value, str):
            codes = np.full(n, coder.codes([value])[0], np.int64)
        elif isinstance(value, Coded):
            codes = coder.codes(value.values)[np.asarray(value.codes)]
        else:
            codes = coder.codes(value)
        self.chunks.append(self._store.put(codes.astype(code_type(len(coder)))))

    def done(self) -> ColumnData:
        dtype = code_type(len(self._distinct))
        chunks, self.chunks = self.chunks, self._store.handles()
        codes = self._store.concat(chunks, dtype)
        return ColumnData(STRING, codes, categories=self._distinct.categories())

    def ready(self) -> None:
        """Settle what :meth:`part` needs once (the chunks kept)."""
        self._dtype = code_type(len(self._distinct))
        self._categories = self._distinct.categories()
        self._distinct = None  # no text is added now: its hashes let go (16 bytes a text)

    def part(self, spans: list[tuple[int, int, int]], n: int) -> ColumnData:
        """Rows of the chunks ``spans`` ((chunk, from, to) each; ``n`` rows in all), as
        :meth:`done` makes them (after :meth:`ready`)."""
        codes = np.empty(n, self._dtype)
        at = 0
        for k, a, b in spans:
            self._store.read_part(self.chunks[k], a, b, codes[at : at + b - a])
            at += b - a
        return ColumnData(STRING, codes, categories=self._categories)


class _Numbers:
    """A numeric column so far, in chunks of the smallest type that holds them, with a mask
    of missing values for the chunks that have one."""

    def __init__(self, kind: str, store: ChunkStore | None = None) -> None:
        self.kind = kind
        self._store = IN_MEMORY if store is None else store
        # (values, missing or None) per chunk; in a file, their numbers one after the other
        # (-1: no missing values).
        self.chunks = self._store.handles()

    def _pairs(self) -> list[tuple]:
        """Each chunk's (values, missing or None)."""
        if isinstance(self.chunks, list):
            return self.chunks
        flat = self.chunks.tolist()
        return [(v, None if m < 0 else m) for v, m in zip(flat[::2], flat[1::2], strict=True)]

    def _pair(self, k: int) -> tuple:
        if isinstance(self.chunks, list):
            return self.chunks[k]
        v, m = self.chunks[2 * k], self.chunks[2 * k + 1]
        return v, None if m < 0 else m

    def add(self, n: int, value) -> None:
        values, missing = _numbers(self.kind, n, value)
        put = self._store.put
        v, m = put(values), None if missing is None else put(missing)
        if isinstance(self.chunks, list):
            self.chunks.append((v, m))
        else:
            self.chunks.extend((v, -1 if m is None else m))

    def done(self) -> ColumnData:
        chunks = self._pairs()
        self.chunks = self._store.handles()
        if not chunks:
            return ColumnData(self.kind, np.empty(0, np.float64 if self.kind == FLOAT else np.int8))
        store = self._store
        dtype = np.result_type(*(store.dtype(v) for v, _ in chunks))
        values = store.concat([v for v, _ in chunks], dtype)
        missing = None
        if any(m is not None for _, m in chunks):
            missing = np.zeros(len(values), bool)
            start = 0
            for v, m in chunks:
                n = store.len(v)
                if m is not None:
                    store.read_into(m, missing[start : start + n])
                start += n
        if self.kind == FLOAT and missing is not None:
            values[missing] = np.nan
            missing = None
        return ColumnData(self.kind, values, missing)

    def ready(self) -> None:
        """Settle what :meth:`part` needs once (the chunks kept)."""
        store = self._store
        chunks = self._pairs()
        self._dtype = (np.result_type(*{store.dtype(v) for v, _ in chunks}) if chunks
                       else np.dtype(np.float64 if self.kind == FLOAT else np.int8))  # fmt: skip

    def part(self, spans: list[tuple[int, int, int]], n: int) -> ColumnData:
        """Rows of the chunks ``spans`` ((chunk, from, to) each; ``n`` rows in all), as
        :meth:`done` makes them (after :meth:`ready`)."""
        store = self._store
        values = np.empty(n, self._dtype)
        missing = None
        at = 0
        for k, a, b in spans:
            v, m = self._pair(k)
            store.read_part(v, a, b, values[at : at + b - a])
            if m is not None:
                if missing is None:
                    missing = np.zeros(n, bool)
                store.read_part(m, a, b, missing[at : at + b - a])
            at += b - a
        if self.kind == FLOAT and missing is not None:
            values[missing] = np.nan
            missing = None
        return ColumnData(self.kind, values, missing)


#: A builder whose kept columns wait on disk (``spill_in``) gives back the memory freed
#: since (``release``) every this many batches: the allocator otherwise keeps the blocks
#: freed between long-lived ones (about 50 MB at a million one-trial sessions).
RELEASE_BATCHES = 64


class TableBuilder:
    """Gathers one table's columns, a few logs at a time; :meth:`done` makes the table.

    Until then each column is kept in chunks of the smallest type that holds
    them (text as codes of 1, 2 or 4 bytes, whole numbers in as few bytes as
    their values need, a mask of missing values only for chunks that have
    one); the table is then made one column at a time, each column's chunks
    let go (and their memory given back, by ``release``) as it is made.

    With a ``sink`` (a :class:`tol_analysis.score.csvfile.TableWriter`, or anything with
    its ``write``), each batch's rows are written there as they come and only the
    columns named in ``keep`` are gathered: memory then holds those, not the table.
    With ``spill_in`` (a folder) too, those columns' chunks wait in an unnamed temporary
    file there until :meth:`done` (memory then holds neither while the logs are scored).
    """

    def __init__(self, table: Table, release: Callable[[], None] = lambda: None,
                 sink=None, keep: Iterable[str] | None = None,
                 spill_in: str | Path | None = None) -> None:  # fmt: skip
        self.table = table
        self.rows = 0
        self.sink = sink
        self._release = release
        kept = set(table.names if keep is None else keep)
        self._names = [c.name for c in table if c.name in kept]
        self._store = ChunkStore(spill_in) if spill_in is not None else None
        self._columns = _new_columns(table, self._names, self._store)
        self._sizes: list[int] = []  # the rows of each chunk (each add)

    def add(self, n: int, columns: dict) -> None:
        """The next ``n`` rows; ``columns`` holds a value for every column of the table."""
        if self.sink is not None and n:
            batch = {c.name: _batch_column(c.type, n, columns[c.name]) for c in self.table}
            self.sink.write(TableData(self.table.names, batch, n))
        for name, column in self._columns.items():
            column.add(n, columns[name])
        self.rows += n
        self._sizes.append(n)
        if self._store is not None and len(self._sizes) % RELEASE_BATCHES == 0:
            self._release()  # blocks freed between those kept (a million ids' codes grow)

    def done(self) -> TableData | SpilledTable:
        """The table; of columns kept in a file (``spill_in``), a :class:`SpilledTable` that
        reads them back a range of rows at a time (the file then its own)."""
        if self._store is not None:
            store, self._store = self._store, None
            columns, self._columns = self._columns, {}
            return SpilledTable(self._names, columns, store, self._sizes)
        out = {}
        try:
            for name in self._names:
                out[name] = self._columns.pop(name).done()
                self._release()
        finally:
            self.close()
        return TableData(self._names, out, self.rows)

    def close(self) -> None:
        """Remove the file the kept chunks wait in (if any)."""
        if self._store is not None:
            self._store.close()


class SpilledTable:
    """A table's columns waiting in an unnamed temporary file (:class:`TableBuilder` with
    ``spill_in``), read back a range of rows at a time (:meth:`slice`): memory holds the
    rows asked for, never the whole columns.

    Attributes
    ----------
    names : list of str
    rows : int
    """

    def __init__(self, names: list[str], columns: dict, store: ChunkStore,
                 sizes: list[int]) -> None:  # fmt: skip
        self.names = list(names)
        self._columns = columns
        self._store = store
        self._starts = np.cumsum(
            [0, *sizes], dtype=np.int64
        )  # each chunk's first row, then the end
        self.rows = int(self._starts[-1])
        for column in columns.values():
            column.ready()
        # The file removed when the table is let go, if not closed before (no warning).
        self._closer = weakref.finalize(self, store.close)

    def __len__(self) -> int:
        return self.rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def kind(self, name: str) -> str:
        column = self._columns[name]
        return STRING if isinstance(column, _Texts) else column.kind

    def categories(self, name: str) -> list[str] | TextList:
        """A text column's distinct texts (its codes index them)."""
        return self._columns[name]._categories

    def slice(self, start: int, stop: int, names: Iterable[str] | None = None) -> TableData:
        """Rows ``start`` to ``stop`` of the columns ``names`` (all: None), read from the file."""
        start, stop = max(0, start), min(max(start, stop), self.rows)
        names = self.names if names is None else list(names)
        spans = []
        starts = self._starts
        k = int(np.searchsorted(starts, start, side="right")) - 1
        at = start
        while at < stop:
            a, b = at - int(starts[k]), min(stop, int(starts[k + 1])) - int(starts[k])
            if b > a:
                spans.append((k, a, b))
            at = int(starts[k + 1])
            k += 1
        n = max(0, stop - start)
        return TableData(names, {name: self._columns[name].part(spans, n) for name in names}, n)

    def __getitem__(self, name: str) -> ColumnData:
        """Column ``name`` whole (read back whole: for a few rows, or to look at)."""
        return self.slice(0, self.rows, [name])[name]

    def close(self) -> None:
        """Remove the file (the columns are then gone)."""
        self._closer()


def _new_columns(table: Table, names: list[str], store: ChunkStore | None = None) -> dict:
    return {c.name: _Texts(store) if c.type == STRING else _Numbers(c.type, store)
            for c in table if c.name in names}  # fmt: skip


def _batch_column(kind: str, n: int, value) -> ColumnData:
    """One batch's ``n`` values of a column (what :meth:`TableBuilder.add` takes) as the
    column a sink writes: the cells :meth:`_Texts.done` and :meth:`_Numbers.done` give for
    that batch alone, made at once (nothing kept, no texts numbered anew: a coded column's
    codes and texts as they are)."""
    if kind == STRING:
        if isinstance(value, str):
            return ColumnData(STRING, np.zeros(n, np.int8), categories=[value])
        if isinstance(value, Coded):
            codes, texts = np.asarray(value.codes), list(value.values)
            if None in texts:  # a missing cell's code: -1, as :class:`_Texts` gives it
                given = np.array([t is not None for t in texts])
                codes = np.where(given, np.cumsum(given) - 1, -1)[codes]
                texts = [t for t in texts if t is not None]
            return ColumnData(STRING, codes, categories=texts)
        return ColumnData.texts(value)
    values, missing = _numbers(kind, n, value)
    if kind == FLOAT and missing is not None:
        return ColumnData(FLOAT, np.where(missing, np.nan, values))
    return ColumnData(kind, values, missing)


def _numbers(kind: str, n: int, value) -> tuple[np.ndarray, np.ndarray | None]:
    """``n`` values of a numeric column as kept: (the values, in the smallest integer type
    that holds them, as booleans or as float64; which are missing, None for none). A missing
    integer or boolean is 0 among the values; a float keeps its value (NaN, or the one given
    with a mask)."""
    values, missing = _values_and_missing(n, value)
    if missing is not None and not missing.any():
        missing = None
    if missing is not None and kind != FLOAT:
        values = np.where(missing, 0, values)
    if kind == INTEGER:
        return values.astype(smallest_int_type(values), copy=False), missing
    if kind == BOOLEAN:
        return values.astype(bool, copy=False), missing
    return values.astype(np.float64, copy=False), missing


def _values_and_missing(n: int, value) -> tuple[np.ndarray, np.ndarray | None]:
    """(the values, which are missing; None: none can be, the values not being floats)."""
    if isinstance(value, tuple):
        values, missing = value
        return np.asarray(values), np.asarray(missing, bool)
    values = np.asarray(value)
    if values.ndim == 0:
        values = np.full(n, values)
    if values.dtype.kind == "f":
        return values, np.isnan(values)
    return values, None

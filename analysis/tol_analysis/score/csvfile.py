"""Writing a table as CSV quickly, exactly as ``DataFrame.to_csv`` would.

The tables are written as pandas writes them with the options tol-score has
always used (nullable booleans as ``true``/``false``, floats with ``%.6g``, missing
values as empty cells, text quoted only when it holds the separator, a quote
or a line break; text that a spreadsheet would run as a formula escaped,
:mod:`tol_analysis.cells`), but each column is rendered once per distinct value:
codes into its distinct cells, each cell followed by the separator (the line
break in the last column). Adjacent columns whose cells come in few
combinations (a trial's participant, session, block, ... repeat on each of its
moves) are joined: each combination's text is made once. The lines are then
the combinations' texts taken in row order by Arrow's ``take`` (every row's
codes side by side) and written from the buffer Arrow made. A million moves
are written in a fraction of the time ``to_csv`` takes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from tol_analysis.arrow import dictionary_encode, from_numpy, offsets, strings, take, to_numpy
from tol_analysis.cells import safe_text, safe_texts
from tol_analysis.columns import BOOLEAN, FLOAT, STRING
from tol_analysis.score.tables import ColumnData, TableData

if TYPE_CHECKING:
    import pandas as pd

#: Cells put together at once (rows times columns): the memory a batch of lines
#: takes is about 12 bytes a cell besides its text.
CHUNK_CELLS = 1 << 21

#: At most this many bytes of lines put together at once (Arrow's strings hold
#: under 2 GiB).
CHUNK_BYTES = 1 << 28

#: Rows waiting to be written together, at most this many cells (rows times columns), when
#: a :class:`TableWriter` gathers its batches (``gather``): writing a batch has a fixed cost
#: per column (each column rendered, its cells joined), which a trials.csv batch of a few
#: thousand rows and 67 columns paid as often as there were batches.
GATHER_CELLS = 1 << 20

#: Adjacent columns are joined from this many rows on (below, joining costs more than
#: it saves), while their combinations stay at most a quarter of the rows.
JOIN_ROWS = 8192


def write_csv(df: pd.DataFrame, path: str | Path, sep: str = ",", na: str = "") -> None:
    """Write ``df`` (header first, no index) to ``path``, as ``df.to_csv`` would."""
    write_table(TableData.from_frame(df), path, sep, na)


def write_table(table: TableData, path: str | Path, sep: str = ",", na: str = "") -> None:
    """Write a table (header first) to ``path``, as ``table.frame().to_csv`` would."""
    with TableWriter(path, table.names, sep, na) as out:
        out.write(table)


class TableWriter:
    """A CSV file written a batch of rows at a time: the header when opened, then each
    :meth:`write`'s rows, the same bytes as :func:`write_table` of all the rows at once
    (each cell is written by itself: no choice depends on the other rows).

    With ``gather``, batches wait until they hold :data:`GATHER_CELLS` cells and are then
    written as one (small batches written together); :meth:`flush` and :meth:`close` write
    those waiting.

    Used as a context manager; the file is closed when the block ends (what waits written
    first, also when the block ends with an error: rows given are never lost).
    """

    def __init__(self, path: str | Path, names: list[str], sep: str = ",", na: str = "",
                 gather: bool = False) -> None:  # fmt: skip
        self.path = Path(path)
        self.names = list(names)
        self.rows = 0
        self._sep, self._na = sep, na
        self._gather = gather
        self._waiting: list[TableData] = []
        self._waiting_rows = 0
        self._plain: list[bool] = []
        self._f = open(self.path, "wb")  # noqa: SIM115 - closed by close() / __exit__
        header = sep.join(_quote(safe_text(str(c)), sep) for c in self.names) + "\n"
        self._f.write(header.encode("utf-8"))

    def write(self, table: TableData) -> None:
        """Append the rows of ``table`` (its columns those of the file, in any order)."""
        n = len(table)
        if not n:
            return
        if not self._gather:
            self._write(table)
            return
        plain = [table[c].plain for c in self.names]  # written apart when it changes
        if self._waiting and plain != self._plain:
            self.flush()
        self._plain = plain
        self._waiting.append(table)
        self._waiting_rows += n
        if self._waiting_rows * len(self.names) >= GATHER_CELLS:
            self.flush()

    def flush(self) -> None:
        """Write the batches waiting (with ``gather``), as one."""
        if not self._waiting:
            return
        tables, self._waiting, self._waiting_rows = self._waiting, [], 0
        self._write(tables[0] if len(tables) == 1 else _joined_rows(tables, self.names))

    def _write(self, table: TableData) -> None:
        n = len(table)
        if n < JOIN_ROWS and n * len(self.names) <= CHUNK_CELLS:
            self._write_few_rows(table)
            return
        rendered = [_render(table[c], self._sep, self._na) for c in self.names]
        cells, first = _every_cell(rendered, self._sep)
        parts = _joined(rendered, first, n // 4 if n >= JOIN_ROWS else 0)
        texts, base = _combinations(cells, [combos for _, combos in parts])
        ends = offsets(cells)
        widest = np.maximum.reduceat(np.diff(ends), first).sum()  # the longest line, at most
        step = max(1, min(CHUNK_CELLS // len(parts), CHUNK_BYTES // max(1, int(widest))))
        index = np.int32 if len(offsets(texts)) < 2**31 else np.int64
        for start in range(0, n, step):
            stop = min(start + step, n)
            at = np.empty((stop - start, len(parts)), index)  # row by row, each part's text
            for j, (codes, _) in enumerate(parts):
                np.add(codes[start:stop], index(base[j]), out=at[:, j])
            lines = take(texts, at.ravel())
            ends = offsets(lines)
            self._f.write(memoryview(lines.buffers()[2])[int(ends[0]) : int(ends[-1])])
        self.rows += n

    def _write_few_rows(self, table: TableData) -> None:
        """A batch of rows too few for columns to be joined (wide.csv: a row a session, a
        column per problem and score): the cells rendered kind by kind across the columns
        (:func:`_cells_by_kind`), not column by column, whose fixed cost a thousand columns
        of a few hundred rows paid a thousand times."""
        at, cells = _cells_by_kind([table[c] for c in self.names], self._sep, self._na)
        widest = int(np.diff(offsets(cells)).max()) * len(self.names)  # a line's bytes, at most
        step = max(1, CHUNK_BYTES // max(1, widest))
        for start in range(0, len(table), step):
            lines = take(cells, at[start : start + step].ravel())
            ends = offsets(lines)
            self._f.write(memoryview(lines.buffers()[2])[int(ends[0]) : int(ends[-1])])
        self.rows += len(table)

    def close(self) -> None:
        if self._f.closed:
            return
        try:
            self.flush()
        finally:
            self._f.close()

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _joined_rows(tables: list[TableData], names: list[str]) -> TableData:
    """The rows of ``tables`` one after another, for writing only: a text column's
    categories are each table's, one after another (a text may come twice: it is written
    the same either way)."""
    columns = {}
    for name in names:
        parts = [t[name] for t in tables]
        first = parts[0]
        if first.kind == STRING:
            categories: list[str] = []
            codes = []
            for p in parts:
                c = np.asarray(p.values, np.int64)
                codes.append(np.where(c < 0, -1, c + len(categories)))
                categories += list(p.categories)
            columns[name] = ColumnData(STRING, np.concatenate(codes), categories=categories,
                                       plain=first.plain)  # fmt: skip
            continue
        values = np.concatenate([p.values for p in parts])
        missing = None
        if any(p.missing is not None for p in parts):
            missing = np.concatenate([p.is_missing() for p in parts])
        columns[name] = ColumnData(first.kind, values, missing, plain=first.plain)
    return TableData(names, columns, sum(len(t) for t in tables))


def _needs_quotes(text: str, sep: str) -> bool:
    return sep in text or '"' in text or "\n" in text or "\r" in text


def _quote(text: str, sep: str) -> str:
    if _needs_quotes(text, sep):
        return '"' + text.replace('"', '""') + '"'
    return text


def _render(col: ColumnData, sep: str, na: str) -> tuple[np.ndarray, list[str]]:
    """A column as (codes per row, its distinct cells as written; the last is ``na``)."""
    codes, texts = _render_group([col], sep, na)
    # Codes as small as the cells allow (a column of true/false takes a byte a row).
    small = np.int8 if len(texts) < 128 else np.int16 if len(texts) < 32768 else np.int32
    return codes[:, 0].astype(small, copy=False), texts


def _render_group(columns: list[ColumnData], sep: str, na: str) -> tuple[np.ndarray, list[str]]:
    """Columns of one kind (booleans of one ``plain``) as (codes, a column of them for each
    column, into their distinct cells as written; those cells, the last ``na``): one search
    for the distinct values of them all, their texts escaped and quoted at once."""
    first, one = columns[0], len(columns) == 1
    missing = None
    if first.kind == STRING:
        if one:
            codes, categories = np.asarray(first.values)[:, None], first.categories
        else:
            codes, categories = np.empty((len(first), len(columns)), np.int64), []
            for i, col in enumerate(columns):
                values = np.asarray(col.values, np.int64)
                codes[:, i] = np.where(values < 0, -1, values + len(categories))
                categories += col.categories
        texts = safe_texts(categories)
        if _needs_quotes("".join(texts), sep):  # one search (the marks are single characters)
            texts = [_quote(t, sep) for t in texts]
        missing = codes < 0
    elif first.kind == BOOLEAN:  # nullable booleans as true/false, numpy's as pandas writes them
        codes = _stacked([c.values for c in columns]).astype(np.int8)
        texts = ["False", "True"] if first.plain else ["false", "true"]
        missing = _stacked_missing(columns)
    elif first.kind == FLOAT:
        values = _stacked([c.values for c in columns], np.float64)
        missing = np.isnan(values)
        if missing.any():
            values = np.where(missing, 0.0, values)
        # Distinct bit patterns, so that -0.0 stays "-0" as pandas writes it.
        codes, uniq = _distinct(values.view(np.int64).ravel())
        codes = codes.reshape(values.shape)
        texts = _six_digits(uniq.view(np.float64))
    else:  # INTEGER
        values = _stacked([c.values for c in columns], None if one else np.int64)
        codes, uniq = _distinct(values.ravel())
        codes = codes.reshape(values.shape)
        texts = [str(v) for v in uniq.tolist()]
        missing = _stacked_missing(columns)
    texts.append(na)  # the last code is for missing cells
    if missing is not None and missing.any():
        codes = np.where(missing, len(texts) - 1, codes)
    return codes, texts


def _stacked(arrays: list, dtype=None) -> np.ndarray:
    """Arrays of one length side by side, a column each (one array: a view of it)."""
    if len(arrays) == 1:
        return np.asarray(arrays[0], dtype).reshape(-1, 1)
    return np.column_stack([np.asarray(a, dtype) for a in arrays])


def _stacked_missing(columns: list[ColumnData]) -> np.ndarray | None:
    """Which cells of integer or boolean columns are missing, side by side (None: none)."""
    if all(c.missing is None for c in columns):
        return None
    return _stacked([c.is_missing() for c in columns])


def _cells_by_kind(columns: list[ColumnData], sep: str, na: str) -> tuple[np.ndarray, pa.Array]:
    """Every cell of a table's rows: (for each row and column, an index into ``cells``;
    ``cells``: the distinct cells, each followed by the separator, those of the last column
    by the line break), as :func:`_render` writes each column's. The columns of one kind (all
    but the last) are rendered together (:func:`_render_group`) and share their cells."""
    at = np.empty((len(columns[0]) if columns else 0, len(columns)), np.int32)
    texts: list[str] = []
    groups: dict[tuple[str, bool], list[int]] = {}
    for j, col in enumerate(columns[:-1]):
        groups.setdefault((col.kind, col.kind == BOOLEAN and col.plain), []).append(j)
    for which in groups.values():
        codes, cells = _render_group([columns[j] for j in which], sep, na)
        at[:, which] = codes.astype(np.int64) + len(texts)
        texts += [c + sep for c in cells]
    if columns:
        codes, cells = _render(columns[-1], sep, na)
        at[:, -1] = codes.astype(np.int32) + np.int32(len(texts))
        texts += [c + "\n" for c in cells]
    return at, strings(texts)


def _six_digits(values: np.ndarray) -> list[str]:
    """Each value as ``%.6g`` writes it."""
    return ("%.6g\n" * len(values) % tuple(values.tolist())).split("\n")[:-1]


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each value's index among the distinct values, the distinct values); by offset when
    the values span a small range, else by hashing."""
    if not len(values):
        return np.empty(0, np.int64), values
    low, high = int(values.min()), int(values.max())
    if high - low < 4 * len(values) + 1024:
        index, used = _dense(values - values.dtype.type(low) if low else values, high - low + 1)
        return index, used + low
    d = dictionary_encode(from_numpy(values))
    return to_numpy(d.indices), to_numpy(d.dictionary)


def _dense(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """Whole numbers from 0 to ``bound - 1`` numbered among those that occur: (each one's
    number, those that occur, in order)."""
    values = values.astype(np.intp, copy=False)
    seen = np.bincount(values, minlength=bound) > 0
    index = np.cumsum(seen, dtype=np.intp)
    index -= 1
    return np.take(index, values), np.flatnonzero(seen)  # take: faster than index[values]


def _every_cell(rendered: list[tuple[np.ndarray, list[str]]], sep: str):
    """The distinct cells of every column, in one string array, each followed by the
    separator (by the line break in the last column); and where each column's begin."""
    texts: list[str] = []
    first = np.empty(len(rendered), np.int64)
    for j, (_, cells) in enumerate(rendered):
        first[j] = len(texts)
        end = "\n" if j == len(rendered) - 1 else sep
        texts += [c + end for c in cells]
    return strings(texts), first


def _joined(rendered: list[tuple[np.ndarray, list[str]]], first: np.ndarray,
            limit: int) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """Adjacent columns joined while their combinations (those that occur) are at most
    ``limit``: for each group, each row's combination and, per combination, the index of
    each of its cells among every column's (``first``: where each column's begin)."""
    parts = []
    j = 0
    while j < len(rendered):
        codes, texts = rendered[j]
        row = codes.astype(np.intp)
        table = np.arange(len(texts))[:, None]  # each combination's cell codes (used ones)
        radix: list[int] = []  # the cells of each column joined since ``table`` was made
        bound = len(texts)  # rows' numbers (mixed radix: table's row, then radix) below it
        members = [j]
        j += 1
        while j < len(rendered) and limit:
            k = len(rendered[j][1])
            if bound * k > limit and radix:  # number the combinations that occur
                row, used = _dense(row, bound)
                table, radix, bound = _digits(used, table, radix), [], len(used)
            if bound * k > limit:
                break
            row *= k
            row += rendered[j][0]
            radix.append(k)
            bound *= k
            members.append(j)
            j += 1
        if radix:
            row, used = _dense(row, bound)
            table = _digits(used, table, radix)
        parts.append((row, table + first[members]))
    return parts


def _digits(numbers: np.ndarray, table: np.ndarray, radix: list[int]) -> np.ndarray:
    """The cell codes of mixed-radix ``numbers`` (``table``'s row, then one digit per radix)."""
    last = []
    for k in reversed(radix):
        last.append(numbers % k)
        numbers = numbers // k
    return np.column_stack([table[numbers], *last[::-1]])


def _combinations(cells, tables: list[np.ndarray]):
    """The text of each combination of cells (each table's rows, cell indices into
    ``cells``), in one string array; and where each table's begin in it."""
    base = np.cumsum([0] + [len(t) for t in tables])
    if all(t.shape[1] == 1 for t in tables) and np.array_equal(
            np.concatenate(tables).ravel(), np.arange(len(cells))):  # fmt: skip
        return cells, base[:-1]  # no column joined: the cells themselves
    taken = take(cells, np.concatenate([t.ravel() for t in tables]))
    ends = offsets(taken)
    starts = np.cumsum([0] + [t.size for t in tables])
    at = np.concatenate([starts[i] + t.shape[1] * np.arange(len(t))
                         for i, t in enumerate(tables)] + [starts[-1:]])  # fmt: skip
    bounds = np.ascontiguousarray(ends[at])
    texts = pa.Array.from_buffers(taken.type, len(at) - 1,
                                  [None, pa.py_buffer(bounds), taken.buffers()[2]])  # fmt: skip
    return texts, base[:-1]

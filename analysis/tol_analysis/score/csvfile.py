"""Writing a table as CSV quickly, exactly as ``DataFrame.to_csv`` would.

The tables are written as pandas writes them with the options tol-score has
always used (nullable booleans as ``true``/``false``, floats with ``%.6g``, missing
values as empty cells, text quoted only when it holds the separator, a quote
or a line break; text that a spreadsheet would run as a formula escaped,
:mod:`tol_analysis.cells`), but each column is rendered once per distinct value: the
rows are then put together by Arrow's CSV writer (each column a dictionary of
its rendered cells), or, when a cell needs quotes (which Arrow would put
around every text), with numpy. A million moves are written in a fraction of
the time ``to_csv`` takes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from pyarrow import csv as pacsv

from tol_analysis.arrow import dictionary_encode, from_numpy, strings, to_numpy
from tol_analysis.cells import safe_text
from tol_analysis.columns import BOOLEAN, FLOAT, STRING
from tol_analysis.score.tables import ColumnData, TableData

if TYPE_CHECKING:
    import pandas as pd

#: Rows put together at once.
CHUNK_ROWS = 65536


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

    Used as a context manager; the file is closed when the block ends.
    """

    def __init__(self, path: str | Path, names: list[str], sep: str = ",", na: str = "") -> None:
        self.path = Path(path)
        self.names = list(names)
        self.rows = 0
        self._sep, self._na = sep, na
        self._f = open(self.path, "wb")  # noqa: SIM115 - closed by close() / __exit__
        header = sep.join(_quote(safe_text(str(c)), sep) for c in self.names) + "\n"
        self._f.write(header.encode("utf-8"))

    def write(self, table: TableData) -> None:
        """Append the rows of ``table`` (its columns those of the file, in any order)."""
        if not len(table):
            return
        sep = self._sep
        rendered = [_render(table[c], sep, self._na) for c in self.names]
        # One search a column (the marks are single characters: joining makes none).
        if not any(_needs_quotes("".join(texts), sep) for _, texts in rendered):
            _write_arrow(self._f, rendered, sep)
        else:
            cells = [_cells(codes, texts) for codes, texts in rendered]
            for start in range(0, len(table), CHUNK_ROWS):
                self._f.write(_rows(cells, start, min(start + CHUNK_ROWS, len(table)), sep))
        self.rows += len(table)

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _needs_quotes(text: str, sep: str) -> bool:
    return sep in text or '"' in text or "\n" in text or "\r" in text


def _quote(text: str, sep: str) -> str:
    if _needs_quotes(text, sep):
        return '"' + text.replace('"', '""') + '"'
    return text


def _render(col: ColumnData, sep: str, na: str) -> tuple[np.ndarray, list[str]]:
    """A column as (codes per row, its distinct cells as written; the last is ``na``)."""
    missing = None
    if col.kind == STRING:
        codes = np.asarray(col.values)
        texts = [_quote(safe_text(v), sep) for v in col.categories]
    elif col.kind == BOOLEAN:  # nullable booleans as true/false, numpy's as pandas writes them
        codes = np.asarray(col.values).astype(np.int8)
        texts = ["False", "True"] if col.plain else ["false", "true"]
        missing = col.missing
    elif col.kind == FLOAT:
        values = np.asarray(col.values, np.float64)
        missing = np.isnan(values)
        # Distinct bit patterns, so that -0.0 stays "-0" as pandas writes it.
        codes, uniq = _distinct(np.where(missing, 0.0, values).view(np.int64))
        texts = _six_digits(uniq.view(np.float64))
    else:  # INTEGER
        codes, uniq = _distinct(np.asarray(col.values))
        texts = [str(v) for v in uniq.tolist()]
        missing = col.missing
    texts = [*texts, na]  # the last code is for missing cells
    # Codes as small as the cells allow (a column of true/false takes a byte a row).
    small = np.int8 if len(texts) < 128 else np.int16 if len(texts) < 32768 else np.int32
    codes = np.asarray(codes)
    codes = np.where(codes < 0, len(texts) - 1, codes).astype(small, copy=False)
    if missing is not None:
        codes[missing] = len(texts) - 1
    return codes, texts


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
        seen = np.zeros(high - low + 1, bool)
        seen[values - low] = True
        index = np.cumsum(seen) - 1
        return index[values - low], np.flatnonzero(seen) + low
    d = dictionary_encode(from_numpy(values))
    return to_numpy(d.indices), to_numpy(d.dictionary)


def _write_arrow(f, rendered: list[tuple[np.ndarray, list[str]]], sep: str) -> None:
    """The rows by Arrow's CSV writer, each column a dictionary of its cells (none of which
    needs quotes)."""
    arrays = [pa.DictionaryArray.from_arrays(from_numpy(codes), strings(texts))
              for codes, texts in rendered]  # fmt: skip
    table = pa.Table.from_arrays(arrays, names=[str(k) for k in range(len(arrays))])
    options = pacsv.WriteOptions(include_header=False, delimiter=sep, quoting_style="none",
                                 batch_size=CHUNK_ROWS)  # fmt: skip
    pacsv.write_csv(table, f, options)


def _cells(codes: np.ndarray, texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A column's distinct cells as a byte matrix, and their lengths, beside its codes."""
    cells = [t.encode("utf-8") for t in texts]
    width = max(1, *(len(c) for c in cells))
    matrix = np.zeros((len(cells), width), np.uint8)
    lengths = np.array([len(c) for c in cells], np.int64)
    for k, c in enumerate(cells):
        matrix[k, : len(c)] = np.frombuffer(c, np.uint8)
    return codes, matrix, lengths


def _rows(rendered, start: int, stop: int, sep: str) -> bytes:
    """Rows ``start:stop`` as CSV lines: every cell in a slot of its column's width, followed
    by the separator (a line break after the last), then the padding squeezed out."""
    m = stop - start
    blocks, keep = [], []
    end = np.frombuffer(sep.encode(), np.uint8)[0]
    for k, (codes, matrix, lengths) in enumerate(rendered):
        c = codes[start:stop]
        blocks.append(matrix[c])
        keep.append(np.arange(matrix.shape[1]) < lengths[c][:, None])
        mark = ord("\n") if k == len(rendered) - 1 else end
        blocks.append(np.full((m, 1), mark, np.uint8))
        keep.append(np.ones((m, 1), bool))
    return np.concatenate(blocks, axis=1)[np.concatenate(keep, axis=1)].tobytes()

"""Table assembly: the columns computed for each log, gathered into typed DataFrames.

A :class:`TableBuilder` takes, log by log, the columns of one registry table
(:mod:`tol_analysis.columns`) and builds the DataFrame once at the end, each
column with its registry type: text as pandas ``category`` (the same few
labels repeat down a table), integers as nullable ``Int64``, booleans as
nullable ``boolean``, times as ``float64`` (NaN when missing).

A column's values may be given as: one text for every row; a list of texts
(``None`` for a missing one); :class:`~tol_tasks.session_data.attempts.Coded`
texts; a numpy array (NaN marks a missing integer or boolean); or a tuple
``(values, missing)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tol_analysis.columns import BOOLEAN, FLOAT, INTEGER, STRING, Table
from tol_tasks.session_data.attempts import Coded


class _Texts:
    """A text column's categories, numbered in order of appearance, and its codes so far."""

    def __init__(self) -> None:
        self.code: dict[str, int] = {}
        self.categories: list[str] = []
        self.chunks: list[np.ndarray] = []

    def _codes_of(self, values) -> np.ndarray:
        code, cats = self.code, self.categories
        out = np.empty(len(values), np.int32)
        for k, v in enumerate(values):
            if v is None:
                out[k] = -1
                continue
            c = code.get(v)
            if c is None:
                c = code[v] = len(cats)
                cats.append(v)
            out[k] = c
        return out

    def add(self, n: int, value) -> None:
        if isinstance(value, str):
            self.chunks.append(np.full(n, self._codes_of([value])[0], np.int32))
        elif isinstance(value, Coded):
            self.chunks.append(self._codes_of(list(value.values))[np.asarray(value.codes)])
        else:
            self.chunks.append(self._codes_of(value))

    def array(self) -> pd.Categorical:
        codes = np.concatenate(self.chunks) if self.chunks else np.empty(0, np.int32)
        return pd.Categorical.from_codes(codes, categories=pd.Index(self.categories, dtype=object))


class TableBuilder:
    """Gathers one table's columns log by log; :meth:`frame` builds the DataFrame."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rows = 0
        self._texts = {c.name: _Texts() for c in table if c.type == STRING}
        self._numbers: dict[str, list] = {c.name: [] for c in table if c.type != STRING}

    def add(self, n: int, columns: dict) -> None:
        """The next ``n`` rows; ``columns`` holds a value for every column of the table."""
        for c in self.table:
            value = columns[c.name]
            if c.type == STRING:
                self._texts[c.name].add(n, value)
            else:
                self._numbers[c.name].append(_values_and_missing(n, value))
        self.rows += n

    def frame(self) -> pd.DataFrame:
        data = {}
        for c in self.table:
            if c.type == STRING:
                data[c.name] = self._texts[c.name].array()
                continue
            parts = self._numbers.pop(c.name)
            values = np.concatenate([p[0] for p in parts]) if parts else np.empty(0)
            missing = np.concatenate([p[1] for p in parts]) if parts else np.empty(0, bool)
            if c.type == FLOAT:
                data[c.name] = np.where(missing, np.nan, values.astype(np.float64))
            elif c.type == INTEGER:
                ints = np.where(missing, 0, values).astype(np.int64)
                data[c.name] = pd.arrays.IntegerArray(ints, missing)
            elif c.type == BOOLEAN:
                flags = np.where(missing, False, values).astype(bool)
                data[c.name] = pd.arrays.BooleanArray(flags, missing)
            else:  # pragma: no cover - the registry's types are the four above
                raise ValueError(f"{c.name}: no table type {c.type!r}")
        return pd.DataFrame(data, columns=self.table.names)


def _values_and_missing(n: int, value) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(value, tuple):
        values, missing = value
        return np.asarray(values), np.asarray(missing, bool)
    values = np.asarray(value)
    if values.ndim == 0:
        values = np.full(n, values)
    if values.dtype.kind == "f":
        return values, np.isnan(values)
    return values, np.zeros(n, bool)

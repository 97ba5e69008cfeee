"""Typed tables: each column a :class:`ColumnData` of its registry type
(:mod:`tol_analysis.columns`), a table a :class:`TableData` (gathered batch by batch by
:class:`tol_analysis.score.builder.TableBuilder`). The CSV writer
(:mod:`tol_analysis.score.csvfile`) writes these directly; :meth:`TableData.frame`
makes the pandas DataFrame that :class:`tol_analysis.score.scores.Scores` gives, with
text as ``category`` (the same few labels repeat down a table), integers as
nullable ``Int64``, booleans as nullable ``boolean`` and times as ``float64``
(NaN when missing). pandas is imported only then: ``tol-score`` writing its
tables never needs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from tol_analysis.columns import BOOLEAN, FLOAT, INTEGER, STRING
from tol_analysis.score.compact import Distinct, TextList

if TYPE_CHECKING:
    import pandas as pd

_TYPES = (STRING, INTEGER, FLOAT, BOOLEAN)


class ColumnData:
    """One column of a finished table.

    Attributes
    ----------
    kind : {"string", "integer", "float", "boolean"}
    values : ndarray
        Text: codes into ``categories`` (-1: missing). Integers and booleans:
        the values (any integer type; 0 or False where missing). Floats:
        float64, NaN where missing.
    missing : ndarray of bool or None
        Integers and booleans: which are missing (None: none).
    categories : list of str or TextList
        Text: the distinct texts (many of them: a :class:`TextList`).
    plain : bool
        In a DataFrame, text as ``object``, integers as ``int64`` and booleans
        as ``bool`` (a column that is never missing), instead of ``category``,
        ``Int64`` and ``boolean``.
    """

    __slots__ = ("categories", "kind", "missing", "plain", "values")

    def __init__(self, kind: str, values: np.ndarray, missing: np.ndarray | None = None,
                 categories: list[str] | None = None, plain: bool = False) -> None:  # fmt: skip
        if kind not in _TYPES:  # pragma: no cover - the registry's types are these four
            raise ValueError(f"no column type {kind!r}")
        self.kind = kind
        self.values = values
        self.missing = missing if missing is not None and missing.any() else None
        self.categories = (categories if isinstance(categories, TextList)
                           else list(categories or []))  # fmt: skip
        self.plain = plain

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def texts(cls, texts: list[str | None], plain: bool = False) -> ColumnData:
        """A text column from one text per row (None: missing)."""
        seen: dict[str, int] = {}
        codes = np.array([-1 if t is None else seen.setdefault(t, len(seen)) for t in texts],
                         np.int64)  # fmt: skip
        return cls(STRING, codes.astype(code_type(len(seen))), categories=list(seen),
                   plain=plain)  # fmt: skip

    @classmethod
    def concat(cls, parts: list[ColumnData]) -> ColumnData:
        """One column of the rows of ``parts`` (columns of one kind) in order: text coded
        in order of first appearance, as :meth:`texts` codes the texts of every part."""
        first = parts[0]
        plain = all(p.plain for p in parts)
        if first.kind == STRING:
            seen = Distinct()  # not a dict: a million participants' ids stay compact
            codes = []
            for p in parts:  # -1 (missing) stays -1: the last of each part's new codes
                new = seen.codes(list(p.categories))
                codes.append(np.append(new, -1)[np.asarray(p.values, np.int64)])
            codes = np.concatenate(codes).astype(code_type(len(seen)))
            return cls(STRING, codes, categories=seen.categories(), plain=plain)
        values = np.concatenate([p.values for p in parts])
        missing = np.concatenate([p.is_missing() for p in parts])
        return cls(first.kind, values, missing, plain=plain)

    def slice(self, start: int, stop: int, narrow: bool = True) -> ColumnData:
        """Rows ``start`` to ``stop`` (views, not copies; text with only the categories
        they use when they are few of many, unless not ``narrow``: the codes kept)."""
        missing = None if self.missing is None else self.missing[start:stop]
        values, categories = self.values[start:stop], self.categories
        if narrow and self.kind == STRING and len(categories) > 2 * len(values) + 64:
            codes = np.asarray(values, np.int64)
            used, which = np.unique(codes, return_inverse=True)
            shift = 1 if len(used) and used[0] < 0 else 0
            categories = [categories[c] for c in used[shift:].tolist()]
            values = np.where(codes < 0, -1, which.ravel() - shift).astype(
                code_type(len(categories)))  # fmt: skip
        return ColumnData(self.kind, values, missing, categories, self.plain)

    def is_missing(self) -> np.ndarray:
        if self.kind == FLOAT:
            return np.isnan(self.values)
        if self.kind == STRING:
            return np.asarray(self.values) < 0
        return self.missing if self.missing is not None else np.zeros(len(self.values), bool)

    def as_float(self) -> np.ndarray:
        """Numbers as float64 (NaN where missing)."""
        out = np.asarray(self.values, np.float64)
        if self.missing is not None:
            out = np.where(self.missing, np.nan, out)
        return out

    def array(self):
        """What a pandas DataFrame holds for this column."""
        import pandas as pd

        if self.kind == STRING:
            if self.plain:
                cats = np.array([*self.categories, None], dtype=object)
                return cats[np.asarray(self.values)]
            codes = np.asarray(self.values).astype(code_type(len(self.categories)), copy=False)
            return pd.Categorical.from_codes(
                codes, categories=pd.Index(self.categories, dtype=object)
            )
        if self.kind == FLOAT:
            return np.asarray(self.values, np.float64)
        missing = self.is_missing()
        if self.kind == INTEGER:
            values = np.asarray(self.values).astype(np.int64, copy=False)
            return values if self.plain else pd.arrays.IntegerArray(values, missing.copy())
        values = np.asarray(self.values).astype(bool, copy=False)
        return values if self.plain else pd.arrays.BooleanArray(values, missing.copy())

    @classmethod
    def from_series(cls, s: pd.Series) -> ColumnData:
        """A pandas column as column data (without copying where pandas allows)."""
        import pandas as pd

        dtype = s.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return cls(STRING, s.cat.codes.to_numpy(),
                       categories=[str(v) for v in s.cat.categories])  # fmt: skip
        if str(dtype) == "boolean":
            arr = s.array
            return cls(BOOLEAN, arr.to_numpy(dtype=bool, na_value=False), np.asarray(arr.isna()))
        if dtype.kind == "b":
            return cls(BOOLEAN, s.to_numpy(), plain=True)
        if dtype.kind == "f":
            return cls(FLOAT, s.to_numpy().astype(np.float64, copy=False))
        if dtype.kind in "iu":
            arr = s.array
            plain = not isinstance(dtype, pd.api.extensions.ExtensionDtype)
            return cls(INTEGER, np.asarray(arr.to_numpy(dtype=np.int64, na_value=0)),
                       np.asarray(arr.isna()), plain=plain)  # fmt: skip
        codes, uniq = pd.factorize(s, use_na_sentinel=True)
        return cls(STRING, codes, categories=[v if isinstance(v, str) else str(v) for v in uniq],
                   plain=True)  # fmt: skip


class TableData:
    """A finished table: its columns in order.

    Attributes
    ----------
    names : list of str
    columns : dict of ColumnData
    """

    def __init__(self, names: list[str], columns: dict[str, ColumnData], rows: int) -> None:
        self.names = list(names)
        self.columns = columns
        self.rows = rows

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, name: str) -> ColumnData:
        return self.columns[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def slice(self, start: int, stop: int, narrow: bool = True) -> TableData:
        """Rows ``start`` to ``stop`` (views of the columns, not copies; see
        :meth:`ColumnData.slice` for ``narrow``)."""
        return TableData(self.names, {name: self.columns[name].slice(start, stop, narrow)
                                      for name in self.names}, max(0, stop - start))  # fmt: skip

    def frame(self, consume: bool = False) -> pd.DataFrame:
        """The table as a pandas DataFrame; with ``consume``, each column is let go as its
        DataFrame column is made (the table is then empty), so that both are never held."""
        import pandas as pd

        data = {}
        for name in self.names:
            data[name] = (self.columns.pop(name) if consume else self.columns[name]).array()
        return pd.DataFrame(data, columns=self.names, index=pd.RangeIndex(self.rows), copy=False)

    @classmethod
    def from_frame(cls, df: pd.DataFrame) -> TableData:
        return cls([str(c) for c in df.columns],
                   {str(c): ColumnData.from_series(df[c]) for c in df.columns}, len(df))  # fmt: skip


def code_type(n: int) -> type:
    """The integer type pandas keeps the codes of ``n`` categories in (-1: missing)."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return t
    return np.int64


def smallest_int_type(values: np.ndarray) -> type:
    """The smallest integer type that holds ``values``."""
    if not len(values):
        return np.int8
    low, high = int(values.min()), int(values.max())
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= low and high <= np.iinfo(t).max:
            return t
    return np.int64

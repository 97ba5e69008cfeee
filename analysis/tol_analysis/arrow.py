"""Arrow arrays to numpy and back, straight from their buffers.

pyarrow's own conversions (``Array.to_numpy``, ``pa.array``, ``pa.scalar``)
import pandas when it is installed, to recognise its types: about a second of
``tol-score``'s time, which writes its tables without pandas. The few
conversions the reader and the CSV writer need are made here instead.

The compute functions scoring calls (:func:`dictionary_encode`, :func:`take`,
:func:`unique`) are called by name too: ``import pyarrow.compute`` makes a
Python function for each of Arrow's ~300 kernels, 40 ms of every start.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

try:  # the kernels by name, without pyarrow.compute's wrappers
    from pyarrow._compute import call_function
except ImportError:  # pragma: no cover - a pyarrow that moved it: its public name
    from pyarrow.compute import call_function


def to_numpy(array: pa.Array) -> np.ndarray:
    """A fixed-width numeric Arrow array as numpy (read-only; nulls of floats as NaN).

    Raises
    ------
    ValueError
        For an array with nulls that is not of floats.
    """
    dtype = np.dtype(array.type.to_pandas_dtype())
    values = np.frombuffer(array.buffers()[1], dtype, len(array), array.offset * dtype.itemsize)
    if array.null_count:
        if dtype.kind != "f":
            raise ValueError(f"{array.type} array with nulls")
        bits = np.frombuffer(array.buffers()[0], np.uint8)
        valid = np.unpackbits(bits, bitorder="little")[array.offset : array.offset + len(array)]
        values = np.where(valid.astype(bool), values, np.nan)
    return values


def from_numpy(values: np.ndarray) -> pa.Array:
    """A one-dimensional numeric numpy array as an Arrow array (no nulls)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])  # fmt: skip


def strings(texts: list[str]) -> pa.Array:
    """Texts as an Arrow string array."""
    joined = "".join(texts)
    if joined.isascii():  # a character a byte: the texts' lengths are their bytes'
        data = joined.encode("ascii")
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    else:
        encoded = [t.encode("utf-8") for t in texts]
        data = b"".join(encoded)
        lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    ends = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=ends[1:])
    kind = pa.string() if ends[-1] < 2**31 else pa.large_string()
    if kind == pa.string():
        ends = ends.astype(np.int32)
    return pa.Array.from_buffers(kind, len(lengths),
                                 [None, pa.py_buffer(ends), pa.py_buffer(data)])  # fmt: skip


def dictionary_encode(array: pa.Array) -> pa.DictionaryArray:
    """``pyarrow.compute.dictionary_encode``: codes into the distinct values, in order of
    first appearance."""
    return call_function("dictionary_encode", [array])


def take(array: pa.Array, rows: np.ndarray) -> pa.Array:
    """The values at ``rows`` (row indices), as ``Array.take`` gives them."""
    rows = np.asarray(rows)
    if rows.dtype != np.int32:  # Arrow takes 32-bit indices as they are
        rows = rows.astype(np.int64, copy=False)
    return call_function("take", [array, from_numpy(rows)])


def unique(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``pyarrow.compute.unique``: the distinct values, in order of first appearance."""
    return call_function("unique", [array])


def offsets(array: pa.Array) -> np.ndarray:
    """Where each text of a string array starts, then where the last ends (``len + 1``
    entries, into its data buffer)."""
    kind = np.int64 if pa.types.is_large_string(array.type) else np.int32
    return np.frombuffer(array.buffers()[1], kind, len(array) + 1, array.offset * kind().itemsize)

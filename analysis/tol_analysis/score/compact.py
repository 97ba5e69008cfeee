"""Values kept compact while tables are built: many distinct texts without a Python
string each, and columns' chunks waiting on disk.

:class:`Distinct` codes texts in order of first appearance (as a dict would) without a
dict of every text, keeping them in a :class:`TextList` (UTF-8 in one buffer): a million
participants' ids as Python strings in a dict take about 150 MB, as a TextList about 20.
:class:`ChunkStore` keeps the chunks of columns gathered batch by batch in an unnamed
temporary file until the table is made (:class:`tol_analysis.score.builder.TableBuilder`).
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np


def same_texts(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether ``a`` and ``b`` hold the same texts in the same order (two TextLists compared
    as their buffers, without a Python string each)."""
    if a is b:
        return True
    if isinstance(a, TextList) and isinstance(b, TextList):
        return a._ends == b._ends and a._bytes == b._bytes
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


class TextList(Sequence):
    """Distinct texts in order, kept as UTF-8 in one buffer and where each ends: about 10
    bytes a text besides its characters, against about 100 for a list of Python strings
    (and the dict that found them)."""

    def __init__(self) -> None:
        self._bytes = bytearray()
        self._ends = array("q")  # where each text ends in the buffer

    def append(self, text: str) -> None:
        self._bytes += text.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._bytes))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [self[k] for k in range(*at.indices(len(self)))]
        end = self._ends[at]  # IndexError out of range
        at = at % len(self)
        start = self._ends[at - 1] if at else 0
        return self._bytes[start:end].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        start, data = 0, self._bytes
        for end in self._ends:
            yield data[start:end].decode("utf-8", "surrogatepass")
            start = end


class Distinct:
    """Codes texts in order of first appearance (0, 1, ...) without a dict of every text:
    each text's 64-bit hash is looked up in sorted arrays (the last few thousand new ones in
    a dict), the text itself compared to the one found (two texts with one hash are told
    apart by a dict of those few), and the texts kept in a :class:`TextList`."""

    #: New texts looked up in a dict until they are this many, then merged into the arrays.
    RECENT = 1 << 16

    def __init__(self) -> None:
        self._texts = TextList()
        self._hashes = np.empty(0, np.int64)  # sorted
        self._at = np.empty(0, np.int32)  # the code of each of them
        self._recent: dict[int, int] = {}
        self._clashes: dict[str, int] = {}  # texts whose hash another text has

    def __len__(self) -> int:
        return len(self._texts)

    def texts(self) -> TextList:
        return self._texts

    def categories(self) -> list[str] | TextList:
        """The texts: a list when they are few (quicker to look up), else compact."""
        return list(self._texts) if len(self._texts) <= self.RECENT else self._texts

    def codes(self, values) -> np.ndarray:
        """The codes of ``values`` (texts, None: -1), new texts numbered next."""
        values = list(values)
        out = np.empty(len(values), np.int64)
        hashes = np.fromiter((0 if v is None else hash(v) for v in values), np.int64,
                             len(values))  # fmt: skip
        if len(self._hashes):
            pos = np.minimum(np.searchsorted(self._hashes, hashes), len(self._hashes) - 1)
            hit = self._hashes[pos] == hashes
            old = np.where(hit, self._at[pos], -1).tolist()
        else:
            old = [-1] * len(values)
        texts, recent, clashes = self._texts, self._recent, self._clashes
        for k, (v, h, c) in enumerate(zip(values, hashes.tolist(), old, strict=True)):
            if v is None:
                out[k] = -1
                continue
            if c < 0:
                c = recent.get(h, -1)
            if c >= 0 and texts[c] != v:  # another text with this hash
                c = clashes.get(v, -1)
                if c < 0:
                    c = clashes[v] = len(texts)
                    texts.append(v)
            elif c < 0:
                c = recent[h] = len(texts)
                texts.append(v)
            out[k] = c
        if len(recent) >= self.RECENT:
            self._merge()
        return out

    def _merge(self) -> None:
        """The recent texts' hashes inserted in the sorted arrays, each array copied once
        (sorting the arrays joined took three copies of each: 56 MB at a million texts)."""
        new = np.fromiter(self._recent, np.int64, len(self._recent))
        at = np.fromiter(self._recent.values(), np.int32, len(self._recent))
        order = np.argsort(new)  # distinct: a text whose hash is taken is among the clashes
        new, at = new[order], at[order]
        where = np.searchsorted(self._hashes, new)
        self._hashes = np.insert(self._hashes, where, new)
        self._at = np.insert(self._at, where, at)
        self._recent = {}


class ChunkStore:
    """Where a builder's chunks wait until its table is made: in memory (the arrays
    themselves), or written to an unnamed temporary file in ``spill_in`` (each chunk then
    a number: its offset, type and length kept in arrays, 17 bytes a chunk, instead of its
    values; no Python object per chunk, which a million sessions' batches would make
    tens of MB of)."""

    def __init__(self, spill_in: str | Path | None) -> None:
        self._file = None
        if spill_in is not None:
            self._file = tempfile.TemporaryFile(dir=spill_in)  # noqa: SIM115 - closed by close()
        self._end = 0
        self._at, self._n, self._type = array("q"), array("q"), array("b")
        self._types: list[np.dtype] = []

    def handles(self) -> list | array:
        """An empty list for chunks' handles: a list (in memory) or numbers (in a file)."""
        return [] if self._file is None else array("q")

    def put(self, values: np.ndarray):
        """``values`` kept: the array (in memory) or the number of the chunk written."""
        if self._file is None:
            return values
        values = np.ascontiguousarray(values)
        self._file.seek(self._end)
        self._file.write(values.data)
        if values.dtype not in self._types:
            self._types.append(values.dtype)
        self._at.append(self._end)
        self._n.append(len(values))
        self._type.append(self._types.index(values.dtype))
        self._end += values.nbytes
        return len(self._at) - 1

    def dtype(self, chunk) -> np.dtype:
        return chunk.dtype if isinstance(chunk, np.ndarray) else self._types[self._type[chunk]]

    def len(self, chunk) -> int:
        return len(chunk) if isinstance(chunk, np.ndarray) else self._n[chunk]

    def read_into(self, chunk, out: np.ndarray) -> None:
        """Chunk ``chunk``'s values into ``out`` (of its length), as ``out``'s type."""
        if isinstance(chunk, np.ndarray):
            out[...] = chunk
            return
        self.read_part(chunk, 0, self._n[chunk], out)

    def read_part(self, chunk, start: int, stop: int, out: np.ndarray) -> None:
        """Values ``start`` to ``stop`` of chunk ``chunk`` into ``out`` (of that length), as
        ``out``'s type: only those bytes read from the file."""
        if isinstance(chunk, np.ndarray):
            out[...] = chunk[start:stop]
            return
        dtype = self._types[self._type[chunk]]
        self._file.seek(self._at[chunk] + start * dtype.itemsize)
        if out.dtype == dtype:
            self._file.readinto(memoryview(out).cast("B"))
            return
        out[...] = np.frombuffer(self._file.read((stop - start) * dtype.itemsize), dtype)

    def concat(self, chunks, dtype) -> np.ndarray:
        """The chunks' values as one array of ``dtype``."""
        if self._file is None:
            return np.concatenate(chunks, dtype=dtype) if len(chunks) else np.empty(0, dtype)
        out = np.empty(sum(self._n[c] for c in chunks), dtype)
        start = 0
        for c in chunks:
            self.read_into(c, out[start : start + self._n[c]])
            start += self._n[c]
        return out

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


#: The store of chunks kept in memory (no file).
IN_MEMORY = ChunkStore(None)

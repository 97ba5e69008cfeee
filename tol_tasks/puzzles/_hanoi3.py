"""Exact, O(n) answers for the classic 3-peg Tower of Hanoi.

Notation: disk ``k`` is the k-th smallest (1 = smallest), pegs are 0, 1, 2.

**Any state to a perfect tower.** Scan the disks from the largest with a
running target peg ``t`` (first the tower's peg). A disk on ``t`` costs
nothing; a disk elsewhere costs ``2**(k-1)`` moves and the smaller disks must
then gather on the third peg, so ``t`` becomes ``3 - p - t``. Because
``3 - p - t == t (mod 3)`` when ``p == t``, the update is always
``t <- -(p + t) mod 3``: the scan is a three-state automaton whose output bits
are exactly the binary digits of the distance (a misplaced disk k sets bit
``k-1``). The automaton is run eight disks at a time through precomputed
tables, so a 64-disk distance is eight table look-ups.

**Any state to any state.** Let ``m`` be the largest disk on which start and
goal differ, on peg ``a`` in the start and ``b`` in the goal, ``c`` the third
peg; larger disks never move. Either ``m`` moves once (the smaller disks go
to ``c`` first and then on to the goal's arrangement) or twice, ``a -> c -> b``
(smaller disks to ``b``, then as a tower to ``a``, then to the goal)::

    once  = d(start', c) + 1 + d(goal', c)
    twice = d(start', b) + d(goal', a) + 2**(m-1) + 1

where ``start'`` and ``goal'`` are the smaller disks. The distance is the
minimum; each option is a single path, so a tie means exactly two shortest
paths (Hinz 1992; Hinz et al. 2005: at most two).

**The classic solution.** Moving ``n`` disks from peg ``s`` to peg ``t``, move
number ``m`` (from 1) moves disk ``k = 1 + trailing_zeros(m)``; after ``m``
moves disk ``k`` has made ``(m + 2**(k-1)) // 2**k`` moves, always stepping
in one direction round the pegs: the largest disk's direction is
``t - s (mod 3)`` and the direction alternates disk by disk (the binary
solutions in the seed articles).
"""

from __future__ import annotations

from functools import cache

_CHUNK = 8
_BASE = 3**_CHUNK
_POW3 = [3**i for i in range(_CHUNK + 1)]


@cache
def _tables() -> list[list[int]]:
    """``_tables()[r][t * 3**r + v]`` for a chunk of r digits with value v (digit i =
    i-th smallest disk of the chunk) entered with target t: the chunk's distance bits,
    OR-ed with the exit target shifted left by r. Built when first needed (tens of
    milliseconds): a command that never asks for a Hanoi distance never builds them."""
    tables = []
    for r in range(_CHUNK + 1):
        size = _POW3[r]
        table = [0] * (3 * size)
        for t0 in range(3):
            for v in range(size):
                t, bits = t0, 0
                for i in range(r - 1, -1, -1):
                    p = (v // _POW3[i]) % 3
                    bits <<= 1
                    if p != t:
                        bits |= 1
                    t = (-(p + t)) % 3
                table[t0 * size + v] = bits | (t << r)
        tables.append(table)
    return tables


def encode(pegs: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Chunked base-3 form of a state given largest disk first.

    Returns the chunk values, top (largest disks) first, and the number of
    digits in the top chunk (1 to 8; the other chunks have 8).
    """
    n = len(pegs)
    top = n % _CHUNK or _CHUNK
    chunks = []
    start = 0
    width = top
    while start < n:
        v = 0
        for p in pegs[start : start + width]:
            v = v * 3 + p
        chunks.append(v)
        start += width
        width = _CHUNK
    return tuple(chunks), top


def _run(first: int, width: int, rest: tuple[int, ...], t: int) -> int:
    """Distance to the perfect tower on ``t`` of the disks in first + rest."""
    tables = _tables()
    v = tables[width][t * _POW3[width] + first]
    d = v & ((1 << width) - 1)
    t = v >> width
    tab = tables[_CHUNK]
    for ch in rest:
        v = tab[t * _BASE + ch]
        d = (d << 8) | (v & 255)
        t = v >> 8
    return d


def to_tower(code: tuple[tuple[int, ...], int], peg: int) -> int:
    """Distance from a state to the perfect tower on ``peg`` (generalized start)."""
    chunks, top = code
    return _run(chunks[0], top, chunks[1:], peg)


def _split(s: tuple[tuple[int, ...], int], g: tuple[tuple[int, ...], int]):
    """Locate the largest differing disk; None if the states are equal."""
    sc, top = s
    gc = g[0]
    i = 0
    last = len(sc)
    while i < last and sc[i] == gc[i]:
        i += 1
    if i == last:
        return None
    x, y = sc[i], gc[i]
    q = (top if i == 0 else _CHUNK) - 1
    while x // _POW3[q] == y // _POW3[q]:
        q -= 1
    a = (x // _POW3[q]) % 3
    b = (y // _POW3[q]) % 3
    m = q + 1 + _CHUNK * (len(sc) - 1 - i)  # disk number of the largest differing disk
    mask = _POW3[q]
    return m, a, b, x % mask, y % mask, q, sc[i + 1 :], gc[i + 1 :]


def options(s, g) -> tuple[int, int] | None:
    """Lengths of the shortest paths moving the largest differing disk once and twice."""
    split = _split(s, g)
    if split is None:
        return None
    m, a, b, xs, ys, q, srest, grest = split
    c = 3 - a - b
    once = _run(xs, q, srest, c) + 1 + _run(ys, q, grest, c)
    twice = _run(xs, q, srest, b) + _run(ys, q, grest, a) + (1 << (m - 1)) + 1
    return once, twice


def distance(s, g, g_tower: int) -> int:
    """Exact distance; ``g_tower`` is the goal's tower peg, or -1 if not a tower."""
    if g_tower >= 0:
        chunks, top = s
        return _run(chunks[0], top, chunks[1:], g_tower)
    opts = options(s, g)
    return 0 if opts is None else min(opts)


def count_paths(s, g) -> int:
    """Number of shortest paths: 1, or 2 when both options tie."""
    opts = options(s, g)
    if opts is None:
        return 1
    return 2 if opts[0] == opts[1] else 1


def classic_disk(m: int) -> int:
    """The disk moved by move ``m`` (from 1) of the classic solution."""
    return (m & -m).bit_length()


def classic_peg(n: int, k: int, m: int, source: int, target: int) -> int:
    """Peg of disk ``k`` after ``m`` moves of the classic ``n``-disk solution."""
    step = (target - source) % 3
    if (n - k) % 2:
        step = 3 - step
    moves = (m + (1 << (k - 1))) >> k
    return (source + step * moves) % 3

"""Counterbalancing: which form (set and order of blocks) a session gets."""

from __future__ import annotations

import hashlib
import re


def balanced_latin_square(n: int) -> list[list[int]]:
    """Orders of ``n`` conditions, each first-order carry-over balanced (Williams 1949).

    For even ``n``, ``n`` rows in which each condition appears once in each
    position and follows every other condition exactly once; for odd ``n``,
    the ``n`` rows and their reverses (``2n`` rows) achieve the same balance.
    """
    if n < 1:
        raise ValueError("a Latin square needs at least one condition")
    rows = []
    for i in range(n):
        row, j, h = [], 0, 0
        for k in range(n):
            if k < 2 or k % 2 == 1:
                val = j
                j += 1
            else:
                val = n - h - 1
                h += 1
            row.append((val + i) % n)
        rows.append(row)
    if n % 2:
        rows += [list(reversed(r)) for r in rows]
    return rows


def assignment_index(by: str, participant: str, session: int, n: int) -> int:
    """Which of ``n`` forms a session gets.

    ``by="session"``: session 1 gets the first form, session 2 the second, and
    so on in rotation. ``by="participant"``: the number at the end of the id
    (``P007`` -> 7; participant 1 gets the first form), or, for ids without
    one, a stable hash of the id.
    """
    if by == "session":
        return (session - 1) % n
    m = re.search(r"(\d+)$", participant)
    if m:
        return (int(m.group(1)) - 1) % n
    return int(hashlib.sha256(participant.encode()).hexdigest(), 16) % n

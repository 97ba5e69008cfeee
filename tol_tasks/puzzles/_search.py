"""Exact breadth-first search over a puzzle's state graph, with cached tables.

States are integer codes ``0 <= code < n_codes``. The graph must be
undirected (every move can be undone), which holds for every puzzle here, so
one search from the goal gives the distance from every state to that goal.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable

from tol_tasks.config import DISTANCE_TABLE_CACHE, MAX_SEARCH_STATES
from tol_tasks.errors import PuzzleTooLargeError

Neighbors = Callable[[int], Iterable[int]]


def check_search_size(n_states: int, what: str, max_states: int | None = None) -> None:
    """Refuse a search over more than ``max_states`` states, with the fix."""
    bound = MAX_SEARCH_STATES if max_states is None else max_states
    if n_states > bound:
        raise PuzzleTooLargeError(
            f"{what} has {n_states:,} states, more than the {bound:,} that exact search allows.",
            fix="use fewer disks or balls, or (for Tower of Hanoi) the 3-peg rules without "
            "the adjacent-only constraint, which are solved exactly without search.",
        )


class DistanceTables:
    """Per-goal distance tables over ``n_codes`` integer states, kept in an LRU cache."""

    def __init__(self, n_codes: int, neighbors: Neighbors, cache_size: int = DISTANCE_TABLE_CACHE):
        self._n = n_codes
        self._neighbors = neighbors
        self._cache: OrderedDict[int, array] = OrderedDict()
        self._cache_size = cache_size

    def table(self, goal: int) -> array:
        """Distances of every state to ``goal`` (-1 where it cannot be reached)."""
        cached = self._cache.get(goal)
        if cached is not None:
            self._cache.move_to_end(goal)
            return cached
        dist = array("i", [-1]) * self._n
        dist[goal] = 0
        frontier = [goal]
        level = 0
        neighbors = self._neighbors
        while frontier:
            level += 1
            nxt = []
            for u in frontier:
                for v in neighbors(u):
                    if dist[v] < 0:
                        dist[v] = level
                        nxt.append(v)
            frontier = nxt
        self._cache[goal] = dist
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return dist

    def count_paths(self, start: int, goal: int) -> int:
        """Number of distinct shortest paths from ``start`` to ``goal`` (0 if none)."""
        dist = self.table(goal)
        if dist[start] < 0:
            return 0
        counts = {start: 1}
        layer = [start]
        for level in range(dist[start], 0, -1):
            nxt: dict[int, int] = {}
            for u in layer:
                cu = counts[u]
                for v in self._neighbors(u):
                    if dist[v] == level - 1:
                        nxt[v] = nxt.get(v, 0) + cu
            counts = nxt
            layer = list(nxt)
        return counts.get(goal, 0)

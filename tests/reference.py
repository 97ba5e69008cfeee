"""A plain, independent breadth-first search used as the tests' oracle.

Nothing here imports tol_tasks: states are plain tuples of stacks and the
rules are written out again from their textbook statements, so that an
agreement with the solver means something.
"""

from __future__ import annotations

from collections import deque
from itertools import permutations, product

LETTERS = "ABCDEFGH"


def hanoi_graph(n: int, pegs: int = 3, adjacent_only: bool = False):
    """All states as texts (largest disk first) and each state's moves.

    Returns a dict: text -> list of (disk, source, target, neighbour text).
    """
    texts = ["".join(p) for p in product(LETTERS[:pegs], repeat=n)]
    graph = {}
    for text in texts:
        stacks = [[] for _ in range(pegs)]
        for pos, letter in enumerate(text):  # largest first, so stacks fill bottom-up
            stacks[LETTERS.index(letter)].append(n - pos)
        moves = []
        for i in range(pegs):
            if not stacks[i]:
                continue
            disk = stacks[i][-1]
            for j in range(pegs):
                if j == i or (adjacent_only and abs(i - j) != 1):
                    continue
                if stacks[j] and stacks[j][-1] < disk:
                    continue
                chars = list(text)
                chars[n - disk] = LETTERS[j]
                moves.append((disk, i, j, "".join(chars)))
        graph[text] = moves
    return graph


def london_graph(balls: str = "RGB", capacities=(3, 2, 1)):
    """All Tower of London states as texts and each state's moves."""
    states = set()
    for order in set(permutations(balls)):
        seq = "".join(order)
        for cuts in product(range(len(seq) + 1), repeat=len(capacities) - 1):
            if list(cuts) != sorted(cuts):
                continue
            bounds = [0, *cuts, len(seq)]
            cols = [seq[bounds[k] : bounds[k + 1]] for k in range(len(capacities))]
            if all(len(c) <= cap for c, cap in zip(cols, capacities, strict=True)):
                states.add(tuple(cols))
    graph = {}
    for cols in states:
        moves = []
        for i, src in enumerate(cols):
            if not src:
                continue
            for j, dst in enumerate(cols):
                if j != i and len(dst) < capacities[j]:
                    new = list(cols)
                    new[i] = src[:-1]
                    new[j] = dst + src[-1]
                    moves.append((src[-1], i, j, "|".join(new)))
        graph["|".join(cols)] = moves
    return graph


def bfs(graph, goal):
    """Distance and number of shortest paths from every state to ``goal``.

    The graphs are undirected, so a search from the goal serves every start.
    """
    dist = {goal: 0}
    count = {goal: 1}
    queue = deque([goal])
    while queue:
        u = queue.popleft()
        for *_, v in graph[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                count[v] = 0
                queue.append(v)
            if dist[v] == dist[u] + 1:
                count[v] += count[u]
    return dist, count


def optimal_first_moves(graph, dist, state):
    """(source, target) of every move from ``state`` that lowers the distance by one."""
    return sorted((i, j) for _, i, j, v in graph[state] if dist.get(v, -2) == dist[state] - 1)


def classic_moves(n: int, source: int = 0, target: int = 2, spare: int = 1):
    """The recursive tower-to-tower solution: list of (disk, source, target)."""
    if n == 0:
        return []
    return (
        classic_moves(n - 1, source, spare, target)
        + [(n, source, target)]
        + classic_moves(n - 1, spare, target, source)
    )


def graph_of(puzzle_code: str, _cache: dict = {}) -> dict:  # noqa: B006 - a deliberate cache
    """The graph of an event log's ``puzzle`` code (``hanoi:3:3:0``, ``london:RGB:3-2-1``)."""
    if puzzle_code not in _cache:
        kind, *rest = puzzle_code.split(":")
        if kind == "hanoi":
            disks, pegs, adjacent = rest
            _cache[puzzle_code] = hanoi_graph(int(disks), int(pegs), adjacent == "1")
        else:
            balls, caps = rest
            _cache[puzzle_code] = london_graph(balls, tuple(int(c) for c in caps.split("-")))
    return _cache[puzzle_code]


def replay(rows: list[dict]) -> int:
    """Check an event log's rows against the graphs; return the number of attempts seen.

    Every placement is one legal move from the state before it; a refused or
    empty action leaves the state as it was; a solved problem or finished copy
    is at its goal.
    """
    attempts = 0
    state = goal = graph = None
    for row in rows:
        event = row["event"]
        if event in ("trial_onset", "copy_onset"):
            attempts += 1
            state, goal, graph = row["state"], row["goal"], graph_of(row["puzzle"])
        elif event == "place":
            assert row["state"] in {v for *_, v in graph[state]}, (
                f"row {row['row']}: {state} -> {row['state']} is not one move"
            )
            state = row["state"]
        elif event in ("illegal", "same_peg_drop", "pick_up", "copy_refused"):
            assert row["state"] == state, row
        elif event in ("solved", "copy_done") or (
            event == "trial_end" and row["reason"] == "solved"
        ):
            assert state == goal, row
    return attempts

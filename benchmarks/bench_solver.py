"""Per-query cost of 3-peg Tower of Hanoi distances, against a per-query BFS.

Run with::

    uv run python benchmarks/bench_solver.py

Prints, for n = 10 and n = 64, the time per ``Hanoi.distance`` query on
random pairs of states (parsed beforehand; half with a perfect-tower goal,
half with an arbitrary goal), a plain per-disk loop for the perfect-tower
case as the baseline the issue quotes, and, side by side in the same run, the
time for the same n = 10 queries answered by building the Hanoi graph with
networkx and running a BFS, with the ratio. The machine is shared: compare
the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from itertools import product

from tol_tasks import Hanoi


def _per_call(fn, pairs, repeat: int) -> float:
    """Best-of-``repeat`` mean seconds per call of ``fn(s, g)`` over ``pairs``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for s, g in pairs:
            fn(s, g)
        best = min(best, (time.perf_counter() - t0) / len(pairs))
    return best


def _loop_to_tower(pegs: tuple[int, ...], peg: int) -> int:
    """The plain per-disk generalized-start loop (baseline)."""
    total, target, k = 0, peg, len(pegs)
    for where in pegs:
        if where != target:
            total += 1 << (k - 1)
            target = 3 - where - target
        k -= 1
    return total


def _networkx_distance(n: int):
    import networkx as nx

    letters = "ABC"

    def query(s: str, g: str) -> int:
        graph = nx.Graph()
        for text in map("".join, product(letters, repeat=n)):
            tops = {}
            for pos in range(n - 1, -1, -1):
                tops.setdefault(text[pos], n - pos)
            for a, da in tops.items():
                for b in letters:
                    if b != a and (b not in tops or tops[b] > da):
                        chars = list(text)
                        chars[n - da] = b
                        graph.add_edge(text, "".join(chars))
        return nx.shortest_path_length(graph, s, g)

    return query


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=20000, help="random pairs per size")
    ap.add_argument("--bfs-queries", type=int, default=5, help="networkx BFS queries at n = 10")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    rows = []
    results = {}
    for n in (10, 64):
        p = Hanoi(n)

        def rand(n=n):
            return "".join(rng.choice("ABC") for _ in range(n))

        arbitrary = [(p.parse(rand()), p.parse(rand())) for _ in range(args.queries)]
        towers = [(p.parse(rand()), p.tower(rng.randrange(3))) for _ in range(args.queries)]
        for s, g in arbitrary + towers:  # warm the states' cached encodings
            p.distance(s, g)
        t_arb = _per_call(p.distance, arbitrary, 5)
        t_tow = _per_call(p.distance, towers, 5)
        t_loop = _per_call(lambda s, g: _loop_to_tower(s.pegs, g.pegs[0]), towers, 5)
        texts = [(str(s), str(g)) for s, g in arbitrary]
        t_cold = _per_call(p.distance, texts, 3)
        results[n] = (arbitrary, t_arb)
        rows.append((n, "Hanoi.distance, arbitrary goal", t_arb))
        rows.append((n, "Hanoi.distance, perfect-tower goal", t_tow))
        rows.append((n, "plain per-disk loop, perfect-tower goal", t_loop))
        rows.append((n, "Hanoi.distance from texts (parse included)", t_cold))

    query = _networkx_distance(10)
    arbitrary10 = results[10][0][: args.bfs_queries]
    times = []
    for s, g in arbitrary10:
        t0 = time.perf_counter()
        d = query(str(s), str(g))
        times.append(time.perf_counter() - t0)
        assert d == Hanoi(10).distance(s, g)
    t_bfs = statistics.median(times)
    rows.append((10, "networkx graph + BFS per query", t_bfs))

    print(f"{'n':>3}  {'method':<42} {'per query':>14}")
    for n, name, t in rows:
        print(f"{n:>3}  {name:<42} {t * 1e6:>11.2f} µs")
    print()
    print(f"n=64 arbitrary goal, per query: {results[64][1] * 1e6:.2f} µs (target <= 10 µs)")
    ratio = t_bfs / results[10][1]
    print(f"n=10 speed-up over networkx BFS per query: {ratio:,.0f}x (target >= 10,000x)")


if __name__ == "__main__":
    main()

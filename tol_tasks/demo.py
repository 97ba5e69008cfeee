"""A short demonstration of the puzzle model and the exact solver.

Run with ``python -m tol_tasks.demo``.
"""

from __future__ import annotations

import time

from . import Hanoi, London


def main() -> None:
    """Print a few exact answers and how long they took."""
    p = Hanoi(disks=3)
    s, g = p.parse("BAA"), p.parse("ABA")
    print("Tower of Hanoi, 3 disks, 3 pegs")
    print(f"  BAA -> ABA: {p.distance(s, g)} moves, {p.count_optimal_paths(s, g)} shortest path(s)")
    print(f"  optimal first moves: {', '.join(map(str, p.optimal_moves(s, g)))}")
    print(f"  one optimal solution: {' '.join(map(str, p.solve(s, g)))}")

    t = London()
    a, b = t.parse("GR|B|"), t.parse("|RG|B")
    print("Tower of London, balls RGB on pegs of capacity 3, 2, 1")
    print(
        f"  GR|B| -> |RG|B: {t.distance(a, b)} moves, {t.count_optimal_paths(a, b)} shortest path(s)"
    )
    print(f"  {t.n_states} states; solution: {' '.join(map(str, t.solve(a, b)))}")

    big = Hanoi(64)
    start = big.parse("ABC" * 21 + "A")
    t0 = time.perf_counter()
    d = big.distance(start, big.tower("C"))
    took = (time.perf_counter() - t0) * 1e6
    print("Tower of Hanoi, 64 disks")
    print(f"  move 2**63 of the legend: {big.nth_move(2**63)}")
    print(f"  {start} -> all on C: {d:,} moves (answered in {took:.0f} µs)")


if __name__ == "__main__":
    main()

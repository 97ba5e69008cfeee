"""Every bundled protocol loads, and its minimum moves match an independent BFS."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reference import bfs, hanoi_graph, london_graph
from tol_tasks import Hanoi
from tol_tasks.protocol_format.load import bundled_protocols, load_protocol

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(bundled_protocols())
_GRAPHS: dict = {}


def _reference_distance(puzzle, start, goal) -> int:
    if isinstance(puzzle, Hanoi):
        key = ("hanoi", puzzle.n_disks, puzzle.n_pegs, puzzle.adjacent_only)
        if key not in _GRAPHS:
            _GRAPHS[key] = hanoi_graph(puzzle.n_disks, puzzle.n_pegs, puzzle.adjacent_only)
    else:
        key = ("london", puzzle.balls, puzzle.capacities)
        if key not in _GRAPHS:
            _GRAPHS[key] = london_graph(puzzle.balls, puzzle.capacities)
    return bfs(_GRAPHS[key], str(goal))[0][str(start)]


def test_the_expected_protocols_are_bundled():
    assert set(NAMES) >= {
        "demo", "hanoi-classic", "hanoi-generalized", "hanoi-adjacent",
        "london-shallice", "london-tol-dx",
    }  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_bundled_protocol_loads_and_minimums_match_bfs(name):
    lp = load_protocol(name)
    assert lp.model.citation.strip(), "every bundled protocol cites its source"
    specs = list(lp.all_problems())
    assert specs
    for spec in specs:
        assert spec.min_moves == _reference_distance(spec.puzzle, spec.start, spec.goal), spec.id


def _test_minimums(name: str, block: int = 0) -> list[int]:
    return [p.min_moves for p in load_protocol(name).block_problems(block)]


def test_shallice_minimums():
    # Shallice (1982): 12 problems needing 2,2,3,3,4,4,4,4,5,5,5,5 moves from one start.
    assert _test_minimums("london-shallice") == [2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
    assert {str(p.start) for p in load_protocol("london-shallice").block_problems(0)} == {"GR|B|"}


def test_tol_dx_structure():
    # Culbertson & Zillmer (1998): 15 problems, three each at 3 to 7 moves, one attempt each.
    lp = load_protocol("london-tol-dx")
    assert _test_minimums("london-tol-dx") == [m for m in range(3, 8) for _ in range(3)]
    assert lp.model.blocks[0].attempts == 1
    assert all(p.time_limit for p in lp.block_problems(0))


def test_bishop_structure():
    # Bishop et al. (2001): 13 problems, 2 to 4 disks, needing 3,4,4,5,5,6,6,7,7,8,8,9,9 moves.
    problems = load_protocol("hanoi-generalized").block_problems(0)
    assert [p.min_moves for p in problems] == [3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9]
    assert {p.puzzle.n_disks for p in problems} == {2, 3, 4}


def test_classic_and_adjacent():
    # 2**n - 1 (Lucas 1883) and, with neighbouring pegs only, 3**n - 1 (Scorer et al. 1944).
    assert _test_minimums("hanoi-classic") == [7, 15, 31]
    lp = load_protocol("hanoi-adjacent")
    towers = [p for p in lp.block_problems(0) if p.start.tower_peg == 0 and p.goal.tower_peg == 2]
    assert [(p.puzzle.n_disks, p.min_moves) for p in towers] == [(2, 8), (3, 26)]


def test_generalized_protocol_is_reproduced_by_its_script(tmp_path):
    # Written into tmp_path: the tracked file is never touched (other workers read it).
    made = tmp_path / "hanoi-generalized.yaml"
    subprocess.run(
        [sys.executable, str(ROOT / "protocols" / "make_hanoi_generalized.py"), str(made)],
        check=True,
    )
    assert made.read_text() == (ROOT / "protocols" / "hanoi-generalized.yaml").read_text()


def test_documented_example_validates_and_matches_the_docs():
    example = ROOT / "docs" / "example-protocol.yaml"
    lp = load_protocol(example)
    assert lp.languages() == ["en", "fr"]
    assert lp.messages("fr")["solved"] == "Résolu !"
    assert lp.messages("en")["solved"] == "Solved!"
    doc = (ROOT / "docs" / "protocols.md").read_text()
    assert example.read_text() in doc
    # Every field of the model is mentioned in the commented example.
    from tol_tasks.protocol_format.model import (
        Block,
        Display,
        Input,
        Instructions,
        Practice,
        Problem,
        Protocol,
    )

    text = example.read_text()
    for model in (Protocol, Display, Input, Instructions, Practice, Block, Problem):
        for field in model.model_fields:
            assert re.search(rf"\b{field}\b", text), f"{model.__name__}.{field} is not documented"

"""The problem generator: valid output, constraints met, reproducible, clear refusals."""

from __future__ import annotations

import pytest

from tests.reference import bfs, london_graph
from tol_tasks.protocol_format.describe import configuration_type
from tol_tasks.protocol_format.generate import GenerationError, GeneratorSpec, generate_protocol
from tol_tasks.protocol_format.load import load_protocol_text


@pytest.mark.parametrize(
    "spec",
    [
        GeneratorSpec(disks=4, min_moves=(3, 9), per_level=2, seed=7),
        GeneratorSpec(disks=3, min_moves=(2, 7), per_level=2, start_type="tower", seed=1),
        GeneratorSpec(task="london", min_moves=(3, 7), per_level=3, start="GR|B|", seed=2),
        GeneratorSpec(
            task="london", min_moves=(4, 6), per_level=2, paths="unique", goal_type="flat"
        ),
        GeneratorSpec(disks=3, pegs=4, min_moves=(2, 5), per_level=2, paths="multiple", seed=3),
        # 7 disks: 2,187 states, 4.8 million pairs: sampled, not enumerated (10 disks took 8 s)
        GeneratorSpec(disks=7, min_moves=(20, 25), per_level=1, seed=5),
    ],
)
def test_generated_protocol_validates_and_meets_its_constraints(spec):
    text = generate_protocol(spec)
    assert text == generate_protocol(spec), "same arguments, same file"
    lp = load_protocol_text(text)
    problems = lp.block_problems(0)
    lo, hi = spec.min_moves
    assert [p.min_moves for p in problems] == [
        m for m in range(lo, hi + 1) for _ in range(spec.per_level)
    ]
    for p in problems:
        if spec.start:
            assert str(p.start) == spec.start
        if spec.start_type != "any":
            assert configuration_type(p.puzzle, p.start) == spec.start_type
        if spec.goal_type != "any":
            assert configuration_type(p.puzzle, p.goal) == spec.goal_type
        paths = p.puzzle.count_optimal_paths(p.start, p.goal)
        if spec.paths == "unique":
            assert paths == 1
        if spec.paths == "multiple":
            assert paths > 1
    assert len({p.id for p in problems}) == len(problems)


def test_different_seeds_differ():
    a = generate_protocol(GeneratorSpec(disks=4, min_moves=(5, 9), seed=1))
    b = generate_protocol(GeneratorSpec(disks=4, min_moves=(5, 9), seed=2))
    assert a != b


def test_london_minimums_agree_with_bfs():
    text = generate_protocol(GeneratorSpec(task="london", min_moves=(1, 8), per_level=2, seed=9))
    graph = london_graph()
    for p in load_protocol_text(text).block_problems(0):
        assert bfs(graph, str(p.goal))[0][str(p.start)] == p.min_moves


def test_impossible_constraints_are_refused_clearly():
    # The 3/2/1 Tower of London has diameter 8: no 9-move problem exists.
    with pytest.raises(GenerationError, match=r"only 0 problem\(s\) of 9 moves .* exist in London"):
        generate_protocol(GeneratorSpec(task="london", min_moves=(8, 9), per_level=1))
    # From the standard start only two 7-move goals have a unique shortest path.
    with pytest.raises(GenerationError, match=r"only 2 problem\(s\) of 7 moves .*unique"):
        generate_protocol(
            GeneratorSpec(
                task="london", start="GR|B|", min_moves=(7, 7), per_level=3, paths="unique"
            )
        )
    with pytest.raises(GenerationError, match="range 5-3 is empty"):
        generate_protocol(GeneratorSpec(min_moves=(5, 3)))
    with pytest.raises(GenerationError, match="start type 'pyramid'"):
        generate_protocol(GeneratorSpec(start_type="pyramid"))

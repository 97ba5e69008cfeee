"""Bad input raises the documented error with a message that says what to do."""

from __future__ import annotations

import pytest

from tol_tasks import (
    Hanoi,
    IllegalMoveError,
    London,
    Move,
    PuzzleDefinitionError,
    PuzzleTooLargeError,
    StateError,
    TolTasksError,
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("BBDA", r'"BBDA": character 3 \(disk 2\) is on peg D, but this puzzle has pegs A-C'),
        ("BBA", r'"BBA": 3 letters given, but this puzzle has 4 disks; write one peg letter'),
        ("BBAAA", r"5 letters given, but this puzzle has 4 disks"),
        ("", r'"": 0 letters given'),
        ("B1AA", r"character 2 \(disk 3\) is '1', not a peg letter"),
        ("BÄAA", r"character 2 \(disk 3\) is 'Ä', not a peg letter"),
    ],
)
def test_bad_hanoi_text(text, message):
    with pytest.raises(StateError, match=message):
        Hanoi(4).parse(text)


def test_hanoi_message_shows_the_expected_form():
    with pytest.raises(StateError, match=r'largest disk first, e\.g\. "AAAA"'):
        Hanoi(4).parse("AB")


@pytest.mark.parametrize(
    ("pegs", "message"),
    [
        ([[3, 2], [1]], r"give one list per peg \(3 lists\)"),
        ([[3, 2], [1, 1], []], r"disk 1 is listed twice"),
        ([[2, 3], [1], []], r"on peg A disk 3 lies on the smaller disk 2"),
        ([[3], [1], []], r"disk\(s\) 2 missing"),
        ([[4, 2, 1], [], []], r"peg A lists 4, but disks are numbered 1 \(smallest\) to 3"),
    ],
)
def test_bad_hanoi_peg_lists(pegs, message):
    with pytest.raises(StateError, match=message):
        Hanoi(3).from_pegs(pegs)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GR|B", r'"GR\|B": 2 pegs given, but this puzzle has 3'),
        ("GX|B|", r"ball 'X' on peg A is not one of this puzzle's balls R, G, B"),
        ("|GRB|", r"peg B holds 3 balls, but its capacity is 2"),
        ("GR|R|", r"ball B is missing; ball R appears 2 times"),
        ("G|R|", r"ball B is missing"),
        ("G1|R|B", r"ball '1' on peg A is not one of"),
    ],
)
def test_bad_london_text(text, message):
    with pytest.raises(StateError, match=message):
        London().parse(text)


def test_london_message_shows_the_expected_form():
    with pytest.raises(
        StateError, match=r'bottom to top, 3 pegs separated by \'\|\', e\.g\. "RGB\|\|"'
    ):
        London().parse("RGB")


@pytest.mark.parametrize(
    ("state", "source", "target", "rule", "message"),
    [
        ("AAA", "B", "C", "empty_source", r"cannot move from peg B: it is empty"),
        (
            "AAB",
            "A",
            "B",
            "larger_on_smaller",
            r"cannot move disk 2 from peg A onto disk 1 on peg B",
        ),
        ("AAA", "A", "A", "same_peg", r"source and target are both peg A"),
        (
            "AAA",
            "A",
            "D",
            "no_such_peg",
            r"target peg 'D' does not exist: this puzzle has pegs A-C",
        ),
        ("AAA", 3, 0, "no_such_peg", r"source peg 3 does not exist"),
    ],
)
def test_illegal_hanoi_moves(state, source, target, rule, message):
    with pytest.raises(IllegalMoveError, match=message) as info:
        Hanoi(3).move(state, source, target)
    assert info.value.rule == rule


def test_adjacent_only_forbids_the_outer_pair():
    p = Hanoi(3, adjacent_only=True)
    with pytest.raises(IllegalMoveError, match="neighbouring pegs only") as info:
        p.move("AAA", "A", "C")
    assert info.value.rule == "forbidden_pair"
    assert str(p.move("AAA", "A", "B")) == "AAB"


def test_illegal_london_moves():
    t = London()
    with pytest.raises(
        IllegalMoveError, match=r"cannot move ball R onto peg C: it is full"
    ) as info:
        t.move("GR||B", "A", "C")
    assert info.value.rule == "peg_full"
    with pytest.raises(IllegalMoveError, match="cannot move from peg B: it is empty"):
        t.move("GR||B", "B", "A")


def test_apply_checks_the_piece():
    with pytest.raises(IllegalMoveError, match="the top piece there is 1") as info:
        Hanoi(3).apply("AAA", Move(2, 0, 1))
    assert info.value.rule == "wrong_piece"


def test_states_of_another_puzzle_are_refused():
    with pytest.raises(StateError, match=r"start AAAA is not a state of Hanoi\(disks=3, pegs=3\)"):
        Hanoi(3).distance(Hanoi(4).parse("AAAA"), "AAA")
    with pytest.raises(StateError, match="is not a state of Hanoi"):
        Hanoi(3).distance(Hanoi(3, pegs=4).parse("DDD"), "AAA")
    with pytest.raises(StateError, match="is not a state of London"):
        London().distance(London("RGBY", (4, 3, 2, 1)).parse("RGBY|||"), "RGB||")
    with pytest.raises(StateError, match="neither a HanoiState nor a state text"):
        Hanoi(3).distance(123, "AAA")


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        (lambda: Hanoi(0), r"disks=0: a Tower of Hanoi needs a whole number of disks from 1"),
        (lambda: Hanoi(3, pegs=2), r"pegs=2: a Tower of Hanoi needs a whole number of pegs from 3"),
        (lambda: Hanoi(True), r"disks=True"),
        (lambda: London("rgb"), r"balls='rgb': give one capital letter per ball"),
        (lambda: London("RGB", (3, 0, 1)), r"capacities=\(3, 0, 1\): give each peg's capacity"),
        (lambda: London("RGBY", (1, 1, 1)), r"hold 3 balls in all, fewer than the 4 balls"),
    ],
)
def test_bad_puzzle_definitions(factory, message):
    with pytest.raises(PuzzleDefinitionError, match=message):
        factory()


def test_search_refuses_huge_puzzles_with_a_fix():
    p = Hanoi(12, pegs=4)  # 16.7 million states
    with pytest.raises(PuzzleTooLargeError, match=r"16,777,216 states, more than the 1,048,576"):
        p.distance(p.tower(0), p.tower(3))
    # ... while the classic puzzle answers any size exactly without search.
    assert Hanoi(1000).distance("A" * 1000, "C" * 1000) == 2**1000 - 1


def test_every_error_is_a_tol_tasks_error():
    for cls in (StateError, IllegalMoveError, PuzzleDefinitionError, PuzzleTooLargeError):
        assert issubclass(cls, TolTasksError)

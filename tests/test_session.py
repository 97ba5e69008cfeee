"""The trial rules the runner applies, driven directly (no display needed)."""

from __future__ import annotations

import pytest

from tol_tasks.protocol_format.load import load_protocol_text
from tol_tasks.protocol_format.model import Rules
from tol_tasks.session_data.trial import (
    ParticipantIdError,
    TrialState,
    block_order,
    check_participant_id,
)


def _spec(
    extra: str = "", task: str = "{type: hanoi, disks: 3}", problem: str = "start: AAA, goal: ACC"
):
    text = f"format: 1\nname: t\ntask: {task}\nblocks:\n  - problems:\n      - {{id: p1, {problem}{extra}}}\n"
    return load_protocol_text(text).block_problems(0)[0]


def _events(results):
    return [r["event"] for r in results]


def test_a_solved_trial():
    t = TrialState(_spec(), Rules())
    assert _events(t.pick(0) + t.drop(1)) == ["pick_up", "place"]
    assert _events(t.pick(0) + t.drop(2)) == ["pick_up", "place"]
    assert _events(t.pick(1) + t.drop(2)) == ["pick_up", "place", "solved"]
    assert (t.outcome, t.moves, str(t.state)) == ("solved", 3, "ACC")
    assert t.pick(0) == []  # nothing happens after the end


def test_illegal_and_same_peg_conventions():
    default = TrialState(_spec(), Rules())
    default.pick(0)
    default.drop(1)
    assert _events(default.pick(0) + default.drop(1)) == ["pick_up", "illegal"]
    assert default.pick(1)[0]["piece"] == 1
    assert _events(default.drop(1)) == ["same_peg_drop"]
    assert (default.moves, default.violations) == (1, 1)
    strict = TrialState(
        _spec(), Rules(same_peg_drop_counts_as_move=True, violation_counts_as_move=True)
    )
    strict.pick(0)
    strict.drop(1)
    strict.pick(0)
    illegal = strict.drop(1)
    assert illegal[0]["reason"] == "larger_on_smaller"
    strict.pick(1)
    strict.drop(1)
    assert strict.moves == 3  # one move, one violation, one same-peg drop


def test_empty_pick_and_cancel():
    t = TrialState(_spec(), Rules())
    assert _events(t.pick(2)) == ["empty_pick"]
    t.pick(0)
    assert _events(t.drop(None)) == ["cancel"]
    assert t.moves == 0
    assert t.held is None


def test_move_limit_ends_the_trial_unsolved():
    t = TrialState(_spec(", move_limit: 3"), Rules())
    t.pick(0)
    t.drop(2)  # 1 A->C: not on the optimal path
    t.pick(2)
    t.drop(1)
    res = t.pick(1) + t.drop(2)
    assert _events(res) == ["pick_up", "place", "move_limit"]
    assert t.outcome == "move_limit"


def test_time_limit():
    t = TrialState(_spec(", time_limit: 2"), Rules())
    assert t.tick(1.99) == []
    assert _events(t.tick(2.0)) == ["time_out"]
    assert t.outcome == "time_out"
    assert t.tick(3.0) == []


def test_london_full_peg():
    t = TrialState(_spec(task="{type: london}", problem="start: 'GR|B|', goal: 'G|R|B'"), Rules())
    t.pick(0)
    t.drop(2)  # R onto C (capacity 1)
    t.pick(1)
    res = t.drop(2)
    assert res[0]["reason"] == "peg_full"
    assert t.puzzle.code == "london:RGB:3-2-1"


def test_block_order():
    assert block_order(5, "fixed", None) == ([0, 1, 2, 3, 4], None)
    order, seed = block_order(5, "shuffled", 7)
    assert seed == 7
    assert order == block_order(5, "shuffled", 7)[0]
    assert sorted(order) == [0, 1, 2, 3, 4]
    drawn_order, drawn = block_order(5, "shuffled", None)
    assert isinstance(drawn, int)
    assert block_order(5, "shuffled", drawn)[0] == drawn_order


@pytest.mark.parametrize(
    ("pid", "why"),
    [
        ("../x", "contains '/' \\(a path separator\\) at position 3"),
        ("a\\b", "path separator"),
        ("a..b", "contains '..' at position 2"),
        ("x\ty", "a tab \\(U\\+0009\\) at position 2"),
        ("P001\n", "a newline \\(U\\+000A\\) at its end"),
        ("P001 ", "' ' \\(a space\\) at its end"),
        ("Jé an/1", "'é' \\(U\\+00E9\\) at position 2"),
        ("\u200bP1", "an invisible character \\(zero width space, U\\+200B\\) at its start"),
        ("_P1", "starts with '_'"),
        ("P" * 65, "65 characters long"),
        ("", "empty"),
    ],
)
def test_participant_ids(pid, why):
    with pytest.raises(ParticipantIdError, match=why):
        check_participant_id(pid)
    assert check_participant_id("P001") == "P001"

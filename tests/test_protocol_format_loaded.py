"""The resolved view of a protocol (issue 33): :meth:`LoadedProtocol.resolve` hands a player
everything it needs in one language, and ``tol-web build`` serialises exactly that.

Expected values come from the protocol file and the text tables read as raw YAML, and from
the colour constants of ``config.py``, not from the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tol_tasks.config import DEFAULT_DISK_COLORS
from tol_tasks.protocol_format import load_protocol, load_protocol_text
from tol_tasks.web import compile_protocol

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "tol_tasks" / "texts"
EXAMPLE = ROOT / "docs" / "example-protocol.yaml"


def _raw_messages(language: str) -> dict:
    return yaml.safe_load((TABLES / f"{language}.yaml").read_text(encoding="utf-8"))["messages"]


def test_resolve_gives_the_texts_of_the_language_with_the_protocols_own_first():
    lp = load_protocol(EXAMPLE)
    raw = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    view = lp.resolve("fr")
    assert view.language == "fr"
    assert view.messages == {**_raw_messages("fr"), **raw["instructions"]["messages"]["fr"]}
    assert view.title == view.messages["title_hanoi"]
    assert [p.text for p in view.pages] == [p["text"] for p in raw["instructions"]["pages"]["fr"]]
    # No language given: the protocol's default one.
    assert lp.resolve().language == raw["instructions"].get("default_language", "en")


def test_resolve_refuses_a_language_the_protocol_cannot_run_in_and_names_those_it_can():
    lp = load_protocol(EXAMPLE)
    with pytest.raises(ValueError, match=r"'de'.*Suggested fix: choose one of en, fr\."):
        lp.resolve("de")


def test_resolve_gives_each_apparatus_its_colours_and_labels():
    text = (
        "format: 1\nname: p\ntask: {type: hanoi, disks: 3}\n"
        "display: {piece_labels: true, piece_colors: {'2': navy}}\n"
        "practice: {problems: [{id: a, start: AA, goal: CC, disks: 2}]}\n"
        "blocks: [{problems: [{id: b, start: AAAA, goal: CCCC, disks: 4}]}]\n"
    )
    view = load_protocol_text(text, "p.yaml").resolve()
    assert sorted(view.looks) == ["hanoi:2:3:0", "hanoi:4:3:0"]
    four = view.looks["hanoi:4:3:0"]
    assert four.colors == {"1": DEFAULT_DISK_COLORS[0], "2": "navy",
                           "3": DEFAULT_DISK_COLORS[2], "4": DEFAULT_DISK_COLORS[3]}  # fmt: skip
    assert four.labels["2"] == ("2", "#ffffff")  # white reads better on navy
    assert view.layout_puzzle.code == "hanoi:4:3:0"  # the first test problem's
    assert [p.id for p in view.practice] == ["a"]
    assert [[p.id for p in block] for block in view.blocks] == [["b"]]
    assert [p.min_moves for p in (*view.practice, *view.blocks[0])] == [2**2 - 1, 2**4 - 1]


def test_the_web_build_serialises_the_resolved_view_of_every_language():
    lp = load_protocol(EXAMPLE)
    compiled = compile_protocol(lp)
    for lang in ("en", "fr"):
        view = lp.resolve(lang)
        got = compiled["languages"][lang]
        assert got["messages"] == dict(view.messages)
        assert got["title"] == view.title
        assert [p["text"] for p in got["pages"]] == [p.text for p in view.pages]
    for look in compiled["puzzles"].values():
        assert look["colors"] == {d: DEFAULT_DISK_COLORS[int(d) - 1] for d in look["pieces"]}
        assert look["labels"] is None
    assert compiled["layout_puzzle"] == lp.resolve().layout_puzzle.code == "hanoi:3:3:0"


def test_the_problems_of_one_apparatus_share_one_puzzle_and_its_searches():
    """Resolving a protocol asks for its apparatus once per problem: one puzzle answers
    (its searched distances kept), with the distances of a puzzle made afresh."""
    from tol_tasks.protocol_format.model import HanoiTask
    from tol_tasks.puzzles.hanoi import Hanoi

    task = HanoiTask(type="hanoi", disks=5, pegs=4)
    first, second = task.puzzle(), task.puzzle()
    assert first is second
    assert task.puzzle(4) is not first
    fresh = Hanoi(5, 4, False)
    for start, goal in (("AAAAA", "DDDDD"), ("ABCDA", "DCBAD")):
        assert first.distance(start, goal) == fresh.distance(start, goal)

"""Every state example shown to people describes the board it claims.

A reversed Tower of Hanoi text is still a legal state, so a wrong example (the
Builder hint once said smallest disk first) runs a different problem without
any error. Examples are written in one checkable form, ``STATE = [[...], ...]``
(each peg's pieces bottom to top), in the Builder component's hints, the
README and the docs, and as ``[[...]]  # the same as STATE`` in the commented
protocol. The boards are built here from the lists alone, with the state
texts' rule written out again (Hanoi: one peg letter per disk, largest disk
first; London: each peg's balls bottom to top, pegs split by ``|``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tol_tasks.builder.settings import PARAMS
from tol_tasks.puzzles import Hanoi, London

ROOT = Path(__file__).resolve().parents[1]
LETTERS = "ABCDEFGH"

#: ``STATE = [[...]]``, each side optionally in backticks (Markdown tables escape ``|``).
CLAIM = re.compile(r"`?([A-Z](?:[A-Z|]|\\\|)+)`?\s*=\s*`?(\[\[[^`\n]*?\]\])")
#: ``[[...]]  # the same as STATE`` in a YAML example.
SAME_AS = re.compile(r"(\[\[[^\n#]*?\]\])\s*#\s*the same as\s+([A-Z|]+)")


def _texts() -> dict[str, str]:
    out = {
        "README.md": (ROOT / "README.md").read_text(encoding="utf-8"),
        "docs/example-protocol.yaml": (ROOT / "docs/example-protocol.yaml").read_text("utf-8"),
    }
    for doc in sorted((ROOT / "docs").glob("*.md")):
        out[str(doc.relative_to(ROOT))] = doc.read_text(encoding="utf-8")
    for p in PARAMS:
        out[f"Builder hint {p.name}"] = p.hint
    return out


def _board_of_text(text: str) -> list[list]:
    """The pegs of a state text by the documented rule (independent of the puzzles package)."""
    if "|" in text:
        return [list(peg) for peg in text.split("|")]
    n = len(text)
    pegs: list[list] = [[] for _ in range(max(3, max(LETTERS.index(c) for c in text) + 1))]
    for position, letter in enumerate(text):  # largest disk (n) first
        pegs[LETTERS.index(letter)].append(n - position)
    return pegs


def _claims() -> list[tuple[str, str, list]]:
    found = []
    for source, text in _texts().items():
        for m in CLAIM.finditer(text):
            found.append((source, m.group(1).replace("\\|", "|"), yaml.safe_load(m.group(2))))
        for m in SAME_AS.finditer(text):
            found.append((source, m.group(2), yaml.safe_load(m.group(1))))
    return found


CLAIMS = _claims()


def test_every_place_that_shows_states_has_checked_examples():
    sources = {s for s, _, _ in CLAIMS}
    for needed in ("README.md", "docs/protocols.md", "docs/example-protocol.yaml",
                   "Builder hint start"):  # fmt: skip
        assert needed in sources, needed
    assert len(CLAIMS) >= 8


@pytest.mark.parametrize(("source", "text", "pegs"), CLAIMS, ids=[f"{s}:{t}" for s, t, _ in CLAIMS])
def test_a_state_example_describes_the_board_it_claims(source, text, pegs):
    # Padded to the same number of pegs (a claim may leave out trailing empty pegs).
    board = _board_of_text(text)
    assert board == pegs + [[]] * (len(board) - len(pegs)), f"{source}: {text} is not {pegs}"
    # And the puzzles package reads the text the same way.
    if "|" in text:
        puzzle = London("".join(sorted({b for peg in pegs for b in peg})),
                        tuple(max(3 - i, len(p)) for i, p in enumerate(board)))  # fmt: skip
    else:
        puzzle = Hanoi(len(text), len(board))
    assert [list(p) for p in puzzle.pegs_of(puzzle.parse(text))] == board


def test_the_order_of_hanoi_letters_is_said_the_same_way_everywhere():
    # "largest disk first" (or "largest first"), never "smallest first", wherever the text
    # rule is stated.
    for source, text in _texts().items():
        for m in re.finditer(r"(largest|smallest)(?: disk)? first", text):
            context = text[max(0, m.start() - 80) : m.end()]
            if "letter" in context or "Hanoi" in context or "hanoi" in context:
                assert m.group(1) == "largest", f"{source}: ...{context}"


def test_a_wrong_example_would_be_caught():
    # The check is not empty: the example the old hint implied (smallest first) fails it.
    assert _board_of_text("CAA") == [[2, 1], [], [3]]
    assert _board_of_text("CAA") != [[3, 2], [], [1]]

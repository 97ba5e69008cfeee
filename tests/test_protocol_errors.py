"""A corpus of broken protocol files, one fault each, and the message each must give.

Each file's first line is ``# expect: LINE: REGEX``: the report must hold an
issue located at that line of that file whose text matches the regex.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import load_protocol, load_protocol_text

BROKEN = sorted((Path(__file__).parent / "data" / "broken").glob("*.yaml"))


def _expectation(path: Path) -> tuple[int, str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = re.fullmatch(r"# expect: (\d+): (.*)", first)
    assert m, f"{path.name}: first line must be '# expect: LINE: REGEX'"
    return int(m.group(1)), m.group(2)


def test_corpus_is_not_empty():
    assert len(BROKEN) >= 20


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_file_gives_its_message(path):
    line, pattern = _expectation(path)
    with pytest.raises(ProtocolError) as info:
        load_protocol(path)
    texts = [str(issue) for issue in info.value.issues]
    prefix = f"{path}:{line}: "
    matching = [t for t in texts if t.startswith(prefix) and re.search(pattern, t)]
    assert matching, f"expected {prefix}{pattern}\n got:\n" + "\n".join(texts)
    # One fault per file: exactly one issue reported.
    assert len(texts) == 1, "\n".join(texts)


def test_every_fault_in_a_file_is_reported_at_once(tmp_path):
    text = """\
format: 1
name: many
task: {type: hanoi, disks: 3}
display:
  fulscreen: false
blocks:
  - problems:
      - {id: p1, start: AAA, goal: CCC, min_moves: 8}
      - {id: p1, start: AAD, goal: CCC}
      - {id: p3, start: AAA, goal: CCC, time_limit: 0}
"""
    f = tmp_path / "many.yaml"
    f.write_text(text)
    with pytest.raises(ProtocolError) as info:
        load_protocol(f)
    lines = sorted(issue.line for issue in info.value.issues)
    assert lines == [5, 8, 9, 9, 10]
    report = str(info.value)
    assert report.startswith(f"5 problems in {f}:")
    for needle in ("did you mean 'fullscreen'", "write 'min_moves: 7'", "already used at line 8",
                   'character 3 (disk 1) is on peg D', "greater than 0"):  # fmt: skip
        assert needle in report


def test_unknown_protocol_name_suggests_a_bundled_one():
    with pytest.raises(ProtocolError, match=r"Did you mean 'london-shallice'\?"):
        load_protocol("london-shalice")


def test_non_utf8_file(tmp_path):
    f = tmp_path / "latin1.yaml"
    f.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ProtocolError, match="is not UTF-8 text"):
        load_protocol(f)


def test_norwegian_language_code_stays_text():
    text = """\
format: 1
name: norsk
task: {type: hanoi, disks: 2}
instructions:
  default_language: no
  pages:
    no: [{text: Flytt skivene.}]
blocks:
  - problems: [{id: p1, start: AA, goal: CC}]
"""
    lp = load_protocol_text(text)
    assert lp.model.instructions.default_language == "no"
    assert lp.pages("no")[0].text == "Flytt skivene."


def test_an_unquoted_state_starting_with_a_bar_is_told_to_be_quoted_and_the_rest_checked():
    # In flow style too; the file's other faults are still found in the same pass.
    text = (
        "format: 1\nname: bars\ntask: {type: london}\nblocks:\n  - problems:\n"
        '      - {id: p1, start: "GR|B|", goal: ||RGB}\n'
        "      - {id: p2, start: |B|GR, goal: GR|B|, time_limit: 0}\n"
    )
    with pytest.raises(ProtocolError) as info:
        load_protocol_text(text, "bars.yaml")
    texts = [str(i) for i in info.value.issues]
    assert "bars.yaml:6: blocks[0].problems[0].goal: ||RGB must be quoted" in texts[0]
    assert 'Suggested fix: write goal: "||RGB"' in texts[0]
    assert any(t.startswith("bars.yaml:7: blocks[0].problems[1].start: |B|GR must be quoted")
               for t in texts)  # fmt: skip
    assert any("time_limit" in t and "greater than 0" in t for t in texts)
    assert not any("indentation" in t or "chomping" in t for t in texts)

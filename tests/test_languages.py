"""Whole translations and instruction pages (issue 22, items 2, 3 and 8).

Every participant-facing text has a table per language (en, fr, de, es); a protocol without
pages shows the task's default pages, made from its own apparatus and rules, in the
session's language; every bundled protocol carries its pages in every language; and a
session run in each language draws on the window only texts of that language (recorded
from PsychoPy's own text stimuli while ``tol-run`` runs): not PsychoPy's English
"Attempting to measure frame rate of screen" either, but the session's "preparing" text.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.warm import warm
from tol_tasks import texts
from tol_tasks.cli import protocol_main
from tol_tasks.protocol_format.generate import GeneratorSpec, generate_protocol
from tol_tasks.protocol_format.instructions import with_instructions
from tol_tasks.protocol_format.load import bundled_protocols, load_protocol, load_protocol_text

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "tol_tasks" / "texts"
TEXT_SPY = ROOT / "tests" / "data" / "experiments" / "text_spy.py"
OTHERS = ("fr", "de", "es")


def _raw(language: str) -> dict:
    """A table read straight from its file (not through the module under test)."""
    return yaml.safe_load((TABLES / f"{language}.yaml").read_text(encoding="utf-8"))


def _fields(text: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", text))


# ------------------------------------------------------------------ the tables


def test_there_is_a_table_per_language_and_nothing_else():
    assert sorted(p.stem for p in TABLES.glob("*.yaml")) == sorted(texts.languages())
    assert set(texts.languages()) == {"en", "fr", "de", "es"}


@pytest.mark.parametrize("language", OTHERS)
def test_every_table_has_every_text_with_the_same_fields(language):
    en, other = _raw("en"), _raw(language)
    for part in ("messages", "pages", "examiner"):
        assert list(other[part]) == list(en[part]), f"{language}.yaml: {part} keys differ"
        for key, text in en[part].items():
            assert _fields(other[part][key]) == _fields(text), f"{language}.yaml {part}.{key}"
            assert other[part][key].strip(), f"{language}.yaml {part}.{key} is empty"


@pytest.mark.parametrize("language", OTHERS)
def test_no_text_of_another_language_is_left_in_english(language):
    en, other = _raw("en"), _raw(language)
    for part in ("messages", "pages", "examiner"):
        same = [k for k in en[part] if other[part][k] == en[part][k] and k != "decimal_mark"]
        assert same == [], f"{language}.yaml: {part} {same} are the English texts"


def test_the_web_runner_has_the_same_tables():
    got = json.loads(
        (ROOT / "web" / "src" / "generated" / "texts.json").read_text(encoding="utf-8")
    )
    browser = ("language", "messages", "pages", "examiner")  # no report in the browser
    assert got == {lang: {k: v for k, v in _raw(lang).items() if k in browser}
                   for lang in ("en", "fr", "de", "es")}  # fmt: skip


def test_the_documented_messages_are_the_english_table():
    doc = (ROOT / "docs" / "protocols.md").read_text(encoding="utf-8")
    section = doc.split("## Messages", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", section, flags=re.M)
    want = {k: v.replace("\n", "<br>") for k, v in _raw("en")["messages"].items()}
    assert dict(rows) == want


# ------------------------------------------------------------------ a protocol's texts

SMALL = "format: 1\nname: small\ntask: {type: hanoi, disks: 3}\n"
BLOCKS = "blocks:\n  - problems:\n      - {id: p1, start: AAA, goal: CCC}\n"


def test_a_session_gets_every_text_in_its_language():
    lp = load_protocol_text(SMALL + BLOCKS, "small.yaml")
    for lang in texts.languages():
        assert lp.messages(lang) == _raw(lang)["messages"]
    assert lp.languages() == sorted(texts.languages())


def test_a_protocol_replaces_some_texts_of_a_language_and_keeps_the_others():
    text = SMALL + "instructions:\n  messages:\n    fr: {solved: Bravo !}\n" + BLOCKS
    lp = load_protocol_text(text, "small.yaml")
    assert lp.messages("fr") == {**_raw("fr")["messages"], "solved": "Bravo !"}
    assert lp.warnings == ()  # the other French texts are tol-tasks' own French ones


def test_check_warns_when_a_language_would_be_partly_english(tmp_path, capsys):
    proto = tmp_path / "it.yaml"
    proto.write_text(
        SMALL + "instructions:\n  default_language: it\n  pages:\n    it:\n"
        "      - text: Sposta i dischi.\n  messages:\n    it:\n      solved: Risolto!\n" + BLOCKS
    )
    assert protocol_main(["check", str(proto)]) == 0  # a warning, not a fault
    out, err = capsys.readouterr()
    assert "OK" in out
    n = len(_raw("en")["messages"])
    assert (
        f"{proto}:10: warning: instructions.messages.it: tol-tasks has no texts in 'it' and "
        f"the protocol gives 1 of the {n}: the other {n - 1} (continue, preparing, "
        "resume_ready, quit_confirm, ...) would be shown in English. Suggested fix: give "
        "every text under instructions.messages.it"
    ) in err


def test_a_language_with_no_texts_is_refused_with_the_languages_there_are(tmp_path):
    from tol_tasks.runner.prepare import prepare
    from tol_tasks.runner.settings import RunSettings, SettingsError

    lp = load_protocol_text(SMALL + BLOCKS, "small.yaml")
    with pytest.raises(SettingsError) as exc:
        prepare(RunSettings(participant="P1", output=tmp_path, language="it"), lp)
    assert "tol-tasks has no texts (nor default instruction pages) in it" in str(exc.value)
    assert "choose one of de, en, es, fr" in str(exc.value)


# ------------------------------------------------------------------ default pages


def _pages(text: str, language: str = "en") -> list[str]:
    return [p.text for p in load_protocol_text(text, "p.yaml").pages(language)]


def test_a_protocol_without_pages_gets_the_tasks_pages_in_the_sessions_language():
    en, fr = _pages(SMALL + BLOCKS), _pages(SMALL + BLOCKS, "fr")
    assert len(en) == len(fr) == 3
    words = "\n".join(en)
    for needed in ("goal", "top of the screen", "Click a peg", "larger disk", "counts your moves"):
        assert needed in words
    assert "Cliquez sur une tige" in "\n".join(fr)
    assert "Click" not in "\n".join(fr)


def test_instructions_none_shows_no_pages():
    for none in ("instructions: none\n", "instructions: {pages: none}\n"):
        lp = load_protocol_text(SMALL + none + BLOCKS, "p.yaml")
        assert lp.pages("en") == []
        assert lp.pages("de") == []


def test_the_default_pages_say_the_tasks_own_rules():
    london = "format: 1\nname: l\ntask: {type: london, capacities: [3, 2, 1]}\n"
    lblocks = 'blocks:\n  - time_limit: 60\n    problems:\n      - {id: p1, start: "GR|B|", goal: "|RB|G"}\n'
    words = "\n".join(_pages(london + lblocks))
    assert "From left to right, they hold at most 3, 2 and 1 balls." in words
    assert "You have 60 seconds for each problem." in words
    assert "3, 2 y 1" in "\n".join(_pages(london + lblocks, "es"))
    adjacent = SMALL.replace("disks: 3", "disks: 3, adjacent_only: true")
    words = "\n".join(_pages(adjacent + BLOCKS))
    assert "A disk may only go to the peg next to it." in words
    keys = SMALL + "input: {mode: keys, keys: [a, s, d]}\n"
    words = "\n".join(_pages(keys + BLOCKS))
    assert "From left to right: a, s and d." in words
    assert "Click" not in words
    hidden = SMALL + "display: {show_goal: false, show_move_counter: false}\n"
    words = "\n".join(_pages(hidden + BLOCKS))
    assert "counts your moves" not in words
    assert "You will be told where the disks" in words


@pytest.mark.parametrize("name", sorted(bundled_protocols()))
def test_every_bundled_protocol_has_its_pages_in_every_language(name):
    lp = load_protocol(name)
    assert sorted(lp.model.instructions.own_pages) == sorted(texts.languages())
    # They are the pages tol-tasks makes from the protocol (protocols/write_instructions.py).
    assert with_instructions(lp.text, name) == lp.text
    assert lp.warnings == ()


def test_the_bundled_adjacent_protocol_explains_the_adjacency_rule():
    lp = load_protocol("hanoi-adjacent")
    assert "straight to the right peg" in "\n".join(p.text for p in lp.pages("en"))
    assert "directement de la tige de gauche" in "\n".join(p.text for p in lp.pages("fr"))


def test_generate_writes_the_pages_in_every_language():
    spec = GeneratorSpec(task="london", start="GR|B|", min_moves=(3, 4), per_level=1, seed=1)
    lp = load_protocol_text(generate_protocol(spec), "generated.yaml")
    assert sorted(lp.model.instructions.own_pages) == sorted(texts.languages())
    assert "3, 2 et 1" in "\n".join(p.text for p in lp.pages("fr"))


def test_instructions_none_is_documented():
    doc = (ROOT / "docs" / "protocols.md").read_text(encoding="utf-8")
    assert "instructions: none" in doc


# ------------------------------------------------------------------ on the screen

#: A protocol that shows most texts: practice repeated until solved, feedback with the
#: moves, a time limit shown, copy trials, illegal moves (adjacent pegs only).
SHOWN = """format: 1
name: shown
task: {type: hanoi, disks: 3, adjacent_only: true}
display: {fullscreen: false, window_size: [800, 600], show_time_left: true}
feedback: moves
timing: {inter_trial_interval: 0, feedback_duration: 0.3}
practice:
  repeat_until_solved: true
  max_attempts: 2
  disks: 2
  problems:
    - {id: practice-1, start: AA, goal: BB, move_limit: 4}
blocks:
  - copies: true
    time_limit: 300
    problems:
      - {id: p1, start: AAA, goal: BAA}
      - {id: p2, start: AAA, goal: ABB}
"""


def _patterns(language: str, lp) -> list[re.Pattern]:
    """Every text a session in ``language`` may draw, from the table's file itself: each
    message (its fields any text), the feedback of an unsolved attempt (the reason then
    'not solved'), and the instruction pages."""
    msgs = _raw(language)["messages"]
    templates = list(msgs.values())
    templates += [f"{msgs[k]} {msgs['not_solved']}" for k in ("time_out", "move_limit")]
    out = [re.compile(re.sub(r"\\{\w+\\}", ".+", re.escape(t)) + r"\Z") for t in templates]
    return out + [re.compile(re.escape(p.text) + r"\Z") for p in lp.pages(language)]


@pytest.mark.parametrize(
    "language",  # French in the everyday loop, every language in the full suite
    [lang if lang == "fr" else pytest.param(lang, marks=pytest.mark.slow)
     for lang in texts.languages()],
)  # fmt: skip
def test_a_session_shows_only_texts_of_its_language(language, xdisplay, tmp_path):
    proto = tmp_path / "shown.yaml"
    proto.write_text(SHOWN)
    lp = load_protocol(proto)
    out = tmp_path / "texts.json"
    run = subprocess.run(
        warm([sys.executable, str(TEXT_SPY), str(out), str(proto), "--simulate", "--seed", "5",
              "--speed", "40", "--windowed", "--language", language, "--output",
              str(tmp_path / "d")], xdisplay),
        env=xdisplay, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["status"] == 0, run.stderr
    drawn = [t for t in got["texts"] if t.strip()]
    own = _patterns(language, lp)
    foreign = [t for t in drawn if not any(p.match(t) for p in own)]
    assert foreign == [], f"{language}: drawn but not in its table"
    # What was seen covers the session's texts (with seed 5: an attempt cut off by its
    # move limit and tried again, two kinds of illegal move, copies).
    msgs = _raw(language)["messages"]
    for key in ("preparing", "continue", "practice_start", "try_again", "test_start",
                "goal_label", "illegal_larger_on_smaller", "illegal_forbidden_pair",
                "copy_start", "copy_label", "end"):  # fmt: skip
        assert msgs[key] in drawn, f"{language}: {key} was never drawn"
    assert f"{msgs['move_limit']} {msgs['not_solved']}" in drawn
    for key in ("moves_label", "time_label", "moves_feedback"):
        assert any(re.match(re.sub(r"\\{\w+\\}", ".+", re.escape(msgs[key])), t)
                   for t in drawn), f"{language}: {key} was never drawn"  # fmt: skip
    pages = [p.text for p in lp.pages(language)]
    assert [t for t in drawn if t in pages] == pages


# ------------------------------------------------------------------ a language added


def test_a_language_file_added_is_offered_everywhere(xdisplay, tmp_path):
    """A copy of tol-tasks with one more file in tol_tasks/texts (``it.yaml``) and nothing
    else changed: tol-run plays in it (the participant's texts and the examiner's summary),
    tol-score writes its reports in it, and the browser's copy and a built study carry it."""
    import os
    import shutil

    from tests.runner_tools import exe, session_files

    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "tol_tasks", copy / "tol_tasks",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    table = _raw("en")
    table["language"] = "Italiano"
    table["messages"]["preparing"] = "Preparazione..."
    table["examiner"] = {k: v if k == "decimal_mark" else f"(it) {v}"
                         for k, v in table["examiner"].items()}  # fmt: skip
    table["report"]["session_report"] = "Rapporto della sessione"
    (copy / "tol_tasks" / "texts" / "it.yaml").write_text(
        yaml.safe_dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")  # fmt: skip
    env = {**xdisplay, "PYTHONPATH": str(copy)}
    proto = tmp_path / "small.yaml"
    proto.write_text(SMALL + "display: {window_size: [800, 600], refresh_rate: 144}\n"
                     + BLOCKS, encoding="utf-8")  # fmt: skip

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([*args], env=env, capture_output=True, text=True, timeout=600,
                              cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    here = run(sys.executable, "-c", "import tol_tasks.texts as t; print(t.__file__)")
    assert here.stdout.strip().startswith(str(copy))  # the copy is the one imported
    data = tmp_path / "data"
    done = run(exe("tol-run"), str(proto), "--simulate", "--speed", "20", "--windowed",
               "--language", "it", "--output", str(data))  # fmt: skip
    warnings = [w for w in done.stderr.splitlines() if w.startswith("tol-run: warning: ")]
    assert warnings, done.stderr  # 144 Hz declared: at least that one
    assert all(w.startswith("tol-run: warning: (it) ") for w in warnings), done.stderr
    _, side = session_files(data)
    assert json.loads(side.read_text(encoding="utf-8"))["language"] == "it"
    run(exe("tol-score"), str(data), "--output", str(tmp_path / "scores"), "--report",
        "--language", "it")  # fmt: skip
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "scores").rglob("*.html")]
    assert pages
    assert all('lang="it"' in p for p in pages)
    assert any("rapporto della sessione" in p for p in pages)  # the title, lower-cased
    run(sys.executable, "-m", "tol_tasks.web.jsdata", str(tmp_path / "generated"))
    browser = json.loads((tmp_path / "generated" / "texts.json").read_text(encoding="utf-8"))
    assert browser["it"]["messages"]["preparing"] == "Preparazione..."
    run(exe("tol-web"), "build", str(proto), "--download", "--output", str(tmp_path / "site"))
    compiled = json.loads((tmp_path / "site" / "protocol.json").read_text(encoding="utf-8"))
    assert compiled["languages"]["it"]["messages"]["preparing"] == "Preparazione..."
    assert not os.path.exists(ROOT / "tol_tasks" / "texts" / "it.yaml")  # the copy only

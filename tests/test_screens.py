"""What the participant sees, screen by screen, in PsychoPy (issue 34): every instruction page
and problem screen of the bundled batteries, drawn by the runner's own code in a real window
and measured (``docs/screens.py``): no text on a peg or a piece (a lifted piece included),
every text inside the window, one piece size and one place for the feedback over a whole
session, and texts and pieces that stand out from the background (WCAG 2 contrast, computed
here from the colours)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.warm import warm

ROOT = Path(__file__).resolve().parents[1]
SCREENS = ROOT / "docs" / "screens.py"


@pytest.fixture(scope="module")
def big_display():
    """An Xvfb screen large enough for a 1920x1080 window."""
    from tests.runner_tools import start_xvfb

    proc, env = start_xvfb("1920x1200x24")
    yield env
    proc.terminate()
    proc.wait(timeout=10)


def _render(env, out: Path, *args: str) -> list[dict]:
    run = subprocess.run(warm([sys.executable, str(SCREENS), str(out), *args], env), env=env,
                         capture_output=True, text=True, timeout=1800, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((out / "screens.json").read_text(encoding="utf-8"))["screens"]


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _luminance(color: str) -> float:
    # WCAG 2 relative luminance of a #rrggbb colour (the bundled batteries give hex codes).
    h = color.lstrip("#")
    rgb = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def check(screens: list[dict]) -> None:
    assert screens
    sessions = defaultdict(list)
    for s in screens:
        w, h = s["size"]
        where = (s["protocol"], s["language"], w, h, s["screen"])
        assert Path(s["png"]).stat().st_size > 1000, where
        for text in s["texts"]:
            assert min(text[:2]) >= 0, (where, text)
            assert text[2] <= w, (where, text)
            assert text[3] <= h, (where, text)
            for thing in s["things"]:
                assert not _overlap(text, thing), (where, text, thing)
        assert _contrast(s["text_color"], s["background"]) >= 4.5, where
        if "piece" in s:
            sessions[where[:4]].append(s)
    assert sessions
    for where, problems in sessions.items():
        # One piece size and one feedback place for every problem of a session (to half a
        # pixel: a box measured at another place may round its edges the other way).
        first = _numbers(problems[0])
        for p in problems:
            got = _numbers(p)
            assert got.keys() == first.keys(), where
            assert all(abs(got[k] - first[k]) <= 0.5 for k in got), (where, got, first)


def _numbers(problem: dict) -> dict[str, float]:
    """A problem screen's piece size and feedback place as numbers ("12.5px" read too)."""
    px = lambda v: float(str(v).removesuffix("px"))  # noqa: E731
    piece = problem["piece"]
    out = {"feedback_y": px(problem["feedback_y_px"])}
    for key, value in piece.items():
        if isinstance(value, list):
            out.update({f"{key}{i}": px(v) for i, v in enumerate(value)})
        elif isinstance(value, (int, float)):
            out[key] = px(value)
    return out


def _pegs(state: str, puzzle: str) -> list[list[str]]:
    """A state text as pieces per peg, bottom to top (read here, not by the puzzle code)."""
    kind = puzzle.split(":")[0]
    if kind == "london":
        return [list(col) for col in state.split("|")]
    n_pegs = int(puzzle.split(":")[2])
    pegs: list[list[str]] = [[] for _ in range(n_pegs)]
    size = len(state)
    for k, letter in enumerate(state):  # largest disk first
        pegs[ord(letter) - ord("A")].append(str(size - k))
    return pegs


def _refused(pegs, puzzle: str, i: int, j: int, rule: str) -> bool:
    """Whether moving the top piece of peg ``i`` onto ``j`` breaks ``rule`` (by hand)."""
    parts = puzzle.split(":")
    if rule == "peg_full":
        return len(pegs[j]) >= [int(c) for c in parts[2].split("-")][j]
    if rule == "larger_on_smaller":
        return bool(pegs[j]) and int(pegs[i][-1]) > int(pegs[j][-1])
    return parts[3] == "1" and abs(i - j) > 1  # forbidden_pair


def check_demo(screens: list[dict]) -> int:
    """The demonstration's frames show the move they describe: a legal move of one piece,
    then a piece held over a peg the rules forbid; pieces drawn where the state says."""
    sessions = defaultdict(list)
    for s in screens:
        if s.get("demo"):
            sessions[(s["protocol"], s["language"], *s["size"])].append(s["demo"])
    for where, frames in sessions.items():
        puzzle = frames[0]["puzzle"]
        for f in frames:
            pegs = _pegs(f["state"], puzzle)
            for i, col in enumerate(pegs):
                for level, piece in enumerate(col):
                    held = f["held"] == i and level == len(col) - 1
                    peg = f["over"] if held and f["over"] is not None else i
                    x = f["piece_x"][piece]
                    assert abs(x - f["peg_x"][peg]) < 1.0, (where, f, piece)
                    above = f["piece_y"][piece] < f["peg_top"][peg]  # y grows downwards
                    assert above == held, (where, f, piece)
        # One legal move: the piece held in frame 2 is carried (frame 3) and put down (4).
        first, lift, carry, after = frames[:4]
        assert lift["held"] == carry["held"] is not None
        assert carry["over"] is not None
        before = _pegs(first["state"], puzzle)
        moved = [col[:] for col in before]
        moved[carry["over"]].append(moved[carry["held"]].pop())
        assert _pegs(after["state"], puzzle) == moved, where
        rules = ("larger_on_smaller", "forbidden_pair") if puzzle.startswith("hanoi") else (
            "peg_full",)  # fmt: skip
        for rule in rules:  # the legal move breaks no rule
            assert not _refused(before, puzzle, carry["held"], carry["over"], rule), where
        refusals = [f for f in frames if f["refused"]]
        assert len(refusals) == 1, where
        r = refusals[0]
        assert _refused(_pegs(r["state"], puzzle), puzzle, r["held"], r["over"], r["refused"])
    return len(sessions)


def test_every_page_and_problem_of_a_battery_reads_clearly(big_display, tmp_path):
    # The everyday loop: two batteries (a Hanoi with a smaller practice, a London), English
    # and French, at the two clinic sizes the issue names.
    screens = _render(big_display, tmp_path, "--sizes", "1280x1024", "1920x1080",
                      "--protocols", "hanoi-classic", "london-shallice",
                      "--languages", "en", "fr")  # fmt: skip
    check(screens)
    assert check_demo(screens) == 8  # 2 batteries, 2 languages, 2 sizes
    hanoi = [s for s in screens if s["protocol"] == "hanoi-classic" and "piece" in s]
    # The practice has 2 disks and the test 3 or more: the smallest disk is the same size.
    assert {s["screen"].split("-")[0] for s in hanoi} == {"practice", "test"}


@pytest.mark.slow
def test_every_bundled_battery_in_every_language_at_three_sizes(big_display, tmp_path):
    screens = _render(big_display, tmp_path)
    check(screens)
    assert check_demo(screens) >= 6 * 4 * 3


TARGETS = """
import json, sys
from psychopy import visual
from tol_tasks.protocol_format.load import load_protocol_text
from tol_tasks.runner.screen import TaskScreen
lp = load_protocol_text(sys.argv[1])
win = visual.Window(size=(1024, 768), units="height", checkTiming=False)
screen = TaskScreen(win, lp, lp.messages("en"))
spec = lp.block_problems(0)[0]
view = screen.board("board", spec.puzzle, screen.layout.board)
out = []
for state, held in (("GR|B|", 0), ("GR|B|", 1), ("G|BR|", 0), ("GR|B|", None)):
    view.show(spec.puzzle.parse(state), held)
    view.draw()
    win.flip()
    out.append(view._targets)
print("TARGETS " + json.dumps(out))
"""


@pytest.mark.parametrize("on", [True, False])
def test_legal_targets_are_marked_only_on_request(on, xdisplay):
    # display.show_legal_targets: while a ball is held, a ring over each peg it may go on.
    # Tower of London, pegs of 3, 2 and 1 places (the expected pegs worked out by hand).
    proto = ("format: 1\nname: targets\ntask: {type: london}\n"
             f"display: {{fullscreen: false, show_legal_targets: {str(on).lower()}}}\n"
             'blocks:\n  - problems:\n      - {id: p1, start: "GR|B|", goal: "G|BR|"}\n')  # fmt: skip
    run = subprocess.run(warm([sys.executable, "-c", TARGETS, proto], xdisplay), env=xdisplay,
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("TARGETS ")]
    got = json.loads(line.removeprefix("TARGETS "))
    if on:  # R from A: B (1 of 2) and C; B from B: A and C; G from A: B is full, C
        assert got == [[1, 2], [0, 2], [2], []]
    else:
        assert got == [[], [], [], []]

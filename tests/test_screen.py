"""What the participant sees around the boards (issue 22, item 8): the feedback and the
notice of an illegal move cover no peg and no piece, whatever the apparatus, the goal's
place and the window's shape, in every language; the browser places them the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.warm import warm

ROOT = Path(__file__).resolve().parents[1]
GEOMETRY = ROOT / "tests" / "data" / "experiments" / "feedback_geometry.py"


def _overlaps(xdisplay, tmp_path, *sizes: str) -> dict:
    out = tmp_path / "geometry.json"
    run = subprocess.run(warm([sys.executable, str(GEOMETRY), str(out), *sizes], xdisplay),
                         env=xdisplay, capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "size",
    ["1024x768", *(pytest.param(s, marks=pytest.mark.slow)
                   for s in ("1920x1080", "800x600", "768x1024"))],
)  # fmt: skip
def test_the_feedback_covers_no_peg_and_no_piece(size, xdisplay, tmp_path):
    # Every bundled protocol and an 8-disk, 5-peg Hanoi; the goal on top, left, right or
    # hidden; a practice and a test problem of each: 48 screens per window size.
    got = _overlaps(xdisplay, tmp_path, size)
    assert got["cases"] == 48
    assert got["hits"] == []


def test_labelled_balls_show_their_letters_on_the_window(xdisplay, tmp_path):
    # display.piece_labels: each ball's letter is drawn (on the board and the goal).
    spy = ROOT / "tests" / "data" / "experiments" / "text_spy.py"
    proto = tmp_path / "labelled.yaml"
    proto.write_text(
        "format: 1\nname: labelled\ntask: {type: london}\ninstructions: none\n"
        "display: {fullscreen: false, piece_labels: true}\nfeedback: none\n"
        "timing: {inter_trial_interval: 0}\n"
        'blocks:\n  - problems:\n      - {id: p1, start: "GR|B|", goal: "G|BR|"}\n'
    )
    out = tmp_path / "texts.json"
    run = subprocess.run(
        warm([sys.executable, str(spy), str(out), str(proto), "--simulate", "--speed", "20",
              "--windowed", "--output", str(tmp_path / "data")], xdisplay),
        env=xdisplay, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    drawn = json.loads(out.read_text(encoding="utf-8"))["texts"]
    assert {"R", "G", "B"} <= set(drawn)

"""The scoring package installs under a name of its own (tol_analysis)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner_tools import exe

HAND = Path(__file__).parent / "data" / "logs" / "hand-worked.csv"

#: A researcher's own script, named as such scripts usually are, that scores the data beside it.
SCRIPT = """\
from tol_analysis.read import find_logs, read_session
from tol_analysis.score import score_sessions

scores = score_sessions(read_session(p) for p in find_logs(["data"]))
print("trials:", len(scores.trials))
"""


@pytest.fixture
def lab_folder(tmp_path: Path) -> Path:
    """A working folder holding analysis.py (and an analysis/ folder of notes) beside the data."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "H01.csv").write_bytes(HAND.read_bytes())
    (tmp_path / "analysis.py").write_text(SCRIPT, encoding="utf-8")
    return tmp_path


def test_a_researchers_analysis_py_does_not_shadow_the_package(lab_folder):
    # `python analysis.py` puts the script's folder first on sys.path: the old package
    # name `analysis` resolved to the script itself there.
    done = subprocess.run([sys.executable, "analysis.py"], cwd=lab_folder, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "trials: 2"


def test_tol_score_runs_from_a_folder_holding_analysis_py(lab_folder):
    done = subprocess.run([exe("tol-score"), "data", "--output", "scored"], cwd=lab_folder,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1 session(s), 2 trial(s), 6 move(s) scored" in done.stdout
    assert (lab_folder / "scored" / "trials.csv").is_file()

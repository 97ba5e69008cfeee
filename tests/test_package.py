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
from tol_analysis.read.logs import find_logs, read_session
from tol_analysis.score.scores import score_sessions

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


def test_the_public_api_is_importable_from_the_package_and_loaded_when_used():
    code = (
        "import sys, tol_analysis\n"
        "assert 'tol_analysis.score.scores' not in sys.modules, 'import tol_analysis loaded scoring'\n"
        "from tol_analysis import find_logs, read_session, read_sessions, scan, Scores,"
        " score_sessions, write_reports\n"
        "import tol_analysis.read.find as f, tol_analysis.read.logs as r, tol_analysis.score.scores as s\n"
        "assert (find_logs, scan, read_session, read_sessions) == "
        "(f.find_logs, f.scan, r.read_session, r.read_sessions)\n"
        "assert (score_sessions, Scores) == (s.score_sessions, s.Scores)\n"
        "assert set(tol_analysis.__all__) <= set(dir(tol_analysis))\n"
        "try:\n    tol_analysis.no_such_name\nexcept AttributeError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "module 'tol_analysis' has no attribute 'no_such_name'"

"""The scoring package installs under a name of its own (tol_analysis)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner_tools import exe
from tol_tasks import blas
from tol_tasks.__main__ import commands

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


def _python(code: str) -> list[str]:
    """The lines ``code`` prints, run by a fresh interpreter (nothing of tol_analysis imported)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


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
    assert _python(code) == ["module 'tol_analysis' has no attribute 'no_such_name'"]


def test_each_face_exports_its_names_loaded_when_used_and_forwards_its_former_modules():
    code = (
        "import sys, warnings\n"
        "import tol_analysis.read, tol_analysis.score, tol_analysis.export, tol_analysis.report\n"
        "print(sorted(m for m in sys.modules if m.startswith('tol_analysis.')))\n"
        "from tol_analysis.read import find_logs, read_session, scan, SessionLog\n"
        "from tol_analysis.score import score_sessions, Scores\n"
        "from tol_analysis.export import export, codebook\n"
        "from tol_analysis.report import write_reports\n"
        "import tol_analysis.read.find as f, tol_analysis.read.logs as r\n"
        "import tol_analysis.score.scores as s, tol_analysis.export.write as w\n"
        "assert (find_logs, scan, read_session, SessionLog) == "
        "(f.find_logs, f.scan, r.read_session, r.SessionLog)\n"
        "assert (score_sessions, Scores, export, codebook) == "
        "(s.score_sessions, s.Scores, w.export, w.codebook)\n"
        "assert set(tol_analysis.score.__all__) <= set(dir(tol_analysis.score))\n"
        "from tol_analysis.score import tables\n"  # a submodule, not a forwarded name
        "print(tables.__name__)\n"
        "with warnings.catch_warnings(record=True) as got:\n"
        "    warnings.simplefilter('always')\n"
        "    from tol_analysis.score import Sidecars, BATCH_ROWS\n"
        "    from tol_analysis.export import write_wide\n"
        "for w in got:\n    print(w.category.__name__, w.message)\n"
        "for name in ('no_such_name', '_builders'):\n"
        "    try:\n        getattr(tol_analysis.score, name)\n"
        "    except AttributeError as e:\n        print(e)\n"
    )
    out = _python(code)
    # Importing the four faces imports nothing but them and the lazy loader.
    assert out[0] == str(sorted(["tol_analysis._lazy", "tol_analysis.read", "tol_analysis.score",
                                 "tol_analysis.export", "tol_analysis.report"]))  # fmt: skip
    assert out[1:] == [
        "tol_analysis.score.tables",
        "DeprecationWarning tol_analysis.score.Sidecars moved: import it from "
        "tol_analysis.read.spill",
        "DeprecationWarning tol_analysis.score.BATCH_ROWS moved: import it from "
        "tol_analysis.score.scores",
        "DeprecationWarning tol_analysis.export.write_wide moved: import it from "
        "tol_analysis.export.wide",
        "module 'tol_analysis.score' has no attribute 'no_such_name'",
        "module 'tol_analysis.score' has no attribute '_builders'",
    ]


def test_no_public_name_of_the_package_or_a_face_is_also_one_of_its_modules():
    # Once a submodule is imported, its name on the package is the module: a public name
    # of the same name (verify in tol_analysis.score.verify) would turn into it.
    import tol_analysis

    for package in (tol_analysis, *(importlib.import_module(f"tol_analysis.{face}")
                                    for face in ("read", "score", "export", "report"))):  # fmt: skip
        here = Path(package.__file__).parent
        modules = {p.stem for p in here.glob("*.py")} | {
            p.parent.name for p in here.glob("*/__init__.py")
        }
        assert set(package.__all__) & modules == set(), package.__name__
        assert set(package.__all__) <= set(dir(package))


#: Each command's module (pyproject.toml's [project.scripts]), read from the installed metadata.
_COMMAND_MODULES = sorted({v.split(":")[0] for v in commands().values()})

#: Prints how many threads the process has once it has imported a module, then numpy.
_THREADS = (
    "import importlib, os, sys; importlib.import_module(sys.argv[1]); import numpy; "
    "print(len(os.listdir('/proc/self/task')))"
)


def _threads_after_import(module: str, openblas: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if k != blas.VARIABLE}
    if openblas is not None:
        env[blas.VARIABLE] = openblas
    out = subprocess.run([sys.executable, "-c", _THREADS, module], env=env, check=True,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    return int(out.stdout.split()[-1])


def test_the_commands_modules_are_read_from_the_installed_metadata():
    assert {"tol_analysis.cli", "tol_tasks.cli", "tol_tasks.importers.cli"} <= set(_COMMAND_MODULES)


@pytest.mark.parametrize("module", _COMMAND_MODULES)
def test_every_command_keeps_numpys_blas_to_one_thread_unless_the_user_set_it(module):
    """OpenBLAS starts a thread per further core as numpy loads, spinning for work no
    command gives (tol_tasks.blas): a command's module, imported before numpy, leaves the
    process as a hand-set OPENBLAS_NUM_THREADS=1 does, and a user's own setting wins (its
    threads counted in Linux's /proc; the machine has two cores or more, as CI's)."""
    unset = _threads_after_import(module, None)
    assert unset == _threads_after_import(module, "1")
    assert _threads_after_import(module, "2") == unset + 1  # the user's 2: one more thread

"""PsychoPy Standalone without a terminal: the wheel installed by PsychoPy's own plugin and
package manager, the Builder component found, a session started from the launcher script.

PsychoPy Standalone installs a package into its *user packages* folder (under the
user's ``.psychopy3``), never into its own Python: ``psychopy.plugins.installPlugin``
(which the Plugins & Packages dialog calls, through ``psychopy.tools.pkgtools
.installPackage``) runs pip with ``--target`` that folder, and ``import psychopy`` puts it on
``sys.path``. Here a fresh environment holds PsychoPy exactly as uv.lock pins it, with a
home folder of its own (so its user packages are the test's); the wheel built from this
checkout is installed by that function; then PsychoPy's Builder compiles the example with
the Tower component and the launcher (``docs/launcher/tol_launcher.py``) is run as
PsychoPy's Runner runs a script, its dialog filled with real X key presses.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builder_tools import PROBLEMS, builder_csv, compile_example, running_example
from tests.reference import bfs, hanoi_graph, london_graph
from tests.release_tools import ROOT
from tests.runner_tools import running, xdotool
from tests.system_tools import unavailable, web_bundle
from tol_tasks.protocol_format.load import bundled_protocols
from tol_tasks.session_data.sidecar import read_sidecar

LAUNCHER = ROOT / "docs" / "launcher" / "tol_launcher.py"

# One worker builds the environment once (a module fixture) and runs the three tests.


def _run(*args, timeout: float = 900, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, check=False, **kwargs)  # fmt: skip
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    """A PsychoPy (as uv.lock pins it) with a home of its own, and the wheel built here.

    Yields ``(python, env, wheel)``: the environment's Python and the environment to run
    it in (its own home: PsychoPy's user packages are there)."""
    uv = shutil.which("uv")
    if uv is None:
        unavailable("uv is not installed", "install uv (bash scripts/setup.sh does)")
    web_bundle()  # the wheel carries the browser bundle
    base = tmp_path_factory.mktemp("standalone")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "PYTHONPATH")}  # fmt: skip
    _run(uv, "build", "--wheel", "--quiet", "--out-dir", base / "dist", ROOT, cwd=ROOT, env=clean)
    (wheel,) = (base / "dist").glob("*.whl")
    # PsychoPy and what it needs, exactly as locked; pip in it, as in PsychoPy Standalone.
    _run(uv, "venv", "--seed", "--quiet", "--python", sys.executable, base / "psychopy", env=clean)
    python = base / "psychopy" / "bin" / "python"
    locked = base / "psychopy.txt"
    _run(uv, "export", "--frozen", "--quiet", "--extra", "runner", "--no-emit-project",
         "--no-hashes", "--output-file", locked, cwd=ROOT, env=clean)  # fmt: skip
    _run(uv, "pip", "sync", "--quiet", "--python", python, locked, env=clean)
    home = base / "home"
    home.mkdir()
    env = {**clean, "HOME": str(home), "PIP_CACHE_DIR": str(Path.home() / ".cache" / "pip")}
    # not even an import of tol_tasks before PsychoPy's own install
    absent = subprocess.run([python, "-c", "import tol_tasks"], cwd=base, env=env,
                            capture_output=True, check=False)  # fmt: skip
    assert absent.returncode != 0
    return python, env, wheel


def _said(done: subprocess.CompletedProcess, label: str) -> str:
    """What a probe printed after ``label: `` (PsychoPy prints lines of its own too)."""
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith(f"{label}: ")]
    return line.removeprefix(f"{label}: ")


_INSTALL = """
import sys
from psychopy import plugins
from psychopy.tools import pkgtools
plugins.installPlugin(sys.argv[1], local=True)
print("user packages:", pkgtools.getUserPackagesPath())
"""

_SCORE = """
import sys
import psychopy
from tol_tasks.__main__ import main
sys.exit(main(["score", sys.argv[1], "--output", sys.argv[2]]))
"""

_WHERE = """
import psychopy
from psychopy import plugins
plugins.activatePlugins()
from psychopy.experiment import getAllComponents
import tol_tasks
print("tol_tasks from:", tol_tasks.__file__)
print("Tower in Builder:", "TowerComponent" in getAllComponents())
"""


@pytest.mark.slow
def test_psychopys_package_manager_installs_the_wheel_and_builder_finds_the_tower(
    standalone, xdisplay, tmp_path
):
    python, env, wheel = standalone
    installed = _run(python, "-c", _INSTALL, wheel, cwd=tmp_path, env=env)
    user_packages = Path(_said(installed, "user packages"))
    assert user_packages.is_relative_to(Path(env["HOME"]))  # PsychoPy's user packages
    probe = _run(python, "-c", _WHERE, cwd=tmp_path, env=env)
    # the wheel's, not this checkout's
    assert Path(_said(probe, "tol_tasks from")).is_relative_to(user_packages)
    assert _said(probe, "Tower in Builder") == "True"  # Builder's component list holds it

    # the Builder example, compiled by that PsychoPy and run with the installed component
    done = compile_example(tmp_path, python=str(python), env=env, simulate=True, simSpeed=20.0)
    assert done.returncode == 0, done.stderr
    with running_example(tmp_path, {**xdisplay, "HOME": env["HOME"]}, python=str(python)) as proc:
        _out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    rows = builder_csv(tmp_path)
    rows = rows[rows["tower.problem_id"].notna()]
    london = london_graph()
    assert list(rows["tower.min_moves"]) == [bfs(london, g)[0][s] for s, g in PROBLEMS]


@pytest.mark.slow
def test_the_launcher_asks_in_a_dialog_then_runs_and_the_session_scores(
    standalone, xdisplay, tmp_path
):
    python, env, wheel = standalone
    _run(python, "-c", _INSTALL, wheel, cwd=tmp_path, env=env)  # as above (kept if there)
    study = tmp_path / "my study"  # a space in the path, as on Windows and macOS
    study.mkdir()
    shutil.copy(bundled_protocols()["demo"], study / "my-protocol.yaml")
    text = LAUNCHER.read_text(encoding="utf-8")
    # the launcher as documented, with the simulated participant playing the session
    text = text.replace("launch(__file__)", 'launch(__file__, "--simulate", "--speed", "30", '
                        '"--windowed")')  # fmt: skip
    assert "--simulate" in text
    (study / "tol_launcher.py").write_text(text, encoding="utf-8")
    run_env = {**xdisplay, "HOME": env["HOME"], "PIP_CACHE_DIR": env["PIP_CACHE_DIR"]}
    # as PsychoPy's Runner runs a script: its Python, the script's folder the working one
    with running([str(python), "tol_launcher.py"], env=run_env, cwd=study) as proc:
        # --onlyvisible: a window found before it is mapped cannot take the focus (BadMatch
        # from X_SetInputFocus, the full suite of 2026-11-27 14:17 at load up to 51)
        xdotool("search", "--sync", "--onlyvisible", "--name", "tol-tasks: a session",
                "windowfocus", "--sync", "%1", env=run_env, timeout=120)  # fmt: skip
        # protocol (first: the file beside the launcher), participant, session
        xdotool("key", "Tab", env=run_env)
        xdotool("type", "--delay", "40", "L1", env=run_env)
        xdotool("key", "Tab", "ctrl+a", env=run_env)
        xdotool("type", "--delay", "40", "2", env=run_env)
        xdotool("key", "Return", env=run_env)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err
    (sidecar,) = (study / "data").glob("*.json")
    meta = read_sidecar(sidecar)
    assert (meta["participant"], meta["session"], meta["status"]) == ("L1", 2, "completed")

    scored = tmp_path / "scores"
    # as the platform page says to score from PsychoPy's Runner (PsychoPy's import puts its
    # user packages, where tol-tasks is, on the path)
    _run(python, "-c", _SCORE, study / "data", scored, cwd=tmp_path, env=env)
    with (scored / "trials.csv").open(encoding="utf-8") as f:
        trials = list(csv.DictReader(f))
    graph = hanoi_graph(3)
    assert [t["problem_id"] for t in trials] == ["demo-1", "demo-2", "demo-3"]
    assert [int(t["min_moves"]) for t in trials] == [bfs(graph, t["goal"])[0][t["start"]]
                                                    for t in trials]  # fmt: skip
    assert {t["participant"] for t in trials} == {"L1"}


@pytest.mark.slow
def test_the_launcher_cancelled_writes_nothing(standalone, xdisplay, tmp_path):
    python, env, wheel = standalone
    _run(python, "-c", _INSTALL, wheel, cwd=tmp_path, env=env)
    shutil.copy(LAUNCHER, tmp_path / "tol_launcher.py")
    run_env = {**xdisplay, "HOME": env["HOME"]}
    with running([str(python), "tol_launcher.py"], env=run_env, cwd=tmp_path) as proc:
        # --onlyvisible: a window found before it is mapped cannot take the focus (BadMatch
        # from X_SetInputFocus, the full suite of 2026-11-27 14:17 at load up to 51)
        xdotool("search", "--sync", "--onlyvisible", "--name", "tol-tasks: a session",
                "windowfocus", "--sync", "%1", env=run_env, timeout=120)  # fmt: skip
        xdotool("key", "Escape", env=run_env)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "cancelled; nothing was written" in out
    assert not (tmp_path / "data").exists()

"""Release hygiene: the version declared once, the citation file, the extras, the range of
PsychoPy tested, and the wheel and sdist that ``uv build`` makes, installed into clean
environments as a lab and an analyst install them.
"""

from __future__ import annotations

import csv
import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

import tol_tasks
from tests.builder_tools import PROBLEMS, builder_csv, compile_example, running_example
from tests.reference import bfs, hanoi_graph, london_graph
from tests.release_tools import (
    ROOT,
    oldest_psychopy,
    oldest_psychopy_group,
    pyproject,
    requirement,
    uv_overrides,
)
from tests.system_tools import unavailable, web_bundle

CFFCONVERT = ROOT / "tests" / "cffconvert_cli.py"


def _uv() -> str:
    found = shutil.which("uv")
    if found is None:
        unavailable("uv is not installed", "install uv (pipx install uv, or pip install uv)")
    return found


def _clean_env() -> dict[str, str]:
    """This process's environment without the project's virtual environment in it."""
    return {k: v for k, v in os.environ.items()
            if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "PYTHONPATH")}  # fmt: skip


def _run(*args: str | Path, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("env", _clean_env())
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, check=False, **kwargs)  # fmt: skip
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done


# ---------------------------------------------------------------- the version
def test_the_version_is_declared_once_and_the_metadata_reads_it():
    project = pyproject()["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    assert pyproject()["tool"]["hatch"]["version"]["path"] == "tol_tasks/__init__.py"
    assert importlib.metadata.version("tol-tasks") == tol_tasks.__version__ == "0.2.0"


# ------------------------------------------------------------- the citation file
def _cffconvert(path: Path) -> subprocess.CompletedProcess:
    """cffconvert's own validation of ``path``, in the environment its lock file pins."""
    return subprocess.run(
        [_uv(), "run", "--frozen", "--quiet", "--script", str(CFFCONVERT), "--validate",
         "-i", str(path)],
        capture_output=True, text=True, timeout=600, check=False, env=_clean_env(),
    )  # fmt: skip


def test_the_citation_file_is_valid_and_cites_this_version(tmp_path):
    citation = ROOT / "CITATION.cff"
    cff = yaml.safe_load(citation.read_text(encoding="utf-8"))
    assert str(cff["version"]) == tol_tasks.__version__, (
        f"CITATION.cff: version {cff['version']!r}, but tol_tasks/__init__.py declares "
        f"{tol_tasks.__version__}. Suggested fix: set version: {tol_tasks.__version__} "
        "and date-released in CITATION.cff."
    )
    assert cff["license"] == pyproject()["project"]["license"]
    done = _cffconvert(citation)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Citation metadata are valid according to schema version 1.2.0" in done.stdout
    # the validator can fail: a date that is not ISO 8601
    broken = tmp_path / "CITATION.cff"
    text = citation.read_text(encoding="utf-8")
    broken.write_text(text.replace(f'date-released: "{cff["date-released"]}"',
                                   'date-released: "23 November"'))  # fmt: skip
    assert broken.read_text() != text
    bad = _cffconvert(broken)
    assert bad.returncode != 0
    assert "23 November" in bad.stdout + bad.stderr


# ------------------------------------------------------------------- the extras
def _extras() -> dict[str, list[Requirement]]:
    raw = pyproject()["project"]["optional-dependencies"]
    return {name: [Requirement(r) for r in reqs] for name, reqs in raw.items()}


def _resolved(extra: str, extras: dict[str, list[Requirement]]) -> set[str]:
    """The distributions an extra pulls, its own self-references followed."""
    names = set()
    for req in extras[extra]:
        if req.name == "tol-tasks":
            for inner in req.extras:
                names |= _resolved(inner, extras)
        else:
            names.add(req.name)
    return names


def test_the_extras_pull_what_their_commands_need():
    extras = _extras()
    assert "matplotlib" in _resolved("report", extras)  # the report's figures
    assert "jinja2" in _resolved("report", extras)
    everything = set().union(*(_resolved(e, extras) for e in extras if e != "all"))
    assert _resolved("all", extras) == everything
    # what pip sees in the built metadata is the same (the installed editable's metadata)
    declared = importlib.metadata.metadata("tol-tasks").get_all("Provides-Extra")
    assert sorted(declared) == sorted(extras)


def test_the_oldest_psychopy_tested_is_the_runner_extras_lower_bound():
    runner = _extras()["runner"]
    group = oldest_psychopy_group()
    pinned = requirement("psychopy", [str(r) for r in group])
    (version,) = [Version(s.version) for s in pinned.specifier if s.operator == "=="]
    # in the range the runner extra accepts, in the release series of its lower bound
    assert requirement("psychopy", [str(r) for r in runner]).specifier.contains(version)
    assert version.release[:2] == oldest_psychopy().release[:2]
    assert oldest_psychopy() < Version("2026.1")  # at least 2025.2 (issue 25)
    # everything else the runner pulls is in the oldest environment too
    assert {str(r) for r in runner if r.name != "psychopy"} == {
        str(r) for r in group if r.name != "psychopy"
    }


# ------------------------------------------------------------ the built packages
def _venv(uv: str, path: Path) -> Path:
    _run(uv, "venv", "--quiet", "--python", sys.executable, path)
    return path / "bin"


def _without_node() -> dict[str, str]:
    """A clean environment whose PATH holds no folder with Node.js in it."""
    env = _clean_env()
    folders = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(f for f in folders if shutil.which("node", path=f) is None)
    return env


def _wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def _trials(folder: Path) -> list[dict]:
    with (folder / "trials.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_the_wheel_installs_beside_the_oldest_psychopy_and_the_sdist_for_an_analyst(
    xdisplay, tmp_path
):
    uv, version = _uv(), tol_tasks.__version__
    web_bundle()  # the build refuses without the browser bundle
    dist = tmp_path / "dist"
    # The wheel is built from the sdist (uv build does so), with no Node.js on PATH: the
    # browser bundle travels in the sdist.
    _run(uv, "build", "--quiet", "--out-dir", dist, ROOT, cwd=ROOT, env=_without_node())
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    assert wheel.name == f"tol_tasks-{version}-py3-none-any.whl"
    assert sdist.name == f"tol_tasks-{version}.tar.gz"
    files = _wheel_files(wheel)
    packages = pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    for shipped in ("tol_tasks/protocols/demo.yaml", "tol_tasks/web/static/tol-tasks.js",
                    "tol_tasks/session_data/codebook/events-v3.json", "tol_tasks/builder/tower.png",
                    "tol_analysis/report/templates/session.html.j2",
                    "tol_analysis/report/templates/index.html.j2",
                    "tol_analysis/report/templates/report.css",
                    *(f"tol_analysis/{face}/__init__.py" for face in ("read", "score", "export", "report")),
                    *(f"{Path(p).name}/__init__.py" for p in packages)):  # fmt: skip
        assert shipped in files, shipped
    assert not [f for f in files if f.startswith("tests/")]

    # A lab's environment: the oldest supported PsychoPy, exactly as uv.lock pins it, then
    # the wheel with [runner] installed into it as a lab installs it. wxPython (Builder's
    # GUI, in every lab's PsychoPy) has no Linux wheel: left out as pyproject's uv
    # overrides leave it out.
    lab = _venv(uv, tmp_path / "lab")
    locked = tmp_path / "psychopy-oldest.txt"
    _run(uv, "export", "--frozen", "--quiet", "--only-group", "psychopy-oldest",
         "--no-emit-project", "--output-file", locked, cwd=ROOT)  # fmt: skip
    _run(uv, "pip", "sync", "--quiet", "--python", lab / "python", locked)
    # (run from tmp_path: from the project's folder, Python would import its tol_tasks)
    which = [lab / "python", "-c", "import psychopy; print(psychopy.__version__)"]
    before = _run(*which, cwd=tmp_path).stdout.strip()
    assert Version(before).release[:2] == oldest_psychopy().release[:2]
    overrides = tmp_path / "overrides.txt"
    overrides.write_text("\n".join(uv_overrides()) + "\n")
    _run(uv, "pip", "install", "--quiet", "--python", lab / "python", "--override", overrides,
         f"{wheel}[runner]")  # fmt: skip
    assert _run(*which, cwd=tmp_path).stdout.strip() == before  # the lab's PsychoPy is kept
    where = _run(lab / "python", "-c", "import tol_tasks; print(tol_tasks.__file__)", cwd=tmp_path)
    assert where.stdout.strip().startswith(str(tmp_path / "lab"))  # the wheel, not this tree

    # its commands: a protocol checked, a simulated session, its scores
    _run(lab / "tol-protocol", "check", "demo")
    out = tmp_path / "sessions"
    _run(lab / "tol-run", "demo", "--simulate", "--speed", "40", "--windowed",
         "--participant", "S1", "--output", out, env=xdisplay, timeout=300)  # fmt: skip
    # scored with python -m tol_tasks, as PsychoPy Standalone's Python runs it (no script on PATH)
    _run(lab / "python", "-m", "tol_tasks", "score", out, "--output", tmp_path / "lab-scores",
         cwd=tmp_path)  # fmt: skip
    trials = _trials(tmp_path / "lab-scores")
    graph = hanoi_graph(3)
    assert [int(t["min_moves"]) for t in trials] == [
        bfs(graph, t["goal"])[0][t["start"]]
        for t in trials  # independent BFS
    ]
    assert [t["problem_id"] for t in trials] == ["demo-1", "demo-2", "demo-3"]

    # the Builder example, compiled by that PsychoPy and run by the installed component
    builder = tmp_path / "builder"
    builder.mkdir()
    done = compile_example(builder, python=str(lab / "python"), simulate=True, simSpeed=20.0)
    assert done.returncode == 0, done.stderr
    with running_example(builder, xdisplay, python=str(lab / "python")) as proc:
        _out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    rows = builder_csv(builder)
    rows = rows[rows["tower.problem_id"].notna()]
    london = london_graph()
    assert list(rows["tower.min_moves"]) == [bfs(london, g)[0][s] for s, g in PROBLEMS]
    assert rows["tower.solved"].astype(bool).all()

    # An analyst's environment: the sdist with the scoring extras, no PsychoPy. It scores
    # the lab's sessions the same, and tol-run says what to install.
    analyst = _venv(uv, tmp_path / "analyst")
    _run(uv, "pip", "install", "--quiet", "--python", analyst / "python",
         f"tol-tasks[report,spss] @ {sdist.as_uri()}", env=_without_node())  # fmt: skip
    absent = subprocess.run([analyst / "python", "-c", "import psychopy"], capture_output=True,
                            cwd=tmp_path, check=False)  # fmt: skip
    assert absent.returncode != 0  # no PsychoPy there
    _run(analyst / "tol-score", out, "--output", tmp_path / "analyst-scores")
    assert _trials(tmp_path / "analyst-scores") == trials
    refused = subprocess.run([analyst / "tol-run", "demo", "--simulate"], capture_output=True,
                             text=True, env=xdisplay, timeout=120, check=False)  # fmt: skip
    assert refused.returncode != 0
    assert 'pip install "tol-tasks[runner]"' in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


# ---------------------------------------------------------------- python -m tol_tasks
def _python_m(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tol_tasks", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)  # fmt: skip


def test_python_m_tol_tasks_offers_every_script_the_package_installs():
    scripts = pyproject()["project"]["scripts"]
    names = sorted(s.removeprefix("tol-") for s in scripts)
    assert names == ["import", "protocol", "run", "score", "timing", "web"]
    listed = _python_m("--help")
    assert listed.returncode == 0, listed.stderr
    assert f"commands: {', '.join(names)};" in listed.stdout
    bindir = Path(sys.executable).parent
    for script in scripts:
        direct = subprocess.run([bindir / script, "--help"], capture_output=True, text=True,
                                timeout=120, check=False)  # fmt: skip
        via = _python_m(script.removeprefix("tol-"), "--help")
        assert (via.returncode, via.stdout) == (direct.returncode, direct.stdout) == (
            0, direct.stdout), script  # fmt: skip
        assert f"usage: {script}" in via.stdout


def test_python_m_tol_tasks_passes_arguments_and_exit_status_through(tmp_path):
    checked = _python_m("protocol", "check", "demo")
    assert checked.returncode == 0, checked.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("problems: 3\n", encoding="utf-8")
    refused = _python_m("protocol", "check", str(bad))
    assert refused.returncode != 0
    assert "bad.yaml" in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr


def test_python_m_tol_tasks_names_an_unknown_command_and_the_known_ones():
    done = _python_m("scroe", "data")
    assert done.returncode == 2
    assert "unknown command 'scroe'" in done.stderr
    assert "use one of: import, protocol, run, score, timing, web" in done.stderr
    assert _python_m().returncode == 2  # no command: the usage, and an error status

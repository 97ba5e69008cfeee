"""The architecture is enforced, not just described."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner_tools import exe

ROOT = Path(__file__).resolve().parents[1]
#: The scoring package (import name tol_analysis) lives in the top-level analysis/ folder.
PACKAGE = ROOT / "analysis" / "tol_analysis"


def _contract_counts(report: str) -> tuple[int, int]:
    """(kept, broken) from lint-imports' closing line, ``Contracts: 4 kept, 0 broken.``"""
    found = re.findall(r"^Contracts: (\d+) kept, (\d+) broken\.$", report, flags=re.MULTILINE)
    assert len(found) == 1, report
    kept, broken = found[0]
    return int(kept), int(broken)


def test_import_contracts_hold():
    # import-linter contracts in pyproject.toml: the core and tol_analysis never import PsychoPy.
    result = subprocess.run(
        [exe("lint-imports")], cwd=ROOT, capture_output=True, text=True, check=False
    )
    declared = (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert declared >= 4
    assert _contract_counts(result.stdout) == (declared, 0), result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_count_is_read_exactly():
    assert _contract_counts("...\nContracts: 4 kept, 0 broken.\n") == (4, 0)
    assert _contract_counts("Contracts: 3 kept, 10 broken.") == (3, 10)  # once passed as "0 broken"


def test_importing_the_core_loads_no_gui_toolkit():
    code = (
        "import json, sys\n"
        "import tol_tasks, tol_analysis\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'psychopy', 'pyglet', 'PyQt6', 'PyQt5', 'wx', 'matplotlib', 'pandas', 'numpy'})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []


def _lint_copy(tmp_path: Path, extra: dict[str, str]) -> subprocess.CompletedProcess:
    """Run the contracts on a copy of the packages with ``extra`` modules added."""
    for pkg, where in (("tol_tasks", ROOT / "tol_tasks"), ("tol_analysis", PACKAGE)):
        shutil.copytree(where, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, text in extra.items():
        (tmp_path / rel).write_text(text)
    return subprocess.run(
        [exe("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_module_outside_every_layer_breaks_the_contract(tmp_path):
    # `exhaustive`: a new top-level module must be given a layer, or the check fails.
    result = _lint_copy(tmp_path, {"tol_tasks/newcomer.py": '"""Not in any layer."""\n'})
    assert result.returncode != 0
    assert "tol_tasks.newcomer" in result.stdout


def test_a_new_core_module_is_protected_by_where_it_lives(tmp_path):
    # No list of module names to keep up to date: a module in the puzzles layer
    # that imports the runner or PsychoPy breaks the contracts as it stands.
    text = '"""A new solver."""\nimport psychopy.visual\nfrom tol_tasks.runner import run_session\n'
    result = _lint_copy(tmp_path, {"tol_tasks/puzzles/newsolver.py": text})
    assert result.returncode != 0
    assert "tol_tasks.puzzles.newsolver -> tol_tasks.runner" in result.stdout
    assert "tol_tasks.puzzles.newsolver -> psychopy" in result.stdout


def test_no_module_of_the_runner_is_over_400_lines():
    # One job per module (issue 20): the engine was 1,062 lines in one class.
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for p in (ROOT / "tol_tasks" / "runner").glob("*.py")}  # fmt: skip
    assert len(sizes) >= 15
    assert {name: n for name, n in sizes.items() if n > 400} == {}


def test_no_code_outside_puzzles_asks_which_puzzle_class_it_has():
    # The puzzle interface answers (kind, size, pieces, capacities, is_classic, label, code).
    import ast

    classes = {"Hanoi", "London", "HanoiState", "LondonState"}
    found = []
    for path in (ROOT / "tol_tasks").rglob("*.py"):
        if "puzzles" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance":
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                if names & classes:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


@pytest.mark.psychopy_compat
def test_the_runner_imports_psychopy_only_when_used_and_says_when_there_is_no_screen():
    code = (
        "import json, sys\n"
        "import tol_tasks.runner as r\n"
        "from tol_tasks.runner import RunSettings, prepare, SimulatedTimes, ProblemResult\n"
        "import tol_tasks.builder.settings\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in {'psychopy', 'pyglet'})\n"
        "try:\n"
        "    r.TowerTask\n"
        "    error = None\n"
        "except r.DisplayError as exc:\n"
        "    error = [str(exc), exc.fix]\n"
        "print('RESULT ' + json.dumps({'loaded': loaded, 'error': error}), flush=True)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "DISPLAY"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    # PsychoPy may print its own lines on standard output (e.g. "Monitor specification not
    # found" on a fresh machine, before or after ours): the result is the marked line.
    (line,) = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    got = json.loads(line.removeprefix("RESULT "))
    assert got["loaded"] == []
    assert got["error"][0].startswith("no screen to show the task on")
    assert "xvfb-run" in got["error"][1]


def test_without_psychopy_tol_run_says_what_to_install(tmp_path):
    # An analyst's environment: PsychoPy cannot be imported (None in sys.modules makes its
    # import fail as a missing module does; tests/test_release.py does it with a real
    # environment without PsychoPy, in the slow set).
    code = (
        "import sys\n"
        "sys.modules['psychopy'] = None\n"
        "from tol_tasks.cli import run_main\n"
        "sys.exit(run_main(['demo', '--simulate', '--windowed', '--output', sys.argv[1]]))\n"
    )
    out = tmp_path / "data"
    done = subprocess.run([sys.executable, "-c", code, str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tol-run: the runner needs PsychoPy, which is not installed")
    assert 'Suggested fix: pip install "tol-tasks[runner]"' in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(out.rglob("*"))  # nothing written (the folder's check made it)


def test_the_tests_find_their_helpers_the_way_pytest_documents():
    # tests/ is a package, so pytest puts the repository root on sys.path itself ("prepend"
    # import mode). Before, `tests.*` was found only through the editable install's .pth
    # entry for the root: with a wheel installed, or that entry gone, collection failed.
    code = (
        "import os, sys\n"
        f"sys.path = [p for p in sys.path if os.path.abspath(p or '.') != {str(ROOT)!r}]\n"
        "import pytest\n"
        "sys.exit(pytest.main(['--collect-only', '-q', '-o', 'addopts=', '-p', 'no:cacheprovider',"
        " 'tests/test_classic.py']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tests/test_classic.py::" in done.stdout

"""The architecture is enforced, not just described."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

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


#: The most lines a module of tol_tasks or tol_analysis may have: one job per module (issue
#: 20: the engine was 1,062 lines in one class).
MAX_MODULE_LINES = 400

#: The modules allowed more, each with why; the test fails when one is back under the limit
#: (take it off the list) or grows past the size it is allowed.
LONG_MODULES = {
    "tol_tasks/cli.py": (
        440,
        "tol-run and tol-protocol: signals (29), typed fields (30) and tol-timing (32) grew it; to split by command",
    ),
    "analysis/tol_analysis/columns.py": (880, "the column registry: one declaration per column"),
    "tol_tasks/builder/settings.py": (
        420,
        "the Tower component's parameters, one declaration each (the ports: issue 35), checked",
    ),
    "analysis/tol_analysis/report/html.py": (
        620,
        "regrouped by issue 36 (tol_analysis's public faces)",
    ),
    "analysis/tol_analysis/read/logs.py": (
        800,
        "regrouped by issue 36; the one-read log head (36b)",
    ),
    "analysis/tol_analysis/score/scores.py": (
        540,
        "regrouped by issue 36; sidecars read once (36b)",
    ),
    "analysis/tol_analysis/score/sessions.py": (
        560,
        "regrouped by issue 36 (tol_analysis's public faces)",
    ),
    "analysis/tol_analysis/export/manifest.py": (
        480,
        "regrouped by issue 36 (tol_analysis's public faces)",
    ),
    "tol_tasks/protocol_format/model.py": (520, "the schema: one declaration per field"),
    "tol_tasks/importers/session.py": (630, "to be split by phase on the importers' public base"),
    "tol_tasks/importers/pebl.py": (540, "to be split by phase on the importers' public base"),
    "tol_tasks/importers/jspsych.py": (490, "to be split by phase on the importers' public base"),
    "tol_tasks/protocol_format/_checks.py": (490, "every check of a protocol file, each located"),
    "tol_tasks/session_data/plan.py": (
        490,  # issue 33: the view of resolve() it runs (a split is due)
        "the session plan's rules R1-R7, ported to web/src/plan.js",
    ),
    "tol_tasks/session_data/eventlog.py": (
        500,
        "the event log: codebook, reader, cell checks, one-read head (36b); its live writer is livelog.py",
    ),
    "tol_tasks/session_data/sidecar.py": (560, "the sidecar model: one declaration per key"),
    "tol_tasks/puzzles/hanoi.py": (440, "the Tower of Hanoi and its exact solver's interface"),
}


def _modules() -> dict[str, int]:
    """Every module of tol_tasks and tol_analysis (path from the root) -> its lines."""
    files = [*(ROOT / "tol_tasks").rglob("*.py"), *PACKAGE.rglob("*.py")]
    return {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
            for p in files}  # fmt: skip


def test_no_module_is_over_the_limit_but_the_named_exceptions():
    sizes = _modules()
    assert len(sizes) > 100
    over = {
        path: n for path, n in sizes.items() if n > MAX_MODULE_LINES and path not in LONG_MODULES
    }
    assert over == {}, f"split these by job (or name them in LONG_MODULES, with why): {over}"
    for path, (allowed, why) in LONG_MODULES.items():
        assert path in sizes, f"LONG_MODULES names {path}, which is gone: take it off"
        assert sizes[path] > MAX_MODULE_LINES, (
            f"{path} is back under {MAX_MODULE_LINES} lines: take it off"
        )
        assert sizes[path] <= allowed, f"{path} ({why}) grew past {allowed} lines: split it"


def test_the_layout_table_names_every_module_of_tol_tasks_and_of_the_browser_task():
    """docs/development.md's layout table covers tol_tasks/ (tol_tasks/web too) and web/."""
    doc = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    table = doc.split("\n## Layout", 1)[1].split("\n## ", 1)[0]
    named = {n.rsplit("/", 1)[-1] for n in re.findall(r"`([\w./-]+)`", table)}
    files = [
        p
        for p in (ROOT / "tol_tasks").rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    ]
    files += [
        *(ROOT / "web" / "src").glob("*.js"),
        ROOT / "web" / "build.mjs",
        ROOT / "web" / "ports.toml",
    ]
    missing = sorted(p.relative_to(ROOT).as_posix() for p in files if p.name not in named)
    assert missing == [], "add them to the layout table of docs/development.md"


def test_every_module_has_its_tests_listed_in_the_index():
    """tests/index.toml: each module of tol_tasks and tol_analysis -> the test files that
    exercise it (by import or through its command), so a module's tests are found by name."""
    index = tomllib.loads((ROOT / "tests" / "index.toml").read_text(encoding="utf-8"))
    modules = set()
    for root, prefix in ((ROOT / "tol_tasks", "tol_tasks"), (PACKAGE, "tol_analysis")):
        for path in root.rglob("*.py"):
            parts = [prefix, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] != "__main__":
                modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert sorted(modules - set(index)) == [], "add them to tests/index.toml with their tests"
    assert sorted(set(index) - modules) == [], "tests/index.toml names modules that are gone"
    missing = {
        m: f for m, files in index.items() for f in files if not (ROOT / "tests" / f).is_file()
    }
    assert missing == {}, "tests/index.toml names test files that do not exist"
    assert all(index.values()), "every module has at least one test file"


def _direct_skips(folder: Path) -> list[str]:
    """``file:line`` of every ``pytest.skip(...)`` or ``pytest.importorskip(...)`` call in the
    test modules of ``folder`` but tests/system_tools.py."""
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "system_tools.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("skip", "importorskip")
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "pytest"):  # fmt: skip
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_a_missing_program_or_extra_skips_only_through_system_tools(tmp_path):
    """tests/system_tools.py's unavailable(), program() and extra() skip a test whose program
    or extra is missing and fail it in CI (scripts/test.sh, .ci/run), so that a green run
    hides no test; a direct pytest.skip or pytest.importorskip skipped it in CI too (the
    PostgreSQL, nginx, libfaketime, pyreadstat, jinja2 and matplotlib tests did)."""
    assert _direct_skips(ROOT / "tests") == [], "call tests.system_tools' unavailable or extra"
    # The check sees both calls (and not pytest.mark.skip, which needs its own reason).
    (tmp_path / "test_x.py").write_text(
        "import pytest\n@pytest.mark.skip\ndef test_a():\n    pytest.skip('x')\n"
        "def test_b():\n    pytest.importorskip('y')\n",
        encoding="utf-8",
    )
    assert _direct_skips(tmp_path) == ["test_x.py:4", "test_x.py:6"]


#: Private names still imported from another package, each with the issue that removes it
#: (none left: tol_analysis's two went public when it was grouped into faces, issue 33).
PRIVATE_CROSSINGS: dict[str, str] = {}


def _private_imports(packages: tuple[Path, ...] = (ROOT / "tol_tasks", PACKAGE)) -> set[str]:
    """``importer -> name`` for every import of a private name by a module that does not own it.

    A private name (``_x`` in a module) belongs to its module; a private module
    (``pkg/_x.py``) to its package. Relative imports are resolved first. Every module of
    ``packages`` (folders of top-level packages) is read, in subpackages at any depth.
    """
    found = set()
    names_of = tuple(p.name for p in packages)
    for path in [p for package_dir in packages for p in package_dir.rglob("*.py")]:
        rel = path.relative_to(next(d.parent for d in packages if d in path.parents))
        parts = list(rel.with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        package = module if is_package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if not target.startswith(names_of):
                continue
            for alias in node.names:
                names = f"{target}.{alias.name}".split(".")
                private = [
                    i for i, x in enumerate(names) if x.startswith("_") and not x.startswith("__")
                ]
                if not private:
                    continue
                k = private[0]
                owner = ".".join(names[:k])  # the module (or package) the private name is of
                inside = module.startswith(owner + ".") and k < len(names) - 1
                if module == owner or package == owner or inside:
                    continue
                found.add(f"{module} -> {'.'.join(names)}")
    return found


def test_no_private_name_is_imported_from_another_module():
    got = _private_imports()
    # The listed crossings are found (the check sees them), and nothing else crosses.
    assert got - set(PRIVATE_CROSSINGS) == set(), "make the name public (no _) where it is used"
    assert set(PRIVATE_CROSSINGS) - got == set(), "a listed crossing is gone: take it off the list"


def test_the_private_name_check_sees_crossings_between_subpackages(tmp_path):
    # A package laid out as tol_analysis is (faces as subpackages): a private name of one
    # face imported by another, absolutely or relatively, is found; a private module of a face,
    # imported inside that face, is not.
    pkg = tmp_path / "pkg"
    files = {
        "__init__.py": "",
        "read/__init__.py": "",
        "read/logs.py": "_rows = 1\n_cols = 2\n",
        "read/find.py": "from pkg.read import _lazy\nfrom . import _lazy as lazy\n",
        "read/_lazy.py": "",
        "score/__init__.py": "",
        "score/scores.py": "from pkg.read.logs import _rows\nfrom ..read.logs import _cols\n",
        "score/moves.py": "from pkg.read import _lazy\nfrom pkg.score.scores import rows\n",
    }
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text, encoding="utf-8")
    assert _private_imports((pkg,)) == {
        "pkg.score.scores -> pkg.read.logs._rows",
        "pkg.score.scores -> pkg.read.logs._cols",
        "pkg.score.moves -> pkg.read._lazy",
    }


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

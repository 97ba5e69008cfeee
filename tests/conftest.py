from __future__ import annotations

import compileall
import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Fixtures of tests/browser_tools.py (a local web server, a headless Chromium) for every module.
pytest_plugins = ["tests.browser_tools"]

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: The project's own packages, editable sources: every command a test starts imports them.
_SOURCES = ("tol_tasks", "analysis/tol_analysis", "tests")

# pytest keeps its rewritten test modules in __pycache__ only where Python may write bytecode:
# with PYTHONDONTWRITEBYTECODE set (as on the shared machine), each worker rewrote and compiled
# all 100 test modules at every run (3.5 of its 6.7 s of collection).
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """One worker more than the cores by default (:func:`_workers`), and ``--dist loadfile``
    whatever ``-n`` is given, when pytest-xdist is loaded: a test module runs on one worker,
    so its module fixtures (sessions played, folders scored) are built once, not once on
    each worker.

    ``loadfile``, not ``loadgroup``: with pytest 9.2 and pytest-xdist 3.8 (uv.lock) the
    ``xdist_group`` marks have no effect (xdist renames ``item._nodeid``, pytest 9 reads
    ``item._id``; a group's tests were seen on both workers), so the module is the unit.
    Set here rather than in ``addopts``, so that ``-p no:xdist`` (one process, e.g. under
    a debugger) still collects; ``-n 0`` or ``-n 1``, or a ``--dist``, given wins.
    """
    if hasattr(config, "workerinput") or "PYTEST_XDIST_WORKER" in os.environ:
        return
    _compile_sources(config.rootpath)
    if not hasattr(config.option, "numprocesses"):
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = _workers(everyday=config.option.markexpr == "not slow")
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadfile"
        # Modules in the order of pytest_collection_modifyitems below (the longest first),
        # not xdist's default, by number of tests (which left the longest modules, those of a
        # few sessions each, for last: one worker still ran them when the other had finished).
        config.option.loadscopereorder = False


def _workers(*, everyday: bool = False) -> int | str:
    """Two workers more than the cores this process may use for the everyday loop (``-m
    "not slow"``: 4 on two cores), one more for the full suite (3), or xdist's ``auto``
    where ``PYTEST_XDIST_AUTO_NUM_WORKERS`` says how many.

    A worker is idle while its test waits in real time (a session played at its pace, a
    pause, a browser page): the extra workers' tests use that time. On the quiet 2-core
    machine (main at 3b09918) the everyday loop took 6 min 6 s and 6 min 12 s with 2 workers
    and 5 min 41 s with 3, for the same processor time (559, 571 and 556 s). With 1,154
    tests (main at f065eff, 2026-11-27, runs in turns at load 3-6): 5 min 38 s with 3
    workers, 4 min 50 s and 5 min 17 s with 4 (586, 524 and 576 s of processor time), every
    test passed. With 1,163 tests (main at be85108, 2026-11-28, in turns, load 2-5): 4 min
    45 s with 5 workers, 4 min 33 s with 4 (505 and 498 s): 4 kept. The full suite stays at
    3 until a full run with 4 is measured (its load tests, 50 browsers and 50 kills, already
    take both cores).
    """
    if "PYTEST_XDIST_AUTO_NUM_WORKERS" in os.environ:
        return "auto"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + (2 if everyday else 1)


def _compile_sources(root: Path) -> None:
    """Bring the bytecode of the project's sources up to date, once, before any test.

    setup.sh compiles them at install, but a checkout, merge or edit since leaves it stale,
    and where PYTHONDONTWRITEBYTECODE is set no process rewrites it: every tol-run, tol-score
    or tol-web a test starts then compiled the changed modules again (0.3-0.5 s of CPU each,
    a few hundred starts in the everyday loop). Only stale files are compiled (0.03 s when
    none is).
    """
    for name in _SOURCES:
        if (root / name).is_dir():
            compileall.compile_dir(root / name, quiet=2)


@pytest.fixture(scope="session", autouse=True)
def _rescue_folder_of_the_tests(tmp_path_factory) -> None:
    """A session that cannot write its data saves a rescue copy in the user's data folder
    (``$XDG_DATA_HOME``): the tests' sessions, and every command they start, use one of
    their own, never the person's."""
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))


@pytest.fixture(autouse=True)
def _environment_of_the_worker(_rescue_folder_of_the_tests):
    """The worker's environment as it was before each test, after it: a test that imports
    PsychoPy in this process leaves ``PATH``, ``PYTHONPATH``,
    ``PYTHONUSERBASE`` set by PsychoPy's plugin code; left there, every program started
    after it ran with PsychoPy's user packages on its path, and as a process of its own
    (its environment no longer the warm interpreters', tests/warm.py)."""
    before = dict(os.environ)
    yield
    if os.environ != before:
        os.environ.clear()
        os.environ.update(before)


@pytest.fixture(scope="session", autouse=True)
def _warm_interpreter():
    """The worker's warm interpreter (tests/warm.py), started by the first test that runs a
    program through it, stopped at the end of the session."""
    from tests import warm

    yield
    warm.stop()


@pytest.fixture
def rng() -> random.Random:
    """A seeded random generator, the same in every run."""
    return random.Random(20261122)


#: The everyday loop's longest modules, longest first (their tests' set-up and call summed,
#: ``--durations=0``, the loop of 2026-11-27 13:19, main at ad201e1, load 0.7 -> 4.8: every
#: module of 5 s or more). Scheduled first, so that the workers finish together: a worker
#: given one of them last ran it alone. A module not listed follows, in file order; a wrong
#: order costs time, never a result.
_LONGEST_FIRST = (
    "test_faults", "test_runner", "test_golden", "test_web_browser", "test_web_collect",
    "test_web_screens", "test_copy", "test_builder", "test_report_pages", "test_planning",
    "test_web_serve", "test_score_memory", "test_trust_outputs", "test_pacing",
    "test_web_planning", "test_embedding", "test_first_week_scoring", "test_languages",
    "test_exports", "test_scanner", "test_contributing", "test_gaze", "test_screen",
    "test_warm", "test_system_packages", "test_screens", "test_markers",
    "test_architecture", "test_score_batches", "test_stage", "test_solver_exhaustive",
    "test_trust_damaged", "test_quality", "test_timing_check", "test_input", "test_plan",
    "test_cli_protocol", "test_one_session", "test_docs", "test_protocol_limits",
)  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that asks for ``xdisplay`` is marked ``display`` (``-m "not display"``);
    the modules of ``_LONGEST_FIRST`` first, in its order (a module's tests stay together,
    in their order)."""
    for item in items:
        if "xdisplay" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.display)
    rank = {name: i for i, name in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))


@pytest.fixture(scope="session")
def xdisplay():
    """A real X display for the tests that open windows; yields the environment to use.

    A new Xvfb server (the tests' own screen, 1280x1024), or where Xvfb is not
    installed, the X server of ``DISPLAY`` (real windows and pointer moves on it).
    With neither, the test is skipped with what to install (failed in CI).
    """
    from tests.runner_tools import start_xvfb
    from tests.system_tools import unavailable

    if shutil.which("Xvfb") is None:
        if os.environ.get("DISPLAY"):
            yield {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
            return
        unavailable(
            "no X server for the test's windows: Xvfb is not installed and DISPLAY is not set",
            "install Xvfb (Debian: apt-get install xvfb, or bash scripts/setup.sh), "
            'or run the tests in an X session; -m "not display" leaves these tests out',
        )
    proc, env = start_xvfb()
    try:
        yield env
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def simulated_demo(xdisplay, tmp_path_factory):
    """One completed session of the bundled demo played by the simulated participant
    (``tol-run demo --simulate --seed 7 --speed 40 --windowed --participant S1``): its
    folder (the log and its sidecar), for the tests that only read such a session.

    Read-only: a test that changes it works on a copy (:func:`tests.runner_tools.copy_session`).
    Played at most once on each pytest-xdist worker (its tests are in several modules).
    """
    from tests.runner_tools import tol_run

    out = tmp_path_factory.mktemp("simulated-demo") / "data"
    done = tol_run("demo", "--simulate", "--seed", "7", "--speed", "40", "--windowed",
                   "--participant", "S1", "--output", str(out), env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def seeded_sessions(xdisplay, tmp_path_factory):
    """The seeded simulated sessions of ``tests/data/golden/make_golden.py`` (every bundled
    protocol and ``copies``), each played by that script's own ``run`` once on this worker,
    when first asked: ``seeded_sessions(name)`` returns its log and sidecar, read-only.

    The golden comparison (tests/test_golden.py) and the scoring round trip
    (tests/test_round_trip.py) read the same session: played at most once on each worker.
    """
    from tests.runner_tools import make_golden
    from tests.warm import warm

    make = make_golden()
    played: dict[str, tuple] = {}

    def play(name: str) -> tuple:
        if name not in played:
            with pytest.MonkeyPatch.context() as mp:  # make_golden's tol-run uses DISPLAY
                mp.setenv("DISPLAY", xdisplay["DISPLAY"])
                mp.setattr(make, "launch", warm)
                played[name] = make.run(name, make.PROTOCOLS[name], tmp_path_factory.mktemp(name))
        return played[name]

    return play

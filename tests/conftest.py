from __future__ import annotations

import os
import random
import shutil

import pytest
from hypothesis import HealthCheck, settings

# Fixtures of tests/browser_tools.py (a local web server, a headless Chromium) for every module.
pytest_plugins = ["tests.browser_tools"]

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Both cores by default (``-n auto``), and ``--dist loadgroup`` whatever ``-n`` is given,
    when pytest-xdist is loaded.

    Set here rather than in ``addopts``, so that ``-p no:xdist`` (one process, e.g. under
    a debugger) still collects; ``-n 0`` or ``-n 1`` given on the command line wins.
    """
    if hasattr(config, "workerinput"):
        # A worker parses the command line again, without what was set here: it groups the
        # tests by xdist_group (the suffix the controller schedules by) only if told to.
        if config.workerinput.get("tol_dist") == "loadgroup":
            config.option.loadgroup = True
        return
    if "PYTEST_XDIST_WORKER" in os.environ or not hasattr(config.option, "numprocesses"):
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
    # ``-n 2`` alone would be pytest-xdist's ``--dist load``, which ignores ``xdist_group``:
    # a module's shared sessions were then played once on each worker.
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """pytest-xdist: tell each worker the ``--dist`` chosen in :func:`pytest_cmdline_main`."""
    node.workerinput["tol_dist"] = node.config.option.dist


@pytest.fixture(scope="session", autouse=True)
def _rescue_folder_of_the_tests(tmp_path_factory) -> None:
    """A session that cannot write its data saves a rescue copy in the user's data folder
    (``$XDG_DATA_HOME``): the tests' sessions, and every command they start, use one of
    their own, never the person's."""
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))


@pytest.fixture
def rng() -> random.Random:
    """A seeded random generator, the same in every run."""
    return random.Random(20261122)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's worker reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that asks for ``xdisplay`` is marked ``display`` (``-m "not display"``);
    every test that uses a module or session fixture of its own module goes to that module's
    ``xdist_group`` (unless it names one): the fixture (sessions played, folders scored) is
    then built on one worker only, not on each."""
    for item in items:
        if "xdisplay" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.display)
        if item.get_closest_marker("xdist_group") is None and _uses_a_shared_fixture_of_its_module(
            item
        ):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def _uses_a_shared_fixture_of_its_module(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module = item.nodeid.split("::")[0]
    return any(
        defs[-1].scope in ("module", "session") and defs[-1].baseid == module
        for defs in info.name2fixturedefs.values()
        if defs
    )


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
    Its tests carry ``pytest.mark.xdist_group(SIMULATED_DEMO)`` (tests/runner_tools.py), so that it is played once.
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
    (tests/test_round_trip.py) read the same session; their tests of one session carry
    :func:`tests.runner_tools.seeded_group` so that it is played once.
    """
    from tests.runner_tools import make_golden

    make = make_golden()
    played: dict[str, tuple] = {}

    def play(name: str) -> tuple:
        if name not in played:
            with pytest.MonkeyPatch.context() as mp:  # make_golden's tol-run uses DISPLAY
                mp.setenv("DISPLAY", xdisplay["DISPLAY"])
                played[name] = make.run(name, make.PROTOCOLS[name], tmp_path_factory.mktemp(name))
        return played[name]

    return play

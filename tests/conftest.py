from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, settings

# Fixtures of tests/browser_tools.py (a local web server, a headless Chromium) for every module.
pytest_plugins = ["tests.browser_tools"]

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def rng() -> random.Random:
    """A seeded random generator, the same in every run."""
    return random.Random(20261122)


@pytest.fixture(scope="session")
def xdisplay():
    """A real X display (Xvfb) for the runner tests; yields the environment to use.

    Fails, rather than skips, when Xvfb is missing: scripts/setup.sh installs it.
    """
    import shutil

    from tests.runner_tools import start_xvfb

    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed; run scripts/setup.sh (apt-get install xvfb).")
    proc, env = start_xvfb()
    try:
        yield env
    finally:
        proc.terminate()
        proc.wait(timeout=10)

"""``tol-timing``: a lab computer's timing self-test, in a real window under Xvfb.

It says how presses would be stamped (the source tol-run would start), the refresh rate
and the frames dropped, and gives sentences for a methods section. Under Xvfb there is no
vertical sync: the measured rate is no display's, which the sentences must say rather than
quote it as a refresh rate. Figures are not bounded here (a shared, loaded machine).
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.runner_tools import exe
from tol_tasks.runner.frames import PLAUSIBLE_REFRESH_HZ


def _timing(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([exe("tol-timing"), "--seconds", "2", "--windowed", *args], env=env,
                          capture_output=True, text=True, timeout=240, check=False)  # fmt: skip


def _said(done: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(re.findall(r"^(input method|refresh rate|frames|window): +(.*)$", done.stdout,
                           flags=re.M))  # fmt: skip


def _check(done: subprocess.CompletedProcess, method: str) -> None:
    assert done.returncode == 0, done.stderr
    said = _said(done)
    assert said["input method"] == method
    frames, dropped = map(int, re.match(r"(\d+), dropped (\d+)", said["frames"]).groups())
    assert frames > 10
    assert 0 <= dropped < frames
    # PsychoPy gives no rate when its frames never settle (a loaded machine): said so
    measured = said["refresh rate"]
    rate = None if measured == "not measurable" else float(measured.split()[0])
    text = done.stdout.split("For a methods section:\n", 1)[1]
    assert f"in a {frames}-frame check, {dropped} frames" in text
    lo, hi = PLAUSIBLE_REFRESH_HZ
    if rate is not None and lo <= rate <= hi:  # a display's rate: quoted
        assert f"refreshed at {rate:.1f} Hz" in text
    else:  # Xvfb, no vertical sync: said so, not quoted as a refresh rate
        assert "cannot be vouched for" in text
        assert "refreshed at" not in text
    assert "PsychoPy 20" in text


def test_the_timing_check_names_the_x_listener_on_linux_x11(xdisplay):
    _check(_timing(xdisplay), "xinput2-raw")


@pytest.mark.slow
def test_the_timing_check_with_iohub_selected(xdisplay):
    _check(_timing(xdisplay, "--input-timing", "iohub"), "iohub")


def test_the_timing_check_refuses_a_duration_of_nothing(xdisplay):
    done = _timing(xdisplay, "--seconds", "0")
    assert done.returncode == 2
    assert "tol-timing: --seconds 0.0: must be more than 0. Suggested fix" in done.stderr

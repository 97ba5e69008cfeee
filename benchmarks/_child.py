"""Running a benchmark's measuring half in a child process, on its own Xvfb display when
there is none (the benchmarks that open windows)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_child(script: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python script --child args...`` with a display (a new Xvfb unless ``DISPLAY`` is set)."""
    env = dict(os.environ)
    xvfb = None
    if not env.get("DISPLAY"):
        sys.path.insert(0, str(ROOT))
        from tests.runner_tools import start_xvfb

        xvfb, env = start_xvfb()
    try:
        return subprocess.run([sys.executable, script, "--child", *args], env=env,
                              capture_output=True, text=True, check=check, cwd=ROOT)  # fmt: skip
    finally:
        if xvfb is not None:
            xvfb.terminate()

"""The architecture is enforced, not just described."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    # import-linter contracts in pyproject.toml: the core and analysis never import PsychoPy.
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    result = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def test_importing_the_core_loads_no_gui_toolkit():
    code = (
        "import json, sys\n"
        "import tol_tasks, analysis\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'psychopy', 'pyglet', 'PyQt6', 'PyQt5', 'wx', 'matplotlib', 'pandas', 'numpy'})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []

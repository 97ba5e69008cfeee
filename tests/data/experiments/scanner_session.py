"""A scanner session: PsychoPy's own scanner emulator types the trigger key every TR while a
TowerTask runs a protocol with a ``scanner`` section on the same window.

    python scanner_session.py PROTOCOL DATA_FOLDER TR VOLUMES [--simulate]
"""

import sys
import threading
import time
from pathlib import Path

from psychopy import core, plugins, visual

from tol_tasks.runner import TowerTask

plugins.activatePlugins()  # psychopy-mri-emulator provides psychopy.hardware.emulator
from psychopy.hardware.emulator import SyncGenerator  # noqa: E402

protocol, out, tr, volumes = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
win = visual.Window(size=(800, 600), units="height", checkTiming=False)
clock = core.Clock()
task = TowerTask(win, protocol, participant="P001", output=out, clock=clock,
                 simulate="--simulate" in sys.argv)  # fmt: skip
sync = SyncGenerator(TR=tr, volumes=volumes, sync="5")


def start_scanner() -> None:
    """The operator starts the scan once the task is waiting for it (its block has begun)."""
    while not any("block_start" in p.read_text() for p in out.glob("*.csv")):
        time.sleep(0.05)
    sync.start()


threading.Thread(target=start_scanner, daemon=True).start()
task.run()
sync.stop()
sync.join(timeout=5)
win.close()
core.quit()

"""A scanner session: PsychoPy's own scanner emulator types the trigger key every TR while a
TowerTask runs a protocol with a ``scanner`` section on the same window.

    python scanner_session.py PROTOCOL DATA_FOLDER TR VOLUMES [--simulate]

The moment the emulator typed each trigger (the session clock) goes to ``emitted.json``
beside DATA_FOLDER: what the log must hold, counted apart from the task.
"""

import json
import sys
import threading
import time
from pathlib import Path

from psychopy import core, event, plugins, visual

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
emitted = []
_type_key = event._onPygletKey


def _typed(*args, **kwargs):
    """The emulator's key, noted as it is typed (then typed as before)."""
    if kwargs.get("emulated"):
        emitted.append(clock.getTime())
    return _type_key(*args, **kwargs)


event._onPygletKey = _typed


def start_scanner() -> None:
    """The operator starts the scan once the task is waiting for it (its block has begun)."""
    while not any("block_start" in p.read_text() for p in out.glob("*.csv")):
        time.sleep(0.05)
    sync.start()


threading.Thread(target=start_scanner, daemon=True).start()
task.run()
sync.stop()
sync.join(timeout=5)
(out.parent / "emitted.json").write_text(json.dumps(emitted))
win.close()
core.quit()

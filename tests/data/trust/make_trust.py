"""Record the real sessions issue 30's tests score (void, missing and failed attempts; one
session identity). Run from the repository root, with a display (or under ``xvfb-run -a``)::

    uv run python tests/data/trust/make_trust.py

Every session is played by tol-run's simulated participant in a real PsychoPy window,
its output committed here (``sessions/``):

- ``V01-hanoi`` and ``V01-london``: participant V01's first visit, in which both
  protocols (``trust-hanoi.yaml``, ``trust-london.yaml``) were given: one session, two
  tasks. In the London one, the move limits of block ``hard`` (the minimum) make the
  simulated participant fail, and the discontinue rule (two failures in a row) ends the
  block: its last problems are never given.
- ``A01-london``: a session aborted with the Escape key during the second test problem
  (xdotool, a real key press): the attempt in progress is cut off, the rest never given.
- ``R01-london``: a session cut off as ``kill -9`` leaves it (its log truncated in the
  middle of a problem, the sidecar still ``incomplete``), then resumed with
  ``tol-run --resume``.

It was run once (issue 30); do not re-make these files with newer code unless a test
says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPEED = "20"
FIELDS = ("--field", "age=34", "--field", "group=patient")
#: Where the resumed session is cut: after this many complete rows, plus half a line.
CUT_AFTER_ROWS = 30


def exe(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def tol_run(*args: str) -> None:
    done = subprocess.run([exe("tol-run"), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"tol-run {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")


def simulated(protocol: str, participant: str, out: Path, seed: str, *more: str) -> Path:
    tol_run(str(HERE / protocol), "--simulate", "--seed", seed, "--speed", SPEED, "--windowed",
            "--participant", participant, "--session", "1", "--input-timing", "polled",
            "--output", str(out), *FIELDS, *more)  # fmt: skip
    return max(out.glob(f"{participant}_*.csv"), key=lambda p: p.stat().st_mtime)


def keep(log: Path, name: str) -> None:
    dest = HERE / "sessions"
    dest.mkdir(exist_ok=True)
    shutil.copyfile(log, dest / f"{name}.csv")
    meta = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
    meta["event_log"] = f"{name}.csv"
    (dest / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def rows(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def aborted(out: Path) -> Path:
    """Escape pressed (a real X key press) during the second test problem."""
    folder = out / "aborted"
    proc = subprocess.Popen(
        [exe("tol-run"), str(HERE / "trust-london.yaml"), "--simulate", "--seed", "3",
         "--speed", "1", "--windowed", "--participant", "A01", "--input-timing", "polled",
         "--output", str(folder), *FIELDS], stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    log = None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        logs = list(folder.glob("*.csv"))
        if logs:
            log = logs[0]
            onsets = [r for r in rows(log) if ",trial_onset," in r and ",test," in r]
            if len(onsets) >= 2:
                break
        time.sleep(0.05)
    time.sleep(0.3)
    side = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
    x, y = side["window"]["position"]
    subprocess.run(["xdotool", "mousemove", str(x + 50), str(y + 50)], check=True)
    time.sleep(0.1)
    subprocess.run(["xdotool", "key", "Escape"], check=True)
    proc.communicate(timeout=60)
    return log


def resumed(out: Path) -> Path:
    """Cut off as kill -9 leaves a session, then resumed."""
    log = simulated("trust-london.yaml", "R01", out / "resumed", "5")
    lines = log.read_bytes().split(b"\n")
    log.write_bytes(b"\n".join(lines[: CUT_AFTER_ROWS + 1]) + b"\n" + lines[CUT_AFTER_ROWS + 1][:9])
    side = log.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta.update(status="incomplete", end_time=None, rows_written=CUT_AFTER_ROWS)
    side.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    tol_run("--resume", str(log), "--simulate", "--seed", "5", "--speed", SPEED, "--windowed",
            "--input-timing", "polled")  # fmt: skip
    return log


def main() -> None:
    if not os.environ.get("DISPLAY"):
        raise SystemExit("needs a display: run under xvfb-run -a")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        keep(simulated("trust-hanoi.yaml", "V01", out / "visit", "7"), "V01-hanoi")
        keep(simulated("trust-london.yaml", "V01", out / "visit", "8"), "V01-london")
        keep(aborted(out), "A01-london")
        keep(resumed(out), "R01-london")


if __name__ == "__main__":
    main()

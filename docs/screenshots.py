"""Screenshots of what the participant sees, taken from real ``tol-run`` sessions under Xvfb.

::

    python docs/screenshots.py OUT_DIR            # what the documentation build runs
    python docs/screenshots.py OUT_DIR --readme   # also refresh docs/images/participant.png

Each picture is a grab of a virtual X display (its own Xvfb) while ``tol-run`` shows the
moment: a Tower of Hanoi problem, a move the rules refuse (real X clicks, xdotool), a Tower of
London problem, the yoked copy trial after it, and the participant dialog ``tol-run`` shows
when no ``--participant`` is given. The moments are found in the session's own event log
(the row that says the problem is on screen, the ``illegal`` row, the ``copy_onset`` row), so
a change in what the runner draws shows here at the next build.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.runner_tools import (  # noqa: E402  (the tests' helpers drive real windows)
    click_peg,
    exe,
    running_tol_run,
    sidecar_of,
    start_xvfb,
    wait_for_rows,
    xdotool,
)

#: Seconds ``tol-run`` may take to show its first screen (PsychoPy starting on a busy machine).
START = 240

#: The committed picture the README shows (refreshed with --readme).
README_IMAGE = ROOT / "docs" / "images" / "participant.png"

_COMMON = (
    "display: {fullscreen: false, window_size: [900, 675]}\n"
    "timing: {inter_trial_interval: 0, feedback_duration: 0.5}\n"
    "instructions: {pages: {en: []}}\n"
)
HANOI = (
    "format: 1\nname: screenshot-hanoi\ntask: {type: hanoi, disks: 4}\n" + _COMMON
    + "blocks:\n  - problems:\n      - {id: p1, start: AAAA, goal: CCCC}\n"
)  # fmt: skip
LONDON = (
    "format: 1\nname: screenshot-london\ntask: {type: london}\n" + _COMMON
    + "blocks:\n  - copies: {moves: own}\n    problems:\n"
    "      - {id: p1, start: 'GR|B|', goal: '|RG|B'}\n"
)  # fmt: skip


def grab(env: dict, out: Path, box: tuple[int, int, int, int] | None = None) -> Path:
    """Save the X display's root window (or ``box`` = left, top, width, height of it) as PNG."""
    from PIL import Image
    from Xlib import X, display

    d = display.Display(env["DISPLAY"])
    try:
        root = d.screen().root
        geo = root.get_geometry()
        left, top, width, height = box or (0, 0, geo.width, geo.height)
        raw = root.get_image(left, top, width, height, X.ZPixmap, 0xFFFFFFFF)
        Image.frombytes("RGB", (width, height), raw.data, "raw", "BGRX").save(out)
    finally:
        d.close()
    return out


def _window_box(folder: Path) -> tuple[int, int, int, int]:
    meta = sidecar_of(folder)
    (x, y), (w, h) = meta["window"]["position"], meta["window"]["size"]
    return x, y, w, h


def _on_screen(rows, event: str) -> bool:
    return any(r["event"] == event for r in rows)


def _settle() -> None:
    """Let the frame after the logged event reach the screen."""
    time.sleep(0.6)


@dataclass
class _Session:
    """A ``tol-run`` session in the background, its first problem on screen."""

    proc: subprocess.Popen
    data: Path
    env: dict
    box: tuple[int, int, int, int]
    meta: dict

    def grab(self, out: Path) -> Path:
        return grab(self.env, out, self.box)

    def click_until(self, peg: str, event: str) -> None:
        _click_until(self.data, peg, event, self.meta, self.env, self.proc)

    def wait_for(self, event: str) -> None:
        wait_for_rows(self.data, lambda rows: _on_screen(rows, event), timeout=60, proc=self.proc)


@contextmanager
def _session(env: dict, work: Path, name: str, protocol_text: str) -> Iterator[_Session]:
    """Start ``tol-run`` on ``protocol_text``; yield once the first problem is on screen; end
    it with the quit key."""
    protocol, data = work / f"{name}.yaml", work / name
    protocol.write_text(protocol_text, encoding="utf-8")
    with running_tol_run(str(protocol), "--participant", "P001", "--windowed",
                         "--output", str(data), env=env) as proc:  # fmt: skip
        wait_for_rows(data, lambda rows: _on_screen(rows, "trial_onset"), timeout=START, proc=proc)
        _settle()
        yield _Session(proc, data, env, _window_box(data), sidecar_of(data))
        xdotool("key", "Escape", env=env)
        time.sleep(0.3)
        xdotool("key", "Escape", env=env)  # the second press confirms
        proc.wait(timeout=30)


def hanoi_shots(env: dict, work: Path, out: Path) -> list[Path]:
    """A 4-disk Tower of Hanoi problem, then a refused move (larger disk on a smaller one)."""
    with _session(env, work, "hanoi", HANOI) as s:
        shots = [s.grab(out / "hanoi-problem.png")]
        s.click_until("A", "pick_up")  # disk 1 up...
        s.click_until("B", "place")  # ...onto B
        s.click_until("A", "pick_up")  # disk 2 up...
        s.click_until("B", "illegal")  # ...onto disk 1: refused
        time.sleep(0.2)
        shots.append(s.grab(out / "hanoi-refused.png"))
    return shots


def london_shots(env: dict, work: Path, out: Path) -> list[Path]:
    """A Tower of London problem, solved with real clicks, then its yoked copy trial."""
    from tol_tasks import London

    with _session(env, work, "london", LONDON) as s:
        shots = [s.grab(out / "london-problem.png")]
        puzzle = London()  # a shortest solution, from the solver
        for move in puzzle.solve(puzzle.parse("GR|B|"), puzzle.parse("|RG|B")):
            s.click_until("ABC"[move.source], "pick_up")
            s.click_until("ABC"[move.target], "place")
        s.wait_for("copy_cue")
        _settle()
        shots.append(s.grab(out / "london-copy.png"))
    return shots


def _click_until(folder: Path, peg: str, event: str, meta: dict, env: dict, proc) -> None:
    """Click ``peg`` until the log has one more ``event`` row (a click lost on a busy machine
    is clicked again)."""

    def count(rows) -> int:
        return sum(r["event"] == event for r in rows)

    before = count(wait_for_rows(folder, lambda rows: True, proc=proc))
    for _ in range(5):
        click_peg(peg, meta, env)
        try:
            wait_for_rows(folder, lambda rows: count(rows) > before, timeout=5, proc=proc)
            return
        except AssertionError:
            continue
    raise RuntimeError(f"5 clicks on peg {peg} gave no {event} row")


def dialog_shot(env: dict, work: Path, out: Path) -> Path:
    """The participant dialog ``tol-run demo`` shows when no participant is given."""
    with running_tol_run("demo", "--windowed", "--output", str(work / "dialog"), env=env) as proc:
        end = time.monotonic() + START
        while time.monotonic() < end:
            found = subprocess.run(
                ["xdotool", "search", "--onlyvisible", "--name", "."],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if found.stdout.strip():
                break
            if proc.poll() is not None:
                raise RuntimeError(f"tol-run ended before its dialog: {proc.communicate()}")
            time.sleep(0.2)
        else:
            raise RuntimeError(f"tol-run's participant dialog did not appear within {START} s")
        time.sleep(1.5)  # the dialog draws its fields
        shot = grab(env, out / "participant-dialog.png")
        _crop_to_content(shot)
    return shot


def _crop_to_content(path: Path) -> None:
    """Cut a root-window grab down to what is not the empty (black) screen."""
    from PIL import Image

    with Image.open(path) as im:
        bbox = im.convert("L").point(lambda v: 255 if v > 8 else 0).getbbox()
        if bbox:
            im.crop(bbox).save(path)


def _on_own_display(shoot, work: Path, out: Path):
    """Run ``shoot(env, work, out)`` on an Xvfb server of its own."""
    proc, env = start_xvfb()
    try:
        return shoot(env, work, out)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def make_all(out: Path) -> list[Path]:
    """Take every screenshot into ``out``; returns the files.

    The three sessions run at once, each on its own virtual display: most of their time is
    PsychoPy starting and the task's own pauses.
    """
    from concurrent.futures import ThreadPoolExecutor

    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        raise RuntimeError("the screenshots need Xvfb and xdotool: run scripts/setup.sh")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tol-shots-") as tmp:
        work = Path(tmp)
        with ThreadPoolExecutor(max_workers=3) as pool:
            jobs = [pool.submit(_on_own_display, shoot, work, out)
                    for shoot in (hanoi_shots, london_shots, dialog_shot)]  # fmt: skip
            hanoi, london, dialog = (job.result() for job in jobs)
    return [*hanoi, *london, dialog]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--readme", action="store_true", help=f"also write {README_IMAGE}")
    args = parser.parse_args(argv)
    start = time.monotonic()
    shots = make_all(args.out)
    if args.readme:
        README_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        from PIL import Image

        with Image.open(args.out / "london-problem.png") as im:
            im.thumbnail((640, 640))  # small enough for the README, sharp enough to read
            im.save(README_IMAGE, optimize=True)
        shots.append(README_IMAGE)
    for s in shots:
        print(s)
    print(f"screenshots: {len(shots)} in {time.monotonic() - start:.1f} s ({exe('tol-run')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

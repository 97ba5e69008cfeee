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


def hanoi_shots(env: dict, work: Path, out: Path) -> list[Path]:
    """A 4-disk Tower of Hanoi problem, then a refused move (larger disk on a smaller one)."""
    protocol, data = work / "hanoi.yaml", work / "hanoi"
    protocol.write_text(HANOI, encoding="utf-8")
    with running_tol_run(str(protocol), "--participant", "P001", "--windowed",
                         "--output", str(data), env=env) as proc:  # fmt: skip
        wait_for_rows(data, lambda rows: _on_screen(rows, "trial_onset"), proc=proc)
        _settle()
        box = _window_box(data)
        shots = [grab(env, out / "hanoi-problem.png", box)]
        meta = sidecar_of(data)
        _click_until(data, "A", "pick_up", meta, env, proc)  # disk 1 up...
        _click_until(data, "B", "place", meta, env, proc)  # ...onto B
        _click_until(data, "A", "pick_up", meta, env, proc)  # disk 2 up...
        click_peg("B", meta, env)  # ...onto disk 1: refused
        wait_for_rows(data, lambda rows: _on_screen(rows, "illegal"), proc=proc)
        time.sleep(0.2)
        shots.append(grab(env, out / "hanoi-refused.png", box))
        xdotool("key", "Escape", env=env)
        proc.wait(timeout=30)
    return shots


def london_shots(env: dict, work: Path, out: Path) -> list[Path]:
    """A Tower of London problem, solved with real clicks, then its yoked copy trial."""
    protocol, data = work / "london.yaml", work / "london"
    protocol.write_text(LONDON, encoding="utf-8")
    with running_tol_run(str(protocol), "--participant", "P001", "--windowed",
                         "--output", str(data), env=env) as proc:  # fmt: skip
        wait_for_rows(data, lambda rows: _on_screen(rows, "trial_onset"), proc=proc)
        _settle()
        box = _window_box(data)
        shots = [grab(env, out / "london-problem.png", box)]
        meta = sidecar_of(data)
        # GR|B| to |RG|B in three moves: R to B, G to C... a shortest solution from the solver.
        from tol_tasks import London

        puzzle = London()
        for move in puzzle.solve(puzzle.parse("GR|B|"), puzzle.parse("|RG|B")):
            _click_until(data, "ABC"[move.source], "pick_up", meta, env, proc)
            _click_until(data, "ABC"[move.target], "place", meta, env, proc)
        wait_for_rows(data, lambda rows: _on_screen(rows, "copy_cue"), proc=proc)
        _settle()
        shots.append(grab(env, out / "london-copy.png", box))
        xdotool("key", "Escape", env=env)
        proc.wait(timeout=30)
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
            wait_for_rows(folder, lambda rows: count(rows) > before, timeout=3, proc=proc)
            return
        except AssertionError:
            continue
    raise RuntimeError(f"5 clicks on peg {peg} gave no {event} row")


def dialog_shot(env: dict, work: Path, out: Path) -> Path:
    """The participant dialog ``tol-run demo`` shows when no participant is given."""
    with running_tol_run("demo", "--windowed", "--output", str(work / "dialog"), env=env) as proc:
        end = time.monotonic() + 60
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
            raise RuntimeError("tol-run's participant dialog did not appear within 60 s")
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


def make_all(out: Path) -> list[Path]:
    """Take every screenshot into ``out``; returns the files."""
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        raise RuntimeError("the screenshots need Xvfb and xdotool: run scripts/setup.sh")
    out.mkdir(parents=True, exist_ok=True)
    proc, env = start_xvfb()
    try:
        with tempfile.TemporaryDirectory(prefix="tol-shots-") as tmp:
            work = Path(tmp)
            return [*hanoi_shots(env, work, out), *london_shots(env, work, out),
                    dialog_shot(env, work, out)]  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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

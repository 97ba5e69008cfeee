"""Input timestamps as a session records them: X Input 2, ioHub and polled, each in a real
``tol-run`` session.

Run with (starts its own Xvfb display)::

    uv run python benchmarks/bench_timing.py                 # 300 clicks a method
    uv run python benchmarks/bench_timing.py --load 2        # with both cores kept busy
    uv run python benchmarks/bench_timing.py --fsync-delay 0,100   # a slow disk beside a fast one

For each input method (``--input-timing xinput2``, ``iohub``, ``polled``) the benchmark
runs a real ``tol-run`` session of a short protocol in its own window, passes its
instruction pages as a person would (the space bar, pressed with X test events), and on
the problem's screen sends a few hundred clicks on one peg at random intervals from a
separate process (X test events), noting the time of each press on tol-tasks' clock
(PsychoPy's ``getTime``, a system-wide clock). Each press on a peg makes exactly one row
(a pick-up, then putting the disk back: a same-peg drop, and so on), so the log is
matched against the presses: the **stamp error** of each row (recorded - injected: median,
95th and 99th percentiles, maximum, in ms), the presses **lost** (no row) and the presses
**doubled** (a second row for one press), with the session's own counts of presses only the
window saw and late twins dropped. It also reports the time from the ``tol-run`` command
to the first screen and to the problem (its pages passed). The session ends with the quit
key, confirmed.

``--load N`` keeps N busy loops running meanwhile (2 loads both cores of this machine).
``--fsync-delay MS[,MS...]`` runs each method once for each delay, the session's every
``fsync`` made to wait that long first (``tests/slow_disk.py``, which runs ``tol-run`` with
``os.fsync`` and ``os.fdatasync`` slowed in its process alone): a USB stick, a network
share or a disk busy with another program's writes, where each row the log makes durable
waits on the disk. Beside the stamps, each session's
frames (from its sidecar: the frames over 1.5 refresh periods, the most work between two
flips, the longest interval) say whether the wait held up the screen.
The machine is shared: compare the methods of one run, not runs. The benchmark fails
(exit status 1) if it cannot produce a figure: a session that does not start, a method
that falls back to another, clicks that do not reach it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The protocol every session runs: instruction pages, then one problem without limits.
PROTOCOL = """format: 1
name: bench
task: {type: hanoi, disks: 3}
display: {fullscreen: false, window_size: [800, 600]}
feedback: none
instructions:
  pages:
    en:
      - text: "A benchmark session: the clicks come by themselves."
      - text: "Press space to go on."
blocks:
  - problems:
      - {id: p1, start: AAA, goal: CCC}
"""
#: The repository (``tests.slow_disk`` is run from it).
ROOT = Path(__file__).resolve().parents[1]
#: The method each --input-timing records in the sidecar.
RECORDED = {"xinput2": "xinput2-raw", "iohub": "iohub", "polled": "polled"}
#: Rows a press on a peg makes.
PRESS_ROWS = ("pick_up", "place", "same_peg_drop", "illegal", "empty_pick", "cancel")
#: Seconds to wait for a screen before giving up (a loaded machine is slow to start PsychoPy).
TIMEOUT_S = 180.0


class BenchmarkError(Exception):
    """A figure could not be produced; the message says which and why."""


def injector(n: int, x: int, y: int, seed: int) -> None:
    """(Its own process.) ``n`` clicks at window pixel x, y at random intervals; print the
    time of each press on tol-tasks' clock."""
    from psychopy.clock import getTime
    from Xlib import X, display
    from Xlib.ext import xtest

    d = display.Display()
    rng = random.Random(seed)
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    d.sync()
    times = []
    for _ in range(n):
        time.sleep(rng.uniform(0.03, 0.09))
        t = getTime()
        xtest.fake_input(d, X.ButtonPress, 1)
        d.sync()
        times.append(t)
        time.sleep(rng.uniform(0.03, 0.06))  # a short click, a few frames long
        xtest.fake_input(d, X.ButtonRelease, 1)
        d.sync()
    print(json.dumps(times))


def _key(env: dict, name: str, at: tuple[int, int]) -> None:
    """A key pressed and released with X test events, the pointer over the window (``at``)."""
    from Xlib import XK, X, display
    from Xlib.ext import xtest

    d = display.Display(env["DISPLAY"])
    try:
        xtest.fake_input(d, X.MotionNotify, x=at[0], y=at[1])
        code = d.keysym_to_keycode(XK.string_to_keysym(name))
        xtest.fake_input(d, X.KeyPress, code)
        d.sync()
        time.sleep(0.03)
        xtest.fake_input(d, X.KeyRelease, code)
        d.sync()
    finally:
        d.close()


def _rows(out: Path) -> list[dict]:
    from tol_tasks.session_data.eventlog import read_event_log

    logs = list(out.glob("*.csv")) if out.exists() else []
    return read_event_log(logs[0]).rows if logs else []


def _wait(out: Path, proc: subprocess.Popen, what: str, predicate) -> list[dict]:
    end = time.monotonic() + TIMEOUT_S
    while time.monotonic() < end:
        rows = _rows(out)
        if rows and predicate(rows):
            return rows
        if proc.poll() is not None:
            raise BenchmarkError(f"tol-run ended ({proc.returncode}) before {what}: "
                                 f"{proc.communicate()[1][-800:]}")  # fmt: skip
        time.sleep(0.02)
    raise BenchmarkError(f"tol-run did not reach {what} within {TIMEOUT_S:.0f} s")


def _match(injected: list[float], recorded: list[float]) -> tuple[list[float], int, int]:
    """The lag (ms) of each injected press's row; the presses with no row (lost) and the rows
    beyond one a press (doubled).

    Each press makes one row, in order: when there are as many rows as presses, none before
    its press, the k-th row is the k-th press's (whatever its lag, even past the next press).
    Otherwise each press takes the first row after it and before the next press."""
    if len(recorded) == len(injected) and all(
        r >= i for r, i in zip(recorded, injected, strict=True)
    ):
        return [(r - i) * 1000 for r, i in zip(recorded, injected, strict=True)], 0, 0
    lags, lost, doubled, j = [], 0, 0, 0
    while j < len(recorded) and recorded[j] < injected[0]:
        doubled += 1
        j += 1
    for i, t in enumerate(injected):
        nxt = injected[i + 1] if i + 1 < len(injected) else float("inf")
        rows = []
        while j < len(recorded) and recorded[j] < nxt:
            rows.append(recorded[j])
            j += 1
        if rows:
            lags.append((rows[0] - t) * 1000)
            doubled += len(rows) - 1
        else:
            lost += 1
    return lags, lost, doubled


def measure(method: str, clicks: int, seed: int, env: dict, fsync_delay: float | None = None
            ) -> dict:  # fmt: skip
    """One session with ``--input-timing method``: its figures. ``fsync_delay``: the ms each
    of the session's fsyncs waits (``tests/slow_disk.py``), or None for the command as it is."""
    exe = [shutil.which("tol-run") or str(Path(sys.executable).with_name("tol-run"))]
    if fsync_delay is not None:
        exe = [sys.executable, "-m", "tests.slow_disk", str(fsync_delay), "tol-run"]
    with tempfile.TemporaryDirectory() as tmp:
        proto, out = Path(tmp) / "bench.yaml", Path(tmp) / "data"
        proto.write_text(PROTOCOL)
        t0 = time.monotonic()
        proc = subprocess.Popen([*exe, str(proto), "--participant", "B1", "--windowed",
                                 "--input-timing", method, "--output", str(out)], env=env, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            rows = _wait(
                out, proc, "its first screen", lambda r: any(x["event"] == "page_shown" for x in r)
            )
            meta = json.loads(next(out.glob("*.json")).read_text())
            zero_mono = meta["timing"]["clock_zero_monotonic"]
            first = next(r for r in rows if r["event"] == "page_shown")
            to_screen = float(first["time"]) + zero_mono - t0
            if meta["timing"]["input_method"] != RECORDED[method]:
                raise BenchmarkError(f"{method}: the session fell back to "
                                     f"{meta['timing']['input_method']} "
                                     f"({meta['timing']['input_fallback_reason']})")  # fmt: skip
            at = tuple(v + 40 for v in meta["window"]["position"])
            shown = 1
            while True:  # pass the pages as a person would: space, page after page
                _key(env, "space", at)
                rows = _wait(out, proc, f"the page after page {shown}",
                             lambda r, n=shown: sum(x["event"] == "page_left" for x in r) >= n)  # fmt: skip
                rows = _wait(out, proc, "the next screen",
                             lambda r: r[-1]["event"] in ("page_shown", "trial_onset"))  # fmt: skip
                if any(r["event"] == "trial_onset" for r in rows):
                    break
                shown += 1
            onset = next(r for r in rows if r["event"] == "trial_onset")
            to_problem = float(onset["time"]) + zero_mono - t0
            meta = json.loads(next(out.glob("*.json")).read_text())
            peg = next(p for p in meta["layout"]["pegs"] if p["peg"] == "A")
            wx, wy = meta["window"]["position"]
            x = int(wx + peg["left"] + peg["width"] / 2)
            y = int(wy + peg["top"] + peg["height"] * 0.6)
            inj = subprocess.run([sys.executable, __file__, "--inject", str(clicks), str(x), str(y),
                                  "--seed", str(seed)], env=env, capture_output=True, text=True,
                                 check=False)  # fmt: skip
            if inj.returncode:
                raise BenchmarkError(f"{method}: the clicks could not be sent: {inj.stderr[-500:]}")
            injected = json.loads(inj.stdout)
            time.sleep(1.0)  # the last rows
            for _ in range(2):  # the quit key, confirmed
                _key(env, "Escape", at)
                time.sleep(0.5)
            proc.communicate(timeout=TIMEOUT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        rows = _rows(out)
        meta = json.loads(next(out.glob("*.json")).read_text())
    zero = meta["timing"]["clock_zero"]
    presses = [float(r["time"]) + zero for r in rows if r["event"] in PRESS_ROWS]
    lags, lost, doubled = _match(injected, presses)
    if not lags:
        raise BenchmarkError(f"{method}: none of the {len(injected)} clicks reached the session")
    timing = meta["timing"]
    frames = meta.get("frames") or {}
    if not frames.get("total_frames"):
        raise BenchmarkError(f"{method}: the session's sidecar has no frame figures")
    return {"frames": {k: frames.get(k) for k in (
                "total_frames", "total_dropped_frames", "frame_work_p99_ms", "frame_work_max_ms",
                "frame_interval_max_ms")},
            "lags": lags, "lost": lost, "doubled": doubled, "clicks": len(injected),
            "to_screen": to_screen, "to_problem": to_problem,
            "unmatched": timing.get("unmatched_presses"), "late_twins": timing.get("late_twins"),
            "polled_rows": sum(r["stamp"] == "polled" for r in rows if r["event"] in PRESS_ROWS),
            }  # fmt: skip


def _stats(lags: list[float]) -> str:
    s = sorted(lags)
    q = lambda p: s[min(len(s) - 1, int(p * len(s)))]  # noqa: E731
    return (f"median {statistics.median(s):7.3f}  p95 {q(0.95):7.3f}  p99 {q(0.99):7.3f}  "
            f"max {max(s):7.3f}")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=300, help="clicks a method (300)")
    ap.add_argument("--seed", type=int, default=1, help="the clicks' random intervals (1)")
    ap.add_argument("--methods", default="xinput2,iohub,polled",
                    help="input methods, comma-separated (xinput2,iohub,polled)")  # fmt: skip
    ap.add_argument("--load", type=int, default=0,
                    help="busy loops kept running meanwhile (2: both cores of this machine)")  # fmt: skip
    ap.add_argument("--fsync-delay", default="",
                    help="milliseconds each of the session's fsyncs waits, comma-separated: "
                         "every method runs once per delay (none: no library loaded)")  # fmt: skip
    ap.add_argument("--inject", nargs=3, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inject:
        injector(*args.inject, seed=args.seed)
        return 0
    methods = [m for m in args.methods.split(",") if m]
    unknown = [m for m in methods if m not in RECORDED]
    if unknown:
        ap.error(f"--methods: {', '.join(unknown)}: use xinput2, iohub or polled")
    try:
        delays = [float(d) for d in args.fsync_delay.split(",") if d.strip()]
    except ValueError:
        ap.error(f"--fsync-delay {args.fsync_delay!r}: give milliseconds, e.g. 0,100")
    if any(d < 0 for d in delays):
        ap.error(f"--fsync-delay {args.fsync_delay!r}: a delay cannot be negative")
    sys.path.insert(0, str(ROOT))
    from tests.runner_tools import start_xvfb  # the tests' X server (-noreset: see there)

    runs = [(m, d) for d in (delays or [None]) for m in methods]
    xvfb, env = start_xvfb()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    results, failures = {}, []
    try:
        for method, delay in runs:
            where = "" if delay is None else f", every fsync {delay:g} ms late"
            print(f"bench_timing: {method}: a session, {args.clicks} clicks{where}...",
                  file=sys.stderr, flush=True)  # fmt: skip
            try:
                results[method, delay] = measure(method, args.clicks, args.seed, env, delay)
            except BenchmarkError as exc:
                failures.append(str(exc))
    finally:
        for b in busy:
            b.kill()
            b.wait()
        xvfb.terminate()
        xvfb.wait()
    load = f", {args.load} busy loop(s) running" if args.load else ""
    print(
        f"{args.clicks} clicks a method at random intervals (30-90 ms apart){load}; "
        f"load average {os.getloadavg()[0]:.2f}; stamp error (recorded - injected) in ms\n"
    )
    labels = {"xinput2": "X Input 2 listener (on arrival)", "iohub": "PsychoPy ioHub (on arrival)",
              "polled": "polled once a frame"}  # fmt: skip
    for (method, delay), r in results.items():
        label = labels[method] + ("" if delay is None else f", fsync +{delay:g} ms")
        print(f"{label:<32} {_stats(r['lags'])}  lost {r['lost']}  doubled {r['doubled']}"
              f"  (rows polled {r['polled_rows']}, unmatched {r['unmatched']}, late twins "
              f"{r['late_twins']})")  # fmt: skip
    print("\nframes (the session's sidecar): dropped (over 1.5 periods) of all, work between two "
          "flips p99 / max, the longest interval, in ms")  # fmt: skip
    for (method, delay), r in results.items():
        f = r["frames"]
        label = method + ("" if delay is None else f", fsync +{delay:g} ms")
        print(f"{label:<24} dropped {f['total_dropped_frames']} of {f['total_frames']}  work p99 "
              f"{f['frame_work_p99_ms']}  max {f['frame_work_max_ms']}  longest interval "
              f"{f['frame_interval_max_ms']}")  # fmt: skip
    for (method, delay), r in results.items():
        label = method + ("" if delay is None else f", fsync +{delay:g} ms")
        print(f"{label}: command to first screen {r['to_screen']:.2f} s, to the problem (pages "
              f"passed) {r['to_problem']:.2f} s")  # fmt: skip
    for f in failures:
        print(f"bench_timing: no figure: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

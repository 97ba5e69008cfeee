"""Input timestamp precision: the X Input 2 listener, PsychoPy's iohub and the polled mouse.

Run with (starts its own Xvfb display)::

    uv run python benchmarks/bench_timing.py

A window process shows the real task screen (the demo's first problem) and
runs a frame loop paced at 60 Hz (Xvfb has no vsync, so the frame rate of a
real display is simulated by sleeping to the next 1/60 s boundary). In that
loop it keeps, side by side, the three ways tol-tasks can stamp a press:
its X Input 2 listener process (on arrival, Linux/X11), PsychoPy's ioHub
server process (on arrival, every platform) and PsychoPy's plain
``event.Mouse``, polled once per frame (a press is stamped when a poll first
sees the button down), all reading the same clicks. A separate injector process sends a
few hundred clicks with X test events at random intervals, noting the time
of each press on the same clock (PsychoPy's ``getTime``, a system-wide clock). For each method the benchmark reports the
median, 95th and 99th percentiles and maximum of (recorded - injected) and the
clicks lost. It also reports the time from the ``tol-run`` command to the
first problem on screen. The machine is shared: compare the methods of one run,
not runs.
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

FRAME = 1 / 60


def window_process(seconds: float, ready_file: str, methods: list[str]) -> None:
    from psychopy import core, event, visual
    from psychopy.clock import getTime

    from tol_tasks.protocol_format.load import load_protocol
    from tol_tasks.runner.arrival import _start_iohub, _start_xlistener
    from tol_tasks.runner.screen import TaskScreen

    lp = load_protocol("demo")
    win = visual.Window(size=(1024, 768), units="height", color="#1e1e1e", checkTiming=False)
    screen = TaskScreen(win, lp, lp.messages())
    spec = lp.block_problems(0)[0]
    board = screen.board("board", spec.puzzle, screen.layout.board)  # the display model
    board.show(spec.start)
    clock = core.Clock()
    sources = {}
    for name, start in (("xinput2", _start_xlistener), ("iohub", _start_iohub)):
        if name not in methods:
            continue
        source, reason = start(win, ["escape"])
        if source is None:
            raise SystemExit(f"no {name} input: {reason}")
        sources[name] = source
    mouse = event.Mouse(win=win)
    polled, down = [], False
    arrived = {name: [] for name in sources}
    pos = win.winHandle.get_location()
    Path(ready_file).write_text(json.dumps({"x": pos[0] + 512, "y": pos[1] + 300}))
    end = time.monotonic() + seconds
    next_frame = time.monotonic()
    zero = clock.getLastResetTime()
    while time.monotonic() < end:
        board.draw()
        win.flip()
        pressed = mouse.getPressed()[0]  # the plain way: button state once per frame
        if pressed and not down:
            polled.append(getTime())
        down = bool(pressed)
        for name, source in sources.items():
            arrived[name] += [e.t + zero for e in source.read(clock) if e.kind == "press"]
        next_frame += FRAME
        time.sleep(max(0.0, next_frame - time.monotonic()))
    for source in sources.values():
        source.close()
    win.close()
    print(json.dumps({"polled": polled, **arrived}))


def injector(n: int, x: int, y: int, seed: int) -> None:
    from psychopy.clock import getTime  # the clock tol-tasks stamps with
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


def _match(injected: list[float], recorded: list[float]) -> tuple[list[float], int]:
    """Lag of the first recording after each injection and before the next; lost count."""
    lags, lost, j = [], 0, 0
    for i, t in enumerate(injected):
        nxt = injected[i + 1] if i + 1 < len(injected) else float("inf")
        while j < len(recorded) and recorded[j] < t:
            j += 1
        if j < len(recorded) and recorded[j] < nxt:
            lags.append((recorded[j] - t) * 1000)
            j += 1
        else:
            lost += 1
    return lags, lost


def _stats(lags: list[float]) -> str:
    s = sorted(lags)
    q = lambda p: s[min(len(s) - 1, int(p * len(s)))]  # noqa: E731
    return f"median {statistics.median(s):7.3f}  p95 {q(0.95):7.3f}  p99 {q(0.99):7.3f}  max {max(s):7.3f}"


def _startup_time(env: dict) -> float:
    """Seconds from the tol-run command to the flip that first shows a problem."""
    proto = "format: 1\nname: startup\ntask: {type: hanoi, disks: 3}\nblocks:\n  - problems:\n      - {id: p1, start: AAA, goal: CCC}\n"
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "startup.yaml"
        p.write_text(proto)
        out = Path(tmp) / "data"
        exe = shutil.which("tol-run") or str(Path(sys.executable).with_name("tol-run"))
        t0 = time.monotonic()
        proc = subprocess.Popen([exe, str(p), "--participant", "B1", "--windowed", "--output", str(out)],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            from tol_tasks.session_data.eventlog import read_event_log

            while True:
                logs = list(out.glob("*.csv"))
                if logs:
                    rows = read_event_log(logs[0]).rows
                    onset = [r for r in rows if r["event"] == "trial_onset"]
                    if onset:
                        meta = json.loads(logs[0].with_suffix(".json").read_text())
                        return float(onset[0]["time"]) + meta["timing"]["clock_zero_monotonic"] - t0
                if time.monotonic() - t0 > 60:
                    raise RuntimeError("tol-run did not show a problem within 60 s")
                time.sleep(0.01)
        finally:
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default="xinput2,iohub",
                    help="on-arrival sources to run beside the polled mouse (xinput2,iohub); "
                    "each one more process on the machine's cores")  # fmt: skip
    ap.add_argument("--window", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--inject", nargs=3, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.window:
        window_process(float(args.window[0]), args.window[1], args.methods.split(","))
        return
    if args.inject:
        injector(*args.inject, seed=args.seed)
        return
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    env = dict(os.environ, DISPLAY=":" + xvfb.stdout.readline().strip())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ready = Path(tmp) / "ready.json"
            seconds = args.clicks * 0.11 + 8
            win = subprocess.Popen([sys.executable, __file__, "--window", str(seconds), str(ready),
                                    "--methods", args.methods],
                                   env=env, stdout=subprocess.PIPE, text=True)  # fmt: skip
            while not ready.exists():
                time.sleep(0.05)
            time.sleep(1.0)
            where = json.loads(ready.read_text())
            inj = subprocess.run([sys.executable, __file__, "--inject", str(args.clicks), str(where["x"]),
                                  str(where["y"]), "--seed", str(args.seed)],
                                 env=env, capture_output=True, text=True, check=True)  # fmt: skip
            injected = json.loads(inj.stdout)
            recorded = json.loads(win.communicate()[0].strip().splitlines()[-1])
        startup = _startup_time(env)
    finally:
        xvfb.terminate()
    print(f"{len(injected)} clicks injected at random intervals (30-90 ms apart); lags in ms\n")
    res = {}
    labels = {
        "xinput2": "X Input 2 listener (on arrival)",
        "iohub": "PsychoPy ioHub (on arrival)",
        "polled": "PsychoPy event.Mouse, 60 Hz poll",
    }
    for name, label in labels.items():
        if name not in recorded:
            continue
        lags, lost = _match(injected, recorded[name])
        res[name] = statistics.median(lags)
        print(f"{label:<34} {_stats(lags)}  lost {lost}")
    for name in ("xinput2", "iohub"):
        if name in res:
            print(f"median ratio, polled / {labels[name]}: {res['polled'] / res[name]:.0f}x")
    print(f"time from the tol-run command to the first problem on screen: {startup:.2f} s")


if __name__ == "__main__":
    main()

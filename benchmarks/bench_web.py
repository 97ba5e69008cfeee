"""Timing of the web task in headless Chromium: input handling delay and frame intervals.

Run with::

    uv run python benchmarks/bench_web.py [--problems 3] [--disks 6]

Builds a protocol of Tower of Hanoi towers with ``tol-web build``, serves it
from 127.0.0.1 and plays it in Debian's headless Chromium (Playwright) with
real mouse clicks (Chrome DevTools Protocol input events) at random intervals,
the moves from a breadth-first search. Reported from the session's own files:

- the delay from each input's own ``event.timeStamp`` to the moment its
  handler ran (the sidecar's ``timing.input_delay_ms``: median, 99th
  percentile, maximum), with the page idle between clicks and, side by side,
  with a busy main thread (a script that blocks it 8 ms in every 16 ms);
- the animation-frame intervals while a problem is shown (every trial_end's
  frame statistics: frames, dropped frames, mean and largest interval) and the
  task's own work per frame.

Headless Chromium has no display and no real vertical sync: its frames are
paced by a timer, so the intervals say how regularly the page got frames on
this machine, not what a monitor showed. The machine is shared and noisy:
compare the two conditions of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser_tools import StaticServer, chromium_browser  # noqa: E402
from tests.web_tools import Participant  # noqa: E402
from tol_tasks.web import WebSettings, build_experiment  # noqa: E402

BUSY = """
// Keep the main thread busy 8 ms in every 16 ms, as a heavy page or a slow device would.
setInterval(() => { const end = performance.now() + 8; while (performance.now() < end) {} }, 16);
"""


def protocol(problems: int, disks: int) -> str:
    rows = "\n".join(
        f"      - {{id: t{k + 1}, start: {'A' * disks}, goal: {'CB'[k % 2] * disks}}}"
        for k in range(problems)
    )
    return f"""format: 1
name: bench-web
task: {{type: hanoi, disks: {disks}}}
display: {{fullscreen: false, window_size: [1024, 768]}}
feedback: none
timing: {{inter_trial_interval: 0.2, feedback_duration: 0}}
blocks:
  - name: test
    problems:
{rows}
"""


class PacedParticipant(Participant):
    """Waits a random 20-120 ms before each click, as a quick participant would."""

    def __init__(self, page, rng):
        super().__init__(page, illegal=False)
        self.rng = rng

    def _tap(self, x, y):
        self.page.wait_for_timeout(self.rng.uniform(20, 120))
        super()._tap(x, y)


def run(browser, url: str, busy: bool, seed: int) -> dict:
    ctx = browser.new_context(viewport={"width": 1100, "height": 800}, accept_downloads=True)
    if busy:
        ctx.add_init_script(BUSY)
    page = ctx.new_page()
    files = {}
    page.on("download", lambda d: files.__setitem__(Path(d.suggested_filename).suffix, d.path()))
    page.goto(url)
    PacedParticipant(page, random.Random(seed)).play()
    page.wait_for_function("document.documentElement.dataset.tolSaved", timeout=10000)
    page.wait_for_timeout(300)
    sidecar = json.loads(Path(files[".json"]).read_text())
    ctx.close()
    return sidecar


def summary(label: str, sidecar: dict) -> None:
    d = sidecar["timing"]["input_delay_ms"]
    f = sidecar["frames"]
    trials = [t for t in f["trials"] if t.get("frames")]
    worst = max(t["frame_interval_max_ms"] for t in trials)
    print(f"{label}:")
    print(f"  input -> handler delay: n={d['n']}, median {d['median_ms']:.2f} ms, "
          f"p99 {d['p99_ms']:.2f} ms, max {d['max_ms']:.2f} ms")  # fmt: skip
    print(f"  frames while a problem is shown: {f['total_frames']} in {len(trials)} trials, "
          f"{f['total_dropped_frames']} dropped (over 1.5 periods), mean interval "
          f"{f['frame_interval_mean_ms']:.2f} ms, largest {worst:.2f} ms "
          f"(measured refresh {sidecar['refresh_rate_hz']:.1f} Hz)")  # fmt: skip
    print(f"  task work per frame: median {f['frame_work_median_ms']:.2f} ms, p99 "
          f"{f['frame_work_p99_ms']:.2f} ms, max {f['frame_work_max_ms']:.2f} ms")  # fmt: skip


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", type=int, default=3)
    ap.add_argument("--disks", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "bench-web.yaml"
        src.write_text(protocol(args.problems, args.disks))
        site = Path(tmp) / "site"
        build_experiment(src, site, WebSettings())
        with StaticServer(site) as server, chromium_browser() as browser:
            results = {}
            for busy in (False, True):
                url = server.url(f"index.html?participant=B{int(busy)}")
                results[busy] = run(browser, url, busy, args.seed)
    print(f"headless Chromium, {args.problems} towers of {args.disks} disks "
          f"({args.problems * (2**args.disks - 1)} moves, two clicks each)")  # fmt: skip
    summary("idle page", results[False])
    summary("busy page (main thread blocked 8 ms of every 16 ms)", results[True])
    a = results[False]["timing"]["input_delay_ms"]["median_ms"]
    b = results[True]["timing"]["input_delay_ms"]["median_ms"]
    if a:
        print(f"median handler delay, busy / idle: {b / a:.1f}x")


if __name__ == "__main__":
    main()

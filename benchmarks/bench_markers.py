"""Event markers and scanner synchronisation: how late, how many lost, and what they cost a frame.

Run with (starts its own Xvfb display when there is none)::

    uv run python benchmarks/bench_markers.py [--problems 3] [--volumes 60]

Markers: the simulated participant plays an 8-disk Tower of Hanoi (``--problems`` times)
through :class:`tol_tasks.runner.TowerTask` with the protocol's ``markers`` section on:
an LSL marker outlet, read by a real inlet in this process, and a serial trigger port,
the slave side of a pseudo-terminal whose master a thread reads. For every row sent as
a marker it reports, against the event's own time (the flip that showed it, or the
press; session clock, mapped to LSL's by the offset the sidecar records):

- ``lsl stamp``: the marker's LSL timestamp minus the event's time (0 by design: the
  marker is stamped with the event's time; the spread is the clock mapping's error);
- ``lsl arrival``: when the inlet had the sample, minus the event's time;
- ``serial write``: when the byte was written (``marker_serial``) minus the event's time;
- ``serial arrival``: when the far end of the port read the byte, minus the event's time;

with the markers lost (in the log, not received) and doubled (received twice), and the
flip rows alone (stamp ``flip``) for the write figures. The same problems are then
played with no markers, and with markers and an eye tracker (ioHub's MouseGaze), and the
per-frame work (flip return to the next flip call) of the three runs is printed side by
side (the frame benchmark's measure).

Scanner: PsychoPy's scanner emulator (``psychopy.hardware.emulator.SyncGenerator``,
the psychopy-mri-emulator plugin) types the trigger every TR (0.5 s) while a session with
a ``scanner.design`` runs six 3-disk problems, first in the process (nothing drawn before
it, as in a scanner session); it reports the trial onsets minus their scheduled times
(the first counted volume plus the design's durations; the first problem's apart) and the
intervals between logged triggers minus the TR.

Xvfb has no vsync, so flips return at once; the machine is shared (2 cores): compare
figures of one run, not runs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import select
import statistics
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

from _child import run_child

HANOI8 = """\
format: 1
name: bench-markers
task: {{type: hanoi, disks: 8}}
instructions: none
display: {{fullscreen: false}}
feedback: none
timing: {{inter_trial_interval: 0}}
{markers}
blocks:
  - problems:
      - {{id: h8, start: AAAAAAAA, goal: CCCCCCCC}}
"""

GAZE = """eyetracking:
  tracker: eyetracker.hw.mouse.EyeTracker
  settings: {runtime_settings: {sampling_rate: 60}, controls: {move: [], blink: [LEFT_BUTTON, RIGHT_BUTTON]}}
  calibrate: false
"""

SCAN = """\
format: 1
name: bench-scan
task: {type: hanoi, disks: 3}
instructions: none
display: {fullscreen: false}
feedback: none
scanner:
  key: "5"
  dummy_volumes: 2
  tr: 0.5
  design: {trial_duration: 1.5, fixation: {min: 0.3, max: 0.6}, lead_in: 0.5, seed: 3}
blocks:
  - problems:
      - {id: s1, start: AAA, goal: CCC}
      - {id: s2, start: AAA, goal: AAB}
      - {id: s3, start: AAA, goal: ACC}
      - {id: s4, start: AAA, goal: BBB}
      - {id: s5, start: AAA, goal: AAC}
      - {id: s6, start: AAA, goal: CAA}
"""


def _ms(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p99 = ordered[max(0, -(-99 * len(ordered) // 100) - 1)]
    return {"n": len(values), "median_ms": 1000 * statistics.median(values),
            "p99_ms": 1000 * p99, "max_ms": 1000 * ordered[-1],
            "min_ms": 1000 * ordered[0]}  # fmt: skip


class _Port:
    """A pseudo-terminal: the slave's path for the task, the master read by a thread."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.got: list[tuple[int, float]] = []
        self.stop = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while not self.stop:
            if select.select([self.master], [], [], 0.05)[0]:
                data, now = os.read(self.master, 256), time.monotonic()
                self.got += [(b, now) for b in data]


def _play(win, text: str, out: Path):
    from tol_tasks.protocol_format import load_protocol_text
    from tol_tasks.runner import TowerTask

    task = TowerTask(win, load_protocol_text(text), participant="BENCH", output=out,
                     simulate=True, seed=1, speed=4, input_timing="polled")  # fmt: skip
    task.run()
    work = list(task.frames.work)
    return task.csv_path, task.json_path, work


def _markers(win, problems: int, tmp: Path) -> dict:
    import pylsl

    from tol_tasks.session_data.detail import parse_detail
    from tol_tasks.session_data.eventlog import read_event_log

    port = _Port()
    received: list[tuple[str, float, float]] = []
    done = threading.Event()

    def inlet():
        found = pylsl.resolve_byprop("name", "bench-markers", timeout=60)
        inl = pylsl.StreamInlet(found[0], max_buflen=360)
        inl.open_stream(timeout=30)
        while not done.is_set() or inl.samples_available():
            sample, ts = inl.pull_sample(timeout=0.05)
            if sample is not None:
                received.append((sample[0], ts, pylsl.local_clock()))

    spec = (f"markers: {{lsl: true, lsl_name: bench-markers, lsl_wait: 60, "
            f"serial: '{port.path}', pulse: 0.002}}")  # fmt: skip
    rows, work_on, work_off, work_gaze = [], [], [], []
    run_of: list[int] = []  # the run of each received sample
    offsets = []
    for k in range(problems):
        reader = threading.Thread(target=inlet, daemon=True)
        first = len(received)
        reader.start()
        log, side, work = _play(win, HANOI8.format(markers=spec), tmp / f"on{k}")
        done.set()
        reader.join(timeout=10)
        done.clear()
        offset = json.loads(Path(side).read_text())["markers"]["lsl_clock_offset"]
        offsets.append(offset)
        rows += [(r, offset, k) for r in read_event_log(log).rows]
        run_of += [k] * (len(received) - first)  # each run's rows are numbered from 1
        work_on += work
        work_off += _play(win, HANOI8.format(markers=""), tmp / f"off{k}")[2]
        # Markers and the eye tracker (ioHub's MouseGaze: the same ioHub work a tracker's
        # plugin does each frame) together, with the LSL stream's recorder connected again.
        before, before_port = len(received), len(port.got)
        reader = threading.Thread(target=inlet, daemon=True)
        reader.start()
        work_gaze += _play(win, HANOI8.format(markers=spec + "\n" + GAZE), tmp / f"gz{k}")[2]
        done.set()
        reader.join(timeout=10)
        done.clear()
        time.sleep(0.1)
        del received[before:]  # that run's markers are not compared with the log
        del port.got[before_port:]
    time.sleep(0.1)
    port.stop = True
    marked = [(r, off, k) for r, off, k in rows if "marker" in parse_detail(r["detail"])]
    got = {}
    for (sample, ts, arrived), k in zip(received, run_of, strict=True):
        key = (k, parse_detail(sample)["row"], parse_detail(sample)["event"])
        got.setdefault(key, []).append((ts, arrived))
    lsl_stamp, lsl_arrival, ser_write, ser_write_flip = [], [], [], []
    lost = doubled = 0
    per_run: list = []
    for r, off, k in marked:
        d, t = parse_detail(r["detail"]), float(r["time"])
        hits = got.pop((k, r["row"], r["event"]), [])
        lost += not hits
        doubled += max(0, len(hits) - 1)
        if hits:
            lsl_stamp.append(hits[0][0] - off - t)
            lsl_arrival.append(hits[0][1] - off - t)
        ser_write.append(float(d["marker_serial"]) - t)
        if r["stamp"] == "flip":
            ser_write_flip.append(float(d["marker_serial"]) - t)
        per_run.append((int(d["marker"]), t, off))
    # The port's bytes in order: the non-zero ones are the codes, one per marker.
    codes = [(b, at) for b, at in port.got if b]
    serial_lost = max(0, len(per_run) - len(codes))
    ser_arrival = [at - off - t for (code, t, off), (b, at) in zip(per_run, codes, strict=False)
                   if code == b]  # fmt: skip
    return {
        "markers": len(marked), "lost": lost, "doubled": doubled, "stray": len(got),
        "serial_bytes": len(codes), "serial_lost": serial_lost,
        "serial_mismatched": len(per_run) - len(ser_arrival) - serial_lost,
        "lsl_stamp": _ms(lsl_stamp), "lsl_arrival": _ms(lsl_arrival),
        "serial_write": _ms(ser_write), "serial_write_flip": _ms(ser_write_flip),
        "serial_arrival": _ms(ser_arrival),
        "work_on": _ms(work_on), "work_off": _ms(work_off), "work_gaze": _ms(work_gaze),
    }  # fmt: skip


def _scanner(win, volumes: int, tmp: Path) -> dict:
    from psychopy import plugins

    from tol_tasks.session_data.detail import parse_detail
    from tol_tasks.session_data.eventlog import read_event_log

    plugins.activatePlugins()
    from psychopy.hardware.emulator import SyncGenerator

    from tol_tasks.protocol_format import load_protocol_text
    from tol_tasks.runner import TowerTask

    task = TowerTask(win, load_protocol_text(SCAN), participant="BENCH", output=tmp / "scan",
                     simulate=True, seed=2, input_timing="polled")  # fmt: skip
    sync = SyncGenerator(TR=0.5, volumes=volumes, sync="5")
    sync.start()
    task.run()
    sync.stop()
    sync.join(timeout=5)
    rows = read_event_log(task.csv_path).rows
    fix = [parse_detail(r["detail"]) for r in rows if r["event"] == "fixation"]
    dues = [float(f["until"]) for f in fix]
    onsets = [float(r["time"]) for r in rows if r["event"] == "trial_onset"]
    errors = [o - d for o, d in zip(onsets, dues, strict=False)]
    trig = [float(parse_detail(r["detail"])["at"]) for r in rows if r["event"] == "trigger"]
    jitter = [abs((b - a) - 0.5) for a, b in itertools.pairwise(trig)]
    return {"trials": len(onsets), "onset_minus_due": _ms(errors),
            "first_onset_minus_due_ms": 1000 * errors[0] if errors else None,
            "triggers": len(trig),
            "trigger_interval_minus_tr": _ms(jitter)}  # fmt: skip


def measure(problems: int, volumes: int, scanner_only: bool = False) -> dict:
    from psychopy import visual

    win = visual.Window(size=(1024, 768), units="height", color="#1e1e1e", checkTiming=False)
    with tempfile.TemporaryDirectory() as tmp:
        # The scanner first: its first problem drawn in a process that has drawn nothing
        # yet, as a scanner session's is (text layouts and textures made then).
        scanner = _scanner(win, volumes, Path(tmp))
        markers = None if scanner_only else _markers(win, problems, Path(tmp))
        out = {"markers": markers, "scanner": scanner}
    win.close()
    return out


def _line(name: str, s: dict) -> str:
    if not s.get("n"):
        return f"  {name:34} (none)"
    return (f"  {name:34} n={s['n']:5d}  median {s['median_ms']:8.3f}  p99 {s['p99_ms']:8.3f}  "
            f"max {s['max_ms']:8.3f} ms")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", type=int, default=3, help="8-disk problems played (3)")
    ap.add_argument("--volumes", type=int, default=60, help="scanner volumes emulated (60)")
    ap.add_argument("--scanner-only", action="store_true",
                    help="the scanner session alone (no markers, no per-frame work)")  # fmt: skip
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.problems, args.volumes, args.scanner_only)))
        return 0
    only = ["--scanner-only"] if args.scanner_only else []
    done = run_child(__file__, "--problems", str(args.problems), "--volumes",
                     str(args.volumes), *only, check=False)  # fmt: skip
    if done.returncode:
        print(done.stderr, file=sys.stderr)
        return 1
    res = json.loads(done.stdout.strip().splitlines()[-1])
    m, s = res["markers"], res["scanner"]
    print(f"load average {os.getloadavg()[0]:.2f}")
    if m is not None:
        print(f"Markers: {m['markers']} sent; LSL lost {m['lost']}, doubled {m['doubled']}, "
              f"stray {m['stray']}; serial bytes {m['serial_bytes']}, lost {m['serial_lost']}, "
              f"out of order {m['serial_mismatched']}")  # fmt: skip
        print(_line("LSL stamp - event time", m["lsl_stamp"]))
        print(_line("LSL arrival at inlet - event time", m["lsl_arrival"]))
        print(_line("serial write - event time (all)", m["serial_write"]))
        print(_line("serial write - flip (flip rows)", m["serial_write_flip"]))
        print(_line("serial arrival at port - event", m["serial_arrival"]))
        print("Per-frame work, same problems, same run:")
        print(_line("markers off", m["work_off"]))
        print(_line("markers on (LSL + serial)", m["work_on"]))
        print(_line("markers + eye tracker (MouseGaze)", m["work_gaze"]))
    print(f"Scanner: {s['triggers']} triggers, {s['trials']} trials; the earliest onset "
          f"{s['onset_minus_due']['min_ms']:.3f} ms from its schedule (at most half a frame "
          "early by design: the next flip is the first at or after it)")  # fmt: skip
    print(_line("trial onset - scheduled onset", s["onset_minus_due"]))
    print(
        f"  the first problem's onset - its scheduled onset: {s['first_onset_minus_due_ms']:.3f} ms"
    )
    print(_line("|trigger interval - TR|", s["trigger_interval_minus_tr"]))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())

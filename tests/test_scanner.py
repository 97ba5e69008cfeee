"""A scanner session: PsychoPy's own scanner emulator types the trigger every TR in a real
window under Xvfb; the log, the design's durations and the BIDS func events are checked
against the raw rows, and the dataset (with a BOLD run as a lab has it) by the official
BIDS validator. A scanner whose trigger arrives on a serial line is played by the far end of
a real pseudo-terminal sending the trigger byte every TR to a real tol-run given
``--trigger-port`` (and a byte of another value between some of them, as a trigger box's
other lines send): every trigger byte logged once, in order, the other bytes not counted,
the onsets run from the first counted volume."""

from __future__ import annotations

import itertools
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.neuro_tools import SerialScanner, write_bold
from tests.runner_tools import (
    exe,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
)
from tests.warm import warm
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import read_event_log

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).parent / "data" / "experiments" / "scanner_session.py"
TR, DUMMIES, VOLUMES = 0.5, 2, 60
DESIGN = {"trial_duration": 2.0, "fixation": {"min": 0.5, "max": 1.0}, "lead_in": 1.0, "seed": 7}


def _scan_protocol(name: str, scanner: str, goals: str) -> str:
    """A windowed 3-disk Hanoi protocol with the ``scanner`` section's lines, one problem from
    AAA to each of ``goals`` (p1, p2, ...)."""
    problems = "".join(f"      - {{id: p{i}, start: AAA, goal: {g}}}\n"
                       for i, g in enumerate(goals.split(), start=1))  # fmt: skip
    return (f"format: 1\nname: {name}\ntask: {{type: hanoi, disks: 3}}\ninstructions: none\n"
            "display: {fullscreen: false, window_size: [800, 600]}\nfeedback: none\n"
            "timing: {inter_trial_interval: 0, feedback_duration: 0}\nscanner:\n"
            + "".join(f"  {line}\n" for line in scanner.splitlines())
            + "blocks:\n  - problems:\n" + problems)  # fmt: skip


PROTOCOL = _scan_protocol(
    "scan-test",
    f"""trigger: key
key: "5"
dummy_volumes: {DUMMIES}
tr: {TR}
design: {json.dumps(DESIGN)}""",
    "AAB CCC AAC",
)


@pytest.fixture(scope="module")
def scan(xdisplay, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scan")
    (root / "scan.yaml").write_text(PROTOCOL)
    done = subprocess.run(
        warm([sys.executable, str(SCRIPT), str(root / "scan.yaml"), str(root / "data"),
              str(TR), str(VOLUMES), "--simulate"], xdisplay),
        env=xdisplay, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root / "data"


def _rows(folder: Path) -> list[dict]:
    return read_event_log(session_files(folder)[0]).rows


def test_every_trigger_is_logged_and_the_scan_starts_after_the_dummy_volumes(scan):
    rows = _rows(scan)
    triggers = [r for r in rows if r["event"] == "trigger"]
    volumes = [int(parse_detail(r["detail"])["volume"]) for r in triggers]
    assert volumes == list(range(1, len(triggers) + 1))  # none lost, none twice
    dummies = [parse_detail(r["detail"])["dummy"] for r in triggers]
    assert dummies == ["True"] * DUMMIES + ["False"] * (len(triggers) - DUMMIES)
    times = [float(parse_detail(r["detail"])["at"]) for r in triggers]  # the triggers' own
    assert all(float(r["time"]) >= t for r, t in zip(triggers, times, strict=True))  # seen after
    # None missed: every trigger the emulator typed up to the last one logged is logged, each
    # stamped after it was typed (a loaded machine delays the emulator's thread, and it then
    # types the late ones in a burst: their spacing is not checked here).
    emitted = json.loads((scan.parent / "emitted.json").read_text())
    # (1 ms: the log writes microseconds of a time converted from PsychoPy's clock; TR 0.5 s)
    assert len(triggers) == sum(e <= times[-1] + 1e-3 for e in emitted)
    assert all(t >= e - 1e-3 for t, e in zip(times, emitted, strict=False))
    assert {r["input"] for r in triggers} == {"scanner"}
    start = [r for r in rows if r["event"] == "scan_start"]
    assert len(start) == 1
    assert start[0]["time"] == triggers[DUMMIES]["time"]
    onsets = [r for r in rows if r["event"] == "trial_onset"]
    assert all(float(r["time"]) > times[DUMMIES] for r in onsets)
    side = json.loads(session_files(scan)[1].read_text())["scanner"]
    assert side["volumes"] == len(triggers)
    # A trigger is "missed" where two come over 1.5 TR apart (the codebook's definition): none
    # was lost above, but a loaded machine can keep the emulator from typing one in time (a
    # loop failed with 1). Counted here from the rows' own trigger times.
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert side["missed_triggers"] == sum(round(g / TR) - 1 for g in gaps if g > 1.5 * TR)
    assert side["start"] == pytest.approx(times[DUMMIES], abs=1e-5)


def test_the_design_holds_each_slot_to_the_first_counted_volume(scan):
    rows = _rows(scan)
    zero = float(next(parse_detail(r["detail"])["at"] for r in rows if r["event"] == "scan_start"))
    # The fixations drawn from the seed, computed here: uniform between min and max.
    rng = random.Random(DESIGN["seed"])
    drawn = [round(rng.uniform(0.5, 1.0), 3) for _ in range(3)]
    due, expected = zero + DESIGN["lead_in"], []
    for fix in drawn:
        expected.append(due)
        due += DESIGN["trial_duration"] + fix
    slot_ends = [*expected[1:], due]
    tests = [r for r in rows if r["event"] == "trial_onset" and r["block"] == "test"]
    onsets = [float(r["time"]) for r in tests]
    fixations = [parse_detail(r["detail"]) for r in rows if r["event"] == "fixation"]
    assert [float(f["drawn"]) for f in fixations if "drawn" in f] == drawn
    side = json.loads(session_files(scan)[1].read_text())["scanner"]["design"]
    assert side["fixations"] == drawn
    assert side["seed"] == DESIGN["seed"]
    refresh = json.loads(session_files(scan)[1].read_text())["refresh_rate_hz"]
    half = 0.5 / refresh if refresh else 1 / 120
    # The schedule is the first count's, not each trial's (no drift): every fixation is held
    # until a scheduled onset computed here (written to the millisecond), the one after each
    # problem until its slot's end.
    assert [float(f["until"]) for f in fixations if "drawn" in f] == pytest.approx(
        slot_ends, abs=6e-4
    )
    dues = expected + slot_ends  # the lead-in's fixation too
    assert all(any(abs(float(f["until"]) - d) < 6e-4 for d in dues) for f in fixations)
    for onset, due, end in zip(onsets, expected, slot_ends, strict=True):
        assert onset >= due - half  # never shown early
        # and in its own slot (how late, in milliseconds, is bench_markers' figure: a bound
        # here failed at load 15-60, 0.31 s late)
        assert onset < end
    ends = [r for r in rows if r["event"] == "trial_end" and r["block"] == "test"]
    for end in ends:  # each problem held to the design's duration (a time limit of 2 s)
        assert end["reason"] in ("solved", "time_out")
        if end["reason"] == "time_out":
            assert float(end["trial_time"]) >= DESIGN["trial_duration"]


@pytest.mark.slow
def test_a_slow_disk_does_not_hold_the_first_problem_due_at_the_scans_start(xdisplay, tmp_path):
    """With no lead-in the first problem is due at the first counted volume, when the
    sidecar is saved with the scan's start: on a disk whose every sync takes a second, the
    save waits and the problem does not (before, it came over a second late). The sidecar
    holds the scan, and no temporary file is left."""
    sync = 1.0
    (tmp_path / "scan.yaml").write_text(_scan_protocol("scan-slow-disk", f"""trigger: key
key: "5"
dummy_volumes: {DUMMIES}
tr: {TR}
design: {{trial_duration: 2.0, fixation: 0.5, lead_in: 0}}""", "AAB CCC"))  # fmt: skip
    done = subprocess.run(  # every fsync of the session's process a second late
        [sys.executable, "-m", "tests.slow_disk", str(int(sync * 1000)), str(SCRIPT),
         str(tmp_path / "scan.yaml"), str(tmp_path / "data"), str(TR), str(VOLUMES), "--simulate"],
        env=xdisplay, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = _rows(tmp_path / "data")
    zero = float(next(parse_detail(r["detail"])["at"] for r in rows if r["event"] == "scan_start"))
    first = next(float(r["time"]) for r in rows if r["event"] == "trial_onset")
    assert zero <= first < zero + sync / 2, (zero, first)  # a frame late when idle
    side = json.loads(session_files(tmp_path / "data")[1].read_text())["scanner"]
    assert side["start"] == pytest.approx(zero, abs=1e-5)
    assert not list((tmp_path / "data").glob("*.tmp"))


def _func_events(data: Path, out: Path, participant: str, task: str) -> pd.DataFrame:
    """tol-score --bids of the session in ``data``: its func events, whose problem onsets are
    checked against the raw rows (each test problem's onset less the first counted volume's
    time) and never before the scan's start."""
    done = tol_score(str(data), "--output", str(out), "--bids", "--bids-include-simulated")
    assert done.returncode == 0, done.stderr
    func = out / "bids" / f"sub-{participant}" / "ses-1" / "func"
    events = pd.read_csv(func / f"sub-{participant}_ses-1_task-{task}_events.tsv", sep="\t",
                         keep_default_na=False, dtype=str)  # fmt: skip
    rows = _rows(data)
    zero = float(next(parse_detail(r["detail"])["at"] for r in rows if r["event"] == "scan_start"))
    onsets = [float(r["time"]) - zero for r in rows
              if r["event"] == "trial_onset" and r["block"] == "test"]  # fmt: skip
    problems = events[events["trial_type"] == "problem"]
    assert [float(v) for v in problems["onset"]] == pytest.approx(onsets, abs=1e-6)
    assert (events["onset"].astype(float) >= 0).all()
    return events


def test_bids_func_events_line_up_with_the_first_volume_and_validate(scan, tmp_path):
    out = tmp_path / "scored"
    events = _func_events(scan, out, "P001", "scantest")
    bids = out / "bids"
    func = bids / "sub-P001" / "ses-1" / "func"
    rows = _rows(scan)
    problems = events[events["trial_type"] == "problem"]
    assert list(problems["problem_id"]) == ["p1", "p2", "p3"]
    assert (events["trial_type"] == "fixation").sum() == 4  # the lead-in and three slots
    # The BOLD run as the lab has it: as many volumes as were counted.
    counted = sum(1 for r in rows if r["event"] == "trigger") - DUMMIES
    write_bold(func / "sub-P001_ses-1_task-scantest_bold.nii.gz", counted, TR, "scan-test")
    report = subprocess.run([exe("bids-validator-deno"), str(bids), "--format", "json"],
                            capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    issues = json.loads(report.stdout)["issues"]["issues"]
    assert [i for i in issues if i["severity"] == "error"] == []


# --- The trigger on a serial line ----------------------------------------------------

SERIAL_TR, SERIAL_DUMMIES, TRIGGER, OTHER = 0.4, 3, 0x35, 0x07
SERIAL_PROTOCOL = _scan_protocol(
    "scan-serial",
    f"""trigger: serial
port: /dev/no-such-port
byte: {TRIGGER}
baudrate: 9600
dummy_volumes: {SERIAL_DUMMIES}
tr: {SERIAL_TR}
design: {{trial_duration: 1.5, fixation: 0.5, lead_in: 0.5}}""",
    "AAB AAC",
)


def _serial_session(root: Path, xdisplay: dict, steps: tuple[tuple[int, str], ...] = ()):
    """A serial scanner session: the log's folder, the triggers sent and their times.

    ``steps``: (triggers sent, offset) pairs: once that many triggers are sent, the
    session's wall clock is set to ``offset`` from the real one (libfaketime's offset, e.g.
    ``+30``), as NTP or a resumed virtual machine steps a computer's time; the sender's
    times (``time.monotonic``) are the real ones."""
    (root / "scan.yaml").write_text(SERIAL_PROTOCOL)
    out = root / "data"
    env = xdisplay
    offset = root / "wall-clock-offset"
    if steps:
        import libfaketime

        offset.write_text("+0\n")
        _, preload = libfaketime.get_reload_information()
        env = {**xdisplay, **preload, "FAKETIME_TIMESTAMP_FILE": str(offset),
               "FAKETIME_NO_CACHE": "1"}  # fmt: skip
    scanner = SerialScanner(TRIGGER, OTHER, SERIAL_TR)
    try:
        with running_tol_run(str(root / "scan.yaml"), "--participant", "P1", "--windowed",
                             "--output", str(out), "--simulate", "--speed", "4",
                             "--trigger-port", scanner.path, env=env) as proc:  # fmt: skip
            # The operator starts the scan once the task waits for it (its block has begun).
            wait_for_rows(out, lambda rows: any(r["event"] == "block_start" for r in rows),
                          timeout=120, proc=proc)  # fmt: skip
            scanner.start()
            for sent, step in steps:
                while len(scanner.sent) < sent and proc.poll() is None:
                    time.sleep(0.02)
                offset.write_text(f"{step}\n")
            # The last trigger goes out as the last problem is shown: the session reads the
            # line for at least a slot after it (the problem, then its fixation).
            wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" and r["problem_id"]
                          == "p2" and r["block"] == "test" for r in rows), timeout=120,
                          proc=proc)  # fmt: skip
            sent = scanner.stop()
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
    finally:
        scanner.close()
    return out, sent, scanner.sent


@pytest.fixture(scope="module")
def serial_scan(xdisplay, tmp_path_factory):
    return _serial_session(tmp_path_factory.mktemp("scan-serial"), xdisplay)


#: Less than the smallest change of the computer's time these tests make (20 s).
_A_CLOCK_STEP = 5.0


def _every_trigger_once_in_rhythm(out: Path, sent: int, sent_at: list[float]) -> None:
    """Every trigger byte sent is logged once, in order, each at its own arrival: the
    triggers' times keep the sender's rhythm, and the sidecar's clock_zero_monotonic maps
    each onto the moment it was sent (both on the system's monotonic clock)."""
    triggers = [r for r in _rows(out) if r["event"] == "trigger"]
    details = [parse_detail(r["detail"]) for r in triggers]
    assert [int(d["volume"]) for d in details] == list(range(1, sent + 1))  # none lost or twice
    assert {d["at_stamp"] for d in details} == {"arrival"}
    assert [d["dummy"] for d in details] == ["True"] * SERIAL_DUMMIES + ["False"] * (
        sent - SERIAL_DUMMIES
    )
    at = [float(d["at"]) for d in details]
    assert at == sorted(at)
    assert all(float(r["time"]) >= t for r, t in zip(triggers, at, strict=True))  # seen after
    # The arrival times keep the scanner's rhythm: the typical gap is the sender's gap (bytes
    # stamped in batches, or on a clock that steps, break it), and none is off by a clock
    # step (the steps of these tests are 20 and 30 s). How late one byte may be read is
    # bench_markers' figure, not this test's: at a load of 16-24 on 2 cores a reader thread
    # (or the sender, a thread of this test) was seen 0.22 s, once 0.72 s, late.
    gaps = [abs((b - a) - (sb - sa))
            for (a, b), (sa, sb) in zip(itertools.pairwise(at), itertools.pairwise(sent_at), strict=True)]  # fmt: skip
    assert statistics.median(gaps) < SERIAL_TR / 2
    assert max(gaps) < _A_CLOCK_STEP
    zero = sidecar_of(out)["timing"]["clock_zero_monotonic"]
    offsets = [abs(t + zero - s) for t, s in zip(at, sent_at, strict=True)]
    assert statistics.median(offsets) < SERIAL_TR
    assert max(offsets) < _A_CLOCK_STEP
    side = sidecar_of(out)["scanner"]
    assert side["trigger"] == "serial"
    assert side["stamp"] == "arrival"
    assert side["volumes"] == sent
    # A missed volume is a gap over 1.5 TR (the sender, a thread of this loaded test, may
    # itself be late): counted here from the logged arrival times.
    gaps = [b - a for a, b in itertools.pairwise(at)]
    assert side["missed_triggers"] == sum(
        round(g / SERIAL_TR) - 1 for g in gaps if g > 1.5 * SERIAL_TR
    )


@pytest.mark.slow
def test_every_trigger_byte_is_logged_once_in_order_and_other_bytes_are_not(serial_scan):
    _every_trigger_once_in_rhythm(*serial_scan)


@pytest.mark.slow
def test_a_change_of_the_computers_time_mid_scan_moves_no_trigger(xdisplay, tmp_path):
    """The wall clock stepped 30 s forward during the dummy volumes, then 20 s back during
    the first problem (NTP, a resumed virtual machine): the session's times do not move.
    PsychoPy's clock is the wall clock on Linux (Psychtoolbox's GetSecs); on it, the
    triggers after the first step were logged 30 s late."""
    out, sent, sent_at = _serial_session(tmp_path, xdisplay, steps=((2, "+30"), (6, "+10")))
    _every_trigger_once_in_rhythm(out, sent, sent_at)
    rows = _rows(out)
    onsets = [
        float(r["time"]) for r in rows if r["event"] == "trial_onset" and r["block"] == "test"
    ]
    zero = float(parse_detail(next(r for r in rows if r["event"] == "scan_start")["detail"])["at"])
    # The design's slots on the session clock, which is real time (the slot is 2 s, the
    # steps 30 and 20 s).
    assert zero + 0.5 - 1 / 60 <= onsets[0] < zero + 0.5 + 5
    assert zero + 2.5 - 1 / 60 <= onsets[1] < zero + 2.5 + 5


@pytest.mark.slow
def test_the_scan_starts_at_the_first_counted_volume_and_the_design_follows_it(serial_scan):
    out, _, _ = serial_scan
    rows = _rows(out)
    triggers = [parse_detail(r["detail"]) for r in rows if r["event"] == "trigger"]
    start = [r for r in rows if r["event"] == "scan_start"]
    assert len(start) == 1
    zero = float(parse_detail(start[0]["detail"])["at"])
    assert zero == float(triggers[SERIAL_DUMMIES]["at"])
    assert sidecar_of(out)["scanner"]["start"] == pytest.approx(zero, abs=1e-5)
    onsets = [
        float(r["time"]) for r in rows if r["event"] == "trial_onset" and r["block"] == "test"
    ]
    assert len(onsets) == 2
    assert onsets[0] >= zero + 0.5 - 1 / 60  # the lead-in, never early (half a frame)
    assert onsets[1] >= zero + 0.5 + 1.5 + 0.5 - 1 / 60  # the first slot and its fixation
    assert onsets[0] < onsets[1]


@pytest.mark.slow
def test_bids_func_onsets_run_from_the_first_counted_volume(serial_scan, tmp_path):
    out, _, _ = serial_scan
    events = _func_events(out, tmp_path / "scored", "P1", "scanserial")
    assert list(events[events["trial_type"] == "problem"]["problem_id"]) == ["p1", "p2"]
    meta = json.loads((tmp_path / "scored" / "bids" / "task-scanserial_events.json").read_text())
    assert "first counted volume" in meta["onset"]["Description"]


class _Clock:
    def __init__(self, now: float):
        self.now = now

    def getTime(self) -> float:  # noqa: N802 - PsychoPy's name
        return self.now


class _Arrived:
    """The participant's input as the runner's sources hand it: events stamped on arrival,
    read at the next frame (so before the frame's own time)."""

    method = "test"

    def __init__(self, events):
        self.events = events

    def poll(self):
        events, self.events = self.events, []
        return events


class _Triggers:
    stamp = "arrival"

    def __init__(self, clock, times):
        self.clock, self.times = clock, times

    def poll(self):
        times, self.times = self.times, []
        return times


def test_a_trigger_and_a_press_in_one_frame_keep_the_log_in_time_order(xdisplay, monkeypatch):
    # The scanner's trigger at 10.000 s and a click at 10.002 s, both read at the frame of
    # 10.016 s: the trigger's row is written first (the tap), the click's after it; its
    # time must not be later than the click's (tol-score refuses a log whose times go back).
    monkeypatch.setenv("DISPLAY", xdisplay["DISPLAY"])  # PsychoPy's import wants one
    from tol_tasks.protocol_format.neuro import Scanner
    from tol_tasks.runner.events import InputEvent
    from tol_tasks.runner.scanner import ScanClock, TappedInput

    clock = _Clock(10.016)
    rows = []
    scan = ScanClock(Scanner(trigger="key", key="5", dummy_volumes=0), _Triggers(clock, [10.0]),
                     lambda event, **v: rows.append((event, v["time"])))  # fmt: skip
    press = InputEvent("press", 10.002, 100, 100, stamp="arrival")
    tapped = TappedInput(_Arrived([press]), [scan])
    for ev in tapped.poll():  # the caller writes the events' rows after the poll
        rows.append((ev.kind, ev.t))
    assert [name for name, _ in rows] == ["trigger", "scan_start", "press"]
    times = [t for _, t in rows]
    assert times == sorted(times), rows
    assert times[0] >= 10.0  # no earlier than the trigger itself

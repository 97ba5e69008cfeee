"""Event markers out: a real tol-run session played with real keys (xdotool), its markers
received by a real LSL inlet on this machine and its byte codes by the other end of a real
pseudo-terminal (the serial trigger port), checked against the log's rows and times."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

import pandas as pd
import pylsl
import pytest

from tests.neuro_tools import PortReader, keys_protocol, write_brainvision
from tests.runner_tools import (
    exe,
    key_over_window,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
)
from tol_tasks.session_data.detail import parse_detail
from tol_tasks.session_data.eventlog import codebook, read_event_log

PROTOCOL = keys_protocol(
    "marker-test",
    """\
markers: {lsl: true, lsl_name: tol-marker-test, lsl_wait: 60, pulse: 0.005,
          codes: {place: 99}}
blocks:
  - problems:
      - {id: p1, start: AAA, goal: AAB}
      - {id: p2, start: AAA, goal: AAC}
""",
)


def _pull_all(inlet, until) -> list[tuple[str, float]]:
    out = []
    while True:
        sample, ts = inlet.pull_sample(timeout=0.2)
        if sample is not None:
            out.append((sample[0], ts))
        elif until():
            return out


@pytest.fixture(scope="module")
def session(xdisplay, tmp_path_factory):
    root = tmp_path_factory.mktemp("markers")
    # A stream name of this fixture's own: another worker's session (the module's fixture on
    # another xdist worker) must not be the stream this one reads.
    name = f"tol-marker-test-{os.getpid()}"
    (root / "markers.yaml").write_text(PROTOCOL.replace("tol-marker-test", name))
    out = root / "data"
    port = PortReader()
    try:
        with running_tol_run(str(root / "markers.yaml"), "--participant", "P1", "--windowed",
                             "--output", str(out), "--marker-port", port.path,
                             env=xdisplay) as proc:  # fmt: skip
            found = pylsl.resolve_byprop("name", name, timeout=60)
            assert found, "no LSL marker stream"
            inlet = pylsl.StreamInlet(found[0], max_buflen=60)
            inlet.open_stream(timeout=30)  # the session waits for it (lsl_wait)
            samples: list = []
            puller = threading.Thread(
                target=lambda: samples.extend(_pull_all(inlet, lambda: proc.poll() is not None)),
                daemon=True,
            )
            puller.start()
            for pid, keys in (("p1", "12"), ("p2", "13")):
                wait_for_rows(out, lambda rows, p=pid: any(
                    r["event"] == "trial_onset" and r["problem_id"] == p for r in rows), proc=proc)  # fmt: skip
                time.sleep(0.3)
                for k in keys:
                    key_over_window(out, k, xdisplay)
                    time.sleep(0.3)
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            puller.join(timeout=10)
            time.sleep(0.2)  # the last reset byte
    finally:
        port.close()
    return out, samples, port.bytes


def test_every_event_with_a_code_reaches_the_lsl_inlet_once_at_its_time(session):
    out, samples, _ = session
    rows = read_event_log(session_files(out)[0]).rows
    marked = [r for r in rows if "marker" in parse_detail(r["detail"])]
    codes = {**codebook()["marker_codes"], "place": 99}  # the protocol replaces place's code
    expected = [r for r in rows if r["event"] in codes]
    assert marked == expected  # every event with a code, and only those, was sent
    got = [parse_detail(s) for s, _ in samples]
    assert [int(g["row"]) for g in got] == [int(r["row"]) for r in marked]  # none lost or twice
    assert [g["event"] for g in got] == [r["event"] for r in marked]
    assert [int(g["code"]) for g in got] == [codes[r["event"]] for r in marked]
    offset = sidecar_of(out)["markers"]["lsl_clock_offset"]
    for (_, ts), r in zip(samples, marked, strict=True):
        d = parse_detail(r["detail"])
        assert ts == pytest.approx(float(d["marker_lsl"]), abs=2e-6)  # the log has its stamp
        assert ts - offset == pytest.approx(float(r["time"]), abs=2e-6)  # the event's own time
    assert sidecar_of(out)["markers"]["sent"] == len(marked)


def test_every_code_reaches_the_serial_port_in_order_after_its_row(session):
    out, _, port_bytes = session
    rows = read_event_log(session_files(out)[0]).rows
    marked = [r for r in rows if "marker" in parse_detail(r["detail"])]
    sent = [b for b, _ in port_bytes if b != 0]
    assert sent == [int(parse_detail(r["detail"])["marker"]) for r in marked]
    assert 99 in sent  # the protocol's code for place
    assert port_bytes[-1][0] == 0  # the line is left at rest
    # LSL's clock is the monotonic clock here (time.monotonic): its offset maps to the session's.
    offset = sidecar_of(out)["markers"]["lsl_clock_offset"]
    arrivals = [t - offset for b, t in port_bytes if b != 0]
    for t, r in zip(arrivals, marked, strict=True):
        assert t >= float(r["time"])  # never before its event
        assert t >= float(parse_detail(r["detail"])["marker_serial"])  # nor its write


def test_bids_eeg_events_carry_the_codes_from_the_first_marker_and_validate(session, tmp_path):
    out, _, _ = session
    scored = tmp_path / "scored"
    done = tol_score(str(out), "--output", str(scored), "--bids")
    assert done.returncode == 0, done.stderr
    eeg = scored / "bids" / "sub-P1" / "ses-1" / "eeg"
    events = pd.read_csv(eeg / "sub-P1_ses-1_task-markertest_events.tsv", sep="\t",
                         keep_default_na=False, dtype=str)  # fmt: skip
    rows = read_event_log(session_files(out)[0]).rows
    marked = [r for r in rows if "marker" in parse_detail(r["detail"])]
    zero = float(marked[0]["time"])  # the session_start marker
    problems = events[events["trial_type"] == "problem"]
    onsets = [float(r["time"]) - zero for r in marked if r["event"] == "trial_onset"]
    assert [float(v) for v in problems["onset"]] == pytest.approx(onsets, abs=1e-6)
    assert list(problems["value"]) == ["10", "10"]
    places = events[events["trial_type"] == "place"]
    assert list(places["value"]) == ["99", "99"]
    assert list(places["to_peg"]) == ["B", "C"]
    # The recording as the lab has it: a BrainVision file with the same markers.
    codes = [(float(r["time"]) - zero, int(parse_detail(r["detail"])["marker"])) for r in marked]
    write_brainvision(eeg / "sub-P1_ses-1_task-markertest", codes[-1][0] + 1, 250, codes,
                      "marker-test")  # fmt: skip
    report = subprocess.run([exe("bids-validator-deno"), str(scored / "bids"), "--format",
                             "json"], capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    issues = json.loads(report.stdout)["issues"]["issues"]
    assert [i for i in issues if i["severity"] == "error"] == []

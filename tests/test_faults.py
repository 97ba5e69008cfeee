"""Faults a lab meets: crashes at any moment, resumes, a full disk, a changed protocol.

The kill test prints its figures (kills, sessions, rows checked, rows lost);
run it with ``-s`` to see them.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner_tools import (
    copy_session,
    exe,
    session_files,
    start_xvfb,
    tol_run,
    tol_score,
    wait_for_rows,
)
from tol_analysis.read.logs import find_logs, read_session
from tol_analysis.score.scores import score_sessions
from tol_tasks.protocol_format import bundled_protocols
from tol_tasks.session_data.eventlog import never_started, read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

PROTOCOL = "london-tol-dx"
SIM = ["--simulate", "--seed", "7", "--speed", "30", "--windowed"]
FAST = ["--simulate", "--seed", "7", "--speed", "60", "--windowed"]
KILLS = 50


def _moves_by_attempt(rows: list[dict]) -> dict:
    """(block, problem, attempt) -> placements of the attempt that ended, in order."""
    out, current = {}, {}
    for r in rows:
        key = (r["block"], r["problem_id"], r["attempt"])
        if r["event"] == "trial_onset":
            current[key] = []
        elif r["event"] == "place":
            current[key].append((r["piece"], r["from_peg"], r["to_peg"], r["state"]))
        elif r["event"] == "trial_end":
            out[key] = current.pop(key)
    return out


def _check_log(log: Path) -> list[dict]:
    data = read_event_log(log)
    assert all("torn last line" in w for w in data.warnings), data.warnings
    rows = data.rows
    assert [int(r["row"]) for r in rows] == list(range(1, len(rows) + 1)), "a row was lost"
    return rows


def _logs(folder: Path) -> tuple[list[Path], list[Path]]:
    """The folder's event logs that started, and those that never started (kept)."""
    found = sorted(folder.glob("*.csv")) if folder.exists() else []
    return [f for f in found if not never_started(f)], [f for f in found if never_started(f)]


@pytest.mark.slow
def test_kill_9_at_random_points_then_resume(xdisplay, tmp_path):
    # The kill instants are drawn over a whole run, from the command to its exit: the
    # start-up (PsychoPy, the window, the input, the first files), the session and its end.
    # Without its time limits: a loaded machine's stall, times the simulated participant's
    # speed, would end a problem by its time, not by its moves (this test is about the rows).
    text = bundled_protocols()[PROTOCOL].read_text(encoding="utf-8")
    proto = tmp_path / "dx.yaml"
    proto.write_text("".join(ln for ln in text.splitlines(keepends=True)
                             if not ln.lstrip().startswith("time_limit:")))  # fmt: skip
    ref_dir = tmp_path / "reference"
    t0 = time.monotonic()
    done = tol_run(str(proto), *FAST, "--participant", "R", "--output", str(ref_dir), env=xdisplay)
    whole = time.monotonic() - t0
    assert done.returncode == 0, done.stderr
    reference = _moves_by_attempt(read_event_log(session_files(ref_dir)[0]).rows)

    rng = random.Random(2026)
    kills = sessions = rows_checked = torn = restarts = 0
    in_startup = 0
    times_ok = True
    while kills < KILLS:
        sessions += 1
        out = tmp_path / f"s{sessions}"
        start = [str(proto), *FAST, "--participant", "K", "--output", str(out)]
        args = start
        while True:
            started, _ = _logs(out)
            before = len(_check_log(started[0])) if started else 0
            proc = subprocess.Popen([exe("tol-run"), *args], env=xdisplay,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
            killed = False
            try:
                if kills < KILLS:
                    time.sleep(rng.uniform(0.0, whole * 1.1))
                    if proc.poll() is None:
                        os.kill(proc.pid, signal.SIGKILL)
                        killed = True
                        kills += 1
                _, err = proc.communicate(timeout=120)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            assert b"Traceback" not in err, err
            started, _ = _logs(out)
            if not started:  # cut off before its first event: nothing, or a log never started
                assert killed, err
                in_startup += 1
                restarts += 1
                args = start  # started again with the same command: nothing blocks it
                continue
            (log,) = started  # one session, one log: a restart never made a second
            side = log.with_suffix(".json")
            assert side.is_file()  # a log with an event always has its sidecar
            torn += bool(read_event_log(log).warnings)
            rows = _check_log(log)
            in_startup += killed and len(rows) == before
            rows_checked += len(rows)
            times = [float(r["time"]) for r in rows if r["time"]]
            times_ok &= times == sorted(times)
            score_sessions([read_session(log)])  # the analysis reads every cut-off log
            if not killed:
                assert proc.returncode == 0, err
                break
            if read_sidecar(side)["status"] == "completed":
                break  # killed after the session had ended, while the window closed
            args = ["--resume", str(log), *FAST]
        (log,), never = _logs(out)
        rows = _check_log(log)
        assert read_sidecar(log.with_suffix(".json"))["status"] == "completed"
        assert _moves_by_attempt(rows) == reference  # exactly the moves of an uninterrupted run
        assert len(score_sessions([read_session(p) for p in find_logs([out])]).sessions) == 1
        verified = tol_score("--verify", str(out))
        assert verified.returncode == 0, verified.stdout
        assert "verify: 1 log(s) OK, 0 problem(s), 0 incomplete session(s)" in verified.stdout
        assert verified.stdout.count("never started") == len(never)
    assert times_ok, "event times went backwards after a resume"
    assert in_startup >= 3  # the start-up was hit, not only the middle
    print(f"\nfault injection: {kills} SIGKILLs over {sessions} sessions ({in_startup} before "
          f"the first new row, {restarts} restarts), {rows_checked} rows checked after kills, "
          f"{torn} torn last lines, 0 rows lost")  # fmt: skip


def _short_session(tmp_path: Path, env: dict) -> tuple[Path, Path]:
    """A session killed just after its first move, on a protocol file of its own."""
    proto = tmp_path / "mine.yaml"
    proto.write_text((Path(__file__).parents[1] / "protocols" / "demo.yaml").read_text())
    out = tmp_path / "data"
    proc = subprocess.Popen([exe("tol-run"), str(proto), "--simulate", "--speed", "2", "--windowed",
                             "--output", str(out)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for_rows(out, lambda rows: any(r["event"] == "place" for r in rows), proc=proc)
    finally:
        proc.kill()
        proc.wait()
    return proto, session_files(out)[0]


def _resume_to_the_end(log: Path, env: dict) -> None:
    """``tol-run --resume LOG`` with the simulated participant: the session completes, and
    the participant is not dropped into a running problem: a "ready" screen comes first."""
    resumed = tol_run("--resume", str(log), *SIM, env=env)
    assert resumed.returncode == 0, resumed.stderr
    rows = _check_log(log)
    assert rows[-1]["reason"] == "completed"
    at = next(i for i, r in enumerate(rows) if r["event"] == "resume")
    assert [(r["event"], r["problem_id"], r["stamp"]) for r in rows[at + 1 : at + 3]] == [
        ("page_shown", "resume-ready", "flip"), ("page_left", "resume-ready", "polled")]  # fmt: skip
    assert float(rows[at + 3]["time"]) >= float(rows[at + 2]["time"])


def test_resume_refuses_a_changed_protocol_unless_forced(xdisplay, tmp_path):
    proto, log = _short_session(tmp_path, xdisplay)
    proto.write_text(proto.read_text().replace('version: "1.0"', 'version: "1.1"'))
    refused = tol_run("--resume", str(log), *SIM, env=xdisplay)
    assert refused.returncode == 2
    assert "changed since the session started" in refused.stderr
    assert "pass --force" in refused.stderr
    assert "Traceback" not in refused.stderr
    forced = tol_run("--resume", str(log), *SIM, "--force", env=xdisplay)
    assert forced.returncode == 0, forced.stderr
    rows = _check_log(log)
    resume = next(r for r in rows if r["event"] == "resume")
    assert "changed protocol" in resume["detail"]
    assert rows[-1]["reason"] == "completed"


@pytest.mark.slow
def test_resume_without_the_protocol_file_uses_the_sidecar_copy(xdisplay, tmp_path):
    proto, log = _short_session(tmp_path, xdisplay)
    proto.unlink()
    done = tol_run("--resume", str(log), *SIM, env=xdisplay)
    assert done.returncode == 0, done.stderr
    meta = read_sidecar(log.with_suffix(".json"))
    assert "resumed with the copy kept in the sidecar" in meta["resumes"][0]["note"]
    rows = _check_log(log)
    interrupted = meta["resumes"][0]["interrupted"]
    assert interrupted[1] == "demo-1"
    scores = score_sessions([read_session(log)])
    t = scores.trials
    assert t["problem_id"].tolist() == ["demo-1", "demo-1", "demo-2", "demo-3"]
    assert t["complete"].tolist() == [False, True, True, True]  # the cut-off attempt is marked
    assert rows[-1]["event"] == "session_end"


def test_resume_refuses_what_cannot_be_resumed(tmp_path):
    missing = tol_run("--resume", str(tmp_path / "none.csv"))
    assert missing.returncode == 2
    assert "no such event log" in missing.stderr
    log = tmp_path / "x.csv"
    log.write_text("row\n")
    no_sidecar = tol_run("--resume", str(log))
    assert no_sidecar.returncode == 2
    assert "the sidecar is missing or damaged" in no_sidecar.stderr


def _file_limit(limit: int):
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return preexec


def test_a_full_disk_is_reported_and_nothing_written_is_lost(xdisplay, tmp_path):
    # RLIMIT_FSIZE stands in for a full disk: writes past 12,000 bytes fail with EFBIG
    # (the sidecar stays under it, the event log of this protocol does not).
    out = tmp_path / "data"
    done = subprocess.run([exe("tol-run"), "hanoi-classic", *SIM, "--output", str(out)], env=xdisplay,
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_file_limit(12000), check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "could not be written (File too large)" in done.stderr
    assert "tol-run --resume" in done.stderr
    assert "Traceback" not in done.stderr
    log, side = session_files(out)
    rows = _check_log(log)
    assert len(rows) > 10
    meta = read_sidecar(side)
    assert meta["status"] == "crashed"
    assert "File too large" in meta["error"]
    assert meta["rows_written"] == len(rows)
    # With room again, the session continues where it stopped.
    _resume_to_the_end(log, xdisplay)


def test_an_unwritable_output_folder_is_refused_before_the_window(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    done = tol_run("demo", "--participant", "P1", "--output", str(blocker / "data"))
    assert done.returncode == 2
    assert "data cannot be written there" in done.stderr
    assert "Traceback" not in done.stderr


def _check_many(folder: str) -> int:
    from tol_tasks.runner.prepare import check_writable

    for _ in range(300):
        check_writable(Path(folder))
    return 0


def test_stations_starting_together_into_one_folder_are_not_refused(tmp_path):
    # Two lab stations (or four sessions started by a script) writing into one new shared
    # folder check it at the same moment: none may be told the folder cannot be written.
    from concurrent.futures import ProcessPoolExecutor

    folder = tmp_path / "shared" / "data"
    with ProcessPoolExecutor(4) as pool:
        assert list(pool.map(_check_many, [str(folder)] * 4)) == [0] * 4
    assert list(folder.iterdir()) == []  # no probe left behind


def test_verify_a_folder_of_sessions(simulated_demo, xdisplay, tmp_path):
    data = tmp_path / "data"
    copy_session(simulated_demo, data)  # tol-run demo --simulate ... --participant S1
    good = tol_score("--verify", str(data))
    assert good.returncode == 0, good.stdout
    assert "verify: 1 log(s) OK, 0 problem(s), 0 incomplete session(s)" in good.stdout
    # A cut-off session is listed as incomplete, not as a problem.
    cut_dir = tmp_path / "cut"
    proc = subprocess.Popen([exe("tol-run"), "demo", "--simulate", "--speed", "2", "--windowed",
                             "--participant", "V2", "--output", str(cut_dir)], env=xdisplay,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for_rows(cut_dir, lambda rows: any(r["event"] == "place" for r in rows), proc=proc)
    finally:
        proc.kill()
        proc.wait()
    cut = tol_score("--verify", str(data), str(cut_dir))
    assert cut.returncode == 0, cut.stdout
    assert "verify: 2 log(s) OK, 0 problem(s), 1 incomplete session(s)" in cut.stdout
    assert "incomplete after" in cut.stdout
    # A copy, a sidecar that disagrees, and a log that does not replay are problems.
    log, side = next((p, p.with_suffix(".json")) for p in data.glob("S1_*.csv"))
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / log.name).write_bytes(log.read_bytes())
    (copy / side.name).write_text(
        side.read_text().replace('"participant": "S1"', '"participant": "V9"')
    )
    bad = tol_score("--verify", str(data), str(copy))
    assert bad.returncode == 1
    assert "the sidecar's participant 'V9' is not the log's 'S1'" in bad.stdout
    assert ": an identical copy (the same bytes) of" in bad.stdout
    assert "Traceback" not in bad.stderr


@pytest.mark.psychopy_compat
def test_losing_the_display_keeps_everything_and_resumes(xdisplay, tmp_path):
    xvfb, own = start_xvfb()
    out = tmp_path / "data"
    proc = subprocess.Popen([exe("tol-run"), PROTOCOL, *SIM, "--output", str(out)], env=own,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        wait_for_rows(out, lambda rows: sum(r["event"] == "place" for r in rows) >= 3, proc=proc)
        xvfb.kill()
        xvfb.wait()
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if xvfb.poll() is None:
            xvfb.kill()
            xvfb.wait()
    assert proc.returncode == 3
    assert "the display was lost" in err
    assert "tol-run --resume" in err
    log, side = session_files(out)
    rows = _check_log(log)
    meta = read_sidecar(side)
    assert (meta["status"], meta["error"], meta["rows_written"]) == (
        "crashed",
        "the X display was lost",
        len(rows),
    )
    _resume_to_the_end(log, xdisplay)


@pytest.mark.slow
def test_resume_by_participant_and_session(xdisplay, tmp_path):
    _, log = _short_session(tmp_path, xdisplay)
    participant = read_event_log(log).rows[0]["participant"]
    wrong = tol_run("--resume", "--participant", "nobody", "--output", str(log.parent))
    assert wrong.returncode == 2
    assert "no session of participant nobody, session 1" in wrong.stderr
    done = tol_run("--resume", "--participant", participant, "--session", "1", "--output", str(log.parent),
                   *SIM, env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"event log: {log}" in done.stdout
    again = tol_run("--resume", "--participant", participant, "--output", str(log.parent))
    assert again.returncode == 2
    assert "already completed" in again.stderr

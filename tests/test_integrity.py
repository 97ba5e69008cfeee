"""Nothing lost, nothing counted twice: a lab session against what a lab meets.

Real ``tol-run`` processes on a real X server (Xvfb), real files, real X input
(XTest); nothing of the session is mocked. A second copy of a session started or
resumed at the same moment; a log that never started; the data folder deleted, moved
or made read-only, and a full disk (a small tmpfs, mounted in a mount namespace of the
test's own: ``unshare``), at the start, at a row and at a sidecar save; each signal
and the quit key in a real window; the participant dialog given a bad id.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.runner_tools import (
    exe,
    key_over_window,
    running,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_run,
    tol_score,
    wait_for_rows,
    xdotool,
)
from tests.system_tools import extra, unavailable
from tests.test_timing import _inject
from tol_tasks.runner.interrupt import Interrupts, handling_signals
from tol_tasks.session_data.eventlog import never_started, read_event_log
from tol_tasks.session_data.sidecar import read_sidecar

#: A protocol of two blocks of 4-disk problems, no pages: long enough to act in the middle.
TWO_BLOCKS = """format: 1
name: twoblocks
task: {type: hanoi, disks: 4}
instructions: none
display: {fullscreen: false, window_size: [800, 600]}
feedback: none
timing: {inter_trial_interval: 0, feedback_duration: 0}
blocks:
  - name: first
    problems:
      - {id: a1, start: AAAA, goal: CCCC}
  - name: second
    problems:
      - {id: b1, start: CCCC, goal: AAAA}
      - {id: b2, start: AAAA, goal: BBBB}
"""
SIM = ["--simulate", "--seed", "3", "--windowed"]


def _protocol(tmp_path: Path, text: str = TWO_BLOCKS) -> Path:
    path = tmp_path / "proto.yaml"
    path.write_text(text)
    return path


def _rows(log: Path) -> list[dict]:
    """The log's rows, checked whole: numbered 1, 2, 3... (none lost, none doubled)."""
    data = read_event_log(log)
    assert all("torn last line" in w for w in data.warnings), data.warnings
    rows = data.rows
    assert [int(r["row"]) for r in rows] == list(range(1, len(rows) + 1))
    return rows


def _no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text


# ------------------------------------------------------------------ one copy
def _launch_together(args: list[list[str]], env: dict) -> list[subprocess.CompletedProcess]:
    """Start the commands at the same moment; wait for all; their results, in order."""
    procs = [subprocess.Popen([exe("tol-run"), *a], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for a in args]  # fmt: skip
    done = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    for p, d in zip(procs, done, strict=True):
        d.pid = p.pid
    return done


def _one_ran_the_other_was_refused(done: list) -> tuple:
    codes = sorted(d.returncode for d in done)
    assert codes == [0, 2], [(d.returncode, d.stderr[-600:]) for d in done]
    ran = next(d for d in done if d.returncode == 0)
    refused = next(d for d in done if d.returncode == 2)
    assert "is already running, in process " in refused.stderr
    assert f"process {ran.pid} " in refused.stderr  # the holder named: its process id
    assert "started 20" in refused.stderr  # and its start time
    _no_traceback(refused.stderr, ran.stderr)
    return ran, refused


@pytest.mark.slow
def test_two_starts_of_one_session_at_the_same_moment(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    args = [str(proto), *SIM, "--speed", "4", "--participant", "L1", "--output", str(out)]
    _one_ran_the_other_was_refused(_launch_together([args, args], xdisplay))
    log, side = session_files(out)  # one log, one sidecar
    assert read_sidecar(side)["status"] == "completed"
    _rows(log)
    assert not list(out.glob(".*.tol-lock"))  # the lock goes with the session


@pytest.mark.slow
def test_two_sessions_of_one_participant_started_in_the_same_millisecond(xdisplay, tmp_path):
    """Sessions 1 and 2 of one participant started at once into one folder, the wall clock
    frozen for both (libfaketime): both choose the same file name (participant, protocol,
    date to the millisecond; the session is not in it) before either can create it. The
    second to create its log takes the next name (``_2``) and runs; before, it refused to
    start ("File exists", exit 2): a flaky start for sessions launched together."""
    libfaketime = extra("libfaketime", "dev")
    _, preload = libfaketime.get_reload_information()
    env = {**xdisplay, **preload, "FAKETIME": "2026-11-27 10:00:00"}  # frozen, not advancing
    proto, out = _protocol(tmp_path), tmp_path / "data"
    args = [[str(proto), *SIM, "--speed", "4", "--participant", "L1", "--session", str(n),
             "--output", str(out)] for n in (1, 2)]  # fmt: skip
    done = _launch_together(args, env)
    assert [d.returncode for d in done] == [0, 0], [d.stderr[-600:] for d in done]
    _no_traceback(*(d.stderr for d in done))
    stem = "L1_twoblocks_2026-11-27_10h00.00.000"
    logs = sorted(p.name for p in out.glob("*.csv"))
    assert logs == [f"{stem}.csv", f"{stem}_2.csv"], logs
    sessions = set()
    for name in logs:
        log = out / name
        meta = read_sidecar(log.with_suffix(".json"))
        assert meta["event_log"] == name
        assert meta["status"] == "completed"
        rows = _rows(log)
        assert {r["session"] for r in rows} == {str(meta["session"])}
        sessions.add(meta["session"])
    assert sessions == {1, 2}


@pytest.mark.slow
def test_two_resumes_of_one_session_at_the_same_moment(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    with running_tol_run(str(proto), *SIM, "--speed", "3", "--participant", "L2", "--output",
                         str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: sum(r["event"] == "place" for r in rows) >= 3, proc=proc)
        proc.kill()
        proc.communicate()
    log, _ = session_files(out)
    before = _rows(log)
    resume = ["--resume", str(log), *SIM, "--speed", "4"]
    _one_ran_the_other_was_refused(_launch_together([resume, resume], xdisplay))
    rows = _rows(log)
    assert rows[: len(before)] == before
    assert sum(r["event"] == "resume" for r in rows) == 1  # resumed once, not twice
    assert rows[-1]["event"] == "session_end"
    assert read_sidecar(log.with_suffix(".json"))["status"] == "completed"


def test_a_lock_left_by_a_dead_process_never_blocks(tmp_path):
    from tol_tasks.runner.lock import SessionLockedError, lock_session

    code = (
        "import sys, time; from pathlib import Path\n"
        "from tol_tasks.runner.lock import lock_session\n"
        "lock_session(Path(sys.argv[1]), 'P1', 1, 'demo'); print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    with running([sys.executable, "-c", code, str(tmp_path)], env=dict(os.environ)) as holder:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(SessionLockedError) as err:
            lock_session(tmp_path, "P1", 1, "demo")
        assert err.value.holder["pid"] == holder.pid
        assert lock_session(tmp_path, "P1", 2, "demo").held  # another session: its own lock
        holder.send_signal(signal.SIGKILL)
        holder.communicate()
    assert list(tmp_path.glob(".P1_ses-1_demo.tol-lock"))  # the dead holder's file is left
    lock = lock_session(tmp_path, "P1", 1, "demo")  # and blocks nothing
    lock.release()
    assert not list(tmp_path.glob(".P1_ses-1_demo.tol-lock"))


# ------------------------------------------------------------------ never started
@pytest.mark.slow
def test_a_log_that_never_started_is_named_kept_and_blocks_nothing(xdisplay, tmp_path):
    out = tmp_path / "data"
    done = tol_run("demo", *SIM, "--speed", "40", "--participant", "N1", "--output", str(out),
                   env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    good, _ = session_files(out)
    header = good.read_text().splitlines()[0]
    # What a kill between creating the log and its first row leaves (the kill test makes
    # them for real): a header, a header cut short, an empty file; one with a sidecar.
    cut = {"N2_demo_2026-01-01_10h00.00.000.csv": header + "\n",
           "N2_demo_2026-01-01_10h00.01.000.csv": header[:17],
           "N2_demo_2026-01-01_10h00.02.000.csv": ""}  # fmt: skip
    for name, text in cut.items():
        (out / name).write_text(text)
    side = read_sidecar(good.with_suffix(".json"))
    side.update(participant="N2", event_log="N2_demo_2026-01-01_10h00.00.000.csv", status="incomplete",
                rows_written=0)  # fmt: skip
    (out / "N2_demo_2026-01-01_10h00.00.000.json").write_text(__import__("json").dumps(side))
    assert all(never_started(out / n) for n in cut)
    assert not never_started(good)

    refused = tol_run("--resume", str(out / "N2_demo_2026-01-01_10h00.00.000.csv"), *SIM)
    assert refused.returncode == 2
    assert "this session never started" in refused.stderr
    assert "start the session again" in refused.stderr
    scored = tol_score(str(out), "--output", str(tmp_path / "scores"))
    assert scored.returncode == 0, scored.stderr
    assert scored.stderr.count("never started") == 3
    assert "1 session(s)" in scored.stdout
    verified = tol_score("--verify", str(out))
    assert verified.returncode == 0, verified.stdout
    assert "verify: 1 log(s) OK, 0 problem(s)" in verified.stdout
    # The session starts (the never-started logs do not count) and says so.
    again = tol_run("demo", *SIM, "--speed", "40", "--participant", "N2", "--output", str(out),
                    env=xdisplay)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("never started") == 3
    assert all((out / n).exists() for n in cut)  # kept, never deleted
    _no_traceback(refused.stderr, scored.stderr, again.stderr)


# ------------------------------------------------------------------ the folder
def _stop_in_the_middle(tmp_path: Path, env: dict, act, participant: str):
    """A session stopped by ``act(out)`` done to its folder in the middle of its first block;
    returns tol-run's result, the rescue folder and the rows seen just before."""
    proto, out, rescue = _protocol(tmp_path), tmp_path / "data", tmp_path / "rescue"
    args = [str(proto), *SIM, "--speed", "3", "--participant", participant, "--output", str(out),
            "--rescue", str(rescue)]  # fmt: skip
    with running_tol_run(*args, env=env) as proc:
        seen = wait_for_rows(out, lambda rows: sum(r["event"] == "place" for r in rows) >= 3,
                             proc=proc)  # fmt: skip
        act(out)
        stdout, stderr = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr), rescue, seen


def _rescued(done, rescue: Path, seen: list[dict]) -> Path:
    """Exit 2, a message naming the rescue copy and the resume command, the copy whole."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    _no_traceback(done.stderr)
    (copy,) = rescue.glob("*/*.csv")
    assert f"saved to the rescue folder {copy.parent}" in done.stderr
    assert f"tol-run --resume {copy}" in done.stderr
    rows = _rows(copy)
    assert rows[: len(seen)] == seen  # every row written before is in the copy
    meta = read_sidecar(copy.with_suffix(".json"))
    assert (meta["status"], meta["rows_written"]) == ("crashed", len(rows))
    assert meta["error"]
    return copy


def _resume_completes(log: Path, env: dict) -> None:
    done = tol_run("--resume", str(log), *SIM, "--speed", "20", env=env)
    assert done.returncode == 0, done.stderr
    assert _rows(log)[-1]["event"] == "session_end"
    assert tol_score("--verify", str(log.parent)).returncode == 0


@pytest.mark.slow
def test_the_data_folder_deleted_mid_session(xdisplay, tmp_path):
    done, rescue, seen = _stop_in_the_middle(tmp_path, xdisplay, shutil.rmtree, "F1")
    assert "was deleted, moved or unmounted" in done.stderr
    copy = _rescued(done, rescue, seen)
    _resume_completes(copy, xdisplay)


@pytest.mark.slow
def test_the_data_folder_moved_mid_session(xdisplay, tmp_path):
    moved = tmp_path / "moved"
    done, rescue, seen = _stop_in_the_middle(tmp_path, xdisplay, lambda out: out.rename(moved),
                                             "F2")  # fmt: skip
    assert "was deleted, moved or unmounted" in done.stderr
    copy = _rescued(done, rescue, seen)
    (there,) = moved.glob("*.csv")
    assert there.read_bytes() == copy.read_bytes()  # the copy holds every row the file has
    _resume_completes(copy, xdisplay)


# ------------------------------------------------------------------ a small disk
def _namespace(script: str, args: list[str]) -> list[str]:
    """The command that runs ``args`` by ``script`` (sh) in a user and mount namespace of
    their own, where it may mount a tmpfs; the test skipped where namespaces are not allowed."""
    unshare = shutil.which("unshare")
    # A user namespace (-r) for an unprivileged user; root in a chroot may not make one
    # (Linux refuses it there) but may mount in a mount namespace of its own (-m).
    for flags in ("-rm", "-m"):
        if unshare and not subprocess.run([unshare, flags, "true"], capture_output=True).returncode:
            return [unshare, flags, "sh", "-c", script, "sh", *args]
    unavailable("no mount namespace here (unshare -rm, or unshare -m as root) for a small disk",
                "run the tests on Linux with unprivileged user namespaces allowed, or as root")  # fmt: skip


#: Runs the session on a tmpfs of SIZE at MNT; once TRIGGER exists, runs ACT there; at the
#: end copies the tmpfs out to COPY (it goes with the namespace).
_SMALL_DISK = """
mount -t tmpfs -o size="$SIZE" tmpfs "$MNT" || exit 97
eval "$BEFORE"
"$@" &
child=$!
( while [ ! -e "$TRIGGER" ]; do kill -0 $child 2>/dev/null || exit 0; sleep 0.05; done
  eval "$ACT"; touch "$TRIGGER.done" ) &
wait $child
rc=$?
cp -a "$MNT/." "$COPY/"
exit $rc
"""
#: Fill the tmpfs, then free two pages: rows still fit in the log, no new sidecar does.
_FILL = 'dd if=/dev/zero of="$MNT/.fill" bs=4096 2>/dev/null; truncate -s -8192 "$MNT/.fill"'


def _on_small_disk(tmp_path: Path, env: dict, *, before: str = "", act: str = "true",
                   when=None, protocol: str = TWO_BLOCKS):  # fmt: skip
    """A session whose data folder is a 2 MB tmpfs; ``act`` done to it when ``when(rows)``
    (rows read through the namespace's view of it). Returns tol-run's result, the rescue
    folder, the rows seen before ``act``, and the copy of the tmpfs at the end."""
    mnt, copy, rescue, trigger = (tmp_path / n for n in ("mnt", "copy", "rescue", "trigger"))
    mnt.mkdir()
    copy.mkdir()
    proto = _protocol(tmp_path, protocol)
    out = mnt / "data"
    cmd = [exe("tol-run"), str(proto), *SIM, "--speed", "3", "--participant", "S1",
           "--output", str(out), "--rescue", str(rescue)]  # fmt: skip
    ns_env = dict(env, SIZE="2m", MNT=str(mnt), COPY=str(copy), TRIGGER=str(trigger),
                  BEFORE=before, ACT=act)  # fmt: skip
    seen = []
    with running(_namespace(_SMALL_DISK, cmd), ns_env) as proc:
        if when is not None:
            # The session's folder as the namespace sees it (unshare became the shell in it).
            inside = Path(f"/proc/{proc.pid}/root") / out.relative_to("/")
            seen = wait_for_rows(inside, when, proc=proc)
            trigger.touch()
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 97, "the tmpfs could not be mounted"
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr), rescue, seen, copy


@pytest.mark.slow
def test_a_full_disk_at_the_start(xdisplay, tmp_path):
    fill = 'mkdir -p "$MNT/data"; dd if=/dev/zero of="$MNT/.fill" bs=4096 2>/dev/null'
    done, _, _, copy = _on_small_disk(tmp_path, xdisplay, before=fill)
    assert done.returncode == 2, done.stderr
    _no_traceback(done.stderr)
    assert "the session could not start" in done.stderr
    assert "No space left on device" in done.stderr
    assert "nothing was recorded" in done.stderr
    assert "start the session again with the same command" in done.stderr
    left = list((copy / "data").glob("*.csv"))
    assert all(never_started(f) for f in left)  # at most a log that never started


@pytest.mark.slow
def test_a_full_disk_at_a_row(xdisplay, tmp_path):
    one_block = TWO_BLOCKS.split("  - name: second")[0].replace(
        "AAAA, goal: CCCC", "AAAA, goal: BBBB"
    )
    done, rescue, seen, copy = _on_small_disk(
        tmp_path, xdisplay, act='dd if=/dev/zero of="$MNT/.fill" bs=4096 2>/dev/null',
        when=lambda rows: sum(r["event"] == "place" for r in rows) >= 2, protocol=one_block,
    )  # fmt: skip
    assert "could not be written (No space left on device)" in done.stderr
    rescued = _rescued(done, rescue, seen)
    (inplace,) = (copy / "data").glob("*.csv")
    assert _rows(inplace) == _rows(rescued)  # the log in place holds the same rows
    assert f"then continue with: tol-run --resume {Path(tmp_path / 'mnt/data') / inplace.name}" \
        in done.stderr  # fmt: skip
    _resume_completes(rescued, xdisplay)


#: A first block of one 2-disk problem (a few rows), and a long description (kept in the
#: sidecar: it needs several pages of the disk).
_SHORT_FIRST = TWO_BLOCKS.replace("{id: a1, start: AAAA, goal: CCCC}",
                                  "{id: a1, disks: 2, start: AA, goal: CC}").replace(
    "instructions: none", "instructions: none\ndescription: " + "x" * 20_000)  # fmt: skip


@pytest.mark.slow
def test_a_full_disk_at_a_sidecar_save(xdisplay, tmp_path):
    # Full as the first block begins, two pages left: its few rows and the next block's
    # start fit in them; that block's sidecar save (over 20 kB) does not.
    done, rescue, seen, _ = _on_small_disk(
        tmp_path, xdisplay, act=_FILL, protocol=_SHORT_FIRST,
        when=lambda rows: any(r["event"] == "trial_onset" for r in rows),
    )  # fmt: skip
    assert "the sidecar could not be written (No space left on device)" in done.stderr, done.stderr
    rescued = _rescued(done, rescue, seen)
    rows = _rows(rescued)
    assert rows[-1]["event"] == "trial_end"  # the first block ended; the second, whose
    assert not any(r["block"] == "second" for r in rows)  # sidecar came first, never began
    _resume_completes(rescued, xdisplay)


def _read_only(folder: Path) -> None:
    """Nobody may write into ``folder`` any more: root too (immutable), others by its mode.
    (A file system cannot be remounted read-only while a file on it is open for writing.)"""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], check=True)
    else:
        folder.chmod(0o555)


@pytest.mark.slow
def test_the_data_folder_made_read_only(xdisplay, tmp_path):
    try:
        done, rescue, seen = _stop_in_the_middle(tmp_path, xdisplay, _read_only, "F3")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(tmp_path / "data")], check=False)
        else:
            (tmp_path / "data").chmod(0o755)
    assert "was made read-only" in done.stderr
    copy = _rescued(done, rescue, seen)
    _resume_completes(copy, xdisplay)


# ------------------------------------------------------------------ signals and keys
@pytest.mark.slow
@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_ends_the_session_cleanly(xdisplay, tmp_path, name, status):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    with running_tol_run(str(proto), *SIM, "--speed", "3", "--participant", "G1", "--output",
                         str(out), env=xdisplay) as proc:  # fmt: skip
        seen = wait_for_rows(out, lambda rows: sum(r["event"] == "place" for r in rows) >= 2,
                             proc=proc)  # fmt: skip
        proc.send_signal(getattr(signal, name))
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == status, stderr
    _no_traceback(stderr, stdout)
    log, side = session_files(out)
    assert f"session interrupted ({name})" in stdout
    assert f"Continue with: tol-run --resume {log}" in stderr
    meta = read_sidecar(side)
    assert (meta["status"], meta["signal"]) == ("interrupted", name)
    rows = _rows(log)
    assert rows[: len(seen)] == seen
    assert meta["rows_written"] == len(rows)
    assert not any(r["event"] == "session_end" for r in rows)  # interrupted, not ended
    _resume_completes(log, xdisplay)


@pytest.mark.slow
def test_a_signal_at_the_start_writes_nothing_or_a_resumable_session(xdisplay, tmp_path):
    out = tmp_path / "data"
    for k, delay in enumerate((0.3, 1.0, 2.0)):
        with running_tol_run("demo", *SIM, "--participant", f"H{k}", "--output", str(out),
                             env=xdisplay) as proc:  # fmt: skip
            time.sleep(delay)
            proc.send_signal(signal.SIGHUP)
            _, stderr = proc.communicate(timeout=60)
        _no_traceback(stderr)
        logs = list(out.glob(f"H{k}_*.csv"))
        if proc.returncode == -signal.SIGHUP:  # before tol-run's handlers: nothing written yet
            assert not logs
            continue
        assert proc.returncode == 129, stderr
        if not logs:
            assert "nothing was written" in stderr
            continue
        (log,) = logs
        if not never_started(log):
            assert read_sidecar(log.with_suffix(".json"))["status"] == "interrupted"
    # The delays above may all fall before the log begins (at load 9 all three did: killed
    # before the handlers, then "nothing was written" twice), leaving the resumable half
    # unchecked: a hang-up once the log's first row is written is an interrupted session
    # that --resume completes.
    begun = tmp_path / "begun"
    with running_tol_run("demo", *SIM, "--participant", "H3", "--output", str(begun),
                         env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(begun, lambda rows: len(rows) >= 1, proc=proc)
        proc.send_signal(signal.SIGHUP)
        _, stderr = proc.communicate(timeout=60)
    _no_traceback(stderr)
    assert proc.returncode == 129, stderr
    (log,) = begun.glob("H3_*.csv")
    assert not never_started(log)
    assert read_sidecar(log.with_suffix(".json"))["status"] == "interrupted"
    _resume_completes(log, xdisplay)


def _hangup_to_self(ignored_at_start: bool) -> Interrupts:
    """What :func:`handling_signals` notes of a SIGHUP sent to this process, SIGHUP having
    been ignored (as ``nohup`` leaves it) or at its default when the block began."""
    assert threading.current_thread() is threading.main_thread()  # signals: main thread
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN if ignored_at_start else signal.SIG_DFL)
    try:
        with handling_signals(Interrupts(armed=True)) as got:  # armed: noted, not raised
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)  # the handler runs between two bytecodes of the main thread
            kept = signal.getsignal(signal.SIGHUP)
        assert (kept == signal.SIG_IGN) is ignored_at_start
        return got
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_hangup_ignored_at_start_stays_ignored():
    assert _hangup_to_self(ignored_at_start=False).signal == "SIGHUP"  # the clean ending
    assert _hangup_to_self(ignored_at_start=True).signal is None  # nohup tol-run ...


@pytest.mark.slow
def test_nohup_tol_run_goes_on_when_the_terminal_closes(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    # as ``nohup tol-run ...`` starts it: SIGHUP ignored (coreutils' env, without nohup's
    # output redirection)
    args = ["env", "--ignore-signal=HUP", exe("tol-run"), str(proto), *SIM, "--speed", "3",
            "--participant", "N1", "--output", str(out)]  # fmt: skip
    with running(args, env=xdisplay) as proc:
        count = lambda rows: sum(r["event"] == "place" for r in rows)  # noqa: E731
        seen = wait_for_rows(out, lambda rows: count(rows) >= 2, proc=proc)
        proc.send_signal(signal.SIGHUP)  # the terminal closed
        wait_for_rows(out, lambda rows: count(rows) > count(seen), proc=proc)  # it plays on
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)  # and still ends cleanly on another signal
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    meta = read_sidecar(session_files(out)[1])
    assert (meta["status"], meta["signal"]) == ("interrupted", "SIGTERM")


def _escape(out: Path, env: dict) -> None:
    key_over_window(out, "Escape", env)


@pytest.mark.slow
def test_escape_asks_first_and_a_click_goes_back(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    with running_tol_run(str(proto), "--windowed", "--participant", "E1", "--output", str(out),
                         env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        meta = sidecar_of(out)
        _escape(out, xdisplay)
        wait_for_rows(out, lambda rows: rows[-1]["problem_id"] == "quit-confirm", proc=proc)
        _inject(xdisplay, meta, "A")  # a click: back to the problem
        wait_for_rows(out, lambda rows: rows[-1]["event"] == "page_left", proc=proc)
        assert proc.poll() is None  # still running
        _inject(xdisplay, meta, "AC")  # the problem goes on
        _escape(out, xdisplay)
        wait_for_rows(out, lambda rows: rows[-1]["problem_id"] == "quit-confirm", proc=proc)
        _escape(out, xdisplay)  # confirmed
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    rows = _rows(session_files(out)[0])
    pages = [(r["event"], r["input"]) for r in rows if r["problem_id"] == "quit-confirm"]
    assert pages == [("page_shown", ""), ("page_left", "mouse"), ("page_shown", ""),
                     ("page_left", "key")]  # fmt: skip
    assert [r["event"] for r in rows if r["event"] in ("pick_up", "place")] == ["pick_up", "place"]
    assert rows[-2]["event"] == "abort"
    assert rows[-1]["reason"] == "aborted"
    prompts = sidecar_of(out)["quit_prompts"]
    assert [p["ended_session"] for p in prompts] == [False, True]
    assert all(p["trial"] == 1 for p in prompts)


@pytest.mark.slow
def test_quit_at_once_ends_on_the_first_escape(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path), tmp_path / "data"
    with running_tol_run(str(proto), "--windowed", "--quit-at-once", "--participant", "E2",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows), proc=proc)
        _escape(out, xdisplay)
        proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert sidecar_of(out)["status"] == "aborted"
    assert sidecar_of(out)["quit_prompts"] == []


def _size(window: str, env: dict) -> str:
    geometry = subprocess.run(["xdotool", "getwindowgeometry", window], env=env,
                              capture_output=True, text=True, check=False).stdout  # fmt: skip
    return next(ln for ln in geometry.splitlines() if "Geometry" in ln)


def _dialogs(env: dict) -> list[str]:
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "tol-tasks: demo"],
                           env=env, capture_output=True, text=True, check=False)  # fmt: skip
    return found.stdout.split()


@pytest.mark.slow
def test_the_participant_dialog_shows_its_error_and_asks_again(xdisplay, tmp_path):
    out = tmp_path / "data"
    with running_tol_run("demo", "--windowed", "--output", str(out), env=xdisplay) as proc:
        xdotool("search", "--sync", "--onlyvisible", "--name", "tol-tasks: demo", "windowfocus",
                "--sync", "%1", env=xdisplay, timeout=60)  # fmt: skip
        (first,) = _dialogs(xdisplay)
        height = _size(first, xdisplay)
        xdotool("type", "--delay", "40", "P 1", env=xdisplay)
        xdotool("key", "Return", env=xdisplay)
        end = time.monotonic() + 60
        while time.monotonic() < end and _dialogs(xdisplay) in ([], [first]):
            assert proc.poll() is None, proc.communicate()  # it asks again; it does not end
            time.sleep(0.2)
        time.sleep(1.0)  # the dialog lays its fields out
        (second,) = _dialogs(xdisplay)
        assert _size(second, xdisplay) != height  # the error is shown in it, above its buttons
        xdotool("windowfocus", "--sync", second, env=xdisplay)
        xdotool("key", "ctrl+a", env=xdisplay)
        xdotool("type", "--delay", "40", "D8", env=xdisplay)
        xdotool("key", "Return", env=xdisplay)
        wait_for_rows(out, lambda rows: any(r["event"] == "page_shown" for r in rows), proc=proc)
        _escape(out, xdisplay)
        _escape(out, xdisplay)
        _, stderr = proc.communicate(timeout=60)
    _no_traceback(stderr)
    assert sidecar_of(out)["participant"] == "D8"
    assert "P 1" not in stderr  # shown in the dialog, not on a terminal behind the window


# ------------------------------------------------------------------ under load
_PAGES_THEN_HANOI = """format: 1
name: loaded
task: {type: hanoi, disks: 3}
display: {fullscreen: false, window_size: [800, 600]}
feedback: none
timing: {inter_trial_interval: 0, feedback_duration: 0}
instructions:
  pages:
    en:
      - text: The first page.
      - text: The second page.
      - text: The third page.
blocks:
  - problems:
      - {id: p1, start: AAA, goal: CCC}
"""
#: The 7 moves of the 3-disk solution, as 14 peg clicks.
_HANOI3 = "ACABCBACBABCAC"


def _press_space(env: dict, times: int) -> None:
    """The space bar, ``times`` times, with XTest (a real key press on the X server)."""
    from Xlib import XK, X, display
    from Xlib.ext import xtest

    d = display.Display(env["DISPLAY"])
    try:
        code = d.keysym_to_keycode(XK.string_to_keysym("space"))
        for _ in range(times):
            xtest.fake_input(d, X.KeyPress, code)
            d.sync()
            time.sleep(0.03)
            xtest.fake_input(d, X.KeyRelease, code)
            d.sync()
            time.sleep(0.4)
    finally:
        d.close()


@pytest.mark.slow
def test_a_session_played_with_real_clicks_and_keys_on_a_loaded_machine(xdisplay, tmp_path):
    proto, out = _protocol(tmp_path, _PAGES_THEN_HANOI), tmp_path / "data"
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        with running_tol_run(str(proto), "--windowed", "--participant", "U1", "--output", str(out),
                             env=xdisplay) as proc:  # fmt: skip
            wait_for_rows(out, lambda rows: any(r["event"] == "page_shown" for r in rows),
                          timeout=120, proc=proc)  # fmt: skip
            key_over_window(out, "Escape", xdisplay)  # one Escape, then a key: not the end
            wait_for_rows(out, lambda rows: rows[-1]["problem_id"] == "quit-confirm", proc=proc)
            _press_space(xdisplay, 1)  # back from the question
            wait_for_rows(out, lambda rows: rows[-1]["event"] == "page_left", proc=proc)
            for page in ("page-2", "page-3", None):  # each page left once it is on screen: a
                _press_space(xdisplay, 1)  # press before a page's flip is not meant for it
                if page is not None:
                    wait_for_rows(out, lambda rows, page=page: rows[-1]["problem_id"] == page,
                                  proc=proc)  # fmt: skip
            wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                          timeout=120, proc=proc)  # fmt: skip
            _inject(xdisplay, sidecar_of(out), _HANOI3)
            _, err = proc.communicate(timeout=120)
    finally:
        for b in busy:
            b.kill()
            b.wait()
    assert proc.returncode == 0, err
    rows = _rows(session_files(out)[0])
    meta = sidecar_of(out)
    left = [r for r in rows if r["event"] == "page_left"]
    assert [(r["problem_id"], r["input"]) for r in left] == [
        ("quit-confirm", "key"), ("page-1", "key"), ("page-2", "key"), ("page-3", "key")]  # fmt: skip
    moves = [r for r in rows if r["event"] in ("pick_up", "place", "same_peg_drop", "empty_pick",
                                               "illegal", "cancel")]  # fmt: skip
    # Every press injected is in the log once: 14 clicks, 7 moves, none doubled or lost.
    assert [r["event"] for r in moves] == ["pick_up", "place"] * 7
    assert "".join(r["from_peg"] + r["to_peg"] for r in moves if r["event"] == "place") == _HANOI3
    assert next(r for r in rows if r["event"] == "trial_end")["reason"] == "solved"
    assert meta["timing"]["input_method"] == "xinput2-raw"
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)  # a log's times never go backwards, even under this load
    polled = sum(r["stamp"] == "polled" for r in moves + left)
    timing = meta["timing"]
    assert polled == timing["unmatched_presses"] + timing["unmatched_keys"]  # each counted
    assert timing["late_twins"] == 0  # paired by the X server's time: no late twin at all

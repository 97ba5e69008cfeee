"""``tol-import`` killed (SIGKILL) at several instants: whole sessions or nothing a reader takes
for one.

Each import of a file of many participants is killed at a different instant (from its
start to the end of its writing); the folder then holds only sessions whose log and
sidecar are both whole (byte for byte the log an import that was not killed writes, a
sidecar naming it), plus temporary files that end in ``.part`` or ``.tmp``, which no
reader takes for a session. Importing the file again into the same folder completes it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES, exe, run
from tests.system_tools import program, unavailable
from tol_analysis.read.logs import find_logs, read_session
from tol_tasks.importers.write import Writer


def _source(tmp_path: Path, copies: int) -> Path:
    """J02.json's participant (one session) repeated under new ids: ``copies`` sessions."""
    rows = json.loads((FIXTURES / "jspsych" / "J02.json").read_text(encoding="utf-8"))
    out = [{**r, "subject_id": f"{r['subject_id']}x{k}"} for k in range(copies) for r in rows]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(out), encoding="utf-8")
    return path


def _check_folder(folder: Path, reference: Path) -> set[str]:
    """The folder's sessions are whole (as the reference writes them): their names."""
    names = set()
    for f in sorted(folder.iterdir()):
        if f.suffix in (".part", ".tmp"):
            continue  # temporary: never read as a session
        if f.suffix == ".json" and not f.with_suffix(".csv").exists():
            continue  # a sidecar whose log was not named yet: no session for any reader
        if f.suffix == ".json":
            continue
        assert f.suffix == ".csv", f
        side = f.with_suffix(".json")
        assert side.exists(), f"{f.name} has no sidecar"
        assert json.loads(side.read_text(encoding="utf-8"))["event_log"] == f.name
        assert f.read_bytes() == (reference / f.name).read_bytes(), f"{f.name} is not whole"
        names.add(f.name)
    # What tol-score reads as sessions is exactly the whole ones.
    assert {p.name for p in find_logs([folder])} == names
    return names


def _still_running(out: Path) -> list[int]:
    """Processes whose command line names ``out`` (the import's forked copies share it),
    after the few milliseconds the kernel takes to end them with their parent."""
    for _ in range(50):
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and str(out).encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue  # ended meanwhile
        if not found:
            return []
        time.sleep(0.1)
    return found


@pytest.mark.slow
def test_kill_9_at_several_instants_leaves_whole_sessions_or_none(tmp_path):
    source = _source(tmp_path, copies=1500)  # 1,500 sessions: several batches
    reference = tmp_path / "reference"
    t0 = time.perf_counter()
    done = run("tol-import", source, "--output", reference)
    whole_run = time.perf_counter() - t0
    assert done.returncode == 0, done.stderr
    expected = {p.name for p in reference.glob("*.csv")}
    assert len(expected) == 1500
    seen_partial = 0
    # Kills at fractions of the first run's time (a loaded machine moves them), and one the
    # moment the first session is in the folder: that one falls while sessions are written.
    for k, fraction in enumerate((0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, None)):
        out = tmp_path / f"killed{k}"
        proc = subprocess.Popen(
            [exe("tol-import"), str(source), "--output", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if fraction is not None:
            time.sleep(whole_run * fraction)
        else:
            while proc.poll() is None and not (out.exists() and any(out.glob("*.csv"))):
                time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        assert not _still_running(out), "a forked copy of the import outlived it"
        names = _check_folder(out, reference) if out.exists() else set()
        seen_partial += 0 < len(names) < len(expected)
        # Importing again completes the folder, each session once.
        again = run("tol-import", source, "--output", out)
        assert again.returncode == 0, again.stderr
        assert _check_folder(out, reference) == expected
        assert not list(out.glob("*.part"))
        assert not list(out.glob("*.tmp"))
    assert seen_partial, "no kill fell while sessions were being written: the test saw nothing"
    log = read_session(next(iter(sorted(reference.glob("*.csv")))))
    assert log.sidecar is not None


@pytest.mark.slow
def test_a_full_disk_stops_with_the_error_and_keeps_every_session_before(tmp_path):
    """The output folder on a file system with room for about one and a half batches: the
    first batch is named, whole; the second cannot be completed, and the command says so
    (the folder, why, the fix), no traceback; importing again elsewhere completes it."""
    if os.geteuid() != 0:  # CI and the README's commands run as root
        unavailable("a full disk is a small tmpfs mounted in a mount namespace of its own",
                    "run the tests as root (as scripts/test.sh and CI do)")  # fmt: skip
    program("unshare")
    source = _source(tmp_path, copies=1200)  # built on both cores (pool.MIN_SESSIONS)
    reference = tmp_path / "reference"
    assert run("tol-import", source, "--output", reference).returncode == 0
    page = 4096
    first = sorted(reference.glob("*.csv"))[: Writer.BATCH]
    room = sum(
        -(-f.stat().st_size // page) * page for p in first for f in (p, p.with_suffix(".json"))
    )
    mount, out, kept = tmp_path / "small", tmp_path / "small" / "out", tmp_path / "kept"
    mount.mkdir()
    script = (
        f'mount -t tmpfs -o size={room * 3 // 2} tmpfs "{mount}" && '
        f'"{exe("tol-import")}" "{source}" --output "{out}"; rc=$?; '
        f'cp -a "{out}" "{kept}"; exit $rc'
    )
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip
    assert done.returncode != 0
    assert "No space left on device" in done.stderr, done.stderr
    assert f"{out}: the last sessions' files cannot be completed" in done.stderr
    assert "Suggested fix: free space" in done.stderr
    assert "Traceback" not in done.stderr
    names = _check_folder(kept, reference)  # whole sessions only
    assert len(names) >= Writer.BATCH  # the batch made durable before the disk filled
    assert len(names) < 1200
    again = run("tol-import", source, "--output", kept)  # room again: completed
    assert again.returncode == 0, again.stderr
    assert len(_check_folder(kept, reference)) == 1200
    assert not list(kept.glob("*.part"))
    assert not list(kept.glob("*.tmp"))


def test_a_batch_that_cannot_be_made_durable_stops_the_batches_after_it(tmp_path, monkeypatch):
    """The disk refuses the second batch's sync (EIO): the first batch is named, whole; no
    session of the second or a later one gets its name (a later sync that succeeds does not
    name them); the error names the folder, why and the fix; importing again completes the
    folder and leaves no temporary file."""
    from tol_tasks.importers import ImportSourceError, import_files
    from tol_tasks.importers import write as write_module

    monkeypatch.setattr(Writer, "BATCH", 4)
    source = _source(tmp_path, copies=20)
    reference = tmp_path / "reference"
    import_files([source], reference, workers=1)
    real, calls = write_module.make_durable, []

    def failing_second(folder, files):
        calls.append(len(files))
        if len(calls) == 2:  # fails once the third batch's last files are written
            third = folder / "J02x11_ses-1_jspsych-tol.json.tmp"
            for _ in range(3000):
                if third.exists():
                    break
                time.sleep(0.01)
            raise OSError(5, "Input/output error")
        real(folder, files)

    monkeypatch.setattr(write_module, "make_durable", failing_second)
    out = tmp_path / "out"
    with pytest.raises(ImportSourceError) as got:
        import_files([source], out, workers=1)
    assert str(got.value) == (
        f"{out}: the last sessions' files cannot be completed (Input/output error); their logs "
        "stay under temporary names (.part), not counted as imported. Suggested fix: free space "
        "or fix the folder, and import again."
    )
    assert len(calls) == 3  # the batch after the failing one was synced too, and not named
    first = sorted(reference.glob("*.csv"), key=lambda p: int(p.name.split("x")[1].split("_")[0]))
    assert _check_folder(out, reference) == {p.name for p in first[:4]}
    monkeypatch.setattr(write_module, "make_durable", real)
    import_files([source], out, workers=1)
    assert len(_check_folder(out, reference)) == 20
    assert not [p for p in out.iterdir() if p.suffix in (".part", ".tmp")]

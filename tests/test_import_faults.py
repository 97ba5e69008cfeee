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
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES, exe, run
from tol_analysis.read.logs import find_logs, read_session


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
    for k, fraction in enumerate((0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9)):
        out = tmp_path / f"killed{k}"
        proc = subprocess.Popen(
            [exe("tol-import"), str(source), "--output", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(whole_run * fraction)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
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

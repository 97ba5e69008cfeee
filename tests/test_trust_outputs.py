"""Outputs that never destroy data (issue 30): tol-score records what it wrote (a manifest),
``--replace`` replaces only that, an output folder overlapping an input is refused, and the
swap of old and new outputs is atomic from the reader's side: ``kill -9`` at any instant
leaves the earlier set or the new one, complete.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner_tools import exe
from tests.system_tools import extra
from tests.trust_tools import GOLDEN, read_csv
from tol_analysis.cli import main as tol_score_main
from tol_analysis.export.manifest import CURRENT, MANIFEST, STATE


def tol_score(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tol_score_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _data(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        for suffix in (".csv", ".json"):
            shutil.copy(GOLDEN / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder


def _digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links not followed) and its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()
            and STATE not in p.parts}  # fmt: skip


def test_replace_leaves_raw_logs_a_users_file_and_a_folder_named_like_an_output(tmp_path):
    extra("matplotlib", "plots")
    data = _data(tmp_path / "data", "demo", "hanoi-classic")
    out = tmp_path / "out"
    # The lab keeps other raw logs, a letter and its own BIDS dataset in the folder.
    _data(out / "raw", "london-shallice")
    (out / "letter.docx").write_bytes(b"PK\x03\x04 a letter")
    (out / "bids").mkdir()
    (out / "bids" / "dataset_description.json").write_text('{"Name": "the lab\'s own"}')
    theirs = _digests(out)
    code, _, err = tol_score(data, "--output", out, "--plots")
    assert code == 0, err
    # Their bids/ is not tol-score's: scoring with --bids is refused, naming it
    code, _, err = tol_score(data, "--output", out, "--bids", "--replace")
    assert code == 2
    assert "holds bids/, named like tol-score's outputs but not in its manifest" in err
    # A file of theirs put in tol-score's own folder, then a replacement
    (out / "plots" / "notes.txt").write_text("keep me")
    code, _, err = tol_score(data, "--output", out, "--replace")
    assert code == 0, err
    assert "kept: plots/notes.txt (not tol-score's: carried into the new outputs)" in err
    assert "left alone: bids/, letter.docx, raw/ (not tol-score's)" in err
    assert {k: v for k, v in _digests(out).items() if k in theirs} == theirs  # untouched
    assert (out / "plots" / "notes.txt").read_text() == "keep me"
    assert not [p for p in (out / "plots").iterdir() if p.suffix == ".png"]  # no stale figure
    assert (out / "raw" / "london-shallice.csv").read_bytes() == (
        GOLDEN / "london-shallice.csv").read_bytes()  # fmt: skip
    manifest = json.loads((out / MANIFEST).read_text())
    assert "letter.docx" not in manifest["files"]
    assert manifest["kept"] == ["plots/notes.txt"]


@pytest.mark.parametrize("where", ["is", "inside", "holds"])
def test_an_output_folder_overlapping_an_input_is_refused(tmp_path, where):
    # tol-score bids --output . --replace used to delete the raw logs it had just read.
    data = _data(tmp_path / "bids", "demo", "hanoi-classic")
    before = _digests(data)
    inputs, output = {
        "is": ([data], data),
        "inside": ([data], data / "scored"),
        "holds": ([data / "demo.csv"], data),
    }[where]  # fmt: skip
    code, _, err = tol_score(*inputs, "--output", output, "--replace")
    assert code == 2
    assert {"is": "is the input folder", "inside": "lies inside the input folder",
            "holds": "holds the input"}[where] in err  # fmt: skip
    assert "the outputs would be mixed into the data" in err
    assert "Suggested fix: give an output folder outside every input folder" in err
    assert _digests(data) == before
    assert not (data / "scored").exists()


def test_files_named_like_outputs_but_never_recorded_are_refused_even_with_replace(tmp_path):
    data = _data(tmp_path / "data", "demo")
    out = tmp_path / "out"
    out.mkdir()
    (out / "sessions.csv").write_text("participant,age\nP01,34\n")  # a participant list
    for replace in ([], ["--replace"]):
        code, _, err = tol_score(data, "--output", out, *replace)
        assert code == 2
        assert "holds sessions.csv, named like tol-score's outputs but not in its manifest" in err
        assert "tol-score never replaces what it did not record writing" in err
    assert (out / "sessions.csv").read_text() == "participant,age\nP01,34\n"


def _visible_set(out: Path) -> set[str] | None:
    """The participants of the set a reader sees (None: no outputs yet), checked complete:
    every file the manifest lists is there, and every table holds the same participants."""
    manifest = out / MANIFEST
    if not manifest.exists():
        assert not (out / "sessions.csv").exists(), "tables without their manifest"
        return None
    listed = json.loads(manifest.read_text())["files"]
    assert all((out / f).is_file() for f in listed), "a file of the manifest is missing"
    people = {r["participant"] for r in read_csv(out / "sessions.csv")}
    for table in ("trials.csv", "moves.csv", "wide.csv"):
        with (out / table).open(newline="", encoding="utf-8") as f:
            assert {r["participant"] for r in csv.DictReader(f)} <= people, table
    return people


def _kills(tmp_path: Path, count: int, seed: int) -> None:
    old = _data(tmp_path / "old", "demo", "hanoi-classic")
    new = _data(tmp_path / "new", "london-shallice", "resumed", "copies")
    out = tmp_path / "out"
    command = [exe("tol-score"), "--output", str(out), "--replace", "--bids",
               "--bids-include-simulated"]  # fmt: skip
    subprocess.run([*command, str(old)], check=True, capture_output=True)
    old_set = _visible_set(out)
    t0 = time.monotonic()
    subprocess.run([*command, str(new)], check=True, capture_output=True)
    whole = time.monotonic() - t0
    new_set = _visible_set(out)
    rng = random.Random(seed)
    seen = set()
    for _ in range(count):
        subprocess.run([*command, str(old)], check=True, capture_output=True)
        proc = subprocess.Popen([*command, str(new)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0, whole))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        got = _visible_set(out)
        assert got in (old_set, new_set), got  # the earlier set or the new one, never a mix
        seen.add("new" if got == new_set else "old")
    # a later run cleans what the killed ones left
    subprocess.run([*command, str(new)], check=True, capture_output=True)
    assert _visible_set(out) == new_set
    state = sorted(p.name for p in (out / STATE).iterdir())
    assert state == sorted([CURRENT, "lock", os.readlink(out / STATE / CURRENT)])
    assert seen  # the kills landed (which side each landed on depends on the machine's load)


def test_a_kill_at_any_instant_of_a_replacement_leaves_one_complete_set(tmp_path):
    _kills(tmp_path, 6, seed=30)


@pytest.mark.slow
def test_fifty_kills_of_a_replacement_each_leave_one_complete_set(tmp_path):
    _kills(tmp_path, 50, seed=3030)


def test_without_symbolic_links_the_outputs_are_replaced_one_by_one_and_only_ours(tmp_path):
    # Where the file system has no symbolic links (Windows without developer mode), the same
    # manifest decides what is replaced; the outputs are plain files.
    from tol_analysis.export.manifest import OutputFolder
    from tol_analysis.export.write import export
    from tol_analysis.read.logs import find_logs, read_session
    from tol_analysis.score.scores import score_sessions

    out = tmp_path / "out"

    def write(*names):
        data = _data(tmp_path / "-".join(names), *names)
        folder = OutputFolder(out, [data], replace=True, links=False)  # as on such a system
        folder.check()
        run = folder.staging()
        written = export(score_sessions(read_session(p) for p in find_logs([data])), run,
                         bids=True, bids_simulated=True)  # fmt: skip
        done = folder.commit(run, written, [data])
        folder.release()
        return done

    write("demo")
    assert not (out / "trials.csv").is_symlink()
    (out / "bids" / "notes.txt").write_text("the lab's")
    (out / "letter.docx").write_text("a letter")
    done = write("hanoi-classic")
    assert "letter.docx" in done.left_alone
    assert (out / "bids" / "notes.txt").read_text() == "the lab's"
    assert {r["participant"] for r in read_csv(out / "sessions.csv")} == {"G-hanoi-classic"}
    assert not (out / "bids" / "sub-Gdemo").exists()  # the earlier set's files, gone
    assert json.loads((out / MANIFEST).read_text())["files"]
    assert not [p for p in (out / STATE).iterdir() if p.name.startswith("run-")]

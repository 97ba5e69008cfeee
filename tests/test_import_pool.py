"""A file's sessions built by this process and forked copies of it (tol_tasks.importers.pool):
the same files as built one by one, in the file's order; a session a worker cannot build stops the import
with its error (file, row, column, value, fix), everything written before it intact."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES
from tests.system_tools import unavailable
from tol_tasks.importers import FORMATS, ImportSourceError, import_files, pool

_WHEN = re.compile(rb'"imported_at": "[^"]*"')
_RECORDS = json.loads((FIXTURES / "jspsych" / "J02.json").read_text(encoding="utf-8"))
_BAD_ROW = 16 * len(_RECORDS) + 3  # the bad session's (P017's) third record


def _grow(path: Path, copies: int, bad: int | None = None) -> Path:
    """J02's participant repeated ``copies`` times under new ids (as bench_import grows it);
    copy ``bad``'s third trial given a move from an empty peg."""
    out = []
    for k in range(1, copies + 1):
        for i, r in enumerate(_RECORDS):
            r = {**r, "subject_id": f"P{k:03d}"}
            if k == bad and i == 2:
                r["moves"] = [{"from": 2, "to": 0, "ball": "red", "time": 100.0}, *r["moves"]]
            out.append(r)
    path.write_text(json.dumps(out), encoding="utf-8")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    """Each file's bytes, the time of the import left out."""
    return {p.name: _WHEN.sub(b"", p.read_bytes()) for p in sorted(folder.iterdir())}


def _error(path: Path, out: Path, **kw) -> ImportSourceError:
    with pytest.raises(ImportSourceError) as got:
        import_files([path], out, **kw)
    return got.value


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(pool, "CHUNK", 3)  # many chunks, several out at once
    monkeypatch.setattr(pool, "MIN_SESSIONS", 2)  # the test files' 30-40 sessions


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_write_the_files_written_one_by_one(tmp_path, small_chunks, workers):
    source = _grow(tmp_path / "data.json", 40)
    one = import_files([source], tmp_path / "one", workers=1)
    two = import_files([source], tmp_path / "two", workers=workers)  # one or two copies
    assert len(one.written) == 40
    assert [p.name for p in two.written] == [p.name for p in one.written]  # the file's order
    assert (two.trials, two.events, two.warnings) == (one.trials, one.events, one.warnings)
    assert _files(tmp_path / "two") == _files(tmp_path / "one")
    again = import_files([source], tmp_path / "two", workers=workers)  # recognised, not rewritten
    assert (again.written, len(again.already)) == ([], 40)


def test_a_large_file_is_built_on_both_cores_by_default():
    cores = len(os.sched_getaffinity(0))
    assert pool.workers_for(pool.MIN_SESSIONS * 10, None) == min(cores, 2)
    assert pool.workers_for(pool.MIN_SESSIONS, 3) == 3
    assert pool.workers_for(pool.MIN_SESSIONS - 1, 3) == 1  # a small file: not worth it
    assert pool.workers_for(pool.MIN_SESSIONS - 1, None) == 1


def test_a_copy_that_ends_early_has_its_chunks_built_here(tmp_path, small_chunks, monkeypatch):
    """A forked copy killed before it sends anything: this process builds its chunks, and
    the files are those of one process alone."""
    source = _grow(tmp_path / "data.json", 20)
    real_fork = pool._fork

    def fork_and_kill(*args):
        conn, pid, give = real_fork(*args)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return conn, pid, give

    monkeypatch.setattr(pool, "_fork", fork_and_kill)
    two = import_files([source], tmp_path / "two", workers=2)
    import_files([source], tmp_path / "one", workers=1)
    assert len(two.written) == 20
    assert _files(tmp_path / "two") == _files(tmp_path / "one")


def test_a_session_a_worker_cannot_build_names_its_row_and_keeps_what_came_before(
    tmp_path, small_chunks
):
    source = _grow(tmp_path / "data.json", 30, bad=17)
    alone = _error(source, tmp_path / "alone", workers=1)
    pooled = _error(source, tmp_path / "pooled", workers=2)
    assert str(pooled) == str(alone)
    assert (pooled.where, pooled.field, pooled.value, pooled.fix) == (
        alone.where, alone.field, alone.value, alone.fix)  # fmt: skip
    assert "data.json: row " in str(pooled)
    assert "column 'moves'" in str(pooled)
    assert f"row {_BAD_ROW}:" in str(pooled)
    written = _files(tmp_path / "pooled")
    assert sorted({n.split("_")[0] for n in written}) == [f"P{k:03d}" for k in range(1, 17)]
    assert written == _files(tmp_path / "alone")  # whole, as one by one wrote them
    assert not [n for n in written if n.endswith((".part", ".tmp"))]


def test_with_skip_bad_the_workers_go_on_past_the_bad_session(tmp_path, small_chunks):
    source = _grow(tmp_path / "data.json", 30, bad=17)
    one = import_files([source], tmp_path / "one", workers=1, skip_bad=True)
    two = import_files([source], tmp_path / "two", workers=2, skip_bad=True)
    assert len(two.written) == 29
    assert two.skipped == one.skipped
    assert len(two.skipped) == 1
    assert f"row {_BAD_ROW}:" in two.skipped[0]
    assert _files(tmp_path / "two") == _files(tmp_path / "one")


def _timed_format(monkeypatch, slow: str, seconds: float = 0.05, bug: str | None = None):
    """jspsych-tol with each session built ``seconds`` late in ``slow`` ("copy": the forked
    copies, "here": this process), as on a busy core; ``bug``: the participant whose session
    raises an importer's bug (not the data's). Returns the participants built here (a
    copy's appends go to its own list)."""
    here, built_here = os.getpid(), []
    real = FORMATS["jspsych-tol"]

    def session(source, options, group):
        in_copy = os.getpid() != here
        if not in_copy:
            built_here.append(group.participant)
        if in_copy == (slow == "copy"):
            time.sleep(seconds)
        if group.participant == bug:
            raise RuntimeError(f"a bug building {bug}")
        return real.session(source, options, group)

    monkeypatch.setitem(FORMATS, "jspsych-tol", dataclasses.replace(real, session=session))
    return built_here


@pytest.mark.parametrize("slow", ["copy", "here"])
def test_the_chunks_go_to_the_process_that_is_free(tmp_path, small_chunks, monkeypatch, slow):
    """One process slowed (a busy core): the other builds most of the chunks, none waits
    while there is work (a fixed share would give this process 40 % either way), and the
    files are still those of one process alone."""
    source = _grow(tmp_path / "data.json", 60)
    import_files([source], tmp_path / "one", workers=1)
    built_here = _timed_format(monkeypatch, slow)
    two = import_files([source], tmp_path / "two", workers=2)
    assert len(two.written) == 60
    assert _files(tmp_path / "two") == _files(tmp_path / "one")
    assert len(set(built_here)) == len(built_here)  # no session built twice here
    if slow == "copy":  # the copy builds its first chunks and few more: 18 of 60 here
        assert len(built_here) >= 36, built_here
    else:  # this process builds while the copy's next chunk has not come: 3-6 of 60
        assert len(built_here) <= 15, built_here


def test_an_importers_bug_in_a_chunk_built_ahead_is_raised_in_its_turn(
    tmp_path, small_chunks, monkeypatch
):
    """A session this process built ahead (while the slow copy's chunks had not come) that
    fails for a reason not in the data is raised when its turn comes: every session before it
    written and durable, none after it."""
    source = _grow(tmp_path / "data.json", 40)
    built_here = _timed_format(monkeypatch, "copy", bug="P014")  # chunk 4, built ahead here
    with pytest.raises(RuntimeError, match="a bug building P014"):
        import_files([source], tmp_path / "two", workers=2)
    assert "P014" in built_here
    written = _files(tmp_path / "two")
    assert sorted({n.split("_")[0] for n in written}) == [f"P{k:03d}" for k in range(1, 14)]
    assert not [n for n in written if n.endswith((".part", ".tmp"))]


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_a_number_of_workers_that_is_not_one_is_refused(tmp_path, workers):
    with pytest.raises(ImportSourceError, match=r"workers=.* is not a number of processes"):
        import_files([FIXTURES / "jspsych" / "J02.json"], tmp_path, workers=workers)
    assert not any(tmp_path.iterdir())


def test_a_copys_pipe_holds_a_whole_chunk_of_texts():
    """The pipe a copy sends its results through takes a chunk of texts (about 750 KB for
    64 jsPsych sessions) at once, with nobody reading it yet (Linux; elsewhere the system's
    own room): the copy does not wait on this process's reading thread 64 KB at a time."""
    import multiprocessing

    try:
        import fcntl
    except ImportError:
        fcntl = None
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        unavailable("a pipe's room can be set only on Linux", "run the tests on Linux")
    read, write = multiprocessing.Pipe(duplex=False)
    try:
        pool._widen(write)
        assert fcntl.fcntl(write.fileno(), fcntl.F_GETPIPE_SZ) >= pool.PIPE
        os.set_blocking(write.fileno(), False)
        write.send_bytes(b"x" * (pool.PIPE - 64))  # with 64 KB of room: BlockingIOError
        assert len(read.recv_bytes()) == pool.PIPE - 64
    finally:
        read.close()
        write.close()

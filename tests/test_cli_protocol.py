"""The tol-protocol command, run as a user runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.runner_tools import exe
from tests.warm import warm

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "data" / "broken"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    command = warm([exe("tol-protocol"), *args])  # played warm (tests/warm.py)
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def test_check_valid_and_broken_files():
    ok = _run("check", "demo", "london-shallice")
    assert ok.returncode == 0, ok.stderr
    assert "demo: OK (demo, 3 problems" in ok.stdout
    bad = _run("check", "demo", str(BROKEN / "wrong-min.yaml"), str(BROKEN / "yaml-syntax.yaml"))
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert "wrong-min.yaml:7: blocks[0].problems[0].min_moves: states 6" in bad.stderr
    assert "yaml-syntax.yaml:5: not valid YAML" in bad.stderr
    assert "demo: OK" in bad.stdout


def test_describe_table_and_csv():
    out = _run("describe", "london-shallice")
    assert out.returncode == 0
    assert "shallice-12" in out.stdout
    assert "partial tower" in out.stdout
    csv_out = _run("describe", "hanoi-classic", "--csv")
    lines = csv_out.stdout.splitlines()
    assert lines[0].startswith("block,id,puzzle,start,goal,min_moves,shortest_paths")
    assert lines[-1].startswith("test,tower-5,5 disks,AAAAA,CCCCC,31,1,1,tower,tower,False")


def test_missing_file_is_a_clear_message():
    out = _run("describe", "no-such-protocol.yaml")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "no bundled protocol has that name" in out.stderr


def test_generate_writes_and_never_overwrites(tmp_path):
    target = tmp_path / "gen.yaml"
    args = ["generate", "--disks", "4", "--min-moves", "3-6", "--per-level", "2", "--seed", "3"]
    first = _run(*args, "--output", str(target))
    assert first.returncode == 0, first.stderr
    assert _run("check", str(target)).returncode == 0
    again = _run(*args, "--output", str(target))
    assert again.returncode == 2
    assert "exists" in again.stderr

    def body(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("# Command:")]

    assert body(_run(*args).stdout) == body(target.read_text())
    impossible = _run("generate", "--task", "london", "--min-moves", "9-9")
    assert impossible.returncode == 2
    assert "only 0 problem(s) of 9 moves" in impossible.stderr


def test_list_shows_bundled_protocols():
    out = _run("list")
    assert out.returncode == 0
    for name in ("demo", "london-shallice", "hanoi-generalized"):
        assert name in out.stdout


@pytest.mark.parametrize(
    "args", [["list"], ["describe", "hanoi-generalized"], ["describe", "demo", "--csv"]]
)
def test_a_reader_that_stops_early_ends_the_command_quietly(args):
    # `tol-protocol list | head -1`: the reader closes the pipe before the command has
    # written everything. Here it is closed before the command writes at all, so that every
    # write meets the closed pipe (with head the race may hide it).
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    try:
        done = subprocess.run([exe("tol-protocol"), *args], stdout=write_fd, stderr=subprocess.PIPE, text=True,
                              check=False, timeout=60)  # fmt: skip
    finally:
        os.close(write_fd)
    assert done.stderr == ""
    assert done.returncode == 0

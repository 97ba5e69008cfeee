"""A path the system refuses (a name too long, a folder where a file belongs) is named with a
fix by every command, never shown as a traceback (``tol_tasks.errors.path_errors_said``).

Found by random options given to the commands (a throw-away fuzz of tol-score, tol-protocol,
tol-import and tol-web): ``tol-score --output NAME`` with a name of 5,000 characters printed
``OSError: [Errno 36] File name too long`` and its traceback (``Path.exists`` raises for
such a name instead of saying no); so did ``tol-protocol check``, ``describe`` and
``generate --output``, and ``tol-score`` given such a name as its input.
"""

from __future__ import annotations

import errno

import pytest

from tests.test_cli_protocol import ROOT
from tol_analysis.cli import main as score_main
from tol_tasks.cli import protocol_main
from tol_tasks.errors import path_error, path_errors_said
from tol_tasks.importers.cli import main as import_main
from tol_tasks.web.cli import main as web_main

GOLDEN = ROOT / "tests" / "data" / "golden" / "sessions"
JSPSYCH = ROOT / "tests" / "data" / "import" / "jspsych" / "J01.csv"
#: A folder or file name longer than any file system takes (255 bytes at most).
LONG = "n" * 300


@pytest.mark.parametrize(
    ("main", "args", "said"),
    [
        (score_main, ["{long}", "--output", "{tmp}/out"],
         "tol-score: {long}: File name too long. Suggested fix: give a shorter path (at most 255"),
        (score_main, ["{long}", "--verify"], "tol-score: {long}: File name too long"),
        (score_main, [str(GOLDEN), "--output", "{long}"], "tol-score: {long}: File name too long"),
        (protocol_main, ["describe", "{long}"],
         "{long}: cannot be read: File name too long. Suggested fix: give a shorter path"),
        (protocol_main, ["generate", "--task", "london", "--output", "{long}/p.yaml"],
         "tol-protocol: {long}/p.yaml: File name too long"),
        (import_main, [str(JSPSYCH), "--output", "{long}"],
         "tol-import: {long}: the output folder cannot be made (File name too long)"),
        (web_main, ["build", "demo", "--download", "--output", "{long}"],
         "tol-web: {long}: File name too long"),
        (web_main, ["extract", "{long}", "--output", "{tmp}/out"],
         "tol-web: {long}: cannot be read (File name too long). Suggested fix: give a shorter"),
    ],
    ids=["score-input", "score-verify", "score-output", "protocol-describe",
         "protocol-generate", "import-output", "web-build", "web-extract"],
)  # fmt: skip
def test_a_name_too_long_is_named_with_a_fix(main, args, said, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the long names are relative: made (or not) here
    args = [a.format(long=LONG, tmp=tmp_path) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said.format(long=LONG) in err
    assert "Suggested fix:" in err
    assert "Traceback" not in err


def test_protocol_check_names_each_refused_path_and_goes_on(tmp_path, capsys):
    assert protocol_main(["check", LONG, str(tmp_path), "demo"]) == 1
    out, err = capsys.readouterr()
    assert f"{LONG}: cannot be read: File name too long. Suggested fix: give a shorter path" in err
    assert f"{tmp_path}: cannot be read: Is a directory. Suggested fix: give a file there, " in err
    assert "demo: OK (demo, 3 problems" in out


def test_only_a_refused_path_is_said_so_other_errors_go_on():
    @path_errors_said("tol-x")
    def no_path():
        raise OSError(errno.EIO, "Input/output error")

    @path_errors_said("tol-x")
    def closed_pipe():
        raise BrokenPipeError(errno.EPIPE, "Broken pipe", "<stdout>")

    with pytest.raises(OSError, match="Input/output error"):
        no_path()
    with pytest.raises(BrokenPipeError):
        closed_pipe()
    refused = OSError(errno.EACCES, "Permission denied", "/data/x")
    assert path_error(refused) == (
        "/data/x: Permission denied. Suggested fix: choose a place you may read or write, or "
        "fix its permissions."
    )

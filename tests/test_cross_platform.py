"""No Linux-only assumption outside the X listener: what Windows and macOS users meet.

File names a session writes are legal on Windows; protocol files and event logs with
Windows line ends (CRLF) read as with Unix ones; folders with spaces work; the code holds
no Linux-only call outside the modules allowed one (each with the reason).
"""

from __future__ import annotations

import filecmp
import re
import shutil
from pathlib import Path, PureWindowsPath

import pytest

from tol_analysis.cli import main as score_main
from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import bundled_protocols, load_protocol
from tol_tasks.runner.files import session_paths
from tol_tasks.runner.settings import RunSettings

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden" / "sessions"

#: Characters Windows refuses in a file name, and its reserved device names.
_WINDOWS_BAD = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                     *(f"LPT{i}" for i in range(1, 10))}  # fmt: skip


def _legal_on_windows(name: str) -> bool:
    stem = name.split(".")[0].upper()
    return (not _WINDOWS_BAD.search(name) and not name.endswith((".", " "))
            and stem not in _WINDOWS_RESERVED and len(name) <= 255)  # fmt: skip


@pytest.mark.parametrize("bids_names", [False, True])
def test_the_data_file_names_are_legal_on_windows(tmp_path, bids_names):
    participants = ["P001", "con", "sub.1", "A-b_c.d", "x" * 64]
    for protocol in bundled_protocols():
        for participant in participants:
            settings = RunSettings(participant=participant, output=tmp_path,
                                   bids_names=bids_names)  # fmt: skip
            for path in session_paths(settings, protocol):
                assert _legal_on_windows(path.name), path.name
                # under a Windows folder with a drive letter and spaces, the same name
                inside = PureWindowsPath(r"D:\My study\data") / path.name
                assert inside.name == path.name
                assert inside.drive == "D:"
    assert not _legal_on_windows("P1_demo_2026-11-25_14:03.csv")  # the check can fail
    assert not _legal_on_windows("CON.csv")


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def test_a_protocol_file_with_windows_line_ends_reads_as_with_unix_ones(tmp_path):
    for name, path in bundled_protocols().items():
        copy = tmp_path / f"{name}.yaml"
        copy.write_bytes(_crlf(path.read_text(encoding="utf-8")))
        assert b"\r\n" in copy.read_bytes()
        assert load_protocol(copy).model == load_protocol(path).model, name


def test_an_error_in_a_crlf_protocol_names_the_same_line(tmp_path):
    text = bundled_protocols()["demo"].read_text(encoding="utf-8")
    lines = text.splitlines()
    (at,) = [i for i, line in enumerate(lines) if "goal:" in line][:1]
    lines[at] = re.sub(r"goal: [^,}]*", "goal: AB", lines[at])  # 2 disks of 3
    assert "goal: AB" in lines[at]
    unix, windows = tmp_path / "unix.yaml", tmp_path / "windows.yaml"
    unix.write_text("\n".join(lines) + "\n", encoding="utf-8")
    windows.write_bytes(_crlf("\n".join(lines) + "\n"))
    said = []
    for path in (unix, windows):
        with pytest.raises(ProtocolError) as caught:
            load_protocol(path)
        said.append(str(caught.value).replace(path.name, "FILE"))
    assert f"FILE:{at + 1}:" in said[0]
    assert said[0] == said[1]


def test_sessions_with_windows_line_ends_in_folders_with_spaces_score_the_same(tmp_path):
    unix, windows = tmp_path / "unix data", tmp_path / "my data (Windows)"
    unix.mkdir()
    windows.mkdir()
    for name in ("demo", "hanoi-adjacent"):
        for suffix in (".csv", ".json"):
            src = GOLDEN / f"{name}{suffix}"
            shutil.copy(src, unix / src.name)
            (windows / src.name).write_bytes(_crlf(src.read_text(encoding="utf-8")))
    assert b"\r\n" in (windows / "demo.csv").read_bytes()
    for folder, out in ((unix, "unix scores"), (windows, "windows scores")):
        assert score_main([str(folder), "--output", str(tmp_path / out)]) == 0
    for table in ("moves.csv", "trials.csv", "sessions.csv"):
        a, b = tmp_path / "unix scores" / table, tmp_path / "windows scores" / table
        assert a.read_text(encoding="utf-8").count("\n") > 1
        assert filecmp.cmp(a, b, shallow=False), table


#: Modules allowed a Linux-only call, and why.
_LINUX_ONLY_ALLOWED = {
    "tol_tasks/runner/xlistener.py": "the X Input 2 listener: Linux with X11 only, by design",
    "tol_tasks/runner/arrival.py": "starts the X listener, only where sys.platform is linux",
    "tol_tasks/runner/lock.py": "flock on POSIX (Linux, macOS), msvcrt.locking on Windows",
    "tol_tasks/protocol_format/neuro.py": "a description naming a serial port on Linux and on "
    "Windows (/dev/ttyACM0 or COM4)",
    "analysis/tol_analysis/export/manifest.py": "tol-score's output lock: flock on POSIX, msvcrt.locking "
    "on Windows",
    "tol_tasks/session_data/sidecar.py": "reads the umask from /proc where there is one, "
    "else asks the OS (every system)",
}
_LINUX_ONLY = re.compile(
    r"""["']/(tmp|proc|dev|sys|etc)/|os\.uname\(|os\.get(e)?uid\(|\bimport (fcntl|termios|pwd|grp|resource)\b|select\.select\(|signal\.SIGKILL|["']xdg-open["']"""
)


def test_no_linux_only_call_outside_the_modules_allowed_one():
    found = []
    for path in [*(ROOT / "tol_tasks").rglob("*.py"), *(ROOT / "analysis").rglob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _LINUX_ONLY.search(line) and rel not in _LINUX_ONLY_ALLOWED:
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "Linux-only calls (or add the module and why to _LINUX_ONLY_ALLOWED):\n" + (
        "\n".join(found)
    )
    assert _LINUX_ONLY.search('open("/proc/self/status")')  # the pattern finds what it is for

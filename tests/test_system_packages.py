"""The system packages, declared once in ``scripts/system-packages.txt``.

A fresh Debian gets exactly the ``setup``, ``run`` and ``test`` packages from
``scripts/setup.sh``; what a PsychoPy window and PsychoPy's participant dialog load
must come from them. The libraries are read off a real process (its memory map, after
a window drew text and the dialog was shown), each mapped to its Debian package with
``dpkg -S``; the packages a plain Debian holds are its required and important ones and
python3, with everything they depend on (``apt-cache depends --recurse``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.system_tools import ROOT, system_packages, unavailable

#: Opens a PsychoPy window that draws text, shows PsychoPy's participant dialog (closed by
#: a timer), then prints the shared libraries mapped into the process.
_PROBE = r"""
import os
from psychopy import visual, gui
from psychopy.gui import qtgui
from PyQt6 import QtCore, QtWidgets

win = visual.Window((300, 200), winType="pyglet")
visual.TextStim(win, "Tower").draw()
win.flip()
os.environ.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)  # as tol_tasks.runner.dialog does
qtgui.ensureQtApp()
QtCore.QTimer.singleShot(1000, lambda: [w.close() for w in QtWidgets.QApplication.topLevelWidgets()])
gui.DlgFromDict({"participant": "P1"}, title="probe")
win.close()
with open("/proc/self/maps") as maps:
    print("\n".join(sorted({line.split()[-1] for line in maps if ".so" in line})))
"""


def _packages(need: str) -> list[str]:
    return [p.name for p in system_packages() if p.need == need]


def _owners(paths: list[str]) -> dict[str, str | None]:
    """The Debian package that holds each of ``paths`` (its real file), or None.

    One ``dpkg -S`` for them all, then one for those not found under their other spelling
    (merged /usr): each call reads dpkg's whole database (half a second), once a path made
    this test take over a minute. An absolute path is matched exactly (``man dpkg-query``).
    """
    real = {path: str(Path(path).resolve()) for path in paths}
    found: dict[str, str] = {}
    for spell in (lambda r: r, lambda r: re.sub(r"^/usr/", "/", r)):
        wanted = sorted({spell(r) for r in real.values() if r not in found})
        if not wanted:
            break
        done = subprocess.run(["dpkg", "-S", *wanted], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            owner, _, file = line.rpartition(": ")
            if file in wanted and not owner.startswith("diversion by"):
                original = next(r for r in real.values() if spell(r) == file)
                found.setdefault(original, owner.split(":", 1)[0])
    return {path: found.get(r) for path, r in real.items()}


def _closure(roots: list[str]) -> set[str]:
    """``roots`` and every package they depend on (pre-depend on), recursively."""
    done = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
         "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *roots],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return {line.removesuffix(":any") for line in done.stdout.splitlines() if line[:1] not in " <"}


def _plain_debian() -> list[str]:
    """The required and important packages (what debootstrap installs) and python3."""
    done = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Priority}\n"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    rows = (line.split() for line in done.stdout.splitlines())
    return ["python3", *(r[0] for r in rows if len(r) == 2 and r[1] in ("required", "important"))]


@pytest.mark.display
def test_what_a_window_and_the_dialog_load_comes_from_the_run_packages(xdisplay):
    if shutil.which("dpkg-query") is None or shutil.which("apt-cache") is None:
        unavailable("this check reads Debian's package database (dpkg, apt)",
                    "run it on Debian or Ubuntu")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          env=xdisplay, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The environment's libraries (wheels) and the interpreter's own are not the system's;
    # a system Python (Debian's, at /usr) is the system's: its libraries are checked too.
    ours = {Path(sys.prefix).resolve()}
    if Path(sys.base_prefix).resolve() not in (Path("/usr"), Path("/usr/local")):
        ours.add(Path(sys.base_prefix).resolve())
    system = [
        lib for lib in done.stdout.split()
        if lib.startswith("/") and not any(Path(lib).resolve().is_relative_to(r) for r in ours)
    ]  # fmt: skip
    assert any("libGLU" in lib for lib in system)  # pyglet's GLU, the library once missed
    assert any("libxkbcommon-x11" in lib for lib in system)  # Qt's keyboard, once missed
    owners = _owners(system)
    assert not [lib for lib, owner in owners.items() if owner is None]
    covered = _closure(_plain_debian() + _packages("setup") + _packages("run"))
    optional = _closure(_packages("optional"))
    missing = sorted({o for o in owners.values() if o not in covered and o not in optional})
    assert not missing, (
        f"loaded from packages that a fresh Debian with the `run` packages lacks: {missing}; "
        "add the package that holds each library to scripts/system-packages.txt"
    )


def test_setup_sh_reads_the_same_packages_as_the_tests():
    for needs in (("setup", "run", "test"), ("optional",)):
        done = subprocess.run(
            ["bash", "-c", f'source scripts/_common.sh && system_packages {" ".join(needs)}'],
            cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert done.stdout.split() == [p.name for p in system_packages() if p.need in needs]
    assert {p.need for p in system_packages()} == {"setup", "run", "test", "optional"}


#: `apt-get install NAME...` as the docs, messages and scripts spell it.
_APT_INSTALL = re.compile(r"apt-get install ((?:[a-z0-9][a-z0-9.+-]+ ?)+)")


def test_every_package_named_anywhere_is_declared():
    declared = {p.name for p in system_packages()}
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "tests").glob("*.py"),
             *(ROOT / "tol_tasks").rglob("*.py"), *(ROOT / "scripts").glob("*.sh")]  # fmt: skip
    named = {
        (f.relative_to(ROOT).as_posix(), name)
        for f in files
        if "_build" not in f.parts
        for m in _APT_INSTALL.finditer(f.read_text(encoding="utf-8"))
        for name in m.group(1).split()
    }  # fmt: skip
    assert named  # the pattern finds what it is for
    undeclared = sorted((f, n) for f, n in named if n not in declared)
    assert not undeclared, "declare them in scripts/system-packages.txt: " + repr(undeclared)


def _not_found_by_setup_sh(names: list[str]) -> list[str]:
    """The packages of ``names`` that setup.sh's ``apt_has_candidate`` says the archive lacks,
    asked under pipefail as setup.sh runs (one ``apt-cache policy`` per package)."""
    if shutil.which("apt-cache") is None:
        unavailable("no apt-cache here (not a Debian-like system)", "run on Debian or Ubuntu")
    script = (f"set -euo pipefail; source scripts/_common.sh; "
              f"for p in {' '.join(names)}; do apt_has_candidate $p || echo $p; done")  # fmt: skip
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True,
                          check=True)  # fmt: skip
    return done.stdout.split()


def _required_packages() -> list[str]:
    return [p.name for p in system_packages() if p.need != "optional"]


def test_every_declared_package_is_in_the_archive_and_setup_sh_finds_it():
    """setup.sh installs only what the archive has; on Debian that is every declared package.
    The archive asked once for all of them (``apt-cache policy`` reads the whole package cache
    at each start: 0.6 s of CPU each); setup.sh's own check on the two packages it once
    called absent and on a package that is not there. Every package through setup.sh's
    check, as many times as it has packages: the slow test below."""
    if shutil.which("apt-cache") is None:
        unavailable("no apt-cache here (not a Debian-like system)", "run on Debian or Ubuntu")
    names = _required_packages()
    policy = subprocess.run(["apt-cache", "policy", *names], capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    candidate = dict(re.findall(r"(?m)^(\S+):\n\s+Installed: .*\n\s+Candidate: (.*)$", policy))
    assert [n for n in names if candidate.get(n, "(none)") == "(none)"] == []
    assert {"xvfb", "libgl1"} <= set(names)
    assert _not_found_by_setup_sh(["xvfb", "libgl1", "no-such-package-tol"]) == [
        "no-such-package-tol"
    ]


@pytest.mark.slow  # covered in the loop by the test above (the archive, and setup.sh's check)
def test_setup_sh_finds_every_declared_package_in_the_archive_every_time():
    """Asked under pipefail as setup.sh runs: the check once read apt-cache's answer through
    ``grep -q`` and called most packages "not in the archive" at random (SIGPIPE; 16 of 18
    answers wrong here, xvfb among them on a fresh Debian 12)."""
    assert _not_found_by_setup_sh(_required_packages()) == []
    assert _not_found_by_setup_sh(["no-such-package-tol"]) == ["no-such-package-tol"]

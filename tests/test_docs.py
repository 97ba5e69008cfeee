"""The documentation: every example in it runs, and a broken internal link fails its build.

Examples are taken from the README and every page of ``docs/`` (the site's pages and the
pages it includes), in the page's order, in a fresh folder per page, under a real X display
(Xvfb), as a reader would run them:

- a ```` ```python ```` block runs as a script (``python block.py``) and must not raise;
- each ``$ tol-...`` line of a ```` ```console ```` block runs as a shell command and must
  exit 0;
- a ```` ```{code-block} ```` with a ``:caption:`` is the file the caption names: it is
  written to that file first, for the commands after it;
- ```` ```bash ```` blocks are shown, not run (they need a person at the screen, PsychoPy's
  GUI or a web server); every other kind is text.

Pages whose examples open a window (``tol-run``, PsychoPy) are marked slow.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: Folders of docs/ that hold no pages of their own (build output, what the build generates).
NOT_PAGES = ("_build", "_generated")

FENCE = re.compile(r"^(?P<fence>`{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)  # fmt: skip
OPTION = re.compile(r"^:(\w[\w-]*):[ \t]*(.*)$")


@dataclass(frozen=True)
class Example:
    kind: str  # "python", "console" or "file"
    text: str
    line: int
    name: str = ""  # the file of a "file" example


def pages() -> list[Path]:
    found = [ROOT / "README.md"]
    for p in sorted(DOCS.rglob("*.md")):
        if not any(part in NOT_PAGES for part in p.relative_to(DOCS).parts):
            found.append(p)
    return found


def examples(text: str) -> list[Example]:
    """The runnable examples of a Markdown page, in order."""
    out = []
    for m in FENCE.finditer(text):
        info, body = m.group("info").strip(), m.group("body")
        line = text.count("\n", 0, m.start()) + 1
        if info == "python":
            out.append(Example("python", body, line))
        elif info == "console":
            for cmd in body.splitlines():
                if cmd.startswith("$ tol-"):
                    out.append(Example("console", cmd[2:], line))
        elif info.startswith("{code-block}"):
            lines = body.splitlines()
            options = {}
            while lines and (opt := OPTION.match(lines[0])):
                options[opt.group(1)] = opt.group(2)
                lines.pop(0)
            if "caption" in options:
                out.append(Example("file", "\n".join(lines).lstrip("\n") + "\n", line,
                                   options["caption"]))  # fmt: skip
    return out


def _needs_display(found: list[Example]) -> bool:
    return any("tol-run" in e.text or "psychopy" in e.text for e in found)


def _params():
    params = []
    for page in pages():
        found = examples(page.read_text(encoding="utf-8"))
        if not any(e.kind != "file" for e in found):
            continue
        marks = [pytest.mark.slow] if _needs_display(found) else []
        params.append(pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks))
    return params


def _env(display_env: dict) -> dict:
    env = dict(display_env)
    # The commands of the pages are the installed entry points of this environment.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("QT_QPA_PLATFORM", "xcb")
    return env


@pytest.mark.parametrize("page", _params())
def test_every_example_of_the_page_runs(page, tmp_path, xdisplay):
    env = _env(xdisplay)
    where = page.relative_to(ROOT)
    for i, ex in enumerate(examples(page.read_text(encoding="utf-8"))):
        if ex.kind == "file":
            (tmp_path / ex.name).write_text(ex.text, encoding="utf-8")
            continue
        if ex.kind == "python":
            script = tmp_path / f"example_{i}.py"
            script.write_text(ex.text, encoding="utf-8")
            args, shell = [sys.executable, script.name], False
        else:
            args, shell = ex.text, True
        done = subprocess.run(args, shell=shell, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, (
            f"{where}:{ex.line}: the {ex.kind} example failed ({done.returncode}):\n"
            f"{ex.text}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        )


def test_the_examples_are_found():
    # The runner above is not empty: the pages hold the examples it is meant to run.
    every = {p.relative_to(ROOT).as_posix(): examples(p.read_text("utf-8")) for p in pages()}
    kinds = {k: {e.kind for e in found} for k, found in every.items()}
    assert {"python"} <= kinds["README.md"]
    assert {"python", "console", "file"} <= kinds["docs/getting-started.md"]
    assert {"python", "console"} <= kinds["docs/scoring.md"]
    assert "python" in kinds["docs/coder.md"]
    assert sum(len(found) for found in every.values()) >= 30
    # A caption names the file; its options are not part of it.
    (first,) = [e for e in every["docs/getting-started.md"] if e.kind == "file"]
    assert first.name == "my-first.yaml"
    assert first.text.startswith("format: 1\n")


def test_a_failing_example_fails(tmp_path, xdisplay):
    # The check can fail: an example that raises, and a command that exits non-zero.
    page = tmp_path / "page.md"
    page.write_text("```python\nraise SystemExit(3)\n```\n", encoding="utf-8")
    (ex,) = examples(page.read_text("utf-8"))
    script = tmp_path / "x.py"
    script.write_text(ex.text)
    assert subprocess.run([sys.executable, script], check=False).returncode == 3
    (cmd,) = examples("```console\n$ tol-protocol check no-such-file.yaml\n```\n")
    done = subprocess.run(cmd.text, shell=True, cwd=tmp_path, env=_env(xdisplay),
                          capture_output=True, check=False)  # fmt: skip
    assert done.returncode != 0


@pytest.mark.slow
def test_a_broken_internal_link_fails_the_build(tmp_path):
    """Plant broken links in a copy of the site: its build fails and names each of them."""
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("_build"))
    page = copy / "coder.md"
    text = page.read_text(encoding="utf-8")
    planted_line = text.count("\n") + 2
    page.write_text(
        text + "\nSee [a page](no-such-page.md), [an anchor](lab.md#no-such-heading), "
        "[here](#nowhere) and {class}`tol_tasks.NoSuchClass`.\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(copy), str(tmp_path / "html"), "-D", "tol_screenshots=0"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode != 0, done.stderr
    warnings = [w for w in done.stderr.splitlines() if "WARNING" in w]
    planted = [w for w in warnings if f"coder.md:{planted_line}" in w]
    for needle in ("no-such-page.md", "no-such-heading", "nowhere", "tol_tasks.NoSuchClass"):
        assert any(needle in w for w in planted), (needle, done.stderr[-4000:])  # the cause
    # Nothing else failed (the screenshots are not taken in this quick build: when no earlier
    # build left them, their images are missing, and that is all).
    others = [w for w in warnings if w not in planted and "image file not readable" not in w]
    assert others == []

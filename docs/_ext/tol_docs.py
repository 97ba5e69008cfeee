"""Sphinx extension of the tol-tasks site: the pages generated from their one declaration.

At the start of every build (``builder-inited``) it writes, into ``docs/_generated/``
(git-ignored, never committed):

- ``protocol-reference.md``: every protocol key, from the pydantic model
  (:class:`tol_tasks.protocol_format.model.Protocol`): type, default, meaning;
- ``event-log.md`` and ``sidecar.md``: from the event log's codebook and the sidecar's model
  (:mod:`tol_tasks.session_data.codebook.render`);
- ``system-packages.md``: the system packages, from ``scripts/system-packages.txt``;
- ``first-mistakes.md``: the messages of the mistakes a new user makes first, from the
  commands themselves, run at every build (:data:`FIRST_MISTAKES`);
- ``codebook.md``: every column ``tol-score`` writes, from the column registry
  (:mod:`tol_analysis.columns`) and the conventions (:mod:`tol_analysis.conventions`);
- ``screenshots/*.png``: what the participant sees, from real ``tol-run`` sessions under
  Xvfb (``docs/screenshots.py``), unless ``tol_screenshots`` is false (``-D
  tol_screenshots=0``: the link-check test's quick build of a copy).
"""

from __future__ import annotations

import importlib.util
import sys
import typing
from pathlib import Path

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

DOCS = Path(__file__).resolve().parents[1]
GENERATED = DOCS / "_generated"


# ---------------------------------------------------------------- protocol format
def _default(field) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        made = field.default_factory()
        return "see below" if isinstance(made, BaseModel) else f"`{made!r}`"
    value = field.default
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return "" if value is PydanticUndefined else f"`{value!r}`"


def protocol_reference() -> str:
    """The protocol format's reference page, from the pydantic model."""
    from tol_tasks.protocol_format.model import PROTOCOL_FORMAT, Protocol
    from tol_tasks.session_data.codebook.render import _sections, _type_name

    def meaning(field) -> str:
        """The field's description, else the first line of its section's docstring."""
        if field.description:
            return field.description
        sections = [a for a in (field.annotation, *typing.get_args(field.annotation))
                    if isinstance(a, type) and issubclass(a, BaseModel)]  # fmt: skip
        firsts = [(m.__doc__ or "").strip().splitlines()[0].rstrip(".") for m in sections]
        return " or ".join(firsts)

    def table(model: type[BaseModel]) -> list[str]:
        lines = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
        for name, f in model.model_fields.items():
            lines.append(f"| `{name}` | {_type_name(f.annotation)} | {_default(f)} "
                         f"| {meaning(f)} |")  # fmt: skip
        return lines

    lines = [
        f"# Protocol format {PROTOCOL_FORMAT}: every key",
        "",
        "Generated from the protocol model (`tol_tasks/protocol_format/model.py`, the class "
        "`Protocol`) when the documentation is built; what `tol-protocol check` accepts is "
        "exactly this. A key's *default* is what a protocol that leaves it out gets; "
        "*see below* means a section whose own keys have defaults. The commented example in "
        "[](../protocols.md) shows every key in place.",
        "",
        "## Protocol",
        "",
        (Protocol.__doc__ or "").strip(),
        "",
        *table(Protocol),
    ]
    sections: list[type[BaseModel]] = []
    _sections(Protocol, sections)
    for model in sections:
        doc = (model.__doc__ or "").strip()
        lines += ["", f"## {model.__name__}", "", doc, "", *table(model)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- scores
def codebook_page() -> str:
    """Every column tol-score writes, from the column registry."""
    from tol_analysis import columns as reg
    from tol_analysis.cells import ESCAPE_NOTE
    from tol_analysis.conventions import EXPLAINED, Conventions

    def row(c, name=None, definition=None) -> str:
        conv = ", ".join(f"`{v}`" for v in c.conventions)
        mark = f" **Headline** ({c.better} is better)." if c.headline and c.better else (
            " **Headline**." if c.headline else "")  # fmt: skip
        return (f"| `{name or c.name}` | {c.type} | {c.unit} | {definition or c.definition}"
                f"{mark} | {c.source} | {conv} |")  # fmt: skip

    head = ["| column | type | unit | definition | source | depends on |",
            "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    lines = [
        "# The scores' codebook",
        "",
        "Generated from the column registry (`analysis/tol_analysis/columns.py`) when the "
        "documentation is built. `tol-score` writes the same facts beside every scoring as "
        "`codebook.json` and `codebook.md`, with the conventions that run used. *Depends on* "
        "names the [conventions](#conventions) a column's values change with; the "
        "**headline** measures are what a session report shows first.",
        "",
        "## Rules: void, missing and failed",
        "",
        *(f"- **{k}**: {text} (source: {source})" for k, (text, source) in reg.RULES.items()),
        "",
        "## Conventions",
        "",
        "| convention | default | meaning |",
        "| --- | --- | --- |",
    ]
    for name, default in Conventions().as_dict().items():
        lines.append(f"| `{name}` | `{default}` | {EXPLAINED[name]} |")
    lines += ["", f"Missing values: {reg.MISSING_VALUES}.", "", f"Text cells: {ESCAPE_NOTE}.", ""]
    for table in reg.TABLES.values():
        lines += [f"## {table.file}", "", *head, *(row(c) for c in table), ""]
        if table is reg.SESSIONS:
            lines += [
                f"### {table.file}: per minimum-move level",
                "",
                "For each minimum number of moves *k* among the session's problems:",
                "",
                *head,
                *(row(c, reg.level_name("k", c.name).replace("mink", "min{k}")) for c in
                  reg.SESSION_LEVELS),
                "",
            ]  # fmt: skip
    for table in reg.WHEN_PRESENT.values():
        lines += [
            f"## {table.file}",
            "",
            "Written only when the scored sessions have what it "
            "is about (planning-only problems, an eye tracker: see the "
            "neuroimaging page).",
            "",
            *head,
            *(row(c) for c in table),
            "",
        ]
    lines += [
        "## wide.csv",
        "",
        *head,
        row(reg.PARTICIPANT),
        row(reg.WIDE_SIMULATED),
        "| `<field>` | | | Each participant field of the protocol (`participant_fields`), typed "
        "as declared: the participant's first session with a value. | | |",
        f"| `{reg.WIDE_SESSION_NAME}` | string | | {reg.wide_session_definition()} | | |",
        f"| `{reg.WIDE_NAME}` | | | {reg.wide_definition()} | | |",
        "",
        "## trials.sav only",
        "",
        *head,
        row(reg.SESSION_START),
        "",
        "## References",
        "",
    ]
    lines += [f"- **{key}**: {text}" for key, text in reg.REFERENCES.items()]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the system packages
def _system_packages_file() -> Path:
    """``scripts/system-packages.txt`` of the checkout whose ``tol_tasks`` this build documents.

    Found from the package, not from this folder: a copy of ``docs/`` built elsewhere (the
    broken-link test builds one) documents the same checkout.
    """
    import tol_tasks

    return Path(tol_tasks.__file__).resolve().parents[1] / "scripts" / "system-packages.txt"


_NEEDS = {
    "setup": "for `scripts/setup.sh` itself",
    "run": "the task's windows and dialogs (every lab computer running Linux)",
    "test": "the test suite and this site (contributors)",
    "optional": "used when present, never installed",
}


def system_packages_table() -> str:
    """The table of ``scripts/system-packages.txt``, where each package is declared once."""
    rows = ["| Debian/Ubuntu package | needed for | why |", "|---|---|---|"]
    for line in _system_packages_file().read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, need, _program, why = line.split(maxsplit=3)
        rows.append(f"| `{name}` | {_NEEDS[need]} | {why.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- troubleshooting
#: The mistakes a new user makes first, each run for real at every build: (what happened,
#: the files the folder holds first, the command typed). The page shows each message as
#: the command prints it, its fix included, so the page cannot fall out of date.
FIRST_MISTAKES = [
    ("`tol-run` with nothing after it", {}, "tol-run"),
    ("A protocol name misspelt", {}, "tol-run demoo"),
    ("A mistake in a protocol file (a goal with two pegs for three)",
     {"mine.yaml": "format: 1\nname: mine\nversion: '1'\ntask: {type: london}\nblocks:\n"
                   "  - name: test\n    problems:\n"
                   "      - {id: p1, start: 'GR|B|', goal: 'GR|B'}\n"},
     "tol-protocol check mine.yaml"),
    ("No screen (a server, a remote shell without X)", {}, "tol-run demo --participant P01"),
    ("Scoring without saying where the tables go", {"data/.keep": ""}, "tol-score data"),
    ("Scoring a folder that does not exist", {}, "tol-score dta --output scored"),
    ("Scoring a folder with no session in it", {"data/.keep": ""},
     "tol-score data --output scored"),
    ("A study page built without saying where its data go", {},
     "tol-web build demo --output site"),
    ("Importing without an output folder", {"results.csv": "a,b\n1,2\n"},
     "tol-import results.csv"),
]  # fmt: skip


def _said(files: dict[str, str], command: str) -> str:
    """What ``command`` prints (both streams), run with this Python in a fresh folder with no
    display, as ``python -m tol_tasks`` (the same functions as the scripts)."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        script, *args = command.split()
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        done = subprocess.run(
            [sys.executable, "-m", "tol_tasks", script.removeprefix("tol-"), *args],
            cwd=tmp, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    return (done.stdout + done.stderr).strip()


def troubleshooting_messages() -> str:
    """Each of :data:`FIRST_MISTAKES`, with the message the command prints, as Markdown."""
    out = []
    for what, files, command in FIRST_MISTAKES:
        said = _said(files, command)
        out += [
            f"### {what}",
            "",
            "```{code-block} console",
            ":class: tol-message",
            "",
            f"$ {command}",
            said,
            "```",
            "",
        ]
    return "\n".join(out)


# ---------------------------------------------------------------- the build
def _write(path: Path, text: str) -> None:
    """Write only when the text changed (Sphinx then rebuilds only what changed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _screenshots(out: Path) -> None:
    spec = importlib.util.spec_from_file_location("tol_screenshots", DOCS / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    module.make_all(out)


def _screens(out: Path) -> None:
    """Instruction pages and problem screens drawn by the runner's code (docs/screens.py,
    what tests/test_screens.py checks), each in a process of its own on its own Xvfb."""
    import subprocess

    from tests.runner_tools import start_xvfb

    proc, env = start_xvfb()
    try:
        subprocess.run([sys.executable, str(DOCS / "screens.py"), str(out), "--sizes", "1280x1024",
                        "--protocols", "london-tol-dx", "hanoi-classic", "--languages", "en"],
                       env=env, check=True, capture_output=True, timeout=600)  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def generate(app) -> None:
    from tol_tasks.session_data.codebook.render import render_markdown, render_sidecar_markdown

    _write(GENERATED / "protocol-reference.md", protocol_reference())
    _write(GENERATED / "event-log.md", render_markdown())
    _write(GENERATED / "sidecar.md", render_sidecar_markdown())
    _write(GENERATED / "codebook.md", codebook_page())
    _write(GENERATED / "system-packages.md", system_packages_table())
    _write(GENERATED / "first-mistakes.md", troubleshooting_messages())
    if app.config.tol_screenshots:
        _screenshots(GENERATED / "screenshots")
        _screens(GENERATED / "screens")


#: The API pages, generated from the docstrings.
API_PAGES = "_generated/api/"


def _docstring_reference(app, env, node, contnode):
    """A docstring's reference to an inner module not in the API reference: shown as text.

    The site is nitpicky (a reference that resolves nowhere is a warning, so an error), but
    docstrings name the package's inner modules and helpers, which the API reference leaves
    out; on the API pages such a reference is rendered as plain text and counted. On every
    other page it stays a warning.
    """
    if node.get("refdomain") == "py" and node.get("refdoc", "").startswith(API_PAGES):
        env.tol_docstring_references = getattr(env, "tol_docstring_references", 0) + 1
        return contnode
    return None


def _report(app, exc) -> None:
    count = getattr(app.env, "tol_docstring_references", 0)
    if exc is None and count:
        from sphinx.util import logging

        logging.getLogger(__name__).info(
            f"docs: {count} references in docstrings name inner modules outside the API "
            "reference; shown as text"
        )


def setup(app) -> dict:
    app.add_config_value("tol_screenshots", True, "env", types=(bool, int))
    app.connect("builder-inited", generate)
    app.connect("missing-reference", _docstring_reference, priority=900)
    app.connect("build-finished", _report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

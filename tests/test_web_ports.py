"""The rules that exist in Python and JavaScript, listed once in ``web/ports.toml``.

Each port's two sides are hashed (the Python objects' source, the JavaScript
top-level declarations' text); a change on either side that the table does
not record fails here, naming the other side to check. The cross-checks
named in the table run the two sides on generated cases. Every reference to
Python code in a comment of ``web/src`` must name code that exists.

Run ``uv run python tests/test_web_ports.py --update`` to record the hashes
again once both sides agree (and their cross-checks pass).
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "web" / "ports.toml"
SRC = ROOT / "web" / "src"


def _digest(texts: list[str]) -> str:
    h = hashlib.sha256()
    for text in texts:
        h.update("\n".join(line.rstrip() for line in text.strip().splitlines()).encode())
        h.update(b"\0")
    return h.hexdigest()


def _module_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _find(module: str, names: list[str]) -> tuple[str, ast.AST] | None:
    """The source text of ``module`` and the node that defines ``names`` in it (read, not imported)."""
    path = _module_file(module)
    if path is None:
        return None
    text = path.read_text(encoding="utf-8")
    node: ast.AST = ast.parse(text)
    for name in names:
        found = None
        for child in getattr(node, "body", []):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.name == name:
                    found = child
            elif isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found = child
        if found is None:
            return None
        node = found
    return text, node


def python_source(ref: str) -> str:
    """The source of ``module:qualified.name``, read from the file (PsychoPy is never imported)."""
    module, _, qualname = ref.partition(":")
    found = _find(module, qualname.split("."))
    assert found is not None, f"web/ports.toml: {ref} does not exist"
    text, node = found
    return ast.get_source_segment(text, node)


_DECL = r"^(?:export\s+)?(?:async\s+)?(?:function\*?\s+|class\s+|const\s+|let\s+){name}\b"


def javascript_source(ref: str) -> str:
    """The text of a top-level declaration ``web/src/file.js:name``, to its closing line."""
    path, _, name = ref.partition(":")
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    pattern = re.compile(_DECL.format(name=re.escape(name)))
    for i, line in enumerate(lines):
        if pattern.match(line):
            if line.rstrip().endswith(";"):
                return line
            for j in range(i + 1, len(lines)):
                if lines[j] in ("}", "});", "};"):
                    return "\n".join(lines[i : j + 1])
            raise AssertionError(f"{ref}: no closing line for the declaration at line {i + 1}")
    raise AssertionError(f"{ref}: no top-level declaration of {name!r} in {path}")


def hashes(port: dict) -> dict[str, str]:
    return {
        "python": _digest([python_source(r) for r in port["python"]]),
        "javascript": _digest([javascript_source(r) for r in port["javascript"]]),
    }


def _table() -> dict:
    return tomllib.loads(TABLE.read_text(encoding="utf-8"))


PORTS = _table()["port"]


@pytest.mark.parametrize("port", PORTS, ids=[p["rule"][:40] for p in PORTS])
def test_each_side_of_a_port_changes_only_with_the_other(port):
    now = hashes(port)
    recorded = port["sha256"]
    other = {"python": "javascript", "javascript": "python"}
    for side in ("python", "javascript"):
        assert now[side] == recorded[side], (
            f"web/ports.toml: the {side} side of {port['rule']!r} changed "
            f"({', '.join(port[side])}). Suggested fix: make its {other[side]} side "
            f"({', '.join(port[other[side]])}) do the same, run {', '.join(port['checked_by'])}, "
            "then record both hashes with `uv run python tests/test_web_ports.py --update`."
        )


def test_every_cross_check_the_table_names_exists():
    for entry in PORTS:
        for ref in entry["checked_by"]:
            path, _, name = ref.partition("::")
            text = (ROOT / path).read_text(encoding="utf-8")
            assert not name or re.search(rf"^def {re.escape(name)}\(", text, re.M), ref
    for entry in _table()["compiled"]:
        assert python_source(entry["python"])


#: A reference to Python code in a JavaScript comment: a path, then names that follow it.
_PATH_REF = re.compile(r"tol_tasks/[\w/]+\.py")
_DOTTED_REF = re.compile(r"\btol_tasks(?:\.\w+)+")


def test_the_browser_code_names_python_code_that_exists():
    bad = []
    for js in sorted(SRC.glob("*.js")):
        for n, line in enumerate(js.read_text(encoding="utf-8").splitlines(), start=1):
            for path in _PATH_REF.findall(line):
                if not (ROOT / path).is_file():
                    bad.append(f"{js.name}:{n}: {path}")
            for dotted in _DOTTED_REF.findall(line):
                if not _resolves(dotted):
                    bad.append(f"{js.name}:{n}: {dotted}")
    assert not bad, "references to Python code that does not exist:\n" + "\n".join(bad)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        module = ".".join(parts[:k])
        if _module_file(module) is not None:
            return k == len(parts) or _find(module, parts[k:]) is not None
    return False


def _update() -> None:
    """Record the current hashes of every port in web/ports.toml (its text kept as it is)."""
    text = TABLE.read_text(encoding="utf-8")
    blocks = re.split(r"^\[\[port\]\]$", text, flags=re.M)
    out = [blocks[0]]
    for block, port in zip(blocks[1:], PORTS, strict=True):
        now = hashes(port)
        new = f'sha256 = {{ python = "{now["python"]}", javascript = "{now["javascript"]}" }}'
        out.append(re.sub(r"^sha256 = .*$", new, block, count=1, flags=re.M))
    TABLE.write_text("[[port]]".join(out), encoding="utf-8")  # the split's separator
    print(f"{TABLE}: {len(PORTS)} ports recorded")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_web_ports.py --update")
    sys.path.insert(0, str(ROOT))
    _update()


def test_the_browser_reads_the_display_models_constants_and_restates_none():
    """web/src/generated/display.json (written at build time) holds the display model's
    lengths and the notice's time as Python has them, and layout.js and play.js read them
    from it instead of writing their own numbers (play.js once had its own 1.2 s)."""
    import json

    from tol_tasks.display import layout, planning

    got = json.loads((SRC / "generated" / "display.json").read_text(encoding="utf-8"))
    assert got["NOTICE_S"] == layout.NOTICE_S == 1.2
    assert got["CHOICE_BOX"] == planning.CHOICE_BOX
    for name, value in got.items():
        module = planning if name.startswith("CHOICE_") else layout
        assert value == getattr(module, name), name
    for js in ("layout.js", "play.js"):
        text = (SRC / js).read_text(encoding="utf-8")
        restated = [n for n in got if re.search(rf"\b{n}\s*=\s*[\d.]", text)]
        assert not restated, f"{js} restates {restated}: read them from generated/display.json"
    assert "+ 1.2" not in (SRC / "play.js").read_text(encoding="utf-8")

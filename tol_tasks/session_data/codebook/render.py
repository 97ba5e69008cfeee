"""The reference pages and the sidecar's JSON Schema, generated from their one declaration.

::

    python -m tol_tasks.session_data.codebook.render             > docs/event-log.md
    python -m tol_tasks.session_data.codebook.render sidecar     > docs/sidecar.md
    python -m tol_tasks.session_data.codebook.render schema      > tol_tasks/session_data/codebook/sidecar-v4.schema.json

The event log is declared by its codebook (``events-v3.json``), the sidecar by
its model (:class:`~tol_tasks.session_data.sidecar.Sidecar`); the tests check
that the committed files are what these functions write.
"""

from __future__ import annotations

import json
import sys
import typing

from pydantic import BaseModel

from tol_tasks.session_data.eventlog import codebook
from tol_tasks.session_data.sidecar import (
    READABLE_SIDECAR_VERSIONS,
    SIDECAR_VERSION,
    Sidecar,
)


def render_markdown() -> str:
    """The event log's reference page (``docs/event-log.md``)."""
    cb = codebook()
    lines = [
        f"# {cb['name']}, format version {cb['format_version']}",
        "",
        f"Generated from `tol_tasks/session_data/codebook/events-v{cb['format_version']}.json` by "
        "`python -m tol_tasks.session_data.codebook.render`; do not edit by hand.",
        "",
        cb["description"],
        "",
        "## Columns",
        "",
        "| column | type | unit | description |",
        "| --- | --- | --- | --- |",
    ]
    for c in cb["columns"]:
        lines.append(f"| `{c['name']}` | {c['type']} | {c['unit']} | {c['description']} |")
    codes = cb.get("marker_codes", {})
    lines += ["", "## Events", "", "| event | marker code | meaning |", "| --- | --- | --- |"]
    for name, meaning in cb["events"].items():
        lines.append(f"| `{name}` | {codes.get(name, '')} | {meaning} |")
    if codes:
        lines += ["", "## Marker codes", "", cb["marker_codes_description"]]
    return "\n".join(lines) + "\n"


def sidecar_schema_text() -> str:
    """The sidecar's JSON Schema as shipped (``codebook/sidecar-v4.schema.json``)."""
    return json.dumps(Sidecar.json_schema(), indent=2, ensure_ascii=False) + "\n"


def _type_name(annotation) -> str:
    """A field's type in words: ``integer``, ``text or null``, ``list of text``, a section."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return " or ".join(_type_name(a) for a in args)
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return "object"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    names = {str: "text", int: "integer", float: "number", bool: "true/false", type(None): "null"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _sections(model: type[BaseModel], seen: list[type[BaseModel]]) -> None:
    for f in model.model_fields.values():
        stack = [f.annotation]
        while stack:
            a = stack.pop()
            if isinstance(a, type) and issubclass(a, BaseModel) and a not in seen:
                seen.append(a)
                _sections(a, seen)
            stack.extend(typing.get_args(a))


def _table(model: type[BaseModel]) -> list[str]:
    lines = ["| key | type | required | meaning |", "| --- | --- | --- | --- |"]
    for name, f in model.model_fields.items():
        required = "yes" if f.is_required() else ""
        lines.append(f"| `{name}` | {_type_name(f.annotation)} | {required} | {f.description} |")
    return lines


def render_sidecar_markdown() -> str:
    """The sidecar's reference page (``docs/sidecar.md``)."""
    lines = [
        f"# tol-tasks session sidecar, version {SIDECAR_VERSION}",
        "",
        "Generated from `tol_tasks/session_data/sidecar.py` (the model `Sidecar`) by "
        "`python -m tol_tasks.session_data.codebook.render sidecar`; do not edit by hand. "
        f"The JSON Schema is shipped as `tol_tasks/session_data/codebook/sidecar-v{SIDECAR_VERSION}"
        ".schema.json`; the event log it describes is in `event-log.md`.",
        "",
        "A JSON object beside each event log (same name, `.json`), written when the session "
        "starts and again when it ends, always whole (written to a temporary file, then "
        "renamed). Recorders other than the PsychoPy runner (a browser, an importer) fill "
        "what they have: every section but `protocol` may be null, `recorder` names them, "
        "`source` says where converted data came from and `unavailable` lists what could not "
        "be recorded. Unknown keys are kept when read. Readable versions: "
        f"{', '.join(map(str, READABLE_SIDECAR_VERSIONS))} (version 1 had no `recorder`, "
        "`source` or `unavailable`; version 2 had no `session_attempt`, `earlier_attempts` or "
        "`instruction_pages`; version 3 had no status `interrupted`, no `signal`, "
        "`quit_prompts`, `timing.unmatched_keys` or `timing.late_twins`, and counted "
        "`timing.unmatched_presses` since the last resume only).",
        "",
        "## Sidecar",
        "",
        *_table(Sidecar),
    ]
    sections: list[type[BaseModel]] = []
    _sections(Sidecar, sections)
    for model in sections:
        lines += ["", f"## {model.__name__}", "", (model.__doc__ or "").strip(), "", *_table(model)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "event-log"
    render = {"event-log": render_markdown, "sidecar": render_sidecar_markdown,
              "schema": sidecar_schema_text}  # fmt: skip
    sys.stdout.write(render[what]())

"""Render the event-log codebook as Markdown (``python -m tol_tasks.session_data.codebook.render``)."""

from __future__ import annotations

import sys

from tol_tasks.session_data.eventlog import codebook


def render_markdown() -> str:
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
    lines += ["", "## Events", "", "| event | meaning |", "| --- | --- |"]
    for name, meaning in cb["events"].items():
        lines.append(f"| `{name}` | {meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_markdown())

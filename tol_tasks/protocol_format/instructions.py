"""A protocol file's ``instructions:`` section written with the task's default pages.

``tol-protocol generate`` and the scripts that made the bundled protocols write the
default instruction pages (:func:`~tol_tasks.protocol_format.pages.default_pages`) into
the file, in every language tol-tasks has texts in, so that what a participant read is in
the protocol itself.
"""

from __future__ import annotations

import re

from tol_tasks.texts import languages as text_languages

from .load import load_protocol_text
from .model import Protocol
from .pages import default_pages

_TOP_KEY = re.compile(r"^[A-Za-z_][\w-]*:")


def instructions_section(model: Protocol, languages: tuple[str, ...] | None = None) -> list[str]:
    """The ``instructions:`` section of a protocol file holding the default pages of
    ``model`` in each of ``languages`` (YAML lines; None: every language tol-tasks has
    texts in)."""
    lines = [
        "instructions:",
        "  # The task's instruction pages, made by tol-tasks from this protocol (apparatus,",
        "  # input, rules, limits) in each language it has texts in; edit them freely.",
        "  pages:",
    ]
    for lang in languages or text_languages():
        lines.append(f"    {lang}:")
        for page in default_pages(model, lang) or []:
            lines.append("      - text: |-")
            lines += [f"          {line}" for line in page.text.split("\n")]
            if page.show:
                lines.append(f"        show: {page.show}")
    return lines


def with_instructions(text: str, source: str = "<protocol>") -> str:
    """A protocol file's ``text`` with its ``instructions:`` section (if any) replaced by the
    default pages in every language (:func:`instructions_section`), placed before the
    practice (or the blocks). Everything else is kept as it is."""
    lines = text.rstrip("\n").split("\n")
    kept: list[str] = []
    inside = False
    for line in lines:
        if _TOP_KEY.match(line):
            inside = line.startswith("instructions:")
        if not inside:
            kept.append(line)
    model = load_protocol_text("\n".join(kept) + "\n", source).model
    at = next(i for i, line in enumerate(kept) if re.match(r"^(practice|blocks):", line))
    while at > 0 and kept[at - 1].startswith("#"):  # a comment belongs to the key below it
        at -= 1
    return "\n".join([*kept[:at], *instructions_section(model), *kept[at:]]) + "\n"

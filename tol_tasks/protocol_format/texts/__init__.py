"""Every text tol-tasks shows a participant, one table per language (no PsychoPy here).

Each language is one file here, ``<code>.yaml`` (``en.yaml`` is the reference and says
how the files are laid out): ``messages``, the texts of a session (a protocol may replace
any of them per language under ``instructions.messages``), and ``pages``, the sentences
the default instruction pages are made of (:mod:`tol_tasks.protocol_format.pages`).
Every table has the same keys, and each text the same ``{fields}`` as its English one
(the tests hold them to it). To add a language, copy ``en.yaml`` to ``<code>.yaml`` and
translate each text.

The web runner gets the same tables: ``tol-web build`` compiles a protocol's texts per
language, and the plugin's own copy (``web/src/generated/texts.json``, not committed) is
written at build time (:mod:`tol_tasks.web.jsdata`).
"""

from __future__ import annotations

import functools
import json
import string
from importlib import resources

import yaml

#: The languages tol-tasks has texts in, English first.
LANGUAGES: tuple[str, ...] = ("en", "fr", "de", "es")

#: The language a text comes from when a protocol's language has no table of its own.
FALLBACK = "en"


@functools.cache
def table(language: str) -> dict | None:
    """The whole table of ``language`` (``language``, ``messages``, ``pages``), or None."""
    if language not in LANGUAGES:
        return None
    text = resources.files(__name__).joinpath(f"{language}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def messages(language: str) -> dict[str, str] | None:
    """The session texts in ``language`` (a copy), or None when tol-tasks has none in it."""
    t = table(language)
    return dict(t["messages"]) if t else None


def page_texts(language: str) -> dict[str, str] | None:
    """The sentences of the default instruction pages in ``language``, or None."""
    t = table(language)
    return dict(t["pages"]) if t else None


def fields_of(text: str) -> set[str]:
    """The ``{fields}`` a text is filled in with."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


#: Every message key, in the reference (English) order.
MESSAGE_KEYS: tuple[str, ...] = tuple(table(FALLBACK)["messages"])


def as_json() -> str:
    """Every table as JSON (``web/src/generated/texts.json``: the plugin's copy)."""
    data = {lang: table(lang) for lang in LANGUAGES}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

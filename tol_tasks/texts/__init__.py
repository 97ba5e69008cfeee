"""Every text tol-tasks shows a person, one file per language (no PsychoPy here).

Each language is one file here, ``<code>.yaml`` (``en.yaml`` is the reference and says how
the files are laid out); the languages are the files there are (no list to keep). A file
has up to four domains:

- ``messages``, the texts of a session (a protocol may replace any of them per language
  under ``instructions.messages``), and ``pages``, the sentences the default instruction
  pages are made of (:mod:`tol_tasks.protocol_format.pages`): the participant's texts,
  which every language has;
- ``examiner``, the end-of-run summary of what went wrong with the recording
  (``tol_tasks.session_data.quality``), which every language has too;
- ``report``, the texts of ``tol-score --report`` (``tol_analysis.report``), in the
  languages that have them (:func:`languages` with ``domain="report"``).

A domain a language has holds the same keys as the English one, and each text the same
``{fields}`` (the tests hold them to it). To add a language, copy ``en.yaml`` to
``<code>.yaml`` and translate each text: tol-run, TowerTask, the Builder component, the
report and the browser (whose copy, ``web/src/generated/texts.json``, is written at build
time by ``tol_tasks.web.jsdata``, never committed) all take it from there.
"""

from __future__ import annotations

import functools
import json
import string
from importlib import resources

import yaml

#: The language a text comes from when a protocol's language has no table of its own.
FALLBACK = "en"

#: The domains every language has (the participant's texts and the examiner's summary).
REQUIRED = ("messages", "pages", "examiner")

#: The domains a language may leave out (then not offered in that language).
OPTIONAL = ("report",)

#: The domains the browser's copy carries (the plugin shows no report).
BROWSER = ("language", "messages", "pages", "examiner")


def _folder():
    return resources.files(__name__)


@functools.cache
def _files() -> dict[str, str]:
    """Each language's code and file name, English first, then by code."""
    codes = sorted(
        (p.name.removesuffix(".yaml") for p in _folder().iterdir() if p.name.endswith(".yaml")),
        key=lambda c: (c != FALLBACK, c),
    )
    return {code: f"{code}.yaml" for code in codes}


def languages(domain: str = "messages") -> tuple[str, ...]:
    """The languages that have texts of ``domain``, English first (found from the files)."""
    return tuple(code for code in _files() if domain in (table(code) or {}))


@functools.cache
def table(language: str) -> dict | None:
    """The whole table of ``language`` (``language`` and its domains), or None."""
    name = _files().get(language)
    if name is None:
        return None
    return yaml.safe_load(_folder().joinpath(name).read_text(encoding="utf-8"))


def domain(language: str, name: str) -> dict[str, str] | None:
    """The texts of domain ``name`` in ``language`` (a copy), or None when it has none."""
    t = table(language)
    return dict(t[name]) if t and name in t else None


def messages(language: str) -> dict[str, str] | None:
    """The session texts in ``language`` (a copy), or None when tol-tasks has none in it."""
    return domain(language, "messages")


def page_texts(language: str) -> dict[str, str] | None:
    """The sentences of the default instruction pages in ``language``, or None."""
    return domain(language, "pages")


def examiner(language: str) -> dict[str, str]:
    """The end-of-run summary's texts in ``language`` (English where it has none)."""
    return domain(language, "examiner") or domain(FALLBACK, "examiner")


def fields_of(text: str) -> set[str]:
    """The ``{fields}`` a text is filled in with."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


#: Every message key, in the reference (English) order.
MESSAGE_KEYS: tuple[str, ...] = tuple(table(FALLBACK)["messages"])


def as_json() -> str:
    """The browser's domains of every language as JSON (``web/src/generated/texts.json``)."""
    data = {lang: {k: v for k, v in table(lang).items() if k in BROWSER} for lang in _files()}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

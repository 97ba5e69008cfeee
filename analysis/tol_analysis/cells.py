"""Text cells no spreadsheet runs: the one escape every table, TSV, SPSS file and report uses.

A spreadsheet that opens a CSV or TSV file may take a cell that begins with
``=``, ``+``, ``-`` or ``@`` (or a tab, a carriage return or another control
character) for a formula and run it: a participant id or field typed as
``=HYPERLINK(...)`` or ``+cmd|' /C calc'!A0`` would then act on the analyst's
computer. Such a text cell is written with a single quote before it, the escape
OWASP's "CSV Injection" page gives; every other text is written as it is.
Numbers are never text cells (the column registry types them), so a negative
number is never escaped.
"""

from __future__ import annotations

import re

#: A number written as text (a value a report shows): a spreadsheet reads it as that number.
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")

#: What a text cell may not begin with unescaped (besides any control character).
FORMULA_STARTS = ("=", "+", "-", "@")

#: What goes before a text cell that would otherwise be read as a formula.
ESCAPE = "'"

#: What the codebook says of the escape.
ESCAPE_NOTE = (
    "a text cell that begins with =, +, -, @, a tab, a carriage return or another control "
    "character is written with a ' before it, so that no spreadsheet runs it as a formula "
    "(OWASP, CSV Injection); remove the ' to get the text as given"
)


def needs_escape(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula."""
    if not text:
        return False
    first = text[0]
    return first in FORMULA_STARTS or ord(first) < 32 or ord(first) == 127


def safe_text(text):
    """``text`` as a cell no spreadsheet runs (other values, None included, as they are)."""
    if isinstance(text, str) and needs_escape(text):
        return ESCAPE + text
    return text


#: A first character that needs the escape (:func:`needs_escape`), in a regular expression.
_NEEDS_ESCAPE = re.compile("[" + re.escape("".join(FORMULA_STARTS)) + "\x00-\x1f\x7f]")


def safe_texts(texts) -> list[str]:
    """:func:`safe_text` of each of many texts (one search of their first characters when
    none needs the escape, as is usual)."""
    texts = list(texts)
    if _NEEDS_ESCAPE.search("".join([t[:1] for t in texts])) is None:
        return texts
    return [safe_text(t) for t in texts]


def shown_text(value) -> str:
    """``value`` as a report shows it: text that a spreadsheet would run gets the escape (so
    that a table copied from the page holds no formula); a number, even one written as text
    (``-2``, ``3.5``), and None (as ``""``) are shown as they are. HTML escaping is the
    template's (Jinja2's autoescape)."""
    text = "" if value is None else str(value)
    return text if _NUMBER.fullmatch(text) else safe_text(text)

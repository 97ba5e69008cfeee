"""Who and which session: the one rule for participant ids and session numbers (no PsychoPy).

Every command that takes a participant or a session (``tol-run``, ``TowerTask``,
Builder's component, ``tol-import``) checks it here, and the browser task gets
the same rule compiled into its data (:data:`PARTICIPANT_PATTERN` and
:data:`MAX_SESSION`, written by ``tol-web build``; a test holds the two to the
same answers). A refusal names the offending character and where it is.

A participant id is 1 to 64 letters, digits, ``-``, ``_`` or ``.``, starting
with a letter or a digit, with no ``..``: what any file system can hold in a
file name, and nothing a shell, a spreadsheet or a URL reads differently (no
space, no newline, no quote). A session number is a whole number from 1 to
:data:`MAX_SESSION`, which every table, spreadsheet and browser holds exactly.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from tol_tasks.errors import TolTasksError

#: The longest participant id.
MAX_PARTICIPANT_LENGTH = 64

#: The participant rule as one regular expression, the same in Python (``fullmatch``) and in
#: JavaScript (``new RegExp(pattern).test``): no ``..``, a letter or digit first, then up to 63
#: letters, digits, ``-``, ``_`` or ``.``.
PARTICIPANT_PATTERN = rf"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_PARTICIPANT_LENGTH - 1}}}$"

#: The largest session number (2**31 - 1: a 32-bit integer, exact in every table and browser).
MAX_SESSION = 2**31 - 1

_PARTICIPANT_RE = re.compile(PARTICIPANT_PATTERN)
_ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")

#: What a participant id must be, as the fix of every refusal says it.
PARTICIPANT_FIX = (
    f"use 1 to {MAX_PARTICIPANT_LENGTH} letters, digits, '-', '_' or '.', starting with a "
    "letter or digit (e.g. 'P001')."
)


class ParticipantIdError(TolTasksError, ValueError):
    """A participant id that cannot be used (in a file name, a table, a URL)."""


class SessionNumberError(TolTasksError, ValueError):
    """A session number that cannot be used."""


def describe_char(c: str) -> str:
    """A character as a message names it: ``' ' (a space)``, ``a newline (U+000A)``."""
    names = {" ": "' ' (a space)", "\n": "a newline (U+000A)", "\r": "a carriage return (U+000D)",
             "\t": "a tab (U+0009)", "/": "'/' (a path separator)",
             "\\": "'\\' (a path separator)"}  # fmt: skip
    if c in names:
        return names[c]
    code = f"U+{ord(c):04X}"
    if unicodedata.category(c)[0] in "CZ":  # control, format, separator: invisible
        name = unicodedata.name(c, "").lower()
        return f"an invisible character ({name + ', ' if name else ''}{code})"
    return f"{c!r} ({code})"


def participant_fault(pid: Any) -> str | None:
    """Why ``pid`` cannot be a participant id (naming the offending character), or None."""
    if not isinstance(pid, str):
        return f"is not text ({type(pid).__name__})."
    if _PARTICIPANT_RE.fullmatch(pid):
        return None
    if not pid:
        return "is empty."
    if len(pid) > MAX_PARTICIPANT_LENGTH:
        return f"is {len(pid)} characters long (at most {MAX_PARTICIPANT_LENGTH})."
    for i, c in enumerate(pid, start=1):
        if c not in _ALLOWED:
            if i == len(pid) > 1:
                where = "at its end"
            elif i == 1 < len(pid):
                where = "at its start"
            else:
                where = f"at position {i}"
            return f"contains {describe_char(c)} {where}."
    if pid[0] in "_.-":
        return f"starts with {pid[0]!r}; it must start with a letter or a digit."
    return f"contains '..' at position {pid.index('..') + 1}."


def check_participant_id(pid: Any, *, field: str = "participant", where: str | None = None) -> str:
    """Return ``pid`` if it is a participant id (see the module), else raise.

    Raises
    ------
    ParticipantIdError
        Naming the offending character and its position, with the rule as the fix.
    """
    fault = participant_fault(pid)
    if fault is not None:
        raise ParticipantIdError(f"participant id {pid!r} cannot be used: it {fault}",
                                 where=where, field=field, value=pid, fix=PARTICIPANT_FIX)  # fmt: skip
    return pid


def session_fault(value: Any) -> str | None:
    """Why ``value`` cannot be a session number, or None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "is not a whole number."
    if not 1 <= value <= MAX_SESSION:
        return f"is not between 1 and {MAX_SESSION}."
    return None


def check_session(value: Any, *, field: str = "session", where: str | None = None) -> int:
    """Return ``value`` if it is a session number (1 to :data:`MAX_SESSION`), else raise.

    Raises
    ------
    SessionNumberError
        Naming the value and the range.
    """
    fault = session_fault(value)
    if fault is not None:
        raise SessionNumberError(
            f"session {value!r} cannot be used: it {fault}", where=where, field=field,
            value=value, fix=f"give a whole number from 1 to {MAX_SESSION}.",
        )  # fmt: skip
    return value


#: A session number written as text (an option, a URL parameter, a cell): 1 to 10 digits, no
#: sign, space or exponent; the same in Python and JavaScript. Its value is then checked.
SESSION_TEXT_PATTERN = r"^[0-9]{1,10}$"

_SESSION_TEXT_RE = re.compile(SESSION_TEXT_PATTERN)


def session_from_text(text: str, *, field: str = "session", where: str | None = None) -> int:
    """The session number written as ``text`` (digits only), checked by :func:`check_session`.

    Raises
    ------
    SessionNumberError
        Naming the offending character, or the range.
    """
    if not _SESSION_TEXT_RE.fullmatch(text):
        bad = next((c for c in text if not c.isascii() or not c.isdigit()), None)
        if bad is not None:
            i = text.index(bad) + 1
            why = f"contains {describe_char(bad)} at position {i}"
        else:
            why = "is empty" if not text else f"has {len(text)} digits"
        raise SessionNumberError(
            f"session {text!r} cannot be used: it {why}.", where=where, field=field, value=text,
            fix=f"give a whole number from 1 to {MAX_SESSION}, in digits only.",
        )  # fmt: skip
    return check_session(int(text), field=field, where=where)

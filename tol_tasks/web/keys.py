"""Key names of protocol files (PsychoPy's) and what a browser reports for them.

A protocol names keys as PsychoPy does (``escape``, ``space``, ``1``,
``num_1``, ``left``). In a browser a key press is a ``KeyboardEvent``; the
page compares its ``key`` (case-insensitive) or, where the character alone
cannot tell (the number pad, left or right modifier), its ``code``.
:data:`RESERVED` lists the keys a browser keeps for itself: a protocol that
needs one of them is refused by ``tol-web build``.
"""

from __future__ import annotations

import string

#: PsychoPy key name -> {"key": KeyboardEvent.key lower-cased} or {"code": KeyboardEvent.code}.
BROWSER_KEYS: dict[str, dict[str, str]] = {
    **{c: {"key": c} for c in string.ascii_lowercase + string.digits},
    **{f"num_{d}": {"code": f"Numpad{d}"} for d in string.digits},
    **{f"f{n}": {"key": f"f{n}"} for n in range(1, 13)},
    "space": {"key": " "},
    "return": {"key": "enter"},
    "enter": {"key": "enter"},
    "escape": {"key": "escape"},
    "tab": {"key": "tab"},
    "backspace": {"key": "backspace"},
    "delete": {"key": "delete"},
    "insert": {"key": "insert"},
    "home": {"key": "home"},
    "end": {"key": "end"},
    "pageup": {"key": "pageup"},
    "pagedown": {"key": "pagedown"},
    "left": {"key": "arrowleft"},
    "right": {"key": "arrowright"},
    "up": {"key": "arrowup"},
    "down": {"key": "arrowdown"},
    "comma": {"key": ","},
    "period": {"key": "."},
    "slash": {"key": "/"},
    "backslash": {"key": "\\"},
    "semicolon": {"key": ";"},
    "apostrophe": {"key": "'"},
    "minus": {"key": "-"},
    "equal": {"key": "="},
    "bracketleft": {"key": "["},
    "bracketright": {"key": "]"},
    "grave": {"key": "`"},
    "lshift": {"code": "ShiftLeft"},
    "rshift": {"code": "ShiftRight"},
    "lctrl": {"code": "ControlLeft"},
    "rctrl": {"code": "ControlRight"},
    "lalt": {"code": "AltLeft"},
    "ralt": {"code": "AltRight"},
    "num_enter": {"code": "NumpadEnter"},
    "num_add": {"code": "NumpadAdd"},
    "num_subtract": {"code": "NumpadSubtract"},
    "num_multiply": {"code": "NumpadMultiply"},
    "num_divide": {"code": "NumpadDivide"},
    "num_decimal": {"code": "NumpadDecimal"},
}

#: Keys a browser keeps for itself, with the reason (never delivered reliably to a page).
RESERVED: dict[str, str] = {
    "f5": "the browser reloads the page",
    "f11": "the browser enters or leaves full screen",
    "f12": "the browser opens its developer tools",
    "tab": "the browser moves the keyboard focus",
}

#: The key that leaves an instruction page, as in the lab.
CONTINUE_KEY = "space"


def browser_key(name: str) -> dict[str, str] | None:
    """What a browser reports for the protocol key ``name``, or None if it cannot be used."""
    if name in RESERVED:
        return None
    return BROWSER_KEYS.get(name)

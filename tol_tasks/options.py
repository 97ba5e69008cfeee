"""Options that do nothing in the combination given: one rule each, checked by every command.

A command declares its rules once, as :class:`Idle` entries (an option that
needs another, or that another makes pointless), and :func:`idle_option`
finds the first one broken by the options given, as a one-line message with
the reason and the fix. An option is never silently ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Idle:
    """``option`` does nothing unless ``needs`` is given, or when ``not_with`` is given.

    Options are named by their flag (``--language``). ``why`` says what the
    option does, for the message.
    """

    option: str
    why: str
    needs: str | None = None
    not_with: str | None = None

    def broken(self, given: set[str]) -> bool:
        if self.option not in given:
            return False
        if self.needs is not None and self.needs not in given:
            return True
        return self.not_with is not None and self.not_with in given

    def message(self) -> str:
        if self.needs is not None:
            return (f"{self.option} does nothing without {self.needs} ({self.why}). Suggested "
                    f"fix: add {self.needs}, or leave out {self.option}.")  # fmt: skip
        return (f"{self.option} does nothing with {self.not_with} ({self.why}). Suggested fix: "
                f"leave out {self.option}, or {self.not_with}.")  # fmt: skip


def idle_option(rules: Iterable[Idle], given: set[str]) -> str | None:
    """The message of the first rule the ``given`` options break, or None."""
    for rule in rules:
        if rule.broken(given):
            return rule.message()
    return None


def given_flags(parser, args) -> set[str]:
    """The flags of the options given on the command line (a value other than the default;
    options whose default is None count when they have any value)."""
    out = set()
    for action in parser._actions:
        if not action.option_strings or action.dest == "help":
            continue
        value = getattr(args, action.dest, None)
        if value is not None and value != action.default:
            out.add(max(action.option_strings, key=len))
    return out

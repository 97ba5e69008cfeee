"""What is wrong with a protocol file: each fault located, and the error that lists them all."""

from __future__ import annotations

from dataclasses import dataclass

from tol_tasks.errors import TolTasksError


@dataclass(frozen=True)
class Issue:
    """One fault in a protocol file (``warning``: one that does not stop it from running)."""

    file: str
    line: int
    field: str
    message: str
    fix: str = ""
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        fix = f" Suggested fix: {self.fix}" if self.fix else ""
        field = f"{self.field}: " if self.field else ""
        kind = "warning: " if self.warning else ""
        return f"{where}: {kind}{field}{self.message}{fix}"


class ProtocolError(TolTasksError, ValueError):
    """A protocol file has faults; ``issues`` lists every one of them."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = issues
        n = len(issues)
        head = f"{n} problem{'s' if n != 1 else ''} in {issues[0].file}" if issues else "problem"
        first = issues[0] if issues else None
        # The attributes are the first issue's; every issue has its own (``issues``).
        super().__init__(
            head + ":\n" + "\n".join(f"  {i}" for i in issues),
            where=f"{first.file}:{first.line}" if first and first.line else (first and first.file),
            field=first.field if first and first.field else None,
        )
        self.fix = first.fix if first else None

"""``python -m tol_tasks COMMAND ...``: every command, where its script is not on PATH.

``python -m tol_tasks run demo`` is ``tol-run demo``, and so on for each script the
package installs (``[project.scripts]`` in pyproject.toml, read back from the installed
package's metadata: the commands are declared there once). It serves where the scripts'
folder is not on PATH: PsychoPy Standalone's Python, a Windows user's ``py -m``, a virtual
environment that is not activated.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from collections.abc import Sequence

#: The distribution whose scripts are offered, and the prefix of their names.
DISTRIBUTION, PREFIX = "tol-tasks", "tol-"


def commands() -> dict[str, str]:
    """Each command (``run``) and its script's entry point (``tol_tasks.cli:run_main``)."""
    try:
        found = importlib.metadata.distribution(DISTRIBUTION).entry_points
    except importlib.metadata.PackageNotFoundError:
        found = ()
    return {
        ep.name.removeprefix(PREFIX): ep.value
        for ep in found
        if ep.group == "console_scripts" and ep.name.startswith(PREFIX)
    }


def _usage(known: dict[str, str]) -> str:
    names = ", ".join(sorted(known)) or "(none: the package's metadata is not installed)"
    return (
        "usage: python -m tol_tasks COMMAND [ARGUMENTS ...]\n"
        f"commands: {names}; each is the script of the same name: python -m tol_tasks run "
        "demo is tol-run demo, and python -m tol_tasks run --help lists its options."
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command named first in ``argv`` with the rest; its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    known = commands()
    if not args or args[0] in ("-h", "--help"):
        print(_usage(known))
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in known:
        fix = (
            "install the package (pip install tol-tasks, or uv sync in a clone)"
            if not known
            else f"use one of: {', '.join(sorted(known))}"
        )
        print(
            f"python -m tol_tasks: unknown command {name!r}. Suggested fix: {fix}.\n"
            + _usage(known),
            file=sys.stderr,
        )
        return 2
    module, _, function = known[name].partition(":")
    return getattr(importlib.import_module(module), function)(rest)


if __name__ == "__main__":
    sys.exit(main())

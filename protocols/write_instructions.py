"""Write the instruction pages of every bundled protocol (en, fr, de, es).

Run from the repository root::

    uv run python protocols/write_instructions.py [PROTOCOL.yaml ...]

Each protocol's ``instructions:`` section is replaced by the pages tol-tasks makes from
the protocol itself (:func:`tol_tasks.protocol_format.instructions.with_instructions`: the goal
display, how to move, the rules, the counter and limits), in every language it has texts
in; everything else in the file stays as it is. ``hanoi-generalized.yaml`` is written by
``make_hanoi_generalized.py``, which adds them the same way. A test checks that every
bundled protocol's pages are these.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tol_tasks.protocol_format.instructions import with_instructions

HERE = Path(__file__).resolve().parent


def main(paths: list[Path]) -> None:
    for path in paths:
        text = path.read_text(encoding="utf-8")
        path.write_text(with_instructions(text, str(path)), encoding="utf-8")


if __name__ == "__main__":
    given = [Path(p) for p in sys.argv[1:]]
    main(given or [p for p in sorted(HERE.glob("*.yaml")) if p.name != "hanoi-generalized.yaml"])

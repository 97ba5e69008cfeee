"""``psytoolkit-toh``: PsyToolkit's Tower of Hanoi data file, recognised and refused.

PsyToolkit's library task (psytoolkit.org, experiment library, "Tower of
Hanoi") saves one line per step, four numbers separated by spaces: the time
spent so far (ms), the step counter, the attempts so far to put a bigger disc
on a smaller one, and the attempts to drop a disc where it cannot go. It does
not save which disc moved, from where or to where. The moves cannot be
rebuilt from it: from the start (three discs on the left peg) the first step
can take the smallest disc to the middle or to the right peg, and both leave
the same line; every later step is as open. An event log needs each move, so
``tol-import`` recognises the file and says why it cannot import it
(``docs/import/psytoolkit-toh.md`` describes what a script would have to save).
"""

from __future__ import annotations

from .format import Format
from .source import Source

NAME = "psytoolkit-toh"
TITLE = "PsyToolkit Tower of Hanoi"

WHY = (
    "recognised as PsyToolkit's Tower of Hanoi data (four numbers per step: time so far, "
    "step count, two error counts). It cannot be imported: the file does not say which disc "
    "moved from which peg to which, so the moves cannot be rebuilt (the first step alone can "
    "go to either empty peg and leaves the same line). Suggested fix: add the disc and both "
    "pegs to the script's save line; docs/import/psytoolkit-toh.md explains what tol-import "
    "would need."
)


def recognise(source: Source) -> bool:
    """Headerless lines of four whole numbers: a clock that never goes back and a step
    counter that rises by one."""
    if source.kind != "text" or not source.lines:
        return False
    last_time, last_step = -1, 0
    for line in source.lines:
        parts = line.split()
        if len(parts) != 4 or not all(p.lstrip("-").isdigit() for p in parts):
            return False
        t, step = int(parts[0]), int(parts[1])
        if t < last_time or step != last_step + 1:
            return False
        last_time, last_step = t, step
    return True


FORMAT = Format(
    name=NAME,
    title=TITLE,
    signature=(),
    required=(),
    options=frozenset(),
    read=None,
    doc="docs/import/psytoolkit-toh.md",
    refused=WHY,
    recognise=recognise,
)

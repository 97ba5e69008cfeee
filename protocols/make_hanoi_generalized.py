"""Make protocols/hanoi-generalized.yaml with the tol-tasks generator.

Run from the repository root::

    uv run python protocols/make_hanoi_generalized.py [OUTPUT]

OUTPUT defaults to ``protocols/hanoi-generalized.yaml``. The same code always
writes the same file (a test writes it into a temporary folder and compares). The first
block has the structure of Bishop et al. (2001): 13 problems with 2 to 4
disks needing 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9 moves. The published item
configurations were not available to us, so these are drawn by the generator
(arbitrary starts and goals, seeded); the second block spreads 4-disk problems
over 3 to 15 moves. Its instruction pages are tol-tasks' own for it, in every language.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tol_tasks.protocol_format.generate import GeneratorSpec, select_problems
from tol_tasks.protocol_format.instructions import with_instructions

OUT = Path(__file__).with_name("hanoi-generalized.yaml")

HEADER = """\
# Made by protocols/make_hanoi_generalized.py; do not edit by hand.
# Generalized Tower of Hanoi: arbitrary start and goal configurations.
format: 1
name: hanoi-generalized
version: "1.0"
description: >
  Tower of Hanoi problems from arbitrary starts to arbitrary goals. Block 'bishop':
  13 problems with 2 to 4 disks needing 3 to 9 moves, with the structure of Bishop et
  al. (2001). Block 'spread': 4-disk problems from 3 to 15 moves.
citation: >
  Structure of Bishop, D. V. M., Aamodt-Leeper, G., Creswell, C., McGurk, R., & Skuse,
  D. H. (2001). Individual differences in cognitive planning on the Tower of Hanoi task.
  Journal of Child Psychology and Psychiatry, 42(4), 551-556. Item configurations drawn
  by the tol-tasks generator (the published items were not available); minimum moves
  computed by its solver.
task:
  type: hanoi
  disks: 3
practice:
  disks: 2
  problems:
    - {id: practice-1, start: AB, goal: BA, min_moves: 3}
feedback: moves
blocks:
"""

# (disks, minimum-move levels, problems per level) for the Bishop-structured block.
BISHOP = [(2, (3, 3), 1), (3, (4, 7), 2), (4, (8, 9), 2)]


def main(out: Path = OUT) -> None:
    lines = [HEADER.rstrip("\n"), "  - name: bishop", "    problems:"]
    k = 0
    for disks, levels, per in BISHOP:
        spec = GeneratorSpec(disks=disks, min_moves=levels, per_level=per, seed=2001)
        for s, g, d in select_problems(spec):
            k += 1
            lines.append(
                f'      - {{id: bishop-{k:02d}, disks: {disks}, start: "{s}", goal: "{g}", '
                f"min_moves: {d}}}"
            )
    lines += ["  - name: spread", "    disks: 4", "    problems:"]
    spec = GeneratorSpec(disks=4, min_moves=(3, 15), per_level=1, seed=4)
    for i, (s, g, d) in enumerate(select_problems(spec), start=1):
        lines.append(f'      - {{id: spread-{i:02d}, start: "{s}", goal: "{g}", min_moves: {d}}}')
    # With its instruction pages in every language, as write_instructions.py adds them.
    Path(out).write_text(with_instructions("\n".join(lines) + "\n"), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)

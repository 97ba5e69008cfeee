"""The Tower component's settings, checked before the experiment's window opens (no PsychoPy).

A Builder script calls :func:`check_settings` once, at its start, with the
component's parameters as the researcher typed them (``$start`` for a
conditions-file column) and the rows of the conditions files of the loops
around it. Every problem that can run is checked then, so a typo in row 7 is
reported before participant 1 sees anything, naming the component, the
parameter, the row, the value and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tol_tasks.config import COPY_SOURCES, INPUT_TIMINGS
from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol, load_protocol_text
from tol_tasks.protocol_format.model import LoadedProtocol
from tol_tasks.protocol_format.problem import ProblemError, check_problem

#: What the component runs: one problem per Routine (``problem``), or a whole protocol.
MODES = ("problem", "protocol")
TASKS = ("hanoi", "london")
INPUT_MODES = ("click", "drag", "keys")
#: Yoked copy trials after each problem: none, the participant's own moves, a shortest solution.
COPIES = ("none", *COPY_SOURCES)

#: The Tower of London apparatus of Shallice (1982): three balls on pegs holding 3, 2, 1.
LONDON_BALLS, LONDON_CAPACITIES = "RGB", (3, 2, 1)

_VARIABLE = re.compile(r"^\$\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


class BuilderSettingsError(TolTasksError, ValueError):
    """A Tower component's parameter, or a row of its conditions file, cannot be run."""


@dataclass
class TowerSettings:
    """The Tower component's parameters, as typed in Builder's dialog.

    ``start``, ``goal``, ``time_limit`` and ``move_limit`` may name a
    conditions-file column (``$start``); the others are fixed for the run.
    """

    component: str
    mode: str = "problem"
    protocol: str = ""
    task: str = "london"
    size: Any = 3
    start: Any = ""
    goal: Any = ""
    time_limit: Any = ""
    move_limit: Any = ""
    input_mode: str = "click"
    show_goal: bool = True
    move_counter: bool = True
    feedback: bool = True
    simulate: bool = False
    speed: Any = 1.0
    input_timing: str = "auto"
    copy: str = "none"
    copy_unsolved: bool = False
    experiment: str = "experiment"
    conditions: list[tuple[str, list[dict]]] = field(default_factory=list)


def _fail(s: TowerSettings, param: str, value: Any, problem: str, fix: str,
          where: str = "") -> BuilderSettingsError:  # fmt: skip
    at = f" ({where})" if where else ""
    if hasattr(value, "item"):  # a number read from a conditions file (numpy)
        value = value.item()
    return BuilderSettingsError(
        f'Tower component "{s.component}", parameter "{param}"{at}: {value!r} {problem} '
        f"Suggested fix: {fix}"
    )


def variable(value: Any) -> str | None:
    """The column a ``$name`` parameter names, else None."""
    m = _VARIABLE.match(value) if isinstance(value, str) else None
    return m.group(1) if m else None


def _number(s, param, value, where="", integer=False):
    if value is None or (isinstance(value, str) and value.strip() in ("", "None")):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or number <= 0 or (integer and number != int(number)):
        kind = "a whole number of moves" if integer else "a number of seconds"
        raise _fail(s, param, value, f"is not {kind} above 0.",
                    f"give {kind} above 0, or leave it blank for no limit.", where)  # fmt: skip
    return int(number) if integer else number


def _choice(s: TowerSettings, param: str, value: Any, allowed) -> str:
    if value not in allowed:
        raise _fail(s, param, value, "is not one of the choices.",
                    f"choose one of {', '.join(allowed)}.")  # fmt: skip
    return value


def _problem_protocol(s: TowerSettings, size: int | None) -> str:
    """A protocol text for the apparatus and display of one-problem mode."""
    if s.task == "hanoi":
        task = f"{{type: hanoi, disks: {size}}}"
        start, goal = "A" * size, "C" * size
    else:
        task = f"{{type: london, balls: {LONDON_BALLS}, capacities: {list(LONDON_CAPACITIES)}}}"
        start, goal = "RGB||", "|RG|B"
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", f"{s.experiment}-{s.component}")
    return (
        f"format: 1\nname: {name}\n"
        f'description: "Problems run by the Tower component {s.component} of the PsychoPy '
        f'Builder experiment {s.experiment}."\n'
        f"task: {task}\n"
        f"display: {{show_goal: {str(s.show_goal).lower()}, "
        f"show_move_counter: {str(s.move_counter).lower()}, show_time_left: false}}\n"
        f"input: {{mode: {s.input_mode}}}\n"
        f"feedback: {'solved' if s.feedback else 'none'}\n"
        f"blocks:\n  - problems:\n      - {{id: p1, start: '{start}', goal: '{goal}'}}\n"
    )


def check_settings(s: TowerSettings) -> LoadedProtocol:
    """Check every parameter, and every conditions row it takes a value from.

    Returns the protocol the component runs (in one-problem mode, one made
    from the apparatus and display parameters).

    Raises
    ------
    BuilderSettingsError
        Naming the component, the parameter, the row, the value and the fix.
    """
    mode = _choice(s, "mode", s.mode, MODES)
    _choice(s, "input timing", s.input_timing, INPUT_TIMINGS)
    speed = _number(s, "simulated speed", s.speed) if s.simulate else 1.0
    s.speed = speed or 1.0
    if mode == "protocol":
        if not str(s.protocol).strip():
            raise _fail(s, "protocol", s.protocol, "is empty.",
                        "give a protocol file (.yaml) or a bundled name such as "
                        "london-shallice (tol-protocol list shows them).")  # fmt: skip
        try:
            return load_protocol(s.protocol)
        except TolTasksError as exc:
            raise BuilderSettingsError(
                f'Tower component "{s.component}", parameter "protocol": {exc}'
            ) from None
    _choice(s, "task", s.task, TASKS)
    _choice(s, "input mode", s.input_mode, INPUT_MODES)
    _choice(s, "copy trial", s.copy, COPIES)
    size = None
    if s.task == "hanoi":
        size = _number(s, "size", s.size, integer=True)
        if size is None or size > 12:
            raise _fail(s, "size", s.size, "is not a number of disks from 1 to 12.",
                        "give the number of disks, e.g. 3 or 4.")  # fmt: skip
    try:
        lp = load_protocol_text(_problem_protocol(s, size), source=f"component {s.component}")
    except TolTasksError as exc:  # pragma: no cover - the text is built from checked values
        raise BuilderSettingsError(str(exc)) from None
    for row_where, values in _problem_rows(s):
        puzzle = lp.model.task.puzzle(None)
        time_limit = _number(s, "time limit", values["time_limit"], row_where)
        move_limit = _number(s, "move limit", values["move_limit"], row_where, integer=True)
        for param in ("start", "goal"):
            if values[param] in (None, ""):
                raise _fail(s, param, values[param], "is empty.",
                            "give a state such as " + ("AAA" if s.task == "hanoi" else "'GR|B|'")
                            + ", or $column for a column of the loop's conditions file.",
                            row_where)  # fmt: skip
        try:
            check_problem(puzzle, values["start"], values["goal"], time_limit=time_limit,
                          move_limit=move_limit, where="problem")  # fmt: skip
        except ProblemError as exc:
            text = str(exc).removeprefix("problem: ")
            key = text.split("=", 1)[0]
            param = key.replace("_", " ") if key in values else "start/goal"
            raise BuilderSettingsError(
                f'Tower component "{s.component}", parameter "{param}"'
                f"{f' ({row_where})' if row_where else ''}: {text}"
            ) from None
    return lp


def _problem_rows(s: TowerSettings):
    """Each problem the component can be given: (where, values), one per conditions row."""
    params = {"start": s.start, "goal": s.goal, "time_limit": s.time_limit,
              "move_limit": s.move_limit}  # fmt: skip
    names = {p: variable(v) for p, v in params.items()}
    if not any(names.values()):
        yield "", params
        return
    found = False
    for filename, rows in s.conditions:
        if not rows or not all(n in rows[0] for n in names.values() if n):
            continue
        found = True
        for i, row in enumerate(rows, start=2):  # row 1 holds the column names
            yield (
                f"row {i} of {filename}",
                {p: (row[names[p]] if names[p] else v) for p, v in params.items()},
            )
    if not found:
        columns = {c for _, rows in s.conditions if rows for c in rows[0]}
        param, missing = next(((p, n) for p, n in names.items() if n and n not in columns),
                              next((p, n) for p, n in names.items() if n))  # fmt: skip
        files = ", ".join(f for f, _ in s.conditions) or "no conditions file"
        raise _fail(s, param, f"${missing}",
                    f"names a column that no loop around this Routine provides ({files}).",
                    f"add a column {missing!r} to the loop's conditions file, or type the "
                    "value itself.")  # fmt: skip

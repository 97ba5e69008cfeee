"""The Tower component's parameters, declared once, and their check before any window (no PsychoPy).

:data:`PARAMS` declares each parameter of the component: its name in
Builder, the :class:`TowerSettings` field it fills, its label, hint,
category, type, default and choices. The component (:mod:`.component`)
builds its PsychoPy ``Param`` objects from it, and the code it writes passes
each value to :class:`TowerSettings`. The parameters that are run settings
(simulated participant, its speed, input timing) take their hints, choices
and checks from :class:`~tol_tasks.runner.settings.RunSettings`.

A Builder script calls :func:`check_settings` once, at its start, with the
component's parameters as the researcher typed them (``$start`` for a
conditions-file column) and the rows of the conditions files of the loops
around it. Every problem that can run is checked then, by the same checks
as a protocol file's problems (:func:`~tol_tasks.protocol_format.problem.check_problem`),
so a typo in row 7 is reported before participant 1 sees anything, naming
the component, the parameter, the row, the value and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tol_tasks.config import DEFAULT_BALLS, DEFAULT_CAPACITIES
from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol, protocol_from_data
from tol_tasks.protocol_format.loaded import LoadedProtocol
from tol_tasks.protocol_format.parameters import parameter
from tol_tasks.protocol_format.problem import ProblemError, check_problem
from tol_tasks.runner.hardware import check_hardware
from tol_tasks.runner.settings import BUILDER_PARAMS, RunSettings, SettingsError, builder_param

#: What the component runs: one problem per Routine (``problem``), or a whole protocol.
MODES = ("problem", "protocol")
TASKS = ("hanoi", "london")
#: Tower of Hanoi disks the component offers.
MAX_BUILDER_DISKS = 12

_VARIABLE = re.compile(r"^\$\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


@dataclass(frozen=True)
class BuilderParam:
    """One parameter of the Tower component, as Builder shows it.

    ``shown_in``: the mode it belongs to (``problem`` or ``protocol``; None:
    both). ``per_repeat``: it may change every repeat of a loop (``$column``).
    ``model``: the protocol schema's field it is (``input.mode``), whose choices, default
    and description it takes (:func:`_protocol_setting`).
    """

    name: str
    field: str
    label: str
    hint: str
    categ: str
    val_type: str
    input_type: str
    default: Any
    choices: tuple = ()
    choice_labels: tuple = ()
    shown_in: str | None = None
    per_repeat: bool = False
    model: str | None = None


def _run_setting(name: str, val_type: str, input_type: str, default: Any = None,
                 shown_in: str | None = None) -> BuilderParam:  # fmt: skip
    """A parameter that is a run setting: its hint, choices and default from RunSettings."""
    p = builder_param(name)
    return BuilderParam(name, BUILDER_PARAMS[name][0], p["label"], p["hint"], p["categ"],
                        val_type, input_type, p["default"] if default is None else default,
                        choices=tuple(p["choices"] or ()), shown_in=shown_in)  # fmt: skip


def _protocol_setting(
    name: str,
    field_name: str,
    label: str,
    categ: str,
    path: str,
    *,
    none: str | None = None,
    about: str = "",
    **kwargs: Any,
) -> BuilderParam:
    """A parameter that is a protocol setting: its choices, default and hint from the schema.

    ``none``: a first choice meaning "none" (where the protocol says so with null, as
    ``block.copies``; Builder has no null choice), then the default. ``about``: what
    Builder says before the schema's description. ``kwargs`` gives what Builder adds
    (``choice_labels``, ``shown_in``).
    """
    f = parameter(path)
    val_type, input_type = {"bool": ("bool", "bool"), "int": ("int", "single"),
                            "float": ("num", "single"), "str": ("str", "single"),
                            "choice": ("str", "choice")}[f.kind]  # fmt: skip
    hint = f.description[0].upper() + f.description[1:]
    return BuilderParam(name, field_name, label, f"{about}. {hint}" if about else hint, categ,
                        val_type, input_type, none or f.default,
                        choices=((none,) if none else ()) + f.choices, model=path, **kwargs)  # fmt: skip


#: Every parameter of the Tower component, in the order Builder shows them.
PARAMS: tuple[BuilderParam, ...] = (
    BuilderParam(
        "mode", "mode", "Run", "Run one problem each time the Routine runs, or a whole protocol "
        "(instructions, practice, blocks) once", "Basic", "str", "choice", "problem",
        choices=MODES, choice_labels=("One problem (e.g. per row of a loop)",
                                      "A whole tol-tasks protocol"),
    ),
    BuilderParam(
        "protocol", "protocol", "Protocol", "A protocol file (.yaml) or a bundled protocol's "
        "name, e.g. london-shallice, hanoi-classic (tol-protocol list)", "Basic", "str", "file",
        "london-shallice", shown_in="protocol",
    ),
    BuilderParam(
        "task", "task", "Task", "The apparatus: Tower of Hanoi (disks on 3 pegs) or Tower of "
        "London (3 balls on pegs holding 3, 2, 1; Shallice, 1982)", "Basic", "str", "choice",
        "london", choices=TASKS, choice_labels=("Tower of Hanoi", "Tower of London"),
        shown_in="problem",
    ),
    BuilderParam(
        "size", "size", "Disks (Hanoi)", f"Tower of Hanoi: the number of disks (1-"
        f"{MAX_BUILDER_DISKS}); the Tower of London always has 3 balls", "Basic", "int", "single",
        3, shown_in="problem",
    ),
    BuilderParam(
        "start", "start", "Start", "The start state, one peg after another. Tower of Hanoi: one "
        "peg letter per disk, largest disk first, so CAA = [[2, 1], [], [3]] (the largest disk "
        "on C, the two smaller on A); Tower of London: each peg's balls bottom to top, pegs "
        "split by |, so GR|B| = [[G, R], [B], []]. $start takes it from a conditions file",
        "Basic", "str", "single", "$start", shown_in="problem", per_repeat=True,
    ),
    BuilderParam(
        "goal", "goal", "Goal", "The goal state, written like the start; $goal for a column",
        "Basic", "str", "single", "$goal", shown_in="problem", per_repeat=True,
    ),
    BuilderParam(
        "timeLimit", "time_limit", "Time limit (s)", "Seconds allowed for the problem (blank: "
        "no limit); $time_limit for a column", "Basic", "code", "single", "",
        shown_in="problem", per_repeat=True,
    ),
    BuilderParam(
        "moveLimit", "move_limit", "Move limit", "Moves allowed (blank: no limit); $move_limit "
        "for a column", "Basic", "code", "single", "", shown_in="problem", per_repeat=True,
    ),
    _protocol_setting(
        "copy", "copy", "Copy trial", "Basic", "copy.moves", none="none",
        about="Follow the problem with a yoked copy trial: the moves are shown one at a time "
        "and the participant copies them, which measures moving time without planning (Owen "
        "et al., 1990); tol-score then reports initial and subsequent thinking times",
        choice_labels=("None", "The participant's own moves", "A shortest solution"),
        shown_in="problem",
    ),
    BuilderParam(
        "copyUnsolved", "copy_unsolved", "Copy unsolved problems", "Also copy a problem that "
        "was not solved (otherwise it has no copy)", "Basic", "bool", "bool", False,
        shown_in="problem",
    ),
    _protocol_setting(
        "inputMode", "input_mode", "Input mode", "Input", "input.mode",
        choice_labels=("Click a peg, then another", "Drag and drop", "Keys (1, 2, 3)"),
        shown_in="problem",
    ),
    _protocol_setting("showGoal", "show_goal", "Show goal", "Appearance", "display.show_goal",
                      shown_in="problem"),
    _protocol_setting("moveCounter", "move_counter", "Move counter", "Appearance",
                      "display.show_move_counter", shown_in="problem"),
    BuilderParam(
        "pieceLabels", "piece_labels", "Piece labels", "Write each ball's letter (each disk's "
        "number) on it, so that pieces differ by more than their colour (colour-blind "
        "participants)", "Appearance", "bool", "bool", False, shown_in="problem",
    ),
    BuilderParam(
        "feedback", "feedback", "Feedback", "Say 'Solved' (or that it was not) after the "
        "problem", "Appearance", "bool", "bool", True, shown_in="problem",
    ),
    _run_setting("simulate", "bool", "bool"),
    _run_setting("simSpeed", "num", "single"),
    _run_setting("inputTiming", "str", "choice"),
    # The ports differ from one computer to the next: a setting of the run, not the protocol.
    _run_setting("triggerPort", "str", "single", default="", shown_in="protocol"),
    _run_setting("markerPort", "str", "single", default="", shown_in="protocol"),
)  # fmt: skip

#: The parameters by name.
PARAM = {p.name: p for p in PARAMS}
_BY_FIELD = {p.field: p for p in PARAMS}


class BuilderSettingsError(TolTasksError, ValueError):
    """A Tower component's parameter, or a row of its conditions file, cannot be run."""


@dataclass
class TowerSettings:
    """The Tower component's parameters, as typed in Builder's dialog (one field per
    :data:`PARAMS` entry, plus the component's and the experiment's names and the loops'
    conditions files).

    ``start``, ``goal``, ``time_limit`` and ``move_limit`` may name a
    conditions-file column (``$start``); the others are fixed for the run.
    """

    component: str
    mode: str = PARAM["mode"].default
    protocol: str = ""
    task: str = PARAM["task"].default
    size: Any = PARAM["size"].default
    start: Any = ""
    goal: Any = ""
    time_limit: Any = ""
    move_limit: Any = ""
    copy: str = PARAM["copy"].default
    copy_unsolved: bool = PARAM["copyUnsolved"].default
    input_mode: str = PARAM["inputMode"].default
    show_goal: bool = PARAM["showGoal"].default
    move_counter: bool = PARAM["moveCounter"].default
    feedback: bool = PARAM["feedback"].default
    piece_labels: bool = PARAM["pieceLabels"].default
    simulate: bool = PARAM["simulate"].default
    speed: Any = PARAM["simSpeed"].default
    input_timing: str = PARAM["inputTiming"].default
    trigger_port: str = PARAM["triggerPort"].default
    marker_port: str = PARAM["markerPort"].default
    experiment: str = "experiment"
    #: The experiment's "Enable Escape" setting: False, the quit key does not end the task.
    escape: bool = True
    conditions: list[tuple[str, list[dict]]] = field(default_factory=list)

    def run_settings(self) -> RunSettings:
        """The run settings these parameters give (checked by RunSettings itself)."""
        speed = _number(self, "speed", self.speed) if self.simulate else None
        try:
            return RunSettings(simulate=bool(self.simulate), speed=speed or 1.0,
                               input_timing=self.input_timing,
                               trigger_port=str(self.trigger_port).strip() or None,
                               marker_port=str(self.marker_port).strip() or None)  # fmt: skip
        except SettingsError as exc:
            # Every setting named by its parameter's label, as Builder's dialog shows it.
            label = {n: f'"{_BY_FIELD[n].label}"' for n in filter(None, (exc.field, exc.other))}
            problem, fix = exc.worded(label.get)
            if exc.kind is not None:  # a parameter always has a value: set it back instead
                this, other = label[exc.field], label[exc.other]
                back = f"set {this} back to {_BY_FIELD[exc.field].default!r}"
                fix = (f"{back}, or turn off {other}." if exc.kind == "not_with"
                       else f"{back}, or turn on {other}.")  # fmt: skip
            raise _fail(self, exc.field, exc.value, problem, fix) from None


def _fail(s: TowerSettings, field_name: str, value: Any, problem: str, fix: str,
          where: str = "", *, sentence: bool = False) -> BuilderSettingsError:  # fmt: skip
    """The error about the parameter that fills ``field_name`` (named by its label).

    ``problem`` follows the value (``is empty.``), or, with ``sentence``, stands
    alone (it names the value itself).
    """
    param = _BY_FIELD[field_name]
    at = f" ({where})" if where else ""
    if hasattr(value, "item"):  # a number read from a conditions file (numpy)
        value = value.item()
    text = problem if sentence else f"{value!r} {problem}"
    return BuilderSettingsError(
        f'Tower component "{s.component}", parameter "{param.label}"{at}: {text}',
        where=f'Tower component "{s.component}"{at}', field=param.name, value=value, fix=fix,
    )  # fmt: skip


def variable(value: Any) -> str | None:
    """The column a ``$name`` parameter names, else None."""
    m = _VARIABLE.match(value) if isinstance(value, str) else None
    return m.group(1) if m else None


def _number(s, field_name, value, where="", integer=False):
    if value is None or (isinstance(value, str) and value.strip() in ("", "None")):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or number <= 0 or (integer and number != int(number)):
        kind = ("a whole number of moves" if integer
                else "a speed" if field_name == "speed" else "a number of seconds")  # fmt: skip
        raise _fail(s, field_name, value, f"is not {kind} above 0.",
                    f"give {kind} above 0, or leave it blank for no limit."
                    if field_name != "speed" else "give how many times faster, e.g. 10.", where)  # fmt: skip
    return int(number) if integer else number


def _choice(s: TowerSettings, field_name: str) -> str:
    value, allowed = getattr(s, field_name), _BY_FIELD[field_name].choices
    if value not in allowed:
        raise _fail(s, field_name, value, "is not one of the choices.",
                    f"choose one of {', '.join(allowed)}.")  # fmt: skip
    return value


def problem_protocol(s: TowerSettings, size: int | None) -> dict:
    """The protocol (as data) of one-problem mode: the apparatus and display parameters.

    Its one block holds a placeholder problem (a protocol needs one); the
    problems themselves come from the component, each checked on its own.
    """
    if s.task == "hanoi":
        task = {"type": "hanoi", "disks": size}
        placeholder = ("A" * size, "C" * size)
    else:
        task = {"type": "london", "balls": DEFAULT_BALLS, "capacities": list(DEFAULT_CAPACITIES)}
        placeholder = ("RGB||", "|RG|B")
    return {
        "format": 1,
        "name": re.sub(r"[^A-Za-z0-9_.-]", "-", f"{s.experiment}-{s.component}"),
        "description": f"Problems run by the Tower component {s.component} of the PsychoPy "
        f"Builder experiment {s.experiment}.",
        "task": task,
        "display": {"show_goal": bool(s.show_goal), "show_move_counter": bool(s.move_counter),
                    "show_time_left": False, "piece_labels": bool(s.piece_labels)},
        "input": {"mode": s.input_mode},
        "feedback": "solved" if s.feedback else "none",
        "blocks": [{"problems": [{"id": "p1", "start": placeholder[0], "goal": placeholder[1]}]}],
    }  # fmt: skip


def check_settings(s: TowerSettings) -> LoadedProtocol:
    """Check every parameter, and every conditions row it takes a value from.

    Returns the protocol the component runs (in one-problem mode, one made
    from the apparatus and display parameters).

    Raises
    ------
    BuilderSettingsError
        Naming the component, the parameter, the row, the value and the fix
        (its ``field`` is the parameter's name).
    """
    mode = _choice(s, "mode")
    run = s.run_settings()
    if mode == "protocol":
        if not str(s.protocol).strip():
            raise _fail(s, "protocol", s.protocol, "is empty.",
                        "give a protocol file (.yaml) or a bundled name such as "
                        "london-shallice (tol-protocol list shows them).")  # fmt: skip
        try:
            lp = load_protocol(s.protocol)
            check_hardware(run, lp.model)
        except SettingsError as exc:  # a port the protocol has no use for
            problem, fix = exc.worded(lambda n: f'"{_BY_FIELD[n].label}"')
            raise _fail(s, exc.field, exc.value, problem, fix) from None
        except TolTasksError as exc:
            raise BuilderSettingsError(
                f'Tower component "{s.component}", parameter "{PARAM["protocol"].label}": {exc}',
                where=f'Tower component "{s.component}"', field="protocol", value=s.protocol,
            ) from None  # fmt: skip
        return lp
    for name in ("trigger_port", "marker_port"):  # one problem: no scanner, no markers
        if str(getattr(s, name)).strip():
            raise _fail(s, name, getattr(s, name), "is for a protocol with a scanner or "
                        "markers section.", 'leave it empty, or set "Run" to a '
                        "whole protocol.")  # fmt: skip
    for name in ("task", "input_mode", "copy"):
        _choice(s, name)
    size = None
    if s.task == "hanoi":
        size = _number(s, "size", s.size, integer=True)
        if size is None or size > MAX_BUILDER_DISKS:
            raise _fail(s, "size", s.size, f"is not a number of disks from 1 to {MAX_BUILDER_DISKS}.",
                        "give the number of disks, e.g. 3 or 4.")  # fmt: skip
    lp = protocol_from_data(problem_protocol(s, size), source=f"component {s.component}")
    puzzle = lp.model.task.puzzle(None)
    for row_where, values in _problem_rows(s):
        time_limit = _number(s, "time_limit", values["time_limit"], row_where)
        move_limit = _number(s, "move_limit", values["move_limit"], row_where, integer=True)
        for name in ("start", "goal"):
            if values[name] in (None, ""):
                raise _fail(s, name, values[name], "is empty.",
                            "give a state such as " + ("AAA" if s.task == "hanoi" else "'GR|B|'")
                            + ", or $column for a column of the loop's conditions file.",
                            row_where)  # fmt: skip
        try:
            check_problem(puzzle, values["start"], values["goal"], time_limit=time_limit,
                          move_limit=move_limit)  # fmt: skip
        except ProblemError as exc:
            raise _fail(s, exc.field, exc.value, exc.problem, exc.fix, row_where,
                        sentence=True) from None  # fmt: skip
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

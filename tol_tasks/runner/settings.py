"""A run's settings, declared once (no PsychoPy here).

:class:`RunSettings` is the one declaration of what a session is run with
besides its protocol: who (participant, session), where the data go, the
language, how presses are timed, the simulated participant. Each field
carries its type, default, help text, choices and the front ends that offer
it, and every value is checked in one place (:meth:`RunSettings.__post_init__`).
The front ends are derived from it, field for field:

- ``tol-run``'s options (:func:`add_cli_options`, :func:`settings_from_cli`);
- :class:`~tol_tasks.runner.TowerTask`'s keyword arguments (the same names
  and defaults; a test holds them to it);
- the Builder component's parameters (:data:`BUILDER_PARAMS` maps each to
  its field; their hints and choices come from here).

Settings are frozen: code that needs other values makes new settings
(:func:`dataclasses.replace`), so nothing changes the settings it was given.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tol_tasks.config import INPUT_TIMINGS
from tol_tasks.errors import TolTasksError
from tol_tasks.options import Idle
from tol_tasks.session_data.identity import (
    MAX_SESSION,
    SessionNumberError,
    check_participant_id,
    session_fault,
    session_from_text,
)

from .simulation import STALL_S, SimulatedTimes

#: The fastest the simulated participant may play (times a person's speed).
MAX_SPEED = 1000.0

#: The front ends a setting can be offered by.
CLI, TASK, BUILDER = "tol-run", "TowerTask", "Builder"


class SettingsError(TolTasksError, ValueError):
    """A run setting has a value it cannot have; names the setting, the value and the fix.

    Attributes
    ----------
    problem : str
        What is wrong with the value, without the setting's name (front ends
        name it their own way: ``--speed`` for tol-run, a Builder parameter;
        :meth:`worded` names every setting in it their way).
    other : str or None
        The other setting the value conflicts with, if any.
    kind : str or None
        ``only_with`` or ``not_with`` when the value has no effect given ``other``
        (see :func:`_about`), else None.
    """

    def __init__(self, name: str, value: Any, problem: str, fix: str,
                 other: str | None = None, kind: str | None = None) -> None:  # fmt: skip
        self.other, self.kind, self._name = other, kind, name
        self._templates = (problem, fix)
        problem, fix = self.worded(str)
        super().__init__(f"{name}={value!r} {problem}", field=name, value=value, fix=fix)
        self.problem = problem

    def worded(self, name_of: Callable[[str], str]) -> tuple[str, str]:
        """The problem and the fix with the settings named as a front end names them
        (``name_of("seed")``: ``--seed`` for tol-run); ``{this}`` and ``{other}`` in them
        stand for the setting and the other one it depends on."""
        this, other = name_of(self._name), name_of(self.other) if self.other else ""
        return tuple(t.replace("{this}", this).replace("{other}", other) for t in self._templates)


def _about(help: str, *, fronts: tuple[str, ...], choices: tuple | None = None,
           cli: dict | None = None, only_with: dict[str, str] | None = None,
           not_with: dict[str, str] | None = None, allowed: tuple = ()) -> dict:  # fmt: skip
    """The description of a field of :class:`RunSettings` (its ``metadata``).

    ``cli``: how ``tol-run`` spells the option when it is not ``--<name>``
    (argparse keywords: ``flag``, ``metavar``, ``action``...).

    ``only_with`` and ``not_with`` declare when the setting has no effect, so
    that giving it then is refused instead of silently ignored: other setting
    -> why. ``only_with``: it does something only when that one is set;
    ``not_with``: it does nothing when that one is set (``allowed``: values
    that are fine anyway, besides the default).
    """
    return {
        "help": help,
        "fronts": fronts,
        "choices": choices,
        "cli": cli or {},
        "only_with": only_with or {},
        "not_with": not_with or {},
        "allowed": allowed,
    }


def _session_option(text: str) -> int:
    """``tol-run --session``'s text, read by the one rule of session numbers."""
    try:
        return session_from_text(text)
    except SessionNumberError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: Why a setting has no effect on a resumed session.
_KEPT = "a resumed session keeps the {} its sidecar recorded"


@dataclass(frozen=True)
class RunSettings:
    """The settings of one run of a session (see the module's description).

    Raises
    ------
    SettingsError
        On a value a setting cannot have (ParticipantIdError for a participant id).
    """

    # fmt: off
    participant: str | None = field(default=None, metadata=_about(
        "participant id: 1 to 64 letters, digits, '-', '_' or '.' (tol-run: without it a "
        "dialog asks; a resumed session keeps its own)", fronts=(CLI, TASK),
        not_with={"resume": _KEPT.format("participant")}))
    session: int = field(default=1, metadata=_about(
        f"session number, 1 to {MAX_SESSION} (1)", fronts=(CLI, TASK),
        cli={"type": _session_option}, not_with={"resume": _KEPT.format("number")}))
    output: Path = field(default=Path("data"), metadata=_about(
        "folder of the event log and its sidecar (./data)", fronts=(CLI, TASK),
        not_with={"resume": "a resumed session goes on in its own log, wherever that is"}))
    language: str | None = field(default=None, metadata=_about(
        "language of the participant's texts, e.g. fr (the protocol's default if none)",
        fronts=(CLI, TASK)))
    input_timing: str = field(default="auto", metadata=_about(
        "how presses are timed: auto (on arrival: the X Input 2 listener on Linux/X11, else "
        "PsychoPy's ioHub), xinput2 or iohub (that source), or polled once per frame; the "
        "data always say which", fronts=(CLI, TASK, BUILDER), choices=INPUT_TIMINGS,
        not_with={"simulate": "the simulated participant's presses are made in the frame loop "
                  "and stamped polled; no on-arrival source times them"}, allowed=("polled",)))
    simulate: bool | SimulatedTimes = field(default=False, metadata=_about(
        "a simulated participant plays (for piloting and tests; never for real data)",
        fronts=(CLI, TASK, BUILDER)))
    seed: int | None = field(default=None, metadata=_about(
        "with simulate: the simulated participant's random seed", fronts=(CLI, TASK),
        only_with={"simulate": "a person plays without one; only the simulated participant "
                   "draws its moves and times from a seed"}))
    speed: float = field(default=1.0, metadata=_about(
        "with simulate: how many times faster than a person it plays (1); its time limits "
        f"count its time, a stall of the machine at most {STALL_S:g} s a frame",
        fronts=(CLI, TASK, BUILDER),
        only_with={"simulate": "only the simulated participant can play faster than a person"}))
    fsync: bool = field(default=True, metadata=_about(
        "force every event to the disk, not only to the operating system", fronts=(TASK,)))
    bids_names: bool = field(default=False, metadata=_about(
        "BIDS-style file names", fronts=(CLI, TASK),
        not_with={"resume": "a resumed session keeps its files' names"}))
    extra_fields: dict = field(default_factory=dict, metadata=_about(
        "participant fields of the protocol (participant_fields), e.g. --field age=34; repeat "
        "for each (tol-run's dialog asks for them otherwise)", fronts=(CLI, TASK),
        cli={"flag": "--field", "metavar": "NAME=VALUE", "action": "append", "default": []},
        not_with={"resume": _KEPT.format("participant fields")}))
    new_attempt: bool = field(default=False, metadata=_about(
        "start the session again although it already has a log in --output (e.g. after a "
        "false start), as a new attempt recorded in its sidecar (session_attempt); without it "
        "a session that has a log is refused", fronts=(CLI, TASK),
        not_with={"resume": "a resumed session goes on in its own log; a new attempt starts "
                  "another"}))
    quit_at_once: bool = field(default=False, metadata=_about(
        "the quit key (Escape) ends the session at once; without it, the participant is asked "
        "to confirm with a second press, any other key or a click going back to the task",
        fronts=(CLI, TASK)))
    rescue: Path | None = field(default=None, metadata=_about(
        "folder for a rescue copy of the session when its data folder is lost or full "
        "(default: tol-tasks/rescue in the user's data folder, e.g. "
        "~/.local/share/tol-tasks/rescue)", fronts=(CLI, TASK), cli={"metavar": "FOLDER"}))
    trigger_port: str | None = field(default=None, metadata=_about(
        "the serial port the scanner's trigger arrives on, e.g. /dev/ttyUSB0 or COM3 (replaces "
        "the protocol's scanner.port: ports differ from one computer to the next)",
        fronts=(CLI, TASK, BUILDER)))
    marker_port: str | None = field(default=None, metadata=_about(
        "the serial trigger port event markers are written to, e.g. /dev/ttyACM0 or COM4 "
        "(replaces the protocol's markers.serial)", fronts=(CLI, TASK, BUILDER)))
    windowed: bool = field(default=False, metadata=_about(
        "a window instead of full screen (tol-run opens it)", fronts=(CLI,)))
    resume: Path | None = field(default=None, metadata=_about(
        "continue an interrupted session: its event log LOG, or, without LOG, the unfinished "
        "session of --participant and --session in --output", fronts=(CLI,),
        cli={"metavar": "LOG", "nargs": "?", "const": "", "type": str}))
    force: bool = field(default=False, metadata=_about(
        "with --resume: continue even if the protocol file changed", fronts=(CLI,),
        only_with={"resume": "it lets a resumed session go on with a changed protocol file"}))
    # fmt: on

    def __post_init__(self) -> None:
        # The one place a run's settings are checked.
        if self.participant is not None:
            check_participant_id(self.participant)
        if (fault := session_fault(self.session)) is not None:
            self._fail(
                "session", self.session, fault, f"give a whole number from 1 to {MAX_SESSION}."
            )
        if self.input_timing not in INPUT_TIMINGS:
            self._fail("input_timing", self.input_timing, "is not a timing method.",
                       f"use one of {', '.join(INPUT_TIMINGS)}.")  # fmt: skip
        if not isinstance(self.simulate, (bool, SimulatedTimes)):
            self._fail("simulate", self.simulate, "is neither True, False nor SimulatedTimes.",
                       "give True to let the simulated participant play, or SimulatedTimes(...) "
                       "to fix its times.")  # fmt: skip
        if (
            isinstance(self.speed, bool)
            or not isinstance(self.speed, (int, float))
            or not 0 < self.speed <= MAX_SPEED
        ):
            self._fail("speed", self.speed, f"is not a speed above 0 and at most {MAX_SPEED:g}.",
                       "give how many times faster than a person, e.g. 10.")  # fmt: skip
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int)
        ):
            self._fail("seed", self.seed, "is not a whole number.", "give a whole number, or None.")
        if not isinstance(self.extra_fields, dict):
            self._fail("extra_fields", self.extra_fields, "is not a mapping of field names to values.",
                       "give a dict such as {'age': '34'}.")  # fmt: skip
        self._check_effects()
        object.__setattr__(self, "output", Path(self.output))
        object.__setattr__(self, "speed", float(self.speed))
        object.__setattr__(self, "extra_fields", dict(self.extra_fields))
        if self.resume is not None:
            object.__setattr__(self, "resume", Path(self.resume))
        if self.rescue is not None:
            object.__setattr__(self, "rescue", Path(self.rescue))

    @staticmethod
    def _fail(name: str, value: Any, problem: str, fix: str, other: str | None = None,
              kind: str | None = None) -> None:  # fmt: skip
        raise SettingsError(name, value, problem, fix, other, kind)

    def _check_effects(self) -> None:
        """Refuse a setting given where it has no effect (the fields' ``only_with`` and
        ``not_with``, checked as :class:`~tol_tasks.options.Idle` rules, the one rule of
        every command): nothing a person asks for is silently ignored."""
        given = set()
        for f in dataclasses.fields(self):
            value, meta = getattr(self, f.name), f.metadata
            default = f.default_factory() if f.default is dataclasses.MISSING else f.default
            if value != default and value not in meta["allowed"]:
                given.add(f.name)
        for f in dataclasses.fields(self):
            rules = [
                Idle(f.name, why, needs=other) for other, why in f.metadata["only_with"].items()
            ]
            rules += [
                Idle(f.name, why, not_with=other) for other, why in f.metadata["not_with"].items()
            ]
            for rule in rules:
                if not rule.broken(given):
                    continue
                value = getattr(self, f.name)
                if rule.needs is not None:
                    self._fail(f.name, value, f"has no effect without {{other}}: {rule.why}.",
                               "add {other}, or leave {this} out.", rule.needs, "only_with")  # fmt: skip
                self._fail(f.name, value, f"has no effect with {{other}}: {rule.why}.",
                           "leave {this} out.", rule.not_with, "not_with")  # fmt: skip

    @property
    def simulated_times(self) -> SimulatedTimes | None:
        """The simulated participant's times: those given, the defaults, or None (a person)."""
        if isinstance(self.simulate, SimulatedTimes):
            return self.simulate
        return SimulatedTimes() if self.simulate else None

    def for_session(self, participant: str, session: int, language: str | None,
                    output: Path) -> RunSettings:  # fmt: skip
        """The settings a resumed session is played with: its participant, session and
        folder (``output``: its log's); its language unless one was given."""
        return dataclasses.replace(self, participant=participant, session=session,
                                   language=self.language or language, output=output,
                                   resume=None, force=False)  # fmt: skip


def fields_for(front: str) -> list[dataclasses.Field]:
    """The fields of :class:`RunSettings` that ``front`` offers, in declaration order."""
    return [f for f in dataclasses.fields(RunSettings) if front in f.metadata["fronts"]]


def defaults_for(front: str) -> dict[str, Any]:
    """Each field's default, for the fields ``front`` offers."""
    out = {}
    for f in fields_for(front):
        out[f.name] = f.default_factory() if f.default is dataclasses.MISSING else f.default
    return out


# ------------------------------------------------------------------ tol-run
def _cli_flag(f: dataclasses.Field) -> str:
    return f.metadata["cli"].get("flag", "--" + f.name.replace("_", "-"))


def cli_flag(name: str | None) -> str | None:
    """The ``tol-run`` option of the setting ``name`` (None: tol-run does not offer it)."""
    return next((_cli_flag(f) for f in fields_for(CLI) if f.name == name), None)


def add_cli_options(parser: argparse.ArgumentParser) -> None:
    """``tol-run``'s options, one per field offered to it, with the field's help and choices.

    Every option's value is None unless given, so that :func:`settings_from_cli`
    knows which were given; the defaults are the fields'.
    """
    for f in fields_for(CLI):
        spec = dict(f.metadata["cli"])
        flag = spec.pop("flag", _cli_flag(f))
        kwargs: dict[str, Any] = {"dest": f.name, "help": f.metadata["help"]}
        base = (
            f.type.split("|")[0].strip()
            if isinstance(f.type, str)
            else getattr(f.type, "__name__", "")
        )
        if base == "bool":
            kwargs.update(action="store_true", default=None)
        else:
            kwargs["type"] = {"int": int, "float": float, "Path": Path}.get(base, str)
            kwargs["default"] = None
        if f.metadata["choices"]:
            kwargs["choices"] = f.metadata["choices"]
        kwargs.update(spec)
        if kwargs.get("action") == "append":
            kwargs.pop("type", None)
        parser.add_argument(flag, **kwargs)


def settings_from_cli(args: argparse.Namespace, **overrides: Any) -> RunSettings:
    """Settings from parsed ``tol-run`` options (``overrides``: values found otherwise,
    e.g. from the participant dialog); options not given keep their defaults."""
    given = {f.name: getattr(args, f.name) for f in fields_for(CLI)
             if getattr(args, f.name, None) not in (None, [])}  # fmt: skip
    pairs = given.pop("extra_fields", [])  # NAME=VALUE pairs: checked against the protocol
    if pairs:  # by the caller, who passes them as an override; here only as given
        given["extra_fields"] = dict(p.partition("=")[::2] for p in pairs)
    return RunSettings(**{**given, **overrides})


# ------------------------------------------------------------------ Builder
#: The Tower component's parameters that are run settings: parameter -> (field, label, category).
BUILDER_PARAMS = {
    "simulate": ("simulate", "Simulate participant", "Testing"),
    "simSpeed": ("speed", "Simulated speed", "Testing"),
    "inputTiming": ("input_timing", "Input timing", "Input"),
    "triggerPort": ("trigger_port", "Scanner trigger port", "Hardware"),
    "markerPort": ("marker_port", "Marker port", "Hardware"),
}


def builder_param(name: str) -> dict[str, Any]:
    """What the Builder parameter ``name`` is: its field, label, category, hint, choices, default."""
    field_name, label, categ = BUILDER_PARAMS[name]
    f = next(f for f in fields_for(BUILDER) if f.name == field_name)
    hint = f.metadata["help"][0].upper() + f.metadata["help"][1:]
    return {"field": field_name, "label": label, "categ": categ, "hint": hint,
            "choices": f.metadata["choices"], "default": f.default}  # fmt: skip

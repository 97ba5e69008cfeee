"""The protocol model's fields as parameters of other vocabularies, declared once.

A problem's settings are declared once, in the schema (:mod:`~tol_tasks.protocol_format.model`):
type, choices, default and description. The PsychoPy Builder component's parameters
(:data:`tol_tasks.builder.settings.PARAMS`) and the jsPsych plugin's ``info`` (``web/src/plugin.js``,
through the JSON that ``tol-web``'s build writes from :func:`model_parameters`) take theirs
from here, so that the three cannot drift apart (``tests/test_protocol_format_parameters.py``).

A field is named by a dotted path: its section and its name (``input.mode``,
``display.show_goal``, ``timing.inter_trial_interval``); :data:`SECTIONS` lists the sections.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import PydanticUndefined, to_jsonable_python

from .model import (
    Block,
    Copy,
    Counterbalance,
    Display,
    HanoiTask,
    Input,
    LondonTask,
    Practice,
    Problem,
    Protocol,
    Rules,
    Timing,
)

#: Each section of the schema by the name a dotted path starts with.
SECTIONS: dict[str, type[BaseModel]] = {
    "protocol": Protocol,
    "hanoi": HanoiTask,
    "london": LondonTask,
    "display": Display,
    "input": Input,
    "rules": Rules,
    "timing": Timing,
    "practice": Practice,
    "block": Block,
    "problem": Problem,
    "copy": Copy,
    "counterbalance": Counterbalance,
}

_KINDS = {bool: "bool", int: "int", float: "float", str: "str"}


@dataclass(frozen=True)
class Parameter:
    """One field of the schema as a parameter.

    Attributes
    ----------
    path : str
        ``section.field``, e.g. ``input.mode``.
    kind : str
        ``bool``, ``int``, ``float``, ``str``, ``choice`` (one of ``choices``), or
        ``other`` (a list, a mapping, a state: a vocabulary gives these its own way).
    choices : tuple
        The values a ``choice`` may take, in the schema's order (empty otherwise).
    default : Any
        The default (None where the field has none, or where it is null by default).
    required : bool
        True where the schema has no default.
    nullable : bool
        True where null is allowed (``time_limit: null``: no limit).
    description : str
        The schema's description of the field.
    """

    path: str
    kind: str
    choices: tuple
    default: Any
    required: bool
    nullable: bool
    description: str

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the attributes."""
        return {
            "kind": self.kind,
            "choices": list(self.choices),
            "default": to_jsonable_python(self.default),
            "required": self.required,
            "nullable": self.nullable,
            "description": self.description,
        }


def parameter(path: str) -> Parameter:
    """The field ``path`` (``section.field``) of the schema as a :class:`Parameter`.

    Raises
    ------
    KeyError
        No such section or field; the message names those there are.
    """
    section, _, name = path.partition(".")
    if section not in SECTIONS:
        raise KeyError(f"{path!r}: no section {section!r}; the sections are {', '.join(SECTIONS)}")
    model = SECTIONS[section]
    if name not in model.model_fields:
        raise KeyError(f"{path!r}: {model.__name__} has no field {name!r}; it has "
                       f"{', '.join(model.model_fields)}")  # fmt: skip
    info = model.model_fields[name]
    annotation, nullable = _without_none(info.annotation)
    required = info.is_required()
    if info.default_factory is not None:
        default = info.default_factory()
    else:
        default = None if info.default is PydanticUndefined else info.default
    choices: tuple = ()
    if typing.get_origin(annotation) is Literal:
        kind, choices = "choice", typing.get_args(annotation)
    else:
        kind = _KINDS.get(annotation, "other")
    return Parameter(path, kind, choices, default, required, nullable, info.description or "")


def model_parameters() -> dict[str, dict[str, Any]]:
    """Every field of every section, by path, JSON-ready (the browser's copy)."""
    return {
        path: parameter(path).as_dict()
        for section, model in SECTIONS.items()
        for path in (f"{section}.{name}" for name in model.model_fields)
    }


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` as (X, True); anything else as (it, False)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) < len(typing.get_args(annotation)) and len(args) == 1:
            return args[0], True
    return annotation, False

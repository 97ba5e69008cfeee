"""A problem's parameters declared once (issue 33): the protocol schema, the Builder
component's ``PARAMS`` and the jsPsych plugin's ``info`` agree on types, choices, defaults
and descriptions.

The expected values are read straight from the pydantic fields (``model_fields``, the
``Literal`` arguments), and the plugin's ``info`` from the plugin module itself, loaded by
node.
"""

from __future__ import annotations

import json
import subprocess
import typing
from pathlib import Path

import pytest
from pydantic_core import to_jsonable_python

from tests.system_tools import program
from tol_tasks.builder.settings import PARAMS
from tol_tasks.protocol_format import model as schema
from tol_tasks.protocol_format.parameters import SECTIONS, model_parameters, parameter

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "web" / "src" / "generated"

#: jsPsych's ParameterType numbers (jspsych/src/modules/plugins.ts) by the schema's kind.
JSPSYCH_TYPES = {"bool": 0, "str": 1, "int": 2, "float": 3, "choice": 7}


def _field(path: str):
    section, name = path.split(".")
    return SECTIONS[section].model_fields[name]


def _choices(path: str) -> tuple:
    annotation = _field(path).annotation
    return typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal else ()


@pytest.fixture(scope="module")
def plugin_parameters() -> dict:
    """The single-problem plugin's ``info.parameters``, as node loads ``web/src/plugin.js``."""
    script = (
        "globalThis.window = globalThis;\n"
        f"const m = await import({json.dumps((ROOT / 'web' / 'src' / 'plugin.js').as_uri())});\n"
        "process.stdout.write(JSON.stringify(m.TowerPlugin.info.parameters));\n"
    )
    done = subprocess.run([program("node"), "--input-type=module", "-e", script],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_schema_sections_are_the_models_of_the_protocol_file():
    assert SECTIONS["input"] is schema.Input
    assert SECTIONS["timing"] is schema.Timing
    assert parameter("input.mode").choices == ("click", "drag", "keys")
    assert parameter("problem.time_limit").nullable
    with pytest.raises(KeyError, match=r"'input.moed': Input has no field 'moed'; it has mode"):
        parameter("input.moed")


def test_builder_parameters_take_choices_defaults_and_descriptions_from_the_schema():
    linked = [p for p in PARAMS if p.model]
    assert {p.model for p in linked} >= {"input.mode", "display.show_goal", "copy.moves"}
    for p in linked:
        f = _field(p.model)
        choices = _choices(p.model)
        assert p.choices[-len(choices) :] == choices if choices else p.choices == (), p.name
        assert p.default in ((p.choices[0],) if p.choices[: -len(choices) or None] else ()) + (
            f.default,
        ), p.name
        assert f.description[1:] in p.hint, p.name
        assert len(p.choice_labels) in (0, len(p.choices)), p.name
    # The copy choice: "none" (Builder's null) and then the schema's own.
    copy = next(p for p in PARAMS if p.name == "copy")
    assert copy.choices == ("none", "own", "optimal")
    assert copy.default == "none"


def test_the_plugins_info_takes_types_choices_and_defaults_from_the_schema(plugin_parameters):
    linked = {k: v for k, v in plugin_parameters.items() if "model" in v}
    assert {v["model"] for v in linked.values()} >= {
        "input.mode", "protocol.feedback", "timing.inter_trial_interval",
        "timing.feedback_duration", "problem.time_limit", "problem.move_limit", "copy.moves",
    }  # fmt: skip
    for name, got in linked.items():
        f, choices = _field(got["model"]), _choices(got["model"])
        kind = "choice" if choices else parameter(got["model"]).kind
        assert got["type"] == JSPSYCH_TYPES[kind], name
        assert got["description"] == f.description, name
        if choices:
            assert [c for c in got["options"] if c is not None] == list(choices), name
        if name != "copy":  # the plugin's copy is off unless asked (null: no copy trial)
            assert got["default"] == f.default, name
    # The mismatch that was: 0 in the plugin, 1.0 in the schema.
    assert plugin_parameters["inter_trial_interval"]["default"] == 1.0
    assert plugin_parameters["copy"]["options"] == [None, "own", "optimal"]
    assert plugin_parameters["copy"]["default"] is None


def test_the_browsers_generated_copy_of_the_schema_is_the_schemas():
    """web/src/generated/model.json (written by web/build.mjs) is the schema, field for field."""
    got = json.loads((GENERATED / "model.json").read_text(encoding="utf-8"))
    assert got == json.loads(json.dumps(model_parameters()))
    for section, model in SECTIONS.items():
        for name, f in model.model_fields.items():
            entry = got[f"{section}.{name}"]
            assert entry["description"] == (f.description or "")
            if not f.is_required() and f.default_factory is None:
                assert entry["default"] == to_jsonable_python(f.default)

"""A run's settings are declared once (tol_tasks.runner.settings.RunSettings): tol-run's options,
TowerTask's keyword arguments and the Builder component's parameters follow it field for
field, every value is checked in one place, and the protocol is read once per run."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

import tol_tasks.runner as runner
from tol_tasks.builder.settings import (
    PARAM,
    PARAMS,
    BuilderSettingsError,
    TowerSettings,
    check_settings,
)
from tol_tasks.cli import _run_parser, run_main
from tol_tasks.protocol_format import load
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.runner.prepare import prepare
from tol_tasks.runner.settings import (
    BUILDER,
    BUILDER_PARAMS,
    CLI,
    TASK,
    RunSettings,
    SettingsError,
    defaults_for,
    fields_for,
)
from tol_tasks.session_data.trial import ParticipantIdError

ROOT = Path(__file__).resolve().parents[1]


def _tower_task_keywords() -> dict:
    """TowerTask.__init__'s keyword arguments and defaults, read from its source (the engine
    imports PsychoPy, which needs a display)."""
    tree = ast.parse((ROOT / "tol_tasks/runner/engine.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TowerTask")
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    args = init.args
    return {a.arg: ast.literal_eval(d) if d is not None else dataclasses.MISSING
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)}  # fmt: skip


def test_tower_task_takes_every_task_setting_with_its_default():
    own = {"experiment": None, "clock": None, "name": "tower", "next_entry": True}
    keywords = _tower_task_keywords()
    settings = {k: v for k, v in keywords.items() if k not in own}
    assert list(settings) == [f.name for f in fields_for(TASK)]  # same names, same order
    expected = {**defaults_for(TASK), "participant": dataclasses.MISSING, "output": "data",
                "extra_fields": None}  # fmt: skip
    # participant is required of a TowerTask; output may be a str; extra_fields None means {}.
    assert settings == expected
    assert {k: keywords[k] for k in own} == own


def test_tol_run_offers_every_cli_setting_with_its_help_and_choices():
    actions = {a.dest: a for a in _run_parser()._actions if a.dest not in ("help", "protocol")}
    assert list(actions) == [f.name for f in fields_for(CLI)]
    for f in fields_for(CLI):
        a = actions[f.name]
        assert a.help == f.metadata["help"]
        assert a.choices == f.metadata["choices"], f.name
        assert a.default in (None, []), f.name  # not given: the field's default applies


def test_resume_without_a_log_is_told_apart_from_a_log():
    parse = _run_parser().parse_args
    assert parse(["--resume", "--participant", "P1"]).resume == ""  # find it by participant
    assert parse(["--resume", "data/x.csv"]).resume == "data/x.csv"
    assert parse(["demo"]).resume is None


def test_the_builder_run_setting_parameters_come_from_the_settings():
    assert {p.field for p in PARAMS if p.name in BUILDER_PARAMS} == {
        f.name for f in fields_for(BUILDER)
    }
    for name, (field_name, _label, _categ) in BUILDER_PARAMS.items():
        f = next(f for f in fields_for(BUILDER) if f.name == field_name)
        p = PARAM[name]
        assert p.hint.lower() == f.metadata["help"].lower()
        assert p.choices == tuple(f.metadata["choices"] or ())
        # None (no port) is an empty text field in Builder's dialog.
        assert p.default == ("" if f.default is None else f.default)
    # Every parameter fills one TowerSettings field, and every field is a parameter's.
    own = {"component", "experiment", "conditions", "escape"}  # escape: "Enable Escape"
    assert {p.field for p in PARAMS} == {f.name for f in dataclasses.fields(TowerSettings)} - own
    assert all(getattr(TowerSettings(component="t"), p.field) == p.default for p in PARAMS
               if p.field not in ("protocol", "start", "goal", "time_limit", "move_limit"))  # fmt: skip


@pytest.mark.parametrize(
    ("values", "field", "fix"),
    [
        ({"speed": 0}, "speed", "e.g. 10"),
        ({"speed": "fast"}, "speed", "e.g. 10"),
        ({"session": 0}, "session", "from 1 to 2147483647"),
        ({"session": 10**20}, "session", "from 1 to 2147483647"),
        ({"input_timing": "instant"}, "input_timing", "auto, xinput2, iohub, polled"),
        ({"seed": 1.5}, "seed", "whole number"),
        ({"simulate": "yes"}, "simulate", "SimulatedTimes"),
    ],
)
def test_settings_are_checked_in_one_place(values, field, fix):
    with pytest.raises(SettingsError) as err:
        RunSettings(**values)
    assert err.value.field == field
    assert err.value.value == values[field]
    assert fix in err.value.fix
    with pytest.raises(ParticipantIdError) as err:
        RunSettings(participant="../x")
    assert (err.value.field, err.value.value) == ("participant", "../x")


def test_each_front_end_reports_a_bad_setting_its_own_way(capsys):
    # tol-run names its option; Builder names its parameter; the check is the same.
    assert run_main(["demo", "--simulate", "--speed", "0", "--participant", "P1"]) == 2
    assert "tol-run: --speed 0.0 is not a speed above 0 and at most 1000. Suggested fix: give how many times " \
           "faster than a person, e.g. 10." in capsys.readouterr().err  # fmt: skip
    s = TowerSettings(component="tower", start="GR|B|", goal="|RB|G", simulate=True,
                      input_timing="instant")  # fmt: skip
    with pytest.raises(BuilderSettingsError) as err:
        check_settings(s)
    assert "parameter \"Input timing\": 'instant' is not a timing method." in str(err.value)
    assert err.value.field == "inputTiming"


def test_settings_are_never_changed_and_a_resume_gets_its_own(tmp_path):
    s = RunSettings(participant="P1", output=tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.participant = "P2"
    again = s.for_session("P9", 3, "fr", tmp_path / "elsewhere")
    assert (again.participant, again.session, again.language) == ("P9", 3, "fr")
    assert again.output == tmp_path / "elsewhere"
    assert (s.participant, s.session, s.language) == ("P1", 1, None)


def test_the_protocol_is_read_once_per_run(tmp_path, monkeypatch):
    # tol-run reads and checks the protocol, then passes it down: the session (prepare and
    # everything after it) never reads it again, and the sidecar's SHA-256 is that read's.
    reads = []
    real = load.load_protocol

    def counting(path):
        reads.append(path)
        return real(path)

    monkeypatch.setattr(load, "load_protocol", counting)
    monkeypatch.setattr(importlib.import_module("tol_tasks.runner.prepare"), "load_protocol",
                        counting)  # fmt: skip
    prepared = []

    class _Window:  # the part that needs a screen: record what it was given instead
        @staticmethod
        def run_session(p, interrupts=None):
            prepared.append(p)
            return runner.RunResult(p.log, p.sidecar, "completed", 0)

    monkeypatch.setattr(runner, "import_psychopy_part", lambda name: _Window)
    code = run_main(["demo", "--simulate", "--output", str(tmp_path)])
    assert code == 0
    assert reads == ["demo"]
    (p,) = prepared
    assert p.protocol.sha256 == load_protocol("demo").sha256
    assert p.settings.participant == "sim"


def test_a_loaded_protocol_is_used_as_given(tmp_path):
    lp = load_protocol("demo")
    p = prepare(RunSettings(participant="P1", output=tmp_path), lp)
    assert p.protocol is lp
    with pytest.raises(SettingsError, match="language='it' is not a language of the protocol"):
        prepare(RunSettings(participant="P1", output=tmp_path, language="it"), lp)

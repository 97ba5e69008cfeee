"""The neuroimaging sections of a protocol checked before any window: each refusal names the
setting, the bad value and the fix (no PsychoPy, no display)."""

from __future__ import annotations

import pytest

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format import load_protocol_text
from tol_tasks.runner.hardware import marker_codes
from tol_tasks.runner.prepare import prepare
from tol_tasks.runner.settings import RunSettings
from tol_tasks.session_data.eventlog import codebook, events

BASE = (
    "format: 1\nname: hw\ntask: {type: hanoi, disks: 3}\ninstructions: none\n"
    "blocks:\n  - problems:\n      - {id: p1, start: AAA, goal: CCC}\n"
)


def _prepare(extra: str, tmp_path, **settings):
    return prepare(RunSettings(participant="P1", output=tmp_path, **settings),
                   load_protocol_text(BASE + extra))  # fmt: skip


def test_every_event_has_at_most_one_code_and_codes_are_bytes():
    codes = codebook()["marker_codes"]
    assert set(codes) <= events()
    assert all(1 <= c <= 255 for c in codes.values())
    assert len(set(codes.values())) == len(codes)  # one event per code: a code names its event


def test_the_protocol_replaces_codes_and_zero_silences_one(tmp_path):
    lp = load_protocol_text(BASE + "markers: {lsl: true, codes: {place: 99, pick_up: 0}}\n")
    codes = marker_codes(lp.model.markers)
    assert codes["place"] == 99
    assert "pick_up" not in codes
    assert codes["trial_onset"] == codebook()["marker_codes"]["trial_onset"]


def test_a_code_for_an_unknown_event_is_refused_with_the_events_to_use(tmp_path):
    with pytest.raises(TolTasksError) as err:
        _prepare("markers: {lsl: true, codes: {stimulus: 5}}\n", tmp_path)
    assert "markers.codes names 'stimulus', which is not an event of the log" in str(err.value)
    assert err.value.field == "markers.codes.stimulus"
    assert "trial_onset" in err.value.fix


def test_a_serial_trigger_without_a_port_is_refused(tmp_path):
    with pytest.raises(TolTasksError) as err:
        _prepare("scanner: {trigger: serial}\n", tmp_path)
    assert "scanner.trigger is serial but no port is given" in str(err.value)
    assert "--trigger-port" in err.value.fix


def test_port_settings_with_nothing_to_use_them_are_refused(tmp_path):
    with pytest.raises(TolTasksError, match="trigger_port='/dev/ttyUSB0' has no effect"):
        _prepare("", tmp_path, trigger_port="/dev/ttyUSB0")
    with pytest.raises(TolTasksError, match="marker_port='/dev/ttyACM0' has no effect"):
        _prepare("", tmp_path, marker_port="/dev/ttyACM0")


def test_the_eye_tracker_and_iohub_input_cannot_share_iohub(tmp_path):
    with pytest.raises(TolTasksError, match="input_timing='iohub' cannot be used with"):
        _prepare("eyetracking: {calibrate: false}\n", tmp_path, input_timing="iohub")


def test_a_design_fixation_with_max_below_min_is_refused():
    with pytest.raises(TolTasksError, match=r"max \(1.0\) is below min \(2.0\)"):
        load_protocol_text(BASE + "scanner: {design: {trial_duration: 10, "
                           "fixation: {min: 2, max: 1}}}\n")  # fmt: skip


def test_planning_keys_must_match_the_boxes():
    text = BASE.replace("  - problems:", "  - planning: {choices: [1, 2, 3], keys: ['1', '2']}\n"
                        "    problems:")  # fmt: skip
    with pytest.raises(TolTasksError, match="keys gives 2 keys for 3 choices"):
        load_protocol_text(text)


def test_copies_after_planning_only_problems_are_refused():
    text = BASE.replace("  - problems:", "  - planning: {choices: [1, 2, 3]}\n    copies: true\n"
                        "    problems:")  # fmt: skip
    with pytest.raises(TolTasksError, match="copies cannot follow planning-only problems"):
        load_protocol_text(text)

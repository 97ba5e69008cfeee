"""The sidecar written down once: its model, the shipped JSON Schema, the reference page, and
every sidecar ever committed (versions 1 and 2) reading into it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tol_tasks.session_data.codebook.render import render_sidecar_markdown, sidecar_schema_text
from tol_tasks.session_data.sidecar import (
    SIDECAR_VERSION,
    Recorder,
    Sidecar,
    SidecarError,
    Source,
    read_sidecar,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = (
    ROOT / "tol_tasks" / "session_data" / "codebook" / f"sidecar-v{SIDECAR_VERSION}.schema.json"
)
# A sidecar sits beside its event log (the same name, .csv): other JSON files under
# tests/data (other tools' exports to import, npm's package files) are not sidecars.
COMMITTED = sorted(
    p for p in (ROOT / "tests" / "data").rglob("*.json") if p.with_suffix(".csv").is_file()
)


def _validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_shipped_schema_and_the_reference_page_are_generated_from_the_model():
    assert SCHEMA.read_text(encoding="utf-8") == sidecar_schema_text()
    assert (ROOT / "docs" / "sidecar.md").read_text(encoding="utf-8") == render_sidecar_markdown()


def test_every_key_of_the_model_is_described():
    from pydantic import BaseModel

    def walk(model: type[BaseModel]):
        for name, f in model.model_fields.items():
            assert f.description, f"{model.__name__}.{name} has no description"

    import tol_tasks.session_data.sidecar as mod

    models = [v for v in vars(mod).values()
              if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == mod.__name__]  # fmt: skip
    assert len(models) >= 15
    for model in models:
        walk(model)


@pytest.mark.parametrize("path", COMMITTED, ids=[str(p.relative_to(ROOT)) for p in COMMITTED])
def test_every_committed_sidecar_validates_and_reads_without_losing_a_key(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["sidecar_version"] in range(1, SIDECAR_VERSION + 1)  # older ones, and today's
    _validator().validate(data)  # an independent validator, on the shipped schema
    side = Sidecar.read(path)
    back = side.to_dict()
    assert back["sidecar_version"] == SIDECAR_VERSION
    data.pop("sidecar_version")
    _contains(back, data, path.name)  # every key read is written back, unchanged
    _validator().validate(back)


def _contains(back, original, where: str) -> None:
    """``back`` holds everything ``original`` held (keys a newer version adds may be more)."""
    if isinstance(original, dict):
        for key, value in original.items():
            assert key in back, f"{where}.{key}"
            _contains(back[key], value, f"{where}.{key}")
    else:
        assert back == original, where


def test_a_recorder_without_a_window_fills_only_what_it_has(tmp_path):
    # What an importer of another tool's files or a browser recorder writes: no screen,
    # window, timing, frames or layout; who recorded it, from what, and what is missing.
    side = Sidecar(
        event_log="P1_pebl.csv", event_log_version=2, participant="P1", session=1,
        status="completed", protocol={"name": "pebl-tol", "sha256": "0" * 64, "text": "x"},
        recorder=Recorder(name="tol-import", version="0.1.0"),
        source=Source(format="pebl-tol", files=["tol-P1.csv"], sha256=["1" * 64]),
        unavailable=["x", "y", "frames"],
    )  # fmt: skip
    side.write(tmp_path / "P1_pebl.json")
    data = read_sidecar(tmp_path / "P1_pebl.json")
    _validator().validate(data)
    assert (data["screen"], data["timing"]) == (None, None)
    assert Sidecar.read(tmp_path / "P1_pebl.json").source.files == ["tol-P1.csv"]


def test_a_damaged_sidecar_names_the_file_the_key_and_the_fix(tmp_path):
    good = json.loads(COMMITTED[0].read_text(encoding="utf-8"))
    cases = {
        "no_participant": {k: v for k, v in good.items() if k != "participant"},
        "bad_session": {**good, "session": "first"},
        "future": {**good, "sidecar_version": 99},
    }
    errors = {}
    for name, data in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(SidecarError) as err:
            Sidecar.read(p)
        errors[name] = err.value
    assert errors["no_participant"].field == "participant"
    assert "key 'participant' is missing" in str(errors["no_participant"])
    assert (errors["bad_session"].field, errors["bad_session"].value) == ("session", "first")
    assert errors["future"].field == "sidecar_version"
    assert all(str(e).startswith(str(tmp_path)) and e.fix for e in errors.values())
    (tmp_path / "torn.json").write_text('{"sidecar_version": 2, "event', encoding="utf-8")
    with pytest.raises(SidecarError, match="not JSON"):
        Sidecar.read(tmp_path / "torn.json")


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077], ids=["022", "002", "077"])
def test_a_sidecar_is_as_readable_as_a_new_event_log_beside_it(tmp_path, umask):
    # Colleagues who can read the logs on a shared drive can read the sidecars too: the
    # sidecar gets the mode any new file gets (the log's), not mkstemp's owner-only 0600.
    import os
    import stat

    from tol_tasks.session_data.livelog import EventLog
    from tol_tasks.session_data.sidecar import write_sidecar

    old = os.umask(umask)
    try:
        log = EventLog(tmp_path / "s.csv")
        log.close()
        write_sidecar(tmp_path / "s.json", {"sidecar_version": 2})
        write_sidecar(tmp_path / "s.json", {"sidecar_version": 2})  # rewritten over itself
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "s.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "s.csv").stat().st_mode) == 0o666 & ~umask


def test_read_sidecar_keeps_to_its_size_limit(tmp_path, monkeypatch):
    """A sidecar is read by its size (not by a buffer of the limit): one at the limit reads,
    one a byte over is refused, naming the limit."""
    import tol_tasks.session_data.sidecar as sidecar_module

    text = json.dumps({"pad": "x" * 80})
    monkeypatch.setattr(sidecar_module, "MAX_SIDECAR_BYTES", len(text))
    at = tmp_path / "at.json"
    at.write_text(text, encoding="utf-8")
    assert sidecar_module.read_sidecar(at) == {"pad": "x" * 80}
    over = tmp_path / "over.json"
    over.write_text(text + " ", encoding="utf-8")
    with pytest.raises(sidecar_module.SidecarError, match=f"larger than the {len(text):,} bytes"):
        sidecar_module.read_sidecar(over)

"""One session, one log (issue 22): a participant's session that already has a log is refused
with how to go on; a new attempt is started only on purpose and recorded as such; a session
goes on with whoever played it; options that would do nothing are refused with the reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.runner_tools import copy_session, tol_run
from tol_tasks.builder.settings import BuilderSettingsError, TowerSettings, check_settings
from tol_tasks.cli import run_main
from tol_tasks.protocol_format import load_protocol
from tol_tasks.runner.prepare import SessionExistsError, prepare
from tol_tasks.runner.settings import RunSettings, SettingsError
from tol_tasks.session_data.resume import ResumeError
from tol_tasks.session_data.sidecar import Sidecar

GOLDEN = Path(__file__).parent / "data" / "golden" / "sessions"


def _copy_session(name: str, folder: Path, *, status: str | None = None,
                  simulate: bool = True, sidecar: bool = True) -> Path:  # fmt: skip
    """A recorded session (participant G-<name>, session 1) copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"G-{name}_{name}_2026-01-01_10h00.00.000.csv"
    shutil.copyfile(GOLDEN / f"{name}.csv", log)
    if sidecar:
        meta = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
        meta["event_log"] = log.name
        # The bundled protocol as it is now (the golden session was recorded before issue 22
        # added its instruction pages): resuming checks the protocol's SHA-256 first.
        bundled = load_protocol(name)
        meta["protocol"].update(path=str(bundled.path), sha256=bundled.sha256)
        if status is not None:
            meta["status"] = status
        if not simulate:
            meta["simulate"] = None
        log.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    return log


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------- one session, one log
def test_a_session_with_an_unfinished_log_is_refused_with_the_resume_command(tmp_path, capsys):
    log = _copy_session("demo", tmp_path, status="aborted")
    before = _files(tmp_path)
    code = run_main(["demo", "--participant", "G-demo", "--session", "1",
                     "--output", str(tmp_path)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert (f"tol-run: participant G-demo already has a log of session 1 of demo in {tmp_path}: "
            f"{log.name} (aborted, ") in err  # fmt: skip
    assert f"Suggested fix: continue it with: tol-run --resume {log}; or give another --session; "\
           "or add --new-attempt to start session 1 again on purpose" in err  # fmt: skip
    assert _files(tmp_path) == before  # nothing written


def test_a_completed_session_is_refused_too_and_a_log_without_its_sidecar_counts(tmp_path):
    done = _copy_session("demo", tmp_path / "a")
    with pytest.raises(SessionExistsError) as err:
        prepare(RunSettings(participant="G-demo", output=tmp_path / "a"), "demo")
    assert err.value.resumable is None  # a completed session cannot be resumed
    assert [e.log for e in err.value.logs] == [done]
    assert "tol-run --resume" not in err.value.fix
    assert "new_attempt=True" in err.value.fix  # as TowerTask spells it
    lost = _copy_session("demo", tmp_path / "b", sidecar=False)
    with pytest.raises(SessionExistsError, match=rf"{lost.name} \(no sidecar\)"):
        prepare(RunSettings(participant="G-demo", output=tmp_path / "b"), "demo")


def test_other_sessions_participants_and_protocols_are_not_the_same_session(tmp_path):
    _copy_session("demo", tmp_path)
    for settings, protocol in [
        (RunSettings(participant="G-demo", session=2, output=tmp_path), "demo"),
        (RunSettings(participant="G-other", output=tmp_path), "demo"),
        (RunSettings(participant="G-demo", output=tmp_path), "hanoi-classic"),
    ]:
        assert prepare(settings, protocol).earlier == ()


def test_a_new_attempt_is_started_only_on_purpose(tmp_path, capsys):
    first = _copy_session("demo", tmp_path)
    p = prepare(RunSettings(participant="G-demo", output=tmp_path, new_attempt=True), "demo")
    assert p.earlier == (first.name,)
    # Without an earlier log, --new-attempt would do nothing: refused.
    code = run_main(["demo", "--participant", "G-demo", "--session", "2", "--new-attempt",
                     "--output", str(tmp_path)])  # fmt: skip
    assert code == 2
    assert ("tol-run: --new-attempt has no effect: participant G-demo has no log of session 2 "
            f"of demo in {tmp_path} yet. Suggested fix: leave --new-attempt out.")\
        in capsys.readouterr().err  # fmt: skip


def test_tol_run_twice_then_a_new_attempt_recorded_in_its_sidecar(
    simulated_demo, xdisplay, tmp_path
):
    # The first run: the shared session (tol-run demo ... --participant S1), copied.
    log, _ = copy_session(simulated_demo, tmp_path)
    args = ["demo", "--simulate", "--speed", "50", "--windowed", "--participant", "S1",
            "--output", str(tmp_path)]  # fmt: skip
    assert list(tmp_path.glob("*.csv")) == [log]
    assert Sidecar.read(log.with_suffix(".json")).session_attempt == 1
    again = tol_run(*args, env=xdisplay)
    assert again.returncode == 2
    assert "already has a log of session 1 of demo" in again.stderr
    assert "Traceback" not in again.stderr
    assert len(list(tmp_path.iterdir())) == 2
    new = tol_run(*args, "--new-attempt", env=xdisplay)
    assert new.returncode == 0, new.stderr
    (second,) = set(tmp_path.glob("*.csv")) - {log}
    meta = Sidecar.read(second.with_suffix(".json"))
    assert (meta.session_attempt, meta.earlier_attempts) == (2, [log.name])


# --------------------------------------------------- a session goes on with who played it
def test_a_real_session_is_not_resumed_by_the_simulated_participant(tmp_path, capsys):
    log = _copy_session("demo", tmp_path, status="aborted", simulate=False)
    code = run_main(["--resume", str(log), "--simulate"])
    assert code == 2
    assert (f"tol-run: {log}: this session was played by a person; continuing it with the "
            "simulated participant would mix simulated moves into real data") \
        in capsys.readouterr().err  # fmt: skip
    assert Sidecar.read(log.with_suffix(".json")).simulate is None  # untouched


def test_a_simulated_session_is_not_resumed_by_a_person(tmp_path):
    log = _copy_session("demo", tmp_path, status="crashed")
    with pytest.raises(ResumeError, match="played by the simulated participant") as err:
        prepare(RunSettings(resume=log))
    assert "add --simulate to continue the pilot" in err.value.fix
    assert prepare(RunSettings(resume=log, simulate=True)).settings.participant == "G-demo"


# ------------------------------------------------------------ options that would do nothing
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["demo", "--speed", "3"],
            "--speed 3.0 has no effect without --simulate: only the "
            "simulated participant can play faster than a person. Suggested fix: add --simulate, "
            "or leave --speed out.",
        ),
        (["demo", "--seed", "3"], "--seed 3 has no effect without --simulate"),
        (
            ["demo", "--simulate", "--input-timing", "xinput2"],
            "--input-timing 'xinput2' has no "
            "effect with --simulate: the simulated participant's presses are made in the frame "
            "loop and stamped polled",
        ),
        (
            ["demo", "--simulate", "--input-timing", "iohub"],
            "--input-timing 'iohub' has no effect with --simulate",
        ),
        (["demo", "--force"], "--force has no effect without --resume"),
        (
            ["--resume", "LOG", "--participant", "P2"],
            "--participant 'P2' has no effect with "
            "--resume: a resumed session keeps the participant its sidecar recorded",
        ),
        (["--resume", "LOG", "--session", "2"], "--session 2 has no effect with --resume"),
        (
            ["--resume", "LOG", "--output", "elsewhere"],
            "--output 'elsewhere' has no effect with --resume",
        ),
        (["--resume", "LOG", "--bids-names"], "--bids-names has no effect with --resume"),
        (["--resume", "LOG", "--field", "age=30"], "--field 'age=30' has no effect with --resume"),
        (["--resume", "LOG", "--new-attempt"], "--new-attempt has no effect with --resume"),
        (["--resume", "LOG", "--seed", "4"], "--seed 4 has no effect without --simulate"),
        (["demo", "--resume", "LOG"], "the protocol 'demo' has no effect with --resume"),
    ],
)
def test_an_option_that_would_do_nothing_is_refused_with_the_reason(argv, message, tmp_path,
                                                                     capsys):  # fmt: skip
    log = _copy_session("demo", tmp_path / "data", status="aborted")
    argv = [str(log) if a == "LOG" else a for a in argv]
    if "--resume" not in argv:
        argv += ["--participant", "P1", "--output", str(tmp_path / "data")]
    before = _files(tmp_path / "data")
    assert run_main(argv) == 2
    err = capsys.readouterr().err
    assert f"tol-run: {message}" in err, err
    assert _files(tmp_path / "data") == before


def test_the_rule_is_the_settings_own_whatever_the_front_end():
    with pytest.raises(SettingsError) as err:
        RunSettings(participant="P1", seed=3)  # TowerTask(..., seed=3) without simulate
    assert (err.value.field, err.value.other, err.value.kind) == ("seed", "simulate", "only_with")
    assert str(err.value).startswith("seed=3 has no effect without simulate")
    # What is harmless is accepted: polled timing is what the simulated participant records.
    assert RunSettings(participant="P1", simulate=True, input_timing="polled").simulate
    # Builder names its parameters and, since a parameter always has a value, says to set
    # it back.
    s = TowerSettings(component="tower", start="GR|B|", goal="|RB|G", simulate=True,
                      input_timing="iohub")  # fmt: skip
    with pytest.raises(BuilderSettingsError) as err:
        check_settings(s)
    assert ('parameter "Input timing": \'iohub\' has no effect with "Simulate participant"'
            in str(err.value))  # fmt: skip
    assert err.value.fix == ('set "Input timing" back to \'auto\', or turn off "Simulate '
                             'participant".')  # fmt: skip


def test_another_csv_in_the_folder_is_not_taken_for_a_log(tmp_path):
    # Builder's own data file sits beside the task's logs, with participant and session columns.
    (tmp_path / "G-demo_exp_2026.csv").write_text(
        "participant,session,key_resp.keys\nG-demo,1,space\n"
    )
    assert prepare(RunSettings(participant="G-demo", output=tmp_path), "demo").earlier == ()

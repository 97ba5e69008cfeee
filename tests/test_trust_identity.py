"""One session identity for every command (issue 30): a session is a participant's visit,
each protocol played in it a task of that session; copies, restarts and conflicts are told
apart by one rule (tol_tasks.session_data.session_key), and a conflict names both files and a
fix that fits where the logs came from.

The logs are real (``tests/data/trust``: participant V01's visit, recorded with tol-run, in
which a Tower of Hanoi and a Tower of London protocol were played as session 1), copied or
relabelled as a lab's, a browser's or an import's folder would hold them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.system_tools import extra
from tests.trust_tools import SESSIONS, place, read_csv
from tol_analysis.cli import main as tol_score_main
from tol_tasks.session_data.session_key import (
    BROWSER,
    CONFLICT_FIXES,
    IMPORT,
    LAB,
    SessionKey,
    conflict_fix,
    origin,
    task_of,
)


def tol_score(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tol_score_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _visit(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in ("V01-hanoi.csv", "V01-london.csv"):
        for suffix in (".csv", ".json"):
            shutil.copy(
                SESSIONS / name.replace(".csv", suffix), folder / name.replace(".csv", suffix)
            )
        out.append(folder / name)
    return out


def test_a_visit_with_a_hanoi_and_a_london_protocol_scores_both_side_by_side(tmp_path):
    _visit(tmp_path / "data")
    code, out, err = tol_score(tmp_path / "data", "--output", tmp_path / "out", "--bids",
                               "--bids-include-simulated")  # fmt: skip
    assert code == 0, err
    assert "different logs" not in err
    sessions = read_csv(tmp_path / "out" / "sessions.csv")
    assert [(r["participant"], r["session"], r["protocol"]) for r in sessions] == [
        ("V01", "1", "trust-hanoi"), ("V01", "1", "trust-london")]  # fmt: skip
    trials = read_csv(tmp_path / "out" / "trials.csv")
    keys = [(t["participant"], t["session"], t["protocol"], t["trial"], t["attempt"])
            for t in trials]  # fmt: skip
    assert len(keys) == len(set(keys))
    assert {t["protocol"] for t in trials if t["trial"] == "1"} == {"trust-hanoi", "trust-london"}
    (wide,) = read_csv(tmp_path / "out" / "wide.csv")
    assert wide["s1_trust_hanoi_t3_solved"] == "1"
    assert wide["s1_trust_london_s02_solved"] == "1"
    assert wide["s1_trust_hanoi_status"] == wide["s1_trust_london_status"] == "completed"
    beh = sorted(
        p.name for p in (tmp_path / "out" / "bids" / "sub-V01" / "ses-1" / "beh").glob("*.tsv")
    )
    assert beh == [
        "sub-V01_ses-1_task-trusthanoi_beh.tsv",
        "sub-V01_ses-1_task-trustlondon_beh.tsv",
    ]
    (visit,) = read_csv(tmp_path / "out" / "bids" / "sub-V01" / "sub-V01_sessions.tsv", "\t")
    assert visit["tasks"] == "trusthanoi: completed; trustlondon: completed"
    code, out, _ = tol_score("--verify", tmp_path / "data")
    assert code == 0, out


def test_tol_run_and_tol_score_read_the_task_from_the_same_place():
    # tol-run's refusal of a second log (session_logs) and tol-score's grouping both take the
    # task from the log's session_start row (identity rule I1)
    from tol_analysis.read.duplicates import session_key
    from tol_tasks.session_data.resume import session_logs

    key = session_key(SESSIONS / "V01-london.csv")
    assert key == SessionKey("V01", 1, "trust-london")
    assert task_of(read_csv(SESSIONS / "V01-hanoi.csv")[0]["detail"]) == "trust-hanoi"
    # another protocol in the same visit is another task: tol-run starts it
    assert [e.log.name for e in session_logs(SESSIONS, "V01", 1, "trust-london")] == [
        "V01-london.csv"]  # fmt: skip
    assert {e.log.name for e in session_logs(SESSIONS, "V01", 1)} == {
        "V01-london.csv", "V01-hanoi.csv"}  # fmt: skip


def test_a_web_participant_who_opened_the_link_twice_is_a_conflict_with_a_browser_fix(tmp_path):
    # The browser keeps one log per browser: a participant who opened the study link in a
    # second browser left two logs of one session task (tol-web's sidecar: recorder tol-web).
    data = tmp_path / "data"
    web = {"recorder": {"name": "tol-web", "version": "0.2.0", "runtime": "browser"}}
    first = place(data, "V01-london.csv", "W7_first.csv", SESSIONS, web, participant="W7")
    second = place(data, "R01-london.csv", "W7_second.csv", SESSIONS, web, participant="W7")
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2
    assert f"participant 'W7' session 1, task trust-london is in 2 different logs: {first} (" in err
    assert f"; {second} (" in err
    assert "Suggested fix: the participant opened the study link twice in different browsers" in err
    assert "--resume" not in err  # no lab command for a browser's logs
    assert not (tmp_path / "out").exists()


def test_a_conflict_between_imported_logs_says_how_to_import_again(tmp_path):
    data = tmp_path / "data"
    imported = {"recorder": {"name": "tol-import", "version": "0.2.0"},
                "source": {"format": "pebl-tol", "files": ["tol-7.csv"], "sha256": ["0" * 64]}}  # fmt: skip
    place(data, "V01-london.csv", "I7_a.csv", SESSIONS, imported, participant="I7")
    place(data, "R01-london.csv", "I7_b.csv", SESSIONS, imported, participant="I7")
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2
    assert "Import again with --session-column NAME" in err


def test_a_restart_on_purpose_and_a_copy_are_told_apart_and_named(tmp_path):
    data = tmp_path / "data"
    first = place(data, "V01-london.csv", "V01_first.csv", SESSIONS)
    again = place(data, "R01-london.csv", "V01_again.csv", SESSIONS,
                  {"session_attempt": 2, "earlier_attempts": ["V01_first.csv"]}, participant="V01")  # fmt: skip
    backup = data / "backup"
    backup.mkdir()
    shutil.copy(again, backup / again.name)
    shutil.copy(again.with_suffix(".json"), backup / again.with_suffix(".json").name)
    _visit(data / "hanoi")  # the other task of the visit, V01-london removed below
    (data / "hanoi" / "V01-london.csv").unlink()
    (data / "hanoi" / "V01-london.json").unlink()
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert (f"left out: {first}: attempt 1 of participant 'V01' session 1, task trust-london, "
            f"which was started again on purpose as {again} (attempt 2), which is scored.") in err  # fmt: skip
    assert (f"left out: {backup / again.name}: an identical copy (the same bytes) of {again}, "
            "which is scored.") in err  # fmt: skip
    assert [(r["protocol"], r["void_attempts"]) for r in read_csv(tmp_path / "out" / "sessions.csv")] == [
        ("trust-london", "1"), ("trust-hanoi", "0")]  # fmt: skip


@pytest.mark.parametrize(
    ("sidecar", "expected"),
    [({}, LAB), ({"recorder": {"name": "tol-run"}}, LAB), ({"recorder": {"name": "TowerTask"}}, LAB),
     ({"recorder": {"name": "tol-web"}}, BROWSER), ({"recorder": {"name": "tol-import"}}, IMPORT),
     ({"source": {"format": "pebl-tol"}}, IMPORT)],
)  # fmt: skip
def test_where_a_log_came_from_decides_the_fix(sidecar, expected):
    assert origin(sidecar) == expected
    assert conflict_fix([expected]) == CONFLICT_FIXES[expected]
    assert conflict_fix([expected, LAB, expected]).count(CONFLICT_FIXES[LAB]) == 1


def test_a_visit_with_two_protocols_gets_a_report_per_task(tmp_path):
    extra("jinja2", "report")
    extra("matplotlib", "plots")
    _visit(tmp_path / "data")
    code, _, err = tol_score(tmp_path / "data", "--output", tmp_path / "out", "--report")
    assert code == 0, err
    reports = tmp_path / "out" / "reports"
    hanoi = (reports / "V01_ses-1_task-trusthanoi.html").read_text("utf-8")
    london = (reports / "V01_ses-1_task-trustlondon.html").read_text("utf-8")
    assert not (reports / "V01_ses-1.html").exists()
    assert "s02" in london  # each report shows its own task's problems
    assert "s02" not in hanoi
    assert "t3" in hanoi
    assert ">t3<" not in london

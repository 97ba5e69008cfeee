"""A lab's first week, the scoring side (issue 22, items 1, 4, 6, 7, 9 and 10).

Every session here is a real log: the reference sessions of ``tests/data/golden``
(recorded by tol-run's simulated participant), copied, renamed or cut as a lab's
data folder would hold them, and sessions converted by tol-import from the
import fixtures. Expected values are read from the raw rows and sidecars with
the csv and json modules, never from tol-score's own code.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES, run
from tests.reference import bfs, graph_of
from tests.system_tools import extra
from tests.trust_tools import place  # a reference session copied as a lab's folder holds it
from tol_analysis.cli import main as tol_score_main

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden" / "sessions"
ROOT = HERE.parent


# ----------------------------------------------------------------------------- helpers
def tol_score(*args) -> tuple[int, str, str]:
    """tol-score in this process: (exit status, standard output, standard error)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = tol_score_main([str(a) for a in args])
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def keys(table: Path, *names: str) -> list[tuple]:
    return [tuple(r[n] for n in names) for r in rows(table)]


def assert_no_duplicate_keys(out: Path) -> None:
    trial_keys = keys(out / "trials.csv", "participant", "session", "trial", "attempt")
    assert len(trial_keys) == len(set(trial_keys)), Counter(trial_keys).most_common(3)
    session_keys = keys(out / "sessions.csv", "participant", "session")
    assert len(session_keys) == len(set(session_keys))


# ------------------------------------------------------------- item 1: one session, one log
def test_an_identical_copy_is_left_out_with_a_note_naming_both(tmp_path):
    data = tmp_path / "data"
    log = place(data, "demo.csv")
    (data / "backup").mkdir()
    copy = data / "backup" / "demo.csv"
    shutil.copy(log, copy)
    code, out, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert (f"left out: {copy}: an identical copy (the same bytes) of {log}, which "
            "is scored.") in err  # fmt: skip
    assert "1 copy or earlier attempt(s) left out" in out
    sessions = rows(tmp_path / "out" / "sessions.csv")
    assert len(sessions) == 1
    assert sessions[0]["protocol"] == "demo"  # it was empty when two logs were merged
    placed = sum(r["event"] == "place" for r in rows(log))
    assert int(sessions[0]["total_moves"]) <= placed  # not doubled (28 moves became 56)
    assert_no_duplicate_keys(tmp_path / "out")


def test_a_copy_with_the_same_rows_or_the_first_rows_is_left_out(tmp_path):
    data = tmp_path / "data"
    log = place(data, "london-shallice.csv")
    text = log.read_text("utf-8")
    same_rows = data / "same-rows.csv"  # the same rows, and a torn line a crash left
    same_rows.write_text(text + "999,G-london-shallice,1,", "utf-8")
    lines = text.splitlines(keepends=True)
    earlier = data / "earlier.csv"  # a backup made while the session ran
    earlier.write_text("".join(lines[:120]), "utf-8")
    code, _out, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert f"left out: {same_rows}: a copy (the same rows) of {log}" in err
    assert (f"left out: {earlier}: an earlier copy (its 119 rows are the first "
            f"rows) of {log}") in err  # fmt: skip
    assert len(rows(tmp_path / "out" / "sessions.csv")) == 1
    assert_no_duplicate_keys(tmp_path / "out")


def test_two_different_logs_of_one_session_are_refused_naming_both(tmp_path):
    # Two logs of one protocol for one participant session (issue 30: two protocols in one
    # visit are two tasks, scored side by side; tests/test_trust_identity.py)
    data = tmp_path / "data"
    first = place(data, "london-shallice.csv", "INC_ses-1_a.csv", participant="INC")
    second = place(data, "resumed.csv", "INC_ses-1_b.csv", participant="INC")
    place(data, "hanoi-classic.csv")
    sizes = [len(rows(p)) for p in (first, second)]
    code, out, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2
    assert "Traceback" not in err
    assert (f"tol-score: participant 'INC' session 1, task london-shallice is in 2 different "
            f"logs: {first} ({sizes[0]} rows, completed); {second} ({sizes[1]} rows, "
            "completed). They are not copies of each other and none says it was started "
            "again on purpose, so tol-score cannot tell which is the session. Suggested fix: "
            "keep one log of the session") in err  # fmt: skip
    assert not (tmp_path / "out").exists()  # refused before anything was written
    # --skip-bad leaves both out, says so, and scores the rest
    code, out, err = tol_score(data, "--output", tmp_path / "out", "--skip-bad")
    assert code == 0, err
    assert (
        "skipped: participant 'INC' session 1, task london-shallice is in 2 different logs" in err
    )
    assert [r["participant"] for r in rows(tmp_path / "out" / "sessions.csv")] == [
        "G-hanoi-classic"
    ]
    assert "1 session(s)" in out
    assert "1 file(s) skipped" in out


def test_a_session_started_again_on_purpose_scores_its_latest_attempt(tmp_path):
    # The fields tol-run --new-attempt writes (issue 22, runner side): session_attempt and
    # earlier_attempts in the sidecar of the new log.
    data = tmp_path / "data"
    first = place(data, "london-shallice.csv", "INC_ses-1_first.csv", participant="INC")
    again = place(data, "resumed.csv", "INC_ses-1_again.csv", participant="INC")
    side = json.loads(again.with_suffix(".json").read_text("utf-8"))
    # (sidecar version 3 on the runner's branch; the keys are read from any version)
    side.update(session_attempt=2, earlier_attempts=[first.name])
    again.with_suffix(".json").write_text(json.dumps(side), "utf-8")
    code, out, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert (f"left out: {first}: attempt 1 of participant 'INC' session 1, task "
            f"london-shallice, which was started again on purpose as {again} (attempt 2), "
            "which is scored.") in err  # fmt: skip
    (session,) = rows(tmp_path / "out" / "sessions.csv")
    assert session["protocol"] == "london-shallice"
    assert session["void_attempts"] == "1"  # the attempt the resumed log cut off
    assert_no_duplicate_keys(tmp_path / "out")
    # --verify notes it, and is content
    code, out, _ = tol_score("--verify", data)
    assert code == 0
    assert f"note  {first}: attempt 1" in out


def test_score_sessions_never_writes_a_key_twice(tmp_path):
    from tol_analysis.read.duplicates import DuplicateSessionError
    from tol_analysis.read.logs import read_session
    from tol_analysis.score.scores import score_sessions

    a = place(tmp_path, "london-shallice.csv", "a.csv", participant="X")
    b = place(tmp_path, "resumed.csv", "b.csv", participant="X")
    with pytest.raises(DuplicateSessionError,
                       match="participant 'X' session 1, task london-shallice is in 2 "):  # fmt: skip
        score_sessions([read_session(a), read_session(b)])
    with pytest.raises(Exception, match="given twice"):
        score_sessions([read_session(a), read_session(a)])
    left = []
    scores = score_sessions(
        [read_session(a), read_session(b)], on_error=lambda log, exc: left.append(log.path)
    )
    assert left == [b]
    t = scores.trials
    assert not t.duplicated(["participant", "session", "protocol", "trial", "attempt"]).any()


def test_verify_reports_two_different_logs_and_copies(tmp_path):
    data = tmp_path / "data"
    place(data, "london-shallice.csv", "a.csv", participant="INC")
    place(data, "resumed.csv", "b.csv", participant="INC")
    shutil.copy(data / "a.csv", data / "a-copy.csv")
    code, out, _ = tol_score("--verify", data)
    assert code == 1
    assert (
        "PROBLEM  participant 'INC' session 1, task london-shallice is in 2 different logs" in out
    )
    assert f"PROBLEM  {data / 'a-copy.csv'}: an identical copy" in out


# ----------------------------------------------------------- item 4: simulated data marked
def _import_jspsych(folder: Path) -> Path:
    done = run("tol-import", FIXTURES / "jspsych" / "J02.json", "--output", folder)
    assert done.returncode == 0, done.stderr
    return folder


def test_simulated_sessions_are_marked_in_every_table(tmp_path):
    data = tmp_path / "data"
    place(data, "demo.csv")
    _import_jspsych(data / "imported")
    shutil.copy(HERE / "data" / "logs" / "hand-worked.csv", data / "hand-worked.csv")
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    out = tmp_path / "out"
    # Expected from the sidecars, read as plain JSON
    expected = {}
    for log in data.rglob("*.csv"):
        first = rows(log)[0]
        side = log.with_suffix(".json")
        word = ""
        if side.is_file():
            word = "true" if json.loads(side.read_text("utf-8")).get("simulate") else "false"
        expected[first["participant"]] = word
    assert set(expected.values()) == {"", "false", "true"}
    for table in ("sessions.csv", "trials.csv", "wide.csv"):
        got = {r["participant"]: r["simulated"] for r in rows(out / table)}
        assert got == {p: w for p, w in expected.items() if p in got}, table
        assert "G-demo" in got
    book = json.loads((out / "codebook.json").read_text("utf-8"))
    for table in ("sessions.csv", "trials.csv", "wide.csv"):
        assert "simulated" in [c["name"] for c in book["tables"][table]]


def test_bids_leaves_simulated_sessions_out_unless_asked(tmp_path):
    data = tmp_path / "data"
    place(data, "demo.csv", participant="sim")
    _import_jspsych(data / "imported")
    people = sorted({r["participant"] for r in rows(next((data / "imported").glob("*.csv")))})
    code, _, err = tol_score(data, "--output", tmp_path / "out", "--bids")
    assert code == 0, err
    assert ("left out of bids/: 1 simulated session(s) (sim session 1): not a person's data; "
            "pass --bids-include-simulated to put them in, marked.") in err  # fmt: skip
    bids = tmp_path / "out" / "bids"
    assert not (bids / "sub-sim").exists()
    with (bids / "participants.tsv").open(encoding="utf-8") as f:
        listed = [r["participant_id"] for r in csv.DictReader(f, delimiter="\t")]
    assert "sub-sim" not in listed
    assert all(p.startswith("sub-") for p in listed)
    assert people
    # Asked for: in, and marked in participants.tsv and the _beh.tsv
    code, _, err = tol_score(data, "--output", tmp_path / "out2", "--bids",
                             "--bids-include-simulated")  # fmt: skip
    assert code == 0, err
    bids = tmp_path / "out2" / "bids"
    with (bids / "participants.tsv").open(encoding="utf-8") as f:
        table = {r["participant_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    assert table["sub-sim"]["simulated"] == "true"
    assert {r["simulated"] for p, r in table.items() if p != "sub-sim"} == {"false"}
    (beh,) = (bids / "sub-sim" / "ses-1" / "beh").glob("*_beh.tsv")
    with beh.open(encoding="utf-8") as f:
        assert {r["simulated"] for r in csv.DictReader(f, delimiter="\t")} == {"true"}
    described = json.loads((bids / "participants.json").read_text("utf-8"))
    assert "simulated participant" in described["simulated"]["Description"]


def test_the_study_overview_marks_simulated_sessions(tmp_path):
    extra("jinja2", "report")
    extra("matplotlib", "plots")
    data = tmp_path / "data"
    place(data, "demo.csv")
    _import_jspsych(data / "imported")
    code, _, err = tol_score(data, "--output", tmp_path / "out", "--report")
    assert code == 0, err
    index = (tmp_path / "out" / "reports" / "index.html").read_text("utf-8")
    marked = re.findall(r'<tbody data-session="([^"]+)" class="simulated" data-simulated="true">',
                        index)  # fmt: skip
    assert marked == ["G-demo-1"]
    flags = re.search(r'data-session="G-demo-1".*?<span class="flag"[^>]*>([^<]*)</span>', index,
                      re.S)  # fmt: skip
    assert flags.group(1).split(", ")[0] == "simulated"
    assert index.count("data-simulated") == 1


# ---------------------------------------------------------------- item 6: stable outputs
def test_wide_names_do_not_depend_on_which_sessions_are_present(tmp_path):
    one = tmp_path / "one"
    place(one, "demo.csv")
    code, _, err = tol_score(one, "--output", tmp_path / "a")
    assert code == 0, err
    before = rows(tmp_path / "a" / "wide.csv")[0]
    assert "s1_demo_demo_1_solved" in before  # always with the session and the task
    # A second participant's session 2 arrives: the first participant's names stay
    place(one, "london-shallice.csv", session=2)
    code, _, err = tol_score(one, "--output", tmp_path / "b")
    assert code == 0, err
    after = {r["participant"]: r for r in rows(tmp_path / "b" / "wide.csv")}
    assert set(before) <= set(after["G-demo"])
    assert {k: v for k, v in after["G-demo"].items() if k in before} == before
    assert any(name.startswith("s2_") for name in after["G-london-shallice"])


def test_rescoring_into_a_used_folder_is_refused_then_replaced_whole(tmp_path):
    extra("matplotlib", "plots")
    data = tmp_path / "data"
    place(data, "demo.csv")
    place(data, "hanoi-classic.csv", participant="P2")
    out = tmp_path / "out"
    code, _, err = tol_score(data, "--output", out, "--plots", "--bids", "--bids-include-simulated")
    assert code == 0, err
    plots = sorted(p.name for p in (out / "plots").iterdir())
    (data / "hanoi-classic.csv").unlink()
    code, _, err = tol_score(data, "--output", out, "--bids", "--bids-include-simulated")
    assert code == 2
    assert err.startswith(f"tol-score: {out} already holds tol-score's outputs (bids, "
                          "codebook.json, codebook.md, copy_moves.csv, moves.csv, plots, ...); "
                          "scoring into it would leave some of them from the earlier "
                          "scoring. Suggested fix: pass --replace to replace them (only what "
                          "tol-score-manifest.json lists")  # fmt: skip
    assert sorted(p.name for p in (out / "plots").iterdir()) == plots  # untouched
    code, _, err = tol_score(data, "--output", out, "--bids", "--bids-include-simulated",
                             "--replace")  # fmt: skip
    assert code == 0, err
    assert f"replaced: the earlier outputs in {out} (" in err
    assert "plots" in err
    assert not (out / "plots").exists()  # not asked for this time: no stale figures
    assert [r["participant"] for r in rows(out / "sessions.csv")] == ["G-demo"]
    with (out / "bids" / "participants.tsv").open(encoding="utf-8") as f:
        assert [r["participant_id"] for r in csv.DictReader(f, delimiter="\t")] == ["sub-Gdemo"]
    assert not (out / "bids" / "sub-P2").exists()
    # tol-score's own folder holds the outputs in place and nothing else (tests/test_trust_outputs.py)
    state = sorted(p.name for p in (out / ".tol-score").iterdir())
    assert state[:2] == ["current", "lock"]
    assert len(state) == 3
    assert state[2] == os.readlink(out / ".tol-score" / "current")


# ------------------------------------------------- item 7: no traceback, no silent no-op
def test_an_output_that_is_a_file_is_refused_before_scoring(tmp_path):
    data = tmp_path / "data"
    place(data, "demo.csv")
    afile = tmp_path / "scores.csv"
    afile.write_text("mine\n", "utf-8")
    code, _out, err = tol_score(data, "-o", afile)
    assert code == 2
    assert err == (f"tol-score: --output {afile} is a file, not a folder. Suggested fix: give a "
                   "folder for the tables (it is made if missing), e.g. --output scored.\n")  # fmt: skip
    assert afile.read_text("utf-8") == "mine\n"
    code, _, err = tol_score(data, "-o", afile / "inside")
    assert code == 2
    assert err == (f"tol-score: --output {afile / 'inside'} cannot be made: {afile} is a file. "
                   "Suggested fix: give a folder path whose parents are folders.\n")  # fmt: skip


def test_an_unwritable_output_is_refused_before_scoring(tmp_path):
    data = tmp_path / "data"
    place(data, "demo.csv")
    if os.geteuid() == 0:  # root writes anywhere permissions allow: use what no one can write
        target = Path("/proc/tol-score-output")
        where = Path("/proc")
    else:
        where = tmp_path / "locked"
        where.mkdir()
        where.chmod(0o500)
        target = where / "out"
    code, _, err = tol_score(data, "-o", target)
    assert code == 2
    assert err == (f"tol-score: --output {target} cannot be made ({where} is not writable). "
                   "Suggested fix: choose a folder you can write to, or ask for write "
                   "access.\n")  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--language", "fr"], "--language does nothing without --report (it is the language "
         "of the reports). Suggested fix: add --report, or leave out --language."),
        (["--bids-include-simulated"], "--bids-include-simulated does nothing without --bids"),
        (["--verify", "--plots"], "--plots does nothing with --verify (--verify checks the logs "
         "and writes nothing; it reports every problem). Suggested fix: leave out --plots, or "
         "--verify."),
        (["--verify", "--skip-bad"], "--skip-bad does nothing with --verify"),
        (["--verify", "--planning-ends", "pick_up"], "--planning-ends does nothing with --verify"),
        (["--verify", "--language", "en"], "--language does nothing with --verify"),
    ],
)  # fmt: skip
def test_options_that_would_do_nothing_are_refused(tmp_path, args, message):
    data = tmp_path / "data"
    place(data, "demo.csv")
    output = [] if "--verify" in args else ["-o", tmp_path / "out"]
    code, _out, err = tol_score(data, *output, *args)
    assert code == 2
    assert err == f"tol-score: {message}" + ("\n" if message.endswith(".") else err[len(
        f"tol-score: {message}"):])  # fmt: skip
    assert message in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_verify_on_an_empty_folder_fails(tmp_path):
    (tmp_path / "empty").mkdir()
    code, _out, err = tol_score("--verify", tmp_path / "empty")
    assert code == 2
    assert err == (f"tol-score: --verify: no event logs (.csv) found in {tmp_path / 'empty'}. "
                   "Suggested fix: give the folders (or files) that hold the logs tol-run "
                   "wrote.\n")  # fmt: skip


def test_tol_import_refuses_list_formats_with_files(tmp_path):
    done = run("tol-import", "--list-formats", FIXTURES / "jspsych" / "J02.json", "-o", tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr == ("tol-import: FILE does nothing with --list-formats (--list-formats "
                           "lists the formats and exits; nothing is imported). Suggested fix: "
                           "leave out FILE, or --list-formats.\n")  # fmt: skip
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------- item 9: the README's analysis
def test_the_analysis_example_leaves_practice_out(tmp_path, monkeypatch):
    # The analysis example moved from the README to the scoring page of the docs.
    text = (ROOT / "docs" / "scoring.md").read_text(encoding="utf-8")
    (code,) = [c for c in re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)
               if "groupby" in c]  # fmt: skip
    place(tmp_path / "data", "london-shallice.csv")
    monkeypatch.chdir(tmp_path)
    tree = ast.parse(code)
    shown = []
    ns: dict = {}
    for node in tree.body:  # as a notebook runs it: each bare expression's value is shown
        if isinstance(node, ast.Expr) and "groupby" in ast.unparse(node):
            value = node.value  # print(x): x is what is shown
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "print":
                value = value.args[0]
            shown.append(eval(compile(ast.Expression(value), "README", "eval"), ns))
        else:
            exec(compile(ast.Module([node], []), "README", "exec"), ns)
    (means,) = shown
    # Independently, from the raw rows: per test (not practice) attempt that was solved, the
    # placements minus the fewest moves (a BFS over the puzzle's graph)
    excess: dict[int, list[int]] = {}
    attempt = None
    for r in rows(tmp_path / "data" / "london-shallice.csv"):
        if r["event"] == "trial_onset":
            dist = bfs(graph_of(r["puzzle"]), r["goal"])[0]
            attempt = {"block": r["block"], "min": dist[r["state"]], "moves": 0, "solved": False}
        elif r["event"] == "place":
            attempt["moves"] += 1
        elif r["event"] == "solved":
            attempt["solved"] = True
        elif r["event"] == "trial_end" and attempt["block"] != "practice" and attempt["solved"]:
            excess.setdefault(attempt["min"], []).append(attempt["moves"] - attempt["min"])
    assert {int(k): float(v) for k, v in means.items()} == {
        k: sum(v) / len(v) for k, v in excess.items()
    }
    assert float(means[2]) == 2.0  # 2.667 with the practice problem averaged in
    assert (tmp_path / "scored" / "trials.csv").is_file()


# ------------------------------------------------------------- item 10: imported sessions
@pytest.fixture(scope="module")
def imported_and_scored(tmp_path_factory):
    base = tmp_path_factory.mktemp("imported")
    files = [FIXTURES / "jspsych" / "J02.json", *sorted((FIXTURES / "pebl").glob("to[lh]-[0-9]*.csv")),
             FIXTURES / "expfactory" / "tower_of_london.csv"]  # fmt: skip
    done = run("tol-import", *files, "--output", base / "logs")
    assert done.returncode == 0, done.stderr
    done = run("tol-import", FIXTURES / "jspsych" / "J01.csv", "--capacities", "3,2,1",
               "--end-delay", "500", "--output", base / "logs")  # fmt: skip
    assert done.returncode == 0, done.stderr
    code, _, err = tol_score(base / "logs", "--output", base / "out", "--bids", "--report")
    assert code == 0, err
    return base / "logs", base / "out"


def test_every_trial_end_reason_importers_write_is_in_the_codebook(imported_and_scored):
    logs, _ = imported_and_scored
    book = json.loads((ROOT / "tol_tasks" / "session_data" / "codebook" / "events-v3.json")
                      .read_text("utf-8"))  # fmt: skip
    described = next(c for c in book["columns"] if c["name"] == "reason")["description"]
    reasons = {r["reason"] for log in logs.glob("*.csv") for r in rows(log)
               if r["event"] == "trial_end" and r["reason"]}  # fmt: skip
    assert {"reset", "gave_up"} <= reasons
    for reason in reasons | {"unsolved"}:
        assert re.search(rf"\b{reason}\b", described), reason


def test_planning_time_falls_back_to_the_first_move_without_pick_ups(imported_and_scored):
    logs, out = imported_and_scored
    # From the raw rows: an attempt without pick_up rows has its planning time at its first
    # place row; with pick-ups, at its first pick_up
    want = {}
    for log in logs.glob("*.csv"):
        current = None
        for r in rows(log):
            if r["event"] == "trial_onset":
                current = want[(r["participant"], r["session"], r["trial"], r["attempt"])] = {}
            elif current is not None and r["event"] in ("pick_up", "place"):
                current.setdefault(r["event"], float(r["trial_time"]))
    seen = Counter()
    for t in rows(out / "trials.csv"):
        first = want[(t["participant"], t["session"], t["trial"], t["attempt"])]
        ends = "pick_up" if "pick_up" in first else ("move" if "place" in first else "")
        assert t["planning_ends"] == ends
        if ends:
            event = "pick_up" if ends == "pick_up" else "place"
            assert float(t["planning_time"]) == pytest.approx(first[event], abs=1e-6)
        else:
            assert t["planning_time"] == ""
        seen[ends] += 1
    assert seen["move"]
    assert seen["pick_up"]


def test_violations_are_missing_where_the_source_cannot_record_them(imported_and_scored):
    logs, out = imported_and_scored
    lacking = set()
    for side in logs.glob("*.json"):
        data = json.loads(side.read_text("utf-8"))
        if "illegal attempts" in data["unavailable"]:
            lacking.add(data["participant"])
    assert lacking
    for t in rows(out / "trials.csv"):
        blank = t["participant"] in lacking
        for c in ("rule_violations", "violations_larger_on_smaller", "violations_peg_full"):
            assert (t[c] == "") == blank, (t["participant"], c, t[c])
    for s in rows(out / "sessions.csv"):
        assert (s["total_rule_violations"] == "") == (s["participant"] in lacking)


def test_reports_and_bids_say_what_recorded_each_session(imported_and_scored):
    logs, out = imported_and_scored
    for side in logs.glob("*.json"):
        data = json.loads(side.read_text("utf-8"))
        who, n = data["participant"], data["session"]
        words = f"{data['recorder']['name']} {data['recorder']['version']} (from {data['source']['format']})"
        html = (out / "reports" / f"{who}_ses-{n}.html").read_text("utf-8")
        assert f'data-field="recorded-by">{words}</td>' in html
        assert "PsychoPy" not in html
        sub = re.sub(r"[^A-Za-z0-9]", "", who)
        (beh,) = (out / "bids" / f"sub-{sub}" / f"ses-{n}" / "beh").glob("*_beh.json")
        described = json.loads(beh.read_text("utf-8"))
        assert described["RecordedBy"] == words
        assert described["SourceFormat"] == data["source"]["format"]
    readme = (out / "bids" / "README").read_text("utf-8")
    assert "tol-import" in readme

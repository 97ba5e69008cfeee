"""tol-import on bad input: one message naming file, row, column, value and fix; never a traceback,
nothing already written lost or overwritten, --skip-bad goes on and lists what it skipped."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES
from tol_tasks.importers import ImportOptions, ImportSourceError, import_files
from tol_tasks.importers.cli import main

EF = FIXTURES / "expfactory"
JP = FIXTURES / "jspsych"
PB = FIXTURES / "pebl"


def tol_import(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _rewrite_csv(src: Path, dst: Path, change) -> list[dict]:
    """Copy a CSV, passing each row (a dict) through ``change(index, row)``; returns the rows."""
    with src.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = list(reader.fieldnames)
        rows = list(reader)
    out_rows = []
    for i, row in enumerate(rows):
        new = change(i, row)
        if new is not None:
            out_rows.append(new)
    fields = [c for c in fields if c in (out_rows[0] if out_rows else fields)]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(out_rows)
    dst.write_text(buf.getvalue(), encoding="utf-8")
    return out_rows


def test_a_file_of_an_unknown_format_is_named_with_the_formats_and_the_fix(tmp_path, capsys):
    bad = tmp_path / "survey.csv"
    bad.write_text("id,age,answer\n1,34,yes\n")
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out")
    assert code == 2
    assert f"{bad}: row 1: its columns (id, age, answer) match no format tol-import reads" in err
    assert "expfactory-tol" in err
    assert "jspsych-tol" in err
    assert "--format" in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_missing_column_names_the_column_and_what_the_format_needs(tmp_path, capsys):
    bad = tmp_path / "ef.csv"

    def drop(_i, row):
        row.pop("mouse_click")
        return row

    _rewrite_csv(EF / "W1001.csv", bad, drop)
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out", "--format",
                              "expfactory-tol", "--participant", "W1")  # fmt: skip
    assert code == 2
    assert f"{bad}: row 1: column 'mouse_click' is missing; expfactory-tol needs" in err
    assert "Suggested fix: export the whole jsPsych data" in err


def test_a_malformed_position_names_the_row_column_and_value(tmp_path, capsys):
    bad = tmp_path / "ef.csv"
    target = {}

    def damage(i, row):
        if row["trial_id"] == "to_board" and not target:
            target["line"] = i + 2  # the header is line 1
            row["current_position"] = "1,2,9,0"
        return row

    _rewrite_csv(EF / "W1001.csv", bad, damage)
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out", "--participant", "W1")
    assert code == 2
    assert f"{bad}: row {target['line']}: column 'current_position' holds '1,2,9,0': " in err
    assert "not a position of the task's board" in err
    assert "Suggested fix:" in err


def test_a_position_that_does_not_follow_from_a_legal_move_is_an_error(tmp_path, capsys):
    bad = tmp_path / "tol-999.csv"
    lines = (PB / "tol-101.csv").read_text().splitlines()
    # Row 3 (file line 3) is the first move of trial 1; make it jump two moves at once.
    fields = lines[2].split(",")
    assert fields[5] == "1"
    start = lines[1].split(",")[3]
    assert start == "|21|3||"
    fields[3] = "||32|1|"  # balls 1 and 2 moved at once
    lines[2] = ",".join(fields)
    bad.write_text("\n".join(lines).replace("101,", "999,") + "\n")
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out", "--capacities", "3,2,1")
    assert code == 2
    assert f"{bad}: row 3: column 'current' holds '||32|1|': this position (|BY|R) does not " in err
    assert "follow from YR|B| by one legal move" in err
    assert "a position that does not follow from a legal move cannot be scored" in err


def test_an_illegal_move_in_a_jspsych_trial_names_the_move(tmp_path, capsys):
    rows = json.loads((JP / "J02.json").read_text())
    moves = rows[0]["moves"]
    moves[0] = {**moves[0], "from": moves[0]["from"], "to": moves[0]["from"]}  # onto its own peg
    bad = tmp_path / "jp.json"
    bad.write_text(json.dumps(rows))
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out")
    assert code == 2
    assert f"{bad}: row 1: column 'moves' holds " in err
    assert "is not a legal move from" in err


def test_a_participant_with_no_test_trials_is_named_with_their_rows(tmp_path, capsys):
    bad = tmp_path / "ef.csv"
    kept = _rewrite_csv(
        EF / "tower_of_london.csv", bad,
        lambda _i, r: r if r["worker_id"] == "W1003" or r["exp_stage"] != "test" else None,
    )  # fmt: skip
    w2 = [i for i, r in enumerate(kept, start=2) if r["worker_id"] == "W1002"]
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out")
    assert code == 2
    assert (f"{bad}: column 'exp_stage' holds \"never 'test'\": participant 'W1002' session 1 "
            f"(rows {w2[0]}-{w2[-1]}) has practice only, no test trials") in err  # fmt: skip
    assert "leave them out with --skip-bad" in err
    # W1003 comes after W1002 in the file: stopping at W1002 wrote nothing of theirs
    assert not list((tmp_path / "out").glob("W1003*"))
    # With --skip-bad the others are imported and W1002 is reported
    code, out, err = tol_import(capsys, bad, "--output", tmp_path / "out", "--skip-bad")
    assert code == 0
    assert "1 session(s) written" in out
    assert "1 skipped" in out
    assert err.startswith("skipped: ")
    assert "W1002" in err
    assert [p.name for p in (tmp_path / "out").glob("*.csv")] == ["W1003_ses-1_expfactory-tol.csv"]


def test_skip_bad_goes_on_past_bad_files_and_keeps_what_was_written(tmp_path, capsys):
    junk = tmp_path / "notes.csv"
    junk.write_text("a,b\n1,2\n")
    psy = FIXTURES / "psytoolkit" / "tower_hanoi.psydat.txt"
    out = tmp_path / "out"
    code, _, err = tol_import(capsys, PB / "toh-201.csv", junk, psy, PB / "toh-202.csv",
                              "--output", out)  # fmt: skip
    assert code == 2  # stops at notes.csv; toh-201 is kept
    assert [p.name for p in out.glob("*.csv")] == ["201_ses-1_pebl-toh.csv"]
    assert "Sessions written before this one are kept; pass --skip-bad" in err
    code, stdout, err = tol_import(capsys, PB / "toh-201.csv", junk, psy, PB / "toh-202.csv",
                                   "--output", out, "--skip-bad")  # fmt: skip
    assert code == 0
    assert "1 session(s) written" in stdout
    assert "1 already imported" in stdout
    assert "2 skipped" in stdout
    skipped = [line for line in err.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 2
    assert "recognised as PsyToolkit's Tower of Hanoi data" in skipped[1]
    assert sorted(p.name for p in out.glob("*.csv")) == ["201_ses-1_pebl-toh.csv",
                                                          "202_ses-1_pebl-toh.csv"]  # fmt: skip


def test_psytoolkit_data_are_recognised_and_refused_with_the_reason(tmp_path, capsys):
    psy = FIXTURES / "psytoolkit" / "tower_hanoi.psydat.txt"
    code, _, err = tol_import(capsys, psy, "--output", tmp_path)
    assert code == 2
    assert "does not say which disc moved from which peg to which" in err
    assert "docs/import/psytoolkit-toh.md" in err


def test_nothing_already_in_the_folder_is_overwritten(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    taken = out / "202_ses-1_pebl-toh.csv"
    taken.write_text("a session of another study\n")
    code, _, err = tol_import(capsys, PB / "toh-202.csv", "--output", out)
    assert code == 2
    assert (
        f"{taken} already exists without its sidecar (an import cut off?) and holds another" in err
    )
    assert "--session" in err
    assert taken.read_text() == "a session of another study\n"
    assert not (out / "202_ses-1_pebl-toh.json").exists()
    code, _out_text, _ = tol_import(capsys, PB / "toh-202.csv", "--output", out, "--session", "2")
    assert code == 0
    assert (out / "202_ses-2_pebl-toh.csv").is_file()


def test_an_option_the_format_does_not_take_is_refused(tmp_path, capsys):
    code, _, err = tol_import(capsys, PB / "toh-201.csv", "--output", tmp_path, "--capacities",
                              "3,2,1")  # fmt: skip
    assert code == 2
    assert "--capacities does not apply to pebl-toh (PEBL Tower of Hanoi (battery/toh))" in err
    assert "tol-import never ignores an option" in err


def test_a_participant_column_or_the_participant_is_required(tmp_path, capsys):
    code, _, err = tol_import(capsys, EF / "W1001.csv", "--output", tmp_path)
    assert code == 2
    assert "no column names the participant" in err
    assert "pass --participant ID" in err
    code, _, err = tol_import(capsys, EF / "tower_of_london.csv", "--output", tmp_path,
                              "--participant", "X")  # fmt: skip
    assert code == 2
    assert "the file names its participants (column 'worker_id')" in err


def test_a_pebl_summary_alone_points_to_its_log(tmp_path, capsys):
    code, _, err = tol_import(capsys, PB / "tol-summary-101.csv", "--output", tmp_path)
    assert code == 2
    assert "a PEBL summary file has no moves" in err
    assert "tol-101.csv" in err
    # Given with its log, the summary is read with it
    code, out, _ = tol_import(capsys, PB / "tol-101.csv", PB / "tol-summary-101.csv",
                              "--output", tmp_path)  # fmt: skip
    assert code == 0
    assert "1 session(s) written" in out


def test_pebl_heights_that_the_log_cannot_decide_ask_for_capacities(tmp_path, capsys):
    bad = tmp_path / "tol-77.csv"
    # Trial 1 of a Shallice-type log that never stacks more than one ball on a pile
    bad.write_text(
        "sub,trial,size,current,end,step,reset,tries,score,abstime,trialtime,clicktime,done\n"
        "77,1,3,|1|2|3|,|2|1|3|,0,0,1,0,5000,0,0,0\n"
        "77,1,3,|1||3|,|2|1|3|,1,0,1,0,6000,1000,1000,0\n"
    )
    code, _, err = tol_import(capsys, bad, "--output", tmp_path / "out")
    assert code == 2
    assert f"{bad}: row 2: column 'size' holds '3': the piles' heights are not in the file" in err
    assert "pass the heights PEBL used with --capacities" in err


def test_a_wrong_end_delay_is_caught_with_the_fix(tmp_path, capsys):
    code, _, err = tol_import(capsys, JP / "J01.csv", "--output", tmp_path, "--capacities", "3,2,1")
    assert code == 2
    assert "would begin" in err
    assert "before the previous one ended" in err
    assert "--end-delay MS" in err


def test_the_api_raises_one_error_type_naming_the_file(tmp_path):
    with pytest.raises(ImportSourceError, match=r"no-such\.csv: cannot be read"):
        import_files([tmp_path / "no-such.csv"], tmp_path / "out")
    with pytest.raises(ImportSourceError, match="--format 'excel' is not a format"):
        import_files([PB / "toh-201.csv"], tmp_path / "out", fmt="excel")
    with pytest.raises(ImportSourceError, match="--participant does not apply to pebl-toh"):
        import_files([PB / "toh-201.csv"], tmp_path / "out",
                     options=ImportOptions(participant="P"))  # fmt: skip


def test_usage_errors_exit_2_without_a_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main([str(PB / "toh-201.csv")])
    assert exc.value.code == 2
    assert "--output is required" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main([str(PB / "toh-201.csv"), "--output", str(tmp_path), "--capacities", "3,x"])
    assert exc.value.code == 2
    assert "give each peg's capacity" in capsys.readouterr().err


def test_list_formats_names_every_format_and_its_page(capsys):
    assert main(["--list-formats"]) == 0
    out = capsys.readouterr().out
    for name in ("expfactory-tol", "jspsych-tol", "pebl-tol", "pebl-toh", "psytoolkit-toh"):
        assert name in out
    assert "docs/import/pebl-tol.md" in out

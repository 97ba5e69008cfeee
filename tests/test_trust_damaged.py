"""Damaged data refused or read, never absent in silence (issue 30).

Each case starts from a real log (the reference sessions of ``tests/data/golden``) damaged
as it happens in a lab: times that go backwards, rows out of order, a sidecar from another
session or with its protocol text edited, and the log opened and saved again by a real
spreadsheet program (LibreOffice headless, Debian's ``libreoffice-calc``). Row numbers in
the messages are the log's own ``row`` values.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from tests.trust_tools import GOLDEN, libreoffice_convert, place, read_csv
from tol_analysis.cli import main as tol_score_main


def tol_score(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tol_score_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _write(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def _refused_and_verified(data: Path, tmp_path: Path, *expected: str) -> str:
    """tol-score refuses the folder (exit 2, the texts in its message) and --verify names
    the same fault as a problem; returns the message."""
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2, err
    for text in expected:
        assert text in err, (text, err)
    assert "Traceback" not in err
    code, out, _ = tol_score("--verify", data)
    assert code == 1
    problems = [line for line in out.splitlines() if line.startswith("PROBLEM")]
    assert any(all(t in p for t in expected) for p in problems), out
    assert "a row is missing" not in out
    return err


def test_a_time_that_goes_backwards_is_refused_naming_the_rows(tmp_path):
    log = place(tmp_path / "data", "demo.csv")
    rows = _rows(log)
    h = rows[0]
    k = next(i for i, r in enumerate(rows) if r[h.index("event")] == "place")
    rows[k][h.index("time")] = f"{float(rows[k - 1][h.index('time')]) - 2:.6f}"
    _write(log, rows)
    number, before = rows[k][0], rows[k - 1][0]
    err = _refused_and_verified(log.parent, tmp_path, f"{log}: row {number}: its time",
                                f"is before the time of row {before}", "the times go backwards")  # fmt: skip
    assert "Suggested fix: restore the log from a backup" in err


def test_a_trial_time_that_goes_backwards_within_an_attempt_is_refused(tmp_path):
    log = place(tmp_path / "data", "london-shallice.csv")
    rows = _rows(log)
    h = rows[0]
    k = [i for i, r in enumerate(rows) if r[h.index("event")] == "place"][3]
    rows[k][h.index("trial_time")] = "0.000001"  # planning_time would come out negative
    _write(log, rows)
    _refused_and_verified(log.parent, tmp_path, f"{log}: row {rows[k][0]}: its trial_time",
                          "in the same attempt: the times go backwards")  # fmt: skip


def test_rows_out_of_order_are_refused_not_reported_as_missing(tmp_path):
    log = place(tmp_path / "data", "hanoi-classic.csv")
    rows = _rows(log)
    rows[20], rows[21] = rows[21], rows[20]  # two rows swapped (a sort, a hand edit)
    _write(log, rows)
    _refused_and_verified(log.parent, tmp_path,
                          f"{log}: line 22: row '{rows[21][0]}' comes after row {rows[20][0]}",
                          "the rows are out of order")  # fmt: skip


def test_row_numbers_are_the_logs_own_after_a_lost_row(tmp_path):
    log = place(tmp_path / "data", "demo.csv")
    rows = _rows(log)
    h = rows[0]
    del rows[5]  # a row lost: the numbering skips (a warning, the log is still read)
    k = next(i for i, r in enumerate(rows) if i > 20 and r[h.index("event")] == "place")
    rows[k][h.index("state")] = "Z" + rows[k][h.index("state")][1:]
    _write(log, rows)
    code, _, err = tol_score(log.parent, "--output", tmp_path / "out")
    assert code == 2
    assert f"{log}: row {rows[k][0]}: the log says moving" in err  # its row cell, not its line
    assert rows[k][0] != str(k)


@pytest.mark.parametrize("damage", ["another session's sidecar", "protocol text edited"])
def test_a_sidecar_that_does_not_match_its_log_is_refused(tmp_path, damage):
    log = place(tmp_path / "data", "demo.csv")
    side = json.loads(log.with_suffix(".json").read_text("utf-8"))
    if damage == "another session's sidecar":
        other = json.loads((GOLDEN / "hanoi-classic.json").read_text("utf-8"))
        side["protocol"] = other["protocol"]
        expected = "but the log's session_start row gives"
    else:
        side["protocol"]["text"] = side["protocol"]["text"].replace("disks: 3", "disks: 4")
        expected = "does not have the SHA-256 it states"
    log.with_suffix(".json").write_text(json.dumps(side), "utf-8")
    err = _refused_and_verified(log.parent, tmp_path, f"{log}: row 1: ", expected)
    assert "Suggested fix: put back the sidecar (.json) the recorder wrote" in err


# ------------------------------------------------------------------ spreadsheet re-saves
#: LibreOffice's CSV export: (separator, character set) as filter tokens; 76 is UTF-8 and
#: 65535 UTF-16 (with its byte-order mark).
RESAVES = {"semicolons": "59,34,76,1", "UTF-16": "44,34,65535,1",
           "UTF-16 and semicolons": "59,34,65535,1"}  # fmt: skip


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    """The reference demo session scored as the recorder wrote it."""
    root = tmp_path_factory.mktemp("original")
    place(root / "data", "demo.csv")
    assert tol_score(root / "data", "--output", root / "out")[0] == 0
    return root / "out"


@pytest.mark.parametrize("how", list(RESAVES))
def test_a_log_resaved_by_libreoffice_is_read_as_saved_with_a_warning(tmp_path, how, original):
    src = place(tmp_path / "src", "demo.csv")
    # As a user does: open the log (LibreOffice's usual CSV import) and save it as CSV again.
    saved = libreoffice_convert(src, tmp_path / "saved", f"csv:Text - txt - csv (StarCalc):{RESAVES[how]}",
                                "CSV:44,34,76,1")  # fmt: skip
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(saved, data / "demo.csv")
    shutil.copy(src.with_suffix(".json"), data / "demo.json")  # its sidecar names it
    raw = (data / "demo.csv").read_bytes()
    assert raw.startswith(b"\xff\xfe") if "UTF-16" in how else b";" in raw.split(b"\n")[0]
    code, out, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert "not an event log" not in err  # never left out as another CSV file
    assert f"warning: {data / 'demo.csv'}: re-saved by a spreadsheet program (" in err
    for table in ("sessions.csv", "trials.csv", "moves.csv"):
        assert read_csv(tmp_path / "out" / table) == read_csv(original / table), table
    code, out, _ = tol_score("--verify", data)
    assert code == 0, out
    assert "re-saved by a spreadsheet program" in out


def test_a_resave_that_changed_a_cell_is_refused_with_the_reason_and_the_fix(tmp_path):
    # LibreOffice's usual import reads the participant id 007 as the number 7.
    src = place(tmp_path / "src", "demo.csv", participant="007")
    saved = libreoffice_convert(src, tmp_path / "saved", "csv:Text - txt - csv (StarCalc):59,34,76,1",
                                "CSV:44,34,76,1")  # fmt: skip
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(saved, data / "demo.csv")
    shutil.copy(src.with_suffix(".json"), data / "demo.json")
    assert ";7;" in (data / "demo.csv").read_text("utf-8").splitlines()[1]
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2
    assert "the sidecar's participant is '007', the log's '7'" in err
    assert "re-saved by a spreadsheet (semicolons between cells), which can change cells" in err
    assert 'save it again from the spreadsheet as "CSV UTF-8 (comma delimited)"' in err


def test_a_byte_order_mark_and_windows_line_ends_are_read(tmp_path, original):
    # What Excel's "CSV UTF-8" writes (LibreOffice 7.4 writes no UTF-8 mark, so the file is
    # made here, from the original's bytes).
    data = tmp_path / "data"
    log = place(data, "demo.csv")
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes().replace(b"\n", b"\r\n"))
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 0, err
    assert "(a UTF-8 byte-order mark, Windows line ends)" in err
    assert read_csv(tmp_path / "out" / "trials.csv") == read_csv(original / "trials.csv")


def test_a_legacy_encoding_is_refused_with_the_fix(tmp_path):
    data = tmp_path / "data"
    log = place(data, "demo.csv", participant="Zoë")
    log.write_bytes(log.read_text("utf-8").encode("cp1252"))
    code, _, err = tol_score(data, "--output", tmp_path / "out")
    assert code == 2
    assert f"{log}: not a tol-tasks event log: not UTF-8 text at byte" in err
    assert "Suggested fix: use the log tol-run (or the browser, or tol-import) wrote" in err


def test_no_empty_bids_dataset_when_every_session_is_simulated(tmp_path):
    data = tmp_path / "data"
    place(data, "demo.csv")  # played by the simulated participant
    code, _, err = tol_score(data, "--output", tmp_path / "out", "--bids")
    assert code == 0, err
    assert "bids/ not written: no session to put in it" in err
    assert not (tmp_path / "out" / "bids").exists()
    assert (tmp_path / "out" / "trials.csv").exists()

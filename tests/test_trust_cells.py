"""Safe cells (issue 30): text that a spreadsheet would run as a formula reaches no export
as a formula (read back by LibreOffice headless with formula evaluation on), and participant
fields are checked against the types the protocol declares."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.system_tools import extra
from tests.trust_tools import SESSIONS, formula_cells, formula_cells_of, place, read_csv
from tol_analysis.cli import main as tol_score_main

#: Values a browser's URL parameters or a mistyped --field can carry (OWASP's examples).
FORMULAS = {
    "referrer": '=HYPERLINK("http://example.com/x","click")',
    "note": "+cmd|' /C calc'!A0",
    "site": "@SUM(1+1)",
    "code": "-2+3",
    "=cmd": "a field whose name is a formula",
}


def tol_score(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tol_score_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cells")
    data = root / "data"
    place(data, "V01-london.csv", source=SESSIONS, participant="=1+1",
          sidecar={"extra_fields": dict(FORMULAS)})  # fmt: skip
    code, _, err = tol_score(data, "--output", root / "out", "--bids", "--bids-include-simulated",
                             "--spss")  # fmt: skip
    assert code == 0, err
    return root / "out"


def test_libreoffice_runs_an_unescaped_formula_cell(tmp_path):
    # The check below can fail: a plain =1+1 in a CSV file is a formula to LibreOffice.
    plain = tmp_path / "plain.csv"
    plain.write_text('a,b\n=1+1,x\n"+2+3",y\n', "utf-8")
    assert formula_cells(plain, ",", tmp_path / "lo") == ["A2"]


def test_no_export_holds_a_formula_for_libreoffice(scored, tmp_path):
    tables = [(scored / f"{t}.csv", ",") for t in ("sessions", "trials", "moves", "wide")]
    bids = scored / "bids"
    tables += [(p, "\t") for p in sorted(bids.rglob("*.tsv"))]
    assert len(tables) >= 7
    # One start of LibreOffice for each separator (a start takes seconds), each table read
    # with its own CSV import as before.
    for sep in (",", "\t"):
        same = [table for table, s in tables if s == sep]
        found = formula_cells_of(same, sep, tmp_path / f"sep-{ord(sep)}")
        assert len(found) == len(same)
        for table, cells in zip(same, found, strict=True):
            assert cells == [], table


def test_each_formula_looking_text_is_written_with_a_quote_before_it(scored):
    (session,) = read_csv(scored / "sessions.csv")
    assert session["participant"] == "'=1+1"
    for name, value in FORMULAS.items():
        column = f"'{name}" if name.startswith("=") else name  # the header is escaped too
        assert session[column] == (f"'{value}" if value[0] in "=+-@" else value), name
    with (scored / "bids" / "participants.tsv").open(newline="", encoding="utf-8") as f:
        (person,) = csv.DictReader(f, delimiter="\t")
    assert person["referrer"] == "'" + FORMULAS["referrer"]
    book = json.loads((scored / "codebook.json").read_text("utf-8"))
    assert "OWASP" in book["text_cells"]


def test_spss_files_hold_the_escaped_text(scored):
    pyreadstat = extra("pyreadstat", "spss")
    wide, _ = pyreadstat.read_sav(str(scored / "wide.sav"))
    assert wide["participant"].tolist() == ["'=1+1"]
    assert wide["note"].tolist() == ["'" + FORMULAS["note"]]
    trials, _ = pyreadstat.read_sav(str(scored / "trials.sav"))
    assert set(trials["participant"]) == {"'=1+1"}
    assert "p__cmd" in wide.columns  # a field's name made a variable name SPSS accepts


# ------------------------------------------------------------------ typed participant fields
def test_tol_run_refuses_a_field_value_its_protocol_type_does_not_allow():
    from tol_tasks.cli import _fields
    from tol_tasks.errors import TolTasksError
    from tol_tasks.protocol_format import load_protocol

    lp = load_protocol(SESSIONS.parent / "trust-london.yaml")
    assert _fields(["age=34", "group=control"], lp) == {"age": "34", "group": "control"}
    for pair, text in (("age=abc", "not a whole number"), ("age=130", "above 120"),
                       ("group=other", "not one of patient, control")):  # fmt: skip
        with pytest.raises(TolTasksError, match=text) as info:
            _fields([pair], lp)
        assert info.value.fix.startswith(f"give {pair.split('=')[0]}=VALUE with VALUE ")


def test_a_field_value_that_breaks_its_type_is_left_empty_with_a_warning(tmp_path):
    data = tmp_path / "data"
    log = place(data, "V01-london.csv", source=SESSIONS,
                sidecar={"extra_fields": {"age": "thirty", "group": "control"}})  # fmt: skip
    code, _, err = tol_score(data, "--output", tmp_path / "out", "--spss")
    assert code == 0, err
    assert (f"warning: {log.with_suffix('.json')}: participant field 'age' holds 'thirty': not "
            "a whole number. Left empty in the tables") in err  # fmt: skip
    (session,) = read_csv(tmp_path / "out" / "sessions.csv")
    assert (session["age"], session["group"]) == ("", "control")
    pyreadstat = extra("pyreadstat", "spss")
    _, meta = pyreadstat.read_sav(str(tmp_path / "out" / "wide.sav"), metadataonly=True)
    assert meta.readstat_variable_types["age"] == "double"  # a number, as declared
    assert meta.column_names_to_labels["age"].startswith("Participant field 'age'")

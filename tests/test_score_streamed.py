"""Scoring in constant memory: the tables written batch by batch as the logs are scored
(``score_sessions(..., write_to=)``, what tol-score does) are byte for byte the tables
written whole, and what is not kept in memory says where it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tol_analysis.export.wide as wide_module
import tol_analysis.read.logs as read_module
import tol_analysis.score.builder as builder_module
import tol_analysis.score.csvfile as csvfile_module
import tol_analysis.score.scores as score_module
import tol_analysis.score.sessions as sessions_module
from tol_analysis.columns import TRIALS
from tol_analysis.conventions import Conventions
from tol_analysis.export.write import export
from tol_analysis.read.logs import find_logs, read_sessions
from tol_analysis.score.csvfile import TableWriter, write_table
from tol_analysis.score.scores import score_sessions
from tol_analysis.score.tables import TableData

HERE = Path(__file__).parent
INPUTS = [HERE / "data" / "golden" / "sessions", HERE / "data" / "v1",
          HERE / "data" / "logs" / "hand-worked.csv", HERE / "data" / "trust" / "sessions"]  # fmt: skip
TABLES = ("moves.csv", "trials.csv", "copy_moves.csv", "sessions.csv", "wide.csv",
          "codebook.json", "codebook.md")  # fmt: skip


def _score(paths, conv, write_to=None):
    return score_sessions((log for _, log in read_sessions(paths)), conv, write_to=write_to)


@pytest.mark.parametrize("conv", [Conventions(),
                                  Conventions(same_peg_drop_counts=True, planning_ends="move",
                                              include_practice=True)])  # fmt: skip
def test_tables_written_as_scored_are_the_tables_written_whole(tmp_path, monkeypatch, conv):
    monkeypatch.setattr(score_module, "BATCH_ROWS", 300)  # many batches
    monkeypatch.setattr(read_module, "BATCH_BYTES", 1)
    monkeypatch.setattr(sessions_module, "SESSION_ROWS", 2)  # sessions.csv two rows at a time
    monkeypatch.setattr(wide_module, "WIDE_ROWS", 2)  # wide.csv two participants at a time
    paths = find_logs(INPUTS)
    whole, streamed = tmp_path / "whole", tmp_path / "streamed"
    export(_score(paths, conv), whole)
    # wide.csv's session cells and participants' order looked over 2 sessions at a time
    # (tol-score: 65,536), the spilled builder giving memory back every batch: the same.
    monkeypatch.setattr(wide_module, "_STEP", 2)
    monkeypatch.setattr(builder_module, "RELEASE_BATCHES", 1)
    streamed.mkdir()
    scores = _score(paths, conv, write_to=streamed)
    assert set(scores.written) == {"moves", "trials", "copy_moves", "sessions"}
    export(scores, streamed)
    for name in TABLES:
        assert (streamed / name).read_bytes() == (whole / name).read_bytes(), name
    assert (whole / "moves.csv").read_text().count("\n") > 500  # many batches of 300 log rows


def test_a_table_written_as_scored_is_not_a_dataframe_and_says_where_it_is(tmp_path):
    scores = _score(find_logs(INPUTS[:1]), Conventions(), write_to=tmp_path)
    with pytest.raises(ValueError, match=r"moves table was written to .*moves\.csv as it was "
                                         r"scored.*read it from that file"):  # fmt: skip
        scores.frame("moves")
    assert scores.rows("moves") == (tmp_path / "moves.csv").read_text().count("\n") - 1
    assert set(scores.table("trials").names) < set(TRIALS.names)
    # sessions.csv too: the summaries are made from the trial columns kept; the table keeps
    # every column's name but only the columns wide.csv and the codebook read.
    header = (tmp_path / "sessions.csv").read_text().splitlines()[0].split(",")
    assert scores.table("sessions").names == header
    assert scores.rows("sessions") == (tmp_path / "sessions.csv").read_text().count("\n") - 1 > 0


@pytest.mark.parametrize("gather", [False, True])
def test_a_table_written_in_batches_is_the_table_written_at_once(tmp_path, monkeypatch, gather):
    """Each batch written as it comes, or batches gathered (three at a time, the last ones
    when the file is closed): the bytes of the table written at once."""
    scores = _score(find_logs(INPUTS), Conventions())
    for name in ("trials", "moves"):
        table = scores.table(name)
        monkeypatch.setattr(csvfile_module, "GATHER_CELLS", 3 * 7 * len(table.names))
        write_table(table, tmp_path / "once.csv")
        with TableWriter(tmp_path / "batches.csv", table.names, gather=gather) as out:
            for start in range(0, len(table), 7):
                rows = range(start, min(start + 7, len(table)))
                out.write(_rows(table, rows))  # each with the categories its rows use
        assert (tmp_path / "batches.csv").read_bytes() == (tmp_path / "once.csv").read_bytes()


def test_batches_gathered_are_written_apart_where_booleans_are_written_otherwise(tmp_path):
    """numpy's booleans are written True/False, nullable ones true/false: batches of both
    kinds gathered in one writer are written as each kind is (and a batch given before an
    error is written when the writer closes)."""
    plain = pd.DataFrame({"who": ["a", "b"], "ok": np.array([True, False])})
    nullable = pd.DataFrame({"who": ["b", None], "ok": pd.array([None, True], "boolean")})
    parts = [plain, plain, nullable, plain]

    def write_then_fail() -> None:
        with TableWriter(tmp_path / "out.csv", ["who", "ok"], gather=True) as out:
            for df in parts:
                out.write(TableData.from_frame(df))
            raise RuntimeError("after the last batch")

    with pytest.raises(RuntimeError, match="after the last batch"):
        write_then_fail()
    expected = "who,ok\na,True\nb,False\na,True\nb,False\nb,\n,true\na,True\nb,False\n"
    assert (tmp_path / "out.csv").read_text() == expected


def _rows(table, rows):
    return table.slice(rows.start, rows.stop)

"""The fast CSV writer writes exactly what DataFrame.to_csv writes with tol-score's options."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tol_analysis.score.csvfile import write_csv


def _pandas(df: pd.DataFrame, path) -> None:
    """tol-score's tables as they were written before the fast writer (ab09369's _to_csv)."""
    frame = df.copy()
    for col in frame.columns:
        if str(frame[col].dtype) == "boolean":
            frame[col] = frame[col].map({True: "true", False: "false"}).astype("object")
    frame.to_csv(path, index=False, na_rep="", float_format="%.6g")


def test_every_kind_of_cell_is_written_as_to_csv_writes_it(tmp_path, rng):
    n = 3000
    floats = np.array([rng.choice([rng.uniform(-1e7, 1e7), rng.random() * 10 ** rng.randint(-9, 12),
                                   round(rng.random() * 100, 6), 0.0, -0.0, float("nan"), 1e22,
                                   123456.5, 0.1234565]) for _ in range(n)])  # fmt: skip
    texts = ["plain", "with,comma", 'a "quote"', "", "line\nbreak", "é ü", "tab\there"]
    df = pd.DataFrame({
        "text": [rng.choice(texts) for _ in range(n)],
        "label": pd.Categorical([rng.choice(["A", "B,C", "D"]) for _ in range(n)]),
        "int": np.array([rng.randint(-10**12, 10**12) for _ in range(n)], np.int64),
        "nullable_int": pd.array([rng.choice([None, 0, 5, -3, 10**9]) for _ in range(n)],
                                 dtype="Int64"),
        "flag": pd.array([rng.choice([True, False, None]) for _ in range(n)], dtype="boolean"),
        "plain_flag": np.array([rng.random() < 0.5 for _ in range(n)]),
        "float": floats,
        "maybe_text": [rng.choice([None, "x", "y"]) for _ in range(n)],
    })  # fmt: skip
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    write_csv(df, ours)
    _pandas(df, theirs)
    assert ours.read_bytes() == theirs.read_bytes()
    write_csv(df.iloc[:0], ours)
    _pandas(df.iloc[:0], theirs)
    assert ours.read_bytes() == theirs.read_bytes()


def test_columns_joined_and_lines_in_chunks_write_what_to_csv_writes(tmp_path, rng, monkeypatch):
    """Enough rows for adjacent columns of few combinations to be joined (a trial's fields
    repeat on each of its moves), between columns of many values, and the lines put
    together a few rows at a time."""
    from tol_analysis.score import csvfile

    n = 3 * csvfile.JOIN_ROWS
    trial = np.arange(n) // 20
    who = np.array(["p1", "=cmd", 'a "q"', "x,y", "é"])[trial % 5]
    df = pd.DataFrame({
        "participant": pd.Categorical(who),
        "session": pd.array(np.where(trial % 7 == 0, None, trial % 3), dtype="Int64"),
        "trial": trial,
        "move": np.arange(n) % 20,
        "time": np.array([rng.random() * 100 for _ in range(n)]),
        "flag": pd.array([rng.choice([True, False, None]) for _ in range(n)], dtype="boolean"),
        "distance": np.array([rng.choice([0.0, -0.0, 1.5, float("nan")]) for _ in range(n)]),
        "label": [rng.choice(["A", "B\nC", "", "+1"]) for _ in range(n)],
    })  # fmt: skip
    theirs = tmp_path / "theirs.csv"
    escaped = df.copy()  # text a spreadsheet would run gets a ' before it (OWASP)
    for col in ("participant", "label"):
        escaped[col] = [f"'{t}" if t and t[0] in "=+-@" else t for t in df[col].astype(str)]
    _pandas(escaped, theirs)
    for cells in (csvfile.CHUNK_CELLS, 1000):  # the lines at once, then a few hundred at a time
        monkeypatch.setattr(csvfile, "CHUNK_CELLS", cells)
        ours = tmp_path / f"ours-{cells}.csv"
        write_csv(df, ours)
        assert ours.read_bytes() == theirs.read_bytes()


def test_a_few_rows_of_many_columns_write_what_to_csv_writes(tmp_path, rng, monkeypatch):
    """wide.csv's shape (a row a session, a column per problem and score): the cells made
    kind by kind across the columns, each column's own quoting, escape and missing cells
    kept; the same bytes as column by column (the path for more cells) and in chunks."""
    from tol_analysis.score import csvfile

    n = 40
    data = {}
    for j in range(60):
        kind = j % 5
        if kind == 0:  # floats shared between columns, -0.0 and missing among them
            data[f"f{j}"] = np.array([rng.choice([0.5, -0.0, 0.0, float("nan"), 1e-7, j / 3])
                                      for _ in range(n)])  # fmt: skip
        elif kind == 1:
            data[f"i{j}"] = pd.array([rng.choice([None, 0, -5, 10**15, j]) for _ in range(n)],
                                     dtype="Int64")  # fmt: skip
        elif kind == 2:
            data[f"b{j}"] = pd.array([rng.choice([True, False, None]) for _ in range(n)],
                                     dtype="boolean")  # fmt: skip
        elif kind == 3:  # some columns' texts need quotes, others not
            pool = ["a,b", 'q"'] if j % 2 else ["x", "y"]
            data[f"t{j}"] = [rng.choice([*pool, None, ""]) for _ in range(n)]
        else:
            data[f"p{j}"] = np.array([rng.random() < 0.5 for _ in range(n)])
    data["last"] = [rng.choice(["=1+1", "z", None]) for _ in range(n)]  # the line's end
    df = pd.DataFrame(data)
    escaped = df.copy()
    escaped["last"] = ["'=1+1" if t == "=1+1" else t for t in df["last"]]
    theirs = tmp_path / "theirs.csv"
    _pandas(escaped, theirs)
    for cells, chunk in ((csvfile.CHUNK_CELLS, csvfile.CHUNK_BYTES), (csvfile.CHUNK_CELLS, 500),
                         (100, csvfile.CHUNK_BYTES)):  # fmt: skip
        monkeypatch.setattr(csvfile, "CHUNK_CELLS", cells)  # 100: column by column
        monkeypatch.setattr(csvfile, "CHUNK_BYTES", chunk)  # 500: a few lines at a time
        ours = tmp_path / f"ours-{cells}-{chunk}.csv"
        write_csv(df, ours)
        assert ours.read_bytes() == theirs.read_bytes()

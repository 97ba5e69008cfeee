"""No traceback on any input: mutated real logs and mutated bundled protocols.

The logs are real ones from simulated sessions (``tests/data/fuzz/``, made by
``make_logs.sh`` beside them). Each case mutates a copy (a cell, a row, the
header, a cut, the sidecar) and runs ``tol-score`` and ``tol-score --verify``;
each protocol case mutates a field or a line of a bundled protocol and runs
``tol-protocol check``. The commands are called in-process through their entry
functions, so any exception escaping them is the traceback a person would see.
Cases are seeded: a failure names its case number, which reproduces it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import shutil
from pathlib import Path

import pytest

from tol_analysis.cli import main as tol_score_main
from tol_tasks.cli import protocol_main
from tol_tasks.protocol_format import bundled_protocols

FUZZ = Path(__file__).parent / "data" / "fuzz"
LOGS = ("sim-hanoi", "sim-london")

#: Values that do not belong in cells of any type, and some that almost do.
JUNK = ["", "abc", "-1", "1e309", "nan", "inf", "-0.5", "3.5", "999999999999999999999",
        "Ω", "1,2", '"', "A->B", "|||", "GR|B|", "AAAA", "00", " 1", "true", "None",
        "session_start", "trial_end", "place", "hanoi:3:3:0", "london:RGB:3-2-1",
        "hanoi:0:3:0", "london:RGB:0-0-0", "hanoi:x", "frames=abc;dropped_frames=-3"]  # fmt: skip


def _run(fn, argv: list[str]) -> tuple[int, str]:
    """Run a command's entry function; an exception escaping it fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = fn(argv)
        except SystemExit as exc:  # argparse usage errors exit this way, with a message
            code = exc.code
    return int(code or 0), out.getvalue() + err.getvalue()


def _mutate_log(rng: random.Random, rows: list[list[str]], side: dict | None):
    """One mutation of a log (rows, header first) and maybe of its sidecar; and its name."""
    rows = [list(r) for r in rows]
    kind = rng.choice(["cell", "cell", "cell", "cell", "row_drop", "row_dup", "row_swap",
                       "header", "width", "cut", "garbage", "sidecar"])  # fmt: skip
    body = range(1, len(rows))
    if kind == "cell":
        r, c = rng.choice(body), rng.randrange(len(rows[0]))
        rows[r][c] = rng.choice(JUNK + [rows[rng.choice(body)][c]])
        what = f"cell row {r + 1} column {rows[0][c]}={rows[r][c]!r}"
    elif kind == "row_drop":
        r = rng.choice(body)
        del rows[r]
        what = f"row {r + 1} dropped"
    elif kind == "row_dup":
        r = rng.choice(body)
        rows.insert(r, list(rows[r]))
        what = f"row {r + 1} doubled"
    elif kind == "row_swap":
        a, b = rng.choice(body), rng.choice(body)
        rows[a], rows[b] = rows[b], rows[a]
        what = f"rows {a + 1} and {b + 1} swapped"
    elif kind == "header":
        c = rng.randrange(len(rows[0]))
        rows[0][c] = rng.choice(["", "Time", rows[0][rng.randrange(len(rows[0]))]])
        what = f"header column {c} renamed {rows[0][c]!r}"
    elif kind == "width":
        r = rng.choice(body)
        rows[r] = rows[r][:-1] if rng.random() < 0.5 else [*rows[r], "extra"]
        what = f"row {r + 1} has {len(rows[r])} fields"
    elif kind == "sidecar":
        side = rng.choice([None, {}, {"status": 3}, {"participant": ["x"], "session": "one"},
                           "not json"])  # fmt: skip
        what = f"sidecar {side!r}"
    else:
        what = kind
    return rows, side, kind, what


def _write(folder: Path, rows, side, kind: str, rng: random.Random) -> Path:
    log = folder / "session.csv"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    text = buf.getvalue()
    if kind == "cut":
        text = text[: rng.randrange(len(text))]
    elif kind == "garbage":
        lines = text.split("\n")
        lines.insert(rng.randrange(1, len(lines)), rng.choice(['"unclosed', "\x00\x01", "a,b"]))
        text = "\n".join(lines)
    log.write_text(text, encoding="utf-8")
    if side is not None:
        sidecar = folder / "session.json"
        sidecar.write_text(side if isinstance(side, str) else json.dumps(side), encoding="utf-8")
    return log


def _log_cases(n: int, seed: int, tmp_path: Path) -> int:
    sources = []
    for name in LOGS:
        with (FUZZ / f"{name}.csv").open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        side = json.loads((FUZZ / f"{name}.json").read_text())
        side["event_log"] = "session.csv"
        sources.append((rows, side))
    failures = 0
    for case in range(n):
        rng = random.Random(f"{seed}:{case}")
        rows, side = rng.choice(sources)
        rows, side, kind, what = _mutate_log(rng, rows, dict(side))
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        log = _write(folder, rows, side, kind, rng)
        for argv in ([str(log), "--output", str(folder / "out")], [str(log), "--verify"]):
            code, text = _run(tol_score_main, argv)
            assert code in (0, 1, 2), (case, what, argv, code, text)
            if code != 0:
                # A refusal names the file (and, for a bad cell, the row and the column).
                assert str(log) in text or "no event logs" in text, (case, what, text)
                failures += 1
            assert "Traceback" not in text, (case, what, text)
        shutil.rmtree(folder)
    return failures


def test_fuzzed_logs_never_give_a_traceback_quick(tmp_path):
    # The everyday loop's sample; the slow test below runs 1,000 cases.
    assert _log_cases(60, seed=1, tmp_path=tmp_path) > 0


@pytest.mark.slow
def test_fuzzed_logs_never_give_a_traceback(tmp_path):
    refused = _log_cases(1000, seed=20261122, tmp_path=tmp_path)
    assert refused > 300  # most mutations are caught, the rest score or verify cleanly


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        # The fault found by hand: a trial_time cell holding text.
        ("trial_time", "twelve", "holds 'twelve'; expected a number"),
        # A column scoring does not use is checked against the codebook all the same.
        ("x", "twelve", "holds 'twelve'; expected a number"),
        ("trial", "1" * 25, f"holds '{'1' * 25}', a whole number of more than 18 digits"),
    ],
)
def test_a_bad_cell_names_file_row_column_and_value(tmp_path, column, value, expected):
    with (FUZZ / "sim-hanoi.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    col = rows[0].index(column)
    r = next(i for i, row in enumerate(rows) if row[rows[0].index("event")] == "place")
    rows[r][col] = value
    log = _write(tmp_path, rows, None, "cell", random.Random(0))
    # Rows are named by the log's own row numbers (its row column).
    expected = f"{log}: row {rows[r][rows[0].index('row')]}: column {column!r} {expected}"
    code, text = _run(tol_score_main, [str(log), "--output", str(tmp_path / "out")])
    assert code == 2
    assert expected in text
    assert "--skip-bad" in text
    code, text = _run(tol_score_main, [str(log), "--verify"])
    assert code == 1
    assert expected in text
    code, text = _run(tol_score_main, [str(log), "--output", str(tmp_path / "o2"), "--skip-bad"])
    assert code == 0
    assert f"skipped: {expected}" in text


def _mutate_protocol(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    kind = rng.choice(["value", "value", "value", "drop", "dup", "indent", "chars", "cut", "key"])
    line = lines[i]
    if kind == "value" and ":" in line:
        key = line.split(":", 1)[0]
        lines[i] = f"{key}: {rng.choice(JUNK + ['[]', '{}', '-', '[1, 2', 'null', '0', '-3'])}"
    elif kind == "drop":
        del lines[i]
    elif kind == "dup":
        lines.insert(i, line)
    elif kind == "indent":
        lines[i] = " " * rng.choice([1, 3, 8]) + line
    elif kind == "chars" and line:
        k = rng.randrange(len(line))
        lines[i] = line[:k] + rng.choice(["\t", ":", "'", "{", "#", "&a", "*a", "!!x"]) + line[k:]
    elif kind == "key" and ":" in line:
        lines[i] = line.replace(":", "x:", 1)
    out = "\n".join(lines)
    if kind == "cut":
        out = out[: rng.randrange(len(out) + 1)]
    return out, f"{kind} at line {i + 1}"


def _protocol_cases(per_protocol: int, seed: int, tmp_path: Path) -> int:
    refused = 0
    for name, path in sorted(bundled_protocols().items()):
        text = path.read_text(encoding="utf-8")
        for case in range(per_protocol):
            rng = random.Random(f"{seed}:{name}:{case}")
            mutated, what = _mutate_protocol(rng, text)
            target = tmp_path / f"{name}.yaml"
            target.write_text(mutated, encoding="utf-8")
            code, out = _run(protocol_main, ["check", str(target)])
            assert code in (0, 1, 2), (name, case, what, code, out)
            assert "Traceback" not in out, (name, case, what, out)
            if code != 0:
                refused += 1
                assert str(target) in out, (name, case, what, out)
    return refused


def test_fuzzed_protocols_never_give_a_traceback_quick(tmp_path):
    assert _protocol_cases(10, seed=1, tmp_path=tmp_path) > 0


@pytest.mark.slow
def test_fuzzed_protocols_never_give_a_traceback(tmp_path):
    # 6 bundled protocols x 200 = 1,200 cases.
    assert _protocol_cases(200, seed=20261122, tmp_path=tmp_path) > 400

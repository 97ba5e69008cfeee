"""How often tol-score opens each input: a log twice (its head, to learn what it is, whether
it started and whose session it is; then its rows), a sidecar once (read and validated once,
also for the planning and gaze tables). Counted by an audit hook on ``open`` (the
interpreter's own event, raised by every ``open`` of a file, whatever module opens it)."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

from tol_analysis.cli import main

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden" / "sessions"

_counting: list[Counter] = []  # the counter of the test running now (audit hooks stay)


def _hook(event: str, args: tuple) -> None:
    if event == "open" and _counting and isinstance(args[0], str | bytes | Path):
        name = args[0].decode() if isinstance(args[0], bytes) else args[0]
        _counting[-1][str(Path(name))] += 1


sys.addaudithook(_hook)


def _opens(argv: list[str]) -> Counter:
    counts: Counter = Counter()
    _counting.append(counts)
    try:
        assert main(argv) == 0
    finally:
        _counting.pop()
    return counts


def test_each_log_opened_twice_and_each_sidecar_once(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(GOLDEN, data)
    logs = sorted(data.glob("*.csv"))
    sidecars = sorted(data.glob("*.json"))
    assert len(logs) >= 5
    assert len(sidecars) == len(logs)

    counts = _opens([str(data), "-o", str(tmp_path / "out")])

    assert f"tol-score: {len(logs)} session(s)" in capsys.readouterr().out
    assert {p.name: counts[str(p)] for p in logs} == {p.name: 2 for p in logs}
    assert {p.name: counts[str(p)] for p in sidecars} == {p.name: 1 for p in sidecars}
    assert (tmp_path / "out" / "sessions.csv").is_file()


def test_a_log_named_as_an_input_is_opened_twice_too(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(GOLDEN, data)
    log = data / "demo.csv"

    counts = _opens([str(log), "-o", str(tmp_path / "out")])

    assert counts[str(log)] == 2
    assert counts[str(log.with_suffix(".json"))] == 1
    assert "1 session(s)" in capsys.readouterr().out

"""A foreign JSON file read as a stream: the same rows, digest, columns and errors as read
whole, and memory that does not grow with the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES
from tol_tasks.importers import stream as stream_module
from tol_tasks.importers.source import ImportSourceError, read_source
from tol_tasks.importers.stream import ELIDED, stream_source

JSONS = [FIXTURES / "jspsych" / "J02.json", *sorted((FIXTURES / "expfactory").glob("*.json"))]


@pytest.mark.parametrize("chunk", [3, 64, 1 << 20])
@pytest.mark.parametrize("path", JSONS, ids=lambda p: p.name)
def test_a_streamed_file_gives_the_rows_of_the_file_read_whole(path, chunk, monkeypatch):
    monkeypatch.setattr(stream_module, "CHUNK", chunk)  # every cut of a record, and none
    whole = read_source(path)
    streamed = stream_source(path, ("subject_id", "worker_id", "trial_type"))
    assert streamed.streamed
    assert (streamed.sha256, streamed.columns, streamed.numbers) == (
        whole.sha256, whole.columns, whole.numbers)  # fmt: skip
    for light, row in zip(streamed.rows, whole.rows, strict=True):
        assert set(light) <= {"subject_id", "worker_id", "trial_type"}
        assert all(light[k] == (row[k] if isinstance(row[k], str) else ELIDED) for k in light)
    assert [streamed.row(i) for i in range(len(whole.rows))] == whole.rows
    assert streamed.row(0) == whole.rows[0]  # asked again: read again


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff[{"a": "\u00e9\u20ac"}, {"b": "x"}]',  # a byte-order mark, 2- and 3-byte letters
        '[\n {"a": "\U0001f600"} ,\r\n\t{"a": [1, {"b": "\u00e9"}]}, {"\u00e9": 1.5}]',
    ],
)
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 20])
def test_each_row_is_read_again_from_its_own_bytes_wherever_the_chunks_cut(tmp_path, text,
                                                                            chunk, monkeypatch):  # fmt: skip
    monkeypatch.setattr(stream_module, "CHUNK", chunk)
    monkeypatch.setattr(stream_module, "WINDOW", chunk * 8)  # a row alone, or several
    path = tmp_path / "data.json"
    path.write_text(text, encoding="utf-8")
    whole = read_source(path)
    streamed = stream_source(path, ("a",))
    assert streamed.streamed
    data = path.read_bytes()
    spans = streamed._reader.spans
    for i in range(len(whole.rows)):
        # each record's bytes, cut out of the file by its span, are that record's JSON alone
        assert (
            json.loads(data[spans[2 * i] : spans[2 * i + 1]])
            == json.loads(text.lstrip("\ufeff"))[i]
        )
    assert [streamed.row(i) for i in reversed(range(len(whole.rows)))] == whole.rows[::-1]


def test_a_row_whose_bytes_changed_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('[{"a": 1}, {"a": 2}]', encoding="utf-8")
    streamed = stream_source(path, ("a",))
    path.write_text('[{"a": 1}]', encoding="utf-8")
    assert streamed.row(0) == {"a": "1"}
    with pytest.raises(ImportSourceError, match="changed while it was imported"):
        streamed.row(1)


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}, {"a": 2]',
        '[{"a": 1}] x',
        '{"data": [{"a": 1}]}',
        "[1, 2]",
        '[{"a": 1},]',
        '\ufeff[{"a": "\u00e9"}]',
        "[]",
    ],
)
def test_what_cannot_be_streamed_is_read_whole_with_its_error(tmp_path, text):
    path = tmp_path / "data.json"
    path.write_text(text, encoding="utf-8")
    error = None
    try:
        expected = read_source(path)
    except ImportSourceError as exc:
        error = str(exc)
    if error is not None:
        with pytest.raises(ImportSourceError) as got:
            stream_source(path, ("a",))
        assert str(got.value) == error
        return
    got = stream_source(path, ("a",))
    assert (got.sha256, got.columns) == (expected.sha256, expected.columns)
    assert [got.row(i) for i in range(len(got.rows))] == expected.rows


_PEAK = """
import resource, sys
from tol_tasks.importers import import_files
import_files([sys.argv[1]], sys.argv[2])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kb(source: Path, out: Path) -> int:
    done = subprocess.run([sys.executable, "-c", _PEAK, str(source), str(out)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout.split()[-1])


@pytest.mark.slow
def test_import_memory_does_not_grow_with_the_file(tmp_path):
    rows = json.loads((FIXTURES / "jspsych" / "J02.json").read_text(encoding="utf-8"))
    sizes = {}
    for copies in (400, 4000):
        path = tmp_path / f"x{copies}.json"
        many = [{**r, "subject_id": f"{r['subject_id']}x{k}"} for k in range(copies) for r in rows]
        path.write_text(json.dumps(many), encoding="utf-8")
        sizes[copies] = (path.stat().st_size, _peak_kb(path, tmp_path / f"out{copies}"))
    grown_file_kb = (sizes[4000][0] - sizes[400][0]) / 1024
    grown_peak_kb = sizes[4000][1] - sizes[400][1]
    # Read whole, the parsed rows take about eight times the file's size (the peak grew by
    # 150 MB for these 18 MB before the source was streamed); streamed, it grows by what
    # is kept per session (its participant's rows' ids, its name in the report), far less.
    assert grown_peak_kb < 3 * grown_file_kb, (sizes, grown_file_kb, grown_peak_kb)

"""A foreign JSON file read as a stream: the same rows, digest, columns and errors as read
whole, by msgspec or by Python's json, and memory that does not grow with the file."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.import_tools import FIXTURES
from tol_tasks.importers import rawlist
from tol_tasks.importers import stream as stream_module
from tol_tasks.importers.rawlist import NotFastError
from tol_tasks.importers.source import ImportSourceError, read_source
from tol_tasks.importers.stream import ELIDED, stream_source

JSONS = [FIXTURES / "jspsych" / "J02.json", *sorted((FIXTURES / "expfactory").glob("*.json"))]


def _no_msgspec(*args):
    raise NotFastError  # as when msgspec refuses a file: Python's json reads it


@pytest.fixture(params=["msgspec", "json"])
def reader(request, monkeypatch):
    """The first reading by msgspec (:mod:`tol_tasks.importers.rawlist`) or by Python's json
    (the way taken where msgspec refuses)."""
    if request.param == "json":
        monkeypatch.setattr(stream_module, "raw_records", _no_msgspec)
    return request.param


def _chunk(monkeypatch, chunk: int) -> None:
    monkeypatch.setattr(stream_module, "CHUNK", chunk)
    monkeypatch.setattr(rawlist, "CHUNK", chunk)


@pytest.mark.parametrize("chunk", [3, 64, 1 << 20])
@pytest.mark.parametrize("path", JSONS, ids=lambda p: p.name)
def test_a_streamed_file_gives_the_rows_of_the_file_read_whole(path, chunk, reader, monkeypatch):
    _chunk(monkeypatch, chunk)  # every cut of a record, and none
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
                                                                            chunk, reader, monkeypatch):  # fmt: skip
    _chunk(monkeypatch, chunk)
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
def test_what_cannot_be_streamed_is_read_whole_with_its_error(tmp_path, text, reader):
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


#: Records msgspec and Python's json read differently (msgspec refuses them), braces and
#: commas inside texts that mislead a count of bytes, and values of every kind.
_AWKWARD = [
    '{"a": NaN, "b": 1}',
    '{"a": "x", "b": Infinity}',
    '{"a": 1e400}',
    '{"a": "\\ud800"}',
    '{"a": "}, {", "b": "{{{"}',
    '{"a": "x\\"}, {\\"", "b": ["}", {"c": "]"}]}',
    '{"a": 12345678901234567890123, "b": -0.0, "c": 1E-7, "d": true, "e": null}',
    '{"trialdata": {"a": "t", "b": [1, {"c": 2}]}, "a": "outer"}',
    '{"trialdata": "not an object", "a": 2}',
    '{"a": "\u00e9\\u00e9\\n", "a": "twice"}',
    '{"a": {"b": {"c": {"d": []}}}, "b": ""}',
]


@pytest.mark.parametrize("chunk", [1, 7, 40, 1 << 20])
def test_msgspec_and_python_json_read_the_same_records_whatever_they_hold(tmp_path, chunk,
                                                                         monkeypatch):  # fmt: skip
    # Seeded lists of awkward records: the source read as a stream (msgspec where it can)
    # gives the rows, digest, columns and row numbers of the file read whole by Python's json.
    _chunk(monkeypatch, chunk)
    rng = random.Random(36 + chunk)
    for k in range(12):
        picks = [rng.choice(_AWKWARD) for _ in range(rng.randint(1, 9))]
        space = rng.choice(["", " ", "\n  ", "\r\n\t"])
        text = "[" + space + ("," + space).join(picks) + space + "]"
        path = tmp_path / f"awkward{k}.json"
        path.write_text(text, encoding="utf-8")
        whole = read_source(path)
        streamed = stream_source(path, ("a", "b", "trialdata"))
        assert (streamed.sha256, streamed.columns, streamed.numbers) == (
            whole.sha256, whole.columns, whole.numbers), text  # fmt: skip
        for light, row in zip(streamed.rows, whole.rows, strict=True):
            assert light == {
                k: v if isinstance(v, str) else ELIDED
                for k, v in row.items() if k in ("a", "b", "trialdata")
            }, text  # fmt: skip
        assert [streamed.row(i) for i in range(len(whole.rows))] == whole.rows, text
        # And from the raw records alone (the standard library's json, not tol-tasks' reader):
        # every key in order of first appearance (trialdata's own keys in its place), each
        # kept value as its text.
        raw = [_unwrapped(r) for r in json.loads(text)]
        assert streamed.columns == list(dict.fromkeys(k for r in raw for k in r)), text
        for light, record in zip(streamed.rows, raw, strict=True):
            assert light == {k: _text(v) for k, v in record.items()
                             if k in ("a", "b", "trialdata")}, text  # fmt: skip


def _unwrapped(record: dict) -> dict:
    """A jsPsych/JATOS record with its ``trialdata`` object's keys in its place."""
    if not isinstance(record.get("trialdata"), dict):
        return record
    out = {**record, **record["trialdata"]}
    del out["trialdata"]
    return out


def _text(value) -> str:
    """A JSON value as the text of its cell: a list or object elided, true/false, null empty."""
    if isinstance(value, (list, dict)):
        return ELIDED
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def test_msgspec_reads_the_file_where_python_json_reads_it_the_same_and_only_there(tmp_path):
    # The fast way is taken for an ordinary export and refused (Python's json then reads the
    # file) where msgspec would read a value otherwise: NaN, a lone surrogate, a number
    # beyond a float.
    import hashlib
    from array import array

    import msgspec

    def fast(text: str) -> bool:
        path = tmp_path / "one.json"
        path.write_text(text, encoding="utf-8")
        try:
            for _n, record in rawlist.raw_records(path, hashlib.sha256(), array("q")):
                for value in record.values():
                    rawlist.VALUE.decode(value)
        except (NotFastError, msgspec.MsgspecError):  # the value refused where it is read
            return False
        return True

    assert fast('[{"a": 1.5, "b": "\u00e9", "c": [1, {"d": null}]}]')
    assert fast("[]")
    assert not fast('[{"a": NaN}]')
    assert not fast('[{"a": "\\ud800"}]')
    assert not fast('[{"a": 1e400}]')
    assert not fast('[{"a": 1},]')
    assert not fast("[1, 2]")


#: What a mutation inserts into an export: structure, escapes, bytes that are not UTF-8, a
#: byte-order mark, numbers the two readers read differently.
_INSERTS = [b"NaN", b"}", b"{", b"]", b"[", b",", b'"', b"\\", b"\xff", b"\xc3\xa9", b"\n",
            b'"}, {"', b"1e400", b"\\ud800", b'"trialdata": {"a": 1}, ', b"\xef\xbb\xbf",
            b"12345678901234567890123"]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_a_mutated_export_reads_the_same_streamed_as_read_whole(tmp_path, seed, monkeypatch):
    # An export cut, with bytes inserted or deleted (braces inside texts too), read in pieces
    # of every size: the same error as read whole, or the same rows, digest and numbers.
    rng = random.Random(seed)
    base = (FIXTURES / "jspsych" / "J02.json").read_bytes()
    kept = ("subject_id", "trial_type", "moves", "a")
    for k in range(40):
        data = bytearray(base)
        for _ in range(rng.randint(0, 4)):
            op, i = rng.random(), rng.randrange(len(data) + 1)
            if op < 0.4:
                data[i:i] = rng.choice(_INSERTS)
            elif op < 0.6:
                del data[i : i + rng.randint(1, 5)]
            elif op < 0.7:
                del data[i:]
            elif (j := data.find(b'"', i)) > 0:
                data[j + 1 : j + 1] = rng.choice([b"}, {", b"{", b"}", b"],[", b'\\"}'])
        _chunk(monkeypatch, rng.choice([1, 5, 64, 300, 1 << 20]))
        path = tmp_path / f"mutated{k}.json"
        path.write_bytes(bytes(data))
        try:
            whole, error = read_source(path), None
        except ImportSourceError as exc:
            whole, error = None, str(exc)
        if error is not None:
            with pytest.raises(ImportSourceError) as got:
                stream_source(path, kept)
            assert str(got.value) == error
            continue
        streamed = stream_source(path, kept)
        assert (streamed.sha256, streamed.columns, streamed.numbers) == (
            whole.sha256, whole.columns, whole.numbers)  # fmt: skip
        for light, row in zip(streamed.rows, whole.rows, strict=True):
            assert light == {c: v if isinstance(v, str) else ELIDED
                             for c, v in row.items() if c in kept}  # fmt: skip
        assert [streamed.row(i) for i in range(len(whole.rows))] == whole.rows


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

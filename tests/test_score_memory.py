"""tol-score's memory does not grow with the sessions' records: scoring N and 4N sessions
leaves the same number of per-session objects alive when sessions.csv and wide.csv are
made (the session records spilled to disk, no Path, log or sidecar kept per session),
while the logs are searched for (the paths found kept on disk) and while a batch is
scored (at most ``BATCH_LOGS`` logs, and their sidecars, however short the logs).

Counted, not timed: the objects alive are counted with the garbage collector (the same
on a loaded machine); figures of memory belong in benchmarks/README.md."""

from __future__ import annotations

import csv
import gc
import io
import json
import pathlib
from pathlib import Path

import pytest

import tol_analysis.export.write as export_module
import tol_analysis.read.find as find_module
import tol_analysis.read.spill as spill_module
import tol_analysis.score.scores as score_module
from tol_analysis import cli
from tol_analysis.read.logs import SessionLog
from tol_analysis.score.sessions import SessionInfo
from tol_tasks.session_data.sidecar import Sidecar

GOLDEN = Path(__file__).parent / "data" / "golden" / "sessions"
#: Session records pickled together in these tests (tol-score: spill.CHUNK).
CHUNK = 8
#: Log rows scored together in these tests: a batch holds one or two logs.
BATCH_ROWS = 300


def _corpus(folder: Path, count: int) -> Path:
    """``count`` copies of the reference sessions, each under a participant id of its own
    (log and sidecar), cycling through them."""
    templates = []
    for log in sorted(GOLDEN.glob("*.csv")):
        rows = list(csv.reader(io.StringIO(log.read_text(encoding="utf-8"), newline="")))
        side = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
        templates.append((log.stem, rows, side))
    folder.mkdir()
    for k in range(count):
        stem, rows, side = templates[k % len(templates)]
        who, name = f"M{k:05d}", f"M{k:05d}_{stem}_2026-01-01_00h00.00.000"
        at = rows[0].index("participant")
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(
            [rows[0], *([*r[:at], who, *r[at + 1 :]] for r in rows[1:])]
        )
        (folder / f"{name}.csv").write_text(text.getvalue(), encoding="utf-8")
        side = {**side, "participant": who, "event_log": f"{name}.csv"}
        (folder / f"{name}.json").write_text(json.dumps(side), encoding="utf-8")
    return folder


def _alive() -> dict[str, int]:
    """The per-session objects alive now, by kind."""
    gc.collect()
    kinds = {"session records": SessionInfo, "paths": pathlib.PurePath, "logs": SessionLog,
             "sidecars": Sidecar}  # fmt: skip
    counts = dict.fromkeys(kinds, 0)
    for obj in gc.get_objects():
        for name, kind in kinds.items():
            if isinstance(obj, kind):
                counts[name] += 1
    return counts


def _score_counting(tmp_path: Path, monkeypatch, count: int) -> dict[str, dict[str, int]]:
    """Run tol-score on ``count`` sessions; the objects alive as sessions.csv and wide.csv
    are made."""
    seen: dict[str, dict[str, int]] = {}

    def counting(name, module, attribute):
        function = getattr(module, attribute)

        def wrapper(*args, **kwargs):
            seen[name] = _alive()
            return function(*args, **kwargs)

        monkeypatch.setattr(module, attribute, wrapper)

    counting("sessions.csv", score_module, "write_sessions")
    counting("wide.csv", export_module, "write_wide")
    folder = _corpus(tmp_path / f"logs-{count}", count)
    assert cli.main([str(folder), "-o", str(tmp_path / f"out-{count}")]) == 0
    rows = (tmp_path / f"out-{count}" / "sessions.csv").read_text().count("\n") - 1
    assert rows == count
    return seen


def test_per_session_objects_do_not_grow_with_the_sessions(tmp_path, monkeypatch):
    monkeypatch.setattr(spill_module, "CHUNK", CHUNK)
    monkeypatch.setattr(score_module, "BATCH_ROWS", BATCH_ROWS)
    n = 5 * CHUNK
    few = _score_counting(tmp_path, monkeypatch, n)
    monkeypatch.undo()
    monkeypatch.setattr(spill_module, "CHUNK", CHUNK)
    monkeypatch.setattr(score_module, "BATCH_ROWS", BATCH_ROWS)
    many = _score_counting(tmp_path, monkeypatch, 4 * n)
    for stage in ("sessions.csv", "wide.csv"):
        # At most one chunk of records unpickled at a time, never all of them.
        assert many[stage]["session records"] <= CHUNK, (stage, many[stage])
        # The objects of the last batch scored (one or two logs) may still be alive: what
        # differs between N and 4N is that batch, never one object per session.
        for kind in ("paths", "logs", "sidecars"):
            grown = many[stage][kind] - few[stage][kind]
            assert grown < 3 * n / 10, (stage, kind, few[stage], many[stage])


def _count_during_search(tmp_path: Path, monkeypatch, count: int) -> dict[str, int]:
    """Run tol-score on ``count`` sessions; the objects alive as the search reads the
    beginning of the last log it finds (everything found so far is then held, if anything
    is)."""
    folder = _corpus(tmp_path / f"found-{count}", count)
    seen: dict[str, int] = {}
    real = find_module.read_head
    calls = [0]

    def counting(path, *args, **kwargs):
        calls[0] += 1
        if calls[0] == count:  # the last log's beginning (sidecars are not .csv)
            seen.update(_alive())
        return real(path, *args, **kwargs)

    monkeypatch.setattr(find_module, "read_head", counting)
    assert cli.main([str(folder), "-o", str(tmp_path / f"out-found-{count}")]) == 0
    monkeypatch.undo()
    assert calls[0] == count
    return seen


def test_the_search_for_logs_holds_no_path_per_log(tmp_path, monkeypatch):
    """The paths found (a million logs: a million Path objects, a dict of their sessions and
    the folder's sorted listing, 1.2 KB a log) are kept on disk as they are found."""
    few = _count_during_search(tmp_path, monkeypatch, 20)
    many = _count_during_search(tmp_path, monkeypatch, 80)
    assert many["paths"] - few["paths"] < 10, (few, many)


def test_a_batch_holds_batch_logs_logs_however_short(tmp_path, monkeypatch):
    """Logs are scored BATCH_LOGS at a time even when their rows are far fewer than
    BATCH_ROWS: the sidecar models alive while a batch is scored do not grow with the
    sessions (a batch of 17,000 one-trial logs held ~400 MB of them)."""
    monkeypatch.setattr(score_module, "BATCH_LOGS", 4)
    real = score_module.score_logs
    most = {}
    for count in (16, 64):
        sizes, alive = [], []

        def counting(logs, *args, _sizes=sizes, _alive_now=alive, **kwargs):
            _sizes.append(len(logs))
            _alive_now.append(_alive()["sidecars"])
            return real(logs, *args, **kwargs)

        monkeypatch.setattr(score_module, "score_logs", counting)
        folder = _corpus(tmp_path / f"batch-{count}", count)
        assert cli.main([str(folder), "-o", str(tmp_path / f"out-batch-{count}")]) == 0
        assert max(sizes) == 4
        assert sum(sizes) == count
        most[count] = max(alive)
    # A few batches' sidecars at most (one batch in four times the sessions: no more),
    # never one per session: without BATCH_LOGS every log here is one batch (16, then 64).
    assert most[64] <= most[16] + 2, most
    assert most[64] < 16, most


def test_records_in_memory_are_counted_so_the_check_can_fail(tmp_path):
    """The same count sees every record when they are kept in memory (a library call
    without ``write_to``): the test above would fail if tol-score kept them."""
    from tol_analysis.read.logs import find_logs, read_sessions

    folder = _corpus(tmp_path / "logs", 3 * CHUNK)
    seen = {}
    real = score_module.summarize_sessions

    def counting(*args, **kwargs):
        seen.update(_alive())
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(score_module, "summarize_sessions", counting)
        score_module.score_sessions(log for _, log in read_sessions(find_logs([folder])))
    assert seen["session records"] >= 3 * CHUNK


def test_spilled_records_read_back_as_written(tmp_path, monkeypatch):
    monkeypatch.setattr(spill_module, "CHUNK", 3)
    with spill_module.Records(spill_in=tmp_path) as records:
        for k in range(10):
            records.append({"k": k})
        assert len(records) == 10
        assert [r["k"] for r in records] == list(range(10))
        assert [r["k"] for r in records[2:8]] == list(range(2, 8))
        assert records[-1] == {"k": 9}
        assert records[4] == {"k": 4}
        assert records[9:20] == [{"k": 9}]
        assert records[5:5] == []
        with pytest.raises(IndexError):
            records[10]
    assert list(tmp_path.iterdir()) == []  # an unnamed file: nothing left in the folder


def test_key_index_finds_rows_and_names_a_key_it_does_not_hold():
    keys = [("P1", 1, "tol"), ("P2", 1, "tol"), ("P1", 2, "hanoi")]
    index = spill_module.KeyIndex(keys)
    assert index.unique
    assert index.rows([("P1", 2, "hanoi"), ("P1", 1, "tol")]).tolist() == [2, 0]
    with pytest.raises(KeyError, match="P3"):
        index.rows([("P3", 1, "tol")])
    assert not spill_module.KeyIndex([*keys, ("P2", 1, "tol")]).unique


def test_texts_keep_each_text_as_given():
    texts = ["/data/P1_tol.csv", "", "/données/P2_tol.csv", "c"]
    kept = spill_module.Texts(Path(t) if t else t for t in texts)
    assert len(kept) == 4
    assert list(kept) == [str(Path(t)) if t else t for t in texts]
    assert kept[2] == "/données/P2_tol.csv"
    assert kept[1] == ""
    assert kept[-1] == "c"
    assert kept[1:3] == ["", "/données/P2_tol.csv"]
    with pytest.raises(IndexError):
        kept[4]


class _Clashing(str):
    """A text whose hash every other such text shares (as two ids' 64-bit hashes may)."""

    def __hash__(self) -> int:
        return 7


def test_distinct_codes_texts_in_order_of_first_appearance_even_when_hashes_clash(
    monkeypatch,
):
    import tol_analysis.score.compact as compact_module

    monkeypatch.setattr(compact_module.Distinct, "RECENT", 4)  # merged into the arrays often
    values = ["P1", None, "P2", "P1", _Clashing("Q1"), "P3", _Clashing("Q2"), "P2",
              _Clashing("Q1"), "é-7", *(f"R{k}" for k in range(9)), _Clashing("Q2"), "P1"]  # fmt: skip
    expected, first = [], {}  # independent: a dict of every text
    for v in values:
        expected.append(-1 if v is None else first.setdefault(str(v), len(first)))
    coder = compact_module.Distinct()
    got = [*coder.codes(values[:5]).tolist(), *coder.codes(values[5:11]).tolist(),
           *coder.codes(values[11:]).tolist()]  # fmt: skip
    assert got == expected
    assert list(coder.texts()) == list(first)
    assert [coder.texts()[k] for k in range(len(first))] == list(first)
    assert coder.texts()[-1] == list(first)[-1]
    with pytest.raises(IndexError):
        coder.texts()[len(first)]


def _open_files() -> list[str]:
    """What this process has open (its file descriptors' targets)."""
    fds = Path("/proc/self/fd")
    out = []
    for fd in fds.iterdir():
        try:
            out.append(str(fd.readlink()))
        except OSError:
            continue  # the descriptor listing the folder, closed already
    return sorted(out)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_scoring_stopped_by_an_error_leaves_no_spill_file_open(tmp_path, monkeypatch):
    """Scoring stopped by an error (here a log given twice, after more than a chunk of
    records was spilled) closes the records' file and the sidecars' table at once, not
    when collected (an unclosed file is a ResourceWarning in whatever runs next)."""
    from tol_analysis.read.logs import find_logs, read_sessions
    from tol_tasks.session_data.eventlog import EventLogError

    monkeypatch.setattr(spill_module, "CHUNK", CHUNK)
    folder = _corpus(tmp_path / "logs", 2 * CHUNK)
    out = tmp_path / "out"
    out.mkdir()
    logs = [log for _, log in read_sessions(find_logs([folder]))]
    gc.collect()
    before = _open_files()
    with pytest.raises(EventLogError, match="given twice"):
        score_module.score_sessions([*logs, logs[0]], write_to=out)
    assert [f for f in _open_files() if f not in before] == []


def test_csv_files_are_found_in_the_order_rglob_sorted_gives(tmp_path):
    """The search walks a folder at a time (no list of every path) and finds what
    ``sorted(rglob("*.csv"), key=parts)`` found, in that order: nested folders, a folder
    named like a CSV file, hidden files, other cases and suffixes, a link to a folder (not
    followed) and a link to a file (found)."""
    from tol_analysis.read.find import csv_files

    root = tmp_path / "data"
    for rel in ("b.csv", "a.csv", "a/z.csv", "a/b/c.csv", "a-b.csv", ".hidden.csv", "A.CSV",
                "notes.txt", "x.csv.bak", "ab/y.csv", "d.csv/inner.csv", "é.csv", "a/ b.csv"):  # fmt: skip
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("row\n")
    (root / "linked").symlink_to(root / "a", target_is_directory=True)
    (root / "link.csv").symlink_to(root / "b.csv")
    (root / "empty").mkdir()
    expected = sorted(root.rglob("*.csv"), key=lambda f: f.parts)
    assert list(csv_files(root)) == expected
    assert root / "d.csv" in expected  # a folder named like a CSV file: found, as before


def _kept_at_end_of_scoring(tmp_path: Path, monkeypatch, count: int) -> int:
    """Run tol-score on ``count`` sessions: the bytes of kept trial values the trials
    table's builder holds in memory when scoring ends (numpy arrays: a chunk per batch
    scored if they waited in memory)."""
    import numpy as np

    import tol_analysis.score.builder as builder_module

    seen: list[int] = []
    done = builder_module.TableBuilder.done

    def done_counted(self):
        if self.table.name == "trials":
            held = [x for column in self._columns.values() for chunk in column.chunks
                    for x in (chunk if isinstance(chunk, tuple) else (chunk,))]  # fmt: skip
            seen.append(sum(x.nbytes for x in held if isinstance(x, np.ndarray)))
        return done(self)

    monkeypatch.setattr(builder_module.TableBuilder, "done", done_counted)
    monkeypatch.setattr(score_module, "BATCH_ROWS", BATCH_ROWS)
    folder = _corpus(tmp_path / f"logs-{count}", count)
    try:
        assert cli.main([str(folder), "-o", str(tmp_path / f"out-{count}")]) == 0
    finally:
        monkeypatch.undo()
    assert len(seen) == 1
    return seen[0]


def test_kept_trial_columns_wait_on_disk_while_the_logs_are_scored(tmp_path, monkeypatch):
    # The trial columns sessions.csv and wide.csv are made from: none of their values in
    # memory while the logs are scored, however many sessions (in memory: 70 bytes a trial).
    few = _kept_at_end_of_scoring(tmp_path, monkeypatch, 20)
    many = _kept_at_end_of_scoring(tmp_path, monkeypatch, 80)
    assert few == many == 0, (few, many)


def test_participant_ids_are_kept_compact_in_the_tables_sessions_and_wide_are_made_from(
    tmp_path, monkeypatch
):
    # Many participants' ids are kept as UTF-8 in one buffer (about 10 bytes an id), not
    # as a Python string and a dict entry each (100-250 bytes), in the trials table and the
    # sessions table that sessions.csv and wide.csv are made from; the tables the same.
    import tol_analysis.score.compact as compact_module

    monkeypatch.setattr(
        compact_module.Distinct, "RECENT", 16
    )  # compact from 17 (tol-score: 65,537)
    seen = {}
    write_wide = export_module.write_wide

    def keeping(trials, conv, sessions, path):
        seen["trials"], seen["sessions"] = trials["participant"], sessions["participant"]
        return write_wide(trials, conv, sessions, path)

    monkeypatch.setattr(export_module, "write_wide", keeping)
    folder = _corpus(tmp_path / "logs", 40)
    assert cli.main([str(folder), "-o", str(tmp_path / "out")]) == 0
    ids = [f"M{k:05d}" for k in range(40)]  # as _corpus names them, in order
    for table, column in seen.items():
        assert isinstance(column.categories, compact_module.TextList), table
        assert list(column.categories) == ids, table
    wide = list(csv.DictReader(io.StringIO((tmp_path / "out" / "wide.csv").read_text())))
    assert [row["participant"] for row in wide] == ids
    monkeypatch.undo()
    assert cli.main([str(folder), "-o", str(tmp_path / "as-a-list")]) == 0
    for name in ("trials.csv", "sessions.csv", "wide.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (
            tmp_path / "as-a-list" / name
        ).read_bytes()


def test_spilled_columns_read_back_in_ranges_are_the_values_added(tmp_path):
    """The kept columns wait in a file (``spill_in``) and are read back a range of rows at
    a time (``SpilledTable.slice``): any range, across chunks of any size (empty ones too)
    and of several integer types, gives the values added, with their missing ones."""
    import numpy as np

    from tol_analysis.columns import TRIALS, Table
    from tol_analysis.score.builder import SpilledTable, TableBuilder

    table = Table("t", (TRIALS["participant"], TRIALS["moves"], TRIALS["planning_time"],
                        TRIALS["solved"]))  # fmt: skip
    rng = np.random.default_rng(7)
    builder = TableBuilder(table, spill_in=tmp_path)
    added = {"participant": [], "moves": [], "planning_time": [], "solved": []}
    for size in (5, 0, 1, 300, 7, 0, 64):
        who = [None if rng.random() < 0.1 else f"P{int(rng.integers(0, 500))}"
               for _ in range(size)]  # fmt: skip
        moves = rng.integers(-5, 40_000 if size == 300 else 100, size).astype(np.float64)
        moves[rng.random(size) < 0.2] = np.nan  # missing integers
        times = rng.random(size)
        times[rng.random(size) < 0.2] = np.nan
        solved = (rng.random(size) < 0.5).astype(np.float64)
        builder.add(size, {"participant": who, "moves": moves, "planning_time": times,
                           "solved": solved})  # fmt: skip
        for name, values in zip(added, (who, moves, times, solved), strict=True):
            added[name].extend(list(values))
    spilled = builder.done()
    builder.close()
    assert isinstance(spilled, SpilledTable)
    assert len(spilled) == 377
    for start, stop in ((0, 377), (0, 5), (4, 7), (5, 6), (6, 306), (100, 101), (300, 377),
                        (376, 377), (200, 200)):  # fmt: skip
        part = spilled.slice(start, stop)
        who = part["participant"]
        assert [None if c < 0 else who.categories[c] for c in who.values.tolist()] == \
            added["participant"][start:stop]  # fmt: skip
        for name in ("moves", "planning_time", "solved"):
            got = part[name].as_float().tolist()
            want = added[name][start:stop]
            assert [None if g != g else g for g in got] == [None if w != w else w
                                                            for w in want], name  # fmt: skip
    spilled.close()


@pytest.mark.parametrize("step", [1, 2, 3, 1 << 16])
def test_wide_finds_codes_in_order_of_first_appearance_a_range_at_a_time(monkeypatch, step):
    # wide.csv takes the sessions table's participant codes as the participants' ranks when
    # they first appear in order 0, 1, ... (looked over a range of codes at a time): the
    # same answer as listing each code at its first appearance, for any range.
    import numpy as np

    import tol_analysis.export.wide as wide_module

    monkeypatch.setattr(wide_module, "_STEP", step)
    rng = np.random.default_rng(3)
    cases = [[0], [1], [0, 0, 1, 0, 2, 1], [0, 2, 1], [0, 1, 1, 3, 2], [-1, 0], [0, 1, 2]]
    for _ in range(300):
        n = int(rng.integers(1, 9))
        codes = rng.integers(0, n, int(rng.integers(1, 20)))
        cases.append(codes.tolist())
        first = list(dict.fromkeys(codes.tolist()))
        cases.append([first.index(c) for c in codes.tolist()])  # renumbered: in order
    for codes in cases:
        for n in {max(codes) + 1, max(codes) + 2}:
            expected = min(codes) >= 0 and list(dict.fromkeys(codes)) == list(range(n))
            got = wide_module._in_order(np.array(codes, np.int32), n)
            assert got == expected, (codes, n)

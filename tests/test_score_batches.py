"""Scoring many logs at once: the same tables as each log scored alone, one bad log left out
alone, session summaries as pandas' group-by computes them, and tol-score without pandas."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tol_analysis.read.logs as read_module
import tol_analysis.score.scores as score_module
from tol_analysis.conventions import Conventions
from tol_analysis.read.logs import find_logs, read_session, read_sessions
from tol_analysis.score.scores import score_sessions
from tol_analysis.score.sessions import SessionInfo, summarize_sessions
from tol_analysis.score.tables import TableData
from tol_tasks.session_data.eventlog import EventLogError
from tol_tasks.session_data.sidecar import Sidecar

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden" / "sessions"
#: Current logs, format 1 logs (read by the careful reader) and the hand-worked log.
INPUTS = [GOLDEN, HERE / "data" / "v1", HERE / "data" / "logs" / "hand-worked.csv"]


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """Categories as their texts (logs scored apart number their categories apart)."""
    out = df.copy()
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out.reset_index(drop=True)


def _alone(paths: list[Path], conv: Conventions) -> dict[str, pd.DataFrame]:
    parts = [score_sessions([read_session(p)], conv) for p in paths]
    return {name: pd.concat([_plain(getattr(s, name)) for s in parts], ignore_index=True)
            for name in ("moves", "trials", "copy_moves")}  # fmt: skip


@pytest.mark.parametrize("batch", ["default", "one file per read", "small score batches"])
def test_logs_scored_together_give_the_tables_of_each_log_scored_alone(monkeypatch, batch):
    if batch == "one file per read":
        monkeypatch.setattr(read_module, "BATCH_BYTES", 1)
    if batch == "small score batches":
        monkeypatch.setattr(score_module, "BATCH_ROWS", 300)
    paths = find_logs(INPUTS)
    conv = Conventions(same_peg_drop_counts=True, planning_ends="move")
    together = score_sessions((log for _, log in read_sessions(paths)), conv)
    alone = _alone(paths, conv)
    for name, expected in alone.items():
        got = _plain(getattr(together, name))
        assert len(got) == len(expected) > 0 or name == "copy_moves"
        pd.testing.assert_frame_equal(got, expected.astype(got.dtypes.to_dict()), obj=name)


def _damage(path: Path) -> int:
    """Turn the first placement of a log into one that does not follow; its row number (the
    log's own ``row`` cell, which messages name)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split(",")
        if len(cells) == len(header) and cells[header.index("event")] == "place":  # a plain row
            cells[header.index("state")] = "Z" + cells[header.index("state")][1:]
            lines[n - 1] = ",".join(cells)
            path.write_text("\n".join(lines), encoding="utf-8")
            return int(cells[header.index("row")])
    raise AssertionError(f"{path}: no placement")


def test_logs_read_together_leave_a_misnumbered_one_to_the_careful_reader(tmp_path):
    """A row missing in the middle of a log, or at its start, among logs read in one batch:
    that log is read by the event log's own reader (a warning naming the gap; the error of
    a log whose first row is gone names its first row by the log's own number, 2); the
    others as they are."""
    logs = sorted(GOLDEN.glob("*.csv"))[:4]
    for p in logs:
        shutil.copy(p, tmp_path / p.name)
    paths = [tmp_path / p.name for p in logs]
    lines = paths[1].read_text(encoding="utf-8").splitlines(keepends=True)
    paths[1].write_text("".join(lines[:5] + lines[6:]), encoding="utf-8")  # row 5 missing
    lines = paths[2].read_text(encoding="utf-8").splitlines(keepends=True)
    paths[2].write_text("".join(lines[:1] + lines[2:]), encoding="utf-8")  # row 1 missing
    got = dict(read_sessions(paths))
    assert [isinstance(got[p], EventLogError) for p in paths] == [False, False, True, False]
    assert "row 6 follows row 4: 1 row(s) missing" in " ".join(got[paths[1]].warnings)
    assert f"{paths[2]}: row 2: starts with 'trial_onset'" in str(got[paths[2]])  # its own row 2
    for p in (paths[0], paths[3]):
        assert got[p].warnings == []
        assert got[p].data.n == read_session(p).data.n


def test_a_log_that_contradicts_itself_among_others_is_left_out_alone(tmp_path):
    folder = tmp_path / "data"
    shutil.copytree(GOLDEN, folder)
    bad = sorted(folder.glob("*.csv"))[3]
    row = _damage(bad)
    paths = find_logs([folder])
    with pytest.raises(EventLogError, match=rf"{bad.name}: row {row}: "):
        score_sessions(log for _, log in read_sessions(paths))
    left_out = []
    scores = score_sessions((log for _, log in read_sessions(paths)),
                            on_error=lambda log, exc: left_out.append((log.path, str(exc))))  # fmt: skip
    assert [p for p, _ in left_out] == [bad]
    assert f"row {row}: " in left_out[0][1]
    others = [p for p in paths if p != bad]
    expected = _alone(others, Conventions())
    pd.testing.assert_frame_equal(_plain(scores.trials), expected["trials"].astype(
        _plain(scores.trials).dtypes.to_dict()))  # fmt: skip
    assert sorted(scores.sessions["participant"]) == sorted(
        read_session(p).participant for p in others
    )


def _random_trials(rng: np.random.Generator, n: int) -> pd.DataFrame:
    times = rng.uniform(0, 30, (n, 8)) * rng.choice([1e-3, 1, 1e3], (n, 8))
    times[rng.random((n, 8)) < 0.2] = np.nan
    solved = rng.random(n) < 0.7
    t = pd.DataFrame({
        "participant": pd.Categorical(rng.choice(["P1", "P2", "P3"], n)),
        "session": pd.array(rng.integers(1, 3, n), dtype="Int64"),
        "practice": pd.array(rng.random(n) < 0.2, dtype="boolean"),
        "block": pd.Categorical(rng.choice(["practice", "test", "b2"], n)),
        "problem_id": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
        "min_moves": pd.array(rng.integers(2, 6, n), dtype="Int64"),
        "moves": pd.array(rng.integers(2, 20, n), dtype="Int64"),
        "excess_moves": pd.array(np.where(solved, rng.integers(0, 9, n), 0), dtype="Int64"),
        "solved": pd.array(solved, dtype="boolean"),
        "solved_in_min": pd.array(solved & (rng.random(n) < 0.4), dtype="boolean"),
        "time_out": pd.array(rng.random(n) < 0.1, dtype="boolean"),
        "rule_violations": pd.array(rng.integers(0, 3, n), dtype="Int64"),
        "simulated": pd.array(rng.choice([True, False, None], n), dtype="boolean"),
        "protocol": pd.Categorical(["proto"] * n),
        "void": pd.array(rng.random(n) < 0.1, dtype="boolean"),
        "toldx_move_score": pd.array(rng.integers(0, 18, n), dtype="Int64"),
        "toldx_time_violation": pd.array(rng.random(n) < 0.3, dtype="boolean"),
    })  # fmt: skip
    t.loc[~solved, "excess_moves"] = pd.NA
    names = ["planning_time", "execution_time", "total_time", "time_per_move",
             "initial_thinking_time", "subsequent_thinking_time",
             "subsequent_thinking_time_per_move", "first_move_time"]  # fmt: skip
    for j, name in enumerate(names):
        t[name] = times[:, j]
    return t


def _pandas_summary(t: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The session measures by pandas' group-by (as tol-score computed them at ab09369)."""
    problem = t["block"].astype(str) + "\x1f" + t["problem_id"].astype(str)
    d = t.assign(_problem=problem, _solved_problem=problem.where(t["solved"].astype(bool)),
                 _in_min_problem=problem.where(t["solved_in_min"].astype(bool)),
                 _excess=t["excess_moves"].astype(float).fillna(0),
                 _timeout=t["time_out"].astype(bool).astype(int))  # fmt: skip
    res = d.groupby(keys, sort=False).agg(
        problems=("_problem", "nunique"), attempts=("_problem", "size"),
        problems_solved=("_solved_problem", "nunique"),
        problems_solved_in_min=("_in_min_problem", "nunique"),
        total_moves=("moves", "sum"), total_excess_moves=("_excess", "sum"),
        total_rule_violations=("rule_violations", "sum"),
        total_time_violations=("_timeout", "sum"),
        total_planning_time=("planning_time", "sum"),
        total_execution_time=("execution_time", "sum"),
        total_solving_time=("total_time", "sum"), mean_planning_time=("planning_time", "mean"),
        mean_time_per_move=("time_per_move", "mean"),
        mean_initial_thinking_time=("initial_thinking_time", "mean"),
        mean_subsequent_thinking_time=("subsequent_thinking_time", "mean"),
        mean_subsequent_thinking_time_per_move=("subsequent_thinking_time_per_move", "mean"),
    )  # fmt: skip
    return res.reset_index()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("practice", [False, True])
@pytest.mark.parametrize("rows", ["each session's together", "sessions interleaved"])
def test_session_summaries_are_what_pandas_group_by_computes(seed, practice, rows):
    # pandas adds a group's values one way when the group's rows are together and the column
    # has no missing value, another otherwise: both are reproduced to the last bit.
    rng = np.random.default_rng(seed)
    t = _random_trials(rng, 400)
    if rows == "each session's together":
        t = t.sort_values(["participant", "session"], kind="stable").reset_index(drop=True)
        t["planning_time"] = t["planning_time"].fillna(1.5)  # a column without missing values
        t["total_time"] = t["total_time"].fillna(2.5)
    infos = [SessionInfo(p, s, "proto", "completed") for p in ("P3", "P1", "P2", "P9")
             for s in (1, 2)]  # fmt: skip
    got = summarize_sessions(TableData.from_frame(t), infos, Conventions(include_practice=practice))
    got = got.frame()
    data = t if practice else t[~t["practice"].astype(bool)]
    data = data[~data["void"].astype(bool)]  # void attempts are in no summary (issue 30)
    expected = _pandas_summary(data, ["participant", "session"])
    for _, row in got.iterrows():
        key = (row["participant"], row["session"])
        match = expected[(expected["participant"] == key[0]) & (expected["session"] == key[1])]
        if key[0] == "P9":  # no trials: counts 0, times missing
            assert row["attempts"] == 0
            assert np.isnan(row["total_planning_time"])
            continue
        for name in expected.columns[2:]:
            assert row[name] == match[name].iloc[0] or (
                np.isnan(row[name]) and np.isnan(match[name].iloc[0])
            ), (key, name)
    levels = _pandas_summary(data, ["participant", "session", "min_moves"])
    for _, lv in levels.iterrows():
        row = got[(got["participant"] == lv["participant"]) & (got["session"] == lv["session"])]
        k = int(lv["min_moves"])
        for name in ("problems", "problems_solved", "total_excess_moves", "mean_planning_time",
                     "total_rule_violations", "mean_subsequent_thinking_time"):  # fmt: skip
            value = row[f"min{k}_{name}"].iloc[0]
            assert value == lv[name] or (np.isnan(value) and np.isnan(lv[name])), (k, name)


def test_tol_score_writes_its_tables_without_importing_pandas(tmp_path):
    script = (
        "import sys\n"
        "from tol_analysis.cli import main\n"
        f"code = main([{str(GOLDEN)!r}, '--output', {str(tmp_path)!r}])\n"
        "assert code == 0\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "False"
    assert (tmp_path / "moves.csv").stat().st_size > 0


def test_sidecars_are_read_from_disk_when_asked_for():
    paths = find_logs([GOLDEN])
    scores = score_sessions(read_session(p) for p in paths)
    assert len(scores.sidecars) == len(paths)
    for p in paths:
        log = read_session(p)
        expected = Sidecar.read(p.with_suffix(".json"))
        assert scores.sidecars[(log.participant, log.session)] == expected
        assert (
            expected.to_dict()["protocol"]
            == json.loads(p.with_suffix(".json").read_text(encoding="utf-8"))["protocol"]
        )


def _wide_reference(t: pd.DataFrame) -> dict[str, dict[str, float]]:
    """wide.csv cell by cell, walking the trials one by one (as tol-score did at ab09369, with
    the names of issue 22)."""
    import re

    from tol_analysis.columns import WIDE_MEASURES

    def safe(name):
        out = re.sub(r"[^A-Za-z0-9_]", "_", name)
        return ("p_" + out if not out[0].isalpha() else out)[:64]

    people = list(dict.fromkeys(t["participant"].astype(str)))
    named = []  # (participant, [(name, value) per measure]) in order: each person's trials
    for person in people:
        mine = t[(t["participant"].astype(str) == person) & ~t["void"].astype(bool)]
        for _, row in mine.iterrows():
            # issue 22: the session always, the attempt from the second on; issue 30: the task
            stem = f"s{row['session']}_{row['protocol']}_{row['problem_id']}"
            stem += f"_a{row['attempt']}" if row["attempt"] > 1 else ""
            cells = [(safe(f"{stem}_{w.name}"), row[w.name]) for w in WIDE_MEASURES]
            named.append((person, cells))
    columns = list(dict.fromkeys(name for _, cells in named for name, _ in cells))
    measure = {}
    for j in range(len(WIDE_MEASURES)):
        for _, cells in named:
            measure.setdefault(cells[j][0], j)
    grid = {person: dict.fromkeys(columns, np.nan) for person in people}
    for person, cells in named:
        for j, (name, value) in enumerate(cells):
            if measure[name] == j:
                grid[person][name] = np.nan if pd.isna(value) else float(value)
    return grid


@pytest.mark.parametrize("seed", [4, 5])
def test_wide_table_is_each_participants_last_value_under_each_name(seed):
    from tol_analysis.export.write import wide_data

    rng = np.random.default_rng(seed)
    t = _random_trials(rng, 300)
    t["attempt"] = pd.array(rng.integers(1, 3, len(t)), dtype="Int64")
    # Names that SPSS-safe spelling makes equal ("a-b" and "a_b"), and one starting with a digit.
    t["problem_id"] = pd.Categorical(rng.choice(["a-b", "a_b", "9c", "d"], len(t)))
    got = wide_data(TableData.from_frame(t), Conventions(include_practice=True)).frame()
    expected = _wide_reference(t)
    assert list(got.columns[2:]) == list(next(iter(expected.values())))
    assert got["participant"].tolist() == list(expected)
    for person, simulated in zip(got["participant"], got["simulated"], strict=True):
        mine = t.loc[t["participant"].astype(str) == person, "simulated"]
        want = None if mine.isna().all() else bool(mine.fillna(False).any())
        assert (None if pd.isna(simulated) else bool(simulated)) == want, person
    for _, row in got.iterrows():
        for name, value in expected[row["participant"]].items():
            cell = row[name]
            assert (pd.isna(cell) and np.isnan(value)) or cell == value, (row["participant"], name)


def test_a_log_without_attempts_is_a_session_without_trials(tmp_path):
    """Found by the fuzz test: a log whose only trial row is a placement with no onset."""
    from tol_tasks.session_data.eventlog import columns

    header = ",".join(columns())
    log = tmp_path / "no-attempts.csv"
    log.write_text(header + "\n" + "\n".join([
        "1,P,1,,,,,session_start,0.000000,,,,,,,,,,,,,,,",
        "2,P,1,test,1,1,p1,place,1.000000,0.5,1,A,B,ABA,,,1,,,,,,,",
        "3,P,1,,,,,session_end,2.000000,,,,,,,,,completed,,,,,,",
    ]) + "\n")  # fmt: skip
    for logs in ([read_session(log)], [read_session(p) for p in find_logs([GOLDEN])] +
                 [read_session(log)]):  # fmt: skip
        scores = score_sessions(logs)
        row = scores.sessions[scores.sessions["participant"] == "P"].iloc[0]
        assert (row["status"], row["attempts"], row["problems"]) == ("completed", 0, 0)
        assert "P" not in set(scores.trials["participant"].astype(str))


def test_inter_move_times_are_fmean_and_median_of_each_attempts_latencies():
    """As tol-score computed them at ab09369: statistics.fmean (an exactly rounded sum) and
    statistics.median of the latencies of every completed move but the first."""
    import statistics

    scores = score_sessions(log for _, log in read_sessions(find_logs(INPUTS)))
    moves, trials = scores.moves, scores.trials
    later = moves[moves["move_index"] > 1]
    keys = ["participant", "session", "block", "trial", "attempt", "problem_id"]
    latencies = {k: g["latency"].tolist() for k, g in later.groupby(keys, observed=True)}
    checked = 0
    for row in trials.itertuples():
        got = latencies.get(tuple(getattr(row, k) for k in keys))
        if not got:
            assert np.isnan(row.mean_inter_move_time)
            continue
        assert row.mean_inter_move_time == statistics.fmean(got)
        assert row.median_inter_move_time == statistics.median(got)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("together", [True, False])
def test_group_means_and_repeats_are_those_of_a_loop_over_the_members(together):
    """mean_in_group and median_in_group as statistics.fmean and statistics.median of each
    group's members (groups given together or interleaved), and seen_before as a set filled
    entry by entry."""
    import statistics

    from tol_analysis.read.logview import mean_in_group, median_in_group, seen_before

    rng = np.random.default_rng(7)
    group = rng.integers(0, 300, 5000)
    if together:
        group = np.sort(group)
    values = np.round(rng.exponential(1.0, len(group)), 6) * rng.choice([1e-9, 1, 1e9], len(group))
    got = mean_in_group(group, 310, values)
    members: dict[int, list[float]] = {}
    for g, v in zip(group.tolist(), values.tolist(), strict=True):
        members.setdefault(g, []).append(v)
    for g in range(310):
        if g in members:
            assert got[g] == statistics.fmean(members[g])
        else:
            assert np.isnan(got[g])
    for n_groups in (310, 40_000):  # few groups and many
        spread = rng.integers(0, n_groups, len(group)) if n_groups > 310 else group
        spread = np.sort(spread) if together else spread
        medians = median_in_group(spread, n_groups, values)
        by: dict[int, list[float]] = {}
        for g, v in zip(spread.tolist(), values.tolist(), strict=True):
            by.setdefault(g, []).append(v)
        assert [medians[g] for g in sorted(by)] == [statistics.median(by[g]) for g in sorted(by)]
        assert np.isnan(np.delete(medians, sorted(by))).all()
    keys = rng.integers(-50, 50, 3000)
    seen: set[int] = set()
    expected = []
    for k in keys.tolist():
        expected.append(k in seen)
        seen.add(k)
    assert seen_before(keys).tolist() == expected
    assert seen_before(np.empty(0, np.int64)).tolist() == []


@pytest.mark.parametrize("spread", [400, 10**9])
def test_distinct_problems_per_session_are_those_of_a_set_of_pairs(spread):
    """The per-session count of distinct problems (sessions.csv's problems, problems_solved)
    as a set of (session, problem) pairs counts them: keys in a narrow range (counted in a
    table) and far apart (counted by sorting)."""
    from tol_analysis.score.sessions import _distinct_count

    rng = np.random.default_rng(11)
    group = np.sort(rng.integers(0, 50, 3000))
    key = rng.integers(-spread, spread, len(group))
    pairs = set(zip(group.tolist(), key.tolist(), strict=True))
    expected = [sum(1 for g, _ in pairs if g == k) for k in range(60)]
    assert _distinct_count(group, key, 60).tolist() == expected
    assert _distinct_count(group[:0], key[:0], 60).tolist() == [0] * 60


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ('{"sidecar_version": 2, "protocol": ', "not JSON"),
        ("session-as-text", "key 'session'"),
    ],
)
def test_a_damaged_sidecar_is_read_with_the_model_and_reported(tmp_path, damage, why):
    """Every reader reads sidecars with the sidecar model: a damaged one leaves the session
    scored from its log alone (with a warning), and --verify names it as a problem."""
    from tol_analysis.score.verify import verify

    folder = tmp_path / "data"
    shutil.copytree(GOLDEN, folder)
    log = folder / "demo.csv"
    side = log.with_suffix(".json")
    if damage == "session-as-text":
        data = json.loads(side.read_text(encoding="utf-8"))
        data["session"] = "first"
        side.write_text(json.dumps(data), encoding="utf-8")
    else:
        side.write_text(damage, encoding="utf-8")
    scores = score_sessions(log for _, log in read_sessions(find_logs([folder])))
    warned = [w for w in scores.warnings if w.startswith("sidecar unreadable")]
    assert len(warned) == 1
    assert str(side) in warned[0]
    assert why in warned[0]
    demo = read_session(log)
    row = scores.sessions[scores.sessions["participant"] == demo.participant].iloc[0]
    assert row["protocol"] == "demo"  # the log names its protocol (its session_start row)
    assert scores.sidecars[(demo.participant, demo.session, "demo")] is None
    report = verify([folder])
    problems = [p for p in report.problems if str(log) in p]
    assert len(problems) == 1
    assert "the sidecar cannot be read" in problems[0]
    assert why in problems[0]

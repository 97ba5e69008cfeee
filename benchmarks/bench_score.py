"""Scoring speed and memory: 1,000,000 moves of 5-disk Tower of Hanoi, and 10,000 small sessions.

Run with::

    uv run python benchmarks/bench_score.py
    uv run python benchmarks/bench_score.py --before /tmp/base-ab   # beside an older checkout

The first run writes synthetic session logs to ``benchmarks/results/score-data``
(about 46,500 trials from random starts to random goals, walked by a
participant who makes the optimal move 80 % of the time; same format as
tol-run's logs) and ``benchmarks/results/many-sessions`` (10,000 copies of the
recorded reference sessions in ``tests/data/golden/sessions``, each under a
participant id of its own, with their sidecars), and reuses them after.

Each figure comes from a fresh process:

- *read and score*: the library calls (:func:`tol_analysis.read.read_sessions`,
  :func:`tol_analysis.score.score_sessions`, then the moves and trials
  DataFrames), with the time from the first log read and the process's peak
  resident memory; pandas is imported before the clock starts, as a notebook
  has it;
- *pd.read_csv*: pandas reading every log, nothing else (the yardstick of the
  issue: the whole command may take at most 3 times as long);
- *tol-score*: the whole command on the folder, writing every table (wall
  time and peak memory of the process);
- the same two for the folder of 10,000 small sessions (memory must stay flat
  in the number of logs).

The figures of the 1M moves (read and score, pd.read_csv, the command) are
measured ``--repeat`` times each, in turns (each checkout, then again; pandas,
then each checkout's command, then again), and the best time of each is kept
(the highest peak memory): on a shared machine the least disturbed run is the
one that measures the work. Their CPU time (user + system) is printed too,
which other processes disturb less. Whether each checkout's modules had their bytecode
(``.pyc``) compiled is printed beside the figures: without it every command
compiles its modules first (``scripts/setup.sh`` compiles them at install, as a
wheel install does).

With ``--before DIR`` (a checkout with its own ``.venv``, such as a worktree of
an older commit), every figure is measured for both in turns, in the same run,
and printed side by side with their ratio. The machine is shared: quote ratios
from one run, and the load (printed) beside them.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "results" / "score-data"
MANY = HERE / "results" / "many-sessions"
GOLDEN = ROOT / "tests" / "data" / "golden" / "sessions"


# --------------------------------------------------------------------------- data
def generate(target_moves: int, seed: int = 1, per_file: int = 200) -> tuple[int, int]:
    from tol_tasks import Hanoi
    from tol_tasks.session_data.eventlog import columns

    rng = random.Random(seed)
    p = Hanoi(5)
    states = list(p.states())
    cols = columns()
    DATA.mkdir(parents=True, exist_ok=True)
    moves = trials = 0
    file_no = 0
    while moves < target_moves:
        file_no += 1
        path = DATA / f"B{file_no:04d}_bench_2026-01-01_00h00.00.000.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            row = 0

            def put(_w=w, _who=f"B{file_no:04d}", **v):
                nonlocal row
                row += 1
                v.setdefault("participant", _who)
                v.setdefault("session", 1)
                v["row"] = row
                _w.writerow(["" if v.get(c) is None else v[c] for c in cols])

            put(event="session_start", time="0.000000")
            clock = 0.0
            for k in range(1, per_file + 1):
                if moves >= target_moves:
                    break
                trials += 1
                s, g = rng.sample(states, 2)
                ids = {"block": "test", "trial": k, "attempt": 1, "problem_id": f"p{k}"}
                clock += 1.0
                put(event="trial_onset", time=f"{clock:.6f}", trial_time="0.000000", state=str(s),
                    goal=str(g), puzzle="hanoi:5:3:0", **ids)  # fmt: skip
                tt, n = 0.0, 0
                while s != g:
                    legal = p.legal_moves(s)
                    best = p.optimal_moves(s, g)
                    m = rng.choice(best if rng.random() < 0.8 else legal)
                    tt += 0.4
                    put(event="pick_up", time=f"{clock + tt:.6f}", trial_time=f"{tt:.6f}", piece=m.piece,
                        from_peg=m.source_label, state=str(s), **ids)  # fmt: skip
                    s = p.apply(s, m)
                    n += 1
                    tt += 0.3
                    put(event="place", time=f"{clock + tt:.6f}", trial_time=f"{tt:.6f}", piece=m.piece,
                        from_peg=m.source_label, to_peg=m.target_label, state=str(s), moves=n, **ids)  # fmt: skip
                moves += n
                put(event="solved", trial_time=f"{tt:.6f}", state=str(s), moves=n, **ids)
                put(event="trial_end", trial_time=f"{tt:.6f}", reason="solved", moves=n,
                    detail="frames=10;dropped_frames=0", **ids)  # fmt: skip
                clock += tt
            put(event="session_end", reason="completed")
    (DATA / "manifest.json").write_text(json.dumps({"moves": moves, "trials": trials}))
    return moves, trials


def generate_many(count: int) -> None:
    """``count`` sessions, copies of the reference recordings, each with a participant id of
    its own (in the log and its sidecar)."""
    MANY.mkdir(parents=True, exist_ok=True)
    logs = sorted(GOLDEN.glob("*.csv"))
    texts = [(log, log.read_text(encoding="utf-8")) for log in logs]
    for k in range(count):
        log, text = texts[k % len(texts)]
        who = f"M{k:05d}"
        rows = list(csv.reader(io.StringIO(text, newline="")))
        at = rows[0].index("participant")
        for r in rows[1:]:
            r[at] = who
        name = f"{who}_{log.stem}_2026-01-01_00h00.00.000"
        with open(MANY / f"{name}.csv", "w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        side = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
        side.update(participant=who, event_log=f"{name}.csv")
        (MANY / f"{name}.json").write_text(json.dumps(side, indent=2), encoding="utf-8")
    (MANY / "manifest.json").write_text(json.dumps({"sessions": count}))


# --------------------------------------------------------------------------- children
def score_child(folder: str) -> None:
    """Runs in a fresh process (of either checkout): read and score a folder, print JSON."""
    import pandas  # noqa: F401  (a notebook has it already; not part of the figure)

    try:  # this checkout
        from tol_analysis.read import find_logs, read_sessions
        from tol_analysis.score import score_sessions

        def logs(paths):
            return (log for _, log in read_sessions(paths))
    except ImportError:  # a checkout from before the rename (analysis.*)
        from analysis.read import find_logs, read_session
        from analysis.score import score_sessions

        def logs(paths):
            return (read_session(p) for p in paths)

    t0, c0 = time.perf_counter(), time.process_time()
    paths = find_logs([Path(folder)])
    scores = score_sessions(logs(paths))
    moves, trials = len(scores.moves), len(scores.trials)
    t1, c1 = time.perf_counter(), time.process_time()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"total_s": t1 - t0, "cpu_s": c1 - c0, "moves": moves, "files": len(paths),
                      "trials": trials, "peak_rss_mb": peak_kb / 1024}))  # fmt: skip


def read_csv_child(folder: str) -> None:
    """Runs in a fresh process: pandas reading every log, nothing else."""
    import pandas as pd

    paths = sorted(Path(folder).glob("*.csv"))
    t0, c0 = time.perf_counter(), time.process_time()
    rows = sum(len(pd.read_csv(p)) for p in paths)
    print(json.dumps({"total_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                      "rows": rows}))  # fmt: skip


def _timed(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of a command, run alone in a process of
    its own."""
    script = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "w = time.perf_counter() - t\n"
        "if p.returncode: sys.exit(p.stderr)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps([w, u.ru_maxrss / 1024, u.ru_utime + u.ru_stime]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, *cmd], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    wall, peak, cpu = json.loads(out.stdout)
    return wall, peak, cpu


def _bytecode_child() -> None:
    """Runs in a fresh process (of either checkout): whether the modules tol-score imports
    have their compiled bytecode cached, as JSON."""
    import importlib.util

    found = {}
    for name in ("numpy", "pyarrow", "tol_tasks", "tol_analysis.cli", "analysis.cli"):
        try:
            spec = importlib.util.find_spec(name)
        except ImportError:
            continue
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        src = Path(spec.origin)
        cached = Path(importlib.util.cache_from_source(str(src)))
        fresh = cached.is_file() and cached.stat().st_mtime >= src.stat().st_mtime
        found[name.removesuffix(".cli")] = fresh
    print(json.dumps(found))


# --------------------------------------------------------------------------- the run
class Checkout:
    def __init__(self, root: Path, label: str) -> None:
        self.root, self.label = root, label
        self.python = root / ".venv" / "bin" / "python"
        self.tol_score = root / ".venv" / "bin" / "tol-score"

    def score(self, folder: Path) -> dict:
        out = subprocess.run([str(self.python), __file__, "--score-child", str(folder)],
                             capture_output=True, text=True, cwd=tempfile.gettempdir())  # fmt: skip
        if out.returncode:
            raise SystemExit(f"{self.label}: scoring {folder} failed:\n{out.stderr}")
        return json.loads(out.stdout)

    def bytecode(self) -> str:
        out = subprocess.run([str(self.python), __file__, "--bytecode-child"],
                             capture_output=True, text=True, cwd=tempfile.gettempdir())  # fmt: skip
        if out.returncode:
            return "unknown"
        found = json.loads(out.stdout)
        return ", ".join(f"{name} {'yes' if ok else 'no'}" for name, ok in found.items())

    def command(self, folder: Path) -> tuple[float, float, float]:
        with tempfile.TemporaryDirectory() as out:
            return _timed([str(self.tol_score), str(folder), "--output", out])


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def _row(name: str, values: list[float], unit: str) -> str:
    cells = [f"{v:,.2f} {unit}" if unit in ("s", "x") else f"{v:,.0f} {unit}" for v in values]
    ratio = f"{values[1] / values[0]:.2f}" if len(values) == 2 and values[0] else ""
    return f"| {name} | " + " | ".join(cells) + (f" | {ratio} |" if len(values) == 2 else " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--sessions", type=int, default=10_000, help="small sessions (0: skip)")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--before", type=Path, help="an older checkout (with its .venv) to compare")
    ap.add_argument("--no-command", action="store_true",
                    help="skip timing the whole tol-score command")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3,
                    help="times the 1M-move figures are measured, in turns (best kept)")  # fmt: skip
    ap.add_argument("--score-child", help=argparse.SUPPRESS)
    ap.add_argument("--bytecode-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--read-csv-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.score_child:
        score_child(args.score_child)
        return
    if args.read_csv_child:
        read_csv_child(args.read_csv_child)
        return
    if args.bytecode_child:
        _bytecode_child()
        return
    manifest = DATA / "manifest.json"
    if (args.regenerate or not manifest.exists()
            or json.loads(manifest.read_text())["moves"] < args.moves):  # fmt: skip
        for old in DATA.glob("*.csv"):
            old.unlink()
        t0 = time.perf_counter()
        moves, trials = generate(args.moves)
        print(f"generated {moves:,} moves in {trials:,} trials in {time.perf_counter() - t0:.1f} s")
    many = MANY / "manifest.json"
    if args.sessions and (args.regenerate or not many.exists()
                          or json.loads(many.read_text())["sessions"] != args.sessions):  # fmt: skip
        for old in MANY.glob("*.*"):
            old.unlink()
        generate_many(args.sessions)
        print(f"generated {args.sessions:,} small sessions in {MANY}")

    checkouts = [Checkout(ROOT, "after")]
    if args.before:
        checkouts.insert(0, Checkout(args.before.resolve(), "before"))
    load_start = _load()
    figures: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    scored: dict[str, list[dict]] = {c.label: [] for c in checkouts}
    for _ in range(max(1, args.repeat)):  # in turns, best of --repeat
        for c in checkouts:
            scored[c.label].append(c.score(DATA))
    for c in checkouts:
        runs = scored[c.label]
        add("read and score 1M moves", min(r["total_s"] for r in runs))
        add("read and score, CPU time", min(r["cpu_s"] for r in runs))
        add("peak RSS, read and score", max(r["peak_rss_mb"] for r in runs))
    r = runs[-1]
    print(f"{r['moves']:,} moves in {r['trials']:,} trials, {r['files']} log files")

    def read_csv() -> dict:
        out = subprocess.run([sys.executable, __file__, "--read-csv-child", str(DATA)],
                             capture_output=True, text=True, check=True)  # fmt: skip
        return json.loads(out.stdout)

    # In turns, best of --repeat: pandas, then each checkout's command.
    pandas = {"total_s": float("inf"), "cpu_s": float("inf")}
    commands = {c.label: (float("inf"), 0.0, float("inf")) for c in checkouts}
    for _ in range(max(1, args.repeat)):
        got = read_csv()
        pandas = {"total_s": min(pandas["total_s"], got["total_s"]), "rows": got["rows"],
                  "cpu_s": min(pandas["cpu_s"], got["cpu_s"])}  # fmt: skip
        if args.no_command:
            continue
        for c in checkouts:
            wall, peak, cpu = c.command(DATA)
            best = commands[c.label]
            commands[c.label] = (min(best[0], wall), max(best[1], peak), min(best[2], cpu))
    if not args.no_command:
        for c in checkouts:
            wall, peak, cpu = commands[c.label]
            add("tol-score command, every table", wall)
            add("peak RSS, tol-score", peak)
            add("command / pd.read_csv", wall / pandas["total_s"])
            add("command / pd.read_csv, CPU time", cpu / pandas["cpu_s"])
    if args.sessions:
        for c in checkouts:
            r = c.score(MANY)
            add(f"read and score {args.sessions:,} sessions", r["total_s"])
            add(f"peak RSS, {args.sessions:,} sessions", r["peak_rss_mb"])
        if not args.no_command:
            for c in checkouts:
                wall, peak, _ = c.command(MANY)
                add(f"tol-score command, {args.sessions:,} sessions", wall)
                add(f"peak RSS, tol-score on {args.sessions:,} sessions", peak)
    labels = [f"{c.label} ({c.root.name})" for c in checkouts]
    print(f"\nload average (1, 5, 15 min): {load_start} at the start, {_load()} at the end")
    print(f"pd.read_csv of every log (1M moves): {pandas['total_s']:.2f} s, CPU "
          f"{pandas['cpu_s']:.2f} s ({pandas['rows']:,} rows); command and pd.read_csv: best "
          f"of {max(1, args.repeat)}, in turns")  # fmt: skip
    for c in checkouts:
        print(f"bytecode compiled ({c.label}): {c.bytecode()}")
    print("targets: read and score < 3 s with peak RSS < 300 MB; command at most 3 x pd.read_csv\n")
    print("| figure | " + " | ".join(labels) + (" | after / before |" if args.before else " |"))
    print("| --- | " + " | ".join("---" for _ in labels) + (" | --- |" if args.before else " |"))
    for name, values in figures.items():
        unit = "x" if name.startswith("command /") else ("MB" if "RSS" in name else "s")
        print(_row(name, values, unit))


if __name__ == "__main__":
    main()

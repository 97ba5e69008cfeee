"""Scoring speed and memory on 1,000,000 moves of 5-disk Tower of Hanoi.

Run with::

    uv run python benchmarks/bench_score.py

The first run writes synthetic session logs to ``benchmarks/results/score-data``
(about 20,000 trials from random starts to random goals, walked by a
participant who makes the optimal move 80 % of the time; same format as
tol-run's logs, written without fsync) and reuses them after. The scoring then
runs in a fresh process, which reports the time to read and score everything
(``tol-score``'s library calls, without writing CSVs) and its peak resident
memory. Then, in the same run, it times ``pd.read_csv`` of every log (pandas
alone, in a fresh process) and the whole ``tol-score`` command on the folder,
writing every table (wall time and peak memory of the process). Targets on the
2-core machine: read and score in under 3 s with peak RSS under 300 MB; the
whole command at most 3 times as long as pandas' reading.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "results" / "score-data"


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


def score_child() -> None:
    """Runs in a fresh process: read and score everything, print JSON figures."""
    from tol_analysis.read import find_logs, read_sessions
    from tol_analysis.score import score_sessions

    t0 = time.perf_counter()
    paths = find_logs([DATA])
    scores = score_sessions(log for _, log in read_sessions(paths))  # streamed, as tol-score does
    t1 = time.perf_counter()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"total_s": t1 - t0, "moves": len(scores.moves), "files": len(paths),
                      "trials": len(scores.trials), "peak_rss_mb": peak_kb / 1024}))  # fmt: skip


def read_csv_child() -> None:
    """Runs in a fresh process: pandas reading every log, nothing else."""
    import pandas as pd

    from tol_analysis.read import find_logs

    paths = find_logs([DATA])
    t0 = time.perf_counter()
    rows = sum(len(pd.read_csv(p)) for p in paths)
    print(json.dumps({"total_s": time.perf_counter() - t0, "rows": rows}))


def _timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, standard output) of a command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--read-csv-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-command", action="store_true",
                    help="skip timing the whole tol-score command")  # fmt: skip
    args = ap.parse_args()
    if args.child:
        score_child()
        return
    if args.read_csv_child:
        read_csv_child()
        return
    manifest = DATA / "manifest.json"
    if (
        args.regenerate
        or not manifest.exists()
        or json.loads(manifest.read_text())["moves"] < args.moves
    ):
        for old in DATA.glob("*.csv"):
            old.unlink()
        t0 = time.perf_counter()
        moves, trials = generate(args.moves)
        print(f"generated {moves:,} moves in {trials:,} trials in {time.perf_counter() - t0:.1f} s")
    out = subprocess.run(
        [sys.executable, __file__, "--child"], capture_output=True, text=True, check=True
    )
    r = json.loads(out.stdout)
    total = r["total_s"]
    print(f"moves scored:       {r['moves']:,} in {r['trials']:,} trials, {r['files']} log files")
    print(
        f"read and score:     {total:.2f} s  ->  {r['moves'] / total:,.0f} moves/s (target: < 3 s)"
    )
    print(f"peak memory (RSS):  {r['peak_rss_mb']:.0f} MB (target: < 300 MB)")
    if args.no_command:
        return
    pandas = json.loads(subprocess.run([sys.executable, __file__, "--read-csv-child"],
                                       capture_output=True, text=True, check=True).stdout)  # fmt: skip
    with tempfile.TemporaryDirectory() as out:
        exe = str(Path(sys.executable).with_name("tol-score"))
        wall, peak, _ = _timed([exe, str(DATA), "--output", out])
    print(f"pd.read_csv alone:  {pandas['total_s']:.2f} s ({pandas['rows']:,} rows)")
    print(
        f"tol-score command:  {wall:.2f} s, peak {peak:.0f} MB, every table written "
        f"({wall / pandas['total_s']:.1f} x pandas' reading; target: at most 3 x)"
    )


if __name__ == "__main__":
    main()

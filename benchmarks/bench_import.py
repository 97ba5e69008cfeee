"""Import speed: 100,000 source rows of each importable format, through tol-import's library call.

Run with::

    uv run python benchmarks/bench_import.py [--rows 100000] [--repeat 3]

Each source file is made from the committed fixtures (tests/data/import) by
repeating their participants under new ids until it holds the requested
number of rows: the Experiment Factory's per-click rows (several hundred
workers in one CSV, as a published multi-worker file is), PEBL's per-step TOL
rows, and the jsPsych-contrib plugin's per-trial rows. Each import runs into
an empty folder (every session written: event log, fsync, sidecar) and the
best of ``--repeat`` runs is reported, with rows per second. The machine is
shared: compare the formats with each other in one run, not across runs.
Target: seconds, not minutes, for 100,000 rows.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "data" / "import"
sys.path.insert(0, str(HERE.parent))


def _grow_csv(src: Path, rows_wanted: int, who: str, rename) -> tuple[str, int]:
    """CSV text holding ``src``'s rows repeated, each copy's participant renamed."""
    with src.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = list(reader.fieldnames)
        rows = list(reader)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    n = copy = 0
    while n < rows_wanted:
        copy += 1
        for r in rows:
            w.writerow({**r, who: rename(r[who], copy)})
            n += 1
    return out.getvalue(), n


def _grow_json(src: Path, rows_wanted: int, who: str) -> tuple[str, int]:
    rows = json.loads(src.read_text(encoding="utf-8"))
    out, copy = [], 0
    while len(out) < rows_wanted:
        copy += 1
        out.extend({**r, who: f"{r[who]}x{copy}"} for r in rows)
    return json.dumps(out), len(out)


def make_sources(folder: Path, rows: int) -> dict[str, tuple[Path, int, tuple[str, ...]]]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    text, n = _grow_csv(FIXTURES / "expfactory" / "tower_of_london.csv", rows, "worker_id",
                        lambda w, k: f"{w}x{k}")  # fmt: skip
    (folder / "tower_of_london.csv").write_text(text, encoding="utf-8")
    out["expfactory-tol"] = (folder / "tower_of_london.csv", n, ())
    text, n = _grow_csv(FIXTURES / "pebl" / "tol-101.csv", rows, "sub", lambda s, k: f"{s}x{k}")
    (folder / "tol-9999.csv").write_text(text, encoding="utf-8")
    out["pebl-tol"] = (folder / "tol-9999.csv", n, ("--capacities", "3,2,1"))
    text, n = _grow_json(FIXTURES / "jspsych" / "J02.json", rows, "subject_id")
    (folder / "jspsych.json").write_text(text, encoding="utf-8")
    out["jspsych-tol"] = (folder / "jspsych.json", n, ())
    return out


def run_once(path: Path, extra: tuple[str, ...]) -> tuple[float, int, int]:
    from tol_tasks.importers import ImportOptions, import_files

    options = ImportOptions(capacities=(3, 2, 1)) if extra else ImportOptions()
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        report = import_files([path], out, options=options)
        elapsed = time.perf_counter() - t0
    return elapsed, len(report.written), report.trials, report.events


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        sources = make_sources(work, args.rows)
        print(f"{'format':<16}{'source rows':>12}{'sessions':>10}{'trials':>9}{'events':>10}"
              f"{'best s':>8}{'rows/s':>9}{'events/s':>10}")  # fmt: skip
        for fmt, (path, n, extra) in sources.items():
            best = None
            for _ in range(args.repeat):
                elapsed, sessions, trials, events = run_once(path, extra)
                best = elapsed if best is None else min(best, elapsed)
            print(f"{fmt:<16}{n:>12,}{sessions:>10,}{trials:>9,}{events:>10,}{best:>8.2f}"
                  f"{n / best:>9,.0f}{events / best:>10,.0f}")  # fmt: skip
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

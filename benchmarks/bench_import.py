"""Import speed: 100,000 source rows of each importable format, through tol-import's library call.

Run with::

    uv run python benchmarks/bench_import.py [--rows 100000] [--repeat 3] [--formats jspsych-tol]
        [--before /path/to/a/checkout/of/main]

Each source file is made from the committed fixtures (tests/data/import) by
repeating their participants under new ids until it holds the requested
number of rows: the Experiment Factory's per-click rows (several hundred
workers in one CSV, as a published multi-worker file is), PEBL's per-step TOL
rows, and the jsPsych-contrib plugin's per-trial rows. Each import runs into
an empty folder (every session written: event log and sidecar, made durable), kept until
the benchmark ends (removing a run's tens of thousands of files just before the next run
would slow the next run's file creation on a file system without a journal, whose inode
allocator passes over inodes freed in the last minutes), and the
best of ``--repeat`` runs is reported, with rows per second, CPU seconds (the import's
process, ``user`` and ``sys`` of it, and the forked copy that builds part of a large file's
sessions on the other core: ``workers`` is the copy's) and peak memory (the import's process; ``worker MB``, the
copy's, which counts the pages it shares with the import's process since the fork); each
import runs in a fresh process, with ``--before``'s code
interleaved with today's. With ``--disk``, after each round the last import's files
are written again into a new folder with the same durability and nothing else (no
source read, no session built: the ``disk`` row), so that the import is compared with
the disk's own time for its output, in the same run. The machine is
shared: compare the formats with each other in one run, not across runs.
Target: seconds, not minutes, for 100,000 rows.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
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


_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from tol_tasks.importers import ImportOptions, import_files
options = ImportOptions(capacities=(3, 2, 1)) if sys.argv[3] == "caps" else ImportOptions()
def usage():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime, s.ru_stime, c.ru_utime + c.ru_stime
t0, u0 = time.perf_counter(), usage()
report = import_files([sys.argv[2]], sys.argv[4], options=options)
wall, u1 = time.perf_counter() - t0, usage()
user, system, workers = (b - a for a, b in zip(u0, u1))  # workers: ended, so counted
try:  # this process's own peak: ru_maxrss also counts the parent's pages the fork copied
    with open("/proc/self/status") as f:
        peak = next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": wall, "cpu": user + system + workers, "user": user, "system": system,
                  "workers_cpu": workers, "sessions": len(report.written),
                  "trials": report.trials, "events": report.events, "peak_mb": peak,
                  "workers_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
                  if workers > 0.05 else 0.0}))  # not a helper such as platform's uname
"""


#: ``--disk``: the same files written again with the same durability and nothing else (no
#: source read, no session built): the disk's own time for an import's output. Each
#: batch of 256 sessions (the Writer's ``BATCH``) is written under temporary names, one
#: ``syncfs`` commits it, the files get their names and the folder is synced, as
#: tol_tasks.importers.write does, but here in plain system calls on bytes already in memory.
_DISK_CHILD = r"""
import ctypes, json, os, resource, sys, time
src, out = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(src) if n.endswith((".csv", ".json")))
data = {}
for n in names:
    with open(os.path.join(src, n), "rb") as f:
        data[n] = f.read()
logs = [n for n in names if n.endswith(".csv")]
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs(out)
def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime
t0, u0 = time.perf_counter(), usage()
dfd = os.open(out, os.O_RDONLY)
for i in range(0, len(logs), 256):
    batch = []
    for log in logs[i : i + 256]:
        for n in (log, log[:-4] + ".json"):
            tmp = os.path.join(out, n + ".part")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data[n])
            os.close(fd)
            batch.append(n)
    if libc.syncfs(dfd) != 0:
        raise OSError(ctypes.get_errno(), "syncfs")
    for n in batch:
        os.rename(os.path.join(out, n + ".part"), os.path.join(out, n))
    os.fsync(dfd)
os.close(dfd)
wall, u1 = time.perf_counter() - t0, usage()
print(json.dumps({"wall": wall, "user": u1[0] - u0[0], "system": u1[1] - u0[1],
                  "files": 2 * len(logs), "mb": sum(map(len, data.values())) / 1e6}))
"""


def disk_once(written: Path, out: Path) -> dict:
    """The files of the import into ``written`` written again into the new folder ``out``
    with the same durability and nothing else (:data:`_DISK_CHILD`), in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _DISK_CHILD, str(written), str(out)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"bench_import: writing {written}'s files again failed:\n{done.stderr}")
    return json.loads(done.stdout)


def run_once(checkout: Path, path: Path, extra: tuple[str, ...], out: Path) -> dict:
    """One import into the new folder ``out`` in a fresh process of ``checkout``'s code: wall
    and CPU time of the library call (import excluded; the import's process, user and
    system, and its workers), sessions, trials, events and the process's peak RSS."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(checkout), str(path), "caps" if extra else "-",
         str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"bench_import: the import of {path} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Compares, process against process, today's checkout with --before's (if "
        "given): each import runs in a fresh Python process, interleaved, and the best of "
        "--repeat is reported with its CPU time, peak memory and the load average.",
    )
    ap.add_argument("--rows", type=int, default=100_000, help="source rows per format")
    ap.add_argument("--repeat", type=int, default=3, help="runs per format (the best is kept)")
    ap.add_argument("--formats", nargs="+", default=None,
                    help="only these formats (expfactory-tol, pebl-tol, jspsych-tol)")  # fmt: skip
    ap.add_argument(
        "--disk",
        action="store_true",
        help="after each import, write its files again with the same durability "
        "and nothing else (the disk's own time), interleaved with the imports",
    )
    ap.add_argument("--before", type=Path, default=None,
                    help="another checkout (e.g. a worktree of main) measured in the same run")  # fmt: skip
    args = ap.parse_args(argv)
    checkouts = {"after": HERE.parent}
    if args.before is not None:
        checkouts = {"before": args.before.resolve(), **checkouts}
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        sources = make_sources(work, args.rows)
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'format':<14}{'code':>7}{'source rows':>12}{'sessions':>10}{'events':>11}"
              f"{'wall s':>8}{'cpu s':>7}{'user':>6}{'sys':>6}{'workers':>8}{'rows/s':>9}"
              f"{'peak MB':>8}{'worker MB':>10}")  # fmt: skip
        for fmt, (path, n, extra) in sources.items():
            if args.formats and fmt not in args.formats:
                continue
            best: dict[str, dict] = {}
            for r in range(args.repeat):
                for name, checkout in checkouts.items():  # interleaved
                    got = run_once(checkout, path, extra, work / f"out-{fmt}-{name}-{r}")
                    if name not in best or got["wall"] < best[name]["wall"]:
                        best[name] = got
                if args.disk:
                    got = disk_once(work / f"out-{fmt}-after-{r}", work / f"disk-{fmt}-{r}")
                    if "disk" not in best or got["wall"] < best["disk"]["wall"]:
                        best["disk"] = got
            disk = best.pop("disk", None)
            for name, got in best.items():
                print(f"{fmt:<14}{name:>7}{n:>12,}{got['sessions']:>10,}{got['events']:>11,}"
                      f"{got['wall']:>8.2f}{got['cpu']:>7.2f}{got['user']:>6.2f}"
                      f"{got['system']:>6.2f}{got['workers_cpu']:>8.2f}"
                      f"{n / got['wall']:>9,.0f}{got['peak_mb']:>8.0f}"
                      f"{got['workers_peak_mb']:>10.0f}")  # fmt: skip
            if disk is not None:
                print(f"{fmt:<14}{'disk':>7}{'':>12}{disk['files'] // 2:>10,}{'':>11}"
                      f"{disk['wall']:>8.2f}{disk['user'] + disk['system']:>7.2f}"
                      f"{disk['user']:>6.2f}{disk['system']:>6.2f}    (the same "
                      f"{disk['files']:,} files, {disk['mb']:.0f} MB, written again with the "
                      "same durability and nothing else)")  # fmt: skip
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

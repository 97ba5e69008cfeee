"""Scoring at scale: ``tol-score`` against a pandas read of the same logs, process against process.

Run with::

    uv run python benchmarks/bench_score.py --data /work/bench-data
    uv run python benchmarks/bench_score.py --data /work/bench-data --before /work/wt/base-main \\
        --sessions 1000 10000 100000

What it compares, on two kinds of corpus (written once under ``--data``, reused after):

- **the 1M-move corpus** (``moves-<N>/``): about 46,500 synthetic 5-disk Tower of
  Hanoi trials from random starts to random goals, walked by a participant who
  makes the optimal move 80 % of the time, 200 trials a log, in tol-run's format;
- **small sessions** (``sessions-<N>/``, one folder per ``--sessions`` count):
  copies of the recorded reference sessions in ``tests/data/golden/sessions``,
  each under a participant id of its own, with its sidecar. The folders share
  their files (hard links to ``sessions-pool/``), so 1k, 10k and 100k cost the
  disk of the largest.

For each corpus, in turns (*interleaved*: pandas, then each checkout, then
again, ``--repeat`` rounds), each figure is a **whole process** started fresh:

- *pandas read*: ``python -c "import pandas; pd.read_csv(every log)"``, the
  yardstick (import included, as the command's start-up is);
- *tol-score*: the whole command of a checkout on the folder, writing every
  table (``--extras`` adds ``--report --plots --bids``);
- with ``--pandas-one-blas-thread``, the pandas read again with
  ``OPENBLAS_NUM_THREADS=1``: every tol-tasks command sets it for itself
  (:mod:`tol_tasks.blas`), which spares the threads numpy's OpenBLAS starts and
  spins at import; this row says how much of a ratio that start-up accounts for.

Each run's wall time, CPU time (user + system, its threads included) and peak
resident memory come from the kernel (``os.wait4``); the 1-minute load average
at its start is printed beside it. The table keeps the best wall and CPU time
of the rounds (the least disturbed run measures the work) and the highest
memory, then the ratios *tol-score / pandas* (CPU and wall) and, with
``--before`` (another checkout with its own ``.venv``), *after / before*.
The machine is shared: quote ratios from one run, with its load.

``--library`` adds in-process figures (library calls against an in-process
``pd.read_csv``, pandas imported before the clock in both). ``--same-bytes``
checks that every table the two checkouts write is byte for byte the same.
A run that fails, or writes no table, stops the benchmark with its error: it
never prints a table with a figure missing.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOLDEN = ROOT / "tests" / "data" / "golden" / "sessions"
#: Stands for the participant id in a reference log's text while copies are made.
_WHO = "\x00who\x00"

#: The variable that sets how many threads numpy's OpenBLAS starts: tol_tasks.blas.VARIABLE,
#: not imported (importing that module sets it here, for the pandas read's process too).
_BLAS = "OPENBLAS_NUM_THREADS"

_PANDAS_READ = (
    "import sys\n"
    "from pathlib import Path\n"
    "import pandas as pd\n"
    "rows = sum(len(pd.read_csv(p)) for p in sorted(Path(sys.argv[1]).rglob('*.csv')))\n"
    "print(rows)\n"
)


# --------------------------------------------------------------------------- corpora
def generate_moves(folder: Path, target_moves: int, seed: int = 1, per_file: int = 200) -> None:
    """The 1M-move corpus: synthetic 5-disk Tower of Hanoi trials, ``per_file`` a log."""
    from tol_tasks import Hanoi
    from tol_tasks.session_data.eventlog import columns

    rng = random.Random(seed)
    p = Hanoi(5)
    states = list(p.states())
    cols = columns()
    folder.mkdir(parents=True, exist_ok=True)
    moves = trials = 0
    file_no = 0
    while moves < target_moves:
        file_no += 1
        path = folder / f"B{file_no:04d}_bench_2026-01-01_00h00.00.000.csv"
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
    (folder / "corpus.json").write_text(json.dumps({"moves": moves, "trials": trials}))


def _templates() -> list[tuple[str, str, str]]:
    """(stem, log text, sidecar text) of each reference session, its participant id replaced
    by a mark."""
    out = []
    for log in sorted(GOLDEN.glob("*.csv")):
        rows = list(csv.reader(io.StringIO(log.read_text(encoding="utf-8"), newline="")))
        at = rows[0].index("participant")
        for r in rows[1:]:
            r[at] = _WHO
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(rows)
        side = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
        side.update(participant=_WHO, event_log=f"{_WHO}_{log.stem}_2026-01-01_00h00.00.000.csv")
        out.append((log.stem, text.getvalue(), json.dumps(side, indent=2)))
    return out


def _session_name(k: int, stem: str) -> str:
    return f"M{k:07d}_{stem}_2026-01-01_00h00.00.000"


def generate_sessions(data: Path, count: int) -> Path:
    """``sessions-<count>/``: hard links to the first ``count`` sessions of ``sessions-pool/``
    (written as far as needed: copies of the reference sessions, each with an id of its own)."""
    pool, folder = data / "sessions-pool", data / f"sessions-{count}"
    if (folder / "corpus.json").is_file():
        return folder
    pool.mkdir(parents=True, exist_ok=True)
    templates = _templates()
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        stem, log, side = templates[k % len(templates)]
        name = _session_name(k, stem)
        who = f"M{k:07d}"
        for suffix, text in ((".csv", log), (".json", side)):
            source = pool / f"{name}{suffix}"
            if not source.exists():
                source.write_text(text.replace(_WHO, who), encoding="utf-8")
            target = folder / source.name
            if not target.exists():
                os.link(source, target)
    (folder / "corpus.json").write_text(json.dumps({"sessions": count}))
    return folder


#: Sessions per folder of the tiny corpus (a million files in one folder is legal but slow
#: to list by hand; a lab's export is often split by site or by day).
TINY_PER_FOLDER = 10_000


def _tiny_template() -> tuple[str, str]:
    """(log, sidecar) of the smallest real session: the recorded demo session cut to its
    first trial (3 moves, one illegal drop) and its end, rows renumbered, the sidecar as
    compact JSON with that trial's frames only; the participant id a mark."""
    log = GOLDEN / "demo.csv"
    rows = list(csv.reader(io.StringIO(log.read_text(encoding="utf-8"), newline="")))
    head, body = rows[0], rows[1:]
    at, event, problem = (head.index(c) for c in ("participant", "event", "problem_id"))
    kept = [r for r in body if r[event] in ("session_start", "block_start", "session_end")
            or r[problem] == "demo-1"]  # fmt: skip
    for k, r in enumerate(kept, start=1):
        r[0], r[at] = str(k), _WHO
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([head, *kept])
    side = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
    side["frames"]["trials"] = side["frames"]["trials"][:1]
    side.update(participant=_WHO, rows_written=len(kept),
                event_log=f"{_WHO}_tiny_2026-01-01_00h00.00.000.csv")  # fmt: skip
    return text.getvalue(), json.dumps(side, separators=(",", ":")).replace(
        json.dumps(_WHO)[1:-1], _WHO
    )


def generate_tiny(data: Path, count: int) -> Path:
    """``tiny-<count>/``: ``count`` one-trial sessions (:func:`_tiny_template`, log and
    sidecar each under 4 KB: one block of the disk each), :data:`TINY_PER_FOLDER` a folder."""
    folder = data / f"tiny-{count}"
    if (folder / "corpus.json").is_file():
        return folder
    log, side = _tiny_template()
    for start in range(0, count, TINY_PER_FOLDER):
        sub = folder / f"part{start // TINY_PER_FOLDER:04d}"
        names = [f"T{k:07d}_tiny_2026-01-01_00h00.00.000"
                 for k in range(start, min(start + TINY_PER_FOLDER, count))]  # fmt: skip
        if (sub / f"{names[-1]}.json").is_file():
            continue  # written whole before (a generation cut off, then resumed)
        sub.mkdir(parents=True, exist_ok=True)
        for name in names:
            who = name[:8]
            (sub / f"{name}.csv").write_text(log.replace(_WHO, who), encoding="utf-8")
            (sub / f"{name}.json").write_text(side.replace(_WHO, who), encoding="utf-8")
    (folder / "corpus.json").write_text(json.dumps({"sessions": count, "log_bytes": len(log.encode()),
                                                    "sidecar_bytes": len(side.encode())}))  # fmt: skip
    return folder


def moves_corpus(data: Path, moves: int) -> Path:
    folder = data / f"moves-{moves}"
    if not (folder / "corpus.json").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        t0 = time.perf_counter()
        generate_moves(folder, moves)
        print(f"wrote {folder} in {time.perf_counter() - t0:.0f} s", flush=True)
    return folder


# --------------------------------------------------------------------------- measuring
@dataclass
class Run:
    """One whole process: wall and CPU seconds, peak resident MB, load average at its start."""

    wall: float
    cpu: float
    peak_mb: float
    load: float


def _measured(cmd: list[str], what: str, env: dict[str, str] | None = None) -> tuple[Run, str]:
    """Run ``cmd`` in a process of its own that reports its one child's resources (so peak
    memory is that command's, not the largest of every command run so far); ``env``: its
    environment (by default this one's)."""
    script = (
        "import json, os, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "_, status, u = os.wait4(p.pid, 0)\n"
        "w = time.perf_counter() - t\n"
        "out, err = p.stdout.read(), p.stderr.read()\n"
        "code = os.waitstatus_to_exitcode(status)\n"
        "print(json.dumps([code, w, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024,\n"
        "                  out.decode(errors='replace'), err.decode(errors='replace')]))\n"
    )
    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, "-c", script, *cmd], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), env=env)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{what}: the measuring process failed:\n{done.stderr}")
    code, wall, cpu, peak, out, err = json.loads(done.stdout)
    if code:
        raise SystemExit(f"{what} failed (exit {code}):\n{' '.join(cmd)}\n{err}")
    return Run(wall, cpu, peak, load), out


@dataclass
class Figures:
    runs: list[Run] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return min(r.wall for r in self.runs)

    @property
    def cpu(self) -> float:
        return min(r.cpu for r in self.runs)

    @property
    def peak(self) -> float:
        return max(r.peak_mb for r in self.runs)

    @property
    def loads(self) -> str:
        return "/".join(f"{r.load:.1f}" for r in self.runs)


#: The folders of a checkout's own packages (what ``tol-score`` imports from it).
_PACKAGES = ("analysis", "tol_tasks")


def _installed(root: Path) -> list[Path]:
    """The checkout's ``.venv`` packages (numpy, pyarrow, pydantic; pandas for the yardstick):
    a ``uv sync`` leaves them without bytecode, and compiling them at every start costs
    more than a second of CPU time."""
    return sorted((root / ".venv" / "lib").glob("python3*/site-packages"))


def _stale_bytecode(root: Path) -> list[Path]:
    """The modules of a checkout (and of its ``.venv``'s packages, :func:`_installed`) whose
    cached bytecode is missing or older than the source (the source's modification
    time and size are in the ``.pyc`` header)."""
    import importlib.util

    stale = []
    for folder in [*(root / p for p in _PACKAGES), *_installed(root)]:
        for source in sorted(folder.rglob("*.py")):
            cached = Path(importlib.util.cache_from_source(str(source)))
            try:
                head = cached.read_bytes()[:16]
            except OSError:
                stale.append(source)
                continue
            st = source.stat()
            flags = int.from_bytes(head[4:8], "little")
            fresh = (flags != 0 or (int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                     and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF))  # fmt: skip
            if not fresh:
                stale.append(source)
    return stale


class Checkout:
    """A checkout with its own ``.venv`` (this one, or ``--before``)."""

    def __init__(self, root: Path, label: str) -> None:
        self.root, self.label = root, label
        self.python = root / ".venv" / "bin" / "python"
        self.tol_score = root / ".venv" / "bin" / "tol-score"
        for exe in (self.python, self.tol_score):
            if not exe.is_file():
                raise SystemExit(f"{label}: {exe} not found; run scripts/setup.sh in {root}")

    def compiled(self, compile_them: bool) -> None:
        """Make sure the checkout's own modules, and the packages in its ``.venv`` (numpy,
        pyarrow, pandas, ...), load from up-to-date bytecode: with ``PYTHONDONTWRITEBYTECODE``
        set (this machine sets it) a module without an up-to-date ``.pyc`` is compiled again
        at every start (0.1 s of CPU time for the checkout's own modules; over a second for
        the packages, which ``uv sync`` installs without bytecode). This checkout's are
        compiled; another's stale ones stop the benchmark, naming the fix (it is not ours to
        change)."""
        stale = _stale_bytecode(self.root)
        folders = [*(str(self.root / p) for p in _PACKAGES), *map(str, _installed(self.root))]
        if stale and compile_them:
            subprocess.run([str(self.python), "-m", "compileall", "-q", *folders], check=True,
                           stdout=subprocess.DEVNULL)  # fmt: skip
            stale = _stale_bytecode(self.root)
        if stale:
            raise SystemExit(
                f"{self.label}: {len(stale)} module(s) without up-to-date bytecode (e.g. "
                f"{stale[0]}): their start-up would include compiling them. Run "
                f"`.venv/bin/python -m compileall -q {' '.join(folders)}` in {self.root}."
            )

    def command(self, folder: Path, out: Path, extras: bool) -> Run:
        shutil.rmtree(out, ignore_errors=True)
        cmd = [str(self.tol_score), str(folder), "--output", str(out)]
        if extras:
            cmd += ["--report", "--plots", "--bids"]
        run, _ = _measured(cmd, f"{self.label}: tol-score on {folder.name}")
        if not (out / "trials.csv").is_file() or (out / "trials.csv").stat().st_size == 0:
            raise SystemExit(f"{self.label}: tol-score on {folder} wrote no trials.csv in {out}")
        return run

    def library(self, folder: Path) -> dict:
        cmd = [str(self.python), __file__, "--library-child", str(folder)]
        _, out = _measured(cmd, f"{self.label}: library scoring of {folder.name}")
        return json.loads(out)


def library_child(folder: str) -> None:
    """Runs in a fresh process (of either checkout): read and score a folder in-process, and
    read it with pandas in-process, pandas imported before both clocks; prints JSON."""
    import pandas as pd

    from tol_analysis.read.logs import find_logs, read_sessions
    from tol_analysis.score.scores import score_sessions

    paths = find_logs([Path(folder)])
    t0, c0 = time.perf_counter(), time.process_time()
    scores = score_sessions(log for _, log in read_sessions(paths))
    n_trials = len(scores.trials)
    t1, c1 = time.perf_counter(), time.process_time()
    rows = sum(len(pd.read_csv(p)) for p in paths)
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps({"score_s": t1 - t0, "score_cpu": c1 - c0, "trials": n_trials,
                      "pandas_s": t2 - t1, "pandas_cpu": c2 - c1, "rows": rows}))  # fmt: skip


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and p.suffix in (".csv", ".tsv")
        and "reports" not in p.parts
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def _compare_outputs(a: Path, b: Path, name: str) -> str:
    da, db = _digest(a), _digest(b)
    differ = sorted(k for k in da.keys() & db.keys() if da[k] != db[k])
    only = sorted(da.keys() ^ db.keys())
    if differ or only:
        return f"{name}: tables differ: {differ or '-'}; in one only: {only or '-'}"
    return f"{name}: {len(da)} tables byte for byte the same"


# --------------------------------------------------------------------------- the run
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Corpora are written once under --data and reused; see the module docstring.",
    )
    ap.add_argument("--data", type=Path, default=HERE / "results",
                    help="folder of the corpora and outputs (default benchmarks/results)")  # fmt: skip
    ap.add_argument("--moves", type=int, default=1_000_000,
                    help="moves in the synthetic corpus (0: skip it)")  # fmt: skip
    ap.add_argument("--sessions", type=int, nargs="*", default=[10_000],
                    help="counts of small sessions, one corpus each (default 10000)")  # fmt: skip
    ap.add_argument("--tiny", type=int, nargs="*", default=[],
                    help="counts of one-trial sessions (the smallest real ones), one corpus "
                         "each (tiny-<N>/)")  # fmt: skip
    ap.add_argument("--before", type=Path,
                    help="an older checkout (with its own .venv) measured in turns with this one")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3, help="rounds, in turns (default 3)")
    ap.add_argument("--extras", action="store_true",
                    help="tol-score also writes --report --plots --bids")  # fmt: skip
    ap.add_argument("--library", action="store_true",
                    help="also in-process figures: library scoring against in-process pandas")  # fmt: skip
    ap.add_argument("--same-bytes", action="store_true",
                    help="with --before: check both checkouts write the same tables (a "
                         "checkout from before a deliberate change of the tables differs)")  # fmt: skip
    ap.add_argument("--pandas-one-blas-thread", action="store_true",
                    help=f"also the pandas read with {_BLAS}=1, as every tol-tasks command sets "
                         "for itself (tol_tasks.blas): the yardstick without numpy's BLAS "
                         "threads spinning at its start")  # fmt: skip
    ap.add_argument("--json", type=Path, help="also write every run's figures to this file")
    ap.add_argument("--generate-only", action="store_true",
                    help="write the corpora and stop")  # fmt: skip
    ap.add_argument("--library-child", help=argparse.SUPPRESS)
    return ap


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    args = _parser().parse_args()
    if args.library_child:
        library_child(args.library_child)
        return 0
    if args.repeat < 1:
        raise SystemExit("--repeat must be at least 1")
    data = args.data.resolve()
    data.mkdir(parents=True, exist_ok=True)
    corpora = []
    if args.moves:
        corpora.append(moves_corpus(data, args.moves))
    for n in args.sessions:
        t0 = time.perf_counter()
        folder = generate_sessions(data, n)
        print(f"{folder}: ready in {time.perf_counter() - t0:.0f} s", flush=True)
        corpora.append(folder)
    for n in args.tiny:
        t0 = time.perf_counter()
        folder = generate_tiny(data, n)
        print(f"{folder}: ready in {time.perf_counter() - t0:.0f} s", flush=True)
        corpora.append(folder)
    if args.generate_only:
        return 0
    if not corpora:
        raise SystemExit("nothing to measure: give --moves or --sessions")
    checkouts = [Checkout(ROOT, "after")]
    if args.before:
        checkouts.insert(0, Checkout(args.before.resolve(), "before"))
    for c in checkouts:
        c.compiled(compile_them=c.root == ROOT)
    pandas_cmd = [str(checkouts[-1].python), "-c", _PANDAS_READ]
    print(f"load average (1, 5, 15 min) at the start: {_load()}; {_BLAS} here: "
          f"{os.environ.get(_BLAS, 'not set')}", flush=True)  # fmt: skip
    results: dict[str, dict[str, Figures]] = {}
    notes = []
    for folder in corpora:
        got = results.setdefault(folder.name, {})
        outs = {c.label: data / "out" / f"{folder.name}-{c.label}" for c in checkouts}
        for _ in range(args.repeat):
            run, printed = _measured([*pandas_cmd, str(folder)], f"pandas read of {folder.name}")
            if int(printed.strip() or 0) == 0:
                raise SystemExit(f"pandas read no row in {folder}")
            got.setdefault("pandas read", Figures()).runs.append(run)
            if args.pandas_one_blas_thread:
                run, _ = _measured([*pandas_cmd, str(folder)], f"pandas read of {folder.name}",
                                   {**os.environ, _BLAS: "1"})  # fmt: skip
                got.setdefault(f"pandas read ({_BLAS}=1)", Figures()).runs.append(run)
            for c in checkouts:
                run = c.command(folder, outs[c.label], args.extras)
                got.setdefault(f"tol-score ({c.label})", Figures()).runs.append(run)
            print(f"  {folder.name}: round done, load {_load()}", flush=True)
        if args.same_bytes and args.before:
            notes.append(_compare_outputs(outs["before"], outs["after"], folder.name))
        if args.library:
            for c in checkouts:
                lib = c.library(folder)
                notes.append(
                    f"{folder.name} in-process ({c.label}): scoring {lib['score_s']:.2f} s "
                    f"(CPU {lib['score_cpu']:.2f} s), pd.read_csv {lib['pandas_s']:.2f} s (CPU "
                    f"{lib['pandas_cpu']:.2f} s): ratio CPU "
                    f"{lib['score_cpu'] / lib['pandas_cpu']:.2f}"
                )
        for out in outs.values():
            shutil.rmtree(out, ignore_errors=True)
    print(f"\nload average (1, 5, 15 min) at the end: {_load()}")
    print(f"best of {args.repeat} rounds, in turns (pandas, "
          + ", ".join(c.label for c in checkouts) + "); peak memory: highest; "
          "load: 1-minute load average at the start of each run\n")  # fmt: skip
    head = "| corpus | process | wall s | CPU s | peak MB | CPU / pandas | wall / pandas | loads |"
    print(head)
    print("|" + " --- |" * 8)
    for corpus, got in results.items():
        base = got["pandas read"]
        for name, f in got.items():
            print(f"| {corpus} | {name} | {f.wall:.2f} | {f.cpu:.2f} | {f.peak:.0f} | "
                  f"{f.cpu / base.cpu:.2f} | {f.wall / base.wall:.2f} | {f.loads} |")  # fmt: skip
    if args.before:
        print("\n| corpus | after / before: wall | CPU | peak memory |\n| --- | --- | --- | --- |")
        for corpus, got in results.items():
            a, b = got["tol-score (after)"], got["tol-score (before)"]
            print(f"| {corpus} | {a.wall / b.wall:.2f} | {a.cpu / b.cpu:.2f} | "
                  f"{a.peak / b.peak:.2f} |")  # fmt: skip
    for note in notes:
        print(note)
    if args.json:
        args.json.write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M"),
            "checkouts": {c.label: str(c.root) for c in checkouts},
            "results": {k: {n: [r.__dict__ for r in f.runs] for n, f in v.items()}
                        for k, v in results.items()},
            "notes": notes,
        }, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

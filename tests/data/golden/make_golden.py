"""Record the reference sessions that pin the runner's and the scorer's behaviour.

Run from the repository root, with a display (or under ``xvfb-run -a``)::

    uv run python tests/data/golden/make_golden.py

It was run once at commit ab09369, before the session engine and the scorer
were rebuilt (issues 20 and 21), and its output is committed:

- ``sessions/<name>.csv`` and ``.json``: a seeded simulated session of every
  bundled protocol, of ``tests/data/copies/copies.yaml`` (yoked copy trials),
  and ``resumed``: a ``london-shallice`` session cut off as ``kill -9`` leaves
  it (its log truncated in the middle of a problem, a torn last line, the
  sidecar still ``incomplete``) and then resumed with ``tol-run --resume``;
- ``scored/default/`` and ``scored/conventions/``: every table ``tol-score``
  wrote for the sessions, the format 1 logs of ``tests/data/v1`` and the
  hand-worked log, with the default conventions and with every convention
  switched (``--same-peg-counts --violations-count --planning-ends move
  --include-practice``).

``tests/test_golden.py`` checks that today's runner writes the same event
sequence for the same seeds (event names, problems, moves, states, details;
timestamps aside) and that today's scorer reproduces every table. Do not re-make
these files with newer code: they are the reference from before the change.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SEED, SPEED = "11", "20"
PROTOCOLS = {
    "demo": "demo",
    "hanoi-adjacent": "hanoi-adjacent",
    "hanoi-classic": "hanoi-classic",
    "hanoi-generalized": "hanoi-generalized",
    "london-shallice": "london-shallice",
    "london-tol-dx": "london-tol-dx",
    "copies": str(ROOT / "tests/data/copies/copies.yaml"),
}
#: Where the resumed session is cut: after this many complete rows, plus half a line.
CUT_AFTER_ROWS = 40


#: What turns a tol-run command line into the one started: as is, here; the tests' seeded
#: sessions (tests/conftest.py) give tests.warm.warm, which plays it in a warm interpreter.
launch = list


def tol_run(*args: str) -> None:
    exe = Path(sys.executable).with_name("tol-run")
    done = subprocess.run(launch([str(exe), *args]), capture_output=True, text=True, check=False)
    if done.returncode not in (0,):
        raise SystemExit(f"tol-run {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")


def run(name: str, protocol: str, out: Path) -> tuple[Path, Path]:
    folder = out / name
    tol_run(protocol, "--simulate", "--seed", SEED, "--speed", SPEED, "--windowed",
            "--participant", f"G-{name}", "--input-timing", "polled", "--output", str(folder))  # fmt: skip
    (log,) = folder.glob("*.csv")
    return log, log.with_suffix(".json")


def keep(log: Path, side: Path, name: str) -> None:
    dest = HERE / "sessions"
    dest.mkdir(exist_ok=True)
    shutil.copyfile(log, dest / f"{name}.csv")
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta["event_log"] = f"{name}.csv"
    (dest / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def resumed(out: Path) -> tuple[Path, Path]:
    """A session cut off as kill -9 leaves it, then resumed."""
    log, side = run("cut", "london-shallice", out)
    lines = log.read_bytes().split(b"\n")
    kept = b"\n".join(lines[: CUT_AFTER_ROWS + 1]) + b"\n" + lines[CUT_AFTER_ROWS + 1][:9]
    log.write_bytes(kept)
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta.update(status="incomplete", end_time=None, rows_written=CUT_AFTER_ROWS)
    side.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    tol_run("--resume", str(log), "--simulate", "--seed", SEED, "--speed", SPEED, "--windowed",
            "--input-timing", "polled")  # fmt: skip
    return log, side


def score(out: Path, *flags: str) -> None:
    exe = Path(sys.executable).with_name("tol-score")
    inputs = [HERE / "sessions", ROOT / "tests/data/v1", ROOT / "tests/data/logs/hand-worked.csv"]
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([str(exe), *map(str, inputs), "--output", tmp, *flags],
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"tol-score failed:\n{done.stderr}")
        out.mkdir(parents=True, exist_ok=True)
        for f in sorted(Path(tmp).glob("*")):
            if f.is_file():
                shutil.copyfile(f, out / f.name)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name, protocol in PROTOCOLS.items():
            keep(*run(name, protocol, out), name)
        keep(*resumed(out), "resumed")
    score(HERE / "scored" / "default")
    score(HERE / "scored" / "conventions", "--same-peg-counts", "--violations-count",
          "--planning-ends", "move", "--include-practice")  # fmt: skip


if __name__ == "__main__":
    main()

"""The collection server under load: uploads per second, latency and memory.

Starts ``tol-web serve`` (a real process on 127.0.0.1, folder storage by
default, PostgreSQL with ``--storage postgresql``) for a built study, then
simulates participants over HTTP, all at once: each opens its own keep-alive
connection and sends its session's pieces one after another, as the page
does (each piece: ``--rows`` event-log rows and the whole sidecar, with the
protocol's text, about 8 kB), waiting about ``--think`` seconds between pieces
(0: as fast as the server answers; a participant's trial takes 10 to 30 s). Prints, per number of participants, the
uploads per second, the latency percentiles (50, 90, 99, max), refusals, and
the server's resident memory (peak and at the end), with the load average.

    uv run python benchmarks/bench_serve.py                  # 50 and 500 participants
    uv run python benchmarks/bench_serve.py --participants 50 --pieces 40 --think 0.5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve_tools import ServeProcess, postgres_server  # noqa: E402
from tests.test_web_serve import rows, sidecar  # noqa: E402
from tol_tasks.protocol_format.load import load_protocol  # noqa: E402
from tol_tasks.web import WebSettings, build_experiment  # noqa: E402


def _memory(pid: int) -> tuple[float, float]:
    """(peak, now) resident memory of a process, in MB (Linux /proc)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmHWM"].split()[0]) / 1024, int(fields["VmRSS"].split()[0]) / 1024


async def _request(conn, port, head, body):
    """Send one request on the participant's connection (opened again when the server closed
    it: an idle keep-alive connection is closed after 5 s); (status, seconds)."""
    for _ in range(3):
        if conn[0] is None:
            conn[:] = await asyncio.open_connection("127.0.0.1", port)
        reader, writer = conn
        began = time.perf_counter()
        try:
            writer.write(head + body)
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), 120)
            if not line:
                raise ConnectionResetError("closed by the server")
            status = int(line.split()[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()
            conn[:] = [None, None]
            continue
        return status, time.perf_counter() - began
    raise ConnectionError("the connection was closed three times")


async def _participant(k, port, study, token, template, args, latencies, failures, ready):
    conn = [None, None]
    rng = random.Random(k)
    attempt = f"bench{k:06d}".ljust(22, "x")
    pid = f"B{k:05d}"
    pieces = []  # made before the first request: the client's work is not timed as the server's
    for n in range(args.pieces):
        first = 1 + n * args.rows
        last = n == args.pieces - 1
        meta = dict(template, participant=pid, rows_written=first + args.rows - 1,
                    status="completed" if last else "incomplete")  # fmt: skip
        body = json.dumps({"format": 1, "attempt": attempt, "participant": pid, "session": 1,
                           "first_row": first, "rows": rows(first, args.rows, pid),
                           "sidecar": meta, "final": last}).encode()  # fmt: skip
        head = (f"POST /api/{study}/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()  # fmt: skip
        pieces.append((head, body))
    await ready.wait()
    if args.think:  # participants start at different moments, as people do
        await asyncio.sleep(rng.uniform(0, args.think))
    try:
        for head, body in pieces:
            try:
                status, took = await _request(conn, port, head, body)
            except (OSError, asyncio.TimeoutError, ValueError) as exc:
                failures.append(type(exc).__name__)
                return
            latencies.append(took)
            if status != 200:
                failures.append(status)
            if args.think:
                await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
    finally:
        if conn[1] is not None:
            conn[1].close()


async def _crowd(n, server, study, token, template, args):
    latencies: list[float] = []
    failures: list[int] = []
    peak = [0.0]

    async def watch():
        while True:
            peak[0] = max(peak[0], _memory(server.proc.pid)[1])
            await asyncio.sleep(0.2)

    ready = asyncio.Event()
    crowd = [asyncio.create_task(_participant(k, server.port, study, token, template, args, latencies,
                                              failures, ready)) for k in range(n)]  # fmt: skip
    await asyncio.sleep(0)  # each participant makes its pieces, then waits for the start
    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.1)
    began = time.perf_counter()
    ready.set()
    await asyncio.gather(*crowd)
    took = time.perf_counter() - began
    watcher.cancel()
    return latencies, failures, took, peak[0]


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s)) - 1))] * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--participants", type=int, nargs="+", default=[50, 500],
                    help="numbers of simultaneous participants, each run on a fresh server")  # fmt: skip
    ap.add_argument("--pieces", type=int, default=20, help="pieces per participant (default 20)")
    ap.add_argument("--rows", type=int, default=25, help="event-log rows per piece (default 25)")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds between a participant's pieces (each wait drawn from 0.5 "
                    "to 1.5 times it, the starts spread over it; default 0: flat out)")  # fmt: skip
    ap.add_argument("--storage", choices=["folder", "postgresql"], default="folder")
    args = ap.parse_args(argv)
    lp = load_protocol("demo")
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        tmp = Path(tmp)
        folder = tmp / "studies" / "bench"
        build_experiment("demo", folder, WebSettings(server="/"))
        info = json.loads((folder / "study.json").read_text())
        print(f"tol-web serve, {args.storage} storage; {args.pieces} pieces of {args.rows} rows "
              f"per participant, think {args.think} s; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
        print(f"{'participants':>12} {'uploads':>8} {'per s':>8} {'p50 ms':>8} {'p90 ms':>8} "
              f"{'p99 ms':>8} {'max ms':>8} {'refused':>8} {'RSS peak MB':>12} {'RSS end MB':>11}")  # fmt: skip
        for n in args.participants:
            data = tmp / f"data-{n}"
            with _storage(args.storage) as database:
                kw = {"database": database} if database else {"data": data}
                extra = ("--rate-limit", "0", "--max-upload-bytes", "4000000")
                with ServeProcess([folder], args=extra, **kw) as server:
                    template = sidecar(lp)  # the sidecar the page sends, filled in per piece
                    lat, failed, took, peak = asyncio.run(
                        _crowd(n, server, info["name"], info["token"], template, args)
                    )
                    hwm, rss = _memory(server.proc.pid)
            print(f"{n:>12} {len(lat):>8} {len(lat) / took:>8.0f} {_pct(lat, 50):>8.1f} "
                  f"{_pct(lat, 90):>8.1f} {_pct(lat, 99):>8.1f} {max(lat) * 1000:>8.1f} "
                  f"{len(failed):>8} {max(hwm, peak):>12.1f} {rss:>11.1f}")  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _storage(kind: str):
    import contextlib

    if kind == "postgresql":
        return postgres_server(fsync=True)  # as a real server: every commit on the disk
    return contextlib.nullcontext(None)


if __name__ == "__main__":
    sys.exit(main())

"""``tol-web serve`` as a real process on 127.0.0.1, and a PostgreSQL the test starts itself.

Generic helpers for the collection server's tests and its benchmark::

    with ServeProcess([study_folder], data=tmp / "data") as server:
        server.url("demo/index.html?participant=P1")
        server.kill(); server.start()   # SIGKILL, then the same server again

    with postgres_server() as url:   # initdb + postgres on a free port
        ...
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.system_tools import unavailable

TOL_WEB = str(Path(sys.executable).parent / "tol-web")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url: str, body: bytes | None = None, headers: dict | None = None,
            method: str | None = None, timeout: float = 30) -> tuple[int, dict, bytes]:  # fmt: skip
    """One HTTP request: (status, headers with lower-case names, body), whatever the status."""
    req = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


class ServeProcess:
    """``tol-web serve STUDIES --data DATA`` (or ``--database URL``) on a free port."""

    def __init__(self, studies, *, data: Path | None = None, database: str | None = None,
                 args: tuple[str, ...] = (), log: Path | None = None):  # fmt: skip
        self.port = free_port()
        self.cmd = [TOL_WEB, "serve", *map(str, studies), "--port", str(self.port), *args]
        self.cmd += ["--data", str(data)] if data is not None else ["--database", database]
        # Its output goes to a file, never to an unread pipe (which, full, would stop the server).
        self._own_log = log is None
        self.log = log or Path(tempfile.mkstemp(prefix="tol-serve-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def start(self, timeout: float = 60) -> None:
        self._close_log()
        self._out = open(self.log, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(self.cmd, stdout=self._out, stderr=self._out)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                err = Path(self.log).read_text(errors="replace")[-3000:]
                raise AssertionError(f"tol-web serve exited ({self.proc.returncode}): {err}")
            with contextlib.suppress(OSError):
                status, _, _ = request(self.url("health"), timeout=2)
                if status == 200:
                    return
            time.sleep(0.1)
        raise AssertionError("tol-web serve did not answer /health in time")

    def _close_log(self) -> None:
        out = getattr(self, "_out", None)
        if out is not None:
            out.close()
            self._out = None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self._close_log()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_log()

    def health(self) -> dict:
        return json.loads(request(self.url("health"))[2])

    def __enter__(self) -> ServeProcess:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._own_log:
            Path(self.log).unlink(missing_ok=True)


def postgres_bin() -> Path:
    """Debian's PostgreSQL server programs; the test is skipped, saying how to install them
    (failed in CI: :func:`tests.system_tools.unavailable`)."""
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / "initdb").is_file() and (base / "postgres").is_file():
            return base
    found = shutil.which("initdb")
    if found and shutil.which("postgres"):
        return Path(found).parent
    unavailable("PostgreSQL's server programs (initdb, postgres) are not installed",
                "run bash scripts/setup.sh, or apt-get install postgresql")  # fmt: skip


@contextlib.contextmanager
def postgres_server(fsync: bool = False):
    """A PostgreSQL server of the test's own (a new cluster in /tmp), on a free port; yields its URL.

    As root (CI), the server runs as Debian's ``postgres`` user (PostgreSQL refuses root),
    in a folder of its own under /tmp (pytest's folders are closed to other users).
    ``fsync`` False (the tests) skips forcing writes to the disk; a benchmark keeps it.
    """
    bin_ = postgres_bin()
    folder = Path(tempfile.mkdtemp(prefix="tol-pg-"))
    env = dict(os.environ)
    kw = {}
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: a user of its own runs it
        import pwd

        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        kw = {"user": user.pw_uid, "group": user.pw_gid}
    pgdata = folder / "data"
    subprocess.run([str(bin_ / "initdb"), "-D", str(pgdata), "-A", "trust", "-U", "tol", "--no-sync"],
                   check=True, capture_output=True, env=env, **kw)  # fmt: skip
    port = free_port()
    proc = subprocess.Popen(
        [str(bin_ / "postgres"), "-D", str(pgdata), "-p", str(port), "-k", str(folder),
         "-c", "listen_addresses=127.0.0.1", "-c", f"fsync={'on' if fsync else 'off'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, **kw,
    )  # fmt: skip
    url = f"postgresql://tol@127.0.0.1:{port}/postgres"
    try:
        import psycopg

        end = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(url, connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if time.monotonic() > end or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)

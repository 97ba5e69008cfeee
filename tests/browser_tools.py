"""A local web server and a real headless Chromium page, for tests that run web pages.

Generic (no tol-tasks code): serve a folder from 127.0.0.1 on an ephemeral
port, optionally recording POST requests, and drive Debian's
``/usr/bin/chromium`` with Playwright's Python package (never a downloaded
browser), each browser with a new empty profile::

    from tests.browser_tools import StaticServer, chromium_browser

    with StaticServer(folder) as server, chromium_browser() as browser:
        page = browser.new_page()
        page.goto(server.url("index.html"))

The pytest fixtures ``web_server_factory`` and ``chromium`` wrap the same
(import them in a test module, or list them in its ``pytestmark``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.system_tools import program

#: The flags every test browser starts with: headless, no network beyond the page's host.
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


def chromium_path() -> str:
    """Debian's Chromium; without it the test is skipped, saying so (failed in CI)."""
    return program("chromium", "chromium-browser")


class _Handler(SimpleHTTPRequestHandler):
    """Serves the folder quietly; a POST is recorded (JSON bodies parsed) and answered 200."""

    server: StaticServer._Server

    def log_message(self, format, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        self.server.posts.append({"path": self.path, "body": body, "json": parsed})
        status = self.server.post_status
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"ok" if status == 200 else b"refused")


class StaticServer:
    """A folder served on 127.0.0.1 (ephemeral port) in a background thread.

    ``posts`` lists the POST requests received (path, raw body, parsed JSON);
    ``post_status`` is the status they are answered with.
    """

    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        posts: list
        post_status: int

    def __init__(self, folder: str | Path, post_status: int = 200):
        self.folder = Path(folder)
        handler = functools.partial(_Handler, directory=str(self.folder))
        self.httpd = self._Server(("127.0.0.1", 0), handler)
        self.httpd.posts = []
        self.httpd.post_status = post_status
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def posts(self) -> list[dict]:
        return self.httpd.posts

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


@contextlib.contextmanager
def chromium_browser(**launch):
    """A headless Chromium (Debian's) driven by Playwright.

    Yields a Playwright ``Browser``. Playwright starts each browser with a
    new, empty temporary profile (its own user-data-dir) and each
    ``new_context()`` is a fresh incognito-like profile with its own storage.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(), args=list(CHROMIUM_ARGS), **launch
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def web_server_factory():
    """Start servers with ``web_server_factory(folder, post_status=200)``; all stop after the test."""
    with contextlib.ExitStack() as stack:
        yield lambda folder, **kw: stack.enter_context(StaticServer(folder, **kw))


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per test worker (tests open their own contexts and pages).

    Playwright's sync API allows one instance per thread: every test shares this one.
    """
    with chromium_browser() as browser:
        yield browser

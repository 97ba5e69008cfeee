"""``tol-web serve``: a collection server for built studies (Starlette on uvicorn).

One process serves any number of studies (:mod:`tol_tasks.web.studies`):

- ``GET /<study>/...``: the study's pages (the folder ``tol-web build`` wrote;
  ``study.json`` is not served);
- ``POST /api/<study>/upload``: a piece of a session's log
  (:mod:`tol_tasks.session_data.pieces`), with the study's token, checked and then
  stored (:mod:`tol_tasks.session_data.collect`, or PostgreSQL); answered
  ``{"rows_held": N, "complete": bool}``, or a status with
  ``{"error", "field", "fix", "rows_held"}``;
- ``GET /health``: ``{"status": "ok", ...}`` while the storage can be
  written (503 otherwise).

Limits: the size of a request (413), requests per second per client
address for uploads (a token bucket; 429 with ``Retry-After``). Cross-origin
requests are answered for the origins given (``--allow-origin``, for pages
hosted elsewhere). Each request is logged as one JSON line (time, method,
route, study, status, bytes, milliseconds): no address, participant or
attempt. Needs the ``serve`` extra (``pip install "tol-tasks[serve]"``).
"""

from __future__ import annotations

import hmac
import json
import logging
import sys
import threading
import time
from dataclasses import dataclass, field, fields

from tol_tasks import __version__
from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.pieces import UploadRefusedError, check_piece

from .studies import STUDY_FILE, Study

log = logging.getLogger("tol_tasks.web.access")


class ServeError(TolTasksError, RuntimeError):
    """The server cannot start; the message says why and how to fix it."""


def _starlette():
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ServeError(
            "tol-web serve needs Starlette and uvicorn, which are not installed. Suggested fix: "
            'pip install "tol-tasks[serve]".'
        ) from None  # fmt: skip


def _opt(help: str, many: bool = False, **kw):
    return field(metadata={"help": help, "many": many}, **kw)


@dataclass(frozen=True)
class ServeSettings:
    """How the server listens and what it allows (each field a ``tol-web serve`` option)."""

    host: str = _opt("the address to listen on (behind a reverse proxy: 127.0.0.1)",
                     default="127.0.0.1")  # fmt: skip
    port: int = _opt("the port to listen on", default=8000)
    max_upload_bytes: int = _opt("the largest request body taken (bytes)", default=1_000_000)
    rate_limit: float = _opt("uploads per second per client address (0: no limit)",
                             default=20.0)  # fmt: skip
    burst: int = _opt("uploads a client address may send at once before the rate applies",
                      default=200)  # fmt: skip
    allow_origin: tuple[str, ...] = _opt(
        "a web origin whose pages may send data here (a study hosted elsewhere), e.g. "
        "https://study.example.org; repeat for several", many=True, default=(),
    )  # fmt: skip
    trusted_proxy: tuple[str, ...] = _opt(
        "the address of a reverse proxy whose X-Forwarded-For is trusted (for the rate "
        "limit's client address); repeat for several", many=True, default=(),
    )  # fmt: skip


def serve_fields():
    """The settings with their help texts (``tol-web serve`` derives its options from them)."""
    return fields(ServeSettings)


class _Buckets:
    """Token buckets per client address: ``rate`` per second, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: int):
        self.rate = rate
        self.burst = burst
        self._b: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when a request may go; else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, then = self._b.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens >= 1:
                self._b[key] = (tokens - 1, now)
                return 0.0
            self._b[key] = (tokens, now)
            if len(self._b) > 100_000:  # forget idle clients
                self._b = {k: v for k, v in self._b.items() if now - v[1] < 60}
            return (1 - tokens) / self.rate


def _refusal(status: int, message: str, fix: str, field: str | None = None,
             headers: dict[str, str] | None = None):  # fmt: skip
    """A refused request: its status, and what was wrong and the fix as JSON."""
    from starlette.responses import JSONResponse

    body = {"error": message, "field": field, "fix": fix}
    return JSONResponse(
        body, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})}
    )


def create_app(studies: dict[str, Study], storage, settings: ServeSettings | None = None):
    """The ASGI application serving ``studies`` and storing into ``storage``."""
    _starlette()
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    settings = settings or ServeSettings()
    buckets = _Buckets(settings.rate_limit, settings.burst)

    async def upload(request):
        name = request.path_params["study"]
        study = studies.get(name)
        if study is None:
            return _refusal(404, f"no study {name!r} on this server.",
                            "use the address the study was built with (--server, --study).",
                            "study")  # fmt: skip
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            return _refusal(401, "no study token (Authorization: Bearer ...).",
                            "send the pieces the study's built page sends.", "token")  # fmt: skip
        if not hmac.compare_digest(auth[7:].encode(), study.token.encode()):
            return _refusal(403, f"not the token of study {name!r}.",
                            "rebuild the page with this study's token (tol-web build ... --server), "
                            "or send it to its own study.", "token")  # fmt: skip
        wait = buckets.take(request.client.host if request.client else "")
        if wait:
            return _refusal(429, "too many uploads from this address; try again shortly.",
                            "wait as Retry-After says (the page does).",
                            headers={"Retry-After": str(max(1, round(wait)))})  # fmt: skip
        declared = request.headers.get("content-length")
        limit = settings.max_upload_bytes
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return _refusal(413, f"the piece is {declared} bytes; this server takes at most {limit}.",
                            "send the session in smaller pieces (the page does).")  # fmt: skip
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return _refusal(413, f"the piece is over {limit} bytes, the most this server takes.",
                                "send the session in smaller pieces (the page does).")  # fmt: skip
        try:
            data = json.loads(body)
        except ValueError as exc:
            return _refusal(400, f"the body is not JSON ({exc}).", "send a piece as JSON.")
        try:
            piece = check_piece(data, protocol_sha256=study.protocol_sha256)
            got = await run_in_threadpool(storage.store, study, piece)
        except UploadRefusedError as exc:
            return JSONResponse(exc.as_json(), status_code=exc.status,
                                headers={"Cache-Control": "no-store"})  # fmt: skip
        except (OSError, TolTasksError) as exc:
            logging.getLogger("tol_tasks.web.server").error("storage failed: %s", exc)
            return _refusal(503, "the server cannot store the piece now.",
                            "try again later (the page keeps the rows and retries).",
                            headers={"Retry-After": "5"})  # fmt: skip
        return JSONResponse(got.as_json(), headers={"Cache-Control": "no-store"})

    async def health(request):
        try:
            await run_in_threadpool(storage.check)
        except (OSError, TolTasksError) as exc:
            return JSONResponse({"status": "failing", "storage": storage.kind, "error": str(exc)},
                                status_code=503)  # fmt: skip
        return JSONResponse({"status": "ok", "storage": storage.kind, "studies": len(studies),
                             "version": __version__}, headers={"Cache-Control": "no-store"})  # fmt: skip

    async def root(request):
        return PlainTextResponse("tol-web serve: a collection server for tol-tasks studies.\n")

    async def hidden(request):
        return PlainTextResponse("Not Found", status_code=404)

    routes = [
        Route("/health", health),
        Route("/api/{study}/upload", upload, methods=["POST"]),
        Route("/", root),
    ]
    for study in studies.values():
        if study.folder is not None:
            routes.append(Route(f"/{study.name}/{STUDY_FILE}", hidden))
            routes.append(
                Mount(f"/{study.name}", app=StaticFiles(directory=study.folder, html=True))
            )
    middleware = [Middleware(_AccessLog)]
    if settings.allow_origin:
        middleware.append(Middleware(
            CORSMiddleware, allow_origins=list(settings.allow_origin),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type"], max_age=600,
        ))  # fmt: skip
    return Starlette(routes=routes, middleware=middleware)


class _AccessLog:
    """One JSON line per request: no client address, no participant, no attempt."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        seen = {"status": None, "out": 0, "in": 0}

        async def counted_receive():
            message = await receive()
            seen["in"] += len(message.get("body", b""))
            return message

        async def counted_send(message):
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
            elif message["type"] == "http.response.body":
                seen["out"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, counted_receive, counted_send)
        finally:
            path = scope.get("path", "")
            parts = path.strip("/").split("/")
            if parts[0] == "api" and len(parts) >= 3:
                route, study = f"/api/{{study}}/{parts[2]}", parts[1]
            elif path in ("/", "/health"):
                route, study = path, None
            else:
                route, study = "/{study}/...", parts[0] or None
            log.info(json.dumps({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "method": scope.get("method"),
                "route": route, "study": study, "status": seen["status"], "bytes_in": seen["in"],
                "bytes_out": seen["out"], "ms": round((time.perf_counter() - began) * 1000, 2),
            }))  # fmt: skip


def run(studies: dict[str, Study], storage, settings: ServeSettings) -> None:
    """Serve until stopped (Ctrl+C or SIGTERM), on uvicorn."""
    _starlette()
    import uvicorn

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    storage.open()
    app = create_app(studies, storage, settings)
    try:
        uvicorn.run(
            app, host=settings.host, port=settings.port, access_log=False, server_header=False,
            proxy_headers=bool(settings.trusted_proxy),
            forwarded_allow_ips=",".join(settings.trusted_proxy) or None,
            timeout_graceful_shutdown=5, log_level="info",
        )  # fmt: skip
    finally:
        storage.close()

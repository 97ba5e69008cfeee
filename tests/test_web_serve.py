"""``tol-web serve``: the collection server as a real process on 127.0.0.1 (no browser).

Pieces are made here from the codebook's columns (independently of the
page); the server's answers, its data folder and what ``tol-score`` reads of
it are checked. Hostile uploads are refused with a status and a reason,
nothing is written outside the data folder and nothing is overwritten.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve_tools import ServeProcess, postgres_server, request
from tests.system_tools import extra, unavailable
from tests.web_tools import build_folder
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.session_data.eventlog import columns
from tol_tasks.web.compile import sidecar_template

extra("uvicorn", "serve", module_level=True)

ROOT = Path(__file__).resolve().parents[1]


def line(row: int, participant: str, session: int, event: str, time: float, **cells) -> str:
    values = {"row": row, "participant": participant, "session": session, "event": event,
              "time": f"{time:.6f}", **cells}  # fmt: skip
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([values.get(c, "") for c in columns()])
    return buf.getvalue()


def rows(first: int, n: int, participant="P001", session=1, t0=0.5) -> str:
    """Rows ``first`` to ``first + n - 1`` of a log: session_start (naming the demo
    protocol and its SHA-256, as the page writes them and as tol-score checks them against
    the sidecar), then pages shown."""
    sha = load_protocol("demo").sha256
    out = []
    for row in range(first, first + n):
        if row == 1:
            out.append(line(1, participant, session, "session_start", t0,
                            detail=f"protocol=demo;sha256={sha}"))  # fmt: skip
        else:
            out.append(line(row, participant, session, "page_shown", t0 + row,
                            problem_id=f"page-{row}", stamp="flip"))  # fmt: skip
    return "".join(out)


def sidecar(lp, participant="P001", session=1, rows_written=0, status="incomplete") -> dict:
    meta = sidecar_template(lp)
    meta.update(participant=participant, session=session, event_log=f"{participant}_x.csv",
                status=status, rows_written=rows_written)  # fmt: skip
    return meta


def piece(attempt="A" * 22, first=1, text="", meta=None, final=False, **kw) -> dict:
    return {"format": 1, "attempt": attempt, "participant": kw.get("participant", "P001"),
            "session": kw.get("session", 1), "first_row": first, "rows": text, "sidecar": meta,
            "final": final}  # fmt: skip


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    folder = build_folder("demo", tmp / "demo", server="/")
    return folder, json.loads((folder / "study.json").read_text())


def post(server, name, token, body, headers=None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    h = {"Content-Type": "application/json", "Authorization": f"Bearer {token}", **(headers or {})}
    status, _, out = request(server.url(f"api/{name}/upload"), data, h, "POST")
    return status, json.loads(out) if out.startswith(b"{") else out


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def test_pieces_are_appended_once_confirmed_and_scored(study, tmp_path):
    folder, info = study
    lp = load_protocol("demo")
    data = tmp_path / "data"
    with ServeProcess([folder], data=data, log=tmp_path / "serve.log") as server:
        tok, name = info["token"], info["name"]
        assert server.health()["status"] == "ok"
        assert post(server, name, tok, piece(text=rows(1, 3), meta=sidecar(lp, rows_written=3))) == (
            200, {"rows_held": 3, "complete": False})  # fmt: skip
        # The same piece again (no answer came): nothing added.
        assert post(server, name, tok, piece(text=rows(1, 3)))[1]["rows_held"] == 3
        # Overlapping rows, then new ones: only the new are appended.
        assert post(server, name, tok, piece(first=2, text=rows(2, 4)))[1]["rows_held"] == 5
        # A final piece that leaves rows out is refused, saying which are missing.
        status, body = post(server, name, tok, piece(first=6, text="", final=True,
                            meta=sidecar(lp, rows_written=7, status="completed")))  # fmt: skip
        assert status == 409
        assert body["rows_held"] == 5
        assert "counts 7 rows, the server holds 5" in body["error"]
        end = line(7, "P001", 1, "session_end", 9.0, reason="completed")
        text = rows(6, 1) + end
        final = piece(
            first=6, text=text, final=True, meta=sidecar(lp, rows_written=7, status="completed")
        )
        assert post(server, name, tok, final) == (200, {"rows_held": 7, "complete": True})
        assert post(server, name, tok, final) == (200, {"rows_held": 7, "complete": True})
        # The same participant's session started again (another browser): a new attempt.
        again = piece(attempt="B" * 22, text=rows(1, 2, t0=100.5), meta=sidecar(lp, rows_written=2))
        assert post(server, name, tok, again)[0] == 200
    logs = sorted((data / name).glob("*.csv"))
    assert len(logs) == 2
    first, second = (json.loads(p.with_suffix(".json").read_text()) for p in logs)
    assert first["event_log"] == logs[0].name
    assert first["status"] == "completed"
    assert first["collected"]["attempt_id"] == "A" * 22
    assert (first["session_attempt"], second["session_attempt"]) == (1, 2)
    assert second["earlier_attempts"] == [logs[0].name]
    got = logs[0].read_text().splitlines()
    assert [r.split(",")[0] for r in got[1:]] == [str(k) for k in range(1, 8)]  # once each
    assert got[0] == ",".join(columns())
    # The access log: one JSON line per request, no participant, no attempt, no address.
    access = [json.loads(x) for x in (tmp_path / "serve.log").read_text().splitlines()
              if x.startswith("{")]  # fmt: skip
    assert {a["route"] for a in access} >= {"/health", "/api/{study}/upload"}
    text = (tmp_path / "serve.log").read_text()
    assert "P001" not in text
    assert "A" * 22 not in text
    assert "127.0.0.1" not in "".join(x for x in text.splitlines() if x.startswith("{"))
    done = subprocess.run([str(Path(sys.executable).parent / "tol-score"), str(data / name),
                           "--verify"], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PROBLEM" not in done.stdout
    # one session identity: the link opened again is a restart, the latest attempt scored
    assert "attempt 1 of participant 'P001' session 1, task demo" in done.stdout
    assert f"started again on purpose as {logs[1]} (attempt 2), which is scored" in done.stdout


def test_hostile_uploads_are_refused_with_a_status_and_a_reason(study, tmp_path):
    folder, info = study
    lp = load_protocol("demo")
    data = tmp_path / "data"
    outside = tmp_path / "outside"
    outside.mkdir()
    name, tok = info["name"], info["token"]
    args = ("--max-upload-bytes", "20000", "--rate-limit", "0")
    with ServeProcess([folder], data=data, args=args) as server:
        ok = piece(text=rows(1, 2), meta=sidecar(lp, rows_written=2))
        assert post(server, name, tok, ok)[0] == 200
        before = files_under(data)
        other = piece(attempt="C" * 22, participant="P002", text=rows(1, 1, "P002"))
        cases = [
            ("wrong token", post(server, name, "x" * 32, ok), 403, "not the token"),
            (
                "no token",
                request(
                    server.url(f"api/{name}/upload"),
                    json.dumps(ok).encode(),
                    {"Content-Type": "application/json"},
                    "POST",
                )[::2],
                401,
                b"no study token",
            ),
            ("no such study", post(server, "nope", tok, ok), 404, "no study 'nope'"),
            (
                "oversized",
                post(server, name, tok, b"{" + b" " * 30000 + b"}"),
                413,
                "at most 20000",
            ),
            ("not JSON", post(server, name, tok, b"{not json"), 400, "not JSON"),
            (
                "malformed CSV",
                post(server, name, tok, piece(first=3, text="3,P001,1,x\n")),
                422,
                "has 4 cells",
            ),
            (
                "a bad cell",
                post(
                    server,
                    name,
                    tok,
                    piece(first=3, text=rows(3, 1).replace("page_shown", "explode")),
                ),
                422,
                "column 'event' holds 'explode'",
            ),
            (
                "rows of another session",
                post(server, name, tok, piece(first=3, text=rows(3, 1, participant="P009"))),
                422,
                "belongs to participant 'P009'",
            ),
            (
                "another session's attempt",
                post(server, name, tok, dict(other, attempt="A" * 22)),
                409,
                "is participant 'P001'",
            ),
            (
                "path-like participant",
                post(server, name, tok, piece(participant="../../etc", text="")),
                422,
                "cannot name a participant",
            ),
            (
                "path-like attempt",
                post(server, name, tok, piece(attempt="../../../../tmp/x" * 2)),
                422,
                "not a session attempt id",
            ),
            (
                "a replayed piece that differs",
                post(server, name, tok, piece(text=rows(1, 2).replace("page-2", "page-X"))),
                409,
                "row 2: differs",
            ),
            (
                "a gap",
                post(server, name, tok, piece(first=9, text=rows(9, 1))),
                409,
                "rows 3 to 8 are missing",
            ),
            (
                "a sidecar of another protocol",
                post(
                    server,
                    name,
                    tok,
                    piece(
                        first=3,
                        text="",
                        meta=dict(
                            sidecar(lp), protocol=dict(sidecar(lp)["protocol"], sha256="0" * 64)
                        ),
                    ),
                ),
                422,
                "not the protocol this study was built from",
            ),
            (
                "an unknown field",
                post(server, name, tok, dict(ok, path="/etc/passwd")),
                422,
                "not a field of a piece",
            ),
        ]
        for what, (status, body), want, reason in cases:
            assert status == want, (what, status, body)
            text = body["error"] if isinstance(body, dict) else body.decode()
            reason = reason if isinstance(reason, str) else reason.decode()
            assert reason in text, (what, text)
            if isinstance(body, dict):
                assert body["fix"], what
        assert files_under(data) == before  # nothing changed, nothing overwritten
        assert list(outside.iterdir()) == []
        assert not any(p.name.startswith("..") for p in data.rglob("*"))
        # study.json (the token) is not served; the study's page is.
        assert request(server.url(f"{name}/study.json"))[0] == 404
        assert request(server.url(f"{name}/index.html"))[0] == 200


def test_uploads_beyond_the_rate_are_answered_429_with_retry_after(study, tmp_path):
    folder, info = study
    with ServeProcess(
        [folder], data=tmp_path / "d", args=("--rate-limit", "1", "--burst", "3")
    ) as s:
        got = [post(s, info["name"], info["token"], piece(text=""))[0] for _ in range(6)]
        assert got[:3] == [200, 200, 200]
        assert 429 in got[3:]
        status, headers, _ = request(s.url(f"api/{info['name']}/upload"), b"{}",
                                     {"Authorization": f"Bearer {info['token']}"}, "POST")  # fmt: skip
        assert status == 429
        assert int(headers["retry-after"]) >= 1


def test_cross_origin_pages_are_answered_for_the_origins_given(study, tmp_path):
    folder, info = study
    origin = "https://study.example.org"
    with ServeProcess([folder], data=tmp_path / "d", args=("--allow-origin", origin)) as s:
        ask = {"Origin": origin, "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "authorization,content-type"}  # fmt: skip
        status, headers, _ = request(s.url(f"api/{info['name']}/upload"), None, ask, "OPTIONS")
        assert status == 200
        assert headers["access-control-allow-origin"] == origin
        assert "authorization" in headers["access-control-allow-headers"].lower()
        status, headers, _ = request(s.url(f"api/{info['name']}/upload"), None,
                                     dict(ask, Origin="https://evil.example"), "OPTIONS")  # fmt: skip
        assert status == 400
        assert "access-control-allow-origin" not in {k.lower() for k in headers}


def test_several_studies_on_one_server_keep_their_own_data_and_tokens(tmp_path):
    a = build_folder("demo", tmp_path / "studies" / "alpha", server="/")
    b = build_folder("london-shallice", tmp_path / "studies" / "beta", server="/")
    ta = json.loads((a / "study.json").read_text())["token"]
    tb = json.loads((b / "study.json").read_text())["token"]
    with ServeProcess([tmp_path / "studies"], data=tmp_path / "data") as s:
        assert s.health()["studies"] == 2
        assert post(s, "alpha", ta, piece(text=rows(1, 1)))[0] == 200
        assert post(s, "beta", ta, piece(text=rows(1, 1)))[0] == 403  # alpha's token
        assert post(s, "beta", tb, piece(text=rows(1, 1)))[0] == 200
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [".tol-serve", "alpha", "beta"]
    # A rebuild into the same folder keeps the study's token (pages already out keep working).
    from tol_tasks.web import WebSettings, build_experiment

    build_experiment("demo", a, WebSettings(server="/"), force=True)
    assert json.loads((a / "study.json").read_text())["token"] == ta


def test_a_server_killed_mid_write_keeps_every_whole_row(study, tmp_path):
    """SIGKILL between pieces and a torn last line (a crash mid-write): rows once, never cut."""
    folder, info = study
    data = tmp_path / "data"
    server = ServeProcess([folder], data=data)
    server.start()
    try:
        assert (
            post(server, info["name"], info["token"], piece(text=rows(1, 4)))[1]["rows_held"] == 4
        )
        server.kill()
        (log,) = (data / info["name"]).glob("*.csv")
        with open(log, "ab") as f:
            f.write(rows(5, 1).encode()[:20])  # what a crash mid-write could leave
        server.start()
        status, body = post(server, info["name"], info["token"], piece(first=3, text=rows(3, 4)))
        assert (status, body["rows_held"]) == (200, 6)
    finally:
        server.stop()
    got = log.read_text().splitlines()[1:]
    assert [r.split(",")[0] for r in got] == ["1", "2", "3", "4", "5", "6"]
    assert got == rows(1, 6).splitlines()


def test_postgresql_storage_answers_the_same_and_exports_the_same_folder(study, tmp_path):
    extra("psycopg", "postgres")
    folder, info = study
    lp = load_protocol("demo")
    name, tok = info["name"], info["token"]
    end = line(4, "P001", 1, "session_end", 9.0, reason="completed")
    final = piece(first=1, text=rows(1, 3) + end, final=True,
                  meta=sidecar(lp, rows_written=4, status="completed"))  # fmt: skip
    with postgres_server() as url:
        with ServeProcess([folder], database=url) as s:
            assert s.health()["storage"] == "postgresql"
            assert post(s, name, tok, piece(text=rows(1, 2)))[1]["rows_held"] == 2
            assert post(s, name, tok, piece(text=rows(1, 1)))[1]["rows_held"] == 2  # replayed
            status, body = post(s, name, tok, piece(text=rows(1, 2).replace("page-2", "X")))
            assert (status, body["rows_held"]) == (409, 2)
            s.kill()  # SIGKILL: the database keeps what was committed
            s.start()
            assert post(s, name, tok, final) == (200, {"rows_held": 4, "complete": True})
            other = piece(attempt="D" * 22, participant="P002", text=rows(1, 1, "P002"))
            assert post(s, name, tok, other)[0] == 200
            assert post(s, name, tok, dict(other, participant="P001"))[0] == 422
        export = [str(Path(sys.executable).parent / "tol-web"), "export", "--database", url,
                  "--data", str(tmp_path / "out")]  # fmt: skip
        done = subprocess.run(export, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "2 session(s) exported" in done.stdout
        first = files_under(tmp_path / "out")
        assert subprocess.run(export, capture_output=True).returncode == 0  # again: no change
        assert files_under(tmp_path / "out") == first
        # The same pieces through the folder storage give the same logs.
        with ServeProcess([folder], data=tmp_path / "folder") as s:
            post(s, name, tok, final)
        a = next((tmp_path / "out" / name).glob("P001_*.csv")).read_bytes()
        b = next((tmp_path / "folder" / name).glob("P001_*.csv")).read_bytes()
        assert a == b
    side = json.loads(next((tmp_path / "out" / name).glob("P001_*.json")).read_text())
    assert (side["status"], side["collected"]["storage"]) == ("completed", "postgresql")


def test_the_documented_nginx_configuration_proxies_with_tls(study, tmp_path):
    """docs/deploy/nginx.conf for real: Debian's nginx, a self-signed certificate, HTTPS."""
    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )
    if nginx is None:
        unavailable("nginx is not installed",
                    "run bash scripts/setup.sh, or apt-get install nginx-light")  # fmt: skip
    import ssl

    from tests.serve_tools import free_port

    folder, info = study
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=tol.example.org", "-keyout", str(tmp_path / "key.pem"),
                    "-out", str(tmp_path / "cert.pem")], check=True, capture_output=True)  # fmt: skip
    with ServeProcess([folder], data=tmp_path / "data", args=("--trusted-proxy", "127.0.0.1")) as s:
        port = free_port()
        site = (ROOT / "docs/deploy/nginx.conf").read_text()
        for old, new in [
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{port} ssl http2;"),
            ("listen [::]:443 ssl http2;", ""),
            ("/etc/letsencrypt/live/tol.example.org/fullchain.pem", str(tmp_path / "cert.pem")),
            ("/etc/letsencrypt/live/tol.example.org/privkey.pem", str(tmp_path / "key.pem")),
            ("127.0.0.1:8000", f"127.0.0.1:{s.port}"),
        ]:
            assert old in site, old
            site = site.replace(old, new)
        site = site.split("# --- the plain-HTTP server")[0]  # port 80 needs no test of its own
        conf = tmp_path / "nginx.conf"
        conf.write_text(f"""user root;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log {tmp_path}/access.log;
  client_body_temp_path {tmp_path}/body;
  proxy_temp_path {tmp_path}/proxy;
  {site}
}}
""")
        assert subprocess.run([nginx, "-t", "-c", str(conf)], capture_output=True).returncode == 0
        proc = subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"])
        try:
            ctx = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
            ctx.check_hostname = False
            import time
            import urllib.request

            body = json.dumps(piece(text=rows(1, 2))).encode()
            req = urllib.request.Request(f"https://127.0.0.1:{port}/api/{info['name']}/upload",
                                         body, {"Authorization": f"Bearer {info['token']}",
                                                "Content-Type": "application/json",
                                                "Host": "tol.example.org"})  # fmt: skip
            for _ in range(50):
                try:
                    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
                        answer = json.loads(r.read())
                        hsts = r.headers.get("Strict-Transport-Security")
                    break
                except OSError:
                    time.sleep(0.2)
            assert answer["rows_held"] == 2
            assert hsts
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/{info['name']}/index.html",
                                        context=ctx, timeout=10) as r:  # fmt: skip
                assert b"TolTasks.startExperiment" in r.read()
        finally:
            proc.terminate()
            proc.wait(timeout=20)

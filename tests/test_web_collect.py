"""Online collection end to end: built pages in real headless Chromium, ``tol-web serve`` as a real process.

A participant (:class:`tests.web_tools.Participant`: moves from an
independent breadth-first search, real mouse input) plays a study whose
data go to the collection server; what the server holds is read from its
data folder and scored by ``tol-score``. Two tabs of one session, storage
filled to its quota before and during a session, a server down at the end,
the pages' contrast in every bundled language, and JATOS (a stand-in that
records the jatos.js calls, and the archive checked against the layout
JATOS's importer reads) are covered here.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.serve_tools import ServeProcess
from tests.system_tools import extra
from tests.web_tools import LETTERS, Participant, build_folder
from tol_tasks.importers.cli import main as import_main

extra("uvicorn", "serve", module_level=True)

MINI = """format: 1
name: mini
description: A short Tower of Hanoi check.
task: {type: hanoi, disks: 2}
timing: {feedback_duration: 0.2, inter_trial_interval: 0.2}
blocks:
  - name: test
    problems:
      - {id: a, start: AA, goal: CC}
      - {id: b, start: CC, goal: AA}
      - {id: c, start: AA, goal: BB}
"""


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def served_logs(data: Path, study: str) -> list[Path]:
    return sorted((data / study).glob("*.csv")) if (data / study).is_dir() else []


def verify(folder: Path) -> str:
    done = subprocess.run([str(Path(sys.executable).parent / "tol-score"), str(folder), "--verify"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PROBLEM" not in done.stdout, done.stdout
    return done.stdout


def moves_on_server(log: Path) -> list[tuple[int, str, str]]:
    """(trial, from, to) of every placement in a log the server holds."""
    return [
        (int(r["trial"]), r["from_peg"], r["to_peg"]) for r in _rows(log) if r["event"] == "place"
    ]


def moves_played(player: Participant) -> list[tuple[int, str, str]]:
    return [(p.trial, LETTERS[a], LETTERS[b]) for p in player.played for a, b in p.moves]


def check_rows_once(log: Path) -> list[dict]:
    rows = _rows(log)
    assert [int(r["row"]) for r in rows] == list(range(1, len(rows) + 1))
    return rows


@pytest.fixture
def mini(tmp_path):
    path = tmp_path / "mini.yaml"
    path.write_text(MINI)
    return path


def study_server(tmp_path, protocol, **build):
    folder = build_folder(protocol, tmp_path / "studies" / "mini", server="/", **build)
    info = json.loads((folder / "study.json").read_text())
    return ServeProcess([folder], data=tmp_path / "data", log=tmp_path / "serve.log"), info


def open_page(browser, url, context=None):
    ctx = context or browser.new_context(viewport={"width": 1200, "height": 860},
                                         accept_downloads=True)  # fmt: skip
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return ctx, page, errors


def wait_saved(page, timeout=60000) -> str:
    page.wait_for_function(
        "['server', 'jatos', 'download', 'failed', 'delivered'].includes("
        "document.documentElement.dataset.tolSaved)", timeout=timeout,
    )  # fmt: skip
    return page.evaluate("document.documentElement.dataset.tolSaved")


def test_a_session_is_saved_as_it_goes_and_confirmed_before_thanks(tmp_path, chromium, mini):
    server, info = study_server(tmp_path, mini)
    data = tmp_path / "data"
    seen_during: list[int] = []

    def look(record, k):
        # Before the first move of problem b: problem a's rows are on the server already.
        if record.problem_id == "b" and k == 0:
            end = time.monotonic() + 20
            while time.monotonic() < end:
                logs = served_logs(data, info["name"])
                ends = [r for r in _rows(logs[0]) if r["event"] == "trial_end"] if logs else []
                if ends:
                    seen_during.append(len(ends))
                    break
                time.sleep(0.1)
        return False

    with server:
        url = server.url("mini/index.html?participant=P001&PROLIFIC_PID=x")
        ctx, page, errors = open_page(chromium, url)
        player = Participant(page, stop=look)
        assert player.play() == "completed"
        assert wait_saved(page) == "server"
        assert "Your answers are saved" in page.inner_text("body")
        assert seen_during == [1]
        # Delivered: the browser keeps only a marker of the finished session.
        kept = page.evaluate("Object.keys(localStorage)")
        assert all("/row/" not in k for k in kept)
        # The link opened again: already finished and saved, never a second run.
        again = ctx.new_page()
        again.goto(url)
        again.wait_for_function("document.documentElement.dataset.tolSaved === 'delivered'")
        assert "already finished, and its answers are saved" in again.inner_text("body")
        assert again.locator("[data-start]").count() == 0
        assert not errors
    (log,) = served_logs(data, info["name"])
    rows = check_rows_once(log)
    assert moves_on_server(log) == moves_played(player)
    side = json.loads(log.with_suffix(".json").read_text())
    assert (side["status"], side["rows_written"]) == ("completed", len(rows))
    assert side["delivery"]["method"] == "server"
    assert side["delivery"]["attempt_id"] == side["collected"]["attempt_id"]
    assert side["rows_not_stored"] == 0
    assert side["url_parameters"]["PROLIFIC_PID"] == "x"
    verify(data / info["name"])


@pytest.mark.slow
@pytest.mark.parametrize("then", ["retry", "reopen"])
def test_a_server_down_at_the_end_tells_the_participant_and_the_data_still_arrive(
    tmp_path, chromium, mini, then
):
    """The server goes down in the last problem: the page says what to do; "Try again" once
    it is back delivers, and so does opening the link again after closing the tab."""
    server, info = study_server(tmp_path, mini)
    data = tmp_path / "data"

    def down(record, k):
        if record.problem_id == "c" and k == 1:
            server.kill()  # the server goes down during the last problem
        return False

    server.start()
    try:
        url = server.url("mini/index.html?participant=P002")
        ctx, page, _ = open_page(chromium, url)
        player = Participant(page, stop=down)
        assert player.play(timeout=400) == "completed"
        assert wait_saved(page, timeout=300000) == "failed"
        body = page.inner_text("body")
        assert "could not be saved" in body
        assert "Try again" in body
        assert page.locator("a.tol-download").count() == 2
        assert served_logs(data, info["name"])  # what came before the server went down
        server.start()  # back up
        if then == "retry":
            page.click("button.tol-retry")
        else:
            page.close()
            page = ctx.new_page()
            page.goto(url)
        assert wait_saved(page, timeout=120000) == "server"
        assert "Your answers are saved" in page.inner_text("body")
    finally:
        server.stop()
    (log,) = served_logs(data, info["name"])
    check_rows_once(log)
    assert moves_on_server(log) == moves_played(player)
    assert json.loads(log.with_suffix(".json").read_text())["status"] == "completed"
    verify(data / info["name"])


def test_a_second_tab_of_one_session_says_so_and_does_not_run(tmp_path, chromium, mini):
    server, info = study_server(tmp_path, mini)
    with server:
        url = server.url("mini/index.html?participant=P003")
        ctx, first, _ = open_page(chromium, url)
        first.wait_for_selector("[data-start]")
        second = ctx.new_page()  # the same browser: the link opened twice
        second.goto(url)
        second.wait_for_function("document.documentElement.dataset.tolStatus === 'elsewhere'")
        assert "already open in another tab" in second.inner_text("body")
        assert second.locator("[data-start]").count() == 0
        player = Participant(first)
        assert player.play() == "completed"
        assert wait_saved(first) == "server"
        kept = second.evaluate("Object.keys(localStorage).filter(k => k.includes('/row/'))")
        assert kept == []
    (log,) = served_logs(tmp_path / "data", info["name"])
    check_rows_once(log)
    assert moves_on_server(log) == moves_played(player)


FILL = """(limit) => {
  // Fill this origin's localStorage to its quota with another site's data.
  const chunk = "x".repeat(256 * 1024);
  let n = 0, size = chunk.length;
  while (size >= 16) {
    try { localStorage.setItem(`other-site/${n++}`, chunk.slice(0, size)); }
    catch (e) { size = Math.floor(size / 2); }
  }
  return n;
}"""


@pytest.mark.parametrize("when", [pytest.param("before", marks=pytest.mark.slow), "during"])
def test_storage_full_is_never_silent_and_every_move_reaches_the_server(
    tmp_path, chromium, mini, when
):
    server, info = study_server(tmp_path, mini)

    def fill(record, k):
        if when == "during" and record.problem_id == "b" and k == 1:
            page.evaluate(FILL)
        return False

    with server:
        url = server.url("mini/index.html?participant=P004")
        _ctx, page, errors = open_page(chromium, "about:blank")
        page.goto(server.url("health"))  # the study's origin, to fill its storage
        if when == "before":
            page.evaluate(FILL)
        page.goto(url)
        player = Participant(page, stop=fill)
        assert player.play() == "completed"
        notice = page.locator("[data-notice=storage]")
        assert notice.count() == 1
        assert "cannot keep a copy of your answers" in notice.inner_text()
        assert wait_saved(page) == "server"
        assert not errors
    (log,) = served_logs(tmp_path / "data", info["name"])
    rows = check_rows_once(log)
    assert moves_on_server(log) == moves_played(player)
    side = json.loads(log.with_suffix(".json").read_text())
    assert side["storage_error"].startswith("QuotaExceededError")
    assert 0 <= side["rows_not_stored"] <= len(rows)
    if when == "before":  # full from the start: the first rows had nowhere to go
        assert side["rows_not_stored"] > 0
    # (filled during the session, the rows the server already held are removed from storage
    # to make room: when the server's answer comes before the next move, which a loaded
    # machine allows, that move's row is stored and none is missing: 0 then, not a fault)
    verify(tmp_path / "data" / info["name"])


# ----------------------------------------------------------------------------- contrast
def _luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg) -> float:
    """WCAG 2.x contrast ratio of two sRGB colours (0-255)."""
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


TEXTS = """() => {
  const rgb = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return m; };
  const back = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  const all = document.querySelectorAll(".tol-screen *, .tol-screen, .tol-banner, .tol-banner *, .tol-stage .tol-label");
  for (const el of all) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    const px = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    out.push({ text: el.textContent.trim().slice(0, 40), fg: rgb(s.color).slice(0, 3), bg: back(el),
               large: px >= 24 || (bold && px >= 18.66) });
  }
  return out;
}"""


def check_contrast(page, where: str) -> int:
    texts = page.evaluate(TEXTS)
    assert texts, where
    for t in texts:
        need = 3.0 if t["large"] else 4.5
        ratio = contrast(t["fg"], t["bg"])
        assert ratio >= need, f"{where}: {t['text']!r} {t['fg']} on {t['bg']}: {ratio:.2f} < {need}"
    return len(texts)


@pytest.mark.parametrize(
    "language", ["en", *(pytest.param(x, marks=pytest.mark.slow) for x in ("fr", "de", "es"))]
)
def test_every_page_and_message_is_readable_in_every_bundled_language(
    tmp_path, chromium, mini, language
):
    """WCAG AA: the id form (with the task's title in the language), the start, the task's
    messages, the pilot notice, the end page, a failed delivery and the second-tab page."""
    server, _info = study_server(tmp_path, mini)
    with server:
        ctx, page, _ = open_page(chromium, server.url(f"mini/index.html?lang={language}"))
        page.wait_for_selector("#tol-field-participant")
        title = page.inner_text("h1")
        assert title == {"en": "Tower of Hanoi", "fr": "Tour de Hanoï", "de": "Turm von Hanoi",
                         "es": "Torre de Hanói"}[language]  # fmt: skip
        assert page.evaluate("document.documentElement.lang") == language
        check_contrast(page, f"{language} id form")
        page.fill("#tol-field-participant", "../x")
        page.click("form button")
        assert page.inner_text(".tol-form-error")
        check_contrast(page, f"{language} id form with its error")
        page.fill("#tol-field-participant", f"C-{language}")
        page.click("form button")
        page.wait_for_selector("[data-start]")
        check_contrast(page, f"{language} start")
        second = ctx.new_page()
        second.goto(server.url(f"mini/index.html?lang={language}&participant=C-{language}"))
        second.wait_for_function("document.documentElement.dataset.tolStatus === 'elsewhere'")
        check_contrast(second, f"{language} second tab")
        second.close()
        player = Participant(page)
        assert player.play() == "completed"
        wait_saved(page)
        check_contrast(page, f"{language} end page")
    # The pilot page, its notice, and a delivery that fails (a page whose token the server refuses).
    pilot = build_folder(mini, tmp_path / "pilot", download=True)
    refused = build_folder(mini, tmp_path / "s2" / "mini", server="/")
    page_file = refused / "index.html"
    token = json.loads((refused / "study.json").read_text())["token"]
    page_file.write_text(page_file.read_text().replace(token, "not-the-token-of-this-study"))
    with ServeProcess([refused], data=tmp_path / "d2") as s2:
        ctx, page, _ = open_page(
            chromium, s2.url(f"mini/index.html?lang={language}&participant=F1")
        )
        Participant(page).play()
        assert wait_saved(page) == "failed"
        assert page.locator("button.tol-retry").count() == 1
        check_contrast(page, f"{language} failed delivery")
    from tests.browser_tools import StaticServer

    with StaticServer(pilot) as static:
        ctx, page, _ = open_page(chromium, static.url(f"index.html?lang={language}"))
        page.wait_for_selector("[data-notice=pilot]")
        check_contrast(page, f"{language} pilot notice")


@pytest.mark.parametrize("name", ["demo", "london-shallice", "hanoi-classic", "london-tol-dx",
                                  "hanoi-adjacent", "hanoi-generalized"])  # fmt: skip
def test_the_task_texts_of_every_bundled_protocol_are_readable(name):
    """Messages, feedback and labels on the stage: the protocol's text colour on its background."""
    from tol_tasks.protocol_format.load import load_protocol

    display = load_protocol(name).model.display
    fg, bg = (_hex(display.text_color), _hex(display.background))
    assert contrast(fg, bg) >= 4.5


def _hex(colour: str) -> tuple[int, int, int]:
    text = colour.lstrip("#")
    assert len(text) == 6, colour  # the bundled protocols give hex codes
    return tuple(int(text[i : i + 2], 16) for i in (0, 2, 4))


# ----------------------------------------------------------------------------- JATOS
JATOS_STAND_IN = """
window.jatosCalls = [];
window.jatos = {
  version: "3.10.4",
  urlQueryParameters: Object.fromEntries(new URLSearchParams(location.search)),
  workerId: "4711",
  onLoad: (f) => setTimeout(f, 10),
  appendResultData: (data) => { jatosCalls.push(["append", String(data)]); return Promise.resolve(); },
  endStudy: () => jatosCalls.push(["end"]),
  endStudyAndRedirect: (url) => jatosCalls.push(["endRedirect", url]),
  batchSession: {
    data: JSON.parse(localStorage.getItem("jatos-batch-stand-in") || "{}"),
    get(name) { return this.data[name]; },
    set(name, value) { jatosCalls.push(["batch", name, value]); this.data[name] = value;
      localStorage.setItem("jatos-batch-stand-in", JSON.stringify(this.data)); return Promise.resolve(); },
  },
};
"""


@pytest.mark.slow
def test_a_jatos_study_archive_and_its_results_back_into_logs(tmp_path, chromium, mini):
    """JATOS cannot run here: the archive is checked against the layout JATOS's importer reads
    (ImportExportService, StudyDeserializer), the page's jatos.js calls against a stand-in."""
    protocol = tmp_path / "cb.yaml"
    protocol.write_text(MINI.replace("blocks:", "counterbalance: {by: participant}\nblocks:")
                        .replace("      - {id: c, start: AA, goal: BB}\n",
                                 "  - name: more\n    problems:\n      - {id: c, start: AA, goal: BB}\n"))  # fmt: skip
    site = build_folder(protocol, tmp_path / "jatos-study", jatos=True,
                        participant_param="PROLIFIC_PID")  # fmt: skip
    archive = tmp_path / "jatos-study.jzip"
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        jas = [n for n in names if "/" not in n and n.endswith(".jas")]
        dirs = {n.split("/")[0] for n in names if "/" in n}
        assert len(jas) == 1
        assert len(dirs) == 1
        study = json.loads(z.read(jas[0]))
        (assets,) = dirs
        assert {f"{assets}/index.html", f"{assets}/tol-tasks.js", f"{assets}/protocol.json"} <= set(
            names
        )
    assert int(study["version"]) == 3  # StudyDeserializer: serial version 3
    data = study["data"]
    assert data["dirName"] == assets
    import re

    assert not re.search(r"[\s*?\"\\/,`<>|:~!§$%&^°]", assets)  # IOUtils.checkFilename
    assert assets not in {
        "jatos",
        "publix",
        "public",
        "assets",
        "study_assets_root",
        "study_assets",
    }
    (component,) = data["componentList"]
    assert re.fullmatch(r"[\w\d_-][\w\d/_-]*\.[\w\d_-]+", component["htmlFilePath"])
    assert component["title"].strip()
    assert len(data["title"]) <= 255
    (batch,) = data["batchList"]
    assert set(batch["allowedWorkerTypes"]) <= {"Jatos", "PersonalSingle", "PersonalMultiple",
                                                "GeneralSingle", "GeneralMultiple", "MTurk",
                                                "MTurkSandbox"}  # fmt: skip
    assert '<script src="jatos.js"></script>' in (site / "index.html").read_text()
    # Two participants in one batch: forms assigned across participants by the batch session.
    from tests.browser_tools import StaticServer

    exported = []
    with StaticServer(site) as static:
        ctx = chromium.new_context(viewport={"width": 1200, "height": 860})
        ctx.add_init_script(JATOS_STAND_IN)
        for pid in ("PRO-1", "PRO-2"):
            page = ctx.new_page()
            page.goto(static.url(f"index.html?PROLIFIC_PID={pid}"))
            player = Participant(page)
            assert player.play() == "completed"
            assert wait_saved(page) == "jatos"
            calls = page.evaluate("window.jatosCalls")
            assert calls[-1] == ["end"]
            appended = [c[1] for c in calls if c[0] == "append"]
            assert all(a.startswith('{"tol_tasks":') and a.endswith("\n") for a in appended)
            exported.append(("".join(appended), player))
        batch_calls = [c for c in page.evaluate("window.jatosCalls") if c[0] == "batch"]
        assert [c[2] for c in batch_calls] == [2]  # the second participant took the second form
    # JATOS's results archive: study_result_<id>/comp-result_<id>/data.txt (ResultStreamer).
    results = tmp_path / "jatos_results.jrzip"
    with zipfile.ZipFile(results, "w") as z:
        for k, (text, _) in enumerate(exported, start=1):
            z.writestr(f"study_result_{k}/comp-result_{10 + k}/data.txt", text + '{"other": 1}\n')
        z.writestr("metadata.json", "{}")
    out = tmp_path / "logs"
    assert import_main([str(results), "--output", str(out)]) == 0
    logs = sorted(out.glob("PRO-*.csv"))
    assert len(logs) == 2
    forms = []
    for log, (_, player) in zip(logs, exported, strict=True):
        check_rows_once(log)
        assert moves_on_server(log) == moves_played(player)
        side = json.loads(log.with_suffix(".json").read_text())
        forms.append(side["counterbalance"]["form"])
        assert side["collected"]["by"] == "tol-import jatos"
    assert len(set(forms)) == 2
    verify(out)
    # The same export again: nothing new; the result data as text reads the same.
    before = {p.name: p.read_bytes() for p in out.glob("*.csv")}
    assert import_main([str(results), "--output", str(out)]) == 0
    assert {p.name: p.read_bytes() for p in out.glob("*.csv")} == before
    text = tmp_path / "result_data.txt"
    text.write_text("".join(t for t, _ in exported))
    assert import_main([str(text), "--format", "jatos", "--output", str(tmp_path / "t")]) == 0
    assert sorted(p.read_bytes() for p in (tmp_path / "t").glob("*.csv")) == sorted(before.values())


def test_tol_import_jatos_refuses_a_row_sent_twice_with_other_contents(tmp_path, capsys):
    piece = {"format": 1, "attempt": "Z" * 22, "participant": "J1", "session": 1, "first_row": 1,
             "rows": "", "sidecar": None, "final": False}  # fmt: skip
    from tests.test_web_serve import rows

    a = dict(piece, rows=rows(1, 2, participant="J1"))
    b = dict(piece, rows=rows(1, 2, participant="J1").replace("page-2", "page-9"))
    results = tmp_path / "data.txt"
    results.write_text("".join(json.dumps({"tol_tasks": p}) + "\n" for p in (a, a, b)))
    assert import_main([str(results), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{results}: line 3:" in err
    assert "row 2: differs" in err


def test_tol_import_jatos_says_what_an_export_lacks_in_its_own_terms(tmp_path, capsys):
    # The collection server's answers to a page (rows it holds, rows to send) said of an
    # export: a result left out (a gap), a piece that is not as the page wrote it (its
    # sidecar not an object), each with one fix.
    piece = {"format": 1, "attempt": "G" * 22, "participant": "J2", "session": 1,
             "first_row": 4, "rows": "", "sidecar": None, "final": False}  # fmt: skip
    from tests.test_web_serve import rows

    gap = tmp_path / "gap.txt"
    gap.write_text(json.dumps({"tol_tasks": dict(piece, rows=rows(4, 2, participant="J2"))}))
    assert import_main([str(gap), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{gap}: line 1: first_row=4: the lines before it hold no row of this attempt" in err
    assert "rows 1 to 3 are missing" in err
    assert "export every result of the study from JATOS" in err
    assert "server" not in err
    assert "send the rows" not in err
    odd = tmp_path / "odd.txt"
    bad = dict(piece, first_row=1, rows=rows(1, 1, participant="J2"), sidecar=[1])
    odd.write_text(json.dumps({"tol_tasks": bad}))
    assert import_main([str(odd), "--output", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert f"{odd}: line 1: sidecar: not a tol-tasks sidecar" in err
    assert err.count("Suggested fix") == 1
    assert "give JATOS's export unchanged" in err


# ----------------------------------------------------------------------------- a crowd
@pytest.mark.slow
def test_fifty_participants_at_once_with_closed_tabs_reloads_and_a_killed_server(
    tmp_path, mini, rng
):
    """50 participants in parallel (one context each), a third closing their tab or reloading
    at a random move, the server SIGKILLed and restarted mid-study: every trial completed
    before a close is on the server exactly once, every session scores, --verify is clean."""
    import asyncio

    from playwright.async_api import async_playwright

    from tests.browser_tools import CHROMIUM_ARGS, chromium_path
    from tests.web_crowd import Crowd, play

    server, info = study_server(tmp_path, mini)
    data = tmp_path / "data"
    people = [f"C{k:03d}" for k in range(50)]
    interrupts = {pid: (rng.randint(1, 3), rng.randint(0, 2), rng.choice(["reload", "close"]))
                  for pid in rng.sample(people, 17)}  # fmt: skip
    kills = []

    def trial_ends() -> int:
        return sum(p.read_text().count(",trial_end,") for p in served_logs(data, info["name"]))

    async def killer():
        loop = asyncio.get_running_loop()
        while trial_ends() < 40:  # mid-study: about a quarter of the 150 problems solved
            await asyncio.sleep(0.5)
        server.kill()
        kills.append(trial_ends())
        await asyncio.sleep(3)
        await loop.run_in_executor(None, server.start)

    async def crowd():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=chromium_path(), args=list(CHROMIUM_ARGS)
            )
            try:

                async def one(pid):
                    ctx = await browser.new_context(viewport={"width": 1000, "height": 760})
                    try:
                        url = server.url(f"mini/index.html?participant={pid}")
                        return await play(ctx, url, Crowd(pid), interrupts.get(pid), timeout=1500)
                    finally:
                        await ctx.close()

                kill = asyncio.create_task(killer())
                done = await asyncio.gather(*(one(p) for p in people))
                await kill
                return done
            finally:
                await browser.close()

    server.start()
    try:
        # A thread of its own: this worker's thread may hold the sync Playwright of other tests.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as pool:
            crowd_done = pool.submit(asyncio.run, crowd()).result()
    finally:
        server.stop()
    assert kills, "the server was not killed"
    assert kills[0] < 150  # mid-study
    assert (
        sum(k in interrupts for k in (c.participant for c in crowd_done if c.interruptions)) == 17
    )
    logs = {}
    for log in served_logs(data, info["name"]):
        pid = log.name.split("_")[0]
        assert pid not in logs, f"{pid}: two logs (a reload must continue the same attempt)"
        logs[pid] = log
    assert sorted(logs) == people
    for who in crowd_done:
        # saved, or (a participant who loaded the page again at its end) already saved
        assert (who.status, who.saved) in (("completed", "server"), ("completed", "delivered")), who
        rows = check_rows_once(logs[who.participant])
        places: dict[int, list] = {}
        ends: dict[int, int] = {}
        for r in rows:
            if r["event"] == "place":
                places.setdefault(int(r["trial"]), []).append((r["from_peg"], r["to_peg"]))
            elif r["event"] == "trial_end":
                ends[int(r["trial"])] = ends.get(int(r["trial"]), 0) + 1
        for trial, moves in who.completed.items():
            assert places.get(trial) == moves, (who.participant, trial)
            assert ends.get(trial) == 1, (who.participant, trial)
        for trial, moves in who.cut_off.items():  # at most the trial in progress is lost
            got = places.get(trial, [])
            assert got == moves[: len(got)], (who.participant, trial)
            assert trial not in ends
        solved = [
            r["problem_id"] for r in rows if r["event"] == "trial_end" and r["reason"] == "solved"
        ]
        assert sorted(solved) == ["a", "b", "c"], who.participant
        side = json.loads(logs[who.participant].with_suffix(".json").read_text())
        assert side["status"] == "completed"
        assert side["rows_written"] == len(rows)
    assert "50 log(s) OK, 0 problem(s)" in verify(data / info["name"])
    out = tmp_path / "scored"
    done = subprocess.run([str(Path(sys.executable).parent / "tol-score"), str(data / info["name"]),
                           "--output", str(out)], capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(_rows(out / "sessions.csv")) == 50

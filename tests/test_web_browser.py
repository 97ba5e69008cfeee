"""The web build played in a real headless Chromium, scored by tol-score.

Each bundled protocol is built with ``tol-web build``, served from
127.0.0.1 and played by :class:`tests.web_tools.Participant` with moves
from an independent breadth-first search, through real mouse clicks, mouse
drags or touch taps (CDP), with one illegal attempt; the downloaded event
log and sidecar are scored by ``tol-score`` and every move and distance is
checked against the plan.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web_tools import LETTERS, Participant, build_folder, distances_to
from tol_tasks.web.cli import main

PARTICIPANT = "W001"


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run_in_browser(browser, url: str, downloads: Path, *, how="mouse", illegal=True,
                   context=None, stop=None, answers=None) -> tuple[Participant, list[Path]]:  # fmt: skip
    """Open ``url``, play it to the end (or until ``stop``), save what the page downloads
    (``answers``: a planning-only problem's numbers to choose, by its id; see Participant)."""
    ctx = context or browser.new_context(
        viewport={"width": 1200, "height": 860}, accept_downloads=True, has_touch=how == "touch"
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    saved: list[Path] = []

    def keep(download):
        target = downloads / download.suggested_filename
        download.save_as(target)
        saved.append(target)

    page.on("download", keep)
    page.goto(url)
    player = Participant(page, how=how, illegal=illegal, stop=stop, answers=answers)
    status = player.play()
    if status != "stopped":
        page.wait_for_function("document.documentElement.dataset.tolSaved", timeout=10000)
        page.wait_for_timeout(300)
    assert not errors, errors
    player.status = status
    player.ctx = ctx
    return player, saved


def score(folder: Path, out: Path) -> dict[str, list[dict]]:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tol-score"), str(folder), "--output", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {name: _read(out / f"{name}.csv") for name in ("moves", "trials", "sessions")}


def check_sidecar(path: Path) -> None:
    """The browser's sidecar is one of the sidecar model: it reads, and its JSON Schema holds."""
    import jsonschema

    from tol_tasks.session_data.sidecar import SIDECAR_VERSION, Sidecar

    data = json.loads(path.read_text())
    schema = json.loads(
        (Path(__file__).resolve().parents[1]
         / f"tol_tasks/session_data/codebook/sidecar-v{SIDECAR_VERSION}.schema.json").read_text()
    )  # fmt: skip
    jsonschema.validate(data, schema)
    model = Sidecar.from_dict(data, str(path))
    assert model.recorder.runtime == "browser"
    assert model.sidecar_version == SIDECAR_VERSION


def check_against_plan(player: Participant, folder: Path, scored: dict) -> None:
    """Every move, distance and illegal attempt in the scored files is what was played."""
    logs = list(folder.glob("*.csv"))
    assert len(logs) == 1, logs
    rows = _read(logs[0])
    problems = [p for p in player.played if not p.copy]
    trials = {int(t["trial"]): t for t in scored["trials"]}
    assert sorted(trials) == [p.trial for p in problems]
    for p in problems:
        t = trials[p.trial]
        assert (t["problem_id"], t["start"], t["goal"]) == (p.problem_id, p.start, p.goal)
        dist = distances_to(p.puzzle, p.goal)
        assert int(t["min_moves"]) == dist[p.start] == len(p.moves)
        assert t["solved"] in ("True", "true", "1")
        moves = [m for m in scored["moves"] if int(m["trial"]) == p.trial]
        assert [(m["from_peg"], m["to_peg"]) for m in moves] == [
            (LETTERS[a], LETTERS[b]) for a, b in p.moves
        ]
        assert (
            [int(m["distance_after"]) for m in moves]
            == [dist[m["state_after"]] for m in moves]
            == list(range(len(p.moves) - 1, -1, -1))
        )
        if p.illegal:
            ill = [r for r in rows if r["event"] == "illegal" and int(r["trial"]) == p.trial]
            assert [(r["from_peg"], r["to_peg"], r["reason"]) for r in ill] == [p.illegal]
            assert int(t["rule_violations"]) == 1
    assert any(p.illegal for p in problems), "no illegal attempt was made"
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times), "the log's times go backwards"
    (session,) = scored["sessions"]
    assert session["status"] == "completed"


@pytest.fixture
def played_demo(chromium, tmp_path_factory):
    """The demo built, served and played once with mouse clicks; its files downloaded."""
    from types import SimpleNamespace

    from tests.browser_tools import StaticServer

    tmp = tmp_path_factory.mktemp("demo")
    site = build_folder("demo", tmp / "site")
    data = tmp / "data"
    data.mkdir()
    with StaticServer(site) as server:
        player, saved = run_in_browser(
            chromium, server.url(f"index.html?participant={PARTICIPANT}"), data
        )
        yield SimpleNamespace(tmp=tmp, data=data, player=player, saved=saved,
                              page=player.ctx.pages[0])  # fmt: skip


def _scores_as_planned(d, tmp_path):
    assert sorted(p.suffix for p in d.saved) == [".csv", ".json"]
    scored = score(d.data, tmp_path / "scored")
    check_against_plan(d.player, d.data, scored)
    sidecar = json.loads(next(d.data.glob("*.json")).read_text())
    assert sidecar["recorder"]["runtime"] == "browser"
    check_sidecar(next(d.data.glob("*.json")))
    assert sidecar["status"] == "completed"
    assert sidecar["participant"] == PARTICIPANT
    assert sidecar["rows_written"] == len(_read(next(d.data.glob("*.csv"))))


def _jspsych_data_give_back_the_files(played_demo, tmp_path):
    """A host that keeps jsPsych's own data (CSV or JSON) keeps the files: tol-web extract."""
    for kind in ("csv", "json"):
        export = tmp_path / f"jspsych.{kind}"
        export.write_text(played_demo.page.evaluate(f"tolTasksJsPsych.data.get().{kind}()"))
        assert main(["extract", str(export), "--output", str(tmp_path / kind)]) == 0
        for f in played_demo.saved:
            assert (tmp_path / kind / f.name).read_bytes() == f.read_bytes()
    assert main(["extract", str(export), "--output", str(tmp_path / kind)]) == 2


def _the_lab_writes_the_same_log(played_demo, tmp_path):
    """The web session's actions replayed through the lab's TrialState and EventLog.

    Every problem row the lab writes is computed by Python's trial state machine
    from the same peg actions at the same times (the rows around them are copied);
    the two files are the same bytes, and tol-score scores them the same.
    """
    from tol_tasks.protocol_format import load_protocol
    from tol_tasks.session_data.eventlog import columns
    from tol_tasks.session_data.livelog import EventLog
    from tol_tasks.session_data.trial import TrialState

    web_log = next(played_demo.data.glob("*.csv"))
    rows = _read(web_log)
    lp = load_protocol("demo")
    specs = {s.id: s for s in lp.all_problems()}
    lab = tmp_path / "lab"
    lab.mkdir()
    lab_log = lab / web_log.name
    actions = {"pick_up": "pick", "empty_pick": "pick", "place": "drop", "illegal": "drop",
               "same_peg_drop": "drop", "cancel": "drop"}  # fmt: skip
    derived = {"solved", "move_limit"}  # written by the state machine after a drop
    with EventLog(lab_log, fsync=False) as log:
        trial = None
        for r in rows:
            cells = {k: (v if v != "" else None) for k, v in r.items() if k != "row"}
            for k in ("session", "trial", "attempt", "moves", "copy_of"):
                if cells[k] is not None:
                    cells[k] = int(cells[k])
            for k in ("time", "trial_time", "x", "y"):
                if cells[k] is not None:
                    cells[k] = float(cells[k])
            event = r["event"]
            if event == "trial_onset":
                trial = TrialState(
                    specs[r["problem_id"]], lp.model.rules, attempt=int(r["attempt"])
                )
            if event in derived:
                continue
            if event in actions or event == "time_out":
                if event == "time_out":
                    results = trial.tick(cells["trial_time"])
                elif actions[event] == "pick":
                    results = trial.pick("ABC".index(r["from_peg"]))
                else:
                    results = trial.drop("ABC".index(r["to_peg"]) if r["to_peg"] else None)
                shared = {k: cells[k] for k in ("participant", "session", "block", "trial",
                          "attempt", "problem_id", "time", "trial_time", "x", "y", "input",
                          "stamp")}  # fmt: skip
                for res in results:
                    name = res.pop("event")
                    log.write(event=name, **shared, **res)
                continue
            log.write(**cells)
    assert columns() == tuple(rows[0])
    assert lab_log.read_bytes() == web_log.read_bytes()
    # The protocol column comes from the sidecar (read through the sidecar model, which wants a
    # whole sidecar): the lab's is the same as the browser's.
    shutil.copyfile(web_log.with_suffix(".json"), lab / web_log.with_suffix(".json").name)
    web_scores = score(played_demo.data, tmp_path / "web-scored")
    lab_scores = score(lab, tmp_path / "lab-scored")
    assert web_scores == lab_scores


def test_the_demo_played_in_the_browser(played_demo, tmp_path):
    """One session played with mouse clicks, checked three ways (one browser run)."""
    for check in (
        _scores_as_planned,
        _jspsych_data_give_back_the_files,
        _the_lab_writes_the_same_log,
    ):
        folder = tmp_path / check.__name__.strip("_")
        folder.mkdir()
        check(played_demo, folder)


def _variant(name: str, folder: Path, **sections: str) -> Path:
    """A bundled protocol with some top-level sections replaced (e.g. input: {mode: drag})."""
    from tol_tasks.protocol_format import bundled_protocols

    text = bundled_protocols()[name].read_text()
    kept = []
    skipping = False
    for line in text.splitlines():
        top = line.split(":")[0] if line and not line.startswith((" ", "#", "-")) else None
        if top is not None:
            skipping = top in sections
        if not skipping:
            kept.append(line)
    kept += [f"{key}: {value}" for key, value in sections.items()]
    path = folder / f"{name}.yaml"
    path.write_text("\n".join(kept) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "how", "mode"),
    [
        ("london-shallice", "mouse", None),
        ("london-tol-dx", "touch", None),
        ("hanoi-classic", "mouse", "{mode: drag}"),
        ("hanoi-adjacent", "touch", "{mode: drag}"),
        ("hanoi-generalized", "touch", None),
        ("demo", "mouse", "{mode: keys, keys: ['1', num_2, c]}"),
    ],
)
def test_bundled_protocols_played_in_the_browser_score_as_planned(
    tmp_path, chromium, web_server_factory, name, how, mode
):
    protocol = name if mode is None else _variant(name, tmp_path, input=mode)
    site = build_folder(protocol, tmp_path / "site")
    server = web_server_factory(site)
    data = tmp_path / "data"
    data.mkdir()
    player, _ = run_in_browser(
        chromium, server.url(f"index.html?participant={PARTICIPANT}"), data, how=how
    )
    scored = score(data, tmp_path / "scored")
    check_against_plan(player, data, scored)
    rows = _read(next(data.glob("*.csv")))
    inputs = {r["input"] for r in rows if r["event"] in ("pick_up", "place")}
    assert inputs == {"key" if "keys" in (mode or "") else how}
    if how == "touch" and mode is None:
        # One tap, one action: as many pick-ups as the plan's moves plus the illegal attempt.
        picks = [r for r in rows if r["event"] == "pick_up"]
        assert len(picks) == sum(len(p.moves) for p in player.played) + 1


@pytest.mark.slow
def test_a_tab_closed_mid_problem_continues_where_it_stopped(
    tmp_path, chromium, web_server_factory
):
    site = build_folder("demo", tmp_path / "site")
    server = web_server_factory(site)
    url = server.url(f"index.html?participant={PARTICIPANT}")
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir()
    cut.mkdir()
    run_in_browser(chromium, url, whole)  # the same participant in another profile
    ctx = chromium.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
    first, _ = run_in_browser(
        chromium, url, cut, context=ctx,
        stop=lambda p, k: p.problem_id == "demo-2" and not p.copy and k == 2,
    )  # fmt: skip
    assert first.status == "stopped"
    for page in ctx.pages:
        page.close()  # the tab is closed in the middle of demo-2
    second, saved = run_in_browser(chromium, url, cut, context=ctx, illegal=False)
    assert [p.problem_id for p in second.played] == ["demo-2", "demo-3"]
    assert len(saved) == 2
    rows = _read(next(cut.glob("*.csv")))
    (resume,) = [r for r in rows if r["event"] == "resume"]
    assert resume["detail"].endswith(";interrupted=test/demo-2")
    at = rows.index(resume)  # then the "ready to continue" screen, as in tol-run
    assert [(r["event"], r["problem_id"]) for r in rows[at + 1 : at + 3]] == [
        ("page_shown", "resume-ready"), ("page_left", "resume-ready")]  # fmt: skip
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)
    a = score(whole, tmp_path / "whole-scored")["trials"]
    b = score(cut, tmp_path / "cut-scored")["trials"]
    keep = ("block", "problem_id", "attempt", "start", "goal", "min_moves", "moves", "solved",
            "rule_violations", "optimal_moves", "placements")  # fmt: skip
    complete = [t for t in b if t["complete"] in ("True", "true", "1")]
    assert [[t[k] for k in keep] for t in complete] == [[t[k] for k in keep] for t in a]
    cut_off = [t for t in b if t not in complete]
    assert [t["problem_id"] for t in cut_off] == ["demo-2"]
    sidecar = json.loads(next(cut.glob("*.json")).read_text())
    assert sidecar["status"] == "completed"
    assert sidecar["resumes"][0]["interrupted"] == ["test", "demo-2"]
    assert sidecar["resumes"][0]["previous_status"] == "incomplete"
    # Opened again once finished: its files again, never a second run.
    again = ctx.new_page()
    again.goto(url)
    again.wait_for_function("document.documentElement.dataset.tolSaved === 'stored'")
    assert again.locator("a.tol-download").count() == 2
    assert again.locator("[data-start]").count() == 0


def test_without_an_id_the_page_asks_for_one(tmp_path, chromium, web_server_factory):
    site = build_folder("demo", tmp_path / "site")
    server = web_server_factory(site)
    ctx = chromium.new_context(accept_downloads=True)
    page = ctx.new_page()
    page.goto(server.url("index.html"))
    page.fill("#tol-field-participant", "../etc")
    page.click("form button")
    assert "cannot be used" in page.inner_text(".tol-form-error")
    page.fill("#tol-field-participant", "P-7")
    page.click("form button")
    page.wait_for_selector("[data-start]")
    page.goto(server.url("index.html?participant=a%2Fb"))
    assert "The code in the address (“a/b”) cannot be used" in page.inner_text(".tol-form-error")
    page.goto(server.url("index.html?participant=P1&lang=xx"))
    assert "lang=xx" in page.inner_text(".tol-error")
    # A protocol.json of another release's compiled format: the page says so and stops.
    compiled = json.loads((site / "protocol.json").read_text())
    compiled["compiled_format"] = 999
    (site / "protocol.json").write_text(json.dumps(compiled))
    page.goto(server.url("index.html?participant=P1"))
    text = page.inner_text(".tol-error")
    assert "compiled format 999" in text
    assert "Build the folder again" in text
    assert page.locator("[data-start]").count() == 0
    ctx.close()


def test_the_plugin_in_a_researchers_own_timeline(tmp_path, chromium, web_server_factory):
    """docs/web-example: jsPsych and its button plugin from node_modules instead of unpkg."""
    site = tmp_path / "example"
    assert main(["plugin", "--output", str(site)]) == 0
    example = Path(__file__).resolve().parents[1] / "docs" / "web-example" / "index.html"
    (site / "index.html").write_text(example.read_text())
    modules = Path(__file__).resolve().parents[1] / "web" / "node_modules"
    local = {
        "https://unpkg.com/jspsych@8.3.0": modules / "jspsych/dist/index.browser.min.js",
        "https://unpkg.com/@jspsych/plugin-html-button-response@2.1.0": modules
        / "@jspsych/plugin-html-button-response/dist/index.browser.min.js",
        "https://unpkg.com/jspsych@8.3.0/css/jspsych.css": modules / "jspsych/css/jspsych.css",
    }
    server = web_server_factory(site)
    ctx = chromium.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)

    def serve(path):
        return lambda route: route.fulfill(path=str(path))

    for url, path in local.items():
        ctx.route(url, serve(path))
    ctx.route("https://**", lambda route: route.abort())  # nothing else leaves the machine
    data = tmp_path / "data"
    data.mkdir()
    player, saved = run_in_browser(
        chromium, server.url("index.html?participant=E1"), data, context=ctx
    )
    assert len(saved) == 2
    scored = score(data, tmp_path / "scored")
    assert [t["problem_id"] for t in scored["trials"]] == ["shallice-08", "tower-3"]
    check_sidecar(next(data.glob("*.json")))
    check_against_plan(player, data, scored)


def test_full_screen_left_is_logged_as_attention_lost(tmp_path, chromium, web_server_factory):
    """The participant leaves full screen during a problem (the browser's own exit, as the
    Escape key does): attention_lost and, back in full screen, attention_back rows
    (why=fullscreen), the sidecar's page.fullscreen_exits, the researcher's warning."""
    proto = tmp_path / "full.yaml"
    proto.write_text((Path(__file__).parents[1] / "protocols" / "demo.yaml").read_text(encoding="utf-8")
                     .replace("  fullscreen: false\n", "  fullscreen: true\n"))  # fmt: skip
    site = build_folder(str(proto), tmp_path / "site")
    server = web_server_factory(site)
    ctx = chromium.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
    seen = []

    def leave_once(problem, k) -> bool:
        if problem.problem_id == "demo-2" and k == 1 and not seen:
            page = ctx.pages[0]
            seen.append(page.evaluate("!!document.fullscreenElement"))
            page.evaluate("document.exitFullscreen()")
            page.wait_for_function("!document.fullscreenElement")
            page.evaluate("document.documentElement.requestFullscreen()")  # back, as asked
            page.wait_for_function("!!document.fullscreenElement")
        return False

    out = tmp_path / "data"
    out.mkdir()
    run_in_browser(chromium, server.url(f"index.html?participant={PARTICIPANT}"),
                   out, context=ctx, stop=leave_once)  # fmt: skip
    assert seen == [True]  # the page was in full screen when it was left
    rows = _read(next(out.glob("*.csv")))
    got = [
        (r["event"], r["detail"], r["stamp"]) for r in rows if r["event"].startswith("attention")
    ]
    assert got == [("attention_lost", "why=fullscreen", "clock"),
                   ("attention_back", "why=fullscreen", "clock")]  # fmt: skip
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)
    sidecar = json.loads(next(out.glob("*.json")).read_text())
    lost = next(float(r["time"]) for r in rows if r["event"] == "attention_lost")
    assert sidecar["page"]["fullscreen_exits"] == [pytest.approx(lost, abs=1e-6)]
    shown = ctx.pages[0].inner_text(".tol-warnings")  # the pilot's end page
    assert "Full screen was left 1 time." in shown
    a = score(out, tmp_path / "scored")["trials"]
    assert [t["problem_id"] for t in a if t["block"] != "practice"][:1] == ["demo-1"]

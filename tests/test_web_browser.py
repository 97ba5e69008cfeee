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
import subprocess
import sys
from pathlib import Path

from tests.web_tools import LETTERS, Participant, build_folder, distances_to

PARTICIPANT = "W001"


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run_in_browser(browser, url: str, downloads: Path, *, how="click", illegal=True,
                   context=None, stop=None) -> tuple[Participant, list[Path]]:  # fmt: skip
    """Open ``url``, play it to the end (or until ``stop``), save what the page downloads."""
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
    player = Participant(page, how=how, illegal=illegal, stop=stop)
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


def test_demo_played_with_the_mouse_scores_as_planned(tmp_path, chromium, web_server_factory):
    site = build_folder("demo", tmp_path / "site")
    server = web_server_factory(site)
    data = tmp_path / "data"
    data.mkdir()
    player, saved = run_in_browser(
        chromium, server.url(f"index.html?participant={PARTICIPANT}"), data
    )
    assert sorted(p.suffix for p in saved) == [".csv", ".json"]
    scored = score(data, tmp_path / "scored")
    check_against_plan(player, data, scored)
    sidecar = json.loads(next(data.glob("*.json")).read_text())
    assert sidecar["runtime"] == "browser"
    assert sidecar["status"] == "completed"
    assert sidecar["participant"] == PARTICIPANT

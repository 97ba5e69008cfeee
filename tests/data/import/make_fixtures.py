"""Make the import fixtures: data files written by other tower tools, for ``tol-import``.

The Experiment Factory's Tower of London and the jsPsych-contrib Tower of London
plugin are played in headless Chromium (Playwright driving Debian's
``/usr/bin/chromium``), served from 127.0.0.1, by a simulated participant whose
moves come from the independent breadth-first search of ``tests/reference.py``
(optimal moves, with seeded detours, a ball put back on its own peg, a time-out).
The files are what the tools themselves save:

- ``expfactory/``: the Experiment Factory's own page (``index.html`` of
  github.com/expfactory-experiments/tower-of-london, MIT) run unchanged. When its
  ``/save`` request succeeds (as on the Experiment Factory's server) the body is
  the jsPsych 5 JSON export (``<worker>.json``); when it fails the page saves a
  CSV itself (``jsPsych.data.localSave``, arrays flattened by jsPsych 5:
  ``<worker>.csv``). ``tower_of_london.csv`` puts several workers in one file
  with a ``worker_id`` column, as the Self-Regulation Ontology's published
  per-task files do (pandas, Python list notation).
- ``jspsych/``: the plugin on jsPsych 8 from npm, exported with
  ``jsPsych.data.get().csv()`` and ``.json()``.

PEBL does not run here (it is a native program), so ``pebl/`` is written from
PEBL's documented output format (``battery/tol/TOL.pbl`` and
``battery/toh/TOH.pbl``: the columns, the state notations, what each row's times
are) and the structure of its public sample files, with the same simulated
participant. PsyToolkit's Tower of Hanoi is represented by a file in its
documented four-column format (``psytoolkit/``), which ``tol-import`` refuses.

Third-party code is not part of this repository. To remake the browser
fixtures, give:

- ``--expfactory DIR``: a checkout of github.com/expfactory-experiments/tower-of-london;
- ``--plugin-js FILE``: the browser build of jspsych-contrib's
  ``packages/plugin-tower-of-london`` (``dist/index.browser.js``, made by that
  repository's own ``npm run build``; it defines ``jsPsychTowerOfLondon``);
- ``npm ci`` in ``tests/data/import/browser/`` (jsPsych 8, and the jQuery and
  math.js versions the Experiment Factory page loads from a CDN).

Usage::

    uv run python tests/data/import/make_fixtures.py --pebl --psytoolkit
    uv run python tests/data/import/make_fixtures.py --expfactory DIR --plugin-js FILE

The files carry times measured in the browser, so a remake differs in its
times (and the simulated participant's waits), not in its structure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlparse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository, for tests/

from tests.browser_tools import CHROMIUM_ARGS, chromium_path  # noqa: E402
from tests.reference import bfs, hanoi_graph, london_graph  # noqa: E402

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the PEBL and PsyToolkit fixtures need no browser
    PlaywrightError = PlaywrightTimeout = Exception

NODE = HERE / "browser" / "node_modules"


# ------------------------------------------------------------ the participant
@cache
def _london(balls: str, capacities: tuple[int, ...]):
    return london_graph(balls, capacities)


@cache
def _hanoi(n: int):
    return hanoi_graph(n)


@cache
def _distances(kind: str, key, goal: str) -> dict:
    graph = _london(*key) if kind == "london" else _hanoi(key)
    return bfs(graph, goal)[0]


class Participant:
    """Chooses moves towards a goal with the reference BFS: optimal, with seeded detours.

    ``detour``: chance of a legal move that does not get closer; ``same_peg``:
    chance of putting the piece back where it came from.
    """

    def __init__(self, seed: int, detour: float = 0.1, same_peg: float = 0.03) -> None:
        self.rng = random.Random(seed)
        self.detour = detour
        self.same_peg = same_peg

    def move(self, kind: str, key, state: str, goal: str) -> tuple[int, int]:
        """(source peg, target peg) from ``state``; source == target for a same-peg drop."""
        graph = _london(*key) if kind == "london" else _hanoi(key)
        dist = _distances(kind, key, goal)
        moves = graph[state]
        if self.rng.random() < self.same_peg:
            _, i, _, _ = self.rng.choice(moves)
            return i, i
        better = [(i, j) for _, i, j, v in moves if dist[v] == dist[state] - 1]
        worse = [(i, j) for _, i, j, v in moves if dist[v] >= dist[state]]
        if worse and self.rng.random() < self.detour:
            return self.rng.choice(worse)
        return self.rng.choice(better)

    def wait(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)


# ---------------------------------------------------------- serving, browsing
class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, Path]] = {}
    pages: ClassVar[dict[str, str]] = {}
    saved: ClassVar[list[bytes]] = []
    save_status: ClassVar[int] = 200

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        path = unquote(urlparse(self.path).path)
        if path in self.pages:
            return self._send(200, self.pages[path].encode(), "text/html")
        for prefix, folder in self.routes.items():
            if path.startswith(prefix):
                f = (folder / path[len(prefix) :].lstrip("/")).resolve()
                if f.is_file() and folder.resolve() in f.parents:
                    kind = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
                    return self._send(200, f.read_bytes(), kind.get(f.suffix, "text/plain"))
        return self._send(404, b"not found", "text/plain")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.saved.append(body)
        self._send(self.save_status, b"{}", "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(routes: dict[str, Path], pages: dict[str, str]):
    """A web server on 127.0.0.1 (a free port) for the given folders and pages."""
    handler = type("Handler", (_Handler,), {"routes": routes, "pages": pages, "saved": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium():
    """Headless Debian Chromium with a new, empty profile (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=chromium_path(),
            headless=True,
            args=list(CHROMIUM_ARGS),
            accept_downloads=True,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def _debug(page, index) -> None:
    if os.environ.get("TOL_FIXTURES_DEBUG"):
        html = page.evaluate(
            "() => (document.querySelector('.display_stage') || document.body).innerText"
        )
        print(f"[{index}] {html[:120]!r}", flush=True)


# ------------------------------------------------------- Experiment Factory
_READ_TOL = """() => {
  const colour = (el) => el.className.match(/tol_(Green|Red|Blue)/)[1][0];
  const read = (board) => [1, 2, 3].map((p) => {
    const box = document.querySelectorAll(board + ' > #tol_peg_' + p)[1];
    return Array.from(box.querySelectorAll('.tol_ball')).map(colour).join('');
  });
  const hand = document.querySelector('.tol_hand_box .tol_hand_ball');
  return {board: read('.tol_your_board'), goal: read('.tol_peg_board'),
          hand: hand ? colour(hand) : null};
}"""


def play_expfactory(
    context,
    base: str,
    handler,
    who: Participant,
    *,
    timeout_problem=None,
    save_ok: bool = True,
    out: Path,
    worker: str,
) -> Path:
    """Run the Experiment Factory page once, as a participant; return the file its data went to.

    Every screen of the task is a jsPsych trial: the loop looks at what is shown,
    acts (a click, Enter, a form), and waits for the next trial to begin.
    ``timeout_problem``: the problem (0 is the practice) on which the participant
    holds a ball until the 20 s run out.
    """
    handler.save_status = 200 if save_ok else 500
    page = context.new_page()
    page.route(
        "https://cdnjs.cloudflare.com/ajax/libs/jquery/**",
        lambda r: r.fulfill(
            path=NODE / "jquery" / "dist" / "jquery.min.js", content_type="text/javascript"
        ),
    )
    page.route(
        "https://cdnjs.cloudflare.com/ajax/libs/mathjs/**",
        lambda r: r.fulfill(
            path=NODE / "mathjs" / "dist" / "math.min.js", content_type="text/javascript"
        ),
    )
    page.goto(f"{base}/tower/index.html")
    page.wait_for_selector("#jspsych-fullscreen-btn")
    page.click("#jspsych-fullscreen-btn")
    plan: tuple[int, int] | None = None
    problem = -1
    new_problem = True
    download = None
    while not page.url.endswith("/next") and download is None:
        try:
            index = page.evaluate("() => jsPsych.progress().current_trial_global")
        except PlaywrightError:  # the page went on to /next after saving
            page.wait_for_url("**/next", timeout=10_000)
            break
        _debug(page, index)
        if page.locator("#jspsych-instructions-next").count():  # pages of one trial
            time.sleep(who.wait(0.5, 1.0))
            page.click("#jspsych-instructions-next")
            time.sleep(0.3)
            continue
        elif page.locator("#jspsych-survey-text-next").count():
            for box in page.locator("textarea, input[type=text]").all():
                box.fill("Moved the balls to match the target board.")
            page.click("#jspsych-survey-text-next")
        elif page.locator(".tol_feedbackbox").count():
            new_problem = True
            time.sleep(0.2)
            continue
        elif page.locator(".tol_your_board").count():
            seen = page.evaluate(_READ_TOL)
            board, goal, hand = "|".join(seen["board"]), "|".join(seen["goal"]), seen["hand"]
            if new_problem:
                problem += 1
                new_problem = False
                time.sleep(who.wait(1.0, 3.0))  # planning
            if hand is None:
                time.sleep(who.wait(0.25, 0.9))
                plan = who.move("london", ("GRB", (3, 2, 1)), board, goal)
                target = plan[0]
            else:
                if problem == timeout_problem:  # holds the ball until the time runs out
                    page.wait_for_function(
                        f"jsPsych.progress().current_trial_global > {index}", timeout=30_000
                    )
                    continue
                time.sleep(who.wait(0.3, 0.8))
                target = plan[1]
            if os.environ.get("TOL_FIXTURES_DEBUG"):
                print(f"  problem {problem}: {board} goal {goal} hand {hand} -> {plan}", flush=True)
            try:
                page.click(f".tol_your_board > #tol_peg_{target + 1}[onclick]", timeout=3000)
            except PlaywrightTimeout:  # the 20 s ran out first: the screen changed
                continue
        elif page.locator(".centerbox").count():
            text = page.inner_text(".centerbox")
            if "enter" not in text.lower():
                time.sleep(0.2)
                continue
            time.sleep(who.wait(0.3, 0.8))
            if "Thanks" in text and not save_ok:  # the page will save a CSV itself
                with page.expect_download(timeout=30_000) as info:
                    page.keyboard.press("Enter")
                download = info.value
                break
            page.keyboard.press("Enter")
        else:
            time.sleep(0.1)
            continue
        try:
            page.wait_for_function(
                f"() => jsPsych.progress().current_trial_global > {index}", timeout=30_000
            )
        except Exception:
            if page.url.endswith("/next"):
                break
            raise
    if download is not None:
        target_file = out / f"{worker}.csv"
        download.save_as(target_file)
    else:
        page.wait_for_url("**/next", timeout=30_000)
        from urllib.parse import parse_qs

        body = handler.saved[-1].decode()
        data = parse_qs(body)["data"][0]  # jQuery posts {"data": <JSON text>} form-encoded
        target_file = out / f"{worker}.json"
        target_file.write_text(data, encoding="utf-8")
    page.close()
    return target_file


def make_expfactory(expfactory: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    routes = {"/tower/": expfactory}
    pages = {"/next": "<html><body>next</body></html>"}
    runs = [  # (worker, participant, problem held until the time runs out, server saves)
        ("W1001", Participant(11), None, False),  # no server: the page saves a CSV itself
        ("W1002", Participant(12, detour=0.25), 4, True),
        ("W1003", Participant(13, detour=0.05), None, True),
    ]
    files = []
    with serve(routes, pages) as (base, handler), chromium() as context:
        for worker, who, timeout_problem, server in runs:
            print(f"expfactory: {worker} ...", flush=True)
            files.append(
                play_expfactory(
                    context,
                    base,
                    handler,
                    who,
                    out=out,
                    worker=worker,
                    timeout_problem=timeout_problem,
                    save_ok=server,
                )
            )
    # Several workers in one file, as the Self-Regulation Ontology publishes each task:
    # one row per jsPsych trial, a worker_id column, written by pandas.
    import pandas as pd

    frames = []
    for worker, f in zip(("W1002", "W1003"), files[1:], strict=True):
        df = pd.DataFrame(json.loads(f.read_text(encoding="utf-8")))
        df.insert(0, "worker_id", worker)
        frames.append(df)
    pd.concat(frames, ignore_index=True).to_csv(out / "tower_of_london.csv", index=False)


# ---------------------------------------------------------- jsPsych-contrib
_JSPSYCH_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Tower of London</title>
<script src="/node/jspsych/dist/index.browser.js"></script>
<script src="/plugin/plugin.js"></script>
<link rel="stylesheet" href="/node/jspsych/css/jspsych.css">
</head><body></body>
<script>
window.done = null;
const jsPsych = initJsPsych({on_finish: () => {
  window.done = {csv: jsPsych.data.get().csv(), json: jsPsych.data.get().json()};
}});
jsPsych.data.addProperties({subject_id: SUBJECT});
jsPsych.run(TIMELINE);
</script></html>"""

#: (start, goal, peg capacities, the optimal_moves the lab typed, extra parameters).
#: J01's battery: the classic pegs throughout, no limits, a done button on the last trial
#: (the participant gives up); its parameters are not saved, so tol-import is told them. The
#: lab typed 2 for problem 2, whose fewest is 3: the plugin then calls a 3-move solution not
#: optimal, which tol-import flags.
JSPSYCH_J01 = [
    ([["red", "green", "blue"], [], []], [["red"], ["green"], ["blue"]], [3, 2, 1], 2, {}),
    ([["green", "red"], ["blue"], []], [[], ["blue", "red"], ["green"]], [3, 2, 1], 2, {}),
    ([["green", "red"], ["blue"], []], [["green", "blue"], ["red"], []], [3, 2, 1], 2, {}),
    ([["green", "red"], ["blue"], []], [["green"], ["red"], ["blue"]], [3, 2, 1], 2, {}),
    (
        [["green", "red"], ["blue"], []],
        [["red", "green", "blue"], [], []],
        [3, 2, 1],
        5,
        {"done_button_text": "Done", "give_up_after": 3},
    ),
]

#: J02's: limits and capacities that vary, saved with save_trial_parameters. The lab typed 3
#: for problem 0 (as the plugin's own example does), whose fewest is 2.
JSPSYCH_J02 = [
    ([["red", "green", "blue"], [], []], [["red"], ["green"], ["blue"]], [3, 2, 1], 3, {}),
    ([["green", "red"], ["blue"], []], [["blue", "red"], ["green"], []], [3, 2, 1], 7, {}),
    (
        [["green", "red"], ["blue"], []],
        [["red", "green", "blue"], [], []],
        [3, 2, 1],
        5,
        {"max_moves": 6},
    ),
    (
        [["blue"], ["green"], ["red"]],
        [["red", "green", "blue"], [], []],
        [3, 3, 3],
        None,
        {"done_button_text": "Done"},
    ),
    (
        [[], ["red", "green"], ["blue"]],
        [["blue", "green", "red"], [], []],
        [3, 3, 3],
        3,
        {"time_limit": 4000},
    ),
]


def _jspsych_timeline(trials_spec, save_parameters: bool) -> str:
    trials = []
    for start, goal, caps, optimal, extra in trials_spec:
        t = {
            "type": "@@PLUGIN@@",
            "start_state": start,
            "goal_state": goal,
            "peg_capacities": caps,
            "optimal_moves": optimal,
            "animation_duration": 200,
            "end_delay": 500,
        }
        t.update({k: v for k, v in extra.items() if k != "give_up_after"})
        if save_parameters:
            t["save_trial_parameters"] = {
                "peg_capacities": True,
                "time_limit": True,
                "max_moves": True,
                "end_delay": True,
                "optimal_moves": True,
            }
        trials.append(t)
    return json.dumps(trials).replace('"@@PLUGIN@@"', "jsPsychTowerOfLondon")


def _next_trial(n: int) -> str:
    """JavaScript: trial ``n`` is over (the next began, or the experiment ended)."""
    return f"window.done !== null || jsPsych.getProgress().current_trial_global > {n}"


def _letters(state) -> str:
    return "|".join("".join(b[0].upper() for b in peg) for peg in state)


def play_jspsych(
    context, base: str, who: Participant, subject: str, trials_spec, save_parameters: bool
):
    page = context.new_page()
    html = _JSPSYCH_PAGE.replace("SUBJECT", json.dumps(subject)).replace(
        "TIMELINE", _jspsych_timeline(trials_spec, save_parameters)
    )
    page.route(f"{base}/run.html", lambda r: r.fulfill(body=html, content_type="text/html"))
    page.goto(f"{base}/run.html")
    for n, (_start, goal, caps, _optimal, extra) in enumerate(trials_spec):
        page.wait_for_function(
            f"document.querySelector('#jspsych-tower-of-london-svg') && "
            f"jsPsych.getProgress().current_trial_global === {n}"
        )
        svg = page.locator("#jspsych-tower-of-london-svg")
        box = svg.bounding_box()
        width = box["width"]

        def click(peg: int, box=box, width=width) -> None:
            page.mouse.click(box["x"] + width / 4 * (peg + 1), box["y"] + box["height"] - 60)

        state = page.evaluate(
            "() => jsPsych.getCurrentTrial().start_state"
        )  # the trial's parameters
        text, goal_text = _letters(state), _letters(goal)
        key = ("BGR", tuple(caps))
        time.sleep(who.wait(0.8, 2.0))
        moves = 0
        if "time_limit" in extra:  # dawdle: one move, then let the time run out
            a, b = who.move("london", key, text, goal_text)
            if a != b:
                click(a)
                time.sleep(0.3)
                click(b)
            page.wait_for_function(_next_trial(n), timeout=20_000)
            continue
        limit = extra.get("max_moves", extra.get("give_up_after"))
        while text != goal_text and (limit is None or moves < limit):
            a, b = who.move("london", key, text, goal_text)
            if os.environ.get("TOL_FIXTURES_DEBUG"):
                print(f"  trial {n}: {text} -> {goal_text}: {a}>{b}", flush=True)
            click(a)
            time.sleep(who.wait(0.15, 0.5))
            if a == b:  # a second click on the selected peg deselects it (not recorded)
                click(b)
                time.sleep(who.wait(0.2, 0.5))
                continue
            full = [j for j in range(3) if j != a and len(text.split("|")[j]) >= caps[j]]
            if full and who.rng.random() < 0.1:  # tries a full peg: refused, not recorded
                click(full[0])
                time.sleep(0.3)
                click(a)
                time.sleep(who.wait(0.15, 0.4))
            click(b)
            time.sleep(0.3)  # the 200 ms animation; clicks during it are ignored
            text = _move_text(text, a, b)
            moves += 1
            time.sleep(who.wait(0.2, 0.7))
        if "done_button_text" in extra:
            time.sleep(who.wait(0.5, 1.0))
            page.click("#jspsych-tower-of-london-done")
        try:
            page.wait_for_function(_next_trial(n), timeout=20_000)
        except PlaywrightTimeout:
            print(page.evaluate("() => document.body.innerText"), file=sys.stderr)
            raise
    page.wait_for_function("window.done !== null", timeout=20_000)
    done = page.evaluate("window.done")
    page.close()
    return done


def _move_text(text: str, a: int, b: int) -> str:
    pegs = text.split("|")
    ball = pegs[a][-1]
    pegs[a] = pegs[a][:-1]
    pegs[b] += ball
    return "|".join(pegs)


def make_jspsych(plugin_js: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    routes = {"/node/": NODE, "/plugin/": plugin_js.parent}
    pages: dict[str, str] = {}
    with serve(routes, pages) as (base, _handler), chromium() as context:
        # /plugin/plugin.js is the given file, whatever its name
        context.route(
            f"{base}/plugin/plugin.js",
            lambda r: r.fulfill(path=plugin_js, content_type="text/javascript"),
        )
        print("jspsych: J01 ...", flush=True)
        first = play_jspsych(
            context,
            base,
            Participant(21, detour=0.0, same_peg=0.0),
            "J01",
            JSPSYCH_J01,
            save_parameters=False,
        )
        print("jspsych: J02 ...", flush=True)
        second = play_jspsych(
            context, base, Participant(22, detour=0.3), "J02", JSPSYCH_J02, save_parameters=True
        )
    (out / "J01.csv").write_text(first["csv"], encoding="utf-8", newline="")
    (out / "J02.json").write_text(second["json"], encoding="utf-8")


# ------------------------------------------------------------------- PEBL
#: PEBL's Shallice set: start, goal, stated minimum, PEBL's start and end labels (pole heights 3,2,1).
SHALLICE = [
    ("|21|3||", "||32|1|", 2, 63, 66),
    ("|21|3||", "|2|1|3|", 2, 63, 55),
    ("|21|3||", "|23|1||", 3, 63, 53),
    ("|21|3||", "|2|13||", 3, 63, 54),
    ("|21|3||", "|12|3||", 4, 63, 13),
    ("|21|3||", "|3|12||", 4, 63, 44),
    ("|21|3||", "|13||2|", 4, 63, 22),
    ("|21|3||", "||13|2|", 4, 63, 46),
    ("|21|3||", "|123|||", 5, 63, 11),
    ("|21|3||", "|132|||", 5, 63, 21),
    ("|21|3||", "|32|1||", 5, 63, 43),
    ("|21|3||", "|3|1|2|", 5, 63, 45),
]

#: Phillips et al. (1999) set C as PEBL lists it (each pile bottom first; 5 balls on piles of 5)
#: with the minimums PEBL states; two of them are not the fewest moves (items 2 and 4).
PHILLIPS_C = [
    ([[4, 3], [], [2, 1, 5]], [[4], [5, 1, 3], [2]], 3),
    ([[4, 1], [5, 3, 2], []], [[2, 1, 4, 5], [], [3]], 5),
    ([[1, 3], [4, 5, 2], []], [[], [4, 3, 1, 5], [2]], 5),
    ([[2], [], [5, 4, 3, 1]], [[], [2, 1], [5, 3, 4]], 7),
    ([[4, 2, 1], [3, 5], []], [[], [1], [5, 2, 3, 4]], 7),
    ([[5], [1, 4, 3], [2]], [[], [2, 5, 3], [1, 4]], 9),
    ([[4, 1, 2, 5], [], [3]], [[3, 1, 4], [], [5, 2]], 9),
    ([[], [], [5, 1, 3, 2, 4]], [[], [], [2, 4, 1, 5, 3]], 11),
]


def _pebl_state(piles) -> str:
    """PEBL's MakeStateString: each pile's balls, bottom first, between bars."""
    return "|" + "|".join("".join(map(str, p)) for p in piles) + "|"


#: Bishop et al. (2001) Tower of Hanoi problems as PEBL writes them (peg per disk, largest first).
BISHOP = [
    ("11", "33", 3),
    ("122", "333", 4),
    ("111", "322", 4),
    ("123", "333", 5),
    ("111", "321", 5),
    ("113", "333", 6),
    ("111", "331", 6),
    ("111", "333", 7),
    ("111", "211", 7),
    ("2111", "3333", 8),
    ("1111", "2333", 8),
    ("2113", "3333", 9),
    ("1111", "2331", 9),
]

BALLS = "RYBGPO"  # the letters the reference BFS uses for PEBL's balls 1-6


def _pebl_to_letters(state: str) -> str:
    return "|".join("".join(BALLS[int(c) - 1] for c in peg) for peg in state[1:-1].split("|"))


def _letters_to_pebl(text: str) -> str:
    return (
        "|"
        + "|".join("".join(str(BALLS.index(c) + 1) for c in peg) for peg in text.split("|"))
        + "|"
    )


def _toh_to_letters(state: str) -> str:
    return "".join("ABC"[int(c) - 1] for c in state)


def _letters_to_toh(text: str) -> str:
    return "".join(str("ABC".index(c) + 1) for c in text)


def _apply(text: str, a: int, b: int) -> str:
    return _move_text(text, a, b)


def _apply_hanoi(text: str, a: int, b: int) -> str:
    letters = list(text)
    top = max(i for i, c in enumerate(letters) if c == "ABC"[a])  # smallest disk on a: last
    letters[top] = "ABC"[b]
    return "".join(letters)


def pebl_tol(
    sub: str,
    problems,
    capacities,
    who: Participant,
    *,
    turn_limit: bool,
    time_limit_s: float | None = None,
    allow_reset: bool = False,
    timeout_trial: int | None = None,
) -> tuple[str, str]:
    """One PEBL TOL session: the text of tol-<sub>.csv and tol-summary-<sub>.csv."""
    rows = ["sub,trial,size,current,end,step,reset,tries,score,abstime,trialtime,clicktime,done"]
    summary = [
        "sub,trial,size,shortest,startlab,endlab,startconf,endconf,success,tries,score,"
        "steps,roundstart,starttime,firsttime,time"
    ]
    clock = who.rng.randint(4000, 7000)  # PEBL's GetTime(): ms since PEBL started
    score = 0
    n = len(problems[0][0].replace("|", ""))
    balls = BALLS[:n]
    for trial, (start, end, shortest, *labels) in enumerate(problems, start=1):
        startlab, endlab = labels or (0, 0)
        roundstart = clock
        tries = 1
        while True:
            starttime = clock + who.rng.randint(20, 60)  # after the start animation
            clock = starttime
            rows.append(f"{sub},{trial},{n},{start},{end},0,0,{tries},{score},{starttime},0,0,0")
            text, goal = _pebl_to_letters(start), _pebl_to_letters(end)
            step, last, first, success, reset = 1, starttime, -1, 0, 0
            while True:
                clock += int(who.wait(1500, 3500) if step == 1 else who.wait(500, 1600))
                if timeout_trial == trial and step == 3:  # waits past the time limit
                    clock = roundstart + int(time_limit_s * 1000) + who.rng.randint(5, 95)
                    state = _letters_to_pebl(text)
                    if first == -1:
                        first = clock - starttime
                    rows.append(
                        f"{sub},{trial},{n},{state},{end},{step},0,{tries},{score},"
                        f"{clock},{clock - starttime},{clock - last},0"
                    )
                    break
                if allow_reset and trial == 2 and tries == 1 and step == 3:  # the reset button
                    rows.append(
                        f"{sub},{trial},{n},{_letters_to_pebl(text)},{end},{step},1,{tries},"
                        f"{score},{clock},{clock - starttime},{clock - last},0"
                    )
                    reset = 1
                    break
                a, b = who.move("london", (balls, capacities), text, goal)
                text = _apply(text, a, b) if a != b else text
                if first == -1:
                    first = clock - starttime
                success = int(text == goal)
                if success:
                    score += 4 - tries
                rows.append(
                    f"{sub},{trial},{n},{_letters_to_pebl(text)},{end},{step},0,{tries},"
                    f"{score},{clock},{clock - starttime},{clock - last},{success}"
                )
                last = clock
                if success or (turn_limit and shortest > 0 and step >= shortest):
                    break
                step += 1
            if reset:
                tries += 1
                clock += 800
                continue
            break
        clock += 100  # Wait(100) before the summary line
        summary.append(
            f"{sub},{trial},{n},{shortest},{startlab},{endlab},{start},{end},{success},{tries},{score},{step},"
            f"{roundstart},{starttime},{first},{clock - 100 - starttime}"
        )
        clock += who.rng.randint(1200, 2500)  # feedback, click to continue
    return "\n".join(rows) + "\n", "\n".join(summary) + "\n"


def pebl_toh(sub: str, problems, who: Participant) -> tuple[str, str]:
    rows = ["sub,trial,size,current,end,step,abstime,trialtime,clicktime,done"]
    summary = ["sub,trial,size,shortest,startlab,endlab,startconf,endconf,success,steps,time"]
    clock = who.rng.randint(2000, 4000)
    for trial, (start, end, shortest) in enumerate(problems, start=1):
        n = len(start)
        clock += who.rng.randint(20, 60)
        starttime = clock
        rows.append(f"{sub},{trial},{n},{start},{end},0,{starttime},0,0,0")
        text, goal = _toh_to_letters(start), _toh_to_letters(end)
        step, last = 1, starttime
        while True:
            clock += int(who.wait(1500, 4000) if step == 1 else who.wait(500, 1400))
            a, b = who.move("hanoi", n, text, goal)
            text = _apply_hanoi(text, a, b) if a != b else text
            done = int(text == goal)
            rows.append(
                f"{sub},{trial},{n},{_letters_to_toh(text)},{end},{step},{clock},"
                f"{clock - starttime},{clock - last},{done}"
            )
            last = clock
            if done:
                break
            step += 1
        clock += 100
        summary.append(
            f"{sub},{trial},{n},{shortest},{start},{end},{start},{end},1,{step},"
            f"{clock - 100 - starttime}"
        )
        clock += who.rng.randint(1000, 2000)
    return "\n".join(rows) + "\n", "\n".join(summary) + "\n"


def make_pebl(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    sessions = {
        # Shallice set: turn limit = the stated minimum (PEBL's test type 3)
        "101": pebl_tol("101", SHALLICE, (3, 2, 1), Participant(31, detour=0.2), turn_limit=True),
        # Phillips set C: no limits; two of PEBL's stated minimums are not the fewest moves
        "103": pebl_tol(
            "103",
            [(_pebl_state(a), _pebl_state(b), m) for a, b, m in PHILLIPS_C],
            (5, 5, 5),
            Participant(33),
            turn_limit=False,
            allow_reset=True,
        ),
        # Shallice set with PEBL's timer (120 s) and one time-out
        "104": pebl_tol(
            "104",
            SHALLICE[:6],
            (3, 2, 1),
            Participant(34, detour=0.0),
            turn_limit=False,
            time_limit_s=120,
            timeout_trial=3,
        ),
    }
    for sub, (log, summary) in sessions.items():
        (out / f"tol-{sub}.csv").write_text(log, encoding="utf-8")
        (out / f"tol-summary-{sub}.csv").write_text(summary, encoding="utf-8")
    log, summary = pebl_toh("201", BISHOP, Participant(41, detour=0.2))
    (out / "toh-201.csv").write_text(log, encoding="utf-8")
    (out / "toh-summary-201.csv").write_text(summary, encoding="utf-8")
    rng = random.Random(42)
    states = ["".join(p) for p in __import__("itertools").product("123", repeat=3)]
    problems = []
    dist = {}
    for _ in range(6):
        a, b = rng.sample(states, 2)
        dist = _distances("hanoi", 3, _toh_to_letters(b))
        problems.append((a, b, dist[_toh_to_letters(a)]))
    log, _ = pebl_toh("202", problems, Participant(42))
    (out / "toh-202.csv").write_text(log, encoding="utf-8")  # without its summary


def make_psytoolkit(out: Path) -> None:
    """A file in PsyToolkit's documented Tower of Hanoi format: time, steps, two error counts."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(51)
    t, big_on_small, snaps = 0, 0, 0
    lines = []
    for step in range(1, 10):
        t += rng.randint(900, 3000)
        big_on_small += rng.random() < 0.1
        snaps += rng.random() < 0.1
        lines.append(f"{t} {step} {big_on_small} {snaps}")
    (out / "tower_hanoi.psydat.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--expfactory", type=Path, help="checkout of expfactory-experiments/tower-of-london"
    )
    ap.add_argument("--plugin-js", type=Path, help="browser build of the jsPsych-contrib plugin")
    ap.add_argument("--pebl", action="store_true", help="write the PEBL fixtures")
    ap.add_argument("--psytoolkit", action="store_true", help="write the PsyToolkit fixture")
    args = ap.parse_args(argv)
    if args.pebl:
        make_pebl(HERE / "pebl")
    if args.psytoolkit:
        make_psytoolkit(HERE / "psytoolkit")
    if args.expfactory:
        make_expfactory(args.expfactory, HERE / "expfactory")
    if args.plugin_js:
        make_jspsych(args.plugin_js, HERE / "jspsych")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

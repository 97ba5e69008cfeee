"""Playing a built web experiment in headless Chromium, as a participant would.

The moves come from a breadth-first search written here, independently of
tol-tasks' solver and rules (states as tuples of pegs, bottom to top), and
are made with real input: mouse clicks, mouse drags, or touch taps sent
through the Chrome DevTools Protocol (``Input.dispatchTouchEvent``).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from tests.system_tools import web_bundle

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ------------------------------------------------------------------ the puzzles, independently
def parse_code(code: str) -> tuple[str, int, tuple[int, ...], bool]:
    """(kind, pieces, capacities, adjacent only) of a puzzle code."""
    parts = code.split(":")
    if parts[0] == "hanoi":
        n, pegs = int(parts[1]), int(parts[2])
        return "hanoi", n, (n,) * pegs, parts[3] == "1"
    caps = tuple(int(c) for c in parts[2].split("-"))
    return "london", len(parts[1]), caps, False


def read_state(code: str, text: str) -> tuple[tuple, ...]:
    kind, n, caps, _ = parse_code(code)
    if kind == "hanoi":
        pegs = [[] for _ in caps]
        for k, letter in enumerate(text):  # largest disk first
            pegs[LETTERS.index(letter)].append(n - k)
        return tuple(tuple(p) for p in pegs)
    return tuple(tuple(p) for p in text.split("|"))


def write_state(code: str, state) -> str:
    kind, n, _, _ = parse_code(code)
    if kind == "hanoi":
        where = {d: LETTERS[i] for i, peg in enumerate(state) for d in peg}
        return "".join(where[d] for d in range(n, 0, -1))
    return "|".join("".join(p) for p in state)


def broken_rule(code: str, state, a: int, b: int) -> str | None:
    """The rule a move from peg a to peg b breaks, or None if it is legal."""
    kind, _, caps, adjacent = parse_code(code)
    if a == b:
        return "same_peg"
    if not state[a]:
        return "empty_source"
    if kind == "hanoi":
        if adjacent and abs(a - b) != 1:
            return "forbidden_pair"
        if state[b] and state[b][-1] < state[a][-1]:
            return "larger_on_smaller"
        return None
    return "peg_full" if len(state[b]) >= caps[b] else None


def apply(state, a: int, b: int):
    pegs = [list(p) for p in state]
    pegs[b].append(pegs[a].pop())
    return tuple(tuple(p) for p in pegs)


def bfs_plan(code: str, start: str, goal: str) -> list[tuple[int, int]]:
    """A shortest list of (from, to) moves, by breadth-first search."""
    s, g = read_state(code, start), read_state(code, goal)
    pegs = len(s)
    parent = {s: None}
    queue = deque([s])
    while queue:
        cur = queue.popleft()
        if cur == g:
            path = []
            while parent[cur] is not None:
                cur, move = parent[cur]
                path.append(move)
            return path[::-1]
        for a in range(pegs):
            for b in range(pegs):
                if broken_rule(code, cur, a, b) is None:
                    nxt = apply(cur, a, b)
                    if nxt not in parent:
                        parent[nxt] = (cur, (a, b))
                        queue.append(nxt)
    raise AssertionError(f"{goal} unreachable from {start}")


def distances_to(code: str, goal: str) -> dict:
    """Fewest moves from every state to ``goal`` (a backward BFS; moves are reversible)."""
    g = read_state(code, goal)
    dist = {g: 0}
    queue = deque([g])
    while queue:
        cur = queue.popleft()
        for a in range(len(cur)):
            for b in range(len(cur)):
                if broken_rule(code, cur, a, b) is None:
                    nxt = apply(cur, a, b)
                    if nxt not in dist:
                        dist[nxt] = dist[cur] + 1
                        queue.append(nxt)
    return {write_state(code, s): d for s, d in dist.items()}


def an_illegal_move(code: str, text: str) -> tuple[int, int, str] | None:
    """Some move that breaks a rule other than the empty-source one, with its rule."""
    state = read_state(code, text)
    for a in range(len(state)):
        for b in range(len(state)):
            rule = broken_rule(code, state, a, b)
            if a != b and state[a] and rule is not None:
                return a, b, rule
    return None


# ------------------------------------------------------------------ the participant
@dataclass
class Played:
    """What the participant did in one problem attempt or copy."""

    trial: int
    problem_id: str
    puzzle: str
    start: str
    goal: str
    moves: list = field(default_factory=list)  # (from, to) made, legal ones
    illegal: tuple | None = None  # (from letter, to letter, rule)
    copy: bool = False
    choices: list = field(default_factory=list)  # a planning-only problem's numbers chosen


class Participant:
    """Plays whatever a built page shows, until the session's end.

    ``how``: ``mouse`` or ``touch`` (CDP touch events): a click or tap on a
    peg, then another, or a drag when the trial takes drag and drop
    (``data-input``); keys when it takes keys. ``illegal``: make one illegal attempt in the
    first problem that allows one. ``stop``: called before each move with
    (problem, move index); returning True stops playing (the page stays open).
    A planning-only problem (``data-screen`` planning) is answered with the numbers
    ``answers`` gives for its id (default: the fewest moves, from the BFS here), each by
    its key when the problem takes keys, else by a click or tap on its box.
    """

    def __init__(self, page, how: str = "mouse", illegal: bool = True, stop=None,
                 answers: dict | None = None):  # fmt: skip
        self.page = page
        self.answers = answers or {}
        self.how = how
        self.want_illegal = illegal
        self.stop = stop
        self.played: list[Played] = []
        self.cdp = page.context.new_cdp_session(page) if how == "touch" else None

    # -- reading the page
    def _stage(self) -> dict | None:
        return self.page.evaluate(
            "() => { const s = document.querySelector('.tol-stage');"
            " return s ? Object.assign({}, s.dataset) : null; }"
        )

    def _board(self) -> dict:
        return self.page.evaluate(
            "() => { const b = document.querySelector('[data-board=board]');"
            " return b ? Object.assign({}, b.dataset) : {}; }"
        )

    def _center(self, peg: int) -> tuple[float, float]:
        box = self.page.locator(f"[data-peg={LETTERS[peg]}]").bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.6

    # -- real input
    def _tap(self, x: float, y: float) -> None:
        if self.how == "touch":
            point = [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 1}]
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        else:
            self.page.mouse.click(x, y)

    def _drag(self, a: int, b: int) -> None:
        (ax, ay), (bx, by) = self._center(a), self._center(b)
        if self.how == "touch":
            send = self.cdp.send
            for kind, x, y in [("touchStart", ax, ay), ("touchMove", (ax + bx) / 2, (ay + by) / 2),
                               ("touchMove", bx, by)]:  # fmt: skip
                point = [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 1}]
                send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": point})
            send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        else:
            self.page.mouse.move(ax, ay)
            self.page.mouse.down()
            self.page.mouse.move(bx, by, steps=4)
            self.page.mouse.up()

    def _act(self, a: int, b: int) -> None:
        """Pick from peg a and put on peg b, as the trial takes input (data-input)."""
        s = self._stage() or {}
        if s.get("input") == "drag":
            self._drag(a, b)
            return
        if s.get("input") == "keys":
            keys = s["keys"].split(" ")
            self.page.keyboard.press(keys[a])
            self.page.keyboard.press(keys[b])
            return
        self._tap(*self._center(a))
        self.page.wait_for_function(
            "peg => document.querySelector('[data-board=board]')?.dataset.held === peg",
            arg=LETTERS[a],
            timeout=10000,
        )
        self._tap(*self._center(b))

    def _move(self, a: int, b: int, trial: str) -> None:
        """Take the top piece of peg a to peg b; wait until the page has handled it."""
        before = self._board().get("state")
        self._act(a, b)
        self.page.wait_for_function(
            """([before, trial]) => {
                const s = document.querySelector('.tol-stage');
                const b = document.querySelector('[data-board=board]');
                return !s || s.dataset.trial !== trial || !b
                    || (b.dataset.held === '' && b.dataset.state !== before);
            }""",
            arg=[before, trial],
            timeout=10000,
        )

    def _illegal(self, a: int, b: int, trial: str) -> None:
        """An illegal attempt: the piece goes back, nothing else changes."""
        self._act(a, b)
        self.page.wait_for_function(
            "() => document.querySelector('[data-board=board]')?.dataset.held === ''",
            timeout=10000,
        )

    # -- the session
    def play(self, timeout: float = 600) -> str:
        """Play until the session ends; returns its status (completed, aborted)."""
        done: set[str] = set()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            status = self.page.evaluate("document.documentElement.dataset.tolStatus || ''")
            if status:
                return status
            if self.page.locator("[data-start]").count():
                self.page.click("[data-start]")
                continue
            if self.page.locator(".jspsych-btn").count():  # another plugin's button
                self.page.click(".jspsych-btn")
                self.page.wait_for_timeout(100)
                continue
            s = self._stage()
            if not s:
                self.page.wait_for_timeout(50)
                continue
            if s.get("screen") == "page" and ("page", s.get("page")) not in done:
                done.add(("page", s.get("page")))
                box = self.page.locator(".tol-stage").bounding_box()
                self._tap(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.8)
            elif s.get("screen") == "planning" and s["trial"] not in done:
                done.add(s["trial"])
                self._planning(s)
            elif s.get("screen") in ("problem", "copy") and s["trial"] not in done:
                done.add(s["trial"])
                if self._trial(s) == "stopped":
                    return "stopped"
            else:
                self.page.wait_for_timeout(40)
        raise AssertionError("the session did not end in time")

    def _planning(self, s: dict) -> None:
        """Answer a planning-only problem: each number of its answers, one at a time."""
        trial = s["trial"]
        record = Played(int(trial), s["problem"], s["puzzle"], s["state"], s["goal"])
        self.played.append(record)
        right = distances_to(s["puzzle"], s["goal"])[s["state"]]
        numbers = [int(v) for v in s["choices"].split(" ")]
        for k, number in enumerate(self.answers.get(s["problem"], [right])):
            if s["input"] == "keys":
                self.page.keyboard.press(s["keys"].split(" ")[numbers.index(number)])
            else:
                box = self.page.locator(f"[data-choice='{number}']").bounding_box()
                self._tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            record.choices.append(number)
            self.page.wait_for_function(
                """([trial, n]) => {
                    const s = document.querySelector('.tol-stage');
                    return !s || s.dataset.trial !== trial || Number(s.dataset.chosen) >= n;
                }""",
                arg=[trial, k + 1],
                timeout=10000,
            )

    def _trial(self, s: dict) -> str | None:
        code, trial = s["puzzle"], s["trial"]
        start = self._board()["state"]
        copy = s["screen"] == "copy"
        record = Played(int(trial), s["problem"], code, start, s.get("goal", ""), copy=copy)
        self.played.append(record)
        if copy:
            plan = [(LETTERS.index(m[0]), LETTERS.index(m[2])) for m in s["sequence"].split(",")]
        else:
            plan = bfs_plan(code, start, s["goal"])
        state = start
        for k, (a, b) in enumerate(plan):
            if self.stop is not None and self.stop(record, k):
                return "stopped"
            bad = an_illegal_move(code, state) if self.want_illegal and not copy else None
            if bad is not None:  # one illegal attempt, at the first chance
                self.want_illegal = False
                x, y, rule = bad
                self._illegal(x, y, trial)
                record.illegal = (LETTERS[x], LETTERS[y], rule)
            self._move(a, b, trial)
            record.moves.append((a, b))
            state = write_state(code, apply(read_state(code, state), a, b))
        return None


def build_folder(protocol, out: Path, **settings) -> Path:
    """``tol-web build`` through its library call (the CLI is tested on its own).

    Without a destination (``server``, ``jatos``), a pilot build (``download``).
    """
    if not any(settings.get(k) for k in ("server", "jatos", "download")):
        settings["download"] = True
    from tol_tasks.web import WebSettings, build_experiment

    web_bundle()
    build_experiment(protocol, out, WebSettings(**settings))
    return out

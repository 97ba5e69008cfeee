"""Many participants at once in one headless Chromium (Playwright's async API).

Each participant has a browser context of its own (its own storage, as
another person's browser) and plays a built study to its end with real mouse
clicks, moves from the breadth-first search of :mod:`tests.web_tools`. An
``interrupt`` (trial number, move index, "reload" or "close") reloads the
tab, or closes it and opens the link again in a new tab of the same browser,
before that move. What each participant completed is recorded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError

from tests.web_tools import LETTERS, apply, bfs_plan, read_state, write_state

_STAGE = "() => { const s = document.querySelector('.tol-stage'); return s ? Object.assign({}, s.dataset) : null; }"
_BOARD = "() => { const b = document.querySelector('[data-board=board]'); return b ? Object.assign({}, b.dataset) : {}; }"


@dataclass
class Crowd:
    """What one participant did: completed trials (number -> moves), trials cut off, interruptions."""

    participant: str
    completed: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    cut_off: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    interruptions: list[str] = field(default_factory=list)
    status: str = ""
    saved: str = ""


async def _center(page, peg: int) -> tuple[float, float]:
    box = await page.locator(f"[data-peg={LETTERS[peg]}]").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.6


async def _move(page, a: int, b: int, trial: str) -> None:
    before = (await page.evaluate(_BOARD)).get("state")
    await page.mouse.click(*(await _center(page, a)))
    await page.wait_for_function(
        "peg => document.querySelector('[data-board=board]')?.dataset.held === peg",
        arg=LETTERS[a], timeout=60000,
    )  # fmt: skip
    await page.mouse.click(*(await _center(page, b)))
    await page.wait_for_function(
        """([before, trial]) => {
            const s = document.querySelector('.tol-stage');
            const b = document.querySelector('[data-board=board]');
            return !s || s.dataset.trial !== trial || !b
                || (b.dataset.held === '' && b.dataset.state !== before);
        }""",
        arg=[before, trial], timeout=60000,
    )  # fmt: skip


async def _open(page, url: str, tries: int = 120) -> None:
    """Open ``url``; while the server is down, again a moment later (as a person reloads)."""
    for _ in range(tries):
        try:
            await page.goto(url)
            return
        except PlaywrightError:  # refused, or the browser's error page took over: again
            await asyncio.sleep(0.5)
    raise AssertionError(f"{url}: the server did not come back")


async def play(context, url: str, who: Crowd, interrupt=None, timeout: float = 900) -> Crowd:
    """Play ``url`` in ``context`` to the end; ``interrupt``: (trial, move index, how) or None."""
    page = await context.new_page()
    # Fifty pages on two cores: an action may wait long for its page (the whole play has
    # its own deadline, ``timeout``); Playwright's 30 s default failed a full suite at load 15.
    page.set_default_timeout(120_000)
    await _open(page, url)
    done: set = set()
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    idle_since = loop.time()
    while loop.time() < end:
        status = await page.evaluate("document.documentElement.dataset.tolStatus || ''")
        saved = await page.evaluate("document.documentElement.dataset.tolSaved || ''")
        if status == "elsewhere":  # the closed tab had not let the session go yet: again
            await asyncio.sleep(1)
            await _open(page, url)
            continue
        if status and saved not in ("", "saving"):
            who.status, who.saved = status, saved
            await page.close()
            return who
        if await page.locator("[data-start]").count():
            await page.click("[data-start]")
            idle_since = loop.time()
            continue
        s = await page.evaluate(_STAGE)
        if not s:
            if saved != "saving" and loop.time() - idle_since > 60:
                # Nothing on the page for long (the browser's own error page, when the
                # server was down as it loaded): the participant loads it again.
                who.interruptions.append("loaded again")
                await _open(page, url)
                idle_since = loop.time()
            await asyncio.sleep(0.05)
            continue
        idle_since = loop.time()
        if (
            s.get("screen") == "page"
            and ("page", s.get("page"), len(who.interruptions)) not in done
        ):
            done.add(("page", s.get("page"), len(who.interruptions)))
            box = await page.locator(".tol-stage").bounding_box()
            await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.8)
        elif s.get("screen") == "problem" and s["trial"] not in done:
            trial = s["trial"]
            done.add(trial)
            code = s["puzzle"]
            state = (await page.evaluate(_BOARD))["state"]
            made: list[tuple[str, str]] = []
            for k, (a, b) in enumerate(bfs_plan(code, state, s["goal"])):
                if interrupt and interrupt[0] == int(trial) and interrupt[1] == k:
                    how = interrupt[2]
                    interrupt = None
                    who.cut_off[int(trial)] = made
                    who.interruptions.append(how)
                    if how == "reload":
                        await _open(page, url)  # the same tab, loaded again
                    else:
                        await page.close()
                        await asyncio.sleep(0.5)
                        page = await context.new_page()
                        await _open(page, url)
                    break
                await _move(page, a, b, trial)
                made.append((LETTERS[a], LETTERS[b]))
                state = write_state(code, apply(read_state(code, state), a, b))
            else:
                who.completed[int(trial)] = made
        else:
            await asyncio.sleep(0.05)
    raise AssertionError(f"{who.participant}: the session did not end in time")

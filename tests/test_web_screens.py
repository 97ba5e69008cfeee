"""What the participant sees in the browser (issue 34), in headless Chromium: every
instruction page (the board and the goal, the demonstration's refused move) and every
problem screen of a bundled battery, in each language and window size, checked by
geometry from the page's own boxes (no text on a peg or a piece, every text inside the
window, one piece size and one place for the feedback over the session) and saved as
pictures (``screenshots`` beside the test's folder)."""

from __future__ import annotations

import pytest

from tests.test_screens import check
from tests.web_tools import Participant, build_folder

#: The page's boxes, in CSS pixels of the viewport: texts, pegs and pieces drawn.
MEASURE = """() => {
  const r = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  // A text's box: its lines as laid out (not its element's box, which may be wider).
  const t = (el) => { const g = document.createRange(); g.selectNodeContents(el); return r(g); };
  const s = document.querySelector('.tol-stage');
  const texts = [...document.querySelectorAll('.tol-label')].filter((e) => e.textContent.trim()).map(t);
  const things = [...document.querySelectorAll('.tol-peg, .tol-piece')].map(r);
  const piece = document.querySelector('[data-board=board] .tol-piece');
  const notice = document.querySelector('.tol-notice');
  return {screen: s.dataset.screen, page: s.dataset.page || '', problem: s.dataset.problem || '',
          texts, things, size: [innerWidth, innerHeight],
          piece: piece ? {w: piece.getBoundingClientRect().width, h: piece.getBoundingClientRect().height} : null,
          notice_y: notice ? notice.style.top : null};
}"""


def _shots(chromium, server, tmp_path, language: str, size: tuple[int, int]) -> list[dict]:
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = ctx.new_page()
    page.goto(server.url(f"index.html?participant=S1&lang={language}"))
    page.click("[data-start]")
    out, tag = [], f"{language}-{size[0]}x{size[1]}"
    common = {"protocol": "web", "language": language, "size": list(size),
              "background": "#1e1e1e", "text_color": "#ffffff"}  # fmt: skip

    def shoot(name: str, extra: dict | None = None) -> None:
        m = page.evaluate(MEASURE)
        png = tmp_path / f"{tag}-{name}.png"
        page.screenshot(path=str(png))
        entry = {**common, "screen": name, "png": str(png), "texts": m["texts"],
                 "things": m["things"], **(extra or {})}  # fmt: skip
        if m["screen"] == "problem":
            entry["piece"] = m["piece"]
            entry["feedback_y_px"] = m["notice_y"]
        out.append(entry)

    k = 1
    while True:
        page.wait_for_function("() => document.querySelector('.tol-stage')?.dataset.screen")
        screen = page.evaluate("document.querySelector('.tol-stage').dataset.screen")
        if screen != "page":
            break
        if page.locator(".tol-notice").count():  # the demonstration: wait for its refusal
            # Read in the page as it shows (its next frame clears it: read afterwards, on a
            # loaded machine, it was gone: the full suite of 2026-11-27 14:17, load up to 51).
            refusal = page.wait_for_function(
                "() => document.querySelector('.tol-notice')?.textContent.trim() || false",
                timeout=20000,
            )
            assert refusal.json_value().strip()
        shoot(f"page-{k}")
        page.keyboard.press(" ")
        page.wait_for_function(
            "k => { const d = document.querySelector('.tol-stage')?.dataset || {};"
            " return d.screen !== 'page' || d.page !== String(k); }",
            arg=k,
        )
        k += 1

    seen = []

    def at_problem(record, move: int) -> bool:
        """Each problem's screen, until the first test problem's (a practice problem: played)."""
        if move == 0 and not record.copy:
            shoot(f"problem-{record.trial}-{record.problem_id}")
            seen.append(record.problem_id)
        return len(seen) >= 2 or (bool(seen) and not practice)

    practice = page.evaluate(
        "() => fetch('protocol.json').then((r) => r.json()).then((p) => p.plan.practice.problems.length)"
    )
    Participant(page, illegal=False, stop=at_problem).play()
    ctx.close()
    return out


@pytest.mark.parametrize(
    ("protocol", "languages", "sizes"),
    [
        ("hanoi-classic", ("en", "fr"), ((1280, 1024),)),
        pytest.param("london-tol-dx", ("en", "fr", "de", "es"),
                     ((1280, 1024), (1920, 1080), (1024, 768)), marks=pytest.mark.slow),
        pytest.param("hanoi-adjacent", ("en", "fr", "de", "es"),
                     ((1280, 1024), (1920, 1080), (1024, 768)), marks=pytest.mark.slow),
    ],
)  # fmt: skip
def test_the_browser_screens_read_clearly(protocol, languages, sizes, tmp_path, chromium,
                                          web_server_factory):  # fmt: skip
    site = build_folder(protocol, tmp_path / "site")
    server = web_server_factory(site)
    screens = []
    for language in languages:
        for size in sizes:
            screens += _shots(chromium, server, tmp_path, language, size)
    check(screens)
    names = {s["screen"] for s in screens}
    assert {"page-1", "page-2", "page-3"} <= names
    assert sum(1 for s in screens if "piece" in s) >= 2 * len(languages) * len(sizes)


def _browser_session(tmp_path, chromium, web_server_factory, text: str, participant: str):
    """The protocol ``text`` built for the browser and opened at its first page."""
    proto = tmp_path / "protocol.yaml"
    proto.write_text(text, encoding="utf-8")
    server = web_server_factory(build_folder(str(proto), tmp_path / "site"))
    ctx = chromium.new_context(viewport={"width": 1280, "height": 1024}, accept_downloads=True)
    page = ctx.new_page()
    page.goto(server.url(f"index.html?participant={participant}"))
    page.click("[data-start]")
    page.wait_for_function(f"() => ({SCREEN})() === 'page'")
    return ctx, page


#: The screen the stage shows (its data-screen).
SCREEN = "() => document.querySelector('.tol-stage')?.dataset.screen"


def test_only_the_examiner_key_ends_a_pause_in_the_browser(tmp_path, chromium, web_server_factory):
    from tests.test_pacing import PACED, WINDOW

    text = PACED.replace(WINDOW, "").replace("input: {examiner_key: f8}\n", "")
    ctx, page = _browser_session(tmp_path, chromium, web_server_factory, text, "W1")
    screen = SCREEN
    page.keyboard.press(" ")
    page.wait_for_function(f"() => ({screen})() === 'pause'", timeout=30000)
    assert "F9" in page.inner_text(".tol-examiner")
    page.keyboard.press(" ")  # the participant's key does nothing here
    box = page.locator(".tol-stage").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # nor a click
    page.wait_for_timeout(1000)
    assert page.evaluate(screen) == "pause"
    page.keyboard.press("F9")  # the examiner's key
    page.wait_for_function(
        "() => { const d = document.querySelector('.tol-stage')?.dataset || {};"
        " return d.screen === 'page' && d.page === '1'; }"
    )
    assert "Block one" in page.inner_text(".tol-page")
    page.keyboard.press(" ")
    page.wait_for_function("() => document.documentElement.dataset.tolStatus", timeout=60000)
    assert page.evaluate("document.documentElement.dataset.tolStatus") == "completed"
    ctx.close()


def test_the_controls_practice_in_the_browser(tmp_path, chromium, web_server_factory):
    # practice.controls: one move of the outlined piece (top of A) to the marked peg (B),
    # with real clicks; a click on the empty peg C first is refused.
    from tests.test_pacing import CONTROLS, WINDOW

    ctx, page = _browser_session(tmp_path, chromium, web_server_factory,
                                 CONTROLS.replace(WINDOW, ""), "C1")  # fmt: skip
    screen = SCREEN
    page.keyboard.press(" ")
    page.wait_for_function(f"() => ({screen})() === 'controls'")
    assert page.locator(".tol-marker:not([hidden])").count() == 1

    def click(peg: str) -> None:  # where a person clicks: the peg, wherever its pieces are
        box = page.locator(f"[data-peg={peg}]").bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.6)
        page.wait_for_timeout(200)

    click("C")
    assert page.evaluate(screen) == "controls"
    click("A")
    click("B")
    page.wait_for_function(f"() => ({screen})() !== 'controls'")
    page.wait_for_function("() => document.documentElement.dataset.tolStatus", timeout=60000)
    assert page.evaluate("document.documentElement.dataset.tolStatus") == "completed"
    ctx.close()

"""The reports as a clinician reads them, laid out by a real headless Chromium (issue 30).

A study of realistic sessions: recorded ones (tests/data/golden: Tower of London and
Tower of Hanoi, a resumed session, yoked copies), data imported by tol-import from
other tools' files (unsolved problems, measures the source cannot record), a log cut
by a kill just after a problem appeared (no move made), and participant fields, some
of them holding HTML and spreadsheet formulas. Every page is loaded by Chromium
(Playwright, Debian's /usr/bin/chromium) at the widths of the screens a clinic uses
and of A4 and Letter paper, and printed to PDF; the checks read the DOM:

- nothing is wider than the page (bounding boxes of every element);
- every number on the page has its meaning on the page, taken from the column registry;
- every figure panel shows the participant's data (no empty axis);
- participant text is shown as text: no script runs, no cell starts with a formula.

Screenshots are kept where ``TOL_REPORT_PAGES_SHOTS`` points (else the test's folder).
The browser is the ``chromium`` fixture of ``tests/browser_tools.py`` (one per worker).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from tests.runner_tools import exe
from tests.system_tools import extra
from tol_analysis.columns import SESSION_LEVELS, SESSIONS, TRIALS, level_name
from tol_analysis.read.logs import read_session
from tol_analysis.report.html import PROBLEM_COLUMNS, headline_columns, messages, write_reports
from tol_analysis.score.scores import score_sessions

extra("matplotlib", "plots", module_level=True)
extra("jinja2", "report", module_level=True)
extra("playwright", "dev", module_level=True)


ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/data/golden/sessions"
IMPORTS = ROOT / "tests/data/import"
SHOTS_ENV = "TOL_REPORT_PAGES_SHOTS"
#: Screens (CSS pixels wide) and paper (printable width at 12 mm margins, in CSS pixels).
SCREENS = (1280, 1920)
PAPERS = {"A4": (210 - 24) / 25.4 * 96, "Letter": (215.9 - 24) / 25.4 * 96}
#: What participant fields can hold: HTML, and text a spreadsheet would run.
HOSTILE = {
    "age": "71",
    "group": '=HYPERLINK("http://example.com/?leak","click me")',
    "note": "<script>document.title='pwned'</script><b>bold</b>",
    "cmd": "+cmd|' /C calc'!A0",
}


def _copy_session(stem: str, folder: Path, participant: str, *, fields: dict | None = None,
                  cut_after_onset: int | None = None) -> None:  # fmt: skip
    """A recorded session under another participant id, as tol-run would have written it.

    ``fields``: its participant fields (``tol-run --field``). ``cut_after_onset``: the log
    ends just after the onset of that problem attempt (trial number), as a kill leaves it
    (the sidecar as last saved during the session: ``incomplete``).
    """
    lines = (GOLDEN / f"{stem}.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    header, rows = lines[0], lines[1:]
    cols = header.rstrip("\n").split(",")
    pi, ev, tr = cols.index("participant"), cols.index("event"), cols.index("trial")
    out = []
    for line in rows:
        cells = line.split(",")
        cells[pi] = participant
        out.append(",".join(cells))
        if (
            cut_after_onset is not None
            and cells[ev] == "trial_onset"
            and cells[tr] == str(cut_after_onset)
        ):
            break
    name = f"{participant}_ses-1_{stem}"
    (folder / f"{name}.csv").write_text(header + "".join(out), encoding="utf-8")
    meta = json.loads((GOLDEN / f"{stem}.json").read_text(encoding="utf-8"))
    meta.update(participant=participant, event_log=f"{name}.csv")
    if fields is not None:
        meta["extra_fields"] = fields
    if cut_after_onset is not None:
        meta.update(status="incomplete", end_time=None, rows_written=len(out))
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def make_study(root: Path) -> Path:
    """The study's logs (see the module's description), in ``root/data``."""
    data = root / "data"
    data.mkdir(parents=True)
    _copy_session("london-shallice", data, "P01",
                  fields={"age": "34", "group": "control", "handedness": "right"})  # fmt: skip
    _copy_session("hanoi-classic", data, "P02", fields=HOSTILE)
    _copy_session("hanoi-classic", data, "P03", fields={"age": "58", "group": "patient"},
                  cut_after_onset=3)  # fmt: skip
    _copy_session("resumed", data, "P04", fields={"age": "45", "group": "patient"})
    _copy_session("copies", data, "P05")
    _copy_session("london-tol-dx", data, "P06", fields={"age": "9", "group": "control"})
    done = subprocess.run(
        [exe("tol-import"), str(IMPORTS / "pebl/tol-101.csv"), str(IMPORTS / "pebl/toh-201.csv"),
         str(IMPORTS / "expfactory/tower_of_london.csv"), "--output", str(data)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return data


def score_and_report(data: Path, out: Path, language: str = "en", only: str = ""):
    scores = score_sessions(read_session(p) for p in sorted(data.glob(f"{only}*.csv")))
    write_reports(scores, out, language=language)
    return scores


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    scores = score_and_report(make_study(root), root / "reports")
    shots = Path(os.environ.get(SHOTS_ENV) or root / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    return root, scores, shots


#: Run in the page: every element wider than the page, and the page's own width.
_OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > width + 0.5 || r.left < -0.5) {
      out.push(`${el.tagName.toLowerCase()}.${el.className && el.className.baseVal === undefined
                ? el.className : ''} ${Math.round(r.left)}..${Math.round(r.right)} > ${width}`);
    }
  }
  return {width, scroll: document.documentElement.scrollWidth, over: out.slice(0, 10)};
}"""

#: Run in the page: every number shown, with the measure it belongs to.
_NUMBERS_JS = """() => {
  const out = [];
  const isNumber = (s) => /^-?\\d+(\\.\\d+)?$/.test(s);
  for (const td of document.querySelectorAll('td')) {
    const text = td.textContent.trim();
    if (!isNumber(text)) continue;
    let key = td.dataset.measure || td.dataset.col || null;
    if (!key && td.dataset.participantField) key = 'field:' + td.dataset.participantField;
    if (!key) {  // a column's number: the column's header says what it is
      const table = td.closest('table');
      const header = table.tHead && table.tHead.rows[0] ? table.tHead.rows[0].cells[td.cellIndex] : null;
      key = header ? header.dataset.column || null : null;
    }
    if (!key && td.closest('[data-field]')) key = 'field:' + td.closest('[data-field]').dataset.field;
    out.push([key, text]);
  }
  const defined = {};
  for (const el of document.querySelectorAll('[data-defines]')) {
    defined[el.dataset.defines] = el.textContent.trim();
  }
  return {numbers: out, defined};
}"""


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.html"))


def _open(browser, html: Path, width: float, print_media: bool = False):
    page = browser.new_page(viewport={"width": int(width), "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    if print_media:
        page.emulate_media(media="print")
    page.goto(html.as_uri())
    return page, errors


def _base(key: str) -> str:
    """The registry column a per-level cell (``min4_problems_solved``) belongs to."""
    return re.sub(r"^min\d+_", "", key)


def page_faults(browser, html: Path, width: float, print_media: bool = False) -> list[str]:
    """What a reader would trip over on ``html`` laid out ``width`` CSS pixels wide: an
    element wider than the page, a number whose meaning the page does not give (or gives
    otherwise than the column registry), a technical figure without its explanation, a
    script error."""
    plain = {c.name: c.plain for t in (SESSIONS, TRIALS) for c in t if c.plain}
    page, errors = _open(browser, html, width, print_media)
    wide = page.evaluate(_OVERFLOW_JS)
    got = page.evaluate(_NUMBERS_JS)
    tech = page.eval_on_selector_all("tr[data-tech]", "rows => rows.map(r => r.dataset.tech)")
    page.close()
    faults = [f"script error: {e}" for e in errors]
    faults += [f"wider than the page ({width:.0f} px): {w}" for w in wide["over"]]
    if wide["scroll"] > wide["width"]:
        faults.append(f"scrolls sideways: {wide['scroll']} > {wide['width']}")
    if not got["numbers"]:
        faults.append("no number found (the check would see nothing)")
    for key, text in got["numbers"]:
        if key is None:
            faults.append(f"the number {text} belongs to no measure")
        elif not key.startswith("field:"):  # identity and technical values are named in place
            base = _base(key)
            if base not in got["defined"]:
                faults.append(f"{key}: no meaning on the page")
            elif base in plain and got["defined"][base] != plain[base]:
                faults.append(f"{key}: its meaning is not the registry's")
    faults += [f"technical row {k} without its meaning" for k in tech if k not in got["defined"]]
    return faults


def test_every_number_has_its_meaning_and_the_page_fits_a4(study, chromium):
    root, _, _ = study
    pages = _pages(root / "reports")
    assert len(pages) == 11
    for html in pages:
        assert page_faults(chromium, html, PAPERS["A4"], print_media=True) == [], html.name


def test_the_headline_comes_from_the_registry_and_never_rewards_failing(study):
    root, scores, _ = study
    headline = [c.name for c in headline_columns()]
    assert "total_excess_moves" not in headline  # over solved problems only: failing scores best
    assert {"problems_solved", "problems_solved_in_min"} <= set(headline)
    html = (root / "reports" / "P01_ses-1.html").read_text(encoding="utf-8")
    shown = re.findall(r'<td class="num" data-measure="([a-z_]+)">', html)
    row = scores.sessions.set_index("participant").loc["P01"]
    assert shown == [c for c in headline if not pd.isna(row[c])]
    for c in shown:  # the values of sessions.csv
        cell = re.search(rf'data-measure="{c}">([^<]+)<', html).group(1)
        value = row[c]
        assert cell == (f"{value:.2f}" if SESSIONS[c].type == "float" else str(int(value))), c
    # By level: the headline measures of every level the session had.
    for k in (2, 3, 4, 5):
        for c in SESSION_LEVELS:
            if (
                c.headline
                and level_name(k, c.name) in row
                and not pd.isna(row[level_name(k, c.name)])
            ):
                assert f'data-measure="{level_name(k, c.name)}"' in html, (k, c.name)


def test_demographics_and_participant_text_shown_as_text_never_run(study, chromium):
    root, _, _ = study
    page, errors = _open(chromium, root / "reports" / "P02_ses-1.html", 1280)
    fields = page.eval_on_selector_all(
        "[data-participant-field]", "els => els.map(e => [e.dataset.participantField, "
        "e.textContent.trim()])")  # fmt: skip
    title = page.title()
    scripts = page.eval_on_selector_all("body script", "els => els.length")
    bold = page.eval_on_selector_all("[data-participant-field] b", "els => els.length")
    page.close()
    assert errors == []
    assert "pwned" not in title
    assert scripts == 0  # the field's HTML is text
    assert bold == 0
    shown = dict(fields)
    assert shown["age"] == "71"
    assert shown["note"] == HOSTILE["note"]
    # A spreadsheet never sees a formula: the common escape, a leading apostrophe.
    assert shown["group"] == "'" + HOSTILE["group"]
    assert shown["cmd"] == "'" + HOSTILE["cmd"]


def test_a_problem_without_a_move_draws_no_empty_axis(study):
    root, scores, _ = study
    trials = scores.trials[scores.trials["participant"] == "P03"]
    no_move = trials[
        ~trials["trial"].isin(scores.moves["trial"][scores.moves["participant"] == "P03"])
    ]
    assert len(no_move) == 1
    assert not bool(no_move["complete"].iloc[0])  # the try a kill cut off
    html = (root / "reports" / "P03_ses-1.html").read_text(encoding="utf-8")
    assert "1 problem(s) with no move made are not drawn." in html
    for name in ("P01", "P02", "P03", "P04", "P05"):
        html = (root / "reports" / f"{name}_ses-1.html").read_text(encoding="utf-8")
        _assert_no_empty_axis(html, name)
    _assert_no_empty_axis((root / "reports" / "index.html").read_text(encoding="utf-8"), "index")


def _assert_no_empty_axis(html: str, name: str) -> None:
    """Every axes of every figure draws the participant's data (matplotlib's SVG groups, by gid)."""
    from xml.etree import ElementTree

    ns = "{http://www.w3.org/2000/svg}"
    n_panels = 0
    for svg in re.findall(r"<svg[^>]*xmlns:xlink.*?</svg>", html, re.S):  # matplotlib's
        tree = ElementTree.fromstring(svg)
        for group in tree.iter(f"{ns}g"):
            gid = group.get("id", "")
            if not re.match(r"^(distance|graph|by-level)-", gid):
                if re.match(r"^axes_\d+$", gid):
                    raise AssertionError(f"{name}: an axes without a name ({gid})")
                continue
            n_panels += 1
            ids = {g.get("id", "") for g in group.iter(f"{ns}g")}
            drawn = [p for p in group.iter(f"{ns}path") if len(p.get("d", "")) > 20]
            if gid.startswith("by-level"):
                assert drawn, (name, gid)
            else:
                assert any(i.startswith("participant-path-") for i in ids), (name, gid)
    assert n_panels, name


@pytest.mark.slow  # every page printed twice by headless Chromium
@pytest.mark.parametrize("paper", list(PAPERS))
def test_printed_pages_fit_the_paper(study, chromium, paper):
    root, _, shots = study
    for html in _pages(root / "reports"):
        assert page_faults(chromium, html, PAPERS[paper], print_media=True) == [], html.name
        page, _ = _open(chromium, html, PAPERS[paper], print_media=True)
        pdf = page.pdf(
            format=paper, margin=dict.fromkeys(("top", "bottom", "left", "right"), "12mm")
        )
        page.close()
        pages = int(re.findall(rb"/Type\s*/Pages\b.*?/Count\s+(\d+)", pdf, re.S)[0])
        assert 1 <= pages <= (4 if html.stem != "index" else 6), (html.name, paper, pages)
        (shots / f"{html.stem}-{paper}.pdf").write_bytes(pdf)


@pytest.mark.slow  # every page at two widths in headless Chromium
@pytest.mark.parametrize("width", SCREENS)
def test_screens_show_every_page_without_overflow(study, chromium, width):
    root, _, shots = study
    for html in _pages(root / "reports"):
        assert page_faults(chromium, html, width) == [], html.name
        page, _ = _open(chromium, html, width)
        page.screenshot(path=str(shots / f"{html.stem}-{width}.png"), full_page=True)
        page.close()


def test_the_overview_never_pools_tasks(study):
    root, scores, _ = study
    html = (root / "reports" / "index.html").read_text(encoding="utf-8")
    sections = re.findall(
        r'<section class="task" data-task="([a-z+]+)">(.*?)</section>', html, re.S
    )
    assert [s for s, _ in sections] == ["hanoi", "london"]
    tasks = scores.trials.groupby("participant")["task"].first()
    for task, body in sections:
        for participant in re.findall(r'data-session="([^"]+)-1"', body):
            assert tasks[participant] == task, (participant, task)
        figures = re.findall(r'id="by-level-([a-z_]+)"', body)
        assert figures == ["solved_in_min", "planning_time"], task


def test_the_problem_table_shows_the_trials_and_marks_the_cut(study):
    root, scores, _ = study
    html = (root / "reports" / "P04_ses-1.html").read_text(encoding="utf-8")
    trials = scores.trials[(scores.trials["participant"] == "P04")
                           & ~scores.trials["practice"].astype(bool)]  # fmt: skip
    rows = re.findall(r'<tr class="(cut|)" data-problem="([^"]+)">', html)
    assert [r[1] for r in rows] == trials["problem_id"].tolist()
    assert [r[0] == "cut" for r in rows] == (~trials["complete"].astype(bool)).tolist()
    assert any(r[0] == "cut" for r in rows)  # the resumed session's cut-off try
    assert "In italics: a try cut off" in html
    header = re.search(r'<table class="problems">.*?</thead>', html, re.S).group(0)
    assert re.findall(r'data-column="([a-z_]+)"', header) == list(PROBLEM_COLUMNS)


def test_every_language_names_and_explains_every_measure_shown():
    from tol_analysis.report.html import languages

    shown = {c.name for c in headline_columns()} | set(PROBLEM_COLUMNS) | {"goal", "status"}
    for language in languages():
        t = messages(language)
        for name in shown:
            column = SESSIONS[name] if name in SESSIONS.names else TRIALS[name]
            assert column.label, name  # the registry's English
            assert column.plain, name
            if language != "en":
                own = t.get("columns", {}).get(name, {})
                assert own.get("label"), (language, name)
                assert own.get("plain"), (language, name)


def test_a_report_in_french_is_french(study, tmp_path):
    root, _, _ = study
    score_and_report(root / "data", tmp_path, language="fr", only="P01_")
    html = (tmp_path / "P01_ses-1.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in html
    assert "<h1>Tour de Londres: rapport de séance</h1>" in html
    for c in headline_columns():
        if f'data-measure="{c.name}"' in html:
            assert messages("fr")["columns"][c.name]["plain"] in html.replace("&#39;", "'"), c.name


def test_the_checks_find_what_a_reader_would_trip_over(chromium, tmp_path):
    # The checks above must be able to fail: a page with each fault is caught.
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html><body><table><tr><td data-measure="problems_solved">3</td>'
        '<td>12</td></tr></table><div style="width: 3000px">wide</div>'
        '<dl><dd data-defines="problems_solved">made up</dd></dl></body></html>',
        encoding="utf-8",
    )
    faults = page_faults(chromium, bad, PAPERS["A4"], print_media=True)
    assert any(f.startswith("wider than the page") for f in faults), faults
    assert "the number 12 belongs to no measure" in faults
    assert "problems_solved: its meaning is not the registry's" in faults
    from matplotlib.figure import Figure

    from tol_analysis.report.html import _svg

    fig = Figure(figsize=(2, 2))
    fig.add_subplot().set_gid("distance-9")  # a panel with nothing drawn
    with pytest.raises(AssertionError):
        _assert_no_empty_axis(f"<p>{_svg(fig)}</p>", "empty")


def test_a_board_picture_shows_each_piece_on_its_peg():
    from xml.etree import ElementTree

    from tol_analysis.report.boards import board_svg
    from tol_tasks import Hanoi, London
    from tol_tasks.config import DEFAULT_BALL_COLORS

    ns = "{http://www.w3.org/2000/svg}"
    svg = ElementTree.fromstring(board_svg(London(), "GR|B|"))
    pegs = [float(line.get("x1")) for line in svg.iter(f"{ns}line")][1:]  # after the base
    balls = sorted((float(c.get("cx")), -float(c.get("cy")), c.get("fill"))
                    for c in svg.iter(f"{ns}circle"))  # fmt: skip
    # Green under red on peg A, blue on peg B, peg C empty: bottom to top, left to right.
    assert [(pegs.index(x), fill) for x, _, fill in balls] == [
        (0, DEFAULT_BALL_COLORS["G"]), (0, DEFAULT_BALL_COLORS["R"]), (1, DEFAULT_BALL_COLORS["B"])
    ]  # fmt: skip
    assert svg.find(f"{ns}title").text == "GR|B|"
    disks = list(ElementTree.fromstring(board_svg(Hanoi(3), "AAC")).iter(f"{ns}rect"))
    widths = sorted(float(d.get("width")) for d in disks)
    assert len(disks) == 3
    assert widths[0] < widths[1] < widths[2]


@pytest.mark.parametrize(
    ("value", "shown"),
    [("=1+1", "'=1+1"), ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"), ("@SUM(A1)", "'@SUM(A1)"),
     ("-2+3", "'-2+3"), ("\tx", "'\tx"), ("-2", "-2"), ("3.5", "3.5"), ("control", "control"),
     (None, "")],
)  # fmt: skip
def test_a_cell_a_spreadsheet_would_run_is_escaped(value, shown):
    from tol_analysis.cells import shown_text

    assert shown_text(value) == shown


def _formula_cells(pages: list[Path], folder: Path) -> dict[str, list[str]]:
    """Open each page in LibreOffice Calc (headless, Debian's), as a person pasting a report's
    tables into a spreadsheet would, and list the cells it reads as formulas."""
    from tests.system_tools import program

    done = subprocess.run(
        [program("soffice"), "--headless", f"-env:UserInstallation={(folder / 'lo').as_uri()}",
         "--infilter=HTML (StarCalc)", "--convert-to", "ods", "--outdir", str(folder),
         *map(str, pages)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = {}
    for page in pages:
        with zipfile.ZipFile(folder / f"{page.stem}.ods") as ods:
            content = ods.read("content.xml").decode("utf-8")
        assert "<table:table-cell" in content, page.name  # the tables arrived
        out[page.name] = re.findall(r'table:formula="([^"]+)"', content)
    return out


@pytest.mark.slow  # LibreOffice starts once (about 10 s)
def test_a_spreadsheet_reading_the_reports_finds_no_formula(study, tmp_path):
    root, _, _ = study
    pages = [root / "reports" / "P02_ses-1.html", root / "reports" / "index.html"]
    # The check can fail: the same field written raw in a table is a formula to Calc.
    raw = tmp_path / "raw.html"
    raw.write_text(f"<table><tr><td>{HOSTILE['group']}</td></tr></table>", encoding="utf-8")
    found = _formula_cells([*pages, raw], tmp_path)
    assert found["raw.html"] == ['of:=HYPERLINK(&quot;http://example.com/?leak&quot;;&quot;click '
                                 'me&quot;)']  # fmt: skip
    assert found["P02_ses-1.html"] == []
    assert found["index.html"] == []
    with zipfile.ZipFile(tmp_path / "P02_ses-1.ods") as ods:
        text = ods.read("content.xml").decode("utf-8")
    assert "<text:p>&apos;=HYPERLINK(&quot;http://example.com/?leak&quot;" in text  # as text


def test_the_technical_section_shows_missed_presses_and_keys_when_the_recorder_counts_them():
    # A sidecar of a session timed on arrival, as the runner writes it; the count of missed
    # keys only newer runners write (issue 29): read when there, no row when not.
    from tol_analysis.conventions import Conventions
    from tol_analysis.report.html import _flags, _technical
    from tol_tasks.session_data.sidecar import Sidecar

    data = json.loads((GOLDEN / "london-tol-dx.json").read_text(encoding="utf-8"))
    data["simulate"] = None
    data["timing"].update(input_method="xinput2-raw", unmatched_presses=3)
    t = messages()
    trials = pd.DataFrame({"complete": [True], "problem_id": ["x"], "attempt": [1]})
    for keys in (None, 2):
        if keys is not None:
            data["timing"]["unmatched_keys"] = keys
        meta = Sidecar.from_dict(data)
        rows = {r["key"]: r for r in _technical(meta, trials, Conventions(), t)}
        assert rows["timing_method"]["value"] == "on arrival (xinput2-raw)"
        assert rows["unmatched"]["value"] == 3
        assert rows["unmatched"]["check"] is True
        assert rows["unmatched"]["means"] == t["unmatched_means"]
        flags = _flags({"simulated": False, "status": "completed"}, meta, t)
        assert "3 presses polled" in flags
        if keys is None:
            assert "unmatched_keys" not in rows
        else:
            assert rows["unmatched_keys"]["value"] == 2
            assert "2 keys polled" in flags

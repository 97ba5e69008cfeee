"""Session reports and the study overview, rendered and printed by a real headless Chromium.

Three simulated sessions of the demo protocol (Tower of Hanoi: completed; aborted with
a real Escape key; killed after its first move and resumed) and a Tower of London one
with participant fields and move limits that leave problems unsolved are recorded by
tol-run and scored with ``--report``. Each page is loaded by Chromium: it must log no
console error, print on at most four A4 pages and at most four Letter pages, show the
numbers of sessions.csv, fit the paper and a clinic's screens and give the meaning of
every number (``tests/test_report_pages.py``'s checks). Screenshots are kept (see
SHOTS); ``docs/reports/`` holds those of C1, A1, R1, L1 and the overview.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.runner_tools import (
    exe,
    key_over_window,
    running_tol_run,
    session_files,
    tol_run,
    tol_score,
    wait_for_rows,
)
from tests.system_tools import program
from tests.test_report_pages import PAPERS, SCREENS, page_faults
from tol_analysis.report.html import headline_columns

#: Where the screenshots go: $TOL_REPORT_SHOTS, else the test's temporary folder.
SHOTS_ENV = "TOL_REPORT_SHOTS"
SIM = ["--simulate", "--seed", "3", "--windowed"]
#: A Tower of London protocol with participant fields, and move limits at the minimum (the
#: simulated participant's detours then leave problems unsolved).
CLINIC_LONDON = """format: 1
name: clinic-london
version: "2.1"
description: Four Tower of London problems from the standard start; the last two must be solved without a detour.
task: {type: london}
instructions: none
display: {fullscreen: false, window_size: [800, 600]}
feedback: none
timing: {inter_trial_interval: 0, feedback_duration: 0}
participant_fields: {age: "", group: ""}
blocks:
  - problems:
      - {id: s01, start: "GR|B|", goal: "|BG|R"}
      - {id: s03, start: "GR|B|", goal: "GB|R|"}
      - {id: s04, start: "GR|B|", goal: "G|RB|", move_limit: 3}
      - {id: s05, start: "GR|B|", goal: "RG|B|", move_limit: 4}
"""


def chromium_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Headless Chromium (Debian's package), logging the page's console to stderr."""
    return subprocess.run(
        [program("chromium", "chromium-browser"), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--allow-file-access-from-files", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def console_errors(stderr: str) -> list[str]:
    """The page's console errors and uncaught exceptions in Chromium's log."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line and
            re.search(r"error|uncaught", line, re.IGNORECASE)]  # fmt: skip


def pdf_pages(html: Path, paper: str, out: Path) -> int:
    """Pages of ``html`` printed to PDF on ``paper`` (A4 or letter)."""
    copy = out / f"{html.stem}-{paper}.html"
    copy.write_text(html.read_text(encoding="utf-8").replace(
        "</style>", f"@page {{ size: {paper}; }}\n</style>", 1), encoding="utf-8")  # fmt: skip
    pdf = out / f"{html.stem}-{paper}.pdf"
    done = chromium_cli("--no-pdf-header-footer", f"--print-to-pdf={pdf}", copy.as_uri())
    assert pdf.exists(), done.stderr
    counts = re.findall(rb"/Type\s*/Pages\b.*?/Count\s+(\d+)", pdf.read_bytes(), re.S)
    return int(counts[0])


def shown(html: Path) -> tuple[str, dict[str, str]]:
    """The page as Chromium built it (--dump-dom), and its data-measure cells."""
    done = chromium_cli("--dump-dom", html.as_uri())
    assert done.returncode == 0, done.stderr
    cells = dict(re.findall(r'data-measure="([^"]+)">([^<]*)<', done.stdout))
    return done.stdout, cells


def _registry_type(column: str) -> str | None:
    """A sessions.csv column's type in the column registry (a level's as its summary's)."""
    from tol_analysis.columns import SESSION_LEVELS, SESSIONS

    name = re.sub(r"^min\d+_", "", column)
    table = SESSION_LEVELS if name != column else SESSIONS
    return table[name].type if name in table.names else None


def _as_shown(value) -> str:
    if value is pd.NA:
        return "–"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.2f}"
    return str(value)


@pytest.fixture(scope="session")
def study(xdisplay, tmp_path_factory):
    """A completed, an aborted and a resumed session, scored with --report."""
    root = tmp_path_factory.mktemp("study")
    data = root / "data"
    done = tol_run("demo", "--participant", "C1", *SIM, "--speed", "40", "--output",
                   str(data / "C1"), env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with running_tol_run("demo", "--participant", "A1", *SIM, "--speed", "3", "--output",
                         str(data / "A1"), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(data / "A1", lambda rows: any(r["event"] == "place" and r["block"] != ""
                                                    and r["trial"] not in ("", "1")
                                                    for r in rows), timeout=120, proc=proc)  # fmt: skip
        key_over_window(data / "A1", "Escape", xdisplay)
        key_over_window(data / "A1", "Escape", xdisplay)  # the second press confirms
        proc.communicate(timeout=60)
    proc = subprocess.Popen([exe("tol-run"), "demo", "--participant", "R1", *SIM, "--speed", "3",
                             "--output", str(data / "R1")], env=xdisplay,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for_rows(data / "R1", lambda rows: sum(r["event"] == "place" for r in rows) >= 3,
                      timeout=120, proc=proc)  # fmt: skip
    finally:
        proc.kill()
        proc.wait()
    log, _ = session_files(data / "R1")
    done = tol_run("--resume", str(log), *SIM, "--speed", "40", env=xdisplay)
    assert done.returncode == 0, done.stderr
    protocol = root / "clinic-london.yaml"
    protocol.write_text(CLINIC_LONDON, encoding="utf-8")
    done = tol_run(str(protocol), "--participant", "L1", "--field", "age=67", "--field",
                   "group=patient", "--simulate", "--seed", "5", "--windowed", "--speed", "40",
                   "--output", str(data / "L1"), env=xdisplay)  # fmt: skip
    assert done.returncode == 0, done.stderr
    scored = root / "scored"
    done = tol_score(str(data), "--output", str(scored), "--report")
    assert done.returncode == 0, done.stderr
    shots = Path(os.environ.get(SHOTS_ENV) or root / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    return root, scored, shots


@pytest.mark.slow  # four sessions and headless Chromium
def test_every_session_report_renders_prints_and_shows_sessions_csv(study):
    root, scored, _ = study
    sessions = pd.read_csv(scored / "sessions.csv")
    for column in sessions.columns:  # counts stay whole numbers where a level is empty
        if _registry_type(column) == "integer":
            sessions[column] = sessions[column].astype("Int64").astype(object)
    assert sorted(sessions["status"]) == ["aborted", "completed", "completed", "completed"]
    london = sessions.set_index("participant").loc["L1"]
    assert 0 < london["problems_solved"] < london["problems"]  # partly solved
    assert (scored / "reports" / "index.html").exists()
    for _, row in sessions.iterrows():
        html = scored / "reports" / f"{row['participant']}_ses-{row['session']}.html"
        dom, cells = shown(html)
        assert 'src="http' not in dom
        assert 'href="http' not in dom
        assert "<svg" in dom  # figures inline
        for measure in (c.name for c in headline_columns()):
            if not pd.isna(row[measure]):
                assert cells[measure] == _as_shown(row[measure]), (row["participant"], measure)
        for column in sessions.columns:
            if column in cells:  # per level, min{k}_*
                assert cells[column] == _as_shown(row[column]), (row["participant"], column)
        for paper in ("A4", "letter"):
            assert pdf_pages(html, paper, root) <= 4, (html.name, paper)
        done = chromium_cli("--dump-dom", html.as_uri())
        assert console_errors(done.stderr) == [], done.stderr


@pytest.mark.slow  # four sessions and headless Chromium
def test_the_reports_say_what_happened_in_each_session(study):
    _, scored, _ = study
    reports = scored / "reports"
    aborted, _ = shown(reports / "A1_ses-1.html")
    assert 'data-field="status" class="status-aborted">aborted<' in aborted
    assert "stopped before its end (the quit key)" in aborted
    trials = pd.read_csv(scored / "trials.csv")
    cut = trials[(trials["participant"] == "A1") & ~trials["complete"].astype(bool)]
    assert len(cut) == 1  # the attempt the Escape key cut off
    assert re.search(rf'data-field="cut-off"[^>]*>{cut["problem_id"].iloc[0]} \(1\)<', aborted)
    resumed, _ = shown(reports / "R1_ses-1.html")
    assert re.search(r'data-field="resumes"[^>]*>1 time\(s\)<', resumed)
    completed, _ = shown(reports / "C1_ses-1.html")
    assert re.search(r'data-field="resumes"[^>]*>not resumed<', completed)
    assert "Simulated participant" in completed
    london, _ = shown(reports / "L1_ses-1.html")
    assert "<h1>Tower of London: session report</h1>" in london
    assert 'data-participant-field="age">67<' in london
    assert 'data-participant-field="group">patient<' in london
    assert "clinic-london, version 2.1" in london
    index, _cells = shown(reports / "index.html")
    assert 'data-status="aborted">1<' in index
    assert 'data-status="completed">3<' in index
    assert 'href="A1_ses-1.html"' in index
    assert "not completed" in index  # A1 is flagged
    assert re.findall(r'<section class="task" data-task="([a-z]+)">', index) == ["hanoi", "london"]
    assert len(re.findall(r'id="by-level-', index)) == 4  # two figures by level per task


@pytest.mark.slow  # four sessions and headless Chromium
def test_the_overview_renders_without_console_errors_and_prints(study):
    root, scored, _ = study
    index = scored / "reports" / "index.html"
    done = chromium_cli("--dump-dom", index.as_uri())
    assert console_errors(done.stderr) == [], done.stderr
    assert pdf_pages(index, "A4", root) <= 3


@pytest.mark.slow  # four sessions and headless Chromium
def test_the_real_sessions_pages_fit_paper_and_screens_and_explain_every_number(study, chromium):
    _, scored, shots = study
    for html in sorted((scored / "reports").glob("*.html")):
        for paper, width in PAPERS.items():
            assert page_faults(chromium, html, width, print_media=True) == [], (html.name, paper)
        for width in SCREENS:
            assert page_faults(chromium, html, width) == [], (html.name, width)
        page = chromium.new_page(viewport={"width": 900, "height": 1000})
        page.goto(html.as_uri())
        page.screenshot(path=str(shots / f"{html.stem}.png"), full_page=True)
        page.close()


def test_the_console_check_catches_a_page_error(tmp_path):
    # The check above must be able to fail: a page with an uncaught error is caught.
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>no_such_function();</script></body></html>")
    done = chromium_cli("--dump-dom", page.as_uri())
    assert console_errors(done.stderr), done.stderr


@pytest.mark.slow  # four sessions and headless Chromium
def test_a_report_without_or_with_a_damaged_sidecar_still_renders(study, tmp_path):
    _, _, _ = study
    root = study[0]
    log, sidecar = session_files(root / "data" / "C1")
    for case in ("missing", "damaged"):
        data = tmp_path / case
        data.mkdir()
        shutil.copy(log, data / log.name)
        if case == "damaged":
            (data / sidecar.name).write_text('{"sidecar_version": 1, "protocol": ')
        out = tmp_path / f"scored-{case}"
        done = tol_score(str(data), "--output", str(out), "--report")
        assert done.returncode == 0, done.stderr
        dom, cells = shown(out / "reports" / "C1_ses-1.html")
        assert 'data-field="no-sidecar"' in dom
        assert "sidecar (.json) is missing or unreadable" in dom
        sessions = pd.read_csv(out / "sessions.csv")
        assert cells["problems_solved"] == str(sessions["problems_solved"].iloc[0])


@pytest.mark.slow  # four sessions and headless Chromium
def test_reports_in_another_language(study, tmp_path):
    root = study[0]
    out = tmp_path / "fr"
    done = tol_score(str(root / "data" / "C1"), "--output", str(out), "--report",
                     "--language", "fr")  # fmt: skip
    assert done.returncode == 0, done.stderr
    dom, _ = shown(out / "reports" / "C1_ses-1.html")
    assert '<html lang="fr">' in dom
    assert "<h1>Tour de Hanoï: rapport de séance</h1>" in dom
    assert "Problèmes résolus" in dom
    bad = tol_score(str(root / "data" / "C1"), "--output", str(tmp_path / "x"), "--report",
                    "--language", "xx")  # fmt: skip
    assert bad.returncode == 2
    assert "--language 'xx': no report texts in that language" in bad.stderr
    assert "Traceback" not in bad.stderr

"""The examiner told what went wrong at the end of a run (issue 34): the sentences of
tol_tasks.session_data.quality from a sidecar, and tol-run saying them in a real window
after real key input."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.runner_tools import (
    exe_x,
    key_over_window,
    running,
    running_tol_run,
    session_files,
    sidecar_of,
    tol_score,
    wait_for_rows,
    xdotool,
)
from tol_tasks import texts
from tol_tasks.session_data.eventlog import read_event_log
from tol_tasks.session_data.quality import REFRESH_TOLERANCE, run_warnings


def test_a_clean_run_says_nothing():
    meta = {"frames": {"total_frames": 1000, "total_dropped_frames": 50},
            "timing": {"input_method": "xinput2-raw", "unmatched_presses": 0},
            "refresh_rate_hz": 59.95, "page": {"hidden": [{"time": 1.0, "state": "visible"}]}}  # fmt: skip
    assert run_warnings(meta, declared_refresh=60) == []  # 5 % dropped is not beyond 5 %


def test_each_fault_gets_its_sentence():
    meta = {
        "frames": {"total_frames": 1000, "total_dropped_frames": 370},
        "timing": {"input_method": "polled", "input_fallback_reason": "no X Input 2",
                   "unmatched_presses": 2, "input_lost": {"time": 12.25, "reason": "died"}},
        "refresh_rate_hz": 75.0,
        "page": {"hidden": [{"time": 3.0, "state": "hidden"}, {"time": 4.0, "state": "visible"},
                            {"time": 5.0, "state": "hidden"}], "fullscreen_exits": [6.0]},
    }  # fmt: skip
    got = run_warnings(meta, declared_refresh=60)
    assert got == [
        "370 of 1000 frames (37%) were dropped (more than 5%): the screen was not redrawn in "
        "time, so onsets may be late by a frame or more. Close other programs or check the "
        "graphics driver.",
        "Every press was stamped by polling once per frame (up to a frame late): no X Input 2.",
        "2 presses seen only by the window were stamped by polling (up to a frame late).",
        "On-arrival input stopped at 12.2 s (died); later presses were stamped by polling.",
        "The task was hidden 2 times (another tab or window was in front): the participant may "
        "have looked away.",
        "Full screen was left 1 time.",
        "The screen refreshed at 75.0 Hz, not the 60 Hz the protocol declares "
        "(display.refresh_rate): check the monitor's settings.",
    ]


@pytest.mark.parametrize("language", texts.languages())
def test_the_summary_is_in_every_language(language):
    """Every sentence of the summary in each language tol-tasks has texts in: all filled in,
    none left in English (but in English), numbers written with the language's decimal mark."""
    meta = {
        "frames": {"total_frames": 1000, "total_dropped_frames": 370},
        "timing": {"input_method": "polled", "unmatched_presses": 1, "unmatched_keys": 2,
                   "input_lost": {"time": 12.25, "reason": "died"}},
        "refresh_rate_hz": 75.0, "window": {"focus_lost": [1.0]},
        "page": {"hidden": [{"time": 3.0, "state": "hidden"}], "fullscreen_exits": [6.0, 7.0]},
    }  # fmt: skip
    english = run_warnings(meta, 59.94)
    got = run_warnings(meta, 59.94, language)
    assert len(got) == len(english) == 9
    assert not any("{" in w or "}" in w for w in got)
    if language != "en":
        assert [w for w in got if w in english] == []
    mark = "," if language in ("fr", "de", "es") else "."
    assert f"12{mark}2" in got[4]
    assert f"59{mark}94" in got[-1]
    assert f"75{mark}0" in got[-1]
    assert all(n in got[0] for n in ("370", "1000", "37"))


def test_the_summary_in_french_reads_as_written():
    meta = {"frames": {"total_frames": 200, "total_dropped_frames": 30},
            "timing": {"input_method": "xinput2-raw", "unmatched_presses": 1}}  # fmt: skip
    assert run_warnings(meta, None, "fr") == [
        "30 images sur 200 (15 %) ont été perdues (plus de 5 %) : l'écran n'a pas été "
        "redessiné à temps, les débuts d'essai peuvent donc avoir une image de retard ou plus. "
        "Fermez les autres programmes ou vérifiez le pilote graphique.",
        "1 appui vu seulement par la fenêtre a été horodaté par lecture à chaque image "
        "(jusqu'à une image de retard).",
    ]
    # A language tol-tasks has no texts in: English.
    assert run_warnings(meta, None, "xx") == run_warnings(meta, None)


PROTOCOL = """format: 1
name: summary
task: {type: london}
display: {fullscreen: false, window_size: [800, 600], refresh_rate: 144}
instructions: {pages: {en: [{text: Hello.}]}}
blocks:
  - problems:
      - {id: p1, start: "GR|B|", goal: "G|BR|"}
"""


def test_tol_run_tells_the_examiner_at_the_end(xdisplay, tmp_path):
    proto = tmp_path / "summary.yaml"
    proto.write_text(PROTOCOL, encoding="utf-8")
    out = tmp_path / "data"
    with running_tol_run(str(proto), "--participant", "Q01", "--windowed", "--quit-at-once", "--input-timing",
                         "polled", "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "page_shown" for r in rows),
                      timeout=240, proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(out, "space", xdisplay)
        wait_for_rows(out, lambda rows: any(r["event"] == "trial_onset" for r in rows),
                      timeout=60, proc=proc)  # fmt: skip
        time.sleep(0.3)
        key_over_window(out, "Escape", xdisplay)  # Escape ends the session (aborted)
        _, err = proc.communicate(timeout=120)
    warnings = [line for line in err.splitlines() if line.startswith("tol-run: warning: ")]
    assert any("stamped by polling" in w for w in warnings), err
    assert any("144 Hz" in w for w in warnings) == _off_144(out), err


def _x_window(env: dict, *how: str) -> str:
    """The id of the first X window ``xdotool search`` finds with ``how``."""
    found = subprocess.run([exe_x("xdotool"), "search", "--sync", *how], env=env, text=True,
                           capture_output=True, timeout=60, check=True)  # fmt: skip
    return found.stdout.split()[0]


def _off_144(out) -> bool:
    """Whether the session's measured refresh rate is unknown or off the 144 Hz its protocol
    declares (then, and only then, the examiner is warned). Xvfb flips as fast as the machine
    lets it: a loaded one measured within the tolerance of 144 Hz once (a full run), where
    the test expected the warning whatever was measured."""
    measured = sidecar_of(out)["refresh_rate_hz"]
    return measured is None or abs(measured - 144) > REFRESH_TOLERANCE * 144


def test_tol_run_logs_the_window_losing_focus(xdisplay, tmp_path):
    """Another real X window takes the keyboard and mouse while the participant reads a page:
    attention_lost and attention_back rows (why=focus), the sidecar's count, the warning."""
    proto = tmp_path / "summary.yaml"
    proto.write_text(PROTOCOL.replace("{en: [{text: Hello.}]}",
                                      "{en: [{text: Hello.}], fr: [{text: Bonjour.}]}"))  # fmt: skip
    out = tmp_path / "data"
    with running_tol_run(str(proto), "--participant", "Q02", "--windowed", "--quit-at-once",
                         "--language", "fr", "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, lambda rows: any(r["event"] == "page_shown" for r in rows),
                      timeout=240, proc=proc)  # fmt: skip
        own = subprocess.run([exe_x("xdotool"), "getwindowfocus"], env=xdisplay, text=True,
                             capture_output=True, timeout=30, check=True).stdout.strip()  # fmt: skip
        with running([exe_x("xmessage"), "-name", "other-window", "another window"],
                     env=xdisplay) as other:  # fmt: skip
            theirs = _x_window(xdisplay, "--classname", "other-window")
            for _ in range(2):  # lost twice: two rows, two times in the sidecar
                xdotool("windowraise", theirs, env=xdisplay)
                xdotool("windowfocus", "--sync", theirs, env=xdisplay)
                wait_for_rows(out, lambda rows: [r["event"] for r in rows if r["event"]
                              .startswith("attention")][-1:] == ["attention_lost"],
                              timeout=60, proc=proc)  # fmt: skip
                xdotool("windowfocus", "--sync", own, env=xdisplay)
                wait_for_rows(out, lambda rows: [r["event"] for r in rows if r["event"]
                              .startswith("attention")][-1:] == ["attention_back"],
                              timeout=60, proc=proc)  # fmt: skip
            other.kill()
        time.sleep(0.3)
        key_over_window(out, "Escape", xdisplay)  # Escape ends the session (aborted)
        _, err = proc.communicate(timeout=120)
    log, _ = session_files(out)
    rows = read_event_log(log).rows
    seen = [
        (r["event"], r["detail"], r["stamp"]) for r in rows if r["event"].startswith("attention")
    ]
    assert (
        seen
        == [("attention_lost", "why=focus", "polled"), ("attention_back", "why=focus", "polled")]
        * 2
    )
    times = [float(r["time"]) for r in rows]
    assert times == sorted(times)  # never back in time
    lost = sidecar_of(out)["window"]["focus_lost"]
    assert lost == [float(r["time"]) for r in rows if r["event"] == "attention_lost"]
    warnings = [line for line in err.splitlines() if line.startswith("tol-run: warning: ")]
    # The examiner's summary in the session's language (French here).
    assert "La fenêtre a perdu le clavier et la souris 2 fois (une autre fenêtre était devant) : " \
        "le participant a pu regarder ailleurs." in [w.removeprefix("tol-run: warning: ")
                                                     for w in warnings], err  # fmt: skip
    assert any("144 Hz" in w and "protocole" in w for w in warnings) == _off_144(out), err
    # The clinician's report says so too: a flag in the overview, a row in the session's.
    done = tol_score(str(out), "--output", str(tmp_path / "scores"), "--report")
    assert done.returncode == 0, done.stderr
    reports = tmp_path / "scores" / "reports"
    assert "attention lost 2 times" in (reports / "index.html").read_text(encoding="utf-8")
    session = next(p for p in reports.glob("*.html") if p.name != "index.html")
    assert "Attention lost" in session.read_text(encoding="utf-8")


def test_attention_lost_is_a_bids_event_lasting_until_it_came_back():
    from tol_analysis.export.bids_events import run_events

    def row(event, time, **kw):
        return {"event": event, "time": str(time), "detail": "", "block": "", "trial": "",
                "problem_id": "", "trial_time": "", "reason": "", "moves": "", **kw}  # fmt: skip

    rows = [row("session_start", 0.0), row("trial_onset", 1.0, block="test", trial="1"),
            row("attention_lost", 2.5, detail="why=focus"),
            row("attention_back", 4.0, detail="why=focus"),
            row("trial_end", 5.0, reason="solved"), row("attention_lost", 6.0, detail="why=focus"),
            row("session_end", 7.5, reason="completed")]  # fmt: skip
    events = run_events(rows, zero=0.0)
    away = events[events["trial_type"] == "attention_lost"]
    assert away["onset"].tolist() == [2.5, 6.0]
    assert away["duration"].tolist() == [1.5, 1.5]  # the second: until the session ended
    assert "attention_back" not in set(events["trial_type"])

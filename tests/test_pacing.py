"""Examiner pacing in a real window with real key input (issue 34): a pause only the
examiner key ends (space and clicks, which leave a participant's page, do nothing there),
a block's own pages, and the order the plan gives them (rules version 2)."""

from __future__ import annotations

import time
from contextlib import contextmanager

from tests.runner_tools import (
    key_over_window,
    running_tol_run,
    session_files,
    wait_for_rows,
    xdotool,
)
from tol_tasks.session_data.eventlog import read_event_log

#: The window line of the protocols below (the browser tests leave it out).
WINDOW = "display: {fullscreen: false, window_size: [800, 600]}\n"

PACED = """format: 1
name: paced
task: {type: london}
display: {fullscreen: false, window_size: [800, 600]}
input: {examiner_key: f8}
instructions: {pages: {en: [{text: Hello.}]}}
timing: {inter_trial_interval: 0, feedback_duration: 0.2}
pauses: {before_test: true}
practice:
  problems:
    - {id: pr1, start: "GR|B|", goal: "G|BR|", time_limit: 0.5}
blocks:
  - name: one
    pages: {en: [{text: "Block one: plan first."}]}
    problems:
      - {id: p1, start: "GR|B|", goal: "G|BR|", time_limit: 0.5}
"""


def _events(rows):
    return [(r["event"], r["problem_id"]) for r in rows]


def _shown(page_id: str):
    """A row predicate: the page ``page_id`` has been shown."""
    return lambda rows: ("page_shown", page_id) in _events(rows)


@contextmanager
def _past_first_page(tmp_path, text: str, participant: str, xdisplay):
    """tol-run of the protocol ``text``, its first page passed with space: (folder, process)."""
    proto = tmp_path / "protocol.yaml"
    proto.write_text(text, encoding="utf-8")
    out = tmp_path / "data"
    with running_tol_run(str(proto), "--participant", participant, "--windowed",
                         "--output", str(out), env=xdisplay) as proc:  # fmt: skip
        wait_for_rows(out, _shown("page-1"), timeout=240, proc=proc)
        time.sleep(0.3)
        key_over_window(out, "space", xdisplay)  # the participant's page: space goes on
        yield out, proc


def test_only_the_examiner_key_ends_a_pause(xdisplay, tmp_path):
    with _past_first_page(tmp_path, PACED, "E01", xdisplay) as (out, proc):
        shown = _shown
        # The practice problem times out by itself; then the examiner's pause.
        wait_for_rows(out, shown("pause-one"), timeout=120, proc=proc)
        time.sleep(0.3)
        key_over_window(out, "space", xdisplay)  # does nothing on a pause
        xdotool("click", "1", env=xdisplay)  # nor does a click
        time.sleep(1.0)
        rows = read_event_log(session_files(out)[0]).rows
        assert ("page_left", "pause-one") not in _events(rows)
        key_over_window(out, "F8", xdisplay)  # the examiner's key
        wait_for_rows(out, shown("one-page-1"), timeout=60, proc=proc)
        time.sleep(0.3)
        key_over_window(out, "space", xdisplay)  # the block's page: the participant goes on
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    rows = read_event_log(session_files(out)[0]).rows
    events = _events(rows)
    order = [("page_shown", "page-1"), ("page_left", "page-1"), ("trial_onset", "pr1"),
             ("page_shown", "pause-one"), ("page_left", "pause-one"), ("page_shown", "one-page-1"),
             ("page_left", "one-page-1"), ("trial_onset", "p1")]  # fmt: skip
    assert [e for e in events if e in order] == order
    left = next(r for r in rows if (r["event"], r["problem_id"]) == ("page_left", "pause-one"))
    shown_at = next(r for r in rows if (r["event"], r["problem_id"]) == ("page_shown", "pause-one"))
    assert left["input"] == "key"
    assert float(left["time"]) > float(shown_at["time"]) + 1.0  # space and the click waited
    # No test_start message when the examiner starts the test; the block_start came first.
    assert ("block_start", "") in [(r["event"], r["problem_id"]) for r in rows]


CONTROLS = """format: 1
name: controls
task: {type: london}
display: {fullscreen: false, window_size: [800, 600]}
instructions: {pages: {en: [{text: Hello.}]}}
timing: {inter_trial_interval: 0, feedback_duration: 0.2}
practice:
  controls: true
  problems:
    - {id: pr1, start: "GR|B|", goal: "G|BR|", time_limit: 0.5}
blocks:
  - problems:
      - {id: p1, start: "GR|B|", goal: "G|BR|", time_limit: 0.5}
"""


def test_the_controls_practice_takes_one_move_to_the_marked_peg(xdisplay, tmp_path):
    # practice.controls: after the pages, the outlined piece (the top of peg A: the first
    # legal move from GR|B| is A -> B) goes to the marked peg with real clicks; a click on
    # the empty peg C first is refused (the move stays shown). Logged as a page, not scored.
    from tests.runner_tools import click_peg, sidecar_of

    with _past_first_page(tmp_path, CONTROLS, "C01", xdisplay) as (out, proc):
        shown = _shown
        wait_for_rows(out, shown("controls"), timeout=60, proc=proc)
        time.sleep(0.3)
        meta = sidecar_of(out)
        click_peg("C", meta, xdisplay)  # an empty peg: nothing to take
        time.sleep(0.5)
        assert ("page_left", "controls") not in _events(read_event_log(session_files(out)[0]).rows)
        click_peg("A", meta, xdisplay)
        click_peg("B", meta, xdisplay)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    rows = read_event_log(session_files(out)[0]).rows
    events = _events(rows)
    order = [("page_left", "page-1"), ("page_shown", "controls"), ("page_left", "controls"),
             ("trial_onset", "pr1")]  # fmt: skip
    assert [e for e in events if e in order] == order
    left = next(r for r in rows if (r["event"], r["problem_id"]) == ("page_left", "controls"))
    assert left["input"] == "mouse"
    # Nothing of it is a trial: the first trial is the practice problem.
    assert next(r for r in rows if r["trial"])["problem_id"] == "pr1"

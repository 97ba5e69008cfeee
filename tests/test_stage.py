"""The screens between trials (tol_tasks.runner.stage) on a real window: a press read after the
flip that showed a screen but stamped before it (the on-arrival listener's stamp, read late on
a loaded machine) is not taken as meant for that screen, and no row goes before the screen's.

Found under load (2026-11-26): a quit question answered by a key stamped 58 ms before the
question's flip was logged as ``page_shown`` 10.011 then ``page_left`` 9.953, and tol-score
refused the whole log ("the times go backwards"). The input here is a scripted source: the
presses and their stamps are the test's data; the window, the flips, the frame recorder, the
session clock and the stage are the real ones.
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import json, sys
from psychopy import visual
from tol_tasks.protocol_format.load import load_protocol_text
from tol_tasks.protocol_format.model import Page
from tol_tasks.runner.clock import session_clock
from tol_tasks.runner.events import InputEvent
from tol_tasks.runner.frames import FrameRecorder
from tol_tasks.runner.inputs import InputSource
from tol_tasks.runner.screen import TaskScreen
from tol_tasks.runner.play import ProblemTrial
from tol_tasks.runner.stage import AbortSession, Stage
from tol_tasks.session_data.trial_rows import in_time_order


class Scripted(InputSource):
    # Each poll hands out the next list of events; a "before" event is stamped at the time
    # the test saved just before the screen was drawn (so before its flip), an "after" one
    # at the poll (after the flip).
    method = "scripted"

    def __init__(self, clock):
        self.clock, self.polls, self.before = clock, [], None

    def poll(self):
        now = self.clock.getTime()
        batch = self.polls.pop(0) if self.polls else []
        return [InputEvent("key", self.before if when == "before" else now, key=key,
                           source="key", stamp="arrival") for key, when in batch]

    def pointer(self):
        return (0.0, 0.0)


proto = ("format: 1\nname: stage\ntask: {type: london}\ndisplay: {fullscreen: false}\n"
         'blocks:\n  - problems:\n      - {id: p1, start: "GR|B|", goal: "G|BR|"}\n')
lp = load_protocol_text(proto)
view = lp.resolve("en")
win = visual.Window(size=(800, 600), units="height", checkTiming=False)
clock = session_clock()
rows = []
inp = Scripted(clock)
stage = Stage(TaskScreen(win, lp, view.messages), FrameRecorder(win), inp, clock,
              lambda name=None, **v: rows.append([name, v["time"], v.get("problem_id")]),
              lp, view)
out = {}

# An instruction page: a space stamped before its flip is ignored; the next one ends it.
inp.before = clock.getTime()
inp.polls = [[("space", "before")], [], [("space", "after")]]
stage.page(Page(text="Hello"), "page-1")
out["page"] = rows[:]

# The pause only the examiner ends: likewise with the examiner key.
rows.clear()
inp.before = clock.getTime()
key = lp.model.input.examiner_key
inp.polls = [[(key, "before")], [(key, "after")]]
stage.pause("Pause", "pause-1")
out["pause"] = rows[:]

# The quit question answered (quit key again) by a key stamped before the question's flip:
# answered at once, as a key read with the quit key is, the question's rows not written.
rows.clear()
quit_key = lp.model.input.quit_key
inp.before = clock.getTime()
inp.polls = [[(quit_key, "before")]]
out["confirm_early"] = [stage.confirm(inp.before - 0.01), rows[:], stage.quit_prompts[-1].answered
                        == inp.before]

# The same question answered after its flip: page_shown, then page_left at the answer.
rows.clear()
inp.before = clock.getTime()
inp.polls = [[], [("a", "after")]]
out["confirm_late"] = [stage.confirm(inp.before - 0.01), rows[:]]

# The quit key at once (no question), stamped before a problem's onset flip and read after
# it (the onset's row written): the session ends; its abort row, made as the session's
# record makes it (trial_rows.in_time_order after the last row), goes after the onset's.
rows.clear()
stage.confirm_quit = False
trial = ProblemTrial(stage, lp.block_problems(0)[0], "problems", 1, 1, "log.csv")
inp.polls = [[(quit_key, "before")]]
inp.before = clock.getTime()
try:
    trial.play()
except AbortSession as ab:
    row = in_time_order({"event": "abort", "time": ab.t, "stamp": ab.stamp, "input": "key"},
                        max(r[1] for r in rows), clock.getTime())
    rows.append([row["event"], row["time"], row.get("detail")])
    out["quit_at_once"] = [rows[:], ab.t == inp.before, ab.stamp, row["stamp"]]

# A problem drawn unseen while a fixation cross shows (a scanner design's lead-in, before its
# onset is due): the back buffer then holds the cross alone (nothing of the problem can show
# early), and the problem's first frame sets no text its unseen drawing did not set.
import numpy as np
proto = ("format: 1\nname: prep\ntask: {type: london}\n"
         "display: {fullscreen: false, show_time_left: true, show_move_counter: true}\n"
         'blocks:\n  - problems:\n      - {id: p1, start: "GR|B|", goal: "G|BR|", time_limit: 30}\n')
lp = load_protocol_text(proto)
view = lp.resolve("en")
stage = Stage(TaskScreen(win, lp, view.messages), FrameRecorder(win), inp, clock,
              lambda name=None, **v: None, lp, view)
cross = stage.screen.label("message", small=False)


def back_with_cross():
    cross.draw("+")
    frame = np.asarray(win._getFrame(buffer="back"))
    win.clearBuffer()
    return frame


win.clearBuffer()
alone = back_with_cross()
trial = ProblemTrial(stage, lp.block_problems(0)[0], "problems", 1, 1, "log.csv")
trial.draw()
seen = back_with_cross()  # the control: a problem drawn and not cleared shows under the cross
trial = ProblemTrial(stage, lp.block_problems(0)[0], "problems", 1, 2, "log.csv")
trial.prepare()
prepared = back_with_cross()
texts = {k: label._text for k, label in trial.labels.items()}
trial._begin()
out["prepare"] = [bool((seen != alone).any()), bool((prepared != alone).any()), texts,
                  {k: label._text for k, label in trial.labels.items()}]
win.close()
print("STAGE " + json.dumps(out))
"""


def _run(env) -> dict:
    run = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("STAGE ")]
    return json.loads(line.removeprefix("STAGE "))


def _in_time_order(rows: list) -> None:
    times = [t for _, t, _ in rows]
    assert times == sorted(times), rows


def test_a_press_stamped_before_a_screen_is_not_meant_for_it(xdisplay):
    got = _run(xdisplay)
    for name in ("page", "pause"):
        rows = got[name]
        assert [r[0] for r in rows] == ["page_shown", "page_left"], (name, rows)
        _in_time_order(rows)
    # The early quit answer: True (the quit key again), no page row, answered at its stamp.
    ended, rows, at_its_stamp = got["confirm_early"]
    assert ended is True
    assert rows == []
    assert at_its_stamp
    # The answer after the flip: the question's two rows, in time order; another key: go on.
    ended, rows = got["confirm_late"]
    assert ended is False
    assert [(r[0], r[2]) for r in rows] == [("page_shown", "quit-confirm"),
                                            ("page_left", "quit-confirm")]  # fmt: skip
    _in_time_order(rows)


def test_the_quit_key_at_once_stamped_before_an_onset_is_logged_after_it(xdisplay):
    rows, at_its_stamp, stamp, row_stamp = _run(xdisplay)["quit_at_once"]
    # The onset (its flip), then the abort, in time order: read after the flip, logged when
    # read (stamp clock), the press's own time and stamp kept in detail.
    assert [r[0] for r in rows] == ["trial_onset", "abort"]
    _in_time_order(rows)
    assert at_its_stamp
    assert stamp == "arrival"
    assert row_stamp == "clock"
    (onset_t, abort_t) = (rows[0][1], rows[1][1])
    assert abort_t >= onset_t
    detail = dict(pair.split("=") for pair in rows[1][2].split(";"))
    assert detail["at_stamp"] == "arrival"
    assert float(detail["at"]) < onset_t


def test_a_problem_drawn_unseen_before_its_onset_shows_nothing_and_is_laid_out(xdisplay):
    """A scanner design's first problem is drawn once, unseen, while the lead-in's cross
    shows (``ProblemTrial.prepare``): its first drawing took 44 ms (text layouts, textures)
    against 2.5 ms for the next problem, and made the first onset 21-53 ms late on Xvfb."""
    control, shows, before, after = _run(xdisplay)["prepare"]
    assert control, "a problem drawn under the cross would show: the comparison sees it"
    assert not shows  # the back buffer holds the cross alone
    assert before["moves"]
    assert "30" in before["time_left"]
    drawn = {k: v for k, v in after.items() if k != "notice"}
    assert drawn == {k: before[k] for k in drawn}  # the first frame set no new text

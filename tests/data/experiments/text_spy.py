"""Record every text PsychoPy draws on the window during a ``tol-run`` session.

A test double around PsychoPy's text stimuli (not around the runner): the
``draw`` of every ``TextStim`` and ``TextBox2`` (the class PsychoPy's own
window messages use, such as its "Attempting to measure frame rate" message)
records the text it draws, whoever made the stimulus. Then ``tol-run`` runs
with the arguments given, in this process.

    python text_spy.py OUT.json TOL-RUN-ARGUMENTS...

OUT.json receives ``{"status": tol-run's exit status, "texts": [each text
drawn, once, in the order first drawn]}``.
"""

import json
import sys

from psychopy.visual.text import TextStim
from psychopy.visual.textbox2 import TextBox2

from tol_tasks.cli import run_main

drawn: dict[str, None] = {}


def spy(cls):
    real = cls.draw

    def draw(self, *args, **kwargs):
        drawn.setdefault(str(self.text), None)
        return real(self, *args, **kwargs)

    cls.draw = draw


for cls in (TextStim, TextBox2):
    spy(cls)
status = run_main(sys.argv[2:])
with open(sys.argv[1], "w", encoding="utf-8") as f:
    json.dump({"status": status, "texts": list(drawn)}, f, ensure_ascii=False)

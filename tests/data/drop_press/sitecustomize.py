"""Test-only: makes the X Input 2 listener miss one press, as it misses a touch it is not told of.

Put this folder on PYTHONPATH. In the listener's process (and only there) standard
output is wrapped so that the press and release lines of the Nth click
(``TOL_DROP_PRESS``, counted from 1) never reach tol-tasks; every other process
is left alone.
"""

import os
import sys

if "tol_tasks.runner.xlistener" in getattr(sys, "orig_argv", []) and os.environ.get(
    "TOL_DROP_PRESS"
):

    class _Dropping:
        def __init__(self, out, nth):
            self._out, self._nth, self._presses, self._dropping = out, nth, 0, False

        def write(self, text):
            if text.startswith("P "):
                self._presses += 1
                self._dropping = self._presses == self._nth
            if self._dropping and text[:2] in ("P ", "R "):
                if text.startswith("R "):
                    self._dropping = False
                return len(text)
            return self._out.write(text)

        def __getattr__(self, name):
            return getattr(self._out, name)

    sys.stdout = _Dropping(sys.stdout, int(os.environ["TOL_DROP_PRESS"]))

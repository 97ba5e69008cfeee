"""Counterbalanced forms and block orders."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from tests.runner_tools import session_files, sidecar_of, tol_run
from tol_tasks.protocol_format.counterbalance import assignment_index, balanced_latin_square
from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import load_protocol_text
from tol_tasks.session_data.eventlog import read_event_log


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8])
def test_balanced_latin_square(n):
    # Williams (1949): each condition once per position in every n rows, and every
    # ordered pair of conditions adjacent equally often (once for even n, twice over
    # the 2n rows for odd n).
    rows = balanced_latin_square(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    assert all(sorted(r) == list(range(n)) for r in rows)
    for pos in range(n):
        assert Counter(r[pos] for r in rows) == {c: len(rows) // n for c in range(n)}
    pairs = Counter(p for r in rows for p in pairwise(r))
    if n > 1:
        assert set(pairs.values()) == {1 if n % 2 == 0 else 2}
        assert len(pairs) == n * (n - 1)


def test_assignment():
    assert [assignment_index("session", "x", s, 2) for s in (1, 2, 3, 4)] == [0, 1, 0, 1]
    assert [assignment_index("participant", p, 1, 3) for p in ("P001", "P002", "P003", "P004")] == [
        0,
        1,
        2,
        0,
    ]
    assert assignment_index("participant", "anne", 1, 4) == assignment_index(
        "participant", "anne", 9, 4
    )


FORMS = """\
format: 1
name: forms
task: {type: london}
display: {fullscreen: false}
feedback: none
timing: {inter_trial_interval: 0, feedback_duration: 0}
counterbalance:
  by: session
  forms:
    A: [set-a]
    B: [set-b]
blocks:
  - name: set-a
    problems:
      - {id: a1, start: "GR|B|", goal: "G|R|B"}
  - name: set-b
    problems:
      - {id: b1, start: "GR|B|", goal: "GB|R|"}
"""


def test_forms_are_checked():
    with pytest.raises(
        ProtocolError,
        match=r":11: counterbalance.forms.B\[0\]: form 'B' names the block 'set-c', which does not exist. Suggested fix: did you mean 'set-b'",
    ):
        load_protocol_text(FORMS.replace("B: [set-b]", "B: [set-c]"))
    lp = load_protocol_text(FORMS)
    assert [lp.form_for("P1", s) for s in (1, 2)] == [("A", [0]), ("B", [1])]
    orders = load_protocol_text(FORMS.replace("  forms:\n    A: [set-a]\n    B: [set-b]\n", ""))
    assert orders.form_for("P1", 1) == ("order-1", [0, 1])
    assert orders.form_for("P1", 2) == ("order-2", [1, 0])


def test_sessions_get_their_forms(xdisplay, tmp_path):
    proto = tmp_path / "forms.yaml"
    proto.write_text(FORMS)
    for session, form, pid in ((1, "A", "a1"), (2, "B", "b1")):
        out = tmp_path / f"s{session}"
        done = tol_run(str(proto), "--simulate", "--speed", "40", "--windowed", "--participant", "C1",
                       "--session", str(session), "--output", str(out), env=xdisplay)  # fmt: skip
        assert done.returncode == 0, done.stderr
        meta = sidecar_of(out)
        assert meta["counterbalance"] == {
            "by": "session",
            "form": form,
            "blocks": [f"set-{form.lower()}"],
        }
        rows = read_event_log(session_files(out)[0]).rows
        assert rows[0]["detail"].endswith(f";form={form}")
        assert {r["problem_id"] for r in rows if r["event"] == "trial_onset"} == {pid}

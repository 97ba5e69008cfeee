"""What a session is, declared once: when two logs are the same session, a copy, a restart or a conflict.

A *session* is a participant's visit: a participant id and a session number.
Each protocol played in it is a *task* of that session, as BIDS has it
(``sub-<id>/ses-<n>/beh/sub-<id>_ses-<n>_task-<name>_beh.tsv``): a battery
that gives a Tower of Hanoi and a Tower of London protocol in one visit is
one session with two tasks. Every command follows the same rules (``tol-run``
refusing a second log, the browser's storage, ``tol-import`` and ``tol-score``):

- **I1, the key.** A log's :class:`SessionKey` is its participant and session
  (every row carries them) and its task: the ``protocol=`` of its
  ``session_start`` row's detail (tol-run, the Builder component and the
  browser write the protocol's name there), or ``format=`` for a session
  tol-import converted (the source format stands for the protocol). A log
  that names neither has the task ``""`` (unknown).
- **I2, different keys.** Logs with different keys are different sessions,
  or different tasks of one session: each is scored, side by side (the
  tables carry the ``protocol`` column and wide.csv names carry the task).
- **I3, one key.** Several logs with one key are, in this order:
  a **copy** (the same bytes, the same rows, or the rows of the other log up
  to some point, as a backup made while the session ran): the most complete
  log is the session; a **restart** on purpose (the newer log's sidecar names
  the older in ``earlier_attempts``, with a higher ``session_attempt``:
  ``tol-run --new-attempt``, and ``tol-web serve`` for a link opened again in
  another browser): the newest attempt is the session; otherwise a
  **conflict**: which log is the participant's session cannot be known, and
  the fix depends on where the logs came from (:func:`conflict_fix`). A
  resumed session is one log (``tol-run --resume`` and a browser reload
  continue the same file), never two.
- **I4, an unknown task** (a log naming no protocol) may be the same task as
  any other of its session: ``tol-run`` refuses to start a second log beside
  it, and ``tol-score`` compares it with every log of its session.
"""

from __future__ import annotations

from typing import NamedTuple

from .detail import parse_detail

#: The keys of a ``session_start`` row's detail that name the task, in order.
TASK_KEYS = ("protocol", "format")

#: Where a log came from, as :func:`origin` names it.
LAB, BROWSER, IMPORT = "lab", "browser", "import"


class SessionKey(NamedTuple):
    """The session and task a log belongs to (rule I1)."""

    participant: str
    session: int
    task: str

    def describe(self) -> str:
        task = f", task {self.task}" if self.task else ""
        return f"participant {self.participant!r} session {self.session}{task}"


def task_of(detail: str) -> str:
    """The task a ``session_start`` row's detail names (``""`` when none)."""
    return task_in(parse_detail(detail))


def task_in(pairs: dict[str, str]) -> str:
    """The task a ``session_start`` row's detail, read into pairs, names (``""`` when none)."""
    return next((pairs[k] for k in TASK_KEYS if pairs.get(k)), "")


def same_task(a: str | None, b: str | None) -> bool:
    """Whether two logs of one session may be the same task (rule I4: unknown matches any)."""
    return not a or not b or a == b


def origin(sidecar: dict | None) -> str:
    """Where a log came from, by its sidecar (read as plain JSON): ``lab`` (tol-run, the
    Builder component, a sidecar of version 1), ``browser`` (tol-web) or ``import``."""
    sidecar = sidecar or {}
    recorder = sidecar.get("recorder") or {}
    name = recorder.get("name") if isinstance(recorder, dict) else None
    if name == "tol-web":
        return BROWSER
    if name == "tol-import" or sidecar.get("source"):
        return IMPORT
    return LAB


#: What to do about two different logs of one session, by where they came from (rule I3).
CONFLICT_FIXES = {
    LAB: (
        "keep one log of the session in the folders scored (move the other away). To go on "
        "with an interrupted session use tol-run --resume LOG; to run it again on purpose, "
        "tol-run --new-attempt (the earlier log is then left out with a note); if they are "
        "different sessions, one was given the wrong --participant or --session"
    ),
    BROWSER: (
        "the participant opened the study link twice in different browsers (or after the "
        "browser's data were cleared), so each run kept its own log. Keep the run the "
        "participant is to be scored on in the folders scored (usually the first that "
        "reached the end) and move the other away; to give such runs different sessions, "
        "put session=N in each link"
    ),
    IMPORT: (
        "the source file holds two runs under one participant and session. Import again "
        "with --session-column NAME (a column that tells the runs apart) or --session N "
        "for each file, or keep one of the logs in the folders scored"
    ),
}


def conflict_fix(origins: list[str]) -> str:
    """The fix for a conflict between logs of these origins (each fix once, in order)."""
    kinds = list(dict.fromkeys(o if o in CONFLICT_FIXES else LAB for o in origins)) or [LAB]
    return "; ".join(CONFLICT_FIXES[k] for k in kinds)

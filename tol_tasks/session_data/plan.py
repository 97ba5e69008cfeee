"""The session plan: what a session runs and what comes next, decided without a window.

A session is a sequence of *steps*. :class:`SessionPlan` turns a loaded
protocol, the counterbalanced form and (for a resumed session) how far the
session got into that sequence, and decides from each attempt's outcome what
comes next: another attempt, the next problem, a discontinued block, the next
block. The runner (:mod:`tol_tasks.runner`) only carries the steps out; a
recorder in another language mirrors the same rules.

The contract
============

Data. :meth:`SessionPlan.describe` gives the plan as JSON-ready data: the
protocol's name and SHA-256, the form and the blocks it runs, the practice
and each block with its problems (id, puzzle code, start, goal, minimum
moves, limits), attempts, feedback, discontinue rule and copy trials, the
timings of messages, and what a resume found done.

Steps. :meth:`SessionPlan.walk` gives a :class:`Walk`; ``walk.next(outcome)``
returns the next step, given the outcome of the step before it (the
``outcome`` of an :class:`Attempt`: ``solved``, ``time_out``, ``move_limit``;
None after any other step). Steps, each a small record with ``kind`` and
:meth:`~Step.as_dict`:

- ``instructions``: the protocol's instruction pages, one after another;
- ``message``: a text shown for ``seconds`` (``practice_start``,
  ``try_again``, ``test_start``, ``end``: keys of the participant texts);
- ``block_start``: a block begins; its problems' ``order`` and the ``seed``
  of its shuffle are recorded (sidecar ``blocks``, a ``block_start`` row);
- ``pause``: a text (``pause_test``, ``pause_block``) that only the examiner
  ends, with the protocol's ``input.examiner_key``;
- ``block_pages``: the block's own instruction pages (``pages`` of the block);
- ``attempt``: one attempt at one problem (block, attempt number from 1,
  feedback after it or not, the copy-trial rule, whether it is the last
  attempt allowed);
- ``discontinue``: the block ends early (a ``discontinue`` row);
- ``end``: the session is over; nothing follows.

The rules, in order (a port implements each as written; the tests in
``tests/test_plan.py`` check each one):

R1. Instructions come first, unless the session is resumed after one of its
    problems was shown.
R2. Practice, when the protocol has practice problems. It allows ``tries``
    attempts per problem: ``max_attempts`` if ``repeat_until_solved``, else 1.
    A resumed session whose practice problems are all *finished* (solved, or
    every try used) skips it. Otherwise: the ``practice_start`` message
    (1.5 s), then each practice problem not finished, in file order, with
    feedback: attempts from (attempts already ended + 1) to ``tries``, until
    one is solved; between two attempts the ``try_again`` message (the
    protocol's ``feedback_duration``).
R3. Then the form's blocks (:func:`choose_form`), in order. A block that
    started before a resume keeps its recorded order, has no
    ``block_start`` and no ``test_start``, and is skipped when it was
    discontinued or every problem of it is finished. A block that starts
    now: its order is the file's, or, when ``order: shuffled``, the file
    order shuffled by :func:`~tol_tasks.session_data.trial.block_order` with
    the block's ``seed`` (one is drawn when the protocol gives none):
    ``block_start``; then, if it is the form's first block and the protocol
    has practice problems, the ``test_start`` message (1.5 s), or with
    ``pauses.before_test`` the ``pause_test`` pause instead; if it is not the
    form's first block and the protocol has ``pauses.between_blocks``, the
    ``pause_block`` pause; then, if the block has pages of its own,
    ``block_pages``.
R4. Each problem of the block in that order, unless finished: attempts from
    (attempts already ended + 1) to the block's ``attempts``, until one is
    solved; feedback unless the protocol's ``feedback`` is ``none``.
R5. Discontinue: a problem whose last attempt in this run was not solved is
    a failure; a solved one resets the count; a problem skipped as finished
    changes nothing. When the block has ``discontinue_after`` and the count
    reaches it: ``discontinue`` (with the count), and the block ends. The
    count starts at 0 in every run, a resumed one too.
R6. After the last block: the ``end`` message (2 s), then ``end``.
R7. Copy trials (not a step of their own: part of the attempt): after an
    attempt whose block has ``copies``, a yoked copy trial follows when the
    attempt was solved, or when it was the last attempt allowed and
    ``copies.unsolved`` is ``copy`` (:func:`copy_follows`). Its moves are the
    participant's own completed moves, or a shortest solution; an own-moves
    copy of an attempt with no completed move has nothing to show and does
    not run. The first copy trial that runs in a run is preceded by the
    ``copy_start`` message (1.5 s).

Finished, for a resumed session, means solved or with as many ended
attempts as allowed; an attempt cut off by the interruption did not end and
runs again with the same number.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from tol_tasks.protocol_format.loaded import LoadedProtocol, ProblemSpec, Resolved
from tol_tasks.protocol_format.model import Block, Copy

from .resume import Progress
from .sidecar import BlockRecord, CounterbalanceRecord
from .trial import block_order

#: Version of the rules above; a port names the version it mirrors.
PLAN_RULES_VERSION = 2

#: Seconds each message stays on screen, by text key (``try_again``: the protocol's
#: ``feedback_duration``).
MESSAGE_SECONDS = {"practice_start": 1.5, "test_start": 1.5, "copy_start": 1.5, "end": 2.0}

#: The name practice problems are logged under (their ``block``).
PRACTICE = "practice"


# ------------------------------------------------------------------ steps
@dataclass(frozen=True)
class Step:
    """One thing a session does. ``kind`` names it; :meth:`as_dict` gives it as data."""

    kind: ClassVar[str] = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class Instructions(Step):
    """Show the protocol's instruction pages, each until the participant continues."""

    kind: ClassVar[str] = "instructions"


@dataclass(frozen=True)
class End(Step):
    """The session is over."""

    kind: ClassVar[str] = "end"


@dataclass(frozen=True)
class Message(Step):
    """Show the participant text ``key`` for ``seconds``."""

    kind: ClassVar[str] = "message"
    key: str
    seconds: float


@dataclass(frozen=True)
class BlockStart(Step):
    """A block begins: the problems' ``order`` (ids), whether shuffled, the seed, the form."""

    kind: ClassVar[str] = "block_start"
    block: str
    order: tuple[str, ...]
    shuffled: bool
    seed: int | None
    form: str | None = None

    def record(self) -> BlockRecord:
        """The block as the sidecar keeps it."""
        return BlockRecord(name=self.block, order=list(self.order), shuffled=self.shuffled,
                           seed=self.seed)  # fmt: skip


@dataclass(frozen=True)
class Pause(Step):
    """Show the participant text ``key`` until the examiner presses the examiner key; the
    pause comes before ``block``."""

    kind: ClassVar[str] = "pause"
    key: str
    block: str


@dataclass(frozen=True)
class BlockPages(Step):
    """Show ``block``'s own instruction pages, each until the participant continues."""

    kind: ClassVar[str] = "block_pages"
    block: str


@dataclass(frozen=True)
class Attempt(Step):
    """One attempt at ``problem`` (its ``block``; ``attempt`` from 1).

    ``feedback``: say after it whether it was solved. ``copies``: the block's
    copy-trial rule (None: no copies). ``last``: no further attempt is
    allowed after this one.
    """

    kind: ClassVar[str] = "attempt"
    problem: ProblemSpec
    block: str
    attempt: int
    feedback: bool
    copies: Copy | None = None
    last: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "block": self.block, "problem_id": self.problem.id,
            "attempt": self.attempt, "feedback": self.feedback,
            "copies": self.copies.model_dump() if self.copies else None, "last": self.last,
        }  # fmt: skip


@dataclass(frozen=True)
class Discontinue(Step):
    """The block ends after ``failures`` consecutive unsolved problems."""

    kind: ClassVar[str] = "discontinue"
    block: str
    failures: int


def copy_follows(step: Attempt, outcome: str | None) -> bool:
    """Rule R7: whether a yoked copy trial follows this attempt, given its outcome."""
    c = step.copies
    return c is not None and (outcome == "solved" or (step.last and c.unsolved == "copy"))


# ------------------------------------------------------------------- forms
def choose_form(protocol: LoadedProtocol, participant: str, session: int,
                recorded: CounterbalanceRecord | None = None) -> tuple[str | None, list[int]]:  # fmt: skip
    """The counterbalanced form of a session and the indices of the blocks it runs, in order.

    ``recorded``: the form a resumed session already has (from its sidecar),
    kept whatever the assignment rule would say now. Without counterbalancing:
    (None, every block in file order).
    """
    if recorded is not None:
        names = [b.name for b in protocol.model.blocks]
        return recorded.form, [names.index(b) for b in recorded.blocks]
    return protocol.form_for(participant, session)


# ------------------------------------------------------------------ the plan
@dataclass
class SessionPlan:
    """What one run of a session does (see the module's description for the rules).

    Parameters
    ----------
    protocol : LoadedProtocol
    form : str or None
        The counterbalanced form (None: not counterbalanced).
    block_indices : list of int
        The blocks the form runs, in order (:func:`choose_form`).
    progress : Progress, optional
        How far an interrupted session got (from its log); None for a new session.
    orders : dict, optional
        For a resumed session, the blocks that already started: name -> problem
        ids in the order recorded in its sidecar.
    draw_seed : callable, optional
        Draws the seed of a shuffle the protocol gives none for (default: the
        operating system's randomness). Tests pass a seeded one.
    view : Resolved, optional
        The protocol as a player has it (:meth:`LoadedProtocol.resolve`), whose practice
        and blocks' problems the plan runs: the one the session plays from (default:
        ``protocol.resolve()``; the problems are the same in every language).
    """

    protocol: LoadedProtocol
    form: str | None
    block_indices: list[int]
    progress: Progress | None = None
    orders: dict[str, list[str]] = field(default_factory=dict)
    draw_seed: Callable[[], int] | None = None
    view: Resolved | None = None

    def __post_init__(self) -> None:
        if self.view is None:
            self.view = self.protocol.resolve()

    @classmethod
    def for_session(cls, protocol: LoadedProtocol, participant: str, session: int, *,
                    resume=None, draw_seed: Callable[[], int] | None = None,
                    view: Resolved | None = None) -> SessionPlan:  # fmt: skip
        """The plan of a new session, or of a resumed one (``resume``: a ResumePlan);
        ``view``: the resolved protocol the session plays from."""
        if resume is None:
            form, indices = choose_form(protocol, participant, session)
            return cls(protocol, form, indices, draw_seed=draw_seed, view=view)
        meta = resume.meta
        form, indices = choose_form(protocol, participant, session, meta.counterbalance)
        orders = {b.name: list(b.order) for b in meta.blocks}
        return cls(protocol, form, indices, resume.progress, orders, draw_seed, view)

    # --------------------------------------------------------------- data
    @property
    def model(self):
        return self.protocol.model

    @property
    def practice_tries(self) -> int:
        """Attempts allowed per practice problem (rule R2)."""
        p = self.model.practice
        return p.max_attempts if p.repeat_until_solved else 1

    @property
    def feedback(self) -> bool:
        """Whether test problems get feedback (practice always does)."""
        return self.model.feedback != "none"

    def counterbalance_record(self) -> CounterbalanceRecord | None:
        """The form as the sidecar keeps it (None: not counterbalanced)."""
        cb = self.model.counterbalance
        if cb is None:
            return None
        names = [self.model.blocks[i].name for i in self.block_indices]
        return CounterbalanceRecord(by=cb.by, form=self.form, blocks=names)

    def describe(self) -> dict[str, Any]:
        """The plan as JSON-ready data (see the module's description)."""
        m, lp = self.model, self.protocol
        cb = m.counterbalance
        return {
            "rules_version": PLAN_RULES_VERSION,
            "protocol": {"name": lp.name, "sha256": lp.sha256},
            "form": self.form,
            "counterbalance": None if cb is None else {"by": cb.by, "forms": _forms(lp)},
            "practice": {
                "tries": self.practice_tries,
                "repeat_until_solved": m.practice.repeat_until_solved,
                "controls": m.practice.controls,
                "feedback": True,
                "problems": [_problem(s) for s in self.view.practice],
            },
            "blocks": [
                _block(m.blocks[i], self.view.blocks[i], self.feedback) for i in self.block_indices
            ],
            "messages": {**MESSAGE_SECONDS, "try_again": m.timing.feedback_duration},
            "pauses": m.pauses.model_dump(),
            "timing": {
                "feedback_duration": m.timing.feedback_duration,
                "inter_trial_interval": m.timing.inter_trial_interval,
            },
            "resume": None
            if self.progress is None
            else {
                "started": self.progress.instructions_done,
                "ended_attempts": [
                    {"block": b, "problem_id": pid, "outcomes": list(outs)}
                    for (b, pid), outs in self.progress.outcomes.items()
                ],
                "discontinued": sorted(self.progress.discontinued),
                "orders": dict(self.orders),
            },
        }

    # --------------------------------------------------------------- steps
    def walk(self) -> Walk:
        """The steps of this run, one at a time (see :class:`Walk`)."""
        return Walk(self._steps())

    def _finished(self, block: str, problem_id: str, attempts: int) -> bool:
        return self.progress is not None and self.progress.finished(block, problem_id, attempts)

    def _used(self, block: str, problem_id: str) -> int:
        return self.progress.attempts_used(block, problem_id) if self.progress else 0

    def _steps(self) -> Generator[Step, str | None, None]:
        if self.progress is None or not self.progress.instructions_done:  # R1
            yield Instructions()
        yield from self._practice()
        for index in self.block_indices:  # R3
            yield from self._block(index)
        yield Message("end", MESSAGE_SECONDS["end"])  # R6

    def _practice(self) -> Generator[Step, str | None, None]:  # R2
        specs = self.view.practice
        tries = self.practice_tries
        if not specs or all(self._finished(PRACTICE, s.id, tries) for s in specs):
            return
        yield Message("practice_start", MESSAGE_SECONDS["practice_start"])
        for spec in specs:
            if self._finished(PRACTICE, spec.id, tries):
                continue
            for attempt in range(self._used(PRACTICE, spec.id) + 1, tries + 1):
                outcome = yield Attempt(spec, PRACTICE, attempt, feedback=True,
                                        last=attempt == tries)  # fmt: skip
                if outcome == "solved":
                    break
                if attempt < tries:
                    yield Message("try_again", self.model.timing.feedback_duration)

    def _block(self, index: int) -> Generator[Step, str | None, None]:
        block = self.model.blocks[index]
        specs = self.view.blocks[index]
        ids = [s.id for s in specs]
        recorded = self.orders.get(block.name)
        if recorded is not None:  # started before the resume: the same order, no start
            order = [ids.index(pid) for pid in recorded]
            prog = self.progress
            if block.name in prog.discontinued or all(
                prog.finished(block.name, ids[i], block.attempts) for i in order
            ):
                return
        else:
            order, seed = block_order(len(specs), block.order, block.seed, self.draw_seed)
            yield BlockStart(block.name, tuple(ids[i] for i in order),
                             block.order == "shuffled", seed, self.form)  # fmt: skip
            pauses = self.model.pauses
            if index != self.block_indices[0]:
                if pauses.between_blocks:
                    yield Pause("pause_block", block.name)
            elif self.view.practice:
                if pauses.before_test:
                    yield Pause("pause_test", block.name)
                else:
                    yield Message("test_start", MESSAGE_SECONDS["test_start"])
            if block.pages:
                yield BlockPages(block.name)
        failures = 0
        for i in order:  # R4
            spec = specs[i]
            if self._finished(block.name, spec.id, block.attempts):
                continue
            for attempt in range(self._used(block.name, spec.id) + 1, block.attempts + 1):
                outcome = yield Attempt(spec, block.name, attempt, feedback=self.feedback,
                                        copies=block.copies, last=attempt == block.attempts)  # fmt: skip
                if outcome == "solved":
                    break
            failures = 0 if outcome == "solved" else failures + 1  # R5
            if block.discontinue_after and failures >= block.discontinue_after:
                yield Discontinue(block.name, failures)
                return


class Walk(Iterator[Step]):
    """The steps of a run, decided one at a time from the outcomes.

    ``next(outcome)`` returns the next step; ``outcome`` is the outcome of the
    :class:`Attempt` just carried out (None after any other step). After the
    last step it returns :class:`End` (and keeps returning it). Iterating a
    walk (``for step in walk``) takes every outcome as None.
    """

    def __init__(self, steps: Generator[Step, str | None, None]):
        self._steps = steps
        self._started = False
        self._ended = False

    def next(self, outcome: str | None = None) -> Step:
        if self._ended:
            return End()
        try:
            if not self._started:
                self._started = True
                return next(self._steps)
            return self._steps.send(outcome)
        except StopIteration:
            self._ended = True
            return End()

    def __next__(self) -> Step:
        step = self.next()
        if isinstance(step, End):
            raise StopIteration
        return step


# ------------------------------------------------------------- description
def _problem(spec: ProblemSpec) -> dict[str, Any]:
    return {
        "id": spec.id, "puzzle": spec.puzzle.code, "start": str(spec.start),
        "goal": str(spec.goal), "min_moves": spec.min_moves, "time_limit": spec.time_limit,
        "move_limit": spec.move_limit,
    }  # fmt: skip


def _block(block: Block, specs: list[ProblemSpec], feedback: bool) -> dict[str, Any]:
    return {
        "name": block.name, "order": block.order, "seed": block.seed,
        "attempts": block.attempts, "discontinue_after": block.discontinue_after,
        "feedback": feedback, "copies": block.copies.model_dump() if block.copies else None,
        "pages": bool(block.pages), "problems": [_problem(s) for s in specs],
    }  # fmt: skip


def _forms(protocol: LoadedProtocol) -> list[dict[str, Any]]:
    """Every form a session can get, in assignment order (see counterbalance.assignment_index)."""
    from tol_tasks.protocol_format.counterbalance import balanced_latin_square

    m = protocol.model
    names = [b.name for b in m.blocks]
    if m.counterbalance.forms:
        return [{"name": k, "blocks": list(v)} for k, v in m.counterbalance.forms.items()]
    return [{"name": f"order-{k + 1}", "blocks": [names[i] for i in row]}
            for k, row in enumerate(balanced_latin_square(len(names)))]  # fmt: skip

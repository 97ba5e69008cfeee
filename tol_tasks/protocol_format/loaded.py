"""A checked protocol, and what a player needs of it in one language.

:class:`LoadedProtocol` is what :func:`~tol_tasks.protocol_format.load.load_protocol`
returns: the document (:mod:`~tol_tasks.protocol_format.model`), its apparatus, its exact
text and every problem ready to run (:class:`ProblemSpec`). :meth:`LoadedProtocol.resolve`
hands a player (the PsychoPy runner, the browser build) everything it needs in one
language, as a :class:`Resolved`: the texts with their fallbacks applied, the instruction
pages, the settings, the colour and label of every piece of every apparatus, and the
problems.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tol_tasks import texts
from tol_tasks.puzzles.base import Puzzle

from .counterbalance import assignment_index, balanced_latin_square
from .issues import Issue
from .model import Display, Input, Page, Problem, Protocol, Rules, Timing
from .pages import default_pages
from .problem import parse_state


@dataclass(frozen=True)
class ProblemSpec:
    """A problem with its states parsed and its minimum computed."""

    id: str
    block: str
    puzzle: Puzzle
    start: Any
    goal: Any
    min_moves: int
    time_limit: float | None
    move_limit: int | None
    practice: bool = False


@dataclass(frozen=True)
class PuzzleLook:
    """How one apparatus's pieces look: each piece's colour and, with ``display.piece_labels``,
    the text written on it and that text's colour.

    Attributes
    ----------
    puzzle : Puzzle
        The apparatus (:attr:`Puzzle.code` names it).
    colors : dict
        Each piece (as text: a ball's letter, a disk's number) -> its colour.
    labels : dict or None
        Each piece -> (the text written on it, its colour); None when pieces carry no label.
    """

    puzzle: Puzzle
    colors: Mapping[str, str]
    labels: Mapping[str, tuple[str, str]] | None


@dataclass(frozen=True)
class Resolved:
    """Everything a player needs of a protocol in one language, every fallback applied.

    Made by :meth:`LoadedProtocol.resolve`; the PsychoPy runner plays from it and
    ``tol-web build`` serialises it (one per language) into the browser's data.

    Attributes
    ----------
    name : str
        The protocol's name.
    language : str
        The language the texts are in.
    title : str
        The task's name for participants (the window's or page's title).
    messages : dict
        Every participant-facing text: the protocol's own, else tol-tasks' in that
        language, else English.
    pages : tuple of Page
        The instruction pages: the protocol's own, the task's default pages, or none.
    block_pages : dict
        Each block that has pages of its own (by name) -> its pages in this language.
    display, input, rules, timing : Display, Input, Rules, Timing
        The protocol's settings (defaults filled in).
    feedback : str
        ``none``, ``solved`` or ``moves``.
    participant_fields : dict
        Extra fields for the participant dialog, each with its default value.
    looks : dict
        Each apparatus the protocol uses (by :attr:`Puzzle.code`) -> its :class:`PuzzleLook`.
    layout_puzzle : Puzzle
        The apparatus of the first test problem (the board's layout is made for it).
    practice : tuple of ProblemSpec
        The practice problems.
    blocks : tuple of tuple of ProblemSpec
        Each block's problems, in file order.
    """

    name: str
    language: str
    title: str
    messages: Mapping[str, str]
    pages: tuple[Page, ...]
    block_pages: Mapping[str, tuple[Page, ...]]
    display: Display
    input: Input
    rules: Rules
    timing: Timing
    feedback: str
    participant_fields: Mapping[str, str]
    looks: Mapping[str, PuzzleLook]
    layout_puzzle: Puzzle
    practice: tuple[ProblemSpec, ...]
    blocks: tuple[tuple[ProblemSpec, ...], ...]


@dataclass(frozen=True)
class LoadedProtocol:
    """A checked protocol: the model, the puzzle and every problem ready to run.

    Attributes
    ----------
    model : Protocol
        The parsed document.
    puzzle : Puzzle
        The apparatus.
    text : str
        The file's exact text (copied into each session's sidecar).
    sha256 : str
        Hash of ``text``.
    path : Path or None
        Where it was read from.
    warnings : tuple of Issue
        What does not stop it from running but should be seen to (texts that would be
        shown in English in another language...), each located like a fault.
    """

    model: Protocol
    puzzle: Puzzle
    text: str
    sha256: str
    path: Path | None
    warnings: tuple[Issue, ...] = ()

    @property
    def name(self) -> str:
        return self.model.name

    def practice_problems(self) -> list[ProblemSpec]:
        p = self.model.practice
        return [_spec(self.model.task, prob, "practice", p, practice=True) for prob in p.problems]

    def block_problems(self, index: int) -> list[ProblemSpec]:
        """The problems of block ``index`` in file order (the runner shuffles if asked)."""
        block = self.model.blocks[index]
        return [_spec(self.model.task, prob, block.name, block) for prob in block.problems]

    def all_problems(self) -> Iterator[ProblemSpec]:
        yield from self.practice_problems()
        for i in range(len(self.model.blocks)):
            yield from self.block_problems(i)

    def form_for(self, participant: str, session: int) -> tuple[str | None, list[int]]:
        """The form a session gets and the indices of the blocks it runs, in order.

        Without counterbalancing: (None, every block in file order).
        """
        cb = self.model.counterbalance
        names = [b.name for b in self.model.blocks]
        if cb is None:
            return None, list(range(len(names)))
        if cb.forms:
            forms = list(cb.forms.items())
            name, blocks = forms[assignment_index(cb.by, participant, session, len(forms))]
            return name, [names.index(b) for b in blocks]
        orders = balanced_latin_square(len(names))
        k = assignment_index(cb.by, participant, session, len(orders))
        return f"order-{k + 1}", orders[k]

    def messages(self, language: str | None = None) -> dict[str, str]:
        """Every participant-facing text in ``language``: the protocol's own, else tol-tasks'
        in that language, else (a language tol-tasks has no texts in) in English."""
        lang = language or self.model.instructions.default_language
        out = texts.messages(texts.FALLBACK)
        out.update(texts.messages(lang) or {})
        out.update(self.model.instructions.messages.get(lang, {}))
        return out

    def pages(self, language: str | None = None) -> list[Page]:
        """The instruction pages in ``language``: the protocol's own, or (when it gives none)
        the task's default pages, or none (``instructions: none``, or no default pages in
        that language)."""
        ins = self.model.instructions
        lang = language or ins.default_language
        if ins.page_source == "default":
            return default_pages(self.model, lang) or []
        return list(ins.own_pages.get(lang, []))

    def block_pages(self, block: str, language: str | None = None) -> list[Page]:
        """The instruction pages of block ``block`` in ``language`` (none in another)."""
        lang = language or self.model.instructions.default_language
        for b in self.model.blocks:
            if b.name == block:
                return list(b.pages.get(lang, []))
        return []

    def languages(self) -> list[str]:
        """The languages a session can run in: those the protocol gives pages in; without
        pages of its own, every language tol-tasks has texts in (and, with ``instructions:
        none``, those the protocol gives texts in)."""
        ins = self.model.instructions
        if ins.page_source == "protocol":
            return sorted(ins.own_pages)
        extra = set(ins.messages) | {ins.default_language} if ins.page_source == "none" else set()
        return sorted(set(texts.languages()) | extra)

    def resolve(self, language: str | None = None) -> Resolved:
        """Everything a player needs in ``language`` (default: the protocol's default language).

        Raises
        ------
        ValueError
            ``language`` is not one a session of this protocol can run in
            (:meth:`languages`); the message names those it can.
        """
        lang = language or self.model.instructions.default_language
        can = self.languages()
        if language is not None and lang not in can:
            raise ValueError(
                f"language {lang!r}: protocol {self.name!r} has no texts or pages in it. "
                f"Suggested fix: choose one of {', '.join(can)}."
            )
        m = self.model
        messages = self.messages(lang)
        blocks = tuple(tuple(self.block_problems(i)) for i in range(len(m.blocks)))
        practice = tuple(self.practice_problems())
        looks: dict[str, PuzzleLook] = {}
        for spec in (*practice, *(p for block in blocks for p in block)):
            if spec.puzzle.code not in looks:
                looks[spec.puzzle.code] = _look(m.display, spec.puzzle)
        return Resolved(
            name=self.name,
            language=lang,
            title=messages[f"title_{self.puzzle.kind}"],
            messages=messages,
            pages=tuple(self.pages(lang)),
            block_pages={
                b.name: tuple(self.block_pages(b.name, lang)) for b in m.blocks if b.pages
            },
            display=m.display,
            input=m.input,
            rules=m.rules,
            timing=m.timing,
            feedback=m.feedback,
            participant_fields=m.field_defaults(),
            looks=looks,
            layout_puzzle=blocks[0][0].puzzle,
            practice=practice,
            blocks=blocks,
        )


def problem_puzzle(task, prob: Problem, defaults) -> Puzzle:
    """The puzzle a problem is played on (its own or its block's disk count, else the task's)."""
    return task.puzzle(prob.disks or getattr(defaults, "disks", None))


def _spec(task, prob: Problem, block: str, defaults, practice: bool = False):
    puzzle = problem_puzzle(task, prob, defaults)
    start, goal = parse_state(puzzle, prob.start), parse_state(puzzle, prob.goal)
    return ProblemSpec(
        id=prob.id,
        block=block,
        puzzle=puzzle,
        start=start,
        goal=goal,
        min_moves=puzzle.distance(start, goal),
        time_limit=prob.time_limit if prob.time_limit is not None else defaults.time_limit,
        move_limit=prob.move_limit if prob.move_limit is not None else defaults.move_limit,
        practice=practice,
    )


def _look(display: Display, puzzle: Puzzle) -> PuzzleLook:
    colors = {str(x): display.piece_color(puzzle, x) for x in puzzle.pieces}
    labels = None
    if display.piece_labels:
        labels = {str(x): display.piece_label(puzzle, x) for x in puzzle.pieces}
    return PuzzleLook(puzzle=puzzle, colors=colors, labels=labels)

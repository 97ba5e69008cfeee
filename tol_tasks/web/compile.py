"""A protocol compiled for the browser: plain JSON data the page plays.

:func:`compile_protocol` turns a checked protocol into the ``protocol.json``
that ``tol-web build`` writes beside the page: every problem with its states
in the event log's notation, its minimum moves from the exact solver (and a
shortest solution where a block copies optimal moves), the counterbalanced
forms with their block lists, messages and instruction pages per language,
display, input and rule settings, and the protocol's own text and SHA-256
(copied into each session's sidecar). The page never solves a puzzle; it
replays the decisions of ``tol-run`` over these data (``web/src/plan.js``).

:func:`browser_issues` lists what a protocol asks that a browser cannot do,
each naming the file, line, field, value and fix.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from tol_tasks import __version__
from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS, PEG_LETTERS
from tol_tasks.protocol_format._yaml import line_of, load_with_lines
from tol_tasks.protocol_format.counterbalance import balanced_latin_square
from tol_tasks.protocol_format.model import Issue, LoadedProtocol, ProblemSpec
from tol_tasks.puzzles.base import Puzzle
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION
from tol_tasks.session_data.sidecar import SIDECAR_VERSION
from tol_tasks.session_data.trial import _PARTICIPANT_RE

from .keys import BROWSER_KEYS, CONTINUE_KEY, RESERVED, browser_key

#: Version of the compiled protocol (``protocol.json``) that the page reads.
COMPILED_FORMAT = 1

#: Folder of instruction images inside a built experiment.
IMAGES = "images"


def browser_issues(lp: LoadedProtocol) -> list[Issue]:
    """What ``lp`` asks that a browser cannot do (empty when it can run online).

    Refused: ``display.screen`` other than 0 (a page cannot choose a
    monitor), keys a browser keeps for itself or does not know
    (``input.quit_key``, ``input.keys``), and the quit key or a peg key on
    the key that leaves instruction pages (space).
    """
    source = str(lp.path) if lp.path else f"<protocol {lp.name}>"
    _, lines, _ = load_with_lines(lp.text)
    issues: list[Issue] = []

    def add(path: tuple, message: str, fix: str) -> None:
        issues.append(Issue(source, line_of(lines, path), ".".join(map(str, path)), message, fix))

    m = lp.model
    if m.display.screen != 0:
        add(("display", "screen"),
            f"{m.display.screen}: a web page cannot choose the screen it runs on.",
            "remove 'screen' (or set it to 0) for the web build; the participant's browser "
            "window decides the screen.")  # fmt: skip
    keys = [(("input", "quit_key"), m.input.quit_key)]
    keys += [(("input", "keys", i), k) for i, k in enumerate(m.input.keys or [])]
    for path, key in keys:
        if key in RESERVED:
            add(path, f"'{key}': {RESERVED[key]}, so the page never sees it.",
                f"choose another key, e.g. {_suggest(path)}.")  # fmt: skip
        elif key not in BROWSER_KEYS:
            add(path, f"'{key}' is not a key name the web build knows.",
                f"use a PsychoPy key name such as {_suggest(path)} (tol_tasks.web.keys lists "
                "them all).")  # fmt: skip
        elif key == CONTINUE_KEY:
            add(path, f"'{key}' also leaves the instruction pages.",
                f"choose another key, e.g. {_suggest(path)}.")  # fmt: skip
    return issues


def _suggest(path: tuple) -> str:
    return "'escape' or 'q'" if path[-1] == "quit_key" else "'1', '2', '3'"


def compile_protocol(lp: LoadedProtocol, *, images: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON-ready description of ``lp`` that the page plays.

    Parameters
    ----------
    lp : LoadedProtocol
        A checked protocol (see :func:`browser_issues` for what the web refuses).
    images : dict, optional
        Each instruction image as the protocol names it -> its path inside the
        built folder (default: ``images/<file name>``).
    """
    m = lp.model
    images = images if images is not None else image_names(lp)
    copies_optimal = {b.name for b in m.blocks if b.copies and b.copies.moves == "optimal"}
    names = [b.name for b in m.blocks]
    return {
        "compiled_format": COMPILED_FORMAT,
        "compiled_by": f"tol-tasks {__version__}",
        "event_log_version": EVENT_LOG_VERSION,
        "sidecar_version": SIDECAR_VERSION,
        "protocol": {
            "name": lp.name,
            "version": m.version,
            "path": lp.path.name if lp.path else None,  # the name only: the folder is public
            "sha256": lp.sha256,
            "text": lp.text,
            "description": m.description,
            "citation": m.citation,
        },
        "participant_pattern": _PARTICIPANT_RE.pattern,
        "peg_letters": PEG_LETTERS,
        "apparatus": lp.puzzle.code,
        "puzzles": _puzzles(lp),
        "display": m.display.model_dump(mode="json"),
        "input": {
            "mode": m.input.mode,
            "keys": [browser_key(k) for k in m.input.keys] if m.input.keys else None,
            "key_names": list(m.input.keys) if m.input.keys else None,
            "quit_key": browser_key(m.input.quit_key),
            "quit_key_name": m.input.quit_key,
            "continue_key": browser_key(CONTINUE_KEY),
        },
        "rules": m.rules.model_dump(mode="json"),
        "timing": m.timing.model_dump(mode="json"),
        "feedback": m.feedback,
        "default_language": m.instructions.default_language,
        "languages": {
            lang: {
                "messages": lp.messages(lang),
                "pages": [
                    {"text": p.text, "image": images.get(p.image) if p.image else None}
                    for p in lp.pages(lang)
                ],
            }
            for lang in lp.languages()
        },
        "participant_fields": dict(m.participant_fields),
        "practice": {
            "repeat_until_solved": m.practice.repeat_until_solved,
            "max_attempts": m.practice.max_attempts,
            "problems": [_problem(s, False) for s in lp.practice_problems()],
        },
        "blocks": [
            {
                "name": b.name,
                "order": b.order,
                "seed": b.seed,
                "attempts": b.attempts,
                "discontinue_after": b.discontinue_after,
                "copies": b.copies.model_dump(mode="json") if b.copies else None,
                "problems": [_problem(s, b.name in copies_optimal) for s in lp.block_problems(i)],
            }
            for i, b in enumerate(m.blocks)
        ],
        "counterbalance": _counterbalance(lp, names),
        "layout_puzzle": lp.block_problems(0)[0].puzzle.code,
    }


def _problem(spec: ProblemSpec, optimal: bool) -> dict[str, Any]:
    out = {
        "id": spec.id,
        "puzzle": spec.puzzle.code,
        "start": str(spec.start),
        "goal": str(spec.goal),
        "min_moves": spec.min_moves,
        "time_limit": spec.time_limit,
        "move_limit": spec.move_limit,
    }
    if optimal:
        out["optimal"] = [[m.source, m.target] for m in spec.puzzle.solve(spec.start, spec.goal)]
    return out


def _puzzles(lp: LoadedProtocol) -> dict[str, dict[str, Any]]:
    """Every apparatus the protocol uses (by code): pieces, capacities and colours."""
    out: dict[str, dict[str, Any]] = {}
    colors = lp.model.display.piece_colors
    for spec in lp.all_problems():
        p = spec.puzzle
        if p.code not in out:
            out[p.code] = {
                "kind": p.kind,
                "pegs": p.n_pegs,
                "capacities": list(p.capacities),
                "pieces": [str(x) for x in p.pieces],
                "colors": {str(x): _piece_color(p, x, colors) for x in p.pieces},
            }
    return out


def _piece_color(puzzle: Puzzle, piece, colors: dict[str, str]) -> str:
    """A piece's colour: the protocol's, else the default of its disk number or ball letter."""
    if puzzle.kind == "hanoi":
        return colors.get(str(piece), DEFAULT_DISK_COLORS[(piece - 1) % len(DEFAULT_DISK_COLORS)])
    return colors.get(piece, DEFAULT_BALL_COLORS.get(piece, "#888888"))


def _counterbalance(lp: LoadedProtocol, names: list[str]) -> dict[str, Any] | None:
    """The forms a session can get, each with the indices of its blocks (form_for's choices)."""
    cb = lp.model.counterbalance
    if cb is None:
        return None
    if cb.forms:
        forms = [{"name": n, "blocks": [names.index(b) for b in bl]} for n, bl in cb.forms.items()]
    else:
        orders = balanced_latin_square(len(names))
        forms = [{"name": f"order-{k + 1}", "blocks": row} for k, row in enumerate(orders)]
    return {"by": cb.by, "forms": forms}


def image_names(lp: LoadedProtocol) -> dict[str, str]:
    """Where each instruction image goes in the built folder: ``images/<k>-<file name>``."""
    out: dict[str, str] = {}
    for lang in lp.languages():
        for page in lp.pages(lang):
            if page.image and page.image not in out:
                name = Path(page.image).name
                out[page.image] = str(PurePosixPath(IMAGES, f"{len(out) + 1}-{name}"))
    return out

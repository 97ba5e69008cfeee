"""A protocol compiled for the browser: plain JSON data the page plays.

:func:`compile_protocol` turns a checked protocol into the ``protocol.json``
that ``tol-web build`` writes beside the page:

- ``plan``: the session plan of the Python side
  (:meth:`tol_tasks.session_data.plan.SessionPlan.describe` over every block):
  practice and blocks with every problem (states in the event log's notation,
  minimum moves from the exact solver, limits), attempts, feedback,
  discontinue rules, copy trials (with a shortest solution where a block
  copies optimal moves), the counterbalanced forms and the messages' times.
  The page carries out its rules R1-R7 (``web/src/plan.js`` mirrors
  ``PLAN_RULES_VERSION``); it never solves a puzzle.
- ``sidecar``: a session's sidecar as the sidecar model
  (:class:`~tol_tasks.session_data.sidecar.Sidecar`) writes it, with the
  protocol's copy and the recorder filled in; the page fills in the session.
- messages and instruction pages per language, display, input and rule settings.
- ``layout``: the session's one layout (:mod:`tol_tasks.display.layout`), and ``shown``:
  what the instruction pages show (the page view of the board, the first problem, the
  demonstration's frames); format 3 added them.
- ``compiled_format``: :data:`COMPILED_FORMAT`; the page (built with the same
  value) refuses a ``protocol.json`` of another format and says to rebuild.

Rules are compiled here rather than ported to JavaScript where they can be
(the participant-id rule, minimum moves, forms, colours, the sidecar's keys);
``web/ports.toml`` lists those that are ported, with their cross-checks.

:func:`browser_issues` lists what a protocol asks that a browser cannot do,
each naming the file, line, field, value and fix.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from tol_tasks import __version__
from tol_tasks.config import PEG_LETTERS
from tol_tasks.display.colors import edge_color
from tol_tasks.display.demo import demonstration
from tol_tasks.display.layout import session_layout
from tol_tasks.protocol_format._yaml import line_of, load_with_lines
from tol_tasks.protocol_format.model import Issue, LoadedProtocol
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION
from tol_tasks.session_data.identity import MAX_SESSION, PARTICIPANT_PATTERN, SESSION_TEXT_PATTERN
from tol_tasks.session_data.plan import SessionPlan
from tol_tasks.session_data.sidecar import ProtocolCopy, Recorder, Sidecar, Software

from .keys import BROWSER_KEYS, CONTINUE_KEY, RESERVED, browser_key

#: Version of the compiled protocol (``protocol.json``) that the page reads (2: a title per
#: language, the task's name for participants).
COMPILED_FORMAT = 3

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
    if m.pauses.before_test or m.pauses.between_blocks:
        keys.append((("input", "examiner_key"), m.input.examiner_key))
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
    return {"quit_key": "'escape' or 'q'", "examiner_key": "'f9' or 'f8'"}.get(
        path[-1], "'1', '2', '3'"
    )


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
    return {
        "compiled_format": COMPILED_FORMAT,
        "compiled_by": f"tol-tasks {__version__}",
        "event_log_version": EVENT_LOG_VERSION,
        "participant_pattern": PARTICIPANT_PATTERN,
        "session_pattern": SESSION_TEXT_PATTERN,
        "session_max": MAX_SESSION,
        "peg_letters": PEG_LETTERS,
        "apparatus": lp.puzzle.code,
        "puzzles": _puzzles(lp),
        "display": m.display.model_dump(mode="json"),
        # The session's one layout (tol_tasks.display): the page draws from it.
        "layout": session_layout(m).as_dict(),
        # What the instruction pages show above their text (show: board, demo).
        "shown": _shown(lp),
        "input": {
            "mode": m.input.mode,
            "keys": [browser_key(k) for k in m.input.keys] if m.input.keys else None,
            "key_names": list(m.input.keys) if m.input.keys else None,
            "quit_key": browser_key(m.input.quit_key),
            "quit_key_name": m.input.quit_key,
            "examiner_key": browser_key(m.input.examiner_key),
            "examiner_key_name": m.input.examiner_key,
            "continue_key": browser_key(CONTINUE_KEY),
        },
        "rules": m.rules.model_dump(mode="json"),
        "timing": m.timing.model_dump(mode="json"),
        "feedback": m.feedback,
        "default_language": m.instructions.default_language,
        "languages": {
            lang: {
                "title": lp.messages(lang)[f"title_{lp.puzzle.kind}"],
                "messages": lp.messages(lang),
                "pages": [_page(p, images) for p in lp.pages(lang)],
                "block_pages": {
                    b.name: [_page(p, images) for p in lp.block_pages(b.name, lang)]
                    for b in m.blocks
                    if b.pages
                },
            }
            for lang in lp.languages()
        },
        "participant_fields": m.field_defaults(),
        "plan": compile_plan(lp),
        "sidecar": sidecar_template(lp),
        "layout_puzzle": lp.block_problems(0)[0].puzzle.code,
    }


def compile_plan(lp: LoadedProtocol) -> dict[str, Any]:
    """The session plan over every block (a session's form picks its blocks at run time).

    Each problem of a block that copies a shortest solution carries it
    (``optimal``: [from peg, to peg] pairs, :meth:`Puzzle.solve`'s first one).
    """
    plan = SessionPlan(lp, form=None, block_indices=list(range(len(lp.model.blocks))))
    data = plan.describe()
    for i, block in enumerate(data["blocks"]):
        copies = block["copies"]
        if copies and copies["moves"] == "optimal":
            for problem, spec in zip(block["problems"], lp.block_problems(i), strict=True):
                problem["optimal"] = [
                    [m.source, m.target] for m in spec.puzzle.solve(spec.start, spec.goal)
                ]
    return data


def sidecar_template(lp: LoadedProtocol) -> dict[str, Any]:
    """A session's sidecar through the sidecar model, as far as the build knows it.

    The protocol's copy (its file name only: the folder is public), the
    recorder (``tol-web``, runtime ``browser``) and tol-tasks' version; the
    page fills in the participant, the session, the screen, the timing and
    the rest as the session runs, keeping every key of the model.
    """
    return Sidecar(
        event_log="",
        event_log_version=EVENT_LOG_VERSION,
        participant="",
        session=1,
        recorder=Recorder(name="tol-web", version=__version__, runtime="browser"),
        protocol=ProtocolCopy(
            name=lp.name,
            version=lp.model.version,
            path=lp.path.name if lp.path else None,
            sha256=lp.sha256,
            text=lp.text,
        ),
        software=Software(tol_tasks=__version__),
    ).to_dict()


def _puzzles(lp: LoadedProtocol) -> dict[str, dict[str, Any]]:
    """Every apparatus the protocol uses (by code): pieces, capacities, colours and labels."""
    out: dict[str, dict[str, Any]] = {}
    display = lp.model.display
    for spec in lp.all_problems():
        p = spec.puzzle
        if p.code not in out:
            out[p.code] = {
                "kind": p.kind,
                "pegs": p.n_pegs,
                "capacities": list(p.capacities),
                "pieces": [str(x) for x in p.pieces],
                "colors": {str(x): display.piece_color(p, x) for x in p.pieces},
                # The rim of each piece: never lost in the background (display model).
                "edges": {
                    str(x): edge_color(display.piece_color(p, x), display.background)
                    for x in p.pieces
                },
                # display.piece_labels: the text on each piece and its colour (else null).
                "labels": (
                    {str(x): list(display.piece_label(p, x)) for x in p.pieces}
                    if display.piece_labels
                    else None
                ),
            }
    return out


def _page(page, images: dict[str, str]) -> dict[str, Any]:
    return {"text": page.text, "image": images.get(page.image) if page.image else None,
            "show": page.show}  # fmt: skip


def _shown(lp: LoadedProtocol) -> dict[str, Any]:
    """The page view of the task screen (smaller, above the text), the first problem's start
    and goal, and the demonstration's frames (tol_tasks.display.demo)."""
    spec = next(iter(lp.all_problems()))
    view = session_layout(lp.model).page_view()
    return {
        "layout": view.as_dict(),
        # The demonstration's notice of the refused move: above the board, as in a problem.
        "notice_y": view.board.top + view.places.label_height,
        "puzzle": spec.puzzle.code,
        "start": str(spec.start),
        "goal": str(spec.goal),
        "demo": [f.as_dict(spec.puzzle) for f in demonstration(spec.puzzle, spec.start)],
        # The controls practice's move (practice.controls): the first legal one from the start.
        "controls": [(m := spec.puzzle.legal_moves(spec.start)[0]).source, m.target],
    }


def image_names(lp: LoadedProtocol) -> dict[str, str]:
    """Where each instruction image goes in the built folder: ``images/<k>-<file name>``."""
    out: dict[str, str] = {}
    for lang in lp.languages():
        for page in lp.pages(lang):
            if page.image and page.image not in out:
                name = Path(page.image).name
                out[page.image] = str(PurePosixPath(IMAGES, f"{len(out) + 1}-{name}"))
    return out

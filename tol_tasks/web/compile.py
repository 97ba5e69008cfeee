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
  demonstration's frames); format 3 added them. Format 4 added each block's ``planning``
  (a planning-only block's boxes, keys and screens, see :func:`compile_plan`).
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
from tol_tasks.display.planning import planning_screen
from tol_tasks.protocol_format.issues import Issue
from tol_tasks.protocol_format.loaded import LoadedProtocol, PuzzleLook, Resolved
from tol_tasks.protocol_format.model import Display, Input
from tol_tasks.protocol_format.planning import Planning
from tol_tasks.protocol_format.yaml_lines import line_of, load_with_lines
from tol_tasks.session_data.eventlog import EVENT_LOG_VERSION
from tol_tasks.session_data.identity import MAX_SESSION, PARTICIPANT_PATTERN, SESSION_TEXT_PATTERN
from tol_tasks.session_data.plan import SessionPlan
from tol_tasks.session_data.sidecar import ProtocolCopy, Recorder, Sidecar, Software

from .keys import BROWSER_KEYS, CONTINUE_KEY, RESERVED, browser_key

#: Version of the compiled protocol (``protocol.json``) that the page reads (2: a title per
#: language, the task's name for participants; 4: a planning-only block's ``planning``).
COMPILED_FORMAT = 4

#: Folder of instruction images inside a built experiment.
IMAGES = "images"


#: The protocol's sections for lab hardware, which a browser cannot use.
_LAB_ONLY = {"scanner": "the scanner's trigger (a key or a serial line, counted volumes)",
             "markers": "event markers to Lab Streaming Layer or a serial trigger port",
             "eyetracking": "an ioHub eye tracker"}  # fmt: skip


def browser_issues(lp: LoadedProtocol) -> list[Issue]:
    """What ``lp`` asks that a browser cannot do (empty when it can run online).

    Refused: ``display.screen`` other than 0 (a page cannot choose a
    monitor), the lab's hardware (``scanner``, ``markers``, ``eyetracking``), keys a
    browser keeps for itself or does not know (``input.quit_key``, ``input.keys``, a
    planning-only block's ``planning.keys``), and any of them on the key that leaves
    instruction pages (space).
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
    for name, what in _LAB_ONLY.items():
        if getattr(m, name) is not None:
            add((name,), f"{what}: a web page cannot reach that hardware.",
                f"run this protocol with tol-run in the lab, or remove '{name}' for the web "
                "build.")  # fmt: skip
    for i, block in enumerate(m.blocks):  # a planning-only block's answer keys (button box)
        if block.planning is not None and block.planning.keys:
            keys += [(("blocks", i, "planning", "keys", k), key)
                     for k, key in enumerate(block.planning.keys)]  # fmt: skip
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

    The protocol resolved in each language it can run in
    (:meth:`~tol_tasks.protocol_format.loaded.LoadedProtocol.resolve`), serialised: the
    settings and the pieces' looks once, the texts and pages per language; beside them
    the session plan and the sidecar template of the data contract.

    Parameters
    ----------
    lp : LoadedProtocol
        A checked protocol (see :func:`browser_issues` for what the web refuses).
    images : dict, optional
        Each instruction image as the protocol names it -> its path inside the
        built folder (default: ``images/<file name>``).
    """
    view = lp.resolve()
    by_language = {lang: lp.resolve(lang) for lang in lp.languages()}
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
        "puzzles": {code: _look(look, view.display) for code, look in view.looks.items()},
        "display": view.display.model_dump(mode="json"),
        # The session's one layout (tol_tasks.display): the page draws from it.
        "layout": session_layout(lp.model).as_dict(),
        # What the instruction pages show above their text (show: board, demo).
        "shown": _shown(lp),
        "input": _input(view.input),
        "rules": view.rules.model_dump(mode="json"),
        "timing": view.timing.model_dump(mode="json"),
        "feedback": view.feedback,
        "default_language": view.language,
        "languages": {lang: _texts(v, images) for lang, v in by_language.items()},
        "participant_fields": dict(view.participant_fields),
        "plan": compile_plan(lp),
        "sidecar": sidecar_template(lp),
        "layout_puzzle": view.layout_puzzle.code,
    }


def _input(inp: Input) -> dict[str, Any]:
    """The input settings with each key as the browser names it beside PsychoPy's name."""
    return {
        "mode": inp.mode,
        "keys": [browser_key(k) for k in inp.keys] if inp.keys else None,
        "key_names": list(inp.keys) if inp.keys else None,
        "quit_key": browser_key(inp.quit_key),
        "quit_key_name": inp.quit_key,
        "examiner_key": browser_key(inp.examiner_key),
        "examiner_key_name": inp.examiner_key,
        "continue_key": browser_key(CONTINUE_KEY),
    }


def _texts(view: Resolved, images: dict[str, str]) -> dict[str, Any]:
    """A language's title, messages, pages and blocks' pages (each image as its path in the
    built folder)."""
    return {
        "title": view.title,
        "messages": dict(view.messages),
        "pages": [_page(p, images) for p in view.pages],
        "block_pages": {
            name: [_page(p, images) for p in pages] for name, pages in view.block_pages.items()
        },
    }


def _look(look: PuzzleLook, display: Display) -> dict[str, Any]:
    """An apparatus's pieces, capacities, colours, rims and labels (null without labels)."""
    p = look.puzzle
    return {
        "kind": p.kind,
        "pegs": p.n_pegs,
        "capacities": list(p.capacities),
        "pieces": [str(x) for x in p.pieces],
        "colors": dict(look.colors),
        # The rim of each piece: never lost in the background (display model).
        "edges": {k: edge_color(c, display.background) for k, c in look.colors.items()},
        "labels": {k: list(v) for k, v in look.labels.items()} if look.labels else None,
    }


def compile_plan(lp: LoadedProtocol) -> dict[str, Any]:
    """The session plan over every block (a session's form picks its blocks at run time).

    Each problem of a block that copies a shortest solution carries it
    (``optimal``: [from peg, to peg] pairs, :meth:`Puzzle.solve`'s first one). A
    planning-only block carries its ``planning`` (else null): the numbers on the boxes,
    their keys as the browser and as the protocol name them (null: the boxes are clicked),
    ``until_correct``, and the screen of each of its apparatus
    (:func:`~tol_tasks.display.planning.planning_screen`, by puzzle code).
    """
    plan = SessionPlan(lp, form=None, block_indices=list(range(len(lp.model.blocks))))
    data = plan.describe()
    largest = session_layout(lp.model).board.largest
    for i, block in enumerate(data["blocks"]):
        planning = lp.model.blocks[i].planning
        block["planning"] = (
            None
            if planning is None
            else _planning(planning, lp.block_problems(i), lp.model.display, largest)
        )
        copies = block["copies"]
        if copies and copies["moves"] == "optimal":
            for problem, spec in zip(block["problems"], lp.block_problems(i), strict=True):
                problem["optimal"] = [
                    [m.source, m.target] for m in spec.puzzle.solve(spec.start, spec.goal)
                ]
    return data


def _planning(planning: Planning, specs, display: Display, largest: int) -> dict[str, Any]:
    """A planning-only block as the page plays it (see :func:`compile_plan`)."""
    n = len(planning.choices)
    return {
        "choices": list(planning.choices),
        "keys": [browser_key(k) for k in planning.keys] if planning.keys else None,
        "key_names": list(planning.keys) if planning.keys else None,
        "until_correct": planning.until_correct,
        "screens": {
            s.puzzle.code: planning_screen(s.puzzle, display, largest, n).as_dict() for s in specs
        },
    }


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

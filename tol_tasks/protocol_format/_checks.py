"""The checks behind protocol loading: every fault found, each located and explained."""

from __future__ import annotations

import difflib
import typing
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from tol_tasks import texts
from tol_tasks.config import (
    ID_PATTERN,
    MAX_DISKS,
    PROTOCOL_FORMAT,
)
from tol_tasks.errors import TolTasksError
from tol_tasks.puzzles.base import Puzzle

from .colors import default_piece_color
from .issues import Issue
from .loaded import problem_puzzle
from .model import Display, Input, Instructions, Practice, Problem, Protocol, Task
from .problem import problem_faults
from .yaml_lines import line_of

# ------------------------------------------------------- structural issues


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _strip_tags(loc: tuple, data: Any) -> tuple:
    """Drop pydantic's union tags (e.g. 'hanoi') from an error location."""
    out: list = []
    cur = data
    for part in loc:
        if isinstance(cur, dict):
            if part in cur:
                out.append(part)
                cur = cur[part]
            elif cur.get("type") == part:
                continue
            else:
                out.append(part)
                cur = None
        elif isinstance(cur, list) and isinstance(part, int) and part < len(cur):
            out.append(part)
            cur = cur[part]
        elif isinstance(part, str) and (
            part.startswith(("function-", "list[", "str")) or part in ("int", "float")
        ):
            continue
        else:
            out.append(part)
            cur = None
    return tuple(out)


def _unwrap(ann: Any) -> list[type]:
    """Model classes reachable from an annotation (through lists, dicts, unions)."""
    origin = typing.get_origin(ann)
    if origin is Annotated:
        return _unwrap(typing.get_args(ann)[0])
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [ann]
    out: list[type] = []
    for arg in typing.get_args(ann):
        out.extend(_unwrap(arg))
    return out


def _model_at(path: tuple, data: Any) -> type[BaseModel] | None:
    """The model class describing the mapping at ``path`` (for key suggestions)."""
    cls: type[BaseModel] | None = Protocol
    cur = data
    for part in path:
        if cls is None:
            return None
        if isinstance(part, int):
            cur = cur[part] if isinstance(cur, list) and part < len(cur) else None
            continue
        field = cls.model_fields.get(part)
        if field is None:
            return None
        cur = cur.get(part) if isinstance(cur, dict) else None
        candidates = _unwrap(field.annotation)
        if len(candidates) > 1 and isinstance(cur, dict):
            tagged = [
                c
                for c in candidates
                if cur.get("type") in typing.get_args(c.model_fields["type"].annotation)
            ]
            candidates = tagged or candidates
        cls = candidates[0] if candidates else None
    return cls


def _field_info(path: tuple, data: Any):
    """The model field at ``path`` (an item of a list: the list's field), or None."""
    while path and isinstance(path[-1], int):
        path = path[:-1]
    parent = _model_at(tuple(p for p in path[:-1]), data)
    if parent is None or not path or not isinstance(path[-1], str):
        return None
    return parent.model_fields.get(path[-1])


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _structural_issues(exc: ValidationError, data, lines, source) -> list[Issue]:
    issues = []
    seen = set()
    for err in exc.errors(include_url=False):
        path = _strip_tags(tuple(err["loc"]), data)
        kind = err["type"]
        field = _dotted(path)
        info = _field_info(path, data)
        expected = info.description if info is not None and info.description else ""
        line = line_of(lines, path)
        if kind == "extra_forbidden":
            key = str(path[-1])
            model = _model_at(path[:-1], data)
            known = list(model.model_fields) if model else []
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            fix = f"did you mean '{close[0]}'?" if close else ""
            fix += (" " if fix else "") + (
                f"Known keys here: {', '.join(known)}." if known else "remove it."
            )
            msg, fix_text = f"unknown key '{key}'.", fix
        elif kind == "missing":
            msg = f"the required key '{path[-1]}' is missing."
            fix_text = f"add '{path[-1]}:' with {expected}." if expected else f"add '{path[-1]}:'."
        elif kind in ("union_tag_invalid", "union_tag_not_found"):
            path = (*path, "type")
            field, line = _dotted(path), line_of(lines, path)
            msg = f"{_show(err.get('ctx', {}).get('tag'))}: the task type must be 'hanoi' or 'london'."
            fix_text = "write 'type: hanoi' or 'type: london' under 'task:'."
            if kind == "union_tag_not_found":
                msg = "the task has no 'type'."
        elif kind == "string_pattern_mismatch" and err.get("ctx", {}).get("pattern") == ID_PATTERN:
            msg = f"{_show(err.get('input'))} is not allowed as a name."
            fix_text = "use letters, digits, '-', '_' and '.', starting with a letter or digit."
        elif kind == "literal_error" and path == ("format",):
            msg = f"{_show(err.get('input'))}: this version of tol-tasks reads format {PROTOCOL_FORMAT}."
            fix_text = (
                f"write 'format: {PROTOCOL_FORMAT}' (and check the file against docs/protocols.md)."
            )
        else:
            reason = err["msg"]
            if reason.startswith("Value error, "):
                reason = reason[len("Value error, ") :]
            reason = reason[0].lower() + reason[1:] if reason else reason
            msg = f"{_show(err.get('input'))} is not allowed: {reason}."
            fix_text = f"give {expected}." if expected else ""
        key = (line, field, msg)
        if key not in seen:
            seen.add(key)
            issues.append(Issue(source, line, field, msg, fix_text))
    return issues


# --------------------------------------------------------- semantic issues


def _semantic_issues(model: Protocol | None, data: dict, lines, source, base_dir) -> list[Issue]:
    """Checks that need the puzzle: states, minimums, limits, ids, keys, colours."""
    issues: list[Issue] = []

    def add(path, message, fix=""):
        issues.append(Issue(source, line_of(lines, path), _dotted(path), message, fix))

    task = model.task if model is not None else _try(TypeAdapter(Task), data.get("task"))
    if task is None:
        return issues
    try:
        base = task.puzzle()
    except TolTasksError as exc:
        add(("task",), str(exc))
        return issues

    # Every problem, wherever it is, with its location and its block's defaults.
    located: list[tuple[tuple, Problem, Any]] = []
    if model is not None:
        located += [
            (("practice", "problems", j), p, model.practice)
            for j, p in enumerate(model.practice.problems)
        ]
        for i, block in enumerate(model.blocks):
            located += [
                (("blocks", i, "problems", j), p, block) for j, p in enumerate(block.problems)
            ]
    else:
        located = _problems_that_validate(data)

    seen_ids: dict[str, tuple] = {}
    largest = base  # the puzzle with the most pieces any problem uses (piece colours)
    for path, prob, defaults in located:
        if task.type == "london" and (prob.disks or getattr(defaults, "disks", None)):
            where = (*path, "disks") if prob.disks else path
            add(
                where,
                "'disks' is for Tower of Hanoi tasks, but this task is a Tower of London.",
                "remove it; a Tower of London is defined by 'balls' and 'capacities'.",
            )
            continue
        puzzle = problem_puzzle(task, prob, defaults)
        largest = puzzle if puzzle.size > largest.size else largest
        if prob.id in seen_ids:
            add(
                (*path, "id"),
                f"the id '{prob.id}' is already used at line "
                f"{line_of(lines, (*seen_ids[prob.id], 'id'))}.",
                "give every problem its own id.",
            )
        else:
            seen_ids[prob.id] = path
        own_limit = prob.move_limit is not None
        faults, _ = problem_faults(
            puzzle, prob.start, prob.goal, min_moves=prob.min_moves,
            move_limit=prob.move_limit if own_limit else getattr(defaults, "move_limit", None),
        )  # fmt: skip
        for fault in faults:
            # A block's move limit is reported at the problem it makes unsolvable.
            inherited = fault.field == "move_limit" and not own_limit
            add(path if inherited else (*path, fault.field), fault.message, fault.fix)

    # The other sections, each checked on its own if the whole document failed.
    def section(name: str, cls: type):
        if model is not None:
            return getattr(model, name)
        return _try(TypeAdapter(cls), data.get(name) if data.get(name) is not None else {})

    inp, ins, display = (
        section("input", Input),
        section("instructions", Instructions),
        section("display", Display),
    )
    if model is not None:
        _check_block_names(model, add)
    if model is not None and model.counterbalance is not None:
        _check_counterbalance(model, add)
    if inp is not None:
        _check_input(inp, base, add)
    if ins is not None:
        _check_instructions(ins, base_dir, add)
    if display is not None:
        _check_display(display, largest, add)
    return issues


def _check_block_names(model: Protocol, add) -> None:
    """Blocks are told apart by name: in the log's block column, the sidecar, a resume,
    counterbalanced forms and the scores."""
    names = [b.name for b in model.blocks]
    for i, name in enumerate(names):
        if name in names[:i]:
            add(("blocks", i, "name"),
                f"the block name {name!r} is already used by block {names.index(name) + 1}; "
                "the event log, the sidecar, a resume and counterbalancing tell blocks apart "
                "by name.", "give every block its own name (a block without one is 'test').")  # fmt: skip


def _check_counterbalance(model: Protocol, add) -> None:
    cb = model.counterbalance
    names = [b.name for b in model.blocks]
    if not cb.forms and len(names) < 2:
        add(("counterbalance",), "counterbalancing block orders needs at least two blocks.",
            "add blocks, or give 'forms'.")  # fmt: skip
    if cb.forms and len(cb.forms) < 2:
        add(("counterbalance", "forms"), "one form only: nothing to counterbalance.",
            "give two or more forms, e.g. A: [set-a] and B: [set-b].")  # fmt: skip
    for form, blocks in cb.forms.items():
        for j, b in enumerate(blocks):
            if b not in names:
                close = difflib.get_close_matches(b, names, n=1)
                add(("counterbalance", "forms", form, j), f"form {form!r} names the block {b!r}, "
                    "which does not exist.", (f"did you mean {close[0]!r}? " if close else "")
                    + f"Blocks: {', '.join(names)}.")  # fmt: skip
        if not blocks:
            add(
                ("counterbalance", "forms", form),
                f"form {form!r} runs no block.",
                "list its blocks.",
            )


def _check_input(inp: Input, base: Puzzle, add) -> None:
    if inp.mode == "keys":
        if inp.keys is None or len(inp.keys) != base.n_pegs:
            add(
                ("input", "keys"),
                f"{inp.keys!r}: mode 'keys' needs one key per peg ({base.n_pegs}).",
                f"e.g. keys: {[str(i + 1) for i in range(base.n_pegs)]!r}.",
            )
        elif len(set(inp.keys)) != len(inp.keys) or inp.quit_key in inp.keys:
            add(
                ("input", "keys"),
                f"{inp.keys!r}: each peg needs its own key, different from "
                f"the quit key '{inp.quit_key}'.",
                "choose distinct keys.",
            )
    elif inp.keys is not None:
        add(
            ("input", "keys"),
            f"keys are given but mode is '{inp.mode}'.",
            "write 'mode: keys' or remove 'keys'.",
        )


def _check_instructions(ins: Instructions, base_dir: Path | None, add) -> None:
    own = ins.own_pages
    if own and ins.default_language not in own:
        add(
            ("instructions", "default_language"),
            f"'{ins.default_language}' has no pages (pages are given for {', '.join(own)}).",
            "add its pages or change the default.",
        )
    known = texts.MESSAGE_KEYS
    for lang, msgs in ins.messages.items():
        for key in msgs:
            if key not in known:
                close = difflib.get_close_matches(key, list(known), n=1)
                add(
                    ("instructions", "messages", lang, key),
                    f"unknown message '{key}'.",
                    (f"did you mean '{close[0]}'? " if close else "")
                    + f"Known messages: {', '.join(known)}.",
                )
            elif _unknown_fields(key, msgs[key]):
                extra = _unknown_fields(key, msgs[key])
                add(
                    ("instructions", "messages", lang, key),
                    f"{msgs[key]!r} names {', '.join('{' + f + '}' for f in sorted(extra))}, "
                    "which this text is not filled in with.",
                    f"use only {_fields_text(key)}, or write the braces as {{{{ and }}}}.",
                )
    for lang, pages in own.items():
        for j, page in enumerate(pages):
            if page.image and base_dir is not None and not (base_dir / page.image).is_file():
                add(
                    ("instructions", "pages", lang, j, "image"),
                    f"the image '{page.image}' does not exist (looked in {base_dir}).",
                    "fix the path, relative to the protocol file.",
                )


def _check_display(display: Display, largest: Puzzle, add) -> None:
    """Piece colours: each key a piece of the puzzle, and a colour for every piece."""
    pieces = {str(p) for p in largest.pieces}
    for key in display.piece_colors:
        if key not in pieces:
            add(
                ("display", "piece_colors", key),
                f"'{key}' is not a piece of this puzzle.",
                f"use one of {', '.join(sorted(pieces))}.",
            )
    missing = [str(p) for p in largest.pieces
               if str(p) not in display.piece_colors and default_piece_color(largest, p) is None]  # fmt: skip
    if missing:
        add(
            ("display", "piece_colors"),
            f"ball(s) {', '.join(sorted(missing))} have no default colour.",
            f"give a colour for each, e.g. piece_colors: {{{sorted(missing)[0]}: '#888888'}}.",
        )


def _try(adapter: TypeAdapter, value: Any):
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return None


def _problems_that_validate(data: dict) -> list[tuple[tuple, Problem, Any]]:
    """Problems that validate on their own, when the whole document does not."""
    out = []
    problem = TypeAdapter(Problem)
    practice = data.get("practice")
    if isinstance(practice, dict) and isinstance(practice.get("problems"), list):
        defaults = _try(
            TypeAdapter(Practice), {k: v for k, v in practice.items() if k != "problems"}
        )
        for j, raw in enumerate(practice["problems"]):
            prob = _try(problem, raw)
            if prob is not None:
                out.append((("practice", "problems", j), prob, defaults))
    blocks = data.get("blocks")
    if isinstance(blocks, list):
        for i, block in enumerate(blocks):
            if not isinstance(block, dict) or not isinstance(block.get("problems"), list):
                continue
            defaults = {
                k: v for k, v in block.items() if k in ("time_limit", "move_limit", "disks")
            }
            holder = SimpleNamespace(time_limit=None, move_limit=None, disks=None)
            for k, v in defaults.items():
                if (
                    isinstance(v, int)
                    and not isinstance(v, bool)
                    and (k != "disks" or 1 <= v <= MAX_DISKS)
                ):
                    setattr(holder, k, v)
            for j, raw in enumerate(block["problems"]):
                prob = _try(problem, raw)
                if prob is not None:
                    out.append((("blocks", i, "problems", j), prob, holder))
    return out


def _unknown_fields(key: str, text: str) -> set[str]:
    """The ``{fields}`` of a protocol's text that its key is not filled in with (only texts
    that are filled in are read for braces)."""
    own = texts.fields_of(texts.messages("en")[key])
    try:
        return texts.fields_of(text) - own if own else set()
    except ValueError:  # a lone brace
        return {"{"}


def _fields_text(key: str) -> str:
    fields = sorted(texts.fields_of(texts.messages("en")[key]))
    return ", ".join("{" + f + "}" for f in fields) if fields else "no {fields}"


def language_warnings(ins: Instructions, lines, source: str) -> list[Issue]:
    """What keeps a protocol's language from being whole, though the protocol runs.

    A language tol-tasks has no table for shows, of the texts the protocol does not
    give, the English ones; a language the protocol gives texts in but no pages,
    when it has pages of its own, cannot be run; nor a default language in which
    no instruction pages can be made.
    """
    out: list[Issue] = []

    def warn(path, message, fix):
        out.append(Issue(source, line_of(lines, path), _dotted(path), message, fix, warning=True))

    own, source_of_pages = ins.own_pages, ins.page_source
    langs = sorted({ins.default_language, *own, *ins.messages})
    for lang in langs:
        if texts.table(lang) is not None:
            continue
        given = ins.messages.get(lang, {})
        missing = [k for k in texts.MESSAGE_KEYS if k not in given]
        if missing and (lang in own or lang in ins.messages or lang == ins.default_language):
            path = (
                ("instructions", "messages", lang)
                if lang in ins.messages
                else (("instructions", "pages", lang) if lang in own else ("instructions",))
            )
            warn(path, f"tol-tasks has no texts in '{lang}' and the protocol gives "
                 f"{len(given)} of the {len(texts.MESSAGE_KEYS)}: the other {len(missing)} "
                 f"({', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''}) would be "
                 "shown in English.",
                 f"give every text under instructions.messages.{lang} (the keys are those of "
                 "tol_tasks/texts/en.yaml), or run in one of "
                 f"{', '.join(texts.languages())}.")  # fmt: skip
    if source_of_pages == "protocol":
        for lang in ins.messages:
            if lang not in own:
                warn(("instructions", "messages", lang),
                     f"the protocol has its own pages but none in '{lang}', so no session can "
                     f"run in '{lang}' (its texts here are never shown).",
                     f"add instructions.pages.{lang}.")  # fmt: skip
    elif source_of_pages == "default" and texts.table(ins.default_language) is None:
        warn(("instructions", "default_language"),
             f"the protocol gives no pages and tol-tasks has no default pages in "
             f"'{ins.default_language}', so a session in it is refused.",
             f"give instructions.pages.{ins.default_language}, or write 'instructions: none' "
             f"(or 'pages: none'), or use one of {', '.join(texts.languages())}.")  # fmt: skip
    return out

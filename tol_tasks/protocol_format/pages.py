"""The task's default instruction pages: what a protocol without pages of its own shows.

:func:`default_pages` writes them from the protocol itself, in the session's
language, with the sentences of that language's table
(:mod:`tol_tasks.texts`): what the goal display is and where,
how to move (click, drag or the protocol's keys), the task's rules (larger on
smaller and the adjacency rule for the Tower of Hanoi, the pegs' capacities for
the Tower of London), what the move counter counts, the time and move limits,
and to plan (limits said only where the protocol has them: a practice without limits is
said to have none). Three pages, one sentence a line, the first two shown beside the
board (``show``)::

    1  the task and the goal        (the board and the goal of the first problem)
    2  how to move, and the rules   (a demonstration: a legal move and a refused one)
    3  the counter, the limits, and planning

``tol-protocol generate`` writes the same pages into the protocols it makes
(:mod:`~tol_tasks.protocol_format.instructions`),
and the bundled protocols carry theirs, so that what a participant read is in
the protocol (and in each session's sidecar, ``instruction_pages``).
"""

from __future__ import annotations

from tol_tasks.texts import page_texts

from .model import Page, Protocol


def default_pages(model: Protocol, language: str) -> list[Page] | None:
    """The default instruction pages of ``model`` in ``language`` (None: no texts in it)."""
    t = page_texts(language)
    if t is None:
        return None
    kind, d = model.task.type, model.display
    first = [t[f"task_{kind}"]]
    if d.show_goal:
        first += [t[f"goal_{d.goal_position}"], t[f"goal_match_{kind}"]]
    else:
        first.append(t[f"goal_hidden_{kind}"])
    second = [_how_to_move(model, t), t[f"one_at_a_time_{kind}"], *_rules(model, t)]
    third = [t["counter"]] if d.show_move_counter else []
    third += _limits(model, t)
    third.append(t["plan"])
    # Shown before told: the board and the goal beside the first page, a legal move and a
    # refused one beside the second (tol_tasks.display.demo).
    shows = ("board", "demo", None)
    return [Page(text="\n".join(lines), show=show)
            for lines, show in zip((first, second, third), shows, strict=True)]  # fmt: skip


def _listed(items: list, t: dict) -> str:
    """``1, 2 and 3`` in the table's language."""
    items = [str(i) for i in items]
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {t['list_and']} {items[-1]}"


def _how_to_move(model: Protocol, t: dict) -> str:
    inp, kind = model.input, model.task.type
    if inp.mode == "keys":
        return t[f"move_keys_{kind}"].format(keys=_listed(inp.keys or [], t))
    return t[f"move_{inp.mode}_{kind}"]


def _rules(model: Protocol, t: dict) -> list[str]:
    task = model.task
    if task.type == "hanoi":
        rules = [t["rule_larger_on_smaller"]]
        if task.adjacent_only:
            rules.append(t["rule_adjacent_three" if task.pegs == 3 else "rule_adjacent"])
        return rules
    caps = list(task.capacities)
    if len(set(caps)) == 1:
        return [t["rule_capacity"].format(capacity=caps[0])]
    return [t["rule_capacities"].format(capacities=_listed(caps, t))]


def _limits(model: Protocol, t: dict) -> list[str]:
    """The time and move limits, as the participant meets them in the test problems."""
    time_limits, move_limits = [], []
    for block in model.blocks:
        for prob in block.problems:
            time_limits.append(prob.time_limit if prob.time_limit is not None else block.time_limit)
            move_limits.append(prob.move_limit if prob.move_limit is not None else block.move_limit)
    out = []
    for values, key, name in ((time_limits, "time", "seconds"),
                              (move_limits, "move_limit", "moves")):  # fmt: skip
        given = {v for v in values if v is not None}
        if len(given) == 1 and None not in values:  # the same limit for every problem
            value = given.pop()
            out.append(t[f"{key}_each"].format(**{name: int(value) if value == int(value)
                                                  else value}))  # fmt: skip
        elif given:
            out.append(t[f"{key}_every" if None not in values else f"{key}_some"])
        if given and name == "seconds" and model.display.show_time_left:
            out.append(t["time_shown"])
    practice = model.practice
    free = practice.problems and all(
        (p.time_limit if p.time_limit is not None else practice.time_limit) is None
        and (p.move_limit if p.move_limit is not None else practice.move_limit) is None
        for p in practice.problems
    )
    if out and free:  # the limits above are the test's: the practice has none
        out.append(t["practice_no_limit"])
    return out

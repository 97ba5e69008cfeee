"""Writing a whole event log at once: a session made elsewhere (an importer), not recorded live.

:class:`~tol_tasks.session_data.livelog.EventLog` appends and flushes one row as each
event happens, so that a crash loses at most the event in flight. A session
converted from another tool's file already has all its rows; :func:`write_event_log`
writes them in one go, in the same columns and with the same cells as
``EventLog.write`` (the one cell formatter of :mod:`.eventlog`), into a file
that must not exist yet, and forces it to the disk before returning.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from .eventlog import cell, columns


def write_event_log(path: str | Path, rows: Iterable[Mapping[str, Any]], *,
                    fsync: bool = True) -> int:  # fmt: skip
    """Write an event log of ``rows`` (column -> value, without ``row``) to a new file.

    Rows are numbered from 1. Returns the number of rows written.

    Raises
    ------
    FileExistsError
        If ``path`` exists (an event log is never overwritten).
    ValueError
        If a row names a column the event log does not have.
    OSError
        If the file cannot be written; a file left incomplete is removed.
    """
    text, n = event_log_text(rows)
    p = Path(path)
    with open(p, "x", encoding="utf-8", newline="") as f:
        try:
            f.write(text)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        except OSError:
            f.close()
            p.unlink(missing_ok=True)
            raise
    return n


def event_log_text(rows: Iterable[Mapping[str, Any]]) -> tuple[str, int]:
    """The text of an event log of ``rows`` (what :func:`write_event_log` writes) and the
    number of rows.

    Each row is one ``%`` of a format made once for its keys and their values' types
    (:func:`_plan`), which takes its cells from the row by name in C: a row costs a few
    calls, not a Python step per cell. A log whose text needs what the csv module would
    add (a cell holding a comma, a quote or a line break, which it quotes and
    :func:`.eventlog.cell` makes a space) is written again cell by cell.

    Raises
    ------
    ValueError
        If a row names a column the event log does not have.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    cols = _layout()[0]
    lines = [",".join(cols), "\n"]
    add = lines.append
    plans = _PLANS
    n = 0
    for n, values in enumerate(rows, start=1):
        vals = (n, *values.values())
        key = (tuple(values), tuple(map(type, vals)))
        plan = plans.get(key)
        if plan is None:
            plan = _plan(*key)
        fmt, get, fix = plan
        if fix:
            vals = list(vals)
            for i, convert in fix:
                vals[i] = convert(vals[i])
        add(fmt % get(vals))
    text = "".join(lines)
    if (
        '"' in text
        or "\r" in text
        or text.count("\n") != n + 1
        or text.count(",") != (n + 1) * (len(cols) - 1)
    ):  # a cell the csv module would quote (or whose line breaks cell() makes spaces)
        return _text_cell_by_cell(rows)
    return text, n


def _bool_cell(v: bool) -> str:
    return "1" if v else "0"


#: The plans made so far (:func:`_plan`), by a row's keys and its values' types.
_PLANS: dict[tuple, tuple[str, Callable, tuple]] = {}


def _plan(keys: tuple[str, ...], types: tuple[type, ...]) -> tuple[str, Callable, tuple]:
    """How a row with these keys, its values of these types (after its row number), is
    written: the line's format (``%s`` for a text, an int and any value :func:`.eventlog.cell`
    makes text, ``%.6f`` for a float, nothing for a column left out or None), the getter of
    its cells in the columns' order from ``(row number, *values)``, and the values whose cell
    is :func:`.eventlog.cell`'s (a bool 1 or 0, any type but a text, an int and a float) as
    (index, function), converted first."""
    cols, where = _layout()
    place: dict[int, int] = {0: 0}
    cells = ["%s"] + [""] * (len(cols) - 1)
    fix = []
    for i, (k, kind) in enumerate(zip(keys, types[1:], strict=True), start=1):
        if kind is type(None):
            continue
        if k not in where:
            raise ValueError(f"not event log columns: {k}")
        if k == "row":
            continue  # the row number is the log's own
        place[where[k]] = i
        cells[where[k]] = "%.6f" if kind is float else "%s"
        if kind is not str and kind is not int and kind is not float:
            fix.append((i, _bool_cell if kind is bool else cell))
    order = [place[c] for c in sorted(place)]
    get = itemgetter(*order) if len(order) > 1 else (lambda v, i=order[0]: (v[i],))
    if len(_PLANS) >= 1024:
        _PLANS.clear()
    plan = _PLANS[(keys, types)] = (",".join(cells) + "\n", get, tuple(fix))
    return plan


def _text_cell_by_cell(rows: list[Mapping[str, Any]]) -> tuple[str, int]:
    """:func:`event_log_text`, each cell made by :func:`.eventlog.cell` (line breaks too)."""
    cols, where = _layout()
    blank = [""] * len(cols)
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(cols)
    n = 0
    for n, values in enumerate(rows, start=1):
        cells = blank.copy()
        for k, v in values.items():
            if v is not None:
                cells[where[k]] = cell(v)
        cells[0] = str(n)
        out.writerow(cells)
    return buf.getvalue(), n


@cache
def _layout() -> tuple[tuple[str, ...], dict[str, int]]:
    """The event log's columns and each one's place (made once, not per file)."""
    cols = columns()
    return cols, {c: i for i, c in enumerate(cols)}

"""Writing a whole event log at once: a session made elsewhere (an importer), not recorded live.

:class:`~tol_tasks.session_data.EventLog` appends and flushes one row as each
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
from functools import cache, lru_cache
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

    Each row's cells are put in the columns' order by a plan made once for its keys and
    their values' types (:func:`_plan`): a row costs a few calls in C, not a Python step
    per cell. A log with a line break inside a cell (which :func:`.eventlog.cell` makes a
    space) is written again cell by cell.

    Raises
    ------
    ValueError
        If a row names a column the event log does not have.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    buf = io.StringIO()
    write = csv.writer(buf, lineterminator="\n").writerow
    write(_layout()[0])
    n = 0
    for n, values in enumerate(rows, start=1):
        vals = [n, *values.values(), ""]
        get, floats, fix = _plan(tuple(values), tuple(map(type, vals)))
        for i in floats:
            vals[i] = f"{vals[i]:.6f}"
        for i, convert in fix:
            vals[i] = convert(vals[i])
        write(get(vals))
    text = buf.getvalue()
    if "\r" in text or text.count("\n") != n + 1:  # a line break in a cell, quoted by csv
        return _text_cell_by_cell(rows)
    return text, n


def _bool_cell(v: bool) -> str:
    return "1" if v else "0"


@lru_cache(maxsize=1024)
def _plan(keys: tuple[str, ...], types: tuple[type, ...]) -> tuple[Callable, tuple, tuple]:
    """How a row with these keys, its values of these types, is written: a getter of its
    cells in the columns' order from ``[row number, *values, ""]``, the floats (six
    decimals) and the other values whose cell is not the csv module's text (``str``) as
    (index, function): a bool (1 or 0), any type but a text, an int and None."""
    cols, where = _layout()
    blank = len(keys) + 1
    place = {}
    floats = []
    fix = []
    for i, (k, kind) in enumerate(zip(keys, types[1:-1], strict=True), start=1):
        if kind is type(None):
            continue
        if k not in where:
            raise ValueError(f"not event log columns: {k}")
        place[where[k]] = i
        if kind is float:
            floats.append(i)
        elif kind is not str and kind is not int:
            fix.append((i, _bool_cell if kind is bool else cell))
    place[0] = 0
    getter = itemgetter(*(place.get(c, blank) for c in range(len(cols))))
    return getter, tuple(floats), tuple(fix)


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

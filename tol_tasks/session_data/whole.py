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
from collections.abc import Iterable, Mapping
from functools import cache
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

    Raises
    ------
    ValueError
        If a row names a column the event log does not have.
    """
    cols, where = _layout()
    blank = [""] * len(cols)
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(cols)
    n = 0
    for n, values in enumerate(rows, start=1):
        cells = blank.copy()
        for k, v in values.items():
            if v is None:
                continue
            i = where.get(k)
            if i is None:
                raise ValueError(f"not event log columns: {k}")
            kind = type(v)
            # Fast paths with cell's result: a text without line breaks as it is, an int.
            if kind is str and "\n" not in v and "\r" not in v:
                cells[i] = v
            elif kind is int:
                cells[i] = str(v)
            else:
                cells[i] = cell(v)
        cells[0] = str(n)
        out.writerow(cells)
    return buf.getvalue(), n


@cache
def _layout() -> tuple[tuple[str, ...], dict[str, int]]:
    """The event log's columns and each one's place (made once, not per file)."""
    cols = columns()
    return cols, {c: i for i, c in enumerate(cols)}

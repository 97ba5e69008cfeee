"""Reading a foreign data file into rows, once, with what every importer needs to name a fault.

A :class:`Source` is the file's bytes (for its SHA-256), its columns and its
rows as dicts of text. CSV files (comma, semicolon or tab, with or without a
byte-order mark) and JSON files (a list of records, or an object whose ``data``
holds that list, as jsPsych and the Experiment Factory save them; records
wrapped in ``trialdata`` are unwrapped) are read. Every value comes back as
text, but JSON lists and objects, which stay as parsed (never encoded again only to be
decoded by the importer): :func:`json_cell` reads a cell that holds JSON the same way
whichever export it came from, and :func:`cell_text` gives any cell as the file wrote it. Row numbers are the file's lines (the
header is row 1) for CSV, and the record number from 1 for JSON.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tol_tasks.errors import TolTasksError


class ImportSourceError(TolTasksError, ValueError):
    """A foreign data file cannot be imported; the message names the file, row, column,
    value and the fix."""


def fault(
    path, problem: str, fix: str, *, row: int | None = None, column: str | None = None, value=None
) -> ImportSourceError:
    """The error for one fault: ``file: row N: column 'c' holds 'v': problem. Suggested fix: fix``."""
    where = [str(path)]
    if row is not None:
        where.append(f"row {row}")
    head = ": ".join(where)
    if column is not None:
        cell = f"column {column!r}" + (f" holds {_show(value)}" if value is not None else "")
        head = f"{head}: {cell}"
    return ImportSourceError(f"{head}: {problem}. Suggested fix: {fix}")


def _show(value) -> str:
    """A cell's value for a message: as the file writes it (a list or object as JSON)."""
    text = (
        json.dumps(value, separators=(",", ":")) if isinstance(value, (dict, list)) else str(value)
    )
    return repr(text if len(text) <= 80 else text[:77] + "...")


@dataclass
class Source:
    """One foreign data file, read.

    Attributes
    ----------
    path : Path
    sha256 : str
        Of the file's bytes: with the participant and session, it recognises a
        session already imported.
    kind : {"csv", "json", "text"}
        ``text``: neither (lines of whitespace-separated fields, no header).
    columns : list of str
        The header (CSV) or every key of the records, in order of appearance (JSON).
    rows : list of dict
        One per data row, column -> text ("" for a missing cell); for a streamed
        source, only the columns that say whose row it is (see :func:`~tol_tasks.importers.stream.stream_source`),
        the whole row read again with :meth:`row`.
    numbers : list of int
        Each row's number in the file, for messages.
    lines : list of str
        The text's lines (``text`` files only).
    streamed : bool
        Whether ``rows`` hold only the columns that say whose row it is (see :meth:`row`).
    """

    path: Path
    sha256: str
    kind: str
    columns: list[str] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    streamed: bool = False
    _reader: Any = field(default=None, repr=False, compare=False)  # a streamed file's rows

    @property
    def name(self) -> str:
        return self.path.name

    def row(self, i: int) -> dict:
        """Row ``i`` whole (every column). For a source read whole, ``rows[i]``; for a
        streamed one (:func:`~tol_tasks.importers.stream.stream_source`, whose ``rows`` hold only the columns that
        say whose row it is), parsed again from its bytes in the file when it is asked for."""
        return self.rows[i] if self._reader is None else self._reader.take(i)

    def keep(self, indices) -> None:
        """Formerly, the rows :meth:`row` would be asked for (a streamed source read the file
        forward and kept those it passed); each row is now read from its own bytes when it is
        asked for, in any order, so there is nothing to keep. Formats that call it still work."""
        del indices

    def reopen(self) -> None:
        """Read a streamed file's rows through a file handle of this process's own (a forked
        copy of the process must not share its parent's); nothing to do for a source read
        whole."""
        if self._reader is not None:
            self._reader = self._reader.reopened()

    def require(self, columns, fmt: str, fix: str) -> None:
        """Raise the missing-column error for the first of ``columns`` the file lacks."""
        have = set(self.columns)
        for c in columns:
            if c not in have:
                raise fault(
                    self.path,
                    f"column {c!r} is missing; {fmt} needs {', '.join(columns)}",
                    fix,
                    row=1 if self.kind == "csv" else None,
                )


def read_source(path: str | Path) -> Source:
    """Read a data file (see the module's description).

    Raises
    ------
    ImportSourceError
        If the file cannot be read, is not text, or is a CSV or JSON file that is damaged.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise fault(p, f"cannot be read ({exc.strerror})", "check the path") from None
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.decode("cp1252")
        except UnicodeDecodeError as exc:
            raise fault(
                p,
                f"is not text (byte {exc.start})",
                "give the data file the tool wrote (.csv, .json or .txt)",
            ) from None
    stripped = text.lstrip()
    if not stripped:
        raise fault(p, "is empty", "give the data file the tool wrote")
    if stripped[0] in "[{":
        return _read_json(p, digest, text)
    first = stripped.split("\n", 1)[0]
    if _is_numeric_line(first):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return Source(p, digest, "text", lines=lines, numbers=list(range(1, len(lines) + 1)))
    return _read_csv(p, digest, text)


def _is_numeric_line(line: str) -> bool:
    parts = line.replace(",", " ").replace(";", " ").split()
    return bool(parts) and all(_is_number(x) for x in parts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_csv(p: Path, digest: str, text: str) -> Source:
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except (csv.Error, StopIteration) as exc:
        raise fault(
            p, f"the header is not readable CSV ({exc})", "give the data file the tool wrote", row=1
        ) from None
    header = [h.strip() for h in header]
    width = len(header)
    src = Source(p, digest, "csv", columns=header)
    rows, numbers = src.rows, src.numbers
    try:
        for values in reader:
            if not values or (len(values) == 1 and not values[0].strip()):
                continue
            line = reader.line_num
            if len(values) != width:
                if len(values) > width and not any(v.strip() for v in values[width:]):
                    values = values[:width]  # trailing separators
                else:
                    raise fault(
                        p,
                        f"{len(values)} fields where the header has {width}",
                        "restore the file from the tool's own output (it was cut or edited)",
                        row=line,
                    )
            rows.append(dict(zip(header, values, strict=False)))
            numbers.append(line)
    except csv.Error as exc:
        raise fault(
            p,
            f"unreadable CSV ({exc})",
            "restore the file from the tool's own output",
            row=reader.line_num,
        ) from None
    return src


def _read_json(p: Path, digest: str, text: str) -> Source:
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise fault(
            p, f"is not valid JSON ({exc})", "restore the file from the tool's own output", row=line
        ) from None
    if isinstance(data, dict):
        for key in ("data", "trials", "results"):
            inner = data.get(key)
            if isinstance(inner, str):
                try:
                    inner = json.loads(inner)
                except ValueError:
                    inner = None
            if isinstance(inner, list):
                data = inner
                break
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise fault(
            p,
            "the JSON is not a list of records (one object per trial)",
            "give the jsPsych data as jsPsych.data.get().json() saves it",
        )
    columns: dict[str, None] = {}
    src = Source(p, digest, "json")
    for n, record in enumerate(data, start=1):
        row = record_row(record)
        columns.update(dict.fromkeys(row))
        src.rows.append(row)
        src.numbers.append(n)
    src.columns = list(columns)
    return src


def record_row(record: dict) -> dict:
    """A JSON record as a row: ``trialdata`` unwrapped, every value a cell (:func:`_text`)."""
    if isinstance(record.get("trialdata"), dict):
        record = {**record, **record["trialdata"]}
        record.pop("trialdata")
    return {k: v if type(v) is str else cell_of(v) for k, v in record.items()}


def cell_of(value):
    """A JSON record's value as a cell: text, or a list or object as parsed."""
    kind = type(value)
    if kind is int or kind is float:  # the most common first (a bool is not one here)
        return str(value)
    if kind is list or kind is dict:
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return value
    return str(value)


def json_cell(value):
    """A cell that holds JSON, decoded: a JSON source's list or object as it is, a CSV
    source's text parsed (ValueError when it is not JSON)."""
    return json.loads(value) if isinstance(value, str) else value


def text_cell(source: Source, row: dict, column: str, *, n: int, default: str = "") -> str:
    """The cell ``column`` of ``row`` (``default`` when absent), which must hold one value: a
    JSON source's list or object there (where the tool writes a text or a number) is
    refused, naming the cell."""
    value = row.get(column, default)
    if type(value) is str:
        return value
    raise fault(
        source.path,
        "expected one value (a text or a number), not a list or an object",
        "restore the file from the tool's own output",
        row=n,
        column=column,
        value=value,
    )


def cell_text(value) -> str:
    """A cell as the file wrote it: a JSON source's list or object as compact JSON text."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))

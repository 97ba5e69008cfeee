"""JATOS results of a tol-web study (``tol-web build --jatos``), back into event logs.

The page appends each piece of a session's log to its JATOS result
(``jatos.appendResultData``), one line of JSON each: ``{"tol_tasks": piece}``,
the piece of the upload protocol (:mod:`tol_tasks.session_data.pieces`).
JATOS's result export is either a results archive (``.jrzip`` or ``.zip``:
``study_result_<id>/comp-result_<id>/data.txt`` per component run, with
``metadata.json``) or the result data as text (every component result's data
one after another). This reads either, checks every piece (codebook, sidecar
model, the participant-id rule) and writes each session attempt with
:class:`~tol_tasks.session_data.collect.FolderStorage`, as ``tol-web serve``
does: rows numbered as the page wrote them, each once (a piece sent twice is
read once; a row sent twice with other contents is an error naming the file
and line), the sidecar of the latest piece. Lines that are not tol-tasks
pieces (another component's data) are passed over and counted.

Importing the same export again writes nothing new; an export taken later
(more sessions, or sessions that went on) adds what is new to the same logs.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tol_tasks.session_data.collect import FolderStorage
from tol_tasks.session_data.pieces import UploadRefusedError, check_piece

from .source import ImportSourceError

#: The ``--format`` name.
NAME = "jatos"

#: What ``--list-formats`` says of it.
TITLE = "JATOS results of a tol-web study built with --jatos (.jrzip, .zip or result data text)"

_KEY = '{"tol_tasks"'


@dataclass(frozen=True)
class _Study:
    """Where FolderStorage writes: the output folder itself, files named by the protocol."""

    name: str
    protocol_name: str


def is_results(path: Path) -> bool:
    """Whether ``path`` is a JATOS result export holding tol-tasks pieces."""
    try:
        if not zipfile.is_zipfile(path):
            return any(head.startswith(_KEY) for head in _heads(path, 50))
        return any(True for _ in _lines(path, limit=50) if _[2].startswith(_KEY))
    except (ImportSourceError, OSError, UnicodeDecodeError):
        return False


def _heads(path: Path, limit: int) -> Iterator[str]:
    """The start of each of the first ``limit`` lines of a text file, read in bounded
    pieces (a data file of one long line, as a JSON export is, is not read whole)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for _ in range(limit):
            line = f.readline(4096)
            if not line:
                return
            yield line.lstrip()
            while line and not line.endswith("\n"):  # the rest of a long line
                line = f.readline(1 << 20)


def _lines(path: Path, limit: int | None = None) -> Iterator[tuple[str, int, str]]:
    """(file inside, line number, text) of every line of the export's result data."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                for name in sorted(n for n in z.namelist() if n.endswith("data.txt")):
                    with z.open(name) as f:
                        text = io.TextIOWrapper(f, encoding="utf-8")
                        for n, line in enumerate(text, start=1):
                            if limit is not None and n > limit:
                                break
                            yield f"{path}:{name}", n, line.strip()
            return
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if limit is not None and n > limit:
                    break
                yield str(path), n, line.strip()
    except (OSError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise ImportSourceError(
            f"{path}: cannot be read as a JATOS result export ({exc}). Suggested fix: give the "
            "results archive (.jrzip or .zip) or the result data text that JATOS exported."
        ) from None


def import_results(path: Path, output: Path) -> tuple[list[Path], list[Path], int, int]:
    """Write the sessions of one JATOS export into ``output``.

    Returns (logs written to, logs already holding every row, rows added,
    lines that were not tol-tasks pieces).

    Raises
    ------
    ImportSourceError
        A piece that breaks the protocol (naming the file, line, field, value
        and fix), or an export with no tol-tasks piece.
    """
    store = FolderStorage(output, by="tol-import jatos")
    store.open()
    changed: dict[tuple[str, str], Path] = {}
    seen: dict[tuple[str, str], Path] = {}
    added = others = pieces = 0
    for where, n, text in _lines(path):
        if not text.startswith(_KEY):
            others += bool(text)
            continue
        try:
            data = json.loads(text)["tol_tasks"]
            piece = check_piece(data, protocol_sha256=None)
        except UploadRefusedError as exc:  # before ValueError: it is one
            raise ImportSourceError(f"{where}: line {n}: {exc.message} Suggested fix: give "
                                    "JATOS's export unchanged (the page did not write this "
                                    "line so).") from None  # fmt: skip
        except (ValueError, KeyError, TypeError) as exc:
            raise ImportSourceError(f"{where}: line {n}: not a tol-tasks piece ({exc}). "
                                    "Suggested fix: give JATOS's export unchanged.") from None  # fmt: skip
        pieces += 1
        sidecar = piece.sidecar or {}
        protocol = (sidecar.get("protocol") or {}).get("name") or "tol-web"
        key = ("", piece.attempt)
        before = store.note("", piece.attempt)
        held_before = _held(store, before)
        try:
            receipt = store.store(_Study("", protocol), piece, stem=_stem(piece, sidecar))
        except UploadRefusedError as exc:
            raise _refused(exc, f"{where}: line {n}", piece) from None
        note = store.note("", piece.attempt)
        log = output / f"{note.stem}.csv"
        seen[key] = log
        if receipt.rows_held > held_before:
            added += receipt.rows_held - held_before
            changed[key] = log
    if not pieces:
        raise ImportSourceError(
            f"{path}: holds no tol-tasks piece (lines starting {_KEY}). Suggested fix: export the "
            "results of the study built with tol-web build --jatos."
        )
    written = list(changed.values())
    return written, [p for k, p in seen.items() if k not in changed], added, others


def _refused(exc: UploadRefusedError, where: str, piece) -> ImportSourceError:
    """What the collection server answers a page (rows held, rows to send), said of an
    export: the rows its earlier lines hold, and what to export."""
    held = exc.rows_held or 0
    holds = f"rows 1 to {held}" if held else "no row"
    every = "export every result of the study from JATOS (a result left out holds them)"
    if exc.field == "first_row":
        said = (f"first_row={piece.first_row}: the lines before it hold {holds} of this "
                f"attempt ({piece.attempt}), so rows {held + 1} to {piece.first_row - 1} are "
                f"missing. Suggested fix: {every}, then import again.")  # fmt: skip
    elif exc.field == "final":
        said = (f"final: the session's sidecar counts {exc.value} rows, the lines up to here "
                f"hold {held} of this attempt ({piece.attempt}). Suggested fix: {every}, then "
                "import again.")  # fmt: skip
    elif exc.field == "rows":
        said = (f"row {exc.value}: differs from row {exc.value} of the same attempt "
                f"({piece.attempt}) on an earlier line (a row once written is never changed). "
                "Suggested fix: give JATOS's export unchanged.")  # fmt: skip
    else:
        said = str(exc)
    return ImportSourceError(f"{where}: {said}")


def _held(store: FolderStorage, note) -> int:
    if note is None:
        return 0
    log = store.data / f"{note.stem}.csv"
    try:
        return max(0, log.read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


def _stem(piece, sidecar: dict) -> str | None:
    """The page's own file name for a new attempt, when it is a safe one (else the server's rule)."""
    name = str(sidecar.get("event_log") or "")
    stem = name.removesuffix(".csv")
    ok = re.fullmatch(rf"{re.escape(piece.participant)}_[A-Za-z0-9_.-]{{1,120}}", stem)
    return stem if ok and ".." not in stem else None

"""Event logs and sidecars out of a jsPsych data file (Cognition.run, Pavlovia, JATOS exports).

A host that saves jsPsych's own data keeps each tower session's files inside
it: the ``tower-session`` trial's ``event_log`` and ``sidecar`` columns (with
their file names in ``event_log_name`` and ``sidecar_name``).
:func:`extract_sessions` writes them back out, byte for byte, for ``tol-score``.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from tol_tasks.errors import path_fix

from .build import WebBuildError

_FIELDS = ("event_log_name", "event_log", "sidecar_name", "sidecar")


def _records(path: Path) -> list[dict]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise WebBuildError(f"{path}: cannot be read ({exc.strerror or exc}).",
                            fix=path_fix(exc)) from None  # fmt: skip
    except UnicodeDecodeError as exc:
        raise WebBuildError(f"{path}: cannot be read ({exc}).", fix="give the jsPsych data "
                            "file (CSV or JSON) as it was saved, in UTF-8.") from None  # fmt: skip
    if text.lstrip().startswith(("[", "{")):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise WebBuildError(f"{path}: not JSON ({exc}).") from None
        return data if isinstance(data, list) else [data]
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    return list(csv.DictReader(text.splitlines(keepends=True)))


def extract_sessions(path: str | Path, output: str | Path) -> list[Path]:
    """Write every tower session found in the jsPsych data file ``path`` into ``output``.

    Raises
    ------
    WebBuildError
        A file that cannot be read, holds no tower session, or would overwrite a file.
    """
    path, out = Path(path), Path(output)
    found = [r for r in _records(path) if all(r.get(k) for k in _FIELDS)]
    if not found:
        raise WebBuildError(
            f"{path}: no tower session in it (no row with {', '.join(_FIELDS)}). Suggested fix: "
            "give the jsPsych data file (CSV or JSON) of an experiment built by tol-web build."
        )
    files = []
    for r in found:
        for name_key, text_key in (("event_log_name", "event_log"), ("sidecar_name", "sidecar")):
            name = Path(str(r[name_key])).name
            files.append((out / name, str(r[text_key])))
    for target, _ in files:
        if target.exists():
            raise WebBuildError(
                f"{target} exists already; files are never overwritten. Suggested fix: choose "
                "another --output folder."
            )
    out.mkdir(parents=True, exist_ok=True)
    for target, text in files:
        target.write_text(text, encoding="utf-8", newline="")
    return [t for t, _ in files]

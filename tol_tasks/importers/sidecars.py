"""An imported session's sidecar: the model checked once, each file's text made of pieces.

:func:`sidecar` is the sidecar of an imported session as the model
(:class:`~tol_tasks.session_data.sidecar.Sidecar`) makes it. Every session of an import
has the same sidecar but for a few keys, so :class:`SidecarTexts` builds the model only
for the first session (the template: checked by the model, each key's text made once)
and gives every session the text the model would give, made of the template's pieces, the
sections that depend on the format (made by the model once each, their text kept) and the
session's own values, each JSON piece indented once and kept by its compact JSON. The
first session's text is compared with the model's whole text; a session with a value the
pieces cannot vouch for (a type the model would convert, a value JSON cannot hold) gets
the model's text.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sys
from datetime import datetime, timezone
from typing import Any

from tol_tasks import __version__
from tol_tasks.session_data import EVENT_LOG_VERSION
from tol_tasks.session_data.sidecar import (
    ProtocolCopy,
    Recorder,
    Sidecar,
    Software,
    Source,
    Timing,
    sidecar_text,
)

from .session import ImportedSession

#: The importers' own version: it changes when an importer maps a source differently.
IMPORTER_VERSION = 1

#: The protocol text of an imported session: none (the other tool ran no tol-tasks protocol).
_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()

#: The sidecar's keys that differ between imported sessions (the others: the template's).
_OWN = ("event_log", "status", "participant", "session", "start_time", "end_time", "recorder",
        "source", "unavailable", "protocol", "timing", "rows_written", "import")  # fmt: skip

#: A text as JSON writes it without ``ensure_ascii`` (the json module's own function).
_text = json.encoder.encode_basestring

#: A value's compact JSON (in C): a shared value's text is used again only while it is the
#: same (an equal value of another type, ``3`` and ``3.0``, is not).
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def imported_at() -> str:
    """Now, local time, ISO 8601 to the second (the sidecar's ``import.imported_at``)."""
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def sidecar(s: ImportedSession, log: str, rows: int, when: str | None = None) -> Sidecar:
    """The sidecar of an imported session (the session_data model, version 2).

    What the source cannot tell stays empty (no screen, window, frames, layout);
    ``recorder`` is tol-import, ``source`` the original file(s) and their
    SHA-256, ``unavailable`` the measures the source does not record. The
    model has no place for the rest of the provenance, which goes in the
    ``import`` section (kept as an extra key): which source field gives each
    time, each unavailable measure's reason and consequence, the stated
    minimums that disagree with the solver, the apparatus and how it was
    known, the importer's version and when it ran (``when``, by default now).
    """
    meta, files, sums = _provenance(s)
    times = meta.get("times", {})
    return Sidecar(
        event_log=log,
        event_log_version=EVENT_LOG_VERSION,
        status="completed" if s.complete else "incomplete",
        participant=s.participant,
        session=s.session,
        start_time=s.start_time,
        end_time=s.end_time,
        recorder=Recorder(**_recorder(meta)),
        source=Source(**_source(s.format, files, sums, meta)),
        unavailable=[u["measure"] for u in meta.get("unavailable", [])],
        protocol=ProtocolCopy(**_protocol(s.format)),
        software=Software(
            tol_tasks=__version__, python=sys.version.split()[0], os=platform.platform()
        ),
        timing=Timing(**_timing(times)),
        rows_written=rows,
        **{"import": _section(meta, when)},
    )


def _provenance(s: ImportedSession) -> tuple[dict, list[str], list[str]]:
    """The ``import`` section's data (the summary file taken out) and the source files and
    their SHA-256."""
    meta = dict(s.meta)
    files, sums = [s.source.name], [s.source.sha256]
    summary = meta.pop("summary_file", None), meta.pop("summary_sha256", None)
    if summary[0]:
        files.append(summary[0])
        sums.append(summary[1])
    return meta, files, sums


def _recorder(meta: dict) -> dict[str, Any]:
    return {"name": "tol-import", "version": f"{__version__} (importer {IMPORTER_VERSION})",
            "runtime": meta.get("format_title")}  # fmt: skip


def _protocol(fmt: str) -> dict[str, Any]:
    return {"name": fmt, "version": None, "path": None, "sha256": _EMPTY_SHA256, "text": ""}


def _timing(times: dict) -> dict[str, Any]:
    return {"clock": times.get("clock"), "expected_resolution_s": times.get("resolution_s"),
            "trial_onset": times.get("trial_onset")}  # fmt: skip


def _source(fmt: str, files: list[str], sums: list[str], meta: dict) -> dict[str, Any]:
    return {"format": fmt, "files": files, "sha256": sums, "note": _note(meta)}


def _section(meta: dict, when: str | None) -> dict[str, Any]:
    return {**meta, "importer_version": IMPORTER_VERSION, "imported_at": when or imported_at()}


def _note(meta: dict) -> str:
    """``source.note``: what the conversion assumed, in one sentence or two."""
    parts = [
        f"Converted by tol-import from {meta.get('format_title')}; no tol-tasks protocol ran "
        "(protocol.text is empty)."
    ]
    apparatus = meta.get("apparatus") or {}
    if apparatus.get("basis"):
        parts.append(f"Apparatus: {apparatus['basis']}.")
    if apparatus.get("defaults_used"):
        used = ", ".join(f"{k}={v}" for k, v in apparatus["defaults_used"].items())
        parts.append(f"Not saved by the source, the tool's defaults were used: {used}.")
    parts.append(
        "import.times says which source field gives each time; import.unavailable why "
        "each measure is missing."
    )
    return " ".join(parts)


class SidecarTexts:
    """The sidecar texts of one import's sessions, each what ``sidecar_text(sidecar(...)
    .to_dict())`` gives (see the module's description), at a fraction of its cost."""

    #: Lists and objects remembered (to find those shared by sessions) before forgetting.
    KEEP = 4096

    def __init__(self) -> None:
        self._keys: tuple[str, ...] | None = None  # the model's keys, in order
        self._template: dict[str, str] = {}  # each key's line, for the template's keys
        self._models: dict[tuple, str] = {}  # a section as the model made it, indented
        self._seen: dict[int, Any] = {}  # lists and objects met once (kept: ids stay theirs)
        self._shared: dict[tuple[int, int], tuple[Any, str, str]] = {}  # met again: its text

    def text(self, s: ImportedSession, log: str, rows: int) -> str:
        """The text of the sidecar of ``s`` (its log ``log`` of ``rows`` rows)."""
        when = imported_at()
        if self._keys is None:
            data = sidecar(s, log, rows, when).to_dict()
            whole = sidecar_text(data)
            self._keys = tuple(data)
            self._template = {
                k: _line(k, self._json(v, 1)) for k, v in data.items() if k not in _OWN
            }
            if self._text(s, log, rows, when) != whole:  # not the model's text: the model's always
                self._keys = ()
            return whole
        mine = self._text(s, log, rows, when) if self._keys else None
        return mine if mine is not None else sidecar_text(sidecar(s, log, rows, when).to_dict())

    def _text(self, s: ImportedSession, log: str, rows: int, when: str) -> str | None:
        """The text from pieces, or None when a value is not one the pieces vouch for."""
        meta, files, sums = _provenance(s)
        try:
            own = {
                "event_log": self._json(log, 1),
                "status": '"completed"' if s.complete else '"incomplete"',
                "participant": _plain(s.participant, str),
                "session": _plain(s.session, int),
                "start_time": _plain(s.start_time, str),
                "end_time": _plain(s.end_time, str),
                "recorder": self._model(Recorder, _recorder(meta)),
                "source": self._model(Source, _source(s.format, files, sums, meta)),
                "unavailable": self._json([u["measure"] for u in meta.get("unavailable", [])], 1),
                "protocol": self._model(ProtocolCopy, _protocol(s.format)),
                "timing": self._model(Timing, _timing(meta.get("times", {}))),
                "rows_written": _plain(rows, int),
                "import": self._json(_section(meta, when), 1),
            }
        except _NotPlainError:
            return None
        template = self._template
        lines = [template[k] if k in template else _line(k, own[k]) for k in self._keys]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def _model(self, model, fields: dict[str, Any]) -> str:
        """A section as the model makes it (made once for these values), indented one level."""
        key = (
            model,
            *((k, type(v), tuple(v) if type(v) is list else v) for k, v in fields.items()),
        )
        got = self._models.get(key)
        if got is None:
            try:
                data = model(**fields).model_dump(mode="json")
            except ValueError:
                raise _NotPlainError from None  # the model's own path says what is wrong
            got = self._models[key] = self._json(data, 1)
        return got

    def _json(self, value: Any, level: int) -> str:
        """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it inside
        an object at ``level``; :class:`_NotPlainError` for a value the model would write
        otherwise (not a JSON text, number, list or object with text keys)."""
        kind = type(value)
        if kind is str:
            return _text(value)
        if kind is not dict and kind is not list:
            return _scalar(value, kind)
        if not value:
            return "{}" if kind is dict else "[]"
        key = (id(value), level)
        got = self._shared.get(key)
        if got is not None and got[0] is value and _compact(value) == got[1]:
            return got[2]  # shared by the sessions (a format's constant), unchanged
        pad = "\n" + "  " * (level + 1)
        if kind is dict:
            if not all(type(k) is str for k in value):
                raise _NotPlainError
            items = [
                f"{_text(k)}: {_text(v) if type(v) is str else self._json(v, level + 1)}"
                for k, v in value.items()
            ]  # a text written here, not by a call of its own
            text = "{" + pad + ("," + pad).join(items) + "\n" + "  " * level + "}"
        else:
            items = [_text(v) if type(v) is str else self._json(v, level + 1) for v in value]
            text = "[" + pad + ("," + pad).join(items) + "\n" + "  " * level + "]"
        if self._seen.get(id(value)) is value:
            if len(self._shared) >= self.KEEP:
                self._shared.clear()
            self._shared[key] = (value, _compact(value), text)
        else:
            if len(self._seen) >= self.KEEP:
                self._seen.clear()
            self._seen[id(value)] = value
        return text


class _NotPlainError(Exception):
    """A value whose JSON the pieces cannot vouch for: the model's text is written."""


def _plain(value: Any, kind: type) -> str:
    """A top-level value the model keeps as it is (a text or int, or None), as JSON."""
    if value is None:
        return "null"
    if type(value) is not kind:
        raise _NotPlainError  # the model would convert or refuse it
    return _text(value) if kind is str else str(value)


def _scalar(value: Any, kind: type) -> str:
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    raise _NotPlainError  # NaN, a tuple, a date...: the model converts them


def _line(key: str, text: str) -> str:
    return f"  {_text(key)}: {text}"

"""Session data layer: the versioned event log and its codebook, the sidecar, resume planning and the pure trial state machine; imports the protocol format and puzzles layers below it."""

from __future__ import annotations

from ._gc import gc_paused
from .eventlog import (
    EVENT_LOG_VERSION,
    EventLogData,
    EventLogError,
    EventLogWriteError,
    codebook,
    column_index,
    columns,
    read_event_log,
)
from .livelog import EventLog

# The sidecar and the trial state machine need the protocol format's models (pydantic): they
# are imported when first used, so that reading event logs (tol-score) does not load them.
_LAZY = {"SIDECAR_VERSION": "sidecar", "read_sidecar": "sidecar", "write_sidecar": "sidecar",
         "TrialState": "trial"}  # fmt: skip


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EVENT_LOG_VERSION",
    "SIDECAR_VERSION",
    "EventLog",
    "EventLogData",
    "EventLogError",
    "EventLogWriteError",
    "TrialState",
    "codebook",
    "column_index",
    "columns",
    "gc_paused",
    "read_event_log",
    "read_sidecar",
    "write_sidecar",
]

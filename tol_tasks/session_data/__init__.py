"""Session data layer: the versioned event log and its codebook, the sidecar, resume planning and the pure trial state machine; imports the protocol format and puzzles layers below it."""

from __future__ import annotations

from ._gc import gc_paused
from .eventlog import (
    EVENT_LOG_VERSION,
    EventLog,
    EventLogData,
    EventLogError,
    EventLogWriteError,
    codebook,
    column_index,
    columns,
    read_event_log,
)
from .sidecar import SIDECAR_VERSION, read_sidecar, write_sidecar
from .trial import TrialState

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

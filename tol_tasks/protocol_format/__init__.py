"""Protocol format layer: the YAML battery model, loading with line-located checks, describe, generate and counterbalancing; imports the puzzles layer below it."""

from __future__ import annotations

from .issues import Issue, ProtocolError
from .load import bundled_protocols, load_protocol, load_protocol_text, resolve_protocol_path
from .loaded import LoadedProtocol, ProblemSpec
from .model import Protocol

__all__ = [
    "Issue",
    "LoadedProtocol",
    "ProblemSpec",
    "Protocol",
    "ProtocolError",
    "bundled_protocols",
    "load_protocol",
    "load_protocol_text",
    "resolve_protocol_path",
]

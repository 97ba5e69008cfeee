"""The import path documented in tol-tasks 0.1 (``from tol_tasks.load import load_protocol``).

Kept so that scripts written for 0.1 keep working; new code imports from
:mod:`tol_tasks.protocol_format`, where the protocol format lives.
"""

from __future__ import annotations

from .protocol_format.load import bundled_protocols, load_protocol, load_protocol_text

__all__ = ["bundled_protocols", "load_protocol", "load_protocol_text"]

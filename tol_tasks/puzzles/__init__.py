"""Puzzles layer: the Tower of Hanoi and Tower of London model and the exact solver; imports only ``tol_tasks.config`` and ``tol_tasks.errors``."""

from __future__ import annotations

from .base import Move, Puzzle
from .code import from_code
from .hanoi import Hanoi, HanoiState
from .london import London, LondonState

__all__ = ["Hanoi", "HanoiState", "London", "LondonState", "Move", "Puzzle", "from_code"]

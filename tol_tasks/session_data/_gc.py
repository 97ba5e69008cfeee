"""Pausing Python's cyclic garbage collector around bulk work.

Reading and scoring allocate millions of small containers that form no
reference cycles; each full collection would traverse all of them again.
Reference counting still frees everything; the previous state is restored.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (restored after, even on error)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

"""The JSON sidecar that describes a session, written atomically.

Written when the session starts (status ``incomplete``) and rewritten when it
ends (``completed``, ``aborted`` or ``crashed``). Each write goes to a
temporary file that is then renamed over the old one, so the sidecar on disk
is always a whole JSON document.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

SIDECAR_VERSION = 1
STATUSES = ("incomplete", "completed", "aborted", "crashed")


def write_sidecar(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temp file, fsync, rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False, default=str)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_sidecar(path: Path) -> dict[str, Any]:
    """Read a sidecar."""
    return json.loads(Path(path).read_text(encoding="utf-8"))

"""What the browser task's JavaScript takes from the Python side, written at build time.

``web/build.mjs`` (``npm run build``, run by ``scripts/setup.sh``) first runs
``python -m tol_tasks.web.jsdata web/src/generated``, which writes, into that git-ignored
folder:

- ``texts.json``: every participant text table, per language
  (:func:`tol_tasks.texts.as_json`): the plugin's own texts and the examiner's summary;
- ``model.json``: every field of the protocol schema with its type, choices, default and
  description (:func:`tol_tasks.protocol_format.parameters.model_parameters`), from which
  the jsPsych plugin's ``info`` takes the parameters that are protocol settings.

Nothing here is committed, so nothing can fall out of date; the bundle is built from them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tol_tasks import texts
from tol_tasks.protocol_format.parameters import model_parameters

#: Each file written, and the function that makes its text.
FILES = {
    "texts.json": texts.as_json,
    "model.json": lambda: json.dumps(model_parameters(), indent=1, ensure_ascii=False) + "\n",
}


def write_js_data(folder: str | Path) -> list[Path]:
    """Write every file of :data:`FILES` into ``folder`` (made if missing); the paths written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in FILES.items():
        path = out / name
        path.write_text(make(), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m tol_tasks.web.jsdata FOLDER``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(
            "usage: python -m tol_tasks.web.jsdata FOLDER (e.g. web/src/generated)", file=sys.stderr
        )
        return 2
    write_js_data(args[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

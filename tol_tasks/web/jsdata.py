"""What the browser task's JavaScript takes from the Python side, written at build time.

``web/build.mjs`` (``npm run build``, run by ``scripts/setup.sh``) first runs
``python -m tol_tasks.web.jsdata web/src/generated``, which writes, into that git-ignored
folder:

- ``texts.json``: every participant text table, per language
  (:func:`tol_tasks.texts.as_json`): the plugin's own texts and the examiner's summary;
- ``model.json``: every field of the protocol schema with its type, choices, default and
  description (:func:`tol_tasks.protocol_format.parameters.model_parameters`), from which
  the jsPsych plugin's ``info`` takes the parameters that are protocol settings;
- ``display.json``: the display model's constants that the browser's code reads instead of
  restating them (:data:`DISPLAY_CONSTANTS`): the layout's lengths for the tower plugin's
  own layout (``web/src/layout.js``) and the notice's time (``web/src/play.js``).

Nothing here is committed, so nothing can fall out of date; the bundle is built from them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tol_tasks import texts
from tol_tasks.display import layout, planning
from tol_tasks.protocol_format.parameters import model_parameters

#: The display model's constants the browser reads from ``display.json``, by module.
DISPLAY_CONSTANTS = {
    layout: ("BOX_WIDTH", "GOAL_FRACTION", "MAX_UNIT", "BOARD_WIDTH", "LABEL_HEIGHT",
             "TEXT_HEIGHT", "COUNTER_Y", "COUNTER_MARGIN", "BOTTOM", "BAND", "GOAL_LABEL",
             "BASE_HEIGHT", "ROD_WIDTH", "LIFT_CENTRE", "LIFT_ROOM", "PEG_SHARE", "SIDE_GAP",
             "SIDE_MARGIN", "PAGE_BOARD_SCALE", "PAGE_BOARD_UP", "NOTICE_S"),
    planning: ("CHOICE_BOX", "CHOICE_STEP", "CHOICE_ROW", "CHOICE_TEXT"),
}  # fmt: skip


def display_constants() -> dict[str, float]:
    """The constants of :data:`DISPLAY_CONSTANTS`, name -> value."""
    return {name: getattr(module, name) for module, names in DISPLAY_CONSTANTS.items()
            for name in names}  # fmt: skip


#: Each file written, and the function that makes its text.
FILES = {
    "texts.json": texts.as_json,
    "model.json": lambda: json.dumps(model_parameters(), indent=1, ensure_ascii=False) + "\n",
    "display.json": lambda: json.dumps(display_constants(), indent=1) + "\n",
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

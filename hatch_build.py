"""Build hook: no sdist or wheel without the browser bundle that ``tol-web build`` copies.

The bundle (``tol_tasks/web/static/*.js``) is built from ``web/`` by
``scripts/setup.sh`` and is not committed; an editable install (``uv sync``)
does not need it.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUNDLES = ("tol_tasks/web/static/tol-tasks.js", "tol_tasks/web/static/plugin-tower.js")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":
            return
        missing = [b for b in BUNDLES if not (Path(self.root) / b).is_file()]
        if missing:
            raise RuntimeError(
                f"{', '.join(missing)} missing: the browser bundle must be built before "
                "packaging. Suggested fix: run `bash scripts/setup.sh` (or `npm --prefix web ci "
                "&& npm --prefix web run build`), then build again."
            )

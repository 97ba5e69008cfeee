"""A built study as a JATOS study archive (``.jzip``), which JATOS's "Import study" reads.

The layout follows JATOS's own importer (``ImportExportService`` and
``StudyDeserializer`` of JATOS 3.7 to 3.10, checked against 3.10.4's source):
a ZIP archive holding exactly one ``.jas`` file (the study's description,
``{"version": "3", "data": {...}}``, serial version 3) and exactly one
folder, the study assets (the built folder: ``index.html``, the bundle,
``protocol.json``, images). The study has one component (``index.html``,
reloadable, so that a reload continues the session) and the default batch.
Its UUIDs are derived from the protocol and the folder's name, so that
importing a rebuilt archive offers to update the same study.

The page sends each trial with ``jatos.appendResultData`` and ends with
``jatos.endStudy`` (``web/src/delivery.js``); ``tol-import --format jatos``
turns JATOS's result export back into event logs and sidecars.
"""

from __future__ import annotations

import json
import re
import uuid
import zipfile
from pathlib import Path

from tol_tasks import __version__
from tol_tasks.protocol_format.loaded import LoadedProtocol

#: The JATOS study serial version the archive follows (``Study.SERIAL_VERSION``).
JATOS_SERIAL_VERSION = 3

#: The JATOS versions whose importer the archive was checked against (their source).
JATOS_VERSIONS = "3.7 to 3.10 (checked against the source of 3.10.4)"

#: Folder names JATOS refuses for study assets (``StudyProperties.INVALID_DIR_NAMES``).
_INVALID_DIRS = {"jatos", "publix", "public", "assets", "study_assets_root", "study_assets"}

#: What JATOS refuses in a folder name (``IOUtils.REGEX_ILLEGAL_IN_FILENAME``).
_ILLEGAL = re.compile(r"[\s*?\"\\\0/,`<>|:~!§$%&^°]")

#: The worker types the default batch allows (JATOS's own and its general and personal links).
WORKER_TYPES = ["Jatos", "PersonalSingle", "PersonalMultiple", "GeneralSingle", "GeneralMultiple"]

_NAMESPACE = uuid.UUID("6c6f6e64-6f6e-2d74-6f77-65722d746173")


def assets_dir_name(name: str) -> str:
    """A study assets folder name JATOS accepts, from the built folder's name."""
    clean = _ILLEGAL.sub("_", name).strip("._") or "tol-tasks-study"
    return f"{clean}_tol" if clean.lower() in _INVALID_DIRS else clean[:200]


def study_description(lp: LoadedProtocol, dir_name: str) -> dict:
    """The ``.jas`` file's content: JATOS's study JSON (serial version 3, the IO view)."""
    key = f"{lp.sha256}/{dir_name}"
    # JATOS refuses HTML in titles and descriptions (Jsoup's "none" safelist).
    title = (
        re.sub(r"[<>&]", "", (lp.model.description or "").strip().split("\n")[0])[:200] or lp.name
    )
    return {
        "version": str(JATOS_SERIAL_VERSION),
        "data": {
            "uuid": str(uuid.uuid5(_NAMESPACE, key)),
            "title": f"{lp.name}: {title}" if title != lp.name else lp.name,
            "description": f"Protocol {lp.name} (SHA-256 {lp.sha256}), built by tol-web "
            f"build (tol-tasks {__version__}).",
            "groupStudy": False,
            "linearStudy": False,
            "allowPreview": False,
            "dirName": dir_name,
            "comments": "Results: export them from JATOS and run tol-import --format jatos.",
            "studyInput": "",
            "endRedirectUrl": "",
            "studyEntryMsg": None,
            "componentList": [
                {
                    "uuid": str(uuid.uuid5(_NAMESPACE, key + "/component")),
                    "title": lp.name,
                    "htmlFilePath": "index.html",
                    "reloadable": True,
                    "active": True,
                    "comments": "",
                    "componentInput": "",
                }
            ],
            "batchList": [
                {
                    "uuid": str(uuid.uuid5(_NAMESPACE, key + "/batch")),
                    "title": "Default",
                    "active": True,
                    "maxActiveMembers": None,
                    "maxTotalMembers": None,
                    "maxTotalWorkers": None,
                    "allowedWorkerTypes": WORKER_TYPES,
                    "comments": None,
                    "batchInput": "",
                }
            ],
        },
    }


def write_jzip(folder: Path, lp: LoadedProtocol) -> Path:
    """Write ``<folder>.jzip`` beside the built ``folder``; its path."""
    folder = Path(folder)
    dir_name = assets_dir_name(folder.resolve().name)
    archive = folder.resolve().parent / f"{folder.resolve().name}.jzip"
    description = study_description(lp, dir_name)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{description['data']['uuid']}.jas", json.dumps(description, indent=1))
        z.writestr(f"{dir_name}/", "")
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder).as_posix()
            if path.is_dir():
                z.writestr(f"{dir_name}/{rel}/", "")
            else:
                z.write(path, f"{dir_name}/{rel}")
    return archive

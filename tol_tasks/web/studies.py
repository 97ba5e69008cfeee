"""A study on a collection server: its name, its upload token and its protocol.

``tol-web build --server URL`` writes ``study.json`` into the experiment
folder it builds; ``tol-web serve`` reads it from every study folder it is
given, serves the folder's pages at ``/<name>/`` and takes the study's data
at ``/api/<name>/upload``. The token is in the page too (a page must send
it): it keeps one study's pages from writing into another study and stray
requests out, it is not a password (see docs/online.md).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.pieces import STUDY_RE

#: The file a built study's folder holds for the server.
STUDY_FILE = "study.json"

#: Version of ``study.json``.
STUDY_FORMAT = 1


class StudyError(TolTasksError, ValueError):
    """A study folder the server cannot serve; the message names the file, field and fix."""


@dataclass(frozen=True)
class Study:
    """One study: its name (a URL segment and a data folder name), token and protocol."""

    name: str
    token: str
    protocol_name: str
    protocol_sha256: str
    folder: Path | None = None

    def as_json(self) -> dict:
        out = asdict(self)
        out.pop("folder")
        return {"study_format": STUDY_FORMAT, **out}


def new_token() -> str:
    """A new study token (URL-safe, 192 random bits)."""
    return secrets.token_urlsafe(24)


def check_study_name(name: str, flag: str = "--study") -> str:
    if not isinstance(name, str) or not STUDY_RE.match(name):
        raise StudyError(
            f"{flag} {name!r} cannot name a study. Suggested fix: 1 to 64 lower-case letters, "
            "digits, '-' or '_', starting with a letter or digit (e.g. tol-2027).",
            field=flag, value=name,
        )  # fmt: skip
    return name


def read_study(folder: str | Path) -> Study:
    """The study built into ``folder`` (its ``study.json``).

    Raises
    ------
    StudyError
        No ``study.json`` (a folder built without ``--server``), or a damaged one.
    """
    path = Path(folder) / STUDY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StudyError(
            f"{path}: no such file: {folder} is not a study built for a collection server. "
            f"Suggested fix: build it with `tol-web build PROTOCOL --output {folder} --server URL`.",
            where=str(path),
        ) from None  # fmt: skip
    except (OSError, ValueError) as exc:
        raise StudyError(f"{path}: cannot be read ({exc}). Suggested fix: build the study again.",
                         where=str(path)) from None  # fmt: skip
    fields = ("name", "token", "protocol_name", "protocol_sha256")
    if (
        not isinstance(data, dict)
        or data.get("study_format") != STUDY_FORMAT
        or not all(isinstance(data.get(k), str) and data.get(k) for k in fields)
    ):
        raise StudyError(f"{path}: not a study file of format {STUDY_FORMAT}. Suggested fix: "
                         "build the study again with this tol-tasks.", where=str(path))  # fmt: skip
    check_study_name(data["name"], f"{path}: name")
    return Study(*(data[k] for k in fields), folder=Path(folder))


def write_study(folder: Path, study: Study) -> Path:
    path = folder / STUDY_FILE
    path.write_text(json.dumps(study.as_json(), indent=1) + "\n", encoding="utf-8")
    return path


def find_studies(paths: list[str | Path]) -> dict[str, Study]:
    """The studies in ``paths``: each a study folder, or a folder of study folders.

    Raises
    ------
    StudyError
        A path that holds no study, or two studies of one name.
    """
    found: dict[str, Study] = {}
    for item in paths:
        p = Path(item)
        if (p / STUDY_FILE).is_file():
            folders = [p]
        else:
            folders = (
                sorted(d for d in p.iterdir() if (d / STUDY_FILE).is_file()) if p.is_dir() else []
            )
            if not folders:
                raise StudyError(
                    f"{p}: holds no study (no {STUDY_FILE}, in it or in a folder inside it). "
                    "Suggested fix: give folders written by `tol-web build ... --server URL`.",
                    where=str(p),
                )  # fmt: skip
        for folder in folders:
            study = read_study(folder)
            if study.name in found:
                raise StudyError(
                    f"two studies are named {study.name!r}: {found[study.name].folder} and "
                    f"{folder}. Suggested fix: build one of them with another --study name.",
                    field="name", value=study.name,
                )  # fmt: skip
            found[study.name] = study
    return found

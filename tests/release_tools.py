"""What the project declares about its releases, read from pyproject.toml for the tests."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement(name: str, requirements: list[str]) -> Requirement:
    """The one requirement on ``name`` among ``requirements``."""
    (found,) = [r for r in map(Requirement, requirements) if r.name == name]
    return found


def oldest_psychopy() -> Version:
    """The lower bound of PsychoPy in the runner extra: the oldest PsychoPy supported."""
    spec = requirement("psychopy", pyproject()["project"]["optional-dependencies"]["runner"])
    (lower,) = [Version(s.version) for s in spec.specifier if s.operator == ">="]
    return lower


def oldest_psychopy_group() -> list[Requirement]:
    """The dependency group ``psychopy-oldest``: the oldest PsychoPy's own environment."""
    return [Requirement(r) for r in pyproject()["dependency-groups"]["psychopy-oldest"]]


def uv_overrides() -> list[str]:
    """uv's ``override-dependencies`` (wxPython left out on Linux), as uv reads them."""
    return list(pyproject()["tool"]["uv"]["override-dependencies"])

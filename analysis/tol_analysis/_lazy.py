"""Public names loaded when first used (PEP 562), for ``tol_analysis`` and its four faces.

``import tol_analysis`` or ``import tol_analysis.score`` imports no scoring module: each
public name is imported from the module that defines it the first time it is asked for.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from collections.abc import Callable
from typing import Any


def lazy_names(
    package: str, api: dict[str, str], former: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names load lazily.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    api : dict of str to str
        Each public name and the module of ``package`` that defines it (``"find"`` for
        ``package.find``).
    former : str, optional
        The module (of ``package``) that held this face's code before the faces were made
        (``tol_analysis.score`` was one module, now ``tol_analysis.score.scores``): any
        other public name of it is still found here, with a :class:`DeprecationWarning`
        (once) that names its home, so that scripts written against the single module still run.

    Returns
    -------
    getattr, dir : callable
        The package's module-level ``__getattr__`` and ``__dir__``.
    """

    def get(name: str) -> Any:
        module = api.get(name)
        if module is not None:
            return getattr(importlib.import_module(f"{package}.{module}"), name)
        public = former is not None and not name.startswith("_")
        # A submodule not yet imported is the import system's to load, not a name to forward.
        if public and importlib.util.find_spec(f"{package}.{name}") is None:
            module = importlib.import_module(f"{package}.{former}")
            if hasattr(module, name):
                value = getattr(module, name)
                home = getattr(value, "__module__", None)  # where a class or function is defined
                if not (isinstance(home, str) and home.startswith("tol_analysis.")):
                    home = module.__name__
                warnings.warn(
                    f"{package}.{name} moved: import it from {home}",
                    DeprecationWarning,
                    stacklevel=2,
                )
                # Kept on the package: ``from face import name`` asks twice, one warning.
                setattr(importlib.import_module(package), name, value)
                return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def names() -> list[str]:
        return sorted({*importlib.import_module(package).__dict__, *api})

    return get, names

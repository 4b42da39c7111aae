"""Import optional heavy dependencies on demand, with an actionable error when missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from gecscope.errors import MissingDependencyError


def require(module: str, extra: str, feature: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(module.split(".")[0], extra, feature) from exc

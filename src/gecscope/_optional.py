"""Import optional heavy dependencies on demand, with an actionable error when missing."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from gecscope.errors import MissingDependencyError


def require(module: str, extra: str, feature: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(module.split(".")[0], extra, feature) from exc


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` torch intra-op threads, then restore the previous count.

    torch otherwise uses one thread per core in every process; on a shared machine, or with
    one worker process per core, that oversubscribes the CPU (measured here: the UCCA parser
    at 6.6 sentences/s with 2 threads on a busy 2-core machine, 59 with 1). ``None`` leaves
    torch's setting alone.
    """
    if threads is None:
        yield
        return
    if threads < 1:
        raise ValueError(f"torch threads must be >= 1, got {threads}")
    torch = importlib.import_module("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)

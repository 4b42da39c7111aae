"""Sentence-level progress reporting from inside metrics, without passing callbacks around.

A caller (the CLI, :func:`gecscope.evaluate`) installs a sink with :func:`reporting`; a metric's
sentence loop calls :func:`tick` as it goes. With no sink installed :func:`tick` does nothing,
so library use pays nothing. Standard library only.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_SINK: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "gecscope_progress", default=None)


def tick(n: int = 1) -> None:
    """Report ``n`` more sentences done (no-op unless a caller is :func:`reporting`)."""
    sink = _SINK.get()
    if sink is not None and n:
        sink(n)


@contextmanager
def reporting(sink: Callable[[int], None] | None) -> Iterator[None]:
    """Send the :func:`tick` calls made inside the block to ``sink``."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)

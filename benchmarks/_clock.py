"""Wall and CPU time of a block, for benchmarks run on a shared machine.

A wall time alone cannot be checked on a loaded machine; the CPU time (this process and the
child processes it waited for, e.g. Apertium or a reference tool) can.
"""

from __future__ import annotations

import os
import time
from types import TracebackType
from typing import Self


def cpu_seconds() -> float:
    """User + system time of this process and its waited-for children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Clock:
    """``with Clock() as c: ...`` then ``c.wall``, ``c.cpu`` (seconds) and ``str(c)``."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __enter__(self) -> Self:
        self._w0, self._c0 = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.wall = time.perf_counter() - self._w0
        self.cpu = cpu_seconds() - self._c0

    def __str__(self) -> str:
        return f"{self.wall:.2f}s wall, {self.cpu:.2f}s CPU"

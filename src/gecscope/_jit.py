"""Optional compilation of hot loops with numba (``pip install 'gecscope[fast]'``).

``jit`` compiles a function written in plain Python over integer arrays when numba is
installed and returns it unchanged otherwise, so every kernel has one definition and runs,
more slowly, without numba. Compiled code is cached on disk by numba.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import numpy
    from numba import njit

    HAVE_NUMBA = True
    np: Any = numpy
    _compile: Callable[[Callable[..., Any]], Callable[..., Any]] = njit(cache=True, nogil=True)
except ImportError:  # pragma: no cover - exercised only without the fast extra
    HAVE_NUMBA = False
    np = None
    _compile = None  # type: ignore[assignment]


def jit(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` compiled by numba when it is installed, else ``f`` itself."""
    return _compile(f) if HAVE_NUMBA else f

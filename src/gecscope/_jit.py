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
    """``f`` compiled by numba when it is installed, else ``f`` itself. A damaged on-disk
    cache of ``f`` (numba would stop with an unpickling traceback) is removed first, so it is
    rebuilt."""
    if not HAVE_NUMBA:
        return f
    _purge_damaged_cache(f)
    return _compile(f)


def _purge_damaged_cache(f: Callable[..., Any]) -> None:
    """Delete ``f``'s numba cache files (``__pycache__/<module>.<name>-<line>.py*.nbi/.nbc``)
    when any of them cannot be unpickled."""
    import pickle
    from pathlib import Path

    code = getattr(f, "__code__", None)
    if code is None:
        return
    source = Path(code.co_filename)
    stem = f"{source.stem}.{f.__qualname__}-{code.co_firstlineno}."
    files = sorted((source.parent / "__pycache__").glob(stem + "*.nb[ic]"))
    damaged = False
    for path in files:
        try:
            with open(path, "rb") as fh:
                if path.suffix == ".nbi":
                    pickle.load(fh)  # numba's index: a version, then the pickled entries
                    pickle.loads(fh.read())
                else:
                    pickle.loads(fh.read())
        except Exception:  # noqa: BLE001 - any damage: truncated, overwritten, other format
            damaged = True
            break
    if damaged:
        for path in files:
            try:
                path.unlink()
            except OSError:
                pass

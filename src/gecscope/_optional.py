"""Import optional heavy dependencies on demand, with an actionable error when missing."""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import ModuleType

from gecscope.errors import MissingDependencyError

_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@cache
def extra_requirements(extra: str) -> tuple[str, ...]:
    """The requirements (``name==version``...) the installed gecscope declares for ``extra``
    (read from its metadata, so pyproject.toml stays the one list); empty when unknown."""
    from importlib import metadata

    try:
        declared = metadata.requires("gecscope") or []
    except metadata.PackageNotFoundError:  # running from a source tree without installing
        return ()
    out = []
    for line in declared:
        spec, _, marker = line.partition(";")
        found = _EXTRA_MARKER.search(marker)
        if found and found.group(1) == extra:
            out.append(spec.strip())
    return tuple(out)


def install_command(extra: str) -> str:
    """How to install ``extra``: ``pip install 'gecscope[EXTRA]'`` with the packages it
    brings (so a message about one missing package names the others: ``zh`` is pypinyin and
    opencc), preceded by the pinned torch when the extra needs torch (the README's order:
    ``pip install torch==2.13.0`` first, since torch asked for through the extra may come as a
    much larger CUDA build)."""
    reqs = extra_requirements(extra)
    steps = f"pip install 'gecscope[{extra}]'"
    torch = [r for r in reqs if (m := _NAME.match(r)) and m.group() == "torch"]
    if torch:
        steps = f"pip install {torch[0].replace(' ', '')} && {steps}"
    if reqs:
        steps += (f" ({'torch first; ' if torch else ''}the {extra} extra brings "
                  f"{', '.join(reqs)})")
    return steps


def require(module: str, extra: str, feature: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install
    (:func:`install_command`)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(module.split(".")[0], extra, feature,
                                     install=install_command(extra)) from exc


def require_spacy(extra: str, feature: str = "") -> ModuleType:
    """Import spaCy for its CPU pipelines without thinc importing torch on the way.

    thinc (spaCy's network library) imports torch, when installed, to offer torch layers;
    the ``*_sm`` pipelines gecscope loads never use them, yet the import costs ~1 CPU-s and
    ~220 MB in every process that parses (measured: ``import spacy`` 1.5 s, 0.6 s without).
    So torch is hidden from that one import unless torch is already loaded or
    ``GECSCOPE_SPACY_TORCH=1`` is set (needed to load a transformer pipeline such as
    ``en_core_web_trf`` in the same process). torch stays importable afterwards.
    """
    if ("thinc" in sys.modules or "torch" in sys.modules
            or os.environ.get("GECSCOPE_SPACY_TORCH", "") not in ("", "0")):
        return require("spacy", extra, feature)
    sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` fail
    try:
        return require("spacy", extra, feature)
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


@contextmanager
def blas_threads(threads: int | None) -> Iterator[None]:
    """Run the block with at most ``threads`` BLAS threads (numpy's OpenBLAS), then restore.

    The same reason as :func:`torch_threads`: OpenBLAS starts one thread per core and, beside
    other processes, spends its time spinning. ``None`` leaves the setting alone. Needs
    ``threadpoolctl`` (the ``parser`` extra).
    """
    if threads is None:
        yield
        return
    if threads < 1:
        raise ValueError(f"BLAS threads must be >= 1, got {threads}")
    threadpoolctl = require("threadpoolctl", "parser", "limiting BLAS threads")
    with threadpoolctl.threadpool_limits(limits=threads, user_api="blas"):
        yield


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

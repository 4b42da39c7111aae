"""The translator interface of round-trip correction: what a backend implements
(:class:`Translator`, :class:`BaseTranslator`), its errors, and the batching helper.

Kept apart from :mod:`.translator` (the backends, the cache and ``make_translator``) so that a
backend in a module of its own (:mod:`.llm_translator`) imports the interface without
importing the module that chooses it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from gecscope.errors import ConfigError, GecscopeError, MissingDependencyError

#: How to do without a cache that cannot be used (named in the caches' errors).
CACHE_HINT = ("make it writable, give another directory with --cache-dir or $GECSCOPE_CACHE, "
              "or run without the cache (--no-cache)")


class TranslationError(GecscopeError):
    """A translation backend failed (non-zero exit, bad HTTP answer, wrong number of lines)."""

    exit_code = 70


class BackendUnavailableError(MissingDependencyError):
    """A translation backend or its data is not installed; the message says how to get it."""

    def __init__(self, message: str, package: str, extra: str = "rtt"):
        self.package = package
        self.extra = extra
        GecscopeError.__init__(self, message)


@runtime_checkable
class Translator(Protocol):
    """What the corrector needs from a backend."""

    name: str

    def available_pivots(self) -> tuple[str, ...]:
        """Pivot languages this backend can round-trip through."""
        ...

    def check_pivot(self, pivot: str) -> str:
        """The canonical name of ``pivot``; raises when the backend cannot use it."""
        ...

    def round_trip(self, sentences: Sequence[str], pivot: str) -> list[str]:
        """``sentences`` translated into ``pivot`` and back, one output per input."""
        ...


class BaseTranslator(ABC):
    """Implements :meth:`round_trip` from a batched :meth:`translate`."""

    name = "translator"
    source = "en"

    @abstractmethod
    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        """Translate a batch; one output per input, empty inputs give empty outputs."""

    @abstractmethod
    def available_pivots(self) -> tuple[str, ...]:
        ...

    def check_pivot(self, pivot: str) -> str:
        pivots = self.available_pivots()
        if pivot not in pivots:
            raise ConfigError(f"{self.name}: pivot {pivot!r} is not available; available: "
                              f"{', '.join(pivots) or 'none'}")
        return pivot

    def round_trip(self, sentences: Sequence[str], pivot: str) -> list[str]:
        pivot = self.check_pivot(pivot)
        forward = self.translate(sentences, self.source, pivot)
        return self.translate(forward, pivot, self.source)


def clean_text(text: str) -> str:
    """``text`` with its runs of white space made single spaces, ends stripped."""
    return " ".join(text.split())


def batched(texts: Sequence[str], batch_size: int,
             translate_batch: Callable[[list[str]], Sequence[str]]) -> list[str]:
    """Clean the texts, translate the non-empty ones ``batch_size`` at a time and put the
    cleaned translations back in place (an empty text stays empty)."""
    cleaned = [clean_text(t) for t in texts]
    idx = [k for k, t in enumerate(cleaned) if t]
    out = ["" for _ in cleaned]
    for b in range(0, len(idx), batch_size):
        chunk = idx[b:b + batch_size]
        for k, tr in zip(chunk, translate_batch([cleaned[k] for k in chunk])):
            out[k] = clean_text(tr)
    return out

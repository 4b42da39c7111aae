"""Best-reference selection: which reference (candidate) each sentence is scored against.

Two strategies serve every multi-reference metric (M2, ERRANT, CLEME, I-measure):

``corpus-greedy``
    The reference tools' choice (m2scorer, errant_compare, CLEME, ieval ``-opt:corpus``): in
    corpus order, each sentence takes the candidate that maximises a key of the running totals
    *plus* that candidate. The result depends on the order of the sentences.
``sentence``
    Each sentence takes the candidate with the best key of its own counts.

Keys are tuples compared lexicographically, so tie-breaks are part of the key; on a complete
tie the first candidate (in the metric's candidate order) wins, as in the tools.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

C = TypeVar("C")
T = TypeVar("T")

STRATEGIES = ("corpus-greedy", "sentence")


def best_index(candidates: Sequence[C], key: Callable[[C], Any]) -> int | None:
    """Index of the candidate with the largest key (the first on ties); ``None`` if empty."""
    best: int | None = None
    best_key: Any = None
    for i, c in enumerate(candidates):
        k = key(c)
        if best is None or k > best_key:
            best, best_key = i, k
    return best


def corpus_greedy(candidates: Sequence[Sequence[C]], key: Callable[[T, C], Any],
                  add: Callable[[T, C], T], start: T) -> list[int | None]:
    """Per sentence, the index of the candidate maximising ``key(total, candidate)``, where
    ``total`` is ``start`` plus the candidates chosen for the earlier sentences (``None`` for
    a sentence without candidates, which adds nothing)."""
    total = start
    chosen: list[int | None] = []
    for cands in candidates:
        i = best_index(cands, lambda c: key(total, c))  # noqa: B023 - used at once
        chosen.append(i)
        if i is not None:
            total = add(total, cands[i])
    return chosen


def per_sentence(candidates: Sequence[Sequence[C]], key: Callable[[C], Any]) -> list[int | None]:
    """Per sentence, the index of the candidate with the best key of its own counts."""
    return [best_index(cands, key) for cands in candidates]


def select(strategy: str, candidates: Sequence[Sequence[C]], *,
           key: Callable[[T, C], Any], add: Callable[[T, C], T], start: T
           ) -> list[int | None]:
    """Dispatch to a named strategy. ``key`` takes the running total and a candidate;
    ``sentence`` selection calls it with ``start`` as the total."""
    if strategy == "corpus-greedy":
        return corpus_greedy(candidates, key, add, start)
    if strategy == "sentence":
        return per_sentence(candidates, lambda c: key(start, c))
    raise ValueError(f"unknown selection strategy {strategy!r}; choose from "
                     f"{', '.join(STRATEGIES)}")

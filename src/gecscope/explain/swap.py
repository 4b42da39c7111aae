"""The corpus score with one sentence's statistics swapped for another's: what the corpus view
of edit attribution scores once per variant of a sentence (:mod:`gecscope.explain.corpus`).

:func:`corpus_swap` returns a :class:`CorpusSwap` over a system's per-sentence statistics;
``swap.value(i, stat)`` is ``metric.aggregate(stats with stats[i] = stat).value``. The general
path does exactly that (a copy of the list and one aggregation of the whole corpus).

For the best-reference count metrics whose corpus score is integer counts chosen greedily in
corpus order (M2 and ERRANT, :class:`~gecscope.metrics.candidates.CountSpec`), the same number
is computed without re-aggregating the corpus, and it is exactly the same number:

- the choices before sentence ``i`` do not depend on it (the running totals before ``i`` are
  kept from the system's own aggregation);
- after ``i`` only the running totals differ, by ``D`` (the variant's chosen counts minus the
  system's, plus every later choice that changed); a sentence whose candidates all have the
  same counts adds the same counts whatever it chooses, so only the other sentences are
  chosen again, with the metric's own key (:meth:`CountSpec.key`) on the system's running
  totals plus ``D``;
- once ``D`` is back to 0 every later choice is the system's, so the totals are; and what
  follows a sentence depends only on ``D`` there, so it is computed once per (sentence, ``D``)
  and kept;
- the counts are integers (checked; otherwise the general path is taken), so their sum does
  not depend on the order of the additions, and the score is the spec's F of the totals, as
  ``aggregate`` computes it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import Metric
    from gecscope.metrics.candidates import CountSpec

__all__ = ["CorpusSwap", "GreedyCountsSwap", "corpus_swap"]


class CorpusSwap:
    """The corpus score of ``stats`` with one sentence's statistics replaced, by the metric's
    own :meth:`~gecscope.metrics.base.Metric.aggregate` (the general path)."""

    def __init__(self, metric: Metric[Any], stats: Sequence[Any]) -> None:
        self.metric = metric
        self.stats = list(stats)
        self.score = float(metric.aggregate(self.stats).value)

    def value(self, i: int, stat: Any) -> float:
        """The corpus score with sentence ``i``'s statistics replaced by ``stat``."""
        swapped = list(self.stats)
        swapped[i] = stat
        return float(self.metric.aggregate(swapped).value)


Counts = tuple[int, ...]


def _int_counts(cands: Sequence[Any]) -> bool:
    return all(type(x) is int for c in cands for x in c.counts)


def _plus(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _minus(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b, strict=True))


class GreedyCountsSwap(CorpusSwap):
    """:class:`CorpusSwap` for a greedy best-reference count metric with integer counts: the
    swapped score from the system's running totals (module docstring: why it is exact)."""

    def __init__(self, metric: Metric[Any], stats: Sequence[Any], spec: CountSpec,
                 candidates: Callable[[Any], Sequence[Any]]) -> None:
        super().__init__(metric, stats)
        self.spec = spec
        self.candidates = candidates
        self.key = spec.key(spec.rounding)
        cands = [tuple(candidates(s)) for s in self.stats]
        chosen = spec.select(cands)
        zero: Counts = tuple(spec.zero)
        self.zero = zero
        self.chosen: list[Counts] = [tuple(c[k].counts) if k is not None else zero
                                     for c, k in zip(cands, chosen, strict=True)]
        self.before: list[Counts] = []  # the running totals before each sentence
        total = zero
        for counts in self.chosen:
            self.before.append(total)
            total = _plus(total, counts)
        self.total = total
        self.cands = cands
        # the sentences whose choice can change the totals: candidates of different counts
        self.decisive = [j for j, c in enumerate(cands) if len({x.counts for x in c}) > 1]
        self.fname = spec.fname
        self._memo: dict[tuple[int, Counts], Counts] = {}

    def _choose(self, cands: Sequence[Any], totals: Counts) -> Counts:
        """The counts of the candidate the metric's key picks on ``totals`` (the first of
        equal keys, as :func:`~gecscope.metrics.selection.corpus_greedy`)."""
        best: Any = None
        best_key: Any = None
        for c in cands:
            k = self.key(totals, c)
            if best is None or k > best_key:
                best, best_key = c, k
        return tuple(best.counts) if best is not None else self.zero

    def _final(self, pos: int, diff: Counts) -> Counts:
        """The difference of the final totals from the system's, given the difference
        ``diff`` of the running totals before the ``pos``-th decisive sentence. The future of
        ``(pos, diff)`` is a function of it alone, so it is kept for every state passed (the
        variants of the corpus share most of them: few distinct differences occur)."""
        path: list[tuple[int, Counts]] = []
        decisive = self.decisive
        while True:
            if not any(diff) or pos >= len(decisive):
                final = diff
                break
            state = (pos, diff)
            got = self._memo.get(state)
            if got is not None:
                final = got
                break
            path.append(state)
            j = decisive[pos]
            now = self._choose(self.cands[j], _plus(self.before[j], diff))
            diff = _plus(diff, _minus(now, self.chosen[j]))
            pos += 1
        for state in path:
            self._memo[state] = final
        return final

    def value(self, i: int, stat: Any) -> float:
        cands = tuple(self.candidates(stat))
        if not _int_counts(cands):
            return super().value(i, stat)
        diff = _minus(self._choose(cands, self.before[i]), self.chosen[i])
        diff = self._final(bisect.bisect_right(self.decisive, i), diff)
        return float(self.spec.fields(_plus(self.total, diff))[self.fname])


def corpus_swap(metric: Metric[Any], stats: Sequence[Any]) -> CorpusSwap:
    """The swap of ``metric`` over ``stats``: :class:`GreedyCountsSwap` for M2 and ERRANT as
    they aggregate (their ``aggregate`` and selection not overridden) when every count is an
    integer, else the general :class:`CorpusSwap`."""
    from gecscope.metrics.errant import ErrantMetric
    from gecscope.metrics.m2.metric import M2Metric, m2_spec

    kind: Any = type(metric)
    if isinstance(metric, M2Metric) and kind.aggregate is M2Metric.aggregate:
        def rows(s: Any) -> Sequence[Any]:
            return s.rows  # type: ignore[no-any-return]

        spec, candidates = m2_spec(metric.config.beta), rows
    elif isinstance(metric, ErrantMetric) and kind.aggregate is ErrantMetric.aggregate and \
            kind.select is ErrantMetric.select:
        def found(s: Any) -> Sequence[Any]:
            return s.candidates  # type: ignore[no-any-return]

        spec, candidates = metric.spec(), found
    else:
        return CorpusSwap(metric, stats)
    if spec.convention not in ("m2", "errant") or \
            not all(type(x) is int for x in spec.zero) or \
            not all(_int_counts(candidates(s)) for s in stats):
        return CorpusSwap(metric, stats)
    return GreedyCountsSwap(metric, stats, spec, candidates)

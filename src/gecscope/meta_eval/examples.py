"""Toy metrics for testing meta-evaluation code without models or references.

:class:`CharLengthMetric` scores a hypothesis sentence by its length in characters (tokens
joined by single spaces) and a system by the mean over sentences. It is meaningless as a
quality measure; gec-metrics uses the same "character length" metric to pin down its
meta-evaluation numbers, so the figures it gives on SEEDA and GJG15 are known (see
docs/meta-eval.md). Use it as ``--metric gecscope.meta_eval.examples:CharLengthMetric``.
:class:`CorpusCharLengthMetric` is the same without sentence scores, as a metric that only
defines a corpus score looks to the meta-evaluation (no sentence-level figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.base import Metric, Score


class CharLengthMetric(Metric[int]):
    """Mean character length of the hypothesis sentences (reference-less toy metric)."""

    name: ClassVar[str] = "charlen"
    description: ClassVar[str] = "mean character length of the hypotheses (toy metric)"
    requires: ClassVar[frozenset[str]] = frozenset()

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[int]:
        return [len(" ".join(toks)) for toks in hyp.tokens]

    def aggregate(self, stats: Sequence[int]) -> Score:
        value = sum(stats) / len(stats) if stats else 0.0
        return Score(self.name, value, {"chars": value, "sentences": float(len(stats))},
                     main="chars")

    def sentence_values(self, stats: Sequence[int]) -> list[float] | None:
        return [float(x) for x in stats]


class CorpusCharLengthMetric(CharLengthMetric):
    """:class:`CharLengthMetric` with no sentence-level scores (corpus score only)."""

    name: ClassVar[str] = "corpuscharlen"
    description: ClassVar[str] = "mean character length, corpus score only (toy metric)"

    def sentence_values(self, stats: Sequence[int]) -> list[float] | None:
        return None

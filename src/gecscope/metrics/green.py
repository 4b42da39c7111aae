"""GREEN: an n-gram F-score of a correction against references, given the source.

Koyama et al. (2024). For every n-gram (n = 1..4) of source S, hypothesis H and reference R,
its counts s, h, r are split into true positives (n-grams the hypothesis rightly removed, added
or kept: ``max(s - max(r, h), 0) + max(min(r, h) - s, 0) + min(s, h, r)``), false positives
(wrongly removed or added: ``max(min(s, r) - h, 0) + max(h - max(s, r), 0)``) and false
negatives (left to remove or to add: ``max(min(s, h) - r, 0) + max(r - max(s, h), 0)``).
Per order, P = TP / (TP + FP) and R = TP / (TP + FN) (1 when the denominator's second term is
0); P and R are the geometric means over the orders (0 when one is 0) and the score is F_beta
with beta = 2. Each sentence is scored against its best reference (highest sentence score,
the first on ties); the corpus score sums the chosen references' counts per order.

The reference choice depends on the sentence alone, so bootstrap resampling (and MAEGE's corpus
level) sums each sentence's chosen counts as one fixed row (:class:`GREENRows`) and scores
the sums with :func:`green_score`, as ``aggregate`` does.

Numbers: equal to gec-metrics 0.1.1's ``GREEN`` (run here on the 13 CoNLL-2014 systems; the
regression test holds its printed values). Standard library only (numpy for resampling).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.stats.fastpath import CountsPath, _np

UNITS = ("word", "char")


def ngram_counts(units: Sequence[str], order: int) -> Counter[tuple[str, ...]]:
    """Every n-gram of ``units`` for n = 1..``order``, with its count."""
    out: Counter[tuple[str, ...]] = Counter()
    for n in range(1, order + 1):
        for i in range(len(units) - n + 1):
            out[tuple(units[i:i + n])] += 1
    return out


def order_counts(src: Counter[tuple[str, ...]], hyp: Counter[tuple[str, ...]],
                 ref: Counter[tuple[str, ...]], order: int) -> tuple[int, ...]:
    """``(tp_1, fp_1, fn_1, ..., tp_n, fp_n, fn_n)`` of a hypothesis against one reference."""
    counts = [0] * (3 * order)
    for gram in set(src) | set(hyp) | set(ref):
        s, h, r = src.get(gram, 0), hyp.get(gram, 0), ref.get(gram, 0)
        k = 3 * (len(gram) - 1)
        counts[k] += max(s - max(r, h), 0) + max(min(r, h) - s, 0) + min(s, h, r)
        counts[k + 1] += max(min(s, r) - h, 0) + max(h - max(s, r), 0)
        counts[k + 2] += max(min(s, h) - r, 0) + max(r - max(s, h), 0)
    return tuple(counts)


def green_score(counts: Sequence[float], beta: float) -> tuple[float, float, float]:
    """(P, R, F_beta) of per-order counts: geometric means of the orders' P and R."""
    ps, rs = [], []
    for k in range(0, len(counts), 3):
        tp, fp, fn = counts[k], counts[k + 1], counts[k + 2]
        ps.append(tp / (tp + fp) if fp != 0 else 1.0)
        rs.append(tp / (tp + fn) if fn != 0 else 1.0)
    n = len(ps)
    p = 0.0 if 0 in ps else math.exp(sum(math.log(x) for x in ps) / n)
    r = 0.0 if 0 in rs else math.exp(sum(math.log(x) for x in rs) / n)
    b2 = beta ** 2
    f = float((1 + b2) * p * r) / ((b2 * p) + r) if p + r else 0.0
    return p, r, f


@dataclass(frozen=True, slots=True)
class GREENStats:
    """Per-order counts against each reference (reference order as given)."""

    refs: tuple[tuple[int, ...], ...]


class GREENMetric(Metric[GREENStats]):
    """GREEN n-gram F_2 (Koyama et al. 2024; equal to gec-metrics 0.1.1)."""

    name = "green"
    sentence_ranges = True
    description = "GREEN n-gram F-score (Koyama et al. 2024; gec-metrics 0.1.1)"

    @dataclass(frozen=True)
    class Config:
        """``order``: largest n; ``beta``: the F-beta weight (2: recall counts more);
        ``unit``: ``word`` n-grams or ``char`` n-grams (of the space-joined sentence)."""

        order: int = 4
        beta: float = 2.0
        unit: str = "word"

        def __post_init__(self) -> None:
            if not isinstance(self.order, int) or not 1 <= self.order <= 10:
                raise ConfigError(f"green: order must be an integer from 1 to 10, not "
                                  f"{self.order!r}")
            if not self.beta > 0:
                raise ConfigError(f"green: beta must be positive, not {self.beta!r}")
            if self.unit not in UNITS:
                raise ConfigError(f"green: unit must be one of {', '.join(UNITS)}, not "
                                  f"{self.unit!r}")

    def _units(self, tokens: Sequence[str]) -> Sequence[str]:
        text = " ".join(tokens)
        return text if self.config.unit == "char" else (text.split(" ") if text else [])

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[GREENStats]:
        order = self.config.order
        refs = data.references  # [reference][sentence]
        cache: dict[tuple[str, ...], Counter[tuple[str, ...]]] = {}

        def grams(tokens: Sequence[str]) -> Counter[tuple[str, ...]]:
            key = tuple(tokens)
            if key not in cache:
                cache[key] = ngram_counts(self._units(tokens), order)
            return cache[key]

        out = []
        for i, (src, h) in enumerate(zip(data.sources, hyp.tokens, strict=True)):
            gs, gh = grams(src), grams(h)
            out.append(GREENStats(tuple(order_counts(gs, gh, grams(r[i]), order)
                                        for r in refs)))
        return out

    def _best(self, stats: GREENStats) -> tuple[int, ...]:
        """The counts of the reference with the highest sentence score (first on ties)."""
        best = stats.refs[0]
        best_f = green_score(best, self.config.beta)[2]
        for counts in stats.refs[1:]:
            f = green_score(counts, self.config.beta)[2]
            if best_f < f:
                best, best_f = counts, f
        return best

    def corpus_fields(self, total: Sequence[int]) -> dict[str, Any]:
        """The corpus fields of summed per-order counts: F_beta, P, R and every count."""
        p, r, f = green_score(total, self.config.beta)
        fields: dict[str, Any] = {self.headline: f, "P": p, "R": r}
        for n in range(self.config.order):
            fields.update({f"TP{n + 1}": total[3 * n], f"FP{n + 1}": total[3 * n + 1],
                           f"FN{n + 1}": total[3 * n + 2]})
        return fields

    @property
    def headline(self) -> str:
        """The headline field's name (``F2`` by default)."""
        return f"F{self.config.beta:g}"

    def aggregate(self, stats: Sequence[GREENStats]) -> Score:
        width = 3 * self.config.order
        total = [0] * width
        for s in stats:
            for k, v in enumerate(self._best(s)):
                total[k] += v
        fields = self.corpus_fields(total)
        fname = self.headline
        return Score(self.name, fields[fname], fields, main=fname, display=(fname, "P", "R"))

    def resampling(self) -> GREENRows:
        """Each sentence's best reference is fixed, so a resample sums fixed count rows."""
        return GREENRows(self)

    def sentence_values(self, stats: Sequence[GREENStats]) -> list[float]:
        return [green_score(self._best(s), self.config.beta)[2] for s in stats]


class GREENRows(CountsPath):
    """GREEN's resampling fast path: one candidate per sentence, the counts of its best
    reference (:meth:`GREENMetric._best`, which does not depend on the other sentences).

    The counts are integers, so their float64 sums are exact (below 2**53); each summed row is
    turned back into integers and scored by :meth:`GREENMetric.corpus_fields`, the function
    ``aggregate`` uses, so every field equals ``aggregate``'s bit for bit.
    """

    def __init__(self, metric: GREENMetric) -> None:
        self.metric = metric

    def resample_counts(self, stats: Sequence[GREENStats]) -> Any:
        np = _np()
        width = 3 * self.metric.config.order
        rows = [self.metric._best(s) for s in stats]
        return np.asarray(rows, dtype=np.float64).reshape(len(stats), 1, width)

    def score_counts(self, totals: Any) -> dict[str, Any]:
        np = _np()
        t = np.asarray(totals, dtype=np.float64)
        width = 3 * self.metric.config.order
        flat = t.reshape(-1, width)
        cols: dict[str, list[float]] = {name: [] for name in self.metric.corpus_fields([0] * width)}
        for row in flat.tolist():
            for name, v in self.metric.corpus_fields([int(x) for x in row]).items():
                cols[name].append(float(v))
        return {name: np.asarray(v, dtype=np.float64).reshape(t.shape[:-1])
                for name, v in cols.items()}

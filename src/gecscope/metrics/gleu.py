"""GLEU (Napoles et al. 2015, updated 2016): the official ``compute_gleu`` numbers, and a
corrected variant.

Per sentence and reference, with hypothesis ``H``, source ``S`` and reference ``R`` as n-gram
multisets (n = 1..4), the official statistics are ``|H|``, ``|R|`` and, per order,

    numerator   = max(|H & R| - |H & (S \\ R)|, 0)
    denominator = max(|H| + 1 - n, 0)

where ``&`` is the multiset intersection and ``S \\ R`` keeps the source n-grams that do not occur
in ``R`` *at all* (an n-gram occurring twice in S and once in R is dropped entirely: the
official script's count-blind difference). A corpus score sums the statistics over sentences
and computes ``exp(min(0, 1 - r/c) + mean_n log(num_n / den_n))`` (0 if any statistic is 0).

With several references, the official score is the mean over 500 iterations; iteration ``j``
seeds a random generator with ``j * 101`` and draws one reference per sentence. The published
numbers come from Python 2, whose ``randint(0, k - 1)`` is ``int(random() * k)``; Python 3's
draws differently (``draw="py3"``, as in the Python-3 ports). The generator is local: no global
random state is touched. Mean, population standard deviation and the normal 95% interval are
reported, as ``compute_gleu --debug`` prints them.

``variant="corrected"`` counts, per n-gram with source/hypothesis/reference counts ``s, h, r``,
``TK = min(s, h, r)``, ``TI = max(min(r, h) - s, 0)``, ``UD = max(min(s, h) - r, 0)`` and takes
``(TI + TK - UD) / |H_n|`` as precision (the GREEN reformulation of GLEU without the
count-blind source difference, as gec-metrics' ``GLEU``); no clamping per sentence, 0 when a
corpus numerator is not positive.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.errors import ConfigError
from gecscope.metrics.base import EvalData, Hypothesis, Metric, Score

VARIANTS = ("official", "corrected")
DRAWS = ("py2", "py3")
_Z95 = statistics.NormalDist().inv_cdf(0.975)


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) + 1 - n))


def _official_numerator(h: Counter[tuple[str, ...]], r: Counter[tuple[str, ...]],
                        s: Counter[tuple[str, ...]]) -> int:
    """The official script's numerator: matches with R minus matches with S \\ R, at least 0."""
    s_not_r = Counter({k: v for k, v in s.items() if k not in r})
    return max(sum((h & r).values()) - sum((h & s_not_r).values()), 0)


def _corrected_numerator(h: Counter[tuple[str, ...]], r: Counter[tuple[str, ...]],
                         s: Counter[tuple[str, ...]]) -> int:
    """The multiset-correct numerator ``TI + TK - UD`` (may be negative)."""
    num = 0
    for gram, mh in h.items():
        ms, mr = s.get(gram, 0), r.get(gram, 0)
        tk = min(ms, mh, mr)
        ti = max(min(mr, mh) - ms, 0)
        ud = max(min(ms, mh) - mr, 0)
        num += ti + tk - ud
    return num


_NUMERATORS = {"official": _official_numerator, "corrected": _corrected_numerator}


def reference_stats(source: Sequence[str], hyp: Sequence[str], refs: Sequence[Sequence[str]],
                    order: int = 4, variant: str = "official") -> list[tuple[int, ...]]:
    """``(|H|, |R|, num_1, den_1, ..., num_n, den_n)`` of the hypothesis against each
    reference (the hypothesis' and source's n-grams are counted once for all references)."""
    numerator = _NUMERATORS[variant]
    grams = [(ngram_counts(hyp, n), ngram_counts(source, n)) for n in range(1, order + 1)]
    out = []
    for ref in refs:
        row = [len(hyp), len(ref)]
        for n, (h, s) in enumerate(grams, start=1):
            row += [numerator(h, ngram_counts(ref, n), s), max(len(hyp) + 1 - n, 0)]
        out.append(tuple(row))
    return out


def official_stats(source: Sequence[str], hyp: Sequence[str], ref: Sequence[str],
                   order: int = 4) -> tuple[int, ...]:
    """The statistics of the official script against one reference."""
    return reference_stats(source, hyp, [ref], order, "official")[0]


def corrected_stats(source: Sequence[str], hyp: Sequence[str], ref: Sequence[str],
                    order: int = 4) -> tuple[int, ...]:
    """The same layout with the multiset-correct numerator ``TI + TK - UD`` (may be negative)."""
    return reference_stats(source, hyp, [ref], order, "corrected")[0]


def gleu_from_stats(stats: Sequence[int], smooth: bool = False) -> float:
    """GLEU of summed statistics. ``smooth`` replaces zero statistics by 1 (the official
    sentence-level scores); otherwise any zero (or negative numerator) gives 0."""
    if smooth:
        stats = [x if x != 0 else 1 for x in stats]
    if any(x <= 0 for x in stats):
        return 0.0
    c, r = stats[0], stats[1]
    nums, dens = stats[2::2], stats[3::2]
    log_prec = sum(math.log(x / y) for x, y in zip(nums, dens, strict=True)) / len(nums)
    return math.exp(min(0.0, 1.0 - r / c) + log_prec)


def draw_references(n_sentences: int, n_refs: int, iteration: int, draw: str) -> list[int]:
    """The reference index of every sentence in one iteration (seed ``iteration * 101``)."""
    rng = random.Random(iteration * 101)
    if draw == "py2":
        return [int(rng.random() * n_refs) for _ in range(n_sentences)]
    return [rng.randint(0, n_refs - 1) for _ in range(n_sentences)]


def mean_std_ci(scores: Sequence[float]) -> tuple[float, float, float, float]:
    """Mean, population standard deviation and normal 95% interval (as numpy/scipy give)."""
    mean = math.fsum(scores) / len(scores)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / len(scores))
    return mean, std, mean - _Z95 * std, mean + _Z95 * std


@dataclass(frozen=True, slots=True)
class GLEUSentenceStats:
    """One statistics tuple per reference (reference order as given)."""

    refs: tuple[tuple[int, ...], ...]


class GLEUMetric(Metric[GLEUSentenceStats]):
    """GLEU with the official script's multi-reference sampling (``compute_gleu``, 2016)."""

    name = "gleu"
    description = "GLEU (compute_gleu 2016; py2 reference draws by default)"

    @dataclass(frozen=True)
    class Config:
        """``order``: n-gram order; ``iterations``: reference draws with several references
        (1 with a single reference); ``draw``: ``py2`` (published numbers) or ``py3``;
        ``variant``: ``official`` or ``corrected``; ``smooth_sentences``: zero statistics count
        as 1 in sentence scores (official ``--debug``; default for ``official`` only)."""

        order: int = 4
        iterations: int = 500
        draw: str = "py2"
        variant: str = "official"
        smooth_sentences: bool | None = None

        def __post_init__(self) -> None:
            if not isinstance(self.order, int) or self.order < 1:
                raise ConfigError(f"gleu: order must be a positive integer, not {self.order!r}")
            if not isinstance(self.iterations, int) or self.iterations < 1:
                raise ConfigError("gleu: iterations must be a positive integer, not "
                                  f"{self.iterations!r}")
            if self.draw not in DRAWS:
                raise ConfigError(f"gleu: draw must be one of {', '.join(DRAWS)}, "
                                  f"not {self.draw!r}")
            if self.variant not in VARIANTS:
                raise ConfigError(f"gleu: variant must be one of {', '.join(VARIANTS)}, "
                                  f"not {self.variant!r}")

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[GLEUSentenceStats]:
        cfg = self.config
        refs = data.references  # [reference][sentence], length-checked
        return [GLEUSentenceStats(tuple(reference_stats(src, h, [r[i] for r in refs],
                                                        cfg.order, cfg.variant)))
                for i, (src, h) in enumerate(zip(data.sources, hyp.tokens, strict=True))]

    def iteration_scores(self, stats: Sequence[GLEUSentenceStats]) -> list[float]:
        """The corpus GLEU of every iteration (one per reference draw)."""
        if not stats:
            return [0.0]
        n_refs = len(stats[0].refs)
        if any(len(s.refs) != n_refs for s in stats):
            raise ConfigError("gleu: every sentence needs the same number of references")
        width = len(stats[0].refs[0])
        iterations = self.config.iterations if n_refs > 1 else 1
        scores = []
        for j in range(iterations):
            picks = draw_references(len(stats), n_refs, j, self.config.draw)
            total = [0] * width
            for s, k in zip(stats, picks, strict=True):
                row = s.refs[k]
                for c in range(width):
                    total[c] += row[c]
            scores.append(gleu_from_stats(total))
        return scores

    def aggregate(self, stats: Sequence[GLEUSentenceStats]) -> Score:
        scores = self.iteration_scores(stats)
        mean, std, lo, hi = mean_std_ci(scores)
        details: dict[str, Any] = {"iterations": len(scores), "variant": self.config.variant,
                                   "draw": self.config.draw}
        return Score(self.name, mean, {"GLEU": mean, "std": std, "ci_low": lo, "ci_high": hi},
                     main="GLEU", details=details)

    def resampling(self) -> Any:
        """The vectorised resampling path (:mod:`gecscope.metrics.gleu_fast`), equal to
        ``aggregate`` on every resample; ``None`` without numpy."""
        import importlib.util

        if importlib.util.find_spec("numpy") is None:  # pragma: no cover - stats extra
            return None
        from gecscope.metrics.gleu_fast import GLEURows

        return GLEURows(self.config.iterations, self.config.draw)

    def sentence_details(self, stats: Sequence[GLEUSentenceStats]
                         ) -> list[tuple[float, float, float, float]]:
        """Per sentence: mean, std and 95% interval of its GLEU over the references."""
        smooth = self.config.smooth_sentences
        if smooth is None:
            smooth = self.config.variant == "official"
        return [mean_std_ci([gleu_from_stats(r, smooth) for r in s.refs]) for s in stats]

    def sentence_values(self, stats: Sequence[GLEUSentenceStats]) -> list[float]:
        """Sentence GLEU: mean over the references (smoothed for the official variant)."""
        return [d[0] for d in self.sentence_details(stats)]


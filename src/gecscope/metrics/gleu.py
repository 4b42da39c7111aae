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

import functools
import importlib.util
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score

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


@functools.lru_cache(maxsize=1 << 15)
def _reference_side(source: tuple[str, ...], ref: tuple[str, ...], order: int
                    ) -> tuple[tuple[Counter[tuple[str, ...]], Counter[tuple[str, ...]]], ...]:
    """Per order, the reference's n-grams and the source's n-grams absent from the reference
    (``S \\ R``): what the official numerator needs of a sentence whatever the hypothesis, so
    every system scored against the same references counts them once. Read only."""
    out = []
    for n in range(1, order + 1):
        r = ngram_counts(ref, n)
        out.append((r, Counter({k: v for k, v in ngram_counts(source, n).items()
                                if k not in r})))
    return tuple(out)


def _matches(h: Counter[tuple[str, ...]], other: Counter[tuple[str, ...]]) -> int:
    """``|H & other|``, the size of the multiset intersection."""
    return sum(min(v, other[k]) for k, v in h.items() if k in other)


@functools.lru_cache(maxsize=1 << 15)
def _official_rows(source: tuple[str, ...], hyp: tuple[str, ...],
                   refs: tuple[tuple[str, ...], ...], order: int) -> tuple[tuple[int, ...], ...]:
    """:func:`reference_stats` of the official variant, memoised by content: 13 systems that
    leave a sentence unchanged, or correct it alike, cost one computation (integers: the same
    whichever way they are computed)."""
    grams = [ngram_counts(hyp, n) for n in range(1, order + 1)]
    out = []
    for ref in refs:
        row = [len(hyp), len(ref)]
        for n, (h, (r, s_not_r)) in enumerate(zip(grams, _reference_side(source, ref, order),
                                                  strict=True), start=1):
            row += [max(_matches(h, r) - _matches(h, s_not_r), 0), max(len(hyp) + 1 - n, 0)]
        out.append(tuple(row))
    return tuple(out)


def reference_stats(source: Sequence[str], hyp: Sequence[str], refs: Sequence[Sequence[str]],
                    order: int = 4, variant: str = "official") -> list[tuple[int, ...]]:
    """``(|H|, |R|, num_1, den_1, ..., num_n, den_n)`` of the hypothesis against each
    reference (the hypothesis' and source's n-grams are counted once for all references)."""
    if variant == "official":
        return list(_official_rows(tuple(source), tuple(hyp), tuple(map(tuple, refs)), order))
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


MAX_ORDER = 10  # n-gram order; GLEU uses 4


def draw_references(n_sentences: int, n_refs: int, iteration: int, draw: str) -> list[int]:
    """The reference index of every sentence in one iteration (seed ``iteration * 101``)."""
    rng = random.Random(iteration * 101)
    if draw == "py2":
        return [int(rng.random() * n_refs) for _ in range(n_sentences)]
    return [rng.randint(0, n_refs - 1) for _ in range(n_sentences)]


def _draw_totals(stats: Sequence[GLEUSentenceStats], draws: Sequence[Sequence[int]],
                 n_refs: int, width: int) -> list[list[int]]:
    """Each draw's summed statistics (the reference ``draws[j][i]`` of sentence ``i``)."""
    out = []
    for picks in draws:
        total = [0] * width
        for s, k in zip(stats, picks, strict=True):
            row = s.refs[k]
            for c in range(width):
                total[c] += row[c]
        out.append(total)
    return out


def _draw_totals_numpy(stats: Sequence[GLEUSentenceStats], draws: Sequence[Sequence[int]],
                       n_refs: int, width: int) -> list[list[int]]:
    """:func:`_draw_totals` as integer matrix products (exact: the sums are integers)."""
    import numpy as np

    table = np.asarray([s.refs for s in stats], dtype=np.int64)  # (N, R, W)
    picks = np.asarray(draws, dtype=np.int64)  # (J, N)
    totals = np.zeros((len(draws), width), dtype=np.int64)
    for k in range(n_refs):
        totals += (picks == k).astype(np.int64) @ table[:, k, :]
    out: list[list[int]] = totals.tolist()
    return out


@functools.lru_cache(maxsize=4)
def _all_draws(n_sentences: int, n_refs: int, iterations: int, draw: str
               ) -> tuple[tuple[int, ...], ...]:
    """:func:`draw_references` of every iteration; the same for every system of a test set,
    so they are drawn once (13 CoNLL-2014 systems drew 8.5 million numbers)."""
    return tuple(tuple(draw_references(n_sentences, n_refs, j, draw))
                 for j in range(iterations))


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
    relative_cost = 10.0  # CPU time per system relative to errant's (CoNLL-2014)
    sentence_ranges = True
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
            if not isinstance(self.order, int) or not 1 <= self.order <= MAX_ORDER:
                raise ConfigError(f"gleu: order must be an integer from 1 to {MAX_ORDER}, not "
                                  f"{self.order!r}")
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
        draws = _all_draws(len(stats), n_refs, iterations, self.config.draw)
        totals = (_draw_totals_numpy if importlib.util.find_spec("numpy") is not None
                  else _draw_totals)(stats, draws, n_refs, width)
        return [gleu_from_stats(row) for row in totals]

    def aggregate(self, stats: Sequence[GLEUSentenceStats]) -> Score:
        scores = self.iteration_scores(stats)
        mean, std, lo, hi = mean_std_ci(scores)
        details: dict[str, Any] = {"iterations": len(scores), "variant": self.config.variant,
                                   "draw": self.config.draw}
        return Score(self.name, mean, {"GLEU": mean, "draws_std": std, "draws_ci_low": lo,
                                   "draws_ci_high": hi},
                     main="GLEU", details=details)

    def resampling(self) -> Any:
        """The vectorised resampling path (:class:`GLEURows`), equal to ``aggregate`` on
        every resample; ``None`` without numpy."""
        if importlib.util.find_spec("numpy") is None:  # pragma: no cover - stats extra
            return None
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


def _iteration_gleu(totals: Any, out: Any) -> None:
    """``out[b, j]`` = :func:`gleu_from_stats` of ``totals[b, j, :]`` (unsmoothed), for the
    resampling path; compiled with numba when installed (same ``math`` functions)."""
    n_b, n_j, width = totals.shape
    n_orders = (width - 2) // 2
    for b in range(n_b):
        for j in range(n_j):
            positive = True
            for c in range(width):
                if totals[b, j, c] <= 0:
                    positive = False
                    break
            if not positive:
                out[b, j] = 0.0
                continue
            c_len = totals[b, j, 0]
            r_len = totals[b, j, 1]
            log_prec = 0.0
            for k in range(n_orders):
                log_prec += math.log(totals[b, j, 2 + 2 * k] / totals[b, j, 3 + 2 * k])
            log_prec = log_prec / n_orders
            out[b, j] = math.exp(min(0.0, 1.0 - r_len / c_len) + log_prec)


class GLEURows:
    """GLEU's resampling fast path: the corpus GLEU of many resamples at once, equal to
    :meth:`GLEUMetric.aggregate` on each resample (rows of sentence indices in, Score fields
    per row out).

    A resample of ``n`` sentences is scored as ``aggregate`` scores any list of ``n``
    sentences: in draw ``j`` the sentence at position ``i`` takes reference
    ``draw_references(n, R, j)[i]``. The statistics are integers, so their sums (float64 matrix
    products here, exact below 2**53) equal the slow path's; each draw's GLEU uses the same
    ``math.log``/``math.exp`` and the mean, std and interval the same ``math.fsum``. Needs
    numpy (imported when used).
    """

    def __init__(self, iterations: int, draw: str) -> None:
        self.iterations = iterations
        self.draw = draw

    def rows_scorer(self, stats: Sequence[Any]) -> Callable[[Any], dict[str, Any]]:
        """A function scoring ``(B, n)`` index rows into ``stats``: ``{field: (B,) array}``."""
        import numpy as np

        from gecscope._jit import jit

        kernel = jit(_iteration_gleu)
        table = np.asarray([s.refs for s in stats], dtype=np.float64)  # (N, R, W)
        n_refs = table.shape[1]
        iterations = self.iterations if n_refs > 1 else 1
        masks_by_length: dict[int, list[Any]] = {}

        def score(rows: Any) -> dict[str, Any]:
            rows = np.atleast_2d(rows)
            n = rows.shape[1]
            if n not in masks_by_length:  # each draw's reference per position, as 0/1 columns
                draws = np.asarray([draw_references(n, n_refs, j, self.draw)
                                    for j in range(iterations)])  # (J, n)
                masks_by_length[n] = [(draws == k).astype(np.float64).T  # (n, J)
                                      for k in range(n_refs)]
            masks = masks_by_length[n]
            width = table.shape[2]
            fields: dict[str, list[float]] = {"GLEU": [], "draws_std": [], "draws_ci_low": [],
                                                 "draws_ci_high": []}
            step = max(1, 4_000_000 // max(1, n * width))
            for lo in range(0, rows.shape[0], step):
                block = rows[lo:lo + step]
                totals = np.zeros((len(block) * width, iterations))
                for k in range(n_refs):
                    # (b, n, W) -> (b * W, n) @ (n, J): each iteration's sums, one matrix product
                    part = np.transpose(table[block, k, :], (0, 2, 1)).reshape(-1, n)
                    totals += part @ masks[k]
                totals = np.ascontiguousarray(
                    np.transpose(totals.reshape(len(block), width, iterations), (0, 2, 1)))
                values = np.empty(totals.shape[:2])
                kernel(totals, values)
                for row in values:
                    mean, std, lo_ci, hi_ci = mean_std_ci(row.tolist())
                    fields["GLEU"].append(mean)
                    fields["draws_std"].append(std)
                    fields["draws_ci_low"].append(lo_ci)
                    fields["draws_ci_high"].append(hi_ci)
            return {k: np.asarray(v) for k, v in fields.items()}

        return score

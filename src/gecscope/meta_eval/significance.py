"""WMT-grade statistics for the system level: soft pairwise accuracy, permutation tests between
metrics with significance clusters, and bootstrap intervals on correlations.

*Soft pairwise accuracy* (SPA; Thompson et al. 2024, arXiv 2409.09598): for every pair of
systems, a paired permutation test gives the p-value of "system i is better than system j",
once from the humans' judgments and once from the metric's sentence scores; SPA = 1 - mean
|p_human - p_metric| over the pairs. The test (:func:`pairwise_p_values`) draws its sign flips
exactly as mt-metrics-eval's ``pce.compute_pairwise_p_values`` does (``numpy.random.
default_rng(seed)``, float32 uniforms rounded to 0/1, one mask shared by all pairs, system score
= sum of sentence scores, p = share of permuted differences >= the observed one), so the same
matrix, seed and permutation count give the same p-values. GEC's human judgments are relative
rankings with no score per system and sentence, so the humans' p-value of a pair comes from the
pair's head-to-head comparisons (+1 a win of i, -1 a loss, 0 a tie; :func:`human_pairwise_p_values`):
the same sign-flip test on that vector (pce's function on the two-row matrix ``[d, 0]``).

*Metric comparison* (:func:`compare_metrics`): mt-metrics-eval's ``PermutationSigDiff``
(PERM-BOTH, Deutsch et al. 2021): the two metrics' z-scored system scores are swapped system by
system at random, and p = share of draws where the difference of the correlations is at least
the observed one. Metrics are sorted by correlation (name second) and grouped into significance
clusters as its ``data.AssignRanks`` does: a metric starts a new cluster when a metric of the
current cluster beats it with p <= ``alpha``. Draws come from one ``numpy.random.RandomState
(seed)`` consumed pair by pair in the same order (``np.random.seed(seed)`` before mt-metrics-eval's
``CompareMetrics`` gives the same matrix), early stopping included.

*Intervals* (:func:`correlation_interval`): percentile bootstrap over the systems (the dominant
uncertainty with 12-15 systems), seeded. SPA's interval (:func:`spa_interval`) is the same
bootstrap over systems with the two p-value matrices held fixed: a resample of the systems
(with replacement) scores 1 - mean |p_human - p_metric| over its pairs of distinct systems.
It measures how much SPA depends on which systems happen to be in the benchmark, not the
Monte Carlo error of the p-values (0.016 at most per p-value with 1000 permutations) nor the
sampling of sentences; mt-metrics-eval and WMT 2024 report no interval on SPA (only its
significance clusters), so there is no reference value to equal. Recomputing the p-values
per resample would cost a permutation test per draw; systems are the scarce unit here.

Sentence-level clusters of tie-calibrated accuracy are in :mod:`~.ties`
(:func:`~gecscope.meta_eval.ties.compare_calibrated`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.errors import ConfigError
from gecscope.judgments import LOSS, TIE, WIN, Judgments
from gecscope.stats.resample import check_draws

SPA_SEED = 4
"""Default seed of the SPA permutation test (mt-metrics-eval's ``compute_pairwise_p_values``)."""

CORRELATIONS = ("pearson", "spearman", "kendall")


def _np() -> Any:
    from gecscope._optional import require

    return require("numpy", "stats", "significance tests")


def pairwise_p_values(scores: Any, permutations: int = 1000, seed: int = SPA_SEED) -> Any:
    """Paired permutation p-values of "system i > system j" for every pair ``i < j``.

    ``scores`` is a (systems x sentences) matrix; the system score is the sum of its row. The
    result is a (systems x systems) array with the upper triangle filled and NaN elsewhere.
    Arithmetic and random draws are those of mt-metrics-eval's ``pce.compute_pairwise_p_values``
    (float32), so its values are reproduced exactly. The matrix is taken in C order (row by
    row), as the reference's is when built from lists: float32 row sums and the product round
    with the memory order, and a column-selected matrix (``m[:, rows]``, Fortran order) moved
    3 of GJG15's 78 GLEU p-values by 1/1000 (issue #42).
    """
    np = _np()
    check_draws("permutations", permutations, minimum=1)
    mat = np.ascontiguousarray(scores, dtype=np.float32)
    if mat.ndim != 2:
        raise ConfigError(f"scores must be a systems x sentences matrix, got shape {mat.shape}")
    n_sys, n_seg = mat.shape
    signs = np.random.default_rng(seed).random(size=(permutations, n_seg), dtype=np.float32)
    np.rint(signs, out=signs)
    signs *= np.float32(2.0)
    signs -= np.float32(1.0)
    totals = mat.sum(axis=1)
    permuted = signs @ mat.T
    out = np.full((n_sys, n_sys), np.nan)
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            null = permuted[:, i] - permuted[:, j]
            out[i, j] = np.count_nonzero(null >= totals[i] - totals[j]) / permutations
    return out


def soft_pairwise_accuracy(human_p: Any, metric_p: Any) -> float:
    """1 - mean |p_human - p_metric| over the upper triangle (``pce.compute_one_minus_pce``)."""
    np = _np()
    h, m = np.asarray(human_p, dtype=float), np.asarray(metric_p, dtype=float)
    if h.shape != m.shape or h.ndim != 2 or h.shape[0] != h.shape[1]:
        raise ConfigError(f"p-value matrices must be square and alike, got {h.shape}, {m.shape}")
    upper = np.triu_indices(h.shape[0], 1)
    return float(1.0 - np.mean(np.abs(h - m)[upper]))


def head_to_head(judgments: Judgments, systems: Sequence[str]) -> dict[tuple[str, str], list[int]]:
    """For every pair ``(systems[i], systems[j])``, ``i < j``: +1 / -1 / 0 for each comparison
    in the judgments where the first won / lost / tied (file order)."""
    index = {s: i for i, s in enumerate(dict.fromkeys(systems))}
    out: dict[tuple[str, str], list[int]] = {}
    for c in judgments.comparisons(index):
        value = {WIN: 1, LOSS: -1, TIE: 0}[c.outcome]
        a, b = (c.a, c.b) if index[c.a] < index[c.b] else (c.b, c.a)
        out.setdefault((a, b), []).append(value if a == c.a else -value)
    return out


def human_pairwise_p_values(judgments: Judgments, systems: Sequence[str],
                            permutations: int = 1000, seed: int = SPA_SEED) -> Any:
    """The humans' p-values of "systems[i] > systems[j]": the sign-flip test of
    :func:`pairwise_p_values` on the pair's head-to-head outcomes (the two-row matrix
    ``[d, 0]``). A pair never compared gets p = 0.5 (no evidence either way)."""
    np = _np()
    names = list(dict.fromkeys(systems))
    outcomes = head_to_head(judgments, names)
    out = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            d = outcomes.get((a, names[j]))
            if not d:
                out[i, j] = 0.5
                continue
            mat = np.vstack([np.asarray(d, dtype=float), np.zeros(len(d))])
            out[i, j] = pairwise_p_values(mat, permutations, seed)[0, 1]
    return out


def spa_interval(human_p: Any, metric_p: Any, *, resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> Interval:
    """Percentile bootstrap interval of SPA over the systems: resample the systems with
    replacement (``numpy.random.default_rng(seed)``) and average |p_human - p_metric| over the
    pairs of distinct systems of the resample (a system drawn twice counts twice; a pair of a
    system with itself has no p-value and is left out), keeping the p-value matrices fixed.
    Draws with a single distinct system are left out and not counted in ``resamples``."""
    np = _np()
    check_draws("resamples", resamples, minimum=1)
    h, m = np.asarray(human_p, dtype=float), np.asarray(metric_p, dtype=float)
    n = h.shape[0]
    if n < 2:
        return Interval(math.nan, math.nan, level, 0)
    upper = np.triu(np.abs(h - m), 1)
    gap = np.nan_to_num(upper + upper.T)
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    counts = np.zeros((resamples, n))
    np.add.at(counts, (np.arange(resamples)[:, None], idx), 1.0)
    pairs = (n * n - (counts * counts).sum(axis=1)) / 2
    mass = np.einsum("ri,ij,rj->r", counts, gap, counts) / 2
    keep = pairs > 0
    values = 1.0 - mass[keep] / pairs[keep]
    if not len(values):
        return Interval(math.nan, math.nan, level, 0)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(values, [tail, 100 - tail])
    return Interval(float(lo), float(hi), level, len(values))


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    """SPA of a metric against one judgment file, how it was computed, and its bootstrap
    interval over systems (:func:`spa_interval`; None when not asked for)."""

    spa: float
    systems: tuple[str, ...]
    permutations: int
    seed: int
    interval: Interval | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"spa": self.spa, "systems": list(self.systems),
                                  "permutations": self.permutations, "seed": self.seed}
        if self.interval is not None:
            out["spa_interval"] = self.interval.as_list()
            out["interval_level"] = self.interval.level
            out["interval_resamples"] = self.interval.resamples
        return out


def metric_spa(judgments: Judgments, sentence_scores: Mapping[str, Sequence[float]],
               systems: Sequence[str], *, rows: Sequence[int] | None = None,
               permutations: int = 1000, seed: int = SPA_SEED,
               higher_is_better: bool = True,
               human_p: Any = None, resamples: int = 0,
               bootstrap_seed: int = 0) -> SoftPairwiseAccuracy:
    """SPA of a metric's sentence scores (system score = their sum, i.e. the mean sentence
    score) against ``judgments``. ``rows`` restricts the sentence rows the metric's test uses
    (default: all); ``human_p`` reuses precomputed :func:`human_pairwise_p_values`;
    ``resamples`` > 0 adds the bootstrap interval over systems (:func:`spa_interval`)."""
    np = _np()
    names = list(dict.fromkeys(systems))
    missing = [s for s in names if s not in sentence_scores]
    if missing:
        raise ConfigError(f"no sentence scores for system(s) {', '.join(missing)}")
    mat = np.asarray([list(sentence_scores[s]) for s in names], dtype=float)
    if rows is not None:
        mat = mat[:, list(rows)]
    if np.isnan(mat).any():
        raise ConfigError("sentence scores contain NaN; SPA needs a score for every sentence")
    if not higher_is_better:
        mat = -mat
    hp = human_p if human_p is not None else human_pairwise_p_values(
        judgments, names, permutations, seed)
    mp = pairwise_p_values(mat, permutations, seed)
    interval = (spa_interval(hp, mp, resamples=resamples, seed=bootstrap_seed)
                if resamples > 0 else None)
    return SoftPairwiseAccuracy(soft_pairwise_accuracy(hp, mp), tuple(names), permutations,
                                seed, interval)


# ---------------------------------------------------------------- vectorised correlations


def batch_correlation(kind: str, gold: Any, metric: Any) -> Any:
    """Correlation of ``gold`` (n) with every row of ``metric`` (k x n), or of every row of
    ``gold`` (k x n) with the matching row of ``metric``; NaN where undefined (constant)."""
    np = _np()
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    if m.ndim == 1:
        m = m[None, :]
    g = np.broadcast_to(g, m.shape) if g.ndim == 1 else g
    if kind == "spearman":
        from gecscope._optional import require

        stats = require("scipy.stats", "stats", "correlations")
        # numpy.corrcoef's arithmetic on the ranks, as scipy's spearmanr: the permutation
        # test's ">=" meets exact ties of this discrete statistic, so rounding must match
        x = np.stack([stats.rankdata(g, axis=1), stats.rankdata(m, axis=1)], axis=1)
        x = x - x.mean(axis=2)[:, :, None]
        c = np.matmul(x, np.swapaxes(x, 1, 2))
        c *= 1.0 / (x.shape[2] - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = (c[:, 1, 0] / np.sqrt(c[:, 1, 1])) / np.sqrt(c[:, 0, 0])
        return np.clip(np.where(np.isfinite(r), r, np.nan), -1.0, 1.0)
    if kind == "pearson":
        gc = g - g.mean(axis=1, keepdims=True)
        mc = m - m.mean(axis=1, keepdims=True)
        num = (gc * mc).sum(axis=1)
        den = np.sqrt((gc * gc).sum(axis=1) * (mc * mc).sum(axis=1))
    elif kind == "kendall":
        iu = np.triu_indices(g.shape[1], 1)
        sg = np.sign(g[:, :, None] - g[:, None, :])[:, iu[0], iu[1]]
        sm = np.sign(m[:, :, None] - m[:, None, :])[:, iu[0], iu[1]]
        num = (sg * sm).sum(axis=1)
        den = np.sqrt((sg * sg).sum(axis=1) * (sm * sm).sum(axis=1))
    else:
        raise ConfigError(f"correlation must be one of {', '.join(CORRELATIONS)}, got {kind!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(r, -1.0, 1.0)


def _scipy_correlation(kind: str, gold: Sequence[float], metric: Sequence[float]) -> float:
    """One correlation as mt-metrics-eval computes it (scipy; NaN for a constant vector)."""
    import warnings

    from gecscope._optional import require

    stats = require("scipy.stats", "stats", "correlations")
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr,
          "kendall": stats.kendalltau}[kind]
    if len(set(gold)) < 2 or len(set(metric)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(gold, metric)[0])


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; ``resamples`` counts the draws where it was defined."""

    low: float
    high: float
    level: float
    resamples: int

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def correlation_interval(kind: str, gold: Sequence[float], metric: Sequence[float], *,
                         resamples: int = 1000, seed: int = 0,
                         level: float = 0.95) -> Interval:
    """Percentile bootstrap interval of a system-level correlation, resampling the systems
    with replacement (``numpy.random.default_rng(seed)``); draws where the correlation is
    undefined (a constant resample) are left out and not counted in ``resamples``."""
    np = _np()
    check_draws("resamples", resamples, minimum=1)
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    if len(g) < 2:
        return Interval(math.nan, math.nan, level, 0)
    idx = np.random.default_rng(seed).integers(0, len(g), size=(resamples, len(g)))
    r = batch_correlation(kind, g[idx], m[idx])
    r = r[~np.isnan(r)]
    if not len(r):
        return Interval(math.nan, math.nan, level, 0)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(r, [tail, 100 - tail])
    return Interval(float(lo), float(hi), level, len(r))


def mean_interval(values: Sequence[float], *, resamples: int = 1000, seed: int = 0,
                  level: float = 0.95) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (resampled with replacement)."""
    np = _np()
    check_draws("resamples", resamples, minimum=1)
    v = np.asarray(values, dtype=float)
    if not len(v):
        return Interval(math.nan, math.nan, level, 0)
    idx = np.random.default_rng(seed).integers(0, len(v), size=(resamples, len(v)))
    means = v[idx].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return Interval(float(lo), float(hi), level, resamples)


# ------------------------------------------------------------- metric comparison, clusters


@dataclass(frozen=True)
class PermutationParams:
    """mt-metrics-eval's ``PermutationSigDiffParams`` and resampling count: draws are made in
    blocks of ``block_size``; after a block the test stops when p < ``early_min`` or p >
    ``early_max``."""

    permutations: int = 1000
    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5


def _zscore(x: Any) -> Any:
    np = _np()
    x = np.asarray(x, dtype=float)
    sd = x.std()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x - x.mean()) / sd


def _nan_to_zero(x: Any) -> Any:
    np = _np()
    return np.where(np.isnan(x), 0.0, x)


def permutation_sig_diff(kind: str, gold: Sequence[float], metric1: Sequence[float],
                         metric2: Sequence[float], *, rng: Any = None, seed: int = 0,
                         params: PermutationParams | None = None) -> tuple[float, float, int]:
    """p-value that ``metric2`` correlates better with ``gold`` than ``metric1`` (PERM-BOTH, as
    mt-metrics-eval's ``PermutationSigDiff`` with ``average_by="none"``), the observed
    difference of the correlations (2 - 1) and the number of draws made. An undefined
    correlation counts as 0, as there. ``rng`` (a ``numpy.random.RandomState``) continues a
    stream; otherwise ``RandomState(seed)``."""
    np = _np()
    p = params or PermutationParams()
    g = np.asarray(gold, dtype=float)
    z1, z2 = _zscore(metric1), _zscore(metric2)
    state = rng if rng is not None else np.random.RandomState(seed)

    def corr(m: Any) -> Any:
        return _nan_to_zero(batch_correlation(kind, g, m))

    delta = float(corr(z2)[0] - corr(z1)[0])
    large = done = 0
    while done < p.permutations:
        size = min(p.block_size, p.permutations - done)
        w = state.binomial(1, 0.5, (size, len(g))).astype(bool)
        c1 = corr(np.where(w, z1, z2))
        c2 = corr(np.where(w, z2, z1))
        large += int(np.count_nonzero(c2 - c1 >= delta))
        done += size
        if done % p.block_size == 0:
            pval = large / done
            if pval < p.early_min or pval > p.early_max:
                break
    return large / done, delta, done


@dataclass(frozen=True)
class Ranking:
    """Metrics sorted by correlation (best first) with their significance clusters.

    ``p[i][j]`` (``j > i``) is the p-value that ``labels[i]`` correlates better than
    ``labels[j]`` only by chance; rank r = the r-th cluster (1 = best)."""

    statistic: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    ranks: tuple[int, ...]
    p: tuple[tuple[float, ...], ...]
    alpha: float
    permutations: int
    seed: int

    def rank_of(self, label: str) -> int:
        return self.ranks[self.labels.index(label)]

    def as_dict(self) -> dict[str, object]:
        return {"statistic": self.statistic, "alpha": self.alpha,
                "permutations": self.permutations, "seed": self.seed,
                "metrics": [{"metric": m, "value": v, "rank": r}
                            for m, v, r in zip(self.labels, self.values, self.ranks,
                                               strict=True)],
                "p_values": [list(row) for row in self.p]}


def assign_ranks(p: Sequence[Sequence[float]], alpha: float = 0.05) -> list[int]:
    """Cluster ranks from an upper-triangular p-value matrix of metrics sorted best first: a
    metric opens a new cluster when some metric of the current cluster beats it with p <=
    ``alpha`` (mt-metrics-eval's ``AssignRanks``)."""
    ranks = []
    rank, start = 1, 0
    for i in range(len(p)):
        if any(p[k][i] <= alpha for k in range(start, i)):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


def compare_metrics(gold: Sequence[float], metrics: Mapping[str, Sequence[float]],
                    kind: str = "pearson", *, alpha: float = 0.05, seed: int = 0,
                    params: PermutationParams | None = None) -> Ranking:
    """Rank metrics by their system-level correlation with ``gold`` and test every pair
    (:func:`permutation_sig_diff`), as mt-metrics-eval's ``CompareMetrics``."""
    np = _np()
    p = params or PermutationParams()
    values = {}
    for name, scores in metrics.items():
        if len(scores) != len(gold):
            raise ConfigError(f"metric {name!r} has {len(scores)} system scores for "
                              f"{len(gold)} human scores")
        r = _scipy_correlation(kind, list(gold), list(scores))
        values[name] = 0.0 if math.isnan(r) else r
    order = sorted(values, key=lambda m: (-values[m], m))
    n = len(order)
    matrix = [[0.0] * n for _ in range(n)]
    rng = np.random.RandomState(seed)
    if p.permutations > 0:
        for i in range(n):
            for j in range(i + 1, n):
                matrix[i][j] = permutation_sig_diff(kind, gold, metrics[order[j]],
                                                    metrics[order[i]], rng=rng, params=p)[0]
    ranks = assign_ranks(matrix, alpha) if p.permutations > 0 else [1] * n
    return Ranking(kind, tuple(order), tuple(values[m] for m in order), tuple(ranks),
                   tuple(tuple(row) for row in matrix), alpha, p.permutations, seed)

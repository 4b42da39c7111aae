"""Bootstrap resampling of corpus scores from per-sentence statistics.

A resample draws ``n`` sentence indices with replacement and recomputes the corpus score with
the metric's own :meth:`~gecscope.metrics.base.Metric.aggregate` on the resampled statistics
(never by averaging sentence scores, unless the metric itself is defined that way). Resampling
is seeded with a local :class:`numpy.random.Generator`; nothing touches global random state.

**Fast path.** Calling ``aggregate`` 1,000 times per system is slow for large corpora, so a
metric may return, from :meth:`~gecscope.metrics.base.Metric.resampling`, an object that
exposes its statistics as count vectors (:class:`gecscope.stats.fastpath.ResamplingCounts`).

When a sentence has several candidates, the corpus score picks one per sentence **greedily in
corpus order**: the candidate that maximises the score of the running totals plus the
candidate, ties broken by the ``tiebreak`` columns and then by the first candidate (ERRANT's
``errant_compare`` and the M2 scorer do this; the choice depends on sentence order). The fast
path re-runs this selection on every resample, in the resample's order, vectorised across
resamples, so it computes exactly what ``aggregate`` computes on the resampled list; the tests
check this against ``aggregate``. Metrics without these members fall back to ``aggregate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError
from gecscope.stats.fastpath import ResamplingCounts, _np

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gecscope.metrics.base import Metric

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345
DEFAULT_CONFIDENCE = 0.95
#: the most resamples or permutations any count takes: each holds a row of draws per sentence
#: or system, so a count of 1e9 would exhaust memory long before it gave a better interval
MAX_DRAWS = 100_000


def check_draws(name: str, n: object, maximum: int = MAX_DRAWS, minimum: int = 0) -> int:
    """``n`` when it is a whole number from ``minimum`` to ``maximum``, else a
    :class:`~gecscope.errors.ConfigError` naming ``name`` and the limit (checked before any
    draw is made)."""
    import operator

    try:
        if isinstance(n, bool):
            raise TypeError
        k = operator.index(n)  # type: ignore[arg-type]  # int, numpy integers
    except TypeError:
        raise ConfigError(f"{name} must be a whole number, got {n!r}") from None
    if not minimum <= k <= maximum:
        raise ConfigError(f"{name} must be between {minimum:,} and {maximum:,}, got {k:,}")
    return k


def make_rng(seed: int | None) -> np.random.Generator:
    """A local generator (``seed=None`` draws fresh entropy; the result is then not repeatable)."""
    return _np().random.default_rng(seed)


def bootstrap_indices(n: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_samples, n)`` sentence indices drawn uniformly with replacement."""
    if n <= 0:
        raise ConfigError("cannot resample an empty corpus (0 sentences)")
    if n_samples <= 0:
        raise ConfigError(f"the number of resamples must be positive, got {n_samples}")
    return rng.integers(0, n, size=(n_samples, n))


def fast_path(metric: Metric) -> ResamplingCounts | None:
    """The metric's vectorised resampling path, or ``None`` (resample through ``aggregate``)."""
    return metric.resampling()


def rows_path(metric: Metric, stats: Sequence[Any]
              ) -> Callable[[np.ndarray], dict[str, np.ndarray]] | None:
    """The metric's own vectorised scorer of index rows (:class:`ResamplingRows`), for
    metrics whose corpus score is not a choice among count vectors (GLEU's reference draws)."""
    impl = fast_path(metric)
    if impl is None or not hasattr(impl, "rows_scorer"):
        return None
    scorer: Callable[[np.ndarray], dict[str, np.ndarray]] = impl.rows_scorer(stats)
    return scorer


@dataclass
class CountTable:
    """A system's per-sentence candidate counts, shape ``(n, C, k)`` (NaN = no candidate)."""

    counts: np.ndarray
    score: Callable[[np.ndarray], dict[str, np.ndarray]]
    main: str
    tiebreak: tuple[tuple[int, float], ...] = ()
    select: Callable[[np.ndarray], np.ndarray | None] | None = None
    monotone: tuple[tuple[int, float], ...] = ()
    single: bool = field(init=False)
    multi: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        np = _np()
        c = np.asarray(self.counts, dtype=np.float64)
        if c.ndim == 2:
            c = c[:, None, :]
        if c.ndim != 3:
            raise ConfigError(f"resample_counts must return an (n, candidates, columns) array, "
                              f"got shape {c.shape}")
        valid = ~np.isnan(c).any(axis=2)
        if c.shape[0] and not valid.any(axis=1).all():
            bad = int(np.flatnonzero(~valid.any(axis=1))[0])
            raise ConfigError(f"resample_counts: sentence {bad + 1} has no candidate row")
        drop = self._never_chosen(c, valid)
        valid &= ~drop
        # Compact: the candidates that can be chosen first (stable), trailing NaN columns cut.
        order = np.argsort(~valid, axis=1, kind="stable")
        c = np.take_along_axis(c, order[:, :, None], axis=1)
        valid = np.take_along_axis(valid, order, axis=1)
        c = np.where(valid[:, :, None], c, np.nan)
        width = max(1, int(valid.sum(axis=1).max())) if len(c) else 1
        self.counts = c[:, :width, :]
        self.multi = valid[:, :width].sum(axis=1) > 1
        self.single = not bool(self.multi.any())

    def _never_chosen(self, c: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """Candidates the greedy choice can never pick, whatever the running totals: exact
        duplicates of an earlier candidate and, when the fast path declares ``monotone``,
        candidates weakly dominated by another on those columns (strictly, or by an earlier
        one). Fewer candidates means fewer sentences need the sequential choice at all."""
        np = _np()
        n_cand = c.shape[1]
        drop = np.zeros(valid.shape, dtype=bool)
        if n_cand == 1:
            return drop
        mono = self.monotone
        for j in range(n_cand):
            for i in range(n_cand):
                if i == j:
                    continue
                both = valid[:, i] & valid[:, j]
                if mono:
                    diff = np.stack([sign * (c[:, i, col] - c[:, j, col]) for col, sign in mono],
                                    axis=1)
                    weak = (diff >= 0).all(axis=1)
                    strict = (diff > 0).any(axis=1)
                    drop[:, j] |= both & weak & (strict | (i < j))
                elif i < j:
                    drop[:, j] |= both & (c[:, i] == c[:, j]).all(axis=1)
        return drop

    @classmethod
    def from_metric(cls, metric: Metric, stats: Sequence[Any], main: str) -> CountTable | None:
        impl = fast_path(metric)
        if impl is None or not hasattr(impl, "resample_counts"):
            return None
        return cls(impl.resample_counts(stats), impl.score_counts, main, tuple(impl.tiebreak),
                   impl.select_counts, tuple(impl.monotone))

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def totals(self, rows: np.ndarray, offsets: np.ndarray | None = None) -> np.ndarray:
        """Selected-candidate count totals for each row of sentence indices: ``(B, k)``.

        With ``offsets`` (``(S,)``), every row is used once per offset, shifted by it (the
        rows of stacked systems), giving ``(S * B, k)`` without materialising the shifted rows.
        """
        np = _np()
        rows = np.atleast_2d(rows)
        offs = np.zeros(1, dtype=rows.dtype) if offsets is None else np.asarray(offsets)
        # Work on blocks of rows so the (rows, length, columns) temporary stays near 64 MB.
        step = max(1, 8_000_000 // max(1, rows.shape[1] * self.counts.shape[2]))
        out = []
        for off in offs:
            for lo in range(0, rows.shape[0], step):
                block = rows[lo:lo + step] + off
                if self.single:
                    first = np.nan_to_num(self.counts[:, 0, :], nan=0.0)
                    out.append(first[block].sum(axis=1))
                else:
                    out.append(self._greedy_totals(block))
        if not out:
            return np.zeros((0, self.counts.shape[2]))
        return np.concatenate(out)  # type: ignore[no-any-return]

    def _greedy_totals(self, idx: np.ndarray) -> np.ndarray:
        """Greedy choice re-run on every row, vectorised across rows.

        Single-candidate sentences add fixed counts whatever was chosen before, so only the
        running totals at the multi-candidate sentences matter: those are prefix sums of the
        fixed counts plus the counts chosen so far. The loop therefore runs over the k-th
        multi-candidate sentence of every row (k = 0, 1, ...), not over every position.
        """
        np = _np()
        k = self.counts.shape[2]
        n_cand = self.counts.shape[1]
        valid = ~np.isnan(self.counts).any(axis=2)
        filled = np.nan_to_num(self.counts, nan=0.0)
        first = filled[:, 0, :]
        tie = self._tiebreak_keys(filled)
        neg = -np.inf
        multi = self.multi[idx]
        fixed = np.where(multi[:, :, None], 0.0, first[idx])  # (B, L, k)
        prefix = np.cumsum(fixed, axis=1, out=fixed)
        n_multi = multi.sum(axis=1)
        m_max = int(n_multi.max()) if len(n_multi) else 0
        totals = prefix[:, -1, :].copy() if idx.shape[1] else np.zeros((len(idx), k))
        if m_max == 0:
            return totals  # type: ignore[no-any-return]
        pos = np.argsort(~multi, axis=1, kind="stable")[:, :m_max]  # multi positions
        ev_sent = np.take_along_axis(idx, pos, axis=1)
        ev_prefix = np.take_along_axis(prefix, pos[:, :, None], axis=1)
        active = np.arange(m_max)[None, :] < n_multi[:, None]
        chosen = np.zeros((len(idx), k))
        every = np.arange(len(idx))
        for e in range(m_max):
            sent = ev_sent[:, e]
            cand = filled[sent]  # (B, C, k)
            cum = (ev_prefix[:, e, :] + chosen)[:, None, :] + cand
            flat = cum.reshape(-1, k)
            raw = self.select(flat) if self.select is not None else None
            if raw is None:
                raw = self.score(flat)[self.main]
            key = np.asarray(raw, dtype=np.float64).reshape(len(idx), n_cand)
            mask = valid[sent]
            key = np.where(mask & ~np.isnan(key), key, neg)
            mask = key == key.max(axis=1, keepdims=True)
            for tk in tie:
                t = np.where(mask, tk[sent], neg)
                mask = t == t.max(axis=1, keepdims=True)
            pick = cand[every, mask.argmax(axis=1)]
            chosen += np.where(active[:, e:e + 1], pick, 0.0)
        return totals + chosen  # type: ignore[no-any-return]

    def _tiebreak_keys(self, filled: np.ndarray) -> list[np.ndarray]:
        """Per-candidate tie-break keys, applied in order. Integer columns are packed into one
        exact float key (one reduction per step instead of one per column)."""
        np = _np()
        if not self.tiebreak:
            return []
        cols = [sign * filled[:, :, col] for col, sign in self.tiebreak]
        span = max(float(np.abs(c).max()) for c in cols) * 2 + 1
        if span ** len(cols) < 2.0 ** 52 and all((c == np.round(c)).all() for c in cols):
            key = np.zeros(filled.shape[:2])
            for c in cols:
                key = key * span + c
            return [key]
        return cols

    @classmethod
    def stack(cls, tables: Sequence[CountTable]) -> CountTable:
        """One table holding several systems' sentences one after the other (same metric), so
        that their resamples run through one vectorised loop: system ``k``'s sentence ``i`` is
        row ``k * n + i``."""
        np = _np()
        width = max(t.counts.shape[1] for t in tables)
        parts = []
        for t in tables:
            c = t.counts
            if c.shape[1] < width:
                c = np.concatenate([c, np.full((c.shape[0], width - c.shape[1], c.shape[2]),
                                               np.nan)], axis=1)
            parts.append(c)
        first = tables[0]
        return cls(np.concatenate(parts), first.score, first.main, first.tiebreak, first.select,
                   first.monotone)

    def scores(self, rows: np.ndarray, offsets: np.ndarray | None = None
               ) -> dict[str, np.ndarray]:
        """Every Score field for each row of sentence indices (see :meth:`totals`)."""
        np = _np()
        out = self.score(self.totals(rows, offsets))
        return {name: np.asarray(v, dtype=np.float64).reshape(-1) for name, v in out.items()}


class Scorer:
    """Scores any list of sentence-index rows for one system: fast path or ``aggregate``.

    ``rows`` index into ``stats``; for paired tests two systems' statistics are concatenated
    (``stats_a + stats_b``) and rows pick, per position, one of the two.
    """

    def __init__(self, metric: Metric, stats: Sequence[Any], *, main: str | None = None,
                 fast: bool = True) -> None:
        self.metric = metric
        self.stats = list(stats)
        if main is None:  # the headline field's name comes from a corpus score
            main = metric.aggregate(self.stats).main if self.stats else "score"
        self.main = main
        self.table: CountTable | None = None
        self.rows: Callable[[np.ndarray], dict[str, np.ndarray]] | None = None
        if fast:
            self.table = CountTable.from_metric(metric, self.stats, self.main)
            if self.table is None:
                self.rows = rows_path(metric, self.stats)

    @property
    def fast(self) -> bool:
        return self.table is not None or self.rows is not None

    def values(self, rows: np.ndarray, fields: bool = False) -> dict[str, np.ndarray]:
        """``{field: (B,) array}``; only the headline (key ``"value"``) unless ``fields``."""
        np = _np()
        rows = np.atleast_2d(rows)
        if self.table is not None or self.rows is not None:
            if self.table is not None:
                out = self.table.scores(rows)
            else:
                assert self.rows is not None
                out = self.rows(rows)
            res = {"value": out[self.main]}
            if fields:
                res.update(out)
            return res
        vals: list[float] = []
        cols: dict[str, list[float]] = {}
        for r in rows:
            score = self.metric.aggregate([self.stats[i] for i in r])
            vals.append(float(score.value))
            if fields:
                for name, v in score.fields.items():
                    if isinstance(v, int | float):
                        cols.setdefault(name, []).append(float(v))
        res = {"value": np.asarray(vals, dtype=np.float64)}
        if fields:
            res.update({k: np.asarray(v, dtype=np.float64) for k, v in cols.items()
                        if len(v) == len(vals)})
        return res


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval (percentile method) around the full-corpus score."""

    value: float
    low: float
    high: float
    mean: float
    stdev: float
    confidence: float = DEFAULT_CONFIDENCE
    n_samples: int = DEFAULT_SAMPLES
    seed: int | None = DEFAULT_SEED
    #: what is resampled: the corpus's sentences, with replacement (a metric's own interval,
    #: like GLEU's ``draws_ci_low``/``draws_ci_high``, is over its reference draws instead)
    over: str = "sentences"
    method: str = "percentile bootstrap"

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "mean": self.mean,
                "stdev": self.stdev, "confidence": self.confidence,
                "n_samples": self.n_samples, "seed": self.seed, "over": self.over,
                "method": self.method}


def percentile_interval(samples: np.ndarray, confidence: float = DEFAULT_CONFIDENCE
                        ) -> tuple[float, float]:
    """The ``(1-c)/2`` and ``(1+c)/2`` quantiles (numpy's default linear interpolation)."""
    np = _np()
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    lo, hi = np.quantile(np.asarray(samples, dtype=np.float64),
                         [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def interval_from_samples(value: float, samples: np.ndarray, confidence: float,
                          n_samples: int, seed: int | None) -> Interval:
    np = _np()
    s = np.asarray(samples, dtype=np.float64)
    lo, hi = percentile_interval(s, confidence)
    return Interval(float(value), lo, hi, float(s.mean()), float(s.std(ddof=1)) if len(s) > 1
                    else 0.0, confidence, int(n_samples), seed)


def bootstrap_samples(metric: Metric, stats: Sequence[Any], n_samples: int = DEFAULT_SAMPLES,
                      seed: int | None = DEFAULT_SEED, *, indices: np.ndarray | None = None,
                      fields: bool = False, fast: bool = True) -> dict[str, np.ndarray]:
    """The metric recomputed on each resample: ``{"value": (B,), <field>: (B,)...}``.

    ``indices`` (``(B, n)``) replaces the random draw, e.g. to enumerate every resample.
    """
    if indices is None:
        indices = bootstrap_indices(len(stats), n_samples, make_rng(seed))
    return Scorer(metric, stats, fast=fast).values(indices, fields=fields)


def bootstrap_interval(metric: Metric, stats: Sequence[Any], n_samples: int = DEFAULT_SAMPLES,
                       seed: int | None = DEFAULT_SEED,
                       confidence: float = DEFAULT_CONFIDENCE, *, fast: bool = True) -> Interval:
    """95% (by default) percentile bootstrap interval of the corpus score."""
    value = metric.aggregate(list(stats)).value
    samples = bootstrap_samples(metric, stats, n_samples, seed, fast=fast)["value"]
    return interval_from_samples(value, samples, confidence, n_samples, seed)

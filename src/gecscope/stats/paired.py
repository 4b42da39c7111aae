"""Paired significance tests between systems scored on the same sentences.

Two tests, both recomputing the corpus metric from per-sentence statistics:

* **Paired bootstrap** (Koehn 2004, as in sacrebleu): the same resampled sentence indices are
  used for every system; the p-value of "A and B differ" counts resamples whose difference,
  shifted to the mean of the resampled differences, is at least as extreme as the observed
  difference: ``p = (c + 1) / (B + 1)`` with ``c = #{|d_b - mean(d)| >= |d|}``.
* **Approximate randomisation** (Noreen 1989; Riezler & Maxwell 2005): each trial swaps the two
  systems' statistics of each sentence with probability 1/2 and recomputes both corpus scores;
  ``p = (c + 1) / (R + 1)`` with ``c = #{|d_r| >= |d|}``.

Identical systems get ``p = 1`` in both tests (every trial ties the observed difference of 0).
:class:`PairedTest` computes each system's baseline statistics and resampled scores once and
reuses them for every pair; all randomness comes from a local generator seeded explicitly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError
from gecscope.stats.resample import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    CountTable,
    Interval,
    Scorer,
    _np,
    bootstrap_indices,
    interval_from_samples,
    make_rng,
    percentile_interval,
    rows_path,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gecscope.metrics.base import Metric, SystemResult

TESTS = ("bootstrap", "ar")


def p_value(null_stats: np.ndarray, observed: float) -> float:
    """``(c + 1) / (n + 1)``, ``c`` = number of null statistics ``>= observed`` (with a 1e-12
    tolerance, so a difference that only differs by float rounding counts as equal)."""
    np = _np()
    s = np.asarray(null_stats, dtype=np.float64)
    c = int(np.count_nonzero(s >= observed - 1e-12 * max(1.0, abs(observed))))
    return (c + 1) / (len(s) + 1)


@dataclass(frozen=True)
class Comparison:
    """The outcome of one paired test: ``delta = score(a) - score(b)``."""

    system_a: str
    system_b: str
    score_a: float
    score_b: float
    delta: float
    p_value: float
    test: str
    n_samples: int
    seed: int | None
    delta_interval: tuple[float, float] | None = None

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def as_dict(self) -> dict[str, Any]:
        return {"system_a": self.system_a, "system_b": self.system_b, "score_a": self.score_a,
                "score_b": self.score_b, "delta": self.delta, "p_value": self.p_value,
                "test": self.test, "n_samples": self.n_samples, "seed": self.seed,
                "delta_interval": list(self.delta_interval) if self.delta_interval else None}


def _check_paired(stats_a: Sequence[Any], stats_b: Sequence[Any], names: tuple[str, str]
                  ) -> None:
    if len(stats_a) != len(stats_b):
        raise ConfigError(f"paired test needs the same sentences: {names[0]} has "
                          f"{len(stats_a)}, {names[1]} has {len(stats_b)}")


def _pair_scorer(metric: Metric, a: Scorer, b: Scorer) -> Scorer:
    """A scorer over ``stats_a + stats_b`` (rows index the concatenation)."""
    joint = Scorer.__new__(Scorer)
    joint.metric = metric
    joint.stats = a.stats + b.stats
    joint.main = a.main
    joint.table = None
    joint.rows = None
    if a.table is not None and b.table is not None:
        joint.table = CountTable.stack([a.table, b.table])
    elif a.rows is not None and b.rows is not None:
        joint.rows = rows_path(metric, joint.stats)
    return joint


def randomisation_deltas(joint: Scorer, n: int, n_samples: int, rng: np.random.Generator,
                         swaps: np.ndarray | None = None) -> np.ndarray:
    """``|score(X) - score(Y)|`` for each trial, X/Y = A/B with sentences swapped at random."""
    np = _np()
    if swaps is None:
        swaps = rng.integers(0, 2, size=(n_samples, n))
    base = np.arange(n)[None, :]
    rows_x = base + n * swaps
    rows_y = base + n * (1 - swaps)
    x = joint.values(rows_x)["value"]
    y = joint.values(rows_y)["value"]
    return np.abs(x - y)  # type: ignore[no-any-return]


def approximate_randomisation(metric: Metric, stats_a: Sequence[Any], stats_b: Sequence[Any],
                              n_samples: int = DEFAULT_SAMPLES,
                              seed: int | None = DEFAULT_SEED, *,
                              swaps: np.ndarray | None = None, names: tuple[str, str] = ("A", "B"),
                              fast: bool = True) -> Comparison:
    """Approximate randomisation test of ``score(A) != score(B)``.

    ``swaps`` (``(R, n)`` of 0/1) replaces the random draw, e.g. to enumerate all 2^n patterns.
    """
    _check_paired(stats_a, stats_b, names)
    sa = metric.aggregate(list(stats_a)).value
    sb = metric.aggregate(list(stats_b)).value
    a = Scorer(metric, stats_a, fast=fast)
    b = Scorer(metric, stats_b, fast=fast)
    joint = _pair_scorer(metric, a, b)
    n = len(stats_a)
    r = n_samples if swaps is None else len(swaps)
    deltas = randomisation_deltas(joint, n, r, make_rng(seed), swaps)
    return _ar_comparison(names, sa, sb, deltas, seed)


def paired_bootstrap(metric: Metric, stats_a: Sequence[Any], stats_b: Sequence[Any],
                     n_samples: int = DEFAULT_SAMPLES, seed: int | None = DEFAULT_SEED, *,
                     indices: np.ndarray | None = None, names: tuple[str, str] = ("A", "B"),
                     confidence: float = DEFAULT_CONFIDENCE, fast: bool = True) -> Comparison:
    """Paired bootstrap test of ``score(A) != score(B)`` (same resamples for both systems)."""
    _check_paired(stats_a, stats_b, names)
    if indices is None:
        indices = bootstrap_indices(len(stats_a), n_samples, make_rng(seed))
    sa = metric.aggregate(list(stats_a)).value
    sb = metric.aggregate(list(stats_b)).value
    va = Scorer(metric, stats_a, fast=fast).values(indices)["value"]
    vb = Scorer(metric, stats_b, fast=fast).values(indices)["value"]
    return _bootstrap_comparison(names, sa, sb, va, vb, seed, confidence)


def _ar_comparison(names: tuple[str, str], sa: float, sb: float, deltas: np.ndarray,
                   seed: int | None) -> Comparison:
    return Comparison(names[0], names[1], sa, sb, sa - sb, p_value(deltas, abs(sa - sb)), "ar",
                      len(deltas), seed)


def _bootstrap_comparison(names: tuple[str, str], sa: float, sb: float, va: np.ndarray,
                          vb: np.ndarray, seed: int | None, confidence: float) -> Comparison:
    diffs = va - vb
    null = abs(diffs - diffs.mean())
    lo, hi = percentile_interval(diffs, confidence)
    return Comparison(names[0], names[1], sa, sb, sa - sb, p_value(null, abs(sa - sb)),
                      "bootstrap", len(diffs), seed, (lo, hi))


@dataclass
class _System:
    name: str
    value: float
    scorer: Scorer
    samples: np.ndarray | None = None
    field_samples: dict[str, np.ndarray] = field(default_factory=dict)


class PairedTest:
    """Significance tests among several systems scored with one metric.

    Baseline statistics (corpus scores, count tables) are computed once per system; bootstrap
    resamples are drawn once and shared by every system (so every pairwise difference is
    paired); approximate-randomisation trials are drawn per pair from one local generator.
    """

    def __init__(self, metric: Metric, results: Sequence[SystemResult], *,
                 n_samples: int = DEFAULT_SAMPLES, seed: int | None = DEFAULT_SEED,
                 test: str = "bootstrap", confidence: float = DEFAULT_CONFIDENCE,
                 fast: bool = True) -> None:
        if test not in TESTS:
            raise ConfigError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
        if n_samples <= 0:
            raise ConfigError(f"the number of resamples must be positive, got {n_samples}")
        if not results:
            raise ConfigError("no systems to compare")
        lengths = {len(r.stats) for r in results}
        if len(lengths) != 1:
            raise ConfigError("paired tests need every system scored on the same sentences; "
                              "got " + ", ".join(f"{r.system}: {len(r.stats)}" for r in results))
        names = [r.system for r in results]
        if len(set(names)) != len(names):
            raise ConfigError(f"system names must be unique, got {names}")
        self.metric = metric
        self.n_samples = n_samples
        self.seed = seed
        self.test = test
        self.confidence = confidence
        self.n = lengths.pop()
        self._rng = make_rng(seed)
        self._indices: np.ndarray | None = None
        self.systems: dict[str, _System] = {}
        for r in results:
            scorer = Scorer(metric, r.stats, main=r.score.main, fast=fast)
            self.systems[r.system] = _System(r.system, float(r.score.value), scorer)
        self._cache: dict[tuple[str, str], Comparison] = {}

    @property
    def fast(self) -> bool:
        """True when every system uses the metric's vectorised count path."""
        return all(s.scorer.fast for s in self.systems.values())

    @property
    def indices(self) -> np.ndarray:
        """The shared bootstrap resamples, drawn on first use."""
        if self._indices is None:
            self._indices = bootstrap_indices(self.n, self.n_samples, self._rng)
        return self._indices

    def samples(self, system: str) -> np.ndarray:
        """The system's corpus score on each shared resample (computed once).

        With the vectorised path, every system is resampled at the first call, in one loop
        over the sentence positions (the systems' count tables stacked), which costs little
        more than resampling one system.
        """
        s = self.systems[system]
        if s.samples is None:
            if len(self.systems) > 1 and all(t.scorer.table is not None
                                             for t in self.systems.values()):
                self._all_samples()
            else:
                out = s.scorer.values(self.indices, fields=True)
                s.samples = out.pop("value")
                s.field_samples = out
        assert s.samples is not None
        return s.samples

    def _all_samples(self) -> None:
        np = _np()
        todo = [s for s in self.systems.values() if s.samples is None]
        tables = [s.scorer.table for s in todo]
        assert all(t is not None for t in tables)
        joint = CountTable.stack(tables)  # type: ignore[arg-type]
        idx = self.indices
        out = joint.scores(idx, np.arange(len(todo)) * self.n)
        main = todo[0].scorer.main
        b = len(idx)
        for k, s in enumerate(todo):
            part = {name: v[k * b:(k + 1) * b] for name, v in out.items()}
            s.samples = part[main]
            s.field_samples = part

    def interval(self, system: str) -> Interval:
        s = self.systems[system]
        return interval_from_samples(s.value, self.samples(system), self.confidence,
                                     self.n_samples, self.seed)

    def field_intervals(self, system: str, fields: dict[str, Any]) -> dict[str, Interval]:
        """Intervals of the Score fields whose resampled values are available."""
        self.samples(system)
        s = self.systems[system]
        return {k: interval_from_samples(float(v), s.field_samples[k], self.confidence,
                                         self.n_samples, self.seed)
                for k, v in fields.items() if k in s.field_samples and isinstance(v, int | float)}

    def compare(self, a: str, b: str) -> Comparison:
        """Test ``a`` against ``b`` with the configured test (cached per pair)."""
        key = (a, b)
        if key in self._cache:
            return self._cache[key]
        for name in key:
            if name not in self.systems:
                raise ConfigError(f"unknown system {name!r}; have {', '.join(self.systems)}")
        sa, sb = self.systems[a], self.systems[b]
        if self.test == "bootstrap":
            comp = _bootstrap_comparison((a, b), sa.value, sb.value, self.samples(a),
                                         self.samples(b), self.seed, self.confidence)
        else:
            joint = _pair_scorer(self.metric, sa.scorer, sb.scorer)
            deltas = randomisation_deltas(joint, self.n, self.n_samples, self._rng)
            comp = _ar_comparison((a, b), sa.value, sb.value, deltas, self.seed)
        self._cache[key] = comp
        return comp

    def ranking(self, alpha: float = 0.05) -> list[RankedSystem]:
        """Systems by descending score, grouped into clusters of systems not significantly
        different from the cluster's best system.

        Walking down the ranking, a system starts a new cluster when it is significantly worse
        (``p < alpha``) than the first (best) system of the current cluster; each row keeps
        that comparison. Comparisons are
        not corrected for multiplicity (as in sacrebleu and WMT); use a smaller ``alpha``
        for many systems if that matters.
        """
        order = sorted(self.systems.values(), key=lambda s: -s.value)
        out: list[RankedSystem] = []
        cluster = 0
        leader = None
        for rank, s in enumerate(order, start=1):
            if leader is None:
                cluster, leader = 1, s
                comp = None
            else:
                comp = self.compare(leader.name, s.name)
                if comp.p_value < alpha:
                    cluster += 1
                    leader = s
            out.append(RankedSystem(rank, cluster, s.name, s.value, self.interval(s.name), comp))
        return out


@dataclass(frozen=True)
class RankedSystem:
    """One row of a ranking: position, cluster, score, interval and the test against the best
    system of the cluster above it when it was compared: for a cluster's first system that
    test is significant (it opened the cluster); ``None`` for the top system."""

    rank: int
    cluster: int
    system: str
    value: float
    interval: Interval | None
    versus_leader: Comparison | None

"""Trade-off factor search (CLEME2.0, Ye et al. 2025, section 4.1 and appendix B.5).

CLEME2.0 scores a system as ``a*Hit + b*(1-Wrong) + c*(1-Under) + d*(1-Over)`` with factors
``0 < a, b, c, d < 1`` summing to 1. The paper picks the factors by an exhaustive search on a
0.05 grid of that simplex with cross-validation: for each held-out unit (there: one of six
reference sets) the best factors on the other units are applied to the held-out one; the
factors of the fold with the highest held-out correlation are kept.

This module works for any metric whose :class:`~gecscope.metrics.base.Score` ``fields`` hold
sub-scores: a :class:`LinearCombination` names the fields and which are "lower is better"
(used as ``1 - x``). A fold holds, per system, either those sub-scores (fast, vectorised) or a
``scorer`` callable ``weights -> {system: score}`` for metrics whose scores cannot be written as
a fixed combination of sub-scores (e.g. when the best reference depends on the weights; see
:func:`reaggregating_scorer`). The objective is the mean of the chosen correlations (Pearson
and Spearman by default) over the fold's human rankings; grid ties go to the first point in
lexicographic order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscope.errors import ConfigError

Weights = tuple[float, ...]
CORRELATIONS = ("pearson", "spearman")


def simplex_grid(k: int = 4, step: float = 0.05, *, include_zero: bool = False) -> list[Weights]:
    """All k-tuples of multiples of ``step`` that sum to 1 (strictly positive unless
    ``include_zero``), in lexicographic order. ``1/step`` must be an integer."""
    n = round(1 / step)
    if k < 1 or n < 1 or abs(n * step - 1) > 1e-9:
        raise ConfigError(f"step must divide 1 into a whole number of parts, got {step}")
    low = 0 if include_zero else 1
    if low * k > n:
        return []
    out: list[Weights] = []

    def rec(prefix: list[int], left: int, slots: int) -> None:
        if slots == 1:
            if left >= low:
                out.append(tuple(round(x / n, 10) for x in (*prefix, left)))
            return
        for v in range(low, left - low * (slots - 1) + 1):
            rec([*prefix, v], left - v, slots - 1)

    rec([], n, k)
    return out


@dataclass(frozen=True)
class LinearCombination:
    """``sum(w_i * f_i)`` over named sub-scores, with ``f_i = 1 - x`` where ``invert[i]``.

    The default is CLEME2.0's: Hit, 1-Wrong, 1-Under, 1-Over.
    """

    fields: tuple[str, ...] = ("Hit", "Wrong", "Under", "Over")
    invert: tuple[bool, ...] = (False, True, True, True)

    def __post_init__(self) -> None:
        if len(self.fields) != len(self.invert) or not self.fields:
            raise ConfigError("a combination needs one invert flag per field")

    def terms(self, sub_scores: Mapping[str, float]) -> list[float]:
        missing = [f for f in self.fields if f not in sub_scores]
        if missing:
            raise ConfigError(f"sub-score(s) {', '.join(missing)} not among the metric's fields "
                              f"({', '.join(sub_scores)})")
        return [1.0 - float(sub_scores[f]) if inv else float(sub_scores[f])
                for f, inv in zip(self.fields, self.invert, strict=True)]

    def __call__(self, sub_scores: Mapping[str, float], weights: Sequence[float]) -> float:
        return sum(w * t for w, t in zip(weights, self.terms(sub_scores), strict=True))


@dataclass
class Fold:
    """One cross-validation unit: system scores under any weights, and human rankings."""

    name: str
    human: Mapping[str, Mapping[str, float]]
    systems: Sequence[str]
    sub_scores: Mapping[str, Mapping[str, float]] | None = None
    scorer: Callable[[Weights], Mapping[str, float]] | None = None

    def __post_init__(self) -> None:
        if (self.sub_scores is None) == (self.scorer is None):
            raise ConfigError(f"fold {self.name!r}: give either sub_scores or a scorer")
        if len(self.systems) < 3:
            raise ConfigError(f"fold {self.name!r}: correlations need at least 3 systems")


@dataclass
class FoldResult:
    name: str
    weights: Weights
    train_objective: float
    heldout_objective: float


@dataclass
class TradeoffResult:
    """The chosen factors, the cross-validation details and the chosen factors' correlations."""

    weights: Weights
    folds: list[FoldResult]
    correlations: dict[str, dict[str, dict[str, float]]]
    best_overall: Weights
    best_overall_objective: float
    grid_size: int
    combination: LinearCombination = field(default_factory=LinearCombination)

    @property
    def cv_objective(self) -> float:
        """Mean held-out objective over the folds (the cross-validated estimate)."""
        return sum(f.heldout_objective for f in self.folds) / len(self.folds)

    def as_dict(self) -> dict[str, Any]:
        return {"weights": dict(zip(self.combination.fields, self.weights, strict=True)),
                "cv_objective": self.cv_objective, "grid_size": self.grid_size,
                "best_overall": dict(zip(self.combination.fields, self.best_overall,
                                         strict=True)),
                "best_overall_objective": self.best_overall_objective,
                "folds": [{"name": f.name, "weights": list(f.weights),
                           "train_objective": f.train_objective,
                           "heldout_objective": f.heldout_objective} for f in self.folds],
                "correlations": self.correlations}


def _row_corr(scores: Any, human: Any) -> Any:
    """Pearson of each row of ``scores`` (G x n) with ``human`` (n); nan for constant rows."""
    import numpy as np

    s = scores - scores.mean(axis=1, keepdims=True)
    h = human - human.mean()
    denom = np.sqrt((s * s).sum(axis=1)) * np.sqrt((h * h).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (s @ h) / denom
    r[denom == 0] = np.nan
    return r


def _score_matrix(fold: Fold, grid: Sequence[Weights], combo: LinearCombination) -> Any:
    import numpy as np

    if fold.sub_scores is not None:
        terms = np.array([combo.terms(fold.sub_scores[s]) for s in fold.systems])
        return np.asarray(grid, dtype=float) @ terms.T
    assert fold.scorer is not None
    rows = []
    for w in grid:
        got = fold.scorer(w)
        rows.append([float(got[s]) for s in fold.systems])
    return np.array(rows, dtype=float)


def fold_correlations(fold: Fold, grid: Sequence[Weights], combo: LinearCombination,
                      kinds: Sequence[str] = CORRELATIONS) -> dict[tuple[str, str], Any]:
    """Correlation arrays over the grid: ``{(ranking, kind): array(G)}``."""
    import numpy as np

    from gecscope._optional import require

    stats = require("scipy.stats", "stats", "trade-off search")
    bad = [k for k in kinds if k not in CORRELATIONS]
    if bad:
        raise ConfigError(f"unknown correlation(s) {', '.join(bad)}; use pearson, spearman")
    scores = _score_matrix(fold, grid, combo)
    ranked = stats.rankdata(scores, axis=1) if "spearman" in kinds else None
    out = {}
    for name, human in fold.human.items():
        h = np.array([float(human[s]) for s in fold.systems])
        for kind in kinds:
            if kind == "pearson":
                out[name, kind] = _row_corr(scores, h)
            else:
                out[name, kind] = _row_corr(ranked, stats.rankdata(h))
    return out


def _objective(corrs: Mapping[tuple[str, str], Any]) -> Any:
    import numpy as np

    stacked = np.vstack(list(corrs.values()))
    return stacked.mean(axis=0)


def _argmax(values: Any) -> int:
    import numpy as np

    clean = np.where(np.isnan(values), -np.inf, values)
    return int(np.argmax(clean))


def tradeoff_search(folds: Sequence[Fold], *, grid: Sequence[Weights] | None = None,
                    combination: LinearCombination | None = None,
                    kinds: Sequence[str] = CORRELATIONS) -> TradeoffResult:
    """Cross-validated grid search of combination weights (see the module doc).

    With one fold there is nothing to hold out: the fold is both training and test set.
    """
    import numpy as np

    combo = combination or LinearCombination()
    if not folds:
        raise ConfigError("the trade-off search needs at least one fold")
    grid = list(grid) if grid is not None else simplex_grid(len(combo.fields))
    if not grid or any(len(w) != len(combo.fields) for w in grid):
        raise ConfigError(f"the grid must hold {len(combo.fields)}-tuples of weights")
    per_fold = [_objective(fold_correlations(f, grid, combo, kinds)) for f in folds]
    results = []
    for i, fold in enumerate(folds):
        train = [per_fold[j] for j in range(len(folds)) if j != i] or [per_fold[i]]
        train_obj = np.vstack(train).mean(axis=0)
        best = _argmax(train_obj)
        results.append(FoldResult(fold.name, tuple(grid[best]), float(train_obj[best]),
                                  float(per_fold[i][best])))
    # max() keeps the first of equal maxima, so ties go to the earliest fold.
    chosen = max(results, key=lambda r: np.nan_to_num(r.heldout_objective, nan=-np.inf))
    overall = np.vstack(per_fold).mean(axis=0)
    best_all = _argmax(overall)
    correlations: dict[str, dict[str, dict[str, float]]] = {}
    for fold in folds:
        corrs = fold_correlations(fold, [chosen.weights], combo, kinds)
        table: dict[str, dict[str, float]] = {}
        for (ranking, kind), arr in corrs.items():
            table.setdefault(ranking, {})[kind] = float(arr[0])
        correlations[fold.name] = table
    return TradeoffResult(chosen.weights, results, correlations, tuple(grid[best_all]),
                          float(overall[best_all]), len(grid), combo)


def reaggregating_scorer(make_metric: Callable[[Weights], Any],
                         stats: Mapping[str, Sequence[Any]]) -> Callable[[Weights], dict[str,
                                                                                      float]]:
    """A fold scorer that rebuilds the metric with the weights and re-aggregates stored
    per-sentence statistics (exact when the weights also steer reference selection).
    Results are memoised per weights, so folds sharing the scorer compute each point once."""

    memo: dict[Weights, dict[str, float]] = {}

    def score(weights: Weights) -> dict[str, float]:
        key = tuple(weights)
        if key not in memo:
            metric = make_metric(key)
            memo[key] = {s: float(metric.aggregate(st).value) for s, st in stats.items()}
        return memo[key]

    return score

"""Trade-off factor search: the grid, exact recovery of known factors, cross-validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.meta_eval.tradeoff import (
    Fold,
    LinearCombination,
    reaggregating_scorer,
    simplex_grid,
    tradeoff_search,
)
from gecscope.metrics.base import Metric, Score

pytest.importorskip("scipy")

# Sub-scores of five systems; the "human" score is exactly .7*Hit + .3*(1-Wrong).
SUBS = {
    "s1": {"Hit": 0.9, "Wrong": 0.5},
    "s2": {"Hit": 0.7, "Wrong": 0.1},
    "s3": {"Hit": 0.5, "Wrong": 0.0},
    "s4": {"Hit": 0.3, "Wrong": 0.6},
    "s5": {"Hit": 0.8, "Wrong": 0.9},
}
TRUE = {s: 0.7 * v["Hit"] + 0.3 * (1 - v["Wrong"]) for s, v in SUBS.items()}
COMBO = LinearCombination(("Hit", "Wrong"), (False, True))


def test_grid_sizes_and_points() -> None:
    assert len(simplex_grid(4, 0.05)) == 969  # C(19, 3): strictly positive weights
    assert len(simplex_grid(4, 0.05, include_zero=True)) == 1771  # C(23, 3)
    assert simplex_grid(2, 0.25) == [(0.25, 0.75), (0.5, 0.5), (0.75, 0.25)]
    assert all(abs(sum(w) - 1) < 1e-9 for w in simplex_grid(4, 0.05))
    assert simplex_grid(3, 0.5) == []
    with pytest.raises(ConfigError):
        simplex_grid(4, 0.3)


def test_linear_combination() -> None:
    assert COMBO(SUBS["s1"], (0.7, 0.3)) == pytest.approx(TRUE["s1"])
    cleme = LinearCombination()
    assert cleme({"Hit": 0.5, "Wrong": 0.2, "Under": 0.4, "Over": 0.1},
                 (0.45, 0.35, 0.15, 0.05)) == pytest.approx(
        0.45 * 0.5 + 0.35 * 0.8 + 0.15 * 0.6 + 0.05 * 0.9)
    with pytest.raises(ConfigError, match="not among the metric's fields"):
        cleme({"Hit": 1.0}, (1, 0, 0, 0))


def test_recovers_known_factors() -> None:
    fold = Fold("all", {"human": TRUE}, list(SUBS), sub_scores=SUBS)
    result = tradeoff_search([fold], grid=simplex_grid(2, 0.1), combination=COMBO,
                             kinds=["pearson"])
    assert result.weights == pytest.approx((0.7, 0.3))
    assert result.correlations == {"all": {"human": {"pearson": pytest.approx(1.0)}}}
    assert result.cv_objective == pytest.approx(1.0)
    assert result.grid_size == 9


def test_cross_validation_picks_the_best_heldout_fold() -> None:
    # fold "b" disagrees with "a" and "c"; training without b finds the true factors
    noisy = {"s1": 0.0, "s2": 1.0, "s3": 0.5, "s4": 0.2, "s5": 0.9}
    folds = [Fold("a", {"h": TRUE}, list(SUBS), sub_scores=SUBS),
             Fold("b", {"h": noisy}, list(SUBS), sub_scores=SUBS),
             Fold("c", {"h": TRUE}, list(SUBS), sub_scores=SUBS)]
    result = tradeoff_search(folds, grid=simplex_grid(2, 0.1), combination=COMBO,
                             kinds=["pearson"])
    by_name = {f.name: f for f in result.folds}
    assert by_name["b"].weights == pytest.approx((0.7, 0.3))
    assert by_name["b"].train_objective == pytest.approx(1.0)
    # the chosen factors are those of the fold with the best held-out correlation
    best = max(result.folds, key=lambda f: f.heldout_objective)
    assert result.weights == best.weights
    assert set(result.correlations) == {"a", "b", "c"}
    assert result.as_dict()["weights"] == dict(zip(("Hit", "Wrong"), result.weights,
                                                   strict=True))


def test_fold_validation() -> None:
    with pytest.raises(ConfigError, match="either sub_scores or a scorer"):
        Fold("x", {"h": TRUE}, list(SUBS))
    with pytest.raises(ConfigError, match="at least 3 systems"):
        Fold("x", {"h": TRUE}, ["s1", "s2"], sub_scores=SUBS)
    with pytest.raises(ConfigError, match="at least one fold"):
        tradeoff_search([])


class ToySubScoreMetric(Metric):
    """Per sentence: Hit = 1 if the hypothesis has more than 3 tokens, Wrong = 1 if it has a
    comma; the corpus score combines the means with the configured weights."""

    name: ClassVar[str] = "toysub"

    @dataclass(frozen=True)
    class Config:
        w_hit: float = 0.5
        w_wrong: float = 0.5

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[tuple[int, int]]:
        return [(int(len(t) > 3), int("," in t)) for t in hyp.tokens]

    def aggregate(self, stats: Sequence[tuple[int, int]]) -> Score:
        n = max(len(stats), 1)
        hit = sum(s[0] for s in stats) / n
        wrong = sum(s[1] for s in stats) / n
        value = self.config.w_hit * hit + self.config.w_wrong * (1 - wrong)
        return Score(self.name, value, {"Hit": hit, "Wrong": wrong}, main="score")


def test_reaggregating_scorer_matches_the_fields_path() -> None:
    outputs = {
        "s1": ["a b c d", "a , b", "x y z w v"],
        "s2": ["a", "b , c d e", "c , d e f"],
        "s3": ["a b c d e", "f g h i", "j"],
        "s4": ["a , b c d", "e", "f"],
    }
    metric = ToySubScoreMetric()
    data = EvalData((), None)
    stats = {s: metric.sentence_stats(data, Hypothesis(s, [tuple(x.split()) for x in lines]))
             for s, lines in outputs.items()}
    subs = {s: dict(metric.aggregate(st).fields) for s, st in stats.items()}
    human = {"s1": 0.9, "s2": 0.1, "s3": 0.8, "s4": 0.3}
    grid = simplex_grid(2, 0.1)
    fast = tradeoff_search([Fold("f", {"h": human}, list(outputs), sub_scores=subs)],
                           grid=grid, combination=COMBO)
    scorer = reaggregating_scorer(lambda w: ToySubScoreMetric(w_hit=w[0], w_wrong=w[1]), stats)
    slow = tradeoff_search([Fold("f", {"h": human}, list(outputs), scorer=scorer)],
                           grid=grid, combination=COMBO)
    assert slow.weights == fast.weights
    assert slow.correlations["f"]["h"] == pytest.approx(fast.correlations["f"]["h"])
    assert fast.folds[0].heldout_objective == pytest.approx(
        (fast.correlations["f"]["h"]["pearson"] + fast.correlations["f"]["h"]["spearman"]) / 2)

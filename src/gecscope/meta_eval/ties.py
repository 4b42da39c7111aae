"""Tie-calibrated pairwise accuracy (acc_eq) and tau_eq (Deutsch et al. 2023, "Ties Matter",
arXiv 2305.14324): the sentence-level figure WMT reports since 2023.

Every ranking item (one judge, one sentence) is a group. Within it, every pair of the chosen
systems is concordant, discordant, tied by the humans only, by the metric only, or by both.
A metric score difference of at most ``epsilon`` counts as a metric tie, and ``epsilon`` is
chosen to maximise the statistic: acc_eq = (concordant + tied by both) / pairs,
tau_eq = (concordant + tied by both - discordant - tied by one side) / pairs, each averaged
over the items (mt-metrics-eval's ``KendallWithTiesOpt`` with ``average_by="item"``). Unlike
the uncalibrated accuracy (:mod:`~.sentence`), human ties count, and a metric tie is neither a
free win nor a loss of whichever system comes first: the metric gets credit for a tie exactly
when the humans tied too.

The search (:func:`calibrate`) sweeps the pairs by increasing metric difference, turning each
into a metric tie, and keeps the best threshold (the first of equal maxima), with the same
arithmetic, order and sums as mt-metrics-eval's ``tau_optimization`` at ``sample_rate=1``, so
its values are reproduced exactly. Human score = minus the rank (rank 1 best).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gecscope.errors import ConfigError
from gecscope.judgments import Judgments
from gecscope.meta_eval.significance import Interval, mean_interval

CON, DIS, TIE_HUMAN, TIE_METRIC, TIE_BOTH = range(5)
VARIANTS = ("acc_eq", "tau_eq")


def _value(variant: str, c: list[int], n: int) -> float:
    if variant == "acc_eq":
        return (c[CON] + c[TIE_BOTH]) / n
    return (c[CON] + c[TIE_BOTH] - c[DIS] - c[TIE_HUMAN] - c[TIE_METRIC]) / n


@dataclass(frozen=True)
class Pairs:
    """The compared pairs: group (item) of each, metric difference, outcome code untied and
    with a metric tie."""

    group: tuple[int, ...]
    diff: tuple[float, ...]
    code: tuple[int, ...]
    tie_code: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.diff)


def enumerate_pairs(human: Sequence[Sequence[float | None]],
                    metric: Sequence[Sequence[float | None]]) -> Pairs:
    """Pairs of every row of two (groups x systems) matrices, ``None`` = not compared; pairs
    are listed row by row, ``i < j`` in column order."""
    group: list[int] = []
    diff: list[float] = []
    code: list[int] = []
    tie: list[int] = []
    if len(human) != len(metric):
        raise ConfigError(f"human and metric matrices differ in rows: {len(human)} vs "
                          f"{len(metric)}")
    for r, (hrow, mrow) in enumerate(zip(human, metric, strict=True)):
        cells = [(h, m) for h, m in zip(hrow, mrow, strict=True)
                 if h is not None and m is not None]
        for i, (h1, m1) in enumerate(cells):
            for h2, m2 in cells[i + 1:]:
                group.append(r)
                diff.append(abs(m1 - m2))
                if h1 == h2:
                    code.append(TIE_BOTH if m1 == m2 else TIE_HUMAN)
                    tie.append(TIE_BOTH)
                    continue
                tie.append(TIE_METRIC)
                if m1 == m2:
                    code.append(TIE_METRIC)
                elif (h1 > h2) == (m1 > m2):
                    code.append(CON)
                else:
                    code.append(DIS)
    return Pairs(tuple(group), tuple(diff), tuple(code), tuple(tie))


@dataclass(frozen=True)
class Calibration:
    """Result of one tie calibration: the best value, its threshold, every candidate
    threshold with its value, and the per-group values at the best threshold."""

    variant: str
    value: float
    epsilon: float
    thresholds: tuple[float, ...] = field(repr=False)
    values: tuple[float, ...] = field(repr=False)
    group_values: tuple[float, ...] = field(repr=False)


def calibrate(pairs: Pairs, variant: str = "acc_eq") -> Calibration:
    """Search the metric-tie threshold that maximises ``variant`` averaged over the groups."""
    if variant not in VARIANTS:
        raise ConfigError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    groups = sorted(set(pairs.group))
    if not groups:
        return Calibration(variant, math.nan, 0.0, (0.0,), (math.nan,), ())
    counts = {g: [0, 0, 0, 0, 0] for g in groups}
    sizes = dict.fromkeys(groups, 0)
    for g, code in zip(pairs.group, pairs.code, strict=True):
        counts[g][code] += 1
        sizes[g] += 1
    total = sum(_value(variant, counts[g], sizes[g]) for g in groups)
    n = len(groups)
    thresholds = [0.0]
    values = [total / n]
    order = sorted(range(len(pairs)), key=pairs.diff.__getitem__)
    for k in order:
        g = pairs.group[k]
        c = counts[g]
        total -= _value(variant, c, sizes[g])
        c[pairs.code[k]] -= 1
        c[pairs.tie_code[k]] += 1
        total += _value(variant, c, sizes[g])
        d = pairs.diff[k]
        if thresholds[-1] == d:
            values[-1] = total / n
        else:
            thresholds.append(d)
            values.append(total / n)
    best = max(range(len(values)), key=lambda i: (values[i], -i))
    eps = thresholds[best]
    at_best = {g: [0, 0, 0, 0, 0] for g in groups}
    for g, d, code, t in zip(pairs.group, pairs.diff, pairs.code, pairs.tie_code,
                             strict=True):
        at_best[g][t if d <= eps else code] += 1
    return Calibration(variant, values[best], eps, tuple(thresholds), tuple(values),
                       tuple(_value(variant, at_best[g], sizes[g]) for g in groups))


@dataclass(frozen=True)
class TieCalibrated:
    """acc_eq and tau_eq of a metric against one judgment file, with their thresholds and
    bootstrap intervals (over ranking items, threshold fixed)."""

    acc_eq: float
    acc_epsilon: float
    tau_eq: float
    tau_epsilon: float
    items: int
    pairs: int
    acc_interval: Interval
    tau_interval: Interval

    def as_dict(self) -> dict[str, object]:
        return {"acc_eq": self.acc_eq, "acc_eq_epsilon": self.acc_epsilon,
                "acc_eq_interval": self.acc_interval.as_list(),
                "tau_eq": self.tau_eq, "tau_eq_epsilon": self.tau_epsilon,
                "tau_eq_interval": self.tau_interval.as_list(),
                "items": self.items, "pairs": self.pairs,
                "interval_level": self.acc_interval.level}


def judgment_matrices(judgments: Judgments, sentence_scores: Mapping[str, Sequence[float]],
                      systems: Sequence[str], *, rows: Mapping[int, int] | None = None,
                      higher_is_better: bool = True
                      ) -> tuple[list[list[float | None]], list[list[float | None]]]:
    """(items x systems) human scores (minus the rank) and metric sentence scores (negated
    when lower is better); ``None`` where the item did not rank the system or the metric
    score is NaN. ``rows`` maps a 0-based test-set sentence to its score row (identity when
    None)."""
    names = list(dict.fromkeys(systems))
    missing = [s for s in names if s not in sentence_scores]
    if missing:
        raise ConfigError(f"no sentence scores for system(s) {', '.join(missing)}")
    sign = 1.0 if higher_is_better else -1.0
    human: list[list[float | None]] = []
    metric: list[list[float | None]] = []
    for item in judgments:
        row = item.sentence if rows is None else rows.get(item.sentence)
        if row is None:
            raise ConfigError(f"judged sentence {item.sentence} (0-based) has no metric score row")
        ranks = item.ranks
        hrow: list[float | None] = []
        mrow: list[float | None] = []
        for s in names:
            v = float(sentence_scores[s][row])
            if s in ranks and not math.isnan(v):
                hrow.append(-float(ranks[s]))
                mrow.append(sign * v)
            else:
                hrow.append(None)
                mrow.append(None)
        human.append(hrow)
        metric.append(mrow)
    return human, metric


def tie_calibrated_agreement(judgments: Judgments,
                             sentence_scores: Mapping[str, Sequence[float]],
                             systems: Sequence[str], *, rows: Mapping[int, int] | None = None,
                             higher_is_better: bool = True, resamples: int = 1000,
                             seed: int = 0) -> TieCalibrated:
    """acc_eq and tau_eq (each with its own calibrated threshold) of a metric's sentence
    scores against the ranking items of ``judgments`` (see the module doc)."""
    human, metric = judgment_matrices(judgments, sentence_scores, systems, rows=rows,
                                      higher_is_better=higher_is_better)
    pairs = enumerate_pairs(human, metric)
    acc = calibrate(pairs, "acc_eq")
    tau = calibrate(pairs, "tau_eq")
    return TieCalibrated(acc.value, acc.epsilon, tau.value, tau.epsilon,
                         len(acc.group_values), len(pairs),
                         mean_interval(acc.group_values, resamples=resamples, seed=seed),
                         mean_interval(tau.group_values, resamples=resamples, seed=seed))


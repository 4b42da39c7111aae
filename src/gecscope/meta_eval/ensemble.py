"""The rank ensemble of Goto et al. (2025, "Reliability Crisis of Reference-free Metrics for
GEC"), their defence against attacks on single metrics.

Defined on a set of systems, not on one output: each member metric ranks the systems by its
system score (rank 1 = best; systems with equal scores share the best of their ranks, as in
the paper's code, ``sorted(scores, reverse=True).index(s) + 1``), and a system's ensemble
score is the mean of its negative ranks over the metrics (higher is better, at most -1). So it
is a system-level combinator, not a :class:`~gecscope.metrics.base.Metric`: adding or removing
a system can change every other system's ensemble score. An attack that fools one metric
moves up one rank list only.

:func:`rank_ensemble` combines system scores; :func:`negative_ranks` does it on arrays of
bootstrap resamples (the audit's significance test); :func:`ensemble_row` makes the row of
``gecscope meta-eval table --ensemble``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from gecscope.meta_eval.benchmarks import Benchmark
    from gecscope.meta_eval.runner import MetricRow
    from gecscope.metrics.base import Metric


def rank_ensemble(scores: Mapping[str, Mapping[str, float]],
                  systems: Sequence[str] | None = None) -> dict[str, float]:
    """``{system: mean negative rank}`` over the metrics of ``scores``
    (``{metric: {system: score}}``, higher = better), on ``systems`` (default: the first
    metric's systems; every metric must score all of them)."""
    if not scores:
        raise ConfigError("the rank ensemble needs at least one metric")
    names = list(systems) if systems is not None else list(next(iter(scores.values())))
    if not names:
        raise ConfigError("the rank ensemble needs at least one system")
    total = dict.fromkeys(names, 0.0)
    for metric, by_system in scores.items():
        missing = [s for s in names if s not in by_system]
        if missing:
            raise ConfigError(f"metric {metric!r} has no score for {', '.join(missing)}")
        values = [float(by_system[s]) for s in names]
        for s, v in zip(names, values, strict=True):
            total[s] -= 1 + sum(1 for w in values if w > v)
    return {s: t / len(scores) for s, t in total.items()}


def negative_ranks(samples: np.ndarray) -> np.ndarray:
    """Negative ranks per column: ``samples`` is ``(systems, resamples)`` of one metric; the
    result, of the same shape, is ``-(1 + number of systems scoring strictly more)``, the
    tie rule of :func:`rank_ensemble`."""
    import numpy as np

    x = np.asarray(samples, dtype=np.float64)
    above = (x[None, :, :] > x[:, None, :]).sum(axis=1)
    return -(1.0 + above)


def ensemble_label(members: Sequence[str]) -> str:
    """The row label of an ensemble: ``RankEns(m2+gleu+...)``."""
    return "RankEns(" + "+".join(members) + ")"


def ensemble_row(benchmarks: Sequence[Benchmark], members: Sequence[str], *,
                 make_metric: Callable[[str], Metric] | None = None,
                 system_set: str = "base", aggregation: str = "default", jobs: int = 1,
                 progress: Callable[[str], None] | None = None) -> MetricRow:
    """The table row of the rank ensemble of ``members`` on every benchmark: each member's
    system scores (corpus scores for ``aggregation="default"``, else its TrueSkill / Expected
    Wins rating over sentence comparisons, as the paper's ``trueskill`` variant) on the
    benchmark's system set, combined by :func:`rank_ensemble` and correlated with each human
    ranking. A member that cannot run is an error (an ensemble without it would be another
    ensemble)."""
    from gecscope.meta_eval.runner import (
        MetricRow,
        evaluate_systems,
        system_correlations,
        system_scores,
    )
    from gecscope.registry import get_metric

    if not members:
        raise ConfigError("the rank ensemble needs at least one metric")
    factory = make_metric or (lambda name: get_metric(name)())
    metrics = [factory(m) for m in members]
    labels = [getattr(m, "name", "") or spec for m, spec in zip(metrics, members, strict=True)]
    suffix = {"default": "", "trueskill": "+TS", "expected_wins": "+EW"}.get(aggregation)
    if suffix is None:
        raise ConfigError(f"unknown aggregation {aggregation!r}")
    row = MetricRow(ensemble_label(labels) + suffix, kind="ensemble")
    for bench in benchmarks:
        systems = bench.ordered(bench.select(system_set if bench.system_sets else "all"))
        per_metric: dict[str, dict[str, float]] = {}
        for label, metric in zip(labels, metrics, strict=True):
            if progress:
                progress(f"ensemble member {label} on {bench.name}")
            results = evaluate_systems(metric, bench, systems, jobs)
            per_metric[label] = system_scores(results, "corpus", aggregation,
                                              systems=systems)
        row.correlations[bench.name] = system_correlations(
            bench, rank_ensemble(per_metric, systems), systems)
    return row


def parse_members(text: str) -> list[str]:
    """``"m2,gleu,green"`` -> the member metric names (at least one, each once)."""
    names = list(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not names:
        raise ConfigError(f"--ensemble expects a comma-separated list of metrics, got {text!r}")
    return names


def describe() -> dict[str, Any]:
    """What the ensemble is (for JSON outputs)."""
    return {"definition": "mean over metrics of -(rank), rank 1 = best, equal scores share "
                          "the best rank (Goto et al. 2025, rank ensemble)",
            "higher_is_better": True}

"""Meta-evaluate metrics on a benchmark: score every system once, then correlate.

The functions here glue the metric interface (:class:`~gecscope.metrics.base.Metric`) to the
benchmarks, rankings and correlations; ``gecscope meta-eval`` is a thin layer over them.
A system's score is its corpus score (``level="corpus"``), the mean of its sentence scores
(``level="sentence"``, the paper's "Sent" variants), or, with ``aggregation="trueskill"`` or
``"expected_wins"``, its rating over the pairwise comparisons its sentence scores imply (Goto et
al. 2025; :func:`~gecscope.meta_eval.ranking.aggregate_sentence_scores`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError
from gecscope.meta_eval.benchmarks import Benchmark
from gecscope.meta_eval.correlation import Correlation, correlate
from gecscope.meta_eval.ranking import (
    TrueSkillParams,
    aggregate_sentence_scores,
    check_aggregation,
)
from gecscope.meta_eval.sentence import SentenceAgreement, sentence_agreement

if TYPE_CHECKING:
    from gecscope.meta_eval.significance import Interval, Ranking, SoftPairwiseAccuracy
    from gecscope.meta_eval.ties import PairOutcomes, TieCalibrated
from gecscope.metrics.base import Metric, SystemResult

LEVELS = ("corpus", "sentence")


def evaluate_systems(metric: Metric, bench: Benchmark, systems: Sequence[str] | None = None,
                     jobs: int = 1) -> dict[str, SystemResult]:
    """Run ``metric`` on every system's output (the benchmark's shared references/cache), on
    ``jobs`` processes (``0``: every core; results identical to one process), through the one
    scoring path (:func:`gecscope.evaluate`: alignment, checks and warnings alike)."""
    from gecscope.evaluation import evaluate

    names = list(systems) if systems is not None else list(bench.systems)
    results = evaluate(metric, bench.data, [bench.hypotheses[s] for s in names], jobs=jobs)
    return dict(zip(names, results, strict=True))


def sentence_score_table(results: Mapping[str, SystemResult]) -> dict[str, list[float]]:
    """``{system: sentence scores}``; ConfigError when the metric defines none."""
    out = {}
    for s, r in results.items():
        if r.sentence_scores is None:
            raise ConfigError(f"metric {r.metric!r} has no sentence-level scores")
        out[s] = list(r.sentence_scores)
    return out


def system_scores(results: Mapping[str, SystemResult], level: str = "corpus",
                  aggregation: str = "default", *, systems: Sequence[str] | None = None,
                  params: TrueSkillParams | None = None,
                  higher_is_better: bool = True) -> dict[str, float]:
    """One score per system: the corpus score or the mean sentence score (``aggregation=
    "default"``), or the TrueSkill / Expected Wins rating over the sentence comparisons
    (``"trueskill"``, ``"expected_wins"``), made in the order of ``systems`` (default: the order
    of ``results``; :meth:`Benchmark.ordered` gives gec-metrics' order). ``level`` only applies
    to the default aggregation."""
    if level not in LEVELS:
        raise ConfigError(f"level must be corpus or sentence, got {level!r}")
    check_aggregation(aggregation)
    if aggregation != "default":
        if level != "corpus":
            raise ConfigError(f"level={level!r} applies to the default aggregation only; "
                              f"{aggregation} always rates the sentence scores")
        order = list(systems) if systems is not None else list(results)
        table = sentence_score_table({s: results[s] for s in order})
        return aggregate_sentence_scores(table, order, aggregation, params=params,
                                         higher_is_better=higher_is_better)
    if level == "corpus":
        return {s: float(r.score.value) for s, r in results.items()}
    return {s: _mean(vals) for s, vals in sentence_score_table(results).items()}


def system_correlations(bench: Benchmark, scores: Mapping[str, float],
                        systems: Sequence[str]) -> dict[str, Correlation]:
    """Correlation with each of the benchmark's human rankings."""
    return {key: correlate(scores, human, systems) for key, human in bench.human.items()}


def sentence_correlations(bench: Benchmark, sentence_scores: Mapping[str, Sequence[float]],
                          systems: Sequence[str], ties: str = "disagree",
                          higher_is_better: bool = True) -> dict[str, SentenceAgreement]:
    """Pairwise agreement with each judgment file of the benchmark. Pairs are oriented in the
    benchmark's comparison order (:meth:`Benchmark.ordered`), which decides the metric-tie rule
    ``first-loses`` exactly as SEEDA's and gec-metrics' scripts do."""
    rows = bench.rows
    order = bench.ordered(systems)
    return {level: sentence_agreement(j, sentence_scores, order, rows=rows, ties=ties,
                                      higher_is_better=higher_is_better)
            for level, j in bench.judgments.items()}


ROW_SUFFIX = {"trueskill": "+TS", "expected_wins": "+EW"}
"""Label suffix of table rows whose system scores rate the sentence comparisons."""


@dataclass
class MetricRow:
    """One table row: a metric's system scores formed one way (``kind``: ``corpus``,
    ``sentence`` = mean sentence score, ``trueskill``, ``expected_wins``), their correlations
    per benchmark and human ranking, and, for rows built from sentence scores, the sentence-
    level agreement of those scores per benchmark and judgment file.

    The WMT-grade figures (:func:`add_wmt_statistics`): ``intervals[bench][ranking][stat]``
    (bootstrap over systems), ``calibrated[bench][level]`` (acc_eq/tau_eq, rows built from
    sentence scores) and ``spa[bench][level]`` (soft pairwise accuracy, ``SentX`` rows only:
    its system score is the sum of the sentence scores)."""

    label: str
    correlations: dict[str, dict[str, Correlation]] = field(default_factory=dict)
    sentence: dict[str, dict[str, SentenceAgreement]] = field(default_factory=dict)
    kind: str = "corpus"
    intervals: dict[str, dict[str, dict[str, Interval]]] = field(default_factory=dict)
    calibrated: dict[str, dict[str, TieCalibrated]] = field(default_factory=dict)
    spa: dict[str, dict[str, SoftPairwiseAccuracy]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """Every figure of the row (JSON-ready)."""
        return {
            "label": self.label, "kind": self.kind,
            "correlations": {b: {k: {**c.as_dict(), "intervals": {
                st: iv.as_list() for st, iv in self.intervals.get(b, {}).get(k, {}).items()}}
                for k, c in cs.items()} for b, cs in self.correlations.items()},
            "sentence": {b: {lv: {**a.as_dict(), **({"calibrated": self.calibrated[b][lv]
                                                     .as_dict()}
                                                  if lv in self.calibrated.get(b, {}) else {}),
                                  **({"spa": self.spa[b][lv].as_dict()}
                                     if lv in self.spa.get(b, {}) else {})}
                             for lv, a in ag.items()} for b, ag in self.sentence.items()},
        }


@dataclass
class TableResult:
    rows: list[MetricRow]
    skipped: dict[str, str]
    seconds: dict[str, float]
    system_sets: dict[str, str]
    ties: str = "disagree"
    rankings: dict[str, dict[str, Ranking]] = field(default_factory=dict)
    """Significance clusters per benchmark and human ranking (Pearson)."""
    sentence_rankings: dict[str, dict[str, Ranking]] = field(default_factory=dict)
    """Sentence-level significance clusters of the ``SentX`` rows' acc_eq, per benchmark and
    judgment file (:func:`~gecscope.meta_eval.ties.compare_calibrated`)."""
    levels: dict[str, dict[str, str]] = field(default_factory=dict)
    """Judgment level behind each human ranking, per benchmark."""
    settings: dict[str, object] = field(default_factory=dict)
    """Permutations, resamples, seeds and alpha of the WMT-grade statistics."""

    def as_dict(self) -> dict[str, object]:
        """Every figure of the table (JSON-ready)."""
        return {"rows": [r.as_dict() for r in self.rows], "skipped": self.skipped,
                "seconds": self.seconds, "system_sets": self.system_sets, "ties": self.ties,
                "levels": self.levels, "settings": self.settings,
                "clusters": {b: {k: r.as_dict() for k, r in ks.items()}
                             for b, ks in self.rankings.items()},
                "sentence_clusters": {b: {lv: r.as_dict() for lv, r in ls.items()}
                                      for b, ls in self.sentence_rankings.items()}}


def build_table(benchmarks: Sequence[Benchmark], metrics: Sequence[str], *,
                make_metric: Callable[[str], Metric] | None = None, ties: str = "disagree",
                system_set: str = "base", aggregations: Sequence[str] = ("default",),
                progress: Callable[[str], None] | None = None, jobs: int = 1,
                statistics: bool = True, permutations: int = 1000, resamples: int = 1000,
                seed: int = 0, alpha: float = 0.05, sentence_test: str = "sign") -> TableResult:
    """Correlations of every metric on every benchmark, one row per way of forming system
    scores: ``aggregations`` ``default`` gives the corpus-score row and, where the metric
    defines sentence scores, the mean-sentence-score row (``SentX``); ``trueskill`` and
    ``expected_wins`` give rows rating the sentence comparisons (``X+TS``, ``X+EW``). Rows
    built from sentence scores also carry the sentence-level agreement of those scores with
    every judgment file. A metric that cannot run (missing extra, needs inputs the benchmark
    lacks, or fails) is skipped with the reason, so one broken metric does not stop the table.

    ``statistics`` adds the WMT-grade figures (:func:`add_wmt_statistics`: intervals, SPA,
    acc_eq/tau_eq, significance clusters) with ``permutations`` (SPA and the metric tests; 0
    leaves out SPA and the clusters), ``resamples`` (bootstrap), ``seed``, ``alpha`` and
    ``sentence_test`` (how the acc_eq clusters' permutations are drawn:
    :data:`~gecscope.meta_eval.ties.SENTENCE_TESTS`)."""
    from gecscope.meta_eval.ties import SENTENCE_TESTS
    from gecscope.registry import get_metric

    if sentence_test not in SENTENCE_TESTS:
        raise ConfigError(f"sentence test must be one of {', '.join(SENTENCE_TESTS)}, got "
                          f"{sentence_test!r}")

    aggs = list(dict.fromkeys(check_aggregation(a) for a in aggregations))
    if not aggs:
        raise ConfigError("give at least one aggregation")
    factory = make_metric or (lambda name: get_metric(name)())
    rows: list[MetricRow] = []
    human_p: dict[tuple[str, str], Any] = {}
    skipped: dict[str, str] = {}
    seconds: dict[str, float] = {}
    sets = {b.name: (system_set if b.system_sets else "all") for b in benchmarks}
    for name in metrics:
        start = time.perf_counter()
        try:
            metric = factory(name)
            label = getattr(metric, "name", "") or name
            corpus_row = MetricRow(label)
            sent_rows = ([MetricRow(f"Sent{label}", kind="sentence")] if "default" in aggs
                         else [])
            sent_rows += [MetricRow(f"{label}{ROW_SUFFIX[a]}", kind=a) for a in aggs
                          if a != "default"]
            has_sentence = True
            for bench in benchmarks:
                if progress:
                    progress(f"{name} on {bench.name}")
                systems = bench.ordered(bench.select(sets[bench.name]))
                results = evaluate_systems(metric, bench, systems, jobs)
                corpus_row.correlations[bench.name] = system_correlations(
                    bench, system_scores(results, "corpus"), systems)
                if has_sentence and all(r.sentence_scores is not None for r in results.values()):
                    table = sentence_score_table(results)
                    agreement = sentence_correlations(bench, table, systems, ties)
                    if statistics:
                        if progress:
                            progress(f"{name} on {bench.name}: SPA and tie calibration")
                        calibrated, spa = _sentence_statistics(
                            bench, table, systems, human_p, permutations, resamples, seed)
                    for row in sent_rows:
                        if row.kind == "sentence":
                            scores = {s: _mean(v) for s, v in table.items()}
                        else:
                            if progress:
                                progress(f"{name} on {bench.name}: {row.kind} over sentence "
                                         "comparisons")
                            scores = aggregate_sentence_scores(table, systems, row.kind)
                        row.correlations[bench.name] = system_correlations(bench, scores,
                                                                           systems)
                        row.sentence[bench.name] = agreement
                        if statistics:
                            row.calibrated[bench.name] = calibrated
                            if row.kind == "sentence" and spa:
                                row.spa[bench.name] = spa
                else:
                    has_sentence = False
        except Exception as exc:  # noqa: BLE001 - a failing metric is reported, not fatal
            # one line, so that a long message stays one Markdown list item
            skipped[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            continue
        finally:
            seconds[name] = time.perf_counter() - start
        if "default" in aggs:
            rows.append(corpus_row)
        if has_sentence:
            rows += sent_rows
        elif "default" not in aggs:
            skipped[name] = (f"metric {label!r} defines no sentence scores, which "
                             f"{', '.join(aggs)} aggregation rates")
    result = TableResult(rows, skipped, seconds, sets, ties,
                         levels={b.name: dict(b.levels) for b in benchmarks})
    if statistics:
        if progress:
            progress("significance clusters and intervals")
        add_wmt_statistics(result, permutations=permutations, resamples=resamples, seed=seed,
                           alpha=alpha, sentence_test=sentence_test)
    return result


def _sentence_statistics(bench: Benchmark, table: Mapping[str, Sequence[float]],
                         systems: Sequence[str], human_p: dict[tuple[str, str], Any],
                         permutations: int, resamples: int, seed: int
                         ) -> tuple[dict[str, Any], dict[str, Any]]:
    """acc_eq/tau_eq and SPA of one metric's sentence scores per judgment file; the humans'
    pairwise p-values are computed once per benchmark and file (``human_p``)."""
    from gecscope.meta_eval.significance import (
        SPA_SEED,
        human_pairwise_p_values,
        metric_spa,
    )
    from gecscope.meta_eval.ties import tie_calibrated_agreement

    order = bench.ordered(systems)
    calibrated, spa = {}, {}
    for level, judgments in bench.judgments.items():
        calibrated[level] = tie_calibrated_agreement(judgments, table, order, rows=bench.rows,
                                                     resamples=resamples, seed=seed)
        if permutations > 0:
            key = (bench.name, level)
            if key not in human_p:
                human_p[key] = human_pairwise_p_values(judgments, order, permutations,
                                                       SPA_SEED)
            spa[level] = metric_spa(judgments, table, order, permutations=permutations,
                                    seed=SPA_SEED, human_p=human_p[key], resamples=resamples,
                                    bootstrap_seed=seed)
    return calibrated, spa


INTERVAL_STATISTICS = ("pearson", "spearman")
CLUSTER_STATISTIC = "pearson"


def add_wmt_statistics(result: TableResult, *, permutations: int = 1000,
                       resamples: int = 1000, seed: int = 0, alpha: float = 0.05,
                       sentence_test: str = "sign") -> None:
    """Bootstrap intervals (over systems) on every row's Pearson and Spearman, the
    significance clusters of the rows per benchmark and human ranking (Pearson,
    :func:`~gecscope.meta_eval.significance.compare_metrics`) and the sentence-level clusters
    of the ``SentX`` rows' acc_eq per benchmark and judgment file
    (:func:`~gecscope.meta_eval.ties.compare_calibrated` with ``sentence_test``); the
    clusters are skipped when ``permutations`` is 0."""
    from gecscope.meta_eval.significance import (
        PermutationParams,
        compare_metrics,
        correlation_interval,
    )
    from gecscope.meta_eval.ties import compare_calibrated

    for row in result.rows:
        for bench, corrs in row.correlations.items():
            row.intervals[bench] = {
                key: {st: correlation_interval(st, c.human, c.metric, resamples=resamples,
                                               seed=seed) for st in INTERVAL_STATISTICS}
                for key, c in corrs.items()}
    result.settings = {"permutations": permutations, "resamples": resamples, "seed": seed,
                       "alpha": alpha, "cluster_statistic": CLUSTER_STATISTIC,
                       "sentence_cluster_statistic": "acc_eq",
                       "sentence_test": sentence_test,
                       "interval": "95% percentile bootstrap over systems (correlations; SPA "
                                   "with its p-value matrices fixed), over ranking items at "
                                   "the calibrated threshold (acc_eq)"}
    if permutations <= 0:
        return
    params = PermutationParams(permutations)
    verdicts: dict[tuple[str, str], dict[str, PairOutcomes]] = {}
    for row in result.rows:
        if row.kind != "sentence":  # X+TS / X+EW rows share SentX's sentence scores
            continue
        for bench, levels in row.calibrated.items():
            for level, cal in levels.items():
                if cal.outcomes is not None:
                    verdicts.setdefault((bench, level), {})[row.label] = cal.outcomes
    excluded: dict[str, dict[str, object]] = {}
    for (bench, level), outcomes in verdicts.items():
        keep, note = _sentence_cluster_group(outcomes)
        if note is not None:
            excluded[f"{bench}/{level}"] = note
        result.sentence_rankings.setdefault(bench, {})[level] = compare_calibrated(
            {m: outcomes[m] for m in keep}, alpha=alpha, seed=seed, params=params,
            test=sentence_test)
    if excluded:
        result.settings["sentence_clusters_excluded"] = excluded
    for bench in dict.fromkeys(b for row in result.rows for b in row.correlations):
        keys = dict.fromkeys(k for row in result.rows for k in row.correlations.get(bench, {}))
        for key in keys:
            with_key = [row for row in result.rows if key in row.correlations.get(bench, {})]
            gold = with_key[0].correlations[bench][key].human
            metrics = {row.label: row.correlations[bench][key].metric for row in with_key}
            result.rankings.setdefault(bench, {})[key] = compare_metrics(
                gold, metrics, CLUSTER_STATISTIC, alpha=alpha, seed=seed, params=params)


SKIP_HINT = ("A metric skipped with a ConfigError lacks something it needs: a local model "
             "directory or an endpoint, which `gecscope meta-eval table --option "
             "METRIC.KEY=VALUE` gives it (e.g. `--option scribendi.model=DIR`, `--option "
             "llm_sent.base_url=URL --option llm_sent.model=NAME`; the reason names the "
             "options), or inputs the benchmark does not have (references: `--m2`).")
"""Printed under the skipped metrics when a metric was not configured."""


def _fmt(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.3f}"


def render_markdown(result: TableResult, *, title: str = "Meta-evaluation",
                    notes: Sequence[str] = ()) -> str:
    """Markdown: GJG15 in the layout of the CLEME2.0 paper's Table 1 (EW/TS x Pearson/
    Spearman), SEEDA in the layout of its Table 2 (SEEDA-S/SEEDA-E, TrueSkill) and the same
    with Expected Wins. The GJG15 and SEEDA TrueSkill tables carry the sentence-level columns
    (pairwise accuracy and Kendall-like tau per judgment file) next to the system-level ones,
    filled on rows built from sentence scores and ``–`` on corpus-score rows."""
    lines = [f"# {title}", ""]
    lines += list(notes)
    if notes:
        lines.append("")
    has = {name for row in result.rows for name in row.correlations}
    if any(row.intervals for row in result.rows):
        lines += render_wmt_sections(result)
    if "gjg15" in has:
        lines += ["## GJG15 (13 systems, CoNLL-2014 references)", "",
                  "| Metric | EW γ | EW ρ | TS γ | TS ρ | Avg. | Sent. acc | Sent. τ |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in result.rows:
            c = row.correlations.get("gjg15")
            if not c:
                continue
            vals = [c["EW"].pearson, c["EW"].spearman, c["TS"].pearson, c["TS"].spearman]
            lines.append(_row(row.label, [*vals, _mean(vals)],
                              _sentence_cells(row, "gjg15", ("rank",))))
        lines.append("")
    if "seeda" in has:
        sset = result.system_sets.get("seeda", "base")
        lines += [f"## SEEDA ({sset} systems), TrueSkill", "",
                  ("| Metric | SEEDA-S γ | SEEDA-S ρ | SEEDA-E γ | SEEDA-E ρ | Avg. "
                   "| SEEDA-S acc | SEEDA-S τ | SEEDA-E acc | SEEDA-E τ |"),
                  "|---|---|---|---|---|---|---|---|---|---|"]
        lines += _seeda_rows(result, "TS", sentence=True)
        lines += ["", f"## SEEDA ({sset} systems), Expected Wins", "",
                  "| Metric | SEEDA-S γ | SEEDA-S ρ | SEEDA-E γ | SEEDA-E ρ | Avg. |",
                  "|---|---|---|---|---|---|"]
        lines += _seeda_rows(result, "EW", sentence=False)
        lines.append("")
    if result.skipped:
        lines += ["## Skipped metrics", ""]
        lines += [f"- `{name}`: {why}" for name, why in result.skipped.items()]
        lines.append("")
        if any(why.startswith("ConfigError") for why in result.skipped.values()):
            lines += [SKIP_HINT, ""]
    if result.seconds:
        lines += ["## Run time", ""]
        lines += [f"- `{name}`: {sec:.1f} s" for name, sec in result.seconds.items()]
        lines.append("")
    return "\n".join(lines)


BENCH_TITLES = {"gjg15": "GJG15", "seeda": "SEEDA"}
RANKING_TITLES = {"EW": "Expected Wins", "TS": "TrueSkill", "EW_sent": "SEEDA-S, Expected Wins",
                  "TS_sent": "SEEDA-S, TrueSkill", "EW_edit": "SEEDA-E, Expected Wins",
                  "TS_edit": "SEEDA-E, TrueSkill"}


def _ci(value: float, interval: Any) -> str:
    if interval is None or math.isnan(value):
        return _fmt(value)
    return f"{_fmt(value)} [{_fmt(interval.low)}, {_fmt(interval.high)}]"


LEVEL_TITLES = {"rank": "judges' rankings", "sent": "SEEDA-S, sentence-level rankings",
                "edit": "SEEDA-E, edit-level rankings"}


def _sentence_cluster_group(outcomes: Mapping[str, PairOutcomes]
                            ) -> tuple[list[str], dict[str, object] | None]:
    """The metrics whose acc_eq verdicts are clustered, and a note on the others (None when
    none is left out). A paired test needs the same pairs, i.e. the same scored (ranking item,
    system) cells (:attr:`PairOutcomes.pair_set`): a NaN sentence score drops pairs. Of the
    groups judged on the same pairs, the one with the most pairs is kept (then the one with
    more metrics, then the first by sorted names), so a complete metric is never left out for
    several incomplete ones."""
    groups: dict[object, list[str]] = {}
    for label, o in outcomes.items():
        groups.setdefault(o.pair_set, []).append(label)
    keep = min(groups.values(),
               key=lambda g: (-outcomes[g[0]].pairs, -len(g), sorted(g)))
    if len(keep) == len(outcomes):
        return keep, None
    left = [m for m in outcomes if m not in keep]
    pairs = outcomes[keep[0]].pairs
    return keep, {
        "metrics": left, "clustered_pairs": pairs,
        "pairs": {m: outcomes[m].pairs for m in left},
        "reason": (f"scored on different (judged sentence, system) cells than the clustered "
                   f"metrics (a NaN sentence score on one side), so not the same pairs; the "
                   f"group with the most pairs ({pairs}) is clustered")}


#: the statistics WMT's metrics task reports now, marked ★ in the tables
WMT_REPORTED = ("SPA", "acc_eq")


def reported_legend(ties: str = "disagree") -> str:
    """The line under each WMT-grade table: which columns are the ones to report, and why
    τ and τ_eq can disagree (``ties``: how the uncalibrated statistics count a metric tie)."""
    tie = "a disagreement" if ties == "disagree" else "a loss for the first system"
    return ("★ what WMT reports now (metrics task 2024): SPA to rank metrics on systems, "
            "acc_eq on sentences; γ and ρ for comparison with earlier GEC papers. τ vs τ_eq: "
            f"the uncalibrated acc and τ leave human ties out and count a metric tie as {tie}, "
            "so a metric that often ties sentences scores low, even below 0; acc_eq and τ_eq count a pair "
            "both sides tie as agreement, with the metric's tie threshold ε searched (Deutsch "
            "et al. 2023): compare those.")


def render_wmt_sections(result: TableResult) -> list[str]:
    """Markdown: one table per benchmark and human ranking, rows in significance-cluster order,
    then one table per benchmark and judgment file of the ``SentX`` rows in acc_eq cluster
    order (the WMT-grade section of :func:`render_markdown`). The first four lines are the
    heading, a blank line, the one-line legend and a blank line."""
    s = result.settings
    lines = ["## Which metric can I trust? (WMT-grade statistics)", "",
             (f"Cluster: metrics sorted by Pearson γ; a metric opens a new cluster when one of "
              f"the cluster above beats it in a paired permutation test (PERM-BOTH, "
              f"{s.get('permutations')} draws, p ≤ {s.get('alpha')}; mt-metrics-eval's "
              f"`PermutationSigDiff` and `AssignRanks`). Sent. cluster: the same for the "
              f"`SentX` rows' acc_eq on the judgment file, with WMT's pairwise permutation test "
              f"(each metric keeps its calibrated tie threshold, the two metrics' verdicts on "
              f"every pair are swapped at random; mt-metrics-eval's "
              f"`PairwisePermutationSigDiff`, drawn {s.get('sentence_test', 'sign')}). "
              f"Intervals: 95% bootstrap ({s.get('resamples')} resamples) over systems for γ, "
              f"ρ and SPA (p-value matrices fixed), over ranking items for acc_eq. SPA: soft "
              f"pairwise accuracy (Thompson et al. 2024), on `SentX` rows. acc_eq / τ_eq: "
              f"tie-calibrated pairwise accuracy and tau (Deutsch et al. 2023), the "
              f"sentence-level figure; acc = today's uncalibrated accuracy (metric tie = "
              f"{'disagreement' if result.ties == 'disagree' else 'first loses'})."),
             ""]
    benches = [b for row in result.rows for b in row.correlations]
    for bench in dict.fromkeys([*benches, *result.sentence_rankings]):
        keys = dict.fromkeys(k for row in result.rows for k in row.correlations.get(bench, {}))
        sentence = result.sentence_rankings.get(bench, {})
        for key in keys:
            level = result.levels.get(bench, {}).get(key, "")
            ranking = result.rankings.get(bench, {}).get(key)
            sent_ranking = sentence.get(level)
            by_label = {row.label: row for row in result.rows
                        if key in row.correlations.get(bench, {})}
            order = list(ranking.labels) if ranking else list(by_label)
            lines += [(f"### Ranked on {BENCH_TITLES.get(bench, bench)} "
                       f"({RANKING_TITLES.get(key, key)})"), "",
                      ("| Cluster | Metric | γ [95% CI] | ρ [95% CI] | SPA ★ [95% CI] "
                       "| acc_eq ★ [95% CI] | Sent. cluster | τ_eq | acc |"),
                      "|---|---|---|---|---|---|---|---|---|"]
            for label in order:
                row = by_label[label]
                c = row.correlations[bench][key]
                iv = row.intervals.get(bench, {}).get(key, {})
                spa = row.spa.get(bench, {}).get(level)
                cal = row.calibrated.get(bench, {}).get(level)
                agree = row.sentence.get(bench, {}).get(level)
                cells = [str(ranking.rank_of(label)) if ranking else "–", label,
                         _ci(c.pearson, iv.get("pearson")), _ci(c.spearman, iv.get("spearman")),
                         _ci(spa.spa, spa.interval) if spa else "–",
                         _ci(cal.acc_eq, cal.acc_interval) if cal else "–",
                         (str(sent_ranking.rank_of(label))
                          if sent_ranking is not None and label in sent_ranking.labels else "–"),
                         _fmt(cal.tau_eq) if cal else "–",
                         _fmt(agree.accuracy) if agree else "–"]
                lines.append("| " + " | ".join(cells) + " |")
            lines += ["", reported_legend(result.ties), ""]
        for level, sent_ranking in sentence.items():
            rows = {row.label: row for row in result.rows if row.kind == "sentence"}
            lines += [(f"### Sentence level on {BENCH_TITLES.get(bench, bench)} "
                       f"({LEVEL_TITLES.get(level, level)}), ranked by acc_eq"), "",
                      ("| Sent. cluster | Metric | acc_eq ★ [95% CI] | ε | τ_eq [95% CI] "
                       "| SPA ★ [95% CI] |"),
                      "|---|---|---|---|---|---|"]
            for label, rank in zip(sent_ranking.labels, sent_ranking.ranks, strict=True):
                cal = rows[label].calibrated[bench][level]
                spa = rows[label].spa.get(bench, {}).get(level)
                lines.append("| " + " | ".join([
                    str(rank), label, _ci(cal.acc_eq, cal.acc_interval),
                    f"{cal.acc_epsilon:.4g}", _ci(cal.tau_eq, cal.tau_interval),
                    _ci(spa.spa, spa.interval) if spa else "–"]) + " |")
            lines += ["", reported_legend(result.ties), ""]
            left_out = s.get("sentence_clusters_excluded", {})
            if isinstance(left_out, dict) and f"{bench}/{level}" in left_out:
                note = left_out[f"{bench}/{level}"]
                counts = note.get("pairs", {})
                names = ", ".join(f"`{m}` ({counts[m]} pairs)" if m in counts else f"`{m}`"
                                  for m in note["metrics"])
                lines += [("Not clustered (scored on different (sentence, system) cells than "
                           "the clustered metrics, so not the same pairs; the group with the "
                           f"most pairs, {note.get('clustered_pairs', '?')}, is clustered): "
                           f"{names}."), ""]
    return lines


def _row(label: str, values: Sequence[float], extra: Sequence[str] = ()) -> str:
    return f"| {label} | " + " | ".join([*(_fmt(v) for v in values), *extra]) + " |"


def _sentence_cells(row: MetricRow, bench: str, levels: Sequence[str]) -> list[str]:
    """Accuracy and tau per judgment file, or dashes for a row not built from sentence scores."""
    agreement = row.sentence.get(bench)
    if not agreement:
        return ["–"] * (2 * len(levels))
    return [_fmt(x) for level in levels
            for x in (agreement[level].accuracy, agreement[level].kendall)]


def _seeda_rows(result: TableResult, method: str, sentence: bool) -> list[str]:
    out = []
    for row in result.rows:
        c = row.correlations.get("seeda")
        if not c:
            continue
        vals = [c[f"{method}_sent"].pearson, c[f"{method}_sent"].spearman,
                c[f"{method}_edit"].pearson, c[f"{method}_edit"].spearman]
        extra = _sentence_cells(row, "seeda", ("sent", "edit")) if sentence else []
        out.append(_row(row.label, [*vals, _mean(vals)], extra))
    return out


def _mean(vals: Sequence[float]) -> float:
    clean = [v for v in vals if not math.isnan(v)]
    return sum(clean) / len(clean) if clean else math.nan


def sub_score_table(results: Mapping[str, SystemResult], level: str = "corpus",
                    metric: Metric | None = None) -> dict[str, dict[str, float]]:
    """Per-system sub-scores (``Score.fields``) for the trade-off search.

    ``corpus``: the fields of the corpus score. ``sentence``: the mean over sentences of the
    fields of each sentence aggregated alone (needs ``metric`` to aggregate).
    """
    if level == "corpus":
        return {s: dict(r.score.fields) for s, r in results.items()}
    if metric is None:
        raise ConfigError("sentence-level sub-scores need the metric to aggregate sentences")
    out: dict[str, dict[str, float]] = {}
    for s, r in results.items():
        sums: dict[str, float] = {}
        for st in r.stats:
            for k, v in metric.aggregate([st]).fields.items():
                sums[k] = sums.get(k, 0.0) + float(v)
        n = max(len(r.stats), 1)
        out[s] = {k: v / n for k, v in sums.items()}
    return out


CLEME2_FACTOR_OPTIONS = ("factor_hit", "factor_wrong", "factor_under", "factor_over")
"""Config fields of the ``cleme2`` metric that hold its trade-off factors."""


def tradeoff_folds(bench: Benchmark, metric: Metric, systems: Sequence[str],
                   cv: str = "rankings", level: str = "corpus",
                   rescore: Sequence[str] | None = None) -> list[Any]:
    """Cross-validation folds for :func:`~gecscope.meta_eval.tradeoff.tradeoff_search`.

    ``cv="rankings"``: one fold per human ranking of the benchmark (same metric scores).
    ``cv="references"``: one fold per reference annotator of the M2 (the metric is re-run
    with that annotator's references only), each judged against all human rankings.

    ``rescore`` names the metric's Config fields that take the weights (in the order of the
    combination's fields, e.g. :data:`CLEME2_FACTOR_OPTIONS`): every grid point then rebuilds
    the metric with those weights and re-aggregates the stored sentence statistics, which is
    exact when the weights also steer the metric's reference choice (CLEME2.0) but slower.
    Without it, the corpus ``Score.fields`` (``level="corpus"``) or the mean fields of single
    sentences (``level="sentence"``) are combined linearly.
    """
    from gecscope.meta_eval.benchmarks import single_reference_view
    from gecscope.meta_eval.tradeoff import Fold, reaggregating_scorer

    if cv not in ("rankings", "references"):
        raise ConfigError(f"cv must be rankings or references, got {cv!r}")
    if cv == "rankings":
        units: Iterable[tuple[str, Benchmark]] = [("", bench)]
    else:
        m2 = bench.data.require_m2("trade-off search across references")
        # views are made lazily, so each one inherits the edits extracted for the previous
        units = ((f"ref{a}", single_reference_view(bench, a)) for a in m2.annotators)
    folds = []
    for name, view in units:
        results = evaluate_systems(metric, view, systems)
        bench.data.adopt_hypothesis_edits(view.data)
        kwargs: dict[str, Any] = {}
        if rescore:
            names = tuple(rescore)
            stats = {s: r.stats for s, r in results.items()}

            def build(w: tuple[float, ...], names: tuple[str, ...] = names) -> Metric:
                return type(metric)(metric.config, **dict(zip(names, w, strict=True)))

            kwargs["scorer"] = reaggregating_scorer(build, stats)
        else:
            kwargs["sub_scores"] = sub_score_table(results, level, metric)
        if cv == "rankings":
            folds += [Fold(key, {key: human}, systems, **kwargs)
                      for key, human in bench.human.items()]
        else:
            folds.append(Fold(name, bench.human, systems, **kwargs))
    return folds

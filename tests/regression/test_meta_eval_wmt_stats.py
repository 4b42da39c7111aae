"""WMT-grade meta-evaluation statistics equal mt-metrics-eval's own functions (issue #34 item 1).

The expected values were printed by ``python benchmarks/mt_metrics_eval_reference.py --mme
<mt-metrics-eval>`` with google-research/mt-metrics-eval at commit
68a481aea1a787392d55af8f76ac8ef40c5f4664 (its ``pce.compute_pairwise_p_values`` +
``compute_one_minus_pce`` with 1000 permutations and seed 4, ``stats.KendallWithTiesOpt``
with ``average_by="item"`` and ``sample_rate=1``, and ``data.CompareMetrics`` with
``PermutationSigDiff``, k = 1000, after ``np.random.seed(0)``), on the sentence and system
scores gecscope computes here for the toy character-length metric, GLEU and M2. mt-metrics-eval
cannot run in CI, so its printed values are pinned.

pce sums the sentence scores in float32 (row sums and a BLAS product), so a p-value of
non-integer scores is a count of float32 comparisons near ties: gecscope takes the matrix in C
order as pce does (a Fortran-ordered one moved 3 of GJG15's 78 GLEU p-values by 1/1000, the
``DIFFERENT`` the benchmark printed before issue #42) and equals it exactly here, which
``benchmarks/mt_metrics_eval_reference.py`` checks (exit 0). Another BLAS or CPU may round a
null sum across the statistic, so the pinned SPA of non-integer scores is compared within one
draw of one pair, ``1 / (permutations x pairs)``; integer scores (character lengths) sum
exactly in float32 and compare exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gecscope.errors import ConfigError
from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.meta_eval.runner import evaluate_systems, sentence_score_table
from gecscope.meta_eval.significance import (
    PermutationParams,
    assign_ranks,
    compare_metrics,
    human_pairwise_p_values,
    metric_spa,
    pairwise_p_values,
    soft_pairwise_accuracy,
)
from gecscope.meta_eval.ties import calibrate, enumerate_pairs, tie_calibrated_agreement
from gecscope.registry import get_metric

pytest.importorskip("scipy")

SEEDA_SPA = {"edit/charlen": 0.6724242424242425, "edit/gleu": 0.8993939393939394,
             "edit/m2": 0.8558939393939394, "sent/charlen": 0.6877424242424243,
             "sent/gleu": 0.8679242424242424, "sent/m2": 0.804060606060606}
SEEDA_ACC_EQ = {"edit/charlen": (0.5684194324194322, 0.0),
                "edit/gleu": (0.6631230158730155, 0.013322599483247544),
                "edit/m2": (0.6516784511784505, 0.0),
                "sent/charlen": (0.6009853294853287, 0.0),
                "sent/gleu": (0.6997248677248671, 0.0008703721296923761),
                "sent/m2": (0.6574462481962479, 0.0)}
SEEDA_TAU_EQ = {"edit/charlen": (0.13683886483886495, 0.0),
                "edit/gleu": (0.32624603174603206, 0.013322599483247544),
                "edit/m2": (0.3033569023569023, 0.0),
                "sent/charlen": (0.20197065897065894, 0.0),
                "sent/gleu": (0.3994497354497354, 0.0008703721296923761),
                "sent/m2": (0.31489249639249617, 0.0)}
SEEDA_COMPARE: dict[str, tuple[list[str], list[int], list[list[float]]]] = {
    "TS_sent/pearson": (
        ["Sentgleu", "gleu", "Sentm2", "m2", "Sentcharlen", "charlen"], [1, 2, 3, 3, 4, 4],
        [[0.0, 0.048, 0.05, 0.003, 0.005, 0.006], [0.0, 0.0, 0.048, 0.003, 0.009, 0.008],
         [0.0, 0.0, 0.0, 0.089, 0.03, 0.03], [0.0, 0.0, 0.0, 0.0, 0.21, 0.243],
         [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0] * 6]),
    "TS_sent/spearman": (
        ["Sentgleu", "gleu", "Sentm2", "Sentcharlen", "charlen", "m2"], [1, 1, 2, 2, 2, 2],
        [[0.0, 0.29, 0.041, 0.017, 0.03, 0.007], [0.0, 0.0, 0.054, 0.059, 0.058, 0.007],
         [0.0, 0.0, 0.0, 0.181, 0.166, 0.119], [0.0, 0.0, 0.0, 0.0, 1.0, 0.38],
         [0.0, 0.0, 0.0, 0.0, 0.0, 0.406], [0.0] * 6]),
    "EW_edit/spearman": (
        ["Sentgleu", "gleu", "Sentm2", "m2", "Sentcharlen", "charlen"], [1, 2, 2, 3, 3, 3],
        [[0.0, 0.011, 0.014, 0.019, 0.009, 0.014], [0.0, 0.0, 0.069, 0.042, 0.011, 0.011],
         [0.0, 0.0, 0.0, 0.377, 0.032, 0.022], [0.0, 0.0, 0.0, 0.0, 0.134, 0.132],
         [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0] * 6]),
}
GJG15_SPA = {"rank/charlen": 0.4610384615384614, "rank/gleu": 0.7866153846153846,
             "rank/m2": 0.8109871794871795}
GJG15_ACC_EQ = {"rank/charlen": (0.5684343482478774, 0.0),
                "rank/gleu": (0.6415233027548726, 9.368782274565834e-05),
                "rank/m2": (0.6303256563230552, 0.0326797385620915)}
GJG15_TAU_EQ = {"rank/charlen": (0.13686869649575614, 0.0),
                "rank/gleu": (0.28304660550974575, 9.368782274565834e-05),
                "rank/m2": (0.260651312646109, 0.0326797385620915)}


def _scores(bench: Any, metrics: list[str]) -> dict[str, Any]:
    systems = bench.ordered(bench.select(None))
    sentence, system = {}, {}
    for name in metrics:
        metric = CharLengthMetric() if name == "charlen" else get_metric(name)()
        results = evaluate_systems(metric, bench, systems)
        table = sentence_score_table(results)
        sentence[name] = table
        system[name] = {s: float(r.score.value) for s, r in results.items()}
        system[f"Sent{name}"] = {s: sum(v) / len(v) for s, v in table.items()}
    return {"bench": bench, "systems": systems, "sentence": sentence, "system": system}


@pytest.fixture(scope="module")
def seeda(shared_data: Path) -> dict[str, Any]:
    bench = load_seeda(shared_data / "seeda",
                       shared_data / "conll14" / "official-2014.combined.m2")
    return _scores(bench, ["charlen", "gleu", "m2"])


def _gjg15(shared_data: Path) -> Any:
    return load_gjg15(shared_data / "gjg15", shared_data / "conll14" / "submissions",
                      shared_data / "conll14" / "official-2014.combined.m2")


def _check_sentence_level(case: dict[str, Any], spa: dict[str, float],
                          acc: dict[str, tuple[float, float]],
                          tau: dict[str, tuple[float, float]]) -> None:
    bench, systems = case["bench"], case["systems"]
    rows = bench.rows
    human_p = {level: human_pairwise_p_values(j, systems, 1000)
               for level, j in bench.judgments.items()}
    for key, expected in spa.items():
        level, name = key.split("/")
        table = case["sentence"][name]
        got = metric_spa(bench.judgments[level], table, systems,
                         rows=[rows[k] for k in sorted(rows)], permutations=1000,
                         human_p=human_p[level])
        if name == "charlen":
            assert got.spa == expected, key
        else:
            pairs = len(systems) * (len(systems) - 1) // 2
            assert abs(got.spa - expected) <= 1 / (1000 * pairs) + 1e-15, key
        t = tie_calibrated_agreement(bench.judgments[level], table, systems, rows=rows,
                                     resamples=50)
        assert (t.acc_eq, t.acc_epsilon) == acc[key], key
        assert (t.tau_eq, t.tau_epsilon) == tau[key], key
        assert t.acc_interval.low <= t.acc_eq <= t.acc_interval.high, key


def _check_compare(case: dict[str, Any], expected: dict[str, Any]) -> None:
    systems = case["systems"]
    for key, (order, ranks, p) in expected.items():
        human_key, kind = key.split("/")
        gold = [case["bench"].human[human_key][s] for s in systems]
        metrics = {m: [v[s] for s in systems] for m, v in case["system"].items()}
        got = compare_metrics(gold, metrics, kind, seed=0, params=PermutationParams(1000))
        assert list(got.labels) == order, key
        assert list(got.ranks) == ranks, key
        got_p = [list(row) for row in got.p]
        assert got_p == p, key


def test_seeda_spa_and_tie_calibration_equal_mt_metrics_eval(seeda: dict[str, Any]) -> None:
    _check_sentence_level(seeda, SEEDA_SPA, SEEDA_ACC_EQ, SEEDA_TAU_EQ)


def test_seeda_metric_comparison_equals_mt_metrics_eval(seeda: dict[str, Any]) -> None:
    _check_compare(seeda, SEEDA_COMPARE)


@pytest.mark.slow
def test_gjg15_charlen_equals_mt_metrics_eval(shared_data: Path) -> None:
    case = _scores(_gjg15(shared_data), ["charlen"])
    _check_sentence_level(case, {"rank/charlen": GJG15_SPA["rank/charlen"]},
                          GJG15_ACC_EQ, GJG15_TAU_EQ)


@pytest.mark.slow
def test_gjg15_gleu_equals_mt_metrics_eval(shared_data: Path) -> None:
    """GJG15 with a real metric's sentence scores (GLEU: fast on 13 systems x 1,312
    sentences); M2's GJG15 values and the GJG15 metric-comparison matrices are printed beside
    mt-metrics-eval's by ``benchmarks/mt_metrics_eval_reference.py``, kept out of the suite for
    its time (the suite must stay under 10 minutes); the same functions are compared on SEEDA
    above with M2 and the comparison matrices."""
    case = _scores(_gjg15(shared_data), ["gleu"])
    _check_sentence_level(case, {"rank/gleu": GJG15_SPA["rank/gleu"]},
                          {"rank/gleu": GJG15_ACC_EQ["rank/gleu"]},
                          {"rank/gleu": GJG15_TAU_EQ["rank/gleu"]})


def test_tie_calibration_does_not_depend_on_system_names(seeda: dict[str, Any]) -> None:
    """acc_eq has no "first system loses a tie" rule: reversing the system order (which flips
    SEEDA's first-loses figures) leaves it unchanged, for a metric with many ties (M2)."""
    bench, systems = seeda["bench"], seeda["systems"]
    table = seeda["sentence"]["m2"]
    a = tie_calibrated_agreement(bench.judgments["sent"], table, systems, rows=bench.rows,
                                 resamples=10)
    b = tie_calibrated_agreement(bench.judgments["sent"], table, systems[::-1],
                                 rows=bench.rows, resamples=10)
    assert (a.acc_eq, a.tau_eq, a.pairs) == pytest.approx((b.acc_eq, b.tau_eq, b.pairs),
                                                          abs=1e-12)


def test_calibration_by_hand() -> None:
    """Item 0: humans x > y = z, metric 3, 2.9, 1: (x,y) and (x,z) concordant, (y,z) tied by
    the humans only, acc 2/3. Item 1: humans x > y, metric 1, 1: tied by the metric only, acc
    0. Mean 1/3 at epsilon 0; epsilon 0.1 ties (x,y) (1/6), 1.9 also ties (y,z), now tied by
    both (1/3 again), 2.0 ties everything (1/6). The first of equal maxima wins: epsilon 0."""
    human = [[3.0, 2.0, 2.0], [2.0, 1.0, None]]
    metric = [[3.0, 2.9, 1.0], [1.0, 1.0, None]]
    cal = calibrate(enumerate_pairs(human, metric), "acc_eq")
    assert cal.thresholds == pytest.approx((0.0, 0.1, 1.9, 2.0))
    assert cal.values == pytest.approx((1 / 3, 1 / 6, 1 / 3, 1 / 6))
    assert cal.value == pytest.approx(1 / 3)
    assert cal.epsilon == 0.0
    assert cal.group_values == pytest.approx((2 / 3, 0.0))
    tau = calibrate(enumerate_pairs(human, metric), "tau_eq")
    # tau: item 0 (2 - 1) / 3, item 1 -1 -> -1/3; at 1.9: item 0 (1 + 1 - 1) / 3 -> -1/3 ...
    assert tau.values[0] == pytest.approx((1 / 3 - 1) / 2)
    assert tau.value == max(tau.values)


def test_p_values_and_clusters_by_hand() -> None:
    # system 0 beats 1 on every sentence: every sign flip gives a smaller difference
    scores = [[1.0] * 8, [0.0] * 8]
    p = pairwise_p_values(scores, permutations=200, seed=1)
    assert p[0, 1] <= 0.02  # only the all-positive masks (1 in 256) reach the difference
    assert pairwise_p_values(scores[::-1], permutations=200, seed=1)[0, 1] == 1.0
    assert soft_pairwise_accuracy(p, p) == 1.0
    assert assign_ranks([[0, 0.01, 0.5], [0, 0, 0.5], [0, 0, 0]]) == [1, 2, 2]
    assert assign_ranks([[0, 0.2, 0.01], [0, 0, 0.2], [0, 0, 0]]) == [1, 1, 2]


def test_bad_inputs_are_refused(seeda: dict[str, Any]) -> None:
    bench, systems = seeda["bench"], seeda["systems"]
    table = dict(seeda["sentence"]["charlen"])
    with pytest.raises(ConfigError, match="no sentence scores"):
        metric_spa(bench.judgments["sent"], {s: table[s] for s in systems[1:]}, systems)
    table[systems[0]] = [float("nan")] * len(table[systems[0]])
    with pytest.raises(ConfigError, match="NaN"):
        metric_spa(bench.judgments["sent"], table, systems)
    with pytest.raises(ConfigError, match="permutations"):
        pairwise_p_values([[1.0], [0.0]], permutations=0)
    with pytest.raises(ConfigError, match="has 2 system scores"):
        compare_metrics([1.0, 2.0, 3.0], {"a": [1.0, 2.0]})

"""CLEME's and CLEME2.0's vectorised resampling path (``metrics/cleme/resampling.py``) against
``aggregate`` on the same resamples.

Length weights depend on the resampled corpus, so the path recomputes each resample's bias,
weights and candidate counts and re-runs the reference choice in the resample's order. Every
field both paths report must print the same (4 decimals, as the reports print scores) and
differ by at most ``RAW_TOL`` raw. Real data: CoNLL-2014 (ERRANT M2 files of THUKElab/CLEME,
the ones the regression tests use), 200+ resamples for several systems. Synthetic statistics
reach the corners real data may miss: duplicate and missing references, whole-number ties,
model weights (0 included), a given bias, length weights that overflow ``exp``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="resampling needs the stats extra")

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.base import Metric
from gecscope.metrics.cleme import CLEME2Metric, CLEMEMetric, CLEMEStats, RefChunkStats
from gecscope.metrics.cleme import resampling as cleme_resampling
from gecscope.metrics.cleme.resampling import CLEMERows, python_sums
from gecscope.stats.paired import PairedTest, approximate_randomisation, paired_bootstrap
from gecscope.stats.resample import Scorer, bootstrap_interval

#: the largest raw difference allowed between the two paths (they agree bit for bit here; the
#: tolerance only keeps the test about the figures, not about the last bit)
RAW_TOL = 1e-12


def assert_paths_equal(metric: Metric, stats: Sequence[Any], rows: Any) -> dict[str, Any]:
    """Scores ``rows`` through the vectorised path and through ``aggregate``: the same fields,
    the same printed values, raw values within ``RAW_TOL``. Returns the fast fields."""
    fast_scorer = Scorer(metric, stats)
    assert fast_scorer.fast, f"{metric.name}: no vectorised path"
    fast = fast_scorer.values(rows, fields=True)
    slow = Scorer(metric, stats, fast=False).values(rows, fields=True)
    assert set(fast) == set(slow)
    for name in sorted(slow):
        assert fast[name].shape == slow[name].shape, name
        assert [f"{v:.4f}" for v in fast[name]] == [f"{v:.4f}" for v in slow[name]], name
        diff = float(np.max(np.abs(fast[name] - slow[name]))) if len(rows) else 0.0
        assert diff <= RAW_TOL, (metric.name, name, diff)
    return fast


# -------------------------------------------------------------------------- CoNLL-2014


@pytest.fixture(scope="module")
def conll(conll14: Path) -> tuple[EvalData, dict[str, Hypothesis]]:
    d = conll14 / "errant"
    if not (d / "references.m2").is_file():
        pytest.skip(f"{d}/references.m2 not found (the ERRANT M2 files of THUKElab/CLEME)")
    data = EvalData((str(d / "references.m2"),))
    return data, {s: Hypothesis.from_file(d / f"{s}.m2", name=s)
                  for s in ("AMU", "CAMB", "UFC", "INPUT")}


@pytest.mark.slow
@pytest.mark.parametrize("system", ["AMU", "CAMB", "UFC"])
def test_default_cleme_equals_aggregate_on_250_resamples(
        conll: tuple[EvalData, dict[str, Hypothesis]], system: str) -> None:
    """The setting bootstrap intervals and MAEGE use: corpus level, dependent, length weights
    with the corpus bias, the tool's 4-dp rounding in the greedy choice."""
    data, hyps = conll
    metric = CLEMEMetric()
    stats = metric.sentence_stats(data, hyps[system])
    rows = np.random.default_rng(44).integers(0, len(stats), size=(250, len(stats)))
    fast = assert_paths_equal(metric, stats, rows)
    # the resamples' biases differ, so the weights really are recomputed per resample
    biases = {metric._weigher([stats[i] for i in r]).bias for r in rows[:20]}
    assert len(biases) > 10
    assert len(set(fast["F"].tolist())) > 100


SETTINGS = [
    (CLEMEMetric, {"assumption": "independent"}),
    (CLEMEMetric, {"level": "sentence"}),
    (CLEMEMetric, {"weighting": "none"}),
    (CLEMEMetric, {"fix_rounding": True, "fix_sentence_weights": True}),
    (CLEMEMetric, {"level": "sentence", "compat": False, "beta": 1.0}),
    (CLEMEMetric, {"length_bias": 1.7}),
    (CLEME2Metric, {"weighting": "length"}),
    (CLEME2Metric, {"weighting": "length", "assumption": "independent"}),
    (CLEME2Metric, {"level": "sentence"}),
    (CLEME2Metric, {"level": "sentence", "weighting": "length"}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("cls", "options"), SETTINGS, ids=str)
def test_other_settings_equal_aggregate(conll: tuple[EvalData, dict[str, Hypothesis]],
                                        cls: type, options: dict[str, Any]) -> None:
    data, hyps = conll
    metric = cls(**options)
    assert isinstance(metric.resampling(), CLEMERows)
    for k, system in enumerate(("AMU", "INPUT")):
        stats = metric.sentence_stats(data, hyps[system])
        rows = np.random.default_rng(k).integers(0, len(stats), size=(12, len(stats)))
        assert_paths_equal(metric, stats, rows)


def test_unweighted_corpus_cleme2_keeps_the_count_table() -> None:
    """Whole counts sum exactly in any order: that setting keeps the stacked count path."""
    assert not isinstance(CLEME2Metric().resampling(), CLEMERows)
    assert isinstance(CLEME2Metric(weighting="length").resampling(), CLEMERows)
    assert isinstance(CLEMEMetric(weighting="none").resampling(), CLEMERows)


@pytest.mark.slow
def test_bootstrap_interval_and_paired_tests_unchanged(
        conll: tuple[EvalData, dict[str, Hypothesis]]) -> None:
    """Intervals, paired bootstrap and approximate randomisation (whose rows mix the two
    systems' sentences, so the bias is over the mixed corpus) give the same figures."""
    data, hyps = conll
    metric = CLEMEMetric()
    a, b = (metric.sentence_stats(data, hyps[s]) for s in ("AMU", "CAMB"))
    fast = bootstrap_interval(metric, a, n_samples=60, seed=3)
    slow = bootstrap_interval(metric, a, n_samples=60, seed=3, fast=False)
    assert fast.as_dict() == pytest.approx(slow.as_dict(), abs=RAW_TOL)
    assert f"{fast.low:.4f} {fast.high:.4f}" == f"{slow.low:.4f} {slow.high:.4f}"
    for test in (paired_bootstrap, approximate_randomisation):
        cf = test(metric, a, b, n_samples=40, seed=5)
        cs = test(metric, a, b, n_samples=40, seed=5, fast=False)
        assert cf.p_value == cs.p_value, test.__name__
        assert cf.delta == cs.delta
        assert cf.delta_interval == pytest.approx(cs.delta_interval, abs=RAW_TOL)


def test_paired_test_ranking_takes_the_vectorised_path(
        conll: tuple[EvalData, dict[str, Hypothesis]]) -> None:
    data, hyps = conll
    metric = CLEMEMetric()
    results = [metric.evaluate(data, hyps[s]) for s in ("AMU", "UFC", "INPUT")]
    pt = PairedTest(metric, results, n_samples=30, seed=1)
    assert pt.fast
    ranking = [(r.system, r.cluster) for r in pt.ranking()]
    slow = PairedTest(metric, results, n_samples=30, seed=1, fast=False)
    assert not slow.fast
    assert ranking == [(r.system, r.cluster) for r in slow.ranking()]
    for name in ("AMU", "UFC"):
        assert pt.samples(name).tolist() == pytest.approx(slow.samples(name).tolist(),
                                                          abs=RAW_TOL)


# -------------------------------------------------------------------------- synthetic


def _random_ref(rnd: random.Random, model: bool, long_chunks: bool) -> RefChunkStats:
    def lengths() -> tuple[int, ...]:
        top = 900 if long_chunks and rnd.random() < 0.1 else 5
        return tuple(rnd.randint(0, top) for _ in range(rnd.choice((0, 0, 1, 1, 2, 3, 7))))

    tp, fp_ne, fp_un, fn = lengths(), lengths(), lengths(), lengths()
    weights = None
    if model:
        weights = tuple(tuple(rnd.choice((0.0, rnd.random(), 1.0, rnd.random() * 3))
                              for _ in group) for group in (tp, fp_ne, fp_un, fn))
    return RefChunkStats(tp, fp_ne, fp_un, fn, rnd.randint(0, 9), weights)  # type: ignore[arg-type]


def synthetic_stats(seed: int, n: int = 70, model: bool = False, long_chunks: bool = False
                    ) -> list[CLEMEStats]:
    """Sentences with 0-4 references, some repeated, some equal in whole-number counts."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        refs = [_random_ref(rnd, model, long_chunks) for _ in range(rnd.choice((0, 1, 2, 2, 3, 4)))]
        if len(refs) > 1 and rnd.random() < 0.3:
            refs[-1] = refs[0]  # a duplicate reference
        ref_lengths = tuple(rnd.randint(0, 6) for _ in range(rnd.randint(0, 4)))
        out.append(CLEMEStats(tuple(refs), ref_lengths))
    return out


SYNTHETIC = [
    (CLEMEMetric, {}), (CLEMEMetric, {"level": "sentence"}), (CLEMEMetric, {"weighting": "none"}),
    (CLEMEMetric, {"weighting": "none", "level": "sentence", "fix_rounding": True}),
    (CLEMEMetric, {"length_bias": 2.5, "length_alpha": 1.0}),
    (CLEMEMetric, {"level": "sentence", "fix_sentence_weights": True,
                   "assumption": "independent"}),
    (CLEMEMetric, {"length_tp_min": 0.0, "length_fp_min": 0.0, "length_fn_min": 0.0,
                   "length_alpha": 5.0}),
    (CLEME2Metric, {"weighting": "length"}), (CLEME2Metric, {"level": "sentence"}),
    (CLEME2Metric, {"level": "sentence", "weighting": "length", "factor_hit": 0.25,
                    "factor_wrong": 0.25, "factor_under": 0.25, "factor_over": 0.25}),
]


@pytest.mark.parametrize(("cls", "options"), SYNTHETIC, ids=str)
@pytest.mark.parametrize("long_chunks", [False, True], ids=["short", "overflowing"])
def test_synthetic_corners_equal_aggregate(cls: type, options: dict[str, Any],
                                           long_chunks: bool) -> None:
    metric = cls(**options)
    stats = synthetic_stats(7, long_chunks=long_chunks)
    rows = np.random.default_rng(1).integers(0, len(stats), size=(150, len(stats)))
    assert_paths_equal(metric, stats, rows)
    # rows shorter or longer than the corpus (paired tests and MAEGE score other lengths)
    assert_paths_equal(metric, stats, rows[:, :9])
    assert_paths_equal(metric, stats, np.concatenate([rows, rows], axis=1)[:20])


@pytest.mark.parametrize(("cls", "options"), [
    (CLEMEMetric, {"weighting": "similarity"}),
    (CLEMEMetric, {"weighting": "similarity", "fix_zero_weights": True, "level": "sentence"}),
    (CLEME2Metric, {"weighting": "similarity"}),
    (CLEME2Metric, {"weighting": "llm", "llm_url": "http://127.0.0.1:9/v1", "level": "sentence"}),
], ids=str)
def test_model_weights_equal_aggregate(cls: type, options: dict[str, Any]) -> None:
    """Model weights are fixed per chunk but not whole numbers: the sums' order matters."""
    metric = cls(**options)
    stats = synthetic_stats(11, model=True)
    rows = np.random.default_rng(2).integers(0, len(stats), size=(120, len(stats)))
    assert_paths_equal(metric, stats, rows)


def test_the_first_of_tied_references_is_chosen() -> None:
    """Two references with the same counts but different chunk lengths tie unweighted (the
    first must win); length-weighted they do not, and the choice then follows the weights."""
    a = RefChunkStats(tp=(1,), fp_ne=(), fp_un=(4,), fn=(2,), tn=3)
    b = RefChunkStats(tp=(4,), fp_ne=(), fp_un=(1,), fn=(2,), tn=3)
    stats = [CLEMEStats((a, b), (1, 2)), CLEMEStats((b, a), (3,)), CLEMEStats((a,), (2, 2))]
    rows = np.array([[0, 1, 2], [1, 0, 2], [2, 2, 1], [1, 1, 1], [0, 0, 0]])
    for metric in (CLEMEMetric(), CLEMEMetric(weighting="none"), CLEME2Metric(weighting="length"),
                   CLEMEMetric(level="sentence"), CLEME2Metric(level="sentence")):
        assert_paths_equal(metric, stats, rows)


def test_rows_index_like_a_list() -> None:
    """Negative indices count from the end, as the statistics list takes them; an index past
    the end is an IndexError on both paths; no rows give empty fields."""
    metric = CLEMEMetric()
    stats = synthetic_stats(3, n=12)
    assert_paths_equal(metric, stats, np.array([[-1, -12, 5, 0]]))
    score = CLEMERows(metric).rows_scorer(stats)
    with pytest.raises(IndexError):
        score(np.array([[0, 12]]))
    with pytest.raises(IndexError):
        Scorer(metric, stats, fast=False).values(np.array([[0, 12]]))
    empty = score(np.zeros((0, 12), dtype=np.int64))
    assert set(empty) == set(metric.aggregate(stats).fields) and all(
        len(v) == 0 for v in empty.values())
    assert_paths_equal(metric, stats, np.zeros((3, 0), dtype=np.int64))  # empty resamples


def test_every_field_of_aggregate_is_reported() -> None:
    stats = synthetic_stats(5, n=20)
    for metric in (CLEMEMetric(), CLEME2Metric(weighting="length")):
        out = CLEMERows(metric).rows_scorer(stats)(np.arange(20)[None, :])
        fields = metric.aggregate(stats).fields
        assert list(out) == list(fields)
        assert [float(out[k][0]) for k in fields] == [float(v) for v in fields.values()]


@pytest.mark.parametrize("compensated", [False, True], ids=["left-to-right", "neumaier"])
def test_python_sums_add_like_the_builtin(monkeypatch: pytest.MonkeyPatch,
                                          compensated: bool) -> None:
    """:func:`python_sums` follows the interpreter's ``sum`` of floats; both algorithms are
    checked on sums where they differ ([1e16, 1, -1e16]: 0 left to right, 1 compensated)."""
    rnd = random.Random(0)
    lists = [[1e16, 1.0, -1e16], [0.1, 0.2, 0.3], [0.75, 1.25, 1.0000000000000002]]
    lists += [[rnd.uniform(0.7, 1.3) * 10 ** rnd.randint(-3, 17) * rnd.choice((1, -1))
               for _ in range(rnd.randint(1, 9))] for _ in range(400)]
    lists.sort(key=len, reverse=True)
    first = np.array([[v[0] for v in lists]])
    rest = [np.array([[v[j] for v in lists if len(v) > j]]) for j in range(1, len(lists[0]))]
    monkeypatch.setattr(cleme_resampling, "COMPENSATED_SUM", compensated)
    got = python_sums(first, rest)[0].tolist()
    if compensated == (cleme_resampling.sys.version_info >= (3, 12)):
        assert got == [sum(v) for v in lists]  # this interpreter's own sum
    if compensated:
        assert got[lists.index([1e16, 1.0, -1e16])] == 1.0
        # Neumaier's sum is exact on these short lists of similar magnitude
        assert got[lists.index([0.1, 0.2, 0.3])] == math.fsum([0.1, 0.2, 0.3])
    else:
        assert got[lists.index([1e16, 1.0, -1e16])] == 0.0
        naive = [0.0] * len(lists)
        for i, v in enumerate(lists):
            for x in v:
                naive[i] += x
        assert got == naive

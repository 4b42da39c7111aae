"""Bootstrap intervals and paired tests against brute-force enumeration and known properties."""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="resampling needs the stats extra")
from test_stats_metric import EditF, EditFFast, ExactMatch, toy_corpus

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.m2 import read_m2
from gecscope.stats.paired import (
    PairedTest,
    approximate_randomisation,
    p_value,
    paired_bootstrap,
)
from gecscope.stats.resample import (
    bootstrap_interval,
    bootstrap_samples,
    percentile_interval,
)
from gecscope.types import Annotation, Corpus, Sentence


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation quantile written out by hand (numpy's default definition)."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _four() -> tuple[list, list]:
    data, hyps = toy_corpus()
    stats = EditF().sentence_stats(data, hyps[1])[:4]
    other = EditF().sentence_stats(data, hyps[0])[:4]
    return stats, other


def test_all_resamples_of_four_sentences_match_brute_force() -> None:
    stats, _ = _four()
    every = np.array(list(itertools.product(range(4), repeat=4)))  # all 256 resamples
    brute = sorted(EditF().aggregate([stats[i] for i in row]).value for row in every)
    for metric in (EditF(), EditFFast()):
        values = bootstrap_samples(metric, stats, indices=every)["value"]
        assert sorted(values.tolist()) == pytest.approx(brute)
        lo, hi = percentile_interval(values)
        actual = (lo, hi)
        assert actual == pytest.approx((_quantile(brute, 0.025), _quantile(brute, 0.975)))


def test_random_resampling_converges_to_the_exact_distribution() -> None:
    stats, _ = _four()
    every = np.array(list(itertools.product(range(4), repeat=4)))
    exact = np.array([EditF().aggregate([stats[i] for i in row]).value for row in every])
    sampled = bootstrap_samples(EditFFast(), stats, 20000, seed=7)["value"]
    for v in np.unique(exact):  # empirical CDF within 0.015 of the exact one everywhere
        assert abs((sampled <= v + 1e-12).mean() - (exact <= v + 1e-12).mean()) < 0.015


def test_seeded_resampling_is_repeatable_and_seed_dependent() -> None:
    data, hyps = toy_corpus()
    stats = EditF().sentence_stats(data, hyps[1])
    a = bootstrap_interval(EditFFast(), stats, 200, seed=3)
    b = bootstrap_interval(EditFFast(), stats, 200, seed=3)
    c = bootstrap_samples(EditFFast(), stats, 200, seed=4)["value"]
    assert a == b
    assert not np.array_equal(bootstrap_samples(EditFFast(), stats, 200, seed=3)["value"], c)
    assert a.low <= a.value <= a.high or a.low <= a.mean <= a.high


def test_randomisation_p_value_matches_enumeration_of_all_swaps() -> None:
    data, hyps = toy_corpus()
    # ten sentences: the toy corpus twice, so there are 2**10 swap patterns
    sa = EditF().sentence_stats(data, hyps[0]) * 2
    sb = EditF().sentence_stats(data, hyps[1]) * 2
    n = len(sa)
    patterns = np.array(list(itertools.product((0, 1), repeat=n)))
    obs = abs(EditF().aggregate(sa).value - EditF().aggregate(sb).value)
    count = 0
    for sw in patterns:
        x = [sb[i] if s else sa[i] for i, s in enumerate(sw)]
        y = [sa[i] if s else sb[i] for i, s in enumerate(sw)]
        if abs(EditF().aggregate(x).value - EditF().aggregate(y).value) >= obs - 1e-12:
            count += 1
    exact = (count + 1) / (len(patterns) + 1)
    for metric in (EditF(), EditFFast()):
        got = approximate_randomisation(metric, sa, sb, swaps=patterns)
        assert got.p_value == pytest.approx(exact)
    sampled = approximate_randomisation(EditFFast(), sa, sb, 4000, seed=1).p_value
    assert sampled == pytest.approx(exact, abs=0.03)


def test_paired_bootstrap_p_value_matches_hand_computation() -> None:
    data, hyps = toy_corpus()
    sa = EditF().sentence_stats(data, hyps[0])
    sb = EditF().sentence_stats(data, hyps[1])
    idx = np.random.default_rng(11).integers(0, 5, size=(500, 5))
    diffs = np.array([EditF().aggregate([sa[i] for i in r]).value
                      - EditF().aggregate([sb[i] for i in r]).value for r in idx])
    obs = EditF().aggregate(sa).value - EditF().aggregate(sb).value
    c = sum(abs(d - diffs.mean()) >= abs(obs) - 1e-12 for d in diffs)
    for metric in (EditF(), EditFFast()):
        got = paired_bootstrap(metric, sa, sb, indices=idx)
        actual = (got.delta, got.p_value)
        assert actual == pytest.approx((obs, (c + 1) / 501))


def test_identical_systems_have_p_one() -> None:
    data, hyps = toy_corpus()
    s = EditF().sentence_stats(data, hyps[1])
    for metric in (EditF(), EditFFast()):
        assert paired_bootstrap(metric, s, list(s), 300, seed=2).p_value == 1.0
        assert approximate_randomisation(metric, s, list(s), 300, seed=2).p_value == 1.0


def test_p_value_counts_ties_and_adds_one() -> None:
    assert p_value(np.array([0.1, 0.2, 0.3, 0.0]), 0.2) == pytest.approx(3 / 5)
    assert p_value(np.array([0.0, 0.0]), 0.5) == pytest.approx(1 / 3)


def test_generic_metric_without_fast_path_uses_aggregate() -> None:
    data, hyps = toy_corpus()
    stats = ExactMatch().sentence_stats(data, hyps[2])  # [0, 0, 0, 1, 0]
    idx = np.array([[3, 3, 3, 3, 3], [0, 1, 2, 3, 4], [3, 3, 0, 0, 0]])
    assert bootstrap_samples(ExactMatch(), stats, indices=idx)["value"].tolist() == \
        pytest.approx([1.0, 0.2, 0.4])


def test_paired_test_ranks_and_groups() -> None:
    data, hyps = toy_corpus()
    metric = EditFFast()
    results = [metric.evaluate(data, h) for h in hyps]
    pt = PairedTest(metric, results, n_samples=300, seed=5)
    ranking = pt.ranking()
    actual = [r.system for r in ranking]
    assert actual == ["good", "over", "copy"]
    actual = [r.rank for r in ranking]
    assert actual == [1, 2, 3]
    assert ranking[0].versus_leader is None
    assert ranking[0].interval is not None and ranking[0].interval.n_samples == 300
    # the shared resamples make pairwise bootstrap comparisons consistent with paired_bootstrap
    direct = paired_bootstrap(metric, results[0].stats, results[1].stats, indices=pt.indices)
    assert pt.compare("good", "over").p_value == pytest.approx(direct.p_value)
    # all systems resampled in one stacked loop == each system on its own
    for r in results:
        alone = bootstrap_samples(metric, r.stats, indices=pt.indices)["value"]
        assert pt.samples(r.system).tolist() == alone.tolist()
    with pytest.raises(ConfigError):
        PairedTest(metric, results, test="t-test")


# --- CoNLL-2014 (real data, ERRANT-typed M2 of the CLEME repository) -----------------------


def _better(system: Corpus, ref: Corpus) -> Corpus:
    """Every 4th sentence replaced by annotator 0's edits: more TP and fewer FP by design."""
    out = []
    for i, (h, r) in enumerate(zip(system, ref, strict=True)):
        if i % 4 == 0:
            out.append(Sentence(h.source, (Annotation(0, r.edits(0)),)))
        else:
            out.append(h)
    return Corpus(tuple(out))


@pytest.fixture(scope="module")
def conll_errant(conll14: Path) -> tuple[EvalData, dict[str, Hypothesis]]:
    d = conll14 / "errant"
    data = EvalData.from_m2(read_m2(d / "references.m2"))
    hyps = {p.stem: Hypothesis.from_file(p) for p in sorted(d.glob("*.m2"))
            if p.stem != "references"}
    return data, hyps


@pytest.mark.slow
def test_errant_fast_path_matches_aggregate_on_conll(conll_errant) -> None:
    from gecscope.metrics.errant import ErrantMetric

    data, hyps = conll_errant
    assert len(hyps) == 13
    idx = np.random.default_rng(0).integers(0, len(data), size=(8, len(data)))
    for cfg in ({}, {"selection_rounding": None}, {"beta": 1.0}):
        metric = ErrantMetric(**cfg)
        for name in ("AMU", "CAMB", "INPUT", "IPN") if cfg else sorted(hyps):
            stats = metric.sentence_stats(data, hyps[name])
            fast = bootstrap_samples(metric, stats, indices=idx, fields=True)
            slow = bootstrap_samples(metric, stats, indices=idx, fields=True, fast=False)
            assert {k: v.tolist() for k, v in fast.items()} == \
                {k: v.tolist() for k, v in slow.items()}, (name, cfg)


@pytest.mark.slow
def test_strictly_better_system_wins_significantly_on_conll(conll_errant) -> None:
    from gecscope.metrics.errant import ErrantMetric

    data, hyps = conll_errant
    base = hyps["AMU"]
    assert data.m2 is not None and base.m2 is not None
    better_m2 = _better(base.m2, data.m2)
    better = Hypothesis("AMU+", better_m2.hypotheses(), better_m2, "AMU+.m2")
    metric = ErrantMetric()
    ra, rb = metric.evaluate(data, better), metric.evaluate(data, base)
    assert ra.score.fields["TP"] > rb.score.fields["TP"]
    assert ra.score.fields["FP"] < rb.score.fields["FP"]
    boot = paired_bootstrap(metric, ra.stats, rb.stats, 1000, seed=12345)
    ar = approximate_randomisation(metric, ra.stats, rb.stats, 1000, seed=12345)
    assert boot.delta > 0.02
    assert boot.p_value < 0.01 and ar.p_value < 0.01
    # and a system against itself is never significant
    same = PairedTest(metric, [rb, dataclasses.replace(rb, system="AMU-copy")], n_samples=200)
    assert same.compare("AMU", "AMU-copy").p_value == 1.0


@pytest.mark.slow
def test_m2_fast_path_matches_aggregate_on_conll(conll14: Path) -> None:
    from gecscope.metrics.m2 import M2Metric

    data = EvalData((str(conll14 / "official-2014.combined.m2"),))
    idx = np.random.default_rng(3).integers(0, len(data), size=(6, len(data)))
    metric = M2Metric()
    for name in ("UFC", "IITB"):
        hyp = Hypothesis.from_file(conll14 / "submissions" / name, name)
        result = metric.evaluate(data, hyp)
        # M2 scorer F0.5 on official-2014.combined.m2 (shared/data/README.md): UFC 7.84, IITB 5.90
        assert round(result.score.value * 100, 2) == {"UFC": 7.84, "IITB": 5.90}[name]
        fast = bootstrap_samples(metric, result.stats, indices=idx, fields=True)
        slow = bootstrap_samples(metric, result.stats, indices=idx, fields=True, fast=False)
        assert {k: v.tolist() for k, v in fast.items()} == \
            {k: v.tolist() for k, v in slow.items()}


@pytest.mark.slow
def test_cleme2_fast_path_matches_aggregate_on_conll(conll_errant) -> None:
    from gecscope.metrics.cleme import CLEME2Metric

    data, hyps = conll_errant
    idx = np.random.default_rng(5).integers(0, len(data), size=(6, len(data)))
    for opts in ({}, {"assumption": "independent"}):
        metric = CLEME2Metric(**opts)
        for name in ("AMU", "UFC"):
            stats = metric.sentence_stats(data, hyps[name])
            fast = bootstrap_samples(metric, stats, indices=idx, fields=True)
            slow = bootstrap_samples(metric, stats, indices=idx, fields=True, fast=False)
            assert set(fast) >= {"Hit", "Wrong", "Under", "Over"}
            assert {k: v.tolist() for k, v in fast.items()} == \
                {k: v.tolist() for k, v in slow.items()}, (name, opts)


@pytest.mark.slow
@pytest.mark.parametrize("draw", ["py2", "py3"])
def test_gleu_fast_path_matches_aggregate_on_jfleg(shared_data: Path, draw: str) -> None:
    # GLEU had no fast path: 1,000 resamples cost about 15 CPU-minutes per system
    from gecscope.metrics.gleu import GLEUMetric

    d = shared_data / "jfleg" / "dev"
    data = EvalData(tuple(str(d / f"dev.ref{k}") for k in range(4)), str(d / "dev.src"))
    metric = GLEUMetric(draw=draw, iterations=60)
    a = metric.sentence_stats(data, Hypothesis.from_file(d / "dev.spellchecked.src"))
    b = metric.sentence_stats(data, Hypothesis.from_file(d / "dev.src"))
    idx = np.random.default_rng(9).integers(0, len(data), size=(5, len(data)))
    from gecscope.stats.resample import Scorer

    assert Scorer(metric, a).fast  # vectorised, not aggregate() per resample
    fast = bootstrap_samples(metric, a, indices=idx, fields=True)
    slow = bootstrap_samples(metric, a, indices=idx, fields=True, fast=False)
    assert set(fast) == {"value", "GLEU", "draws_std", "draws_ci_low", "draws_ci_high"}
    assert {k: v.tolist() for k, v in fast.items()} == {k: v.tolist() for k, v in slow.items()}
    # paired tests stack the two systems' statistics: same results either way
    fast_ar = approximate_randomisation(metric, a, b, n_samples=4, seed=2)
    slow_ar = approximate_randomisation(metric, a, b, n_samples=4, seed=2, fast=False)
    assert fast_ar == slow_ar
    fast_pb = paired_bootstrap(metric, a, b, n_samples=4, seed=2)
    assert fast_pb == paired_bootstrap(metric, a, b, n_samples=4, seed=2, fast=False)

"""CLEME and CLEME2.0 scores on a small corpus whose counts are worked out by hand below."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from cleme_example import HYP_M2, REF_M2

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.cleme import (
    CLEME2Metric,
    CLEMEMetric,
    CLEMEStats,
    RefChunkStats,
)
from gecscope.metrics.cleme.weights import LENGTH_CORPUS, LENGTH_SENTENCE, length_weight
from gecscope.registry import get_metric


@pytest.fixture()
def toy(tmp_path: Path) -> tuple[EvalData, Hypothesis]:
    (tmp_path / "ref.m2").write_text(REF_M2, encoding="utf-8")
    (tmp_path / "hyp.m2").write_text(HYP_M2, encoding="utf-8")
    return EvalData((str(tmp_path / "ref.m2"),)), Hypothesis.from_file(tmp_path / "hyp.m2")


def test_registry_names() -> None:
    assert get_metric("cleme") is CLEMEMetric
    assert get_metric("cleme2") is CLEME2Metric


def test_cleme_dependent_corpus_unweighted(toy: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = toy
    res = CLEMEMetric(weighting="none").evaluate(data, hyp)
    # S1: both refs tie (1 TP, 2 FP, 1 FN, 3 TN) -> ref0; S3: ref0 gives cumulative F 0.526 > 0.278
    p, r = 2 / 4, 2 / 3
    f = 1.25 * p * r / (0.25 * p + r)
    assert res.score.fields == pytest.approx(
        {"F": f, "P": p, "R": r, "Acc": 8 / 11, "TP": 2, "FP": 2, "FN": 1, "TN": 6})
    assert res.score.value == pytest.approx(f)
    assert res.score.main == "F"
    assert res.score.details["chosen_refs"] == [0, 0, 0]
    # per-sentence F of the best reference, rounded to 4 decimals as THUKElab/CLEME v1.1 does
    f1 = 1.25 * (1 / 3) * 0.5 / (0.25 / 3 + 0.5)
    assert res.sentence_scores == pytest.approx([round(f1, 4), 1.0, 1.0])
    exact = CLEMEMetric(weighting="none", fix_rounding=True).evaluate(data, hyp)
    assert exact.sentence_scores == pytest.approx([f1, 1.0, 1.0])


def test_cleme_sentence_level_and_independent(toy: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = toy
    sent = CLEMEMetric(weighting="none", level="sentence", fix_rounding=True).score(data, hyp)
    f1 = 1.25 * (1 / 3) * 0.5 / (0.25 / 3 + 0.5)
    assert sent.fields == pytest.approx(
        {"F": (f1 + 2) / 3, "P": (1 / 3 + 2) / 3, "R": (0.5 + 2) / 3, "Acc": (4 / 7 + 2) / 3,
         "TP": 2, "FP": 2, "FN": 1, "TN": 6})
    # the default: THUKElab/CLEME v1.1 averages sentence values rounded to 4 decimals
    tool = CLEMEMetric(weighting="none", level="sentence").score(data, hyp)
    assert tool.fields["F"] == pytest.approx((round(f1, 4) + 2) / 3)
    assert tool.fields["Acc"] == pytest.approx((round(4 / 7, 4) + 2) / 3)
    ind = CLEMEMetric(weighting="none", assumption="independent").score(data, hyp)
    assert ind.fields == pytest.approx(
        {"F": 0.75, "P": 0.75, "R": 0.75, "Acc": 9 / 11, "TP": 3, "FP": 1, "FN": 1, "TN": 6})


def test_cleme2_corpus_and_sentence(toy: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = toy
    corpus = CLEME2Metric().score(data, hyp)
    # totals TP 2, FP_ne 1, FP_un 1, FN 1: Hit .5, Wrong .25, Under .25, Over .25
    assert corpus.fields == pytest.approx(
        {"Score": 0.45 * 0.5 + 0.35 * 0.75 + 0.15 * 0.75 + 0.05 * 0.75, "Hit": 0.5,
         "Wrong": 0.25, "Under": 0.25, "Over": 0.25, "TP": 2, "FP": 2, "FP_ne": 1, "FP_un": 1,
         "FN": 1, "TN": 6})
    assert corpus.main == "Score"
    # the paper's sentence factors, as THUKElab/CLEME's main.py --level sentence passes them
    sent = CLEME2Metric(level="sentence").evaluate(data, hyp)
    s1 = 0.35 / 3 + 0.25 * 2 / 3 + 0.20 * 2 / 3 + 0.20 * 2 / 3
    s2 = 0.25 + 0.20 + 0.20  # nothing to correct and no edit: 1 - factor_hit
    assert sent.sentence_scores == pytest.approx([s1, s2, 1.0])
    assert sent.score.fields == pytest.approx(
        {"Score": (s1 + s2 + 1) / 3, "Hit": (1 / 3 + 1) / 3, "Wrong": 1 / 9, "Under": 1 / 9,
         "Over": 1 / 9, "TP": 2, "FP": 2, "FP_ne": 1, "FP_un": 1, "FN": 1, "TN": 6})
    # the sentence row of the tool's --level corpus run: the corpus factors, given explicitly
    corpus_factors = CLEME2Metric(level="sentence", factor_hit=0.45, factor_wrong=0.35,
                                  factor_under=0.15, factor_over=0.05).evaluate(data, hyp)
    t1 = 0.45 / 3 + 0.35 * 2 / 3 + 0.15 * 2 / 3 + 0.05 * 2 / 3
    assert corpus_factors.sentence_scores == pytest.approx([t1, 0.35 + 0.15 + 0.05, 1.0])
    custom = CLEME2Metric(factor_hit=1.0, factor_wrong=0.0, factor_under=0.0, factor_over=0.0)
    assert custom.score(data, hyp).value == pytest.approx(0.5)


def test_cleme_length_weighting_matches_the_formula(toy: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = toy
    # every reference chunk has length 1 -> bias 1; every hypothesis chunk here has length 1
    res = CLEMEMetric(weighting="length").score(data, hyp)
    assert res.details["length_bias"] == pytest.approx(1.0)
    assert res.fields["TP"] == pytest.approx(2.0)
    # with a bias of 3 the weights differ: TP/FN 2/(1+e^2) -> clipped 0.75, FP 2/(1+e^-2) -> 1.25
    res3 = CLEMEMetric(weighting="length", length_bias=3.0).score(data, hyp)
    p, r = 1.5 / 4.0, 1.5 / 2.25
    assert res3.fields == pytest.approx(
        {"F": 1.25 * p * r / (0.25 * p + r), "P": p, "R": r,
         "Acc": 7.5 / (1.5 + 2.5 + 0.75 + 6), "TP": 1.5, "FP": 2.5, "FN": 0.75, "TN": 6})
    unclipped = CLEMEMetric(weighting="length", length_bias=3.0, length_tp_min=0.0,
                            length_fp_max=2.0, length_fn_min=0.0).score(data, hyp)
    w_tp = 2 / (1 + math.exp(2))
    w_fp = 2 / (1 + math.exp(-2))
    actual = (unclipped.fields["TP"], unclipped.fields["FP"], unclipped.fields["FN"])
    assert actual == \
        pytest.approx((2 * w_tp, 2 * w_fp, w_tp))


def test_length_weight_function() -> None:
    assert length_weight(2, 2.0, 2.0, 0, 10) == pytest.approx(1.0)
    assert length_weight(5, 2.0, 2.0, 0, 10) == pytest.approx(2 / (1 + math.exp(-3)))
    assert length_weight(5, 2.0, 2.0, 0, 10, reverse=True) == pytest.approx(2 / (1 + math.exp(3)))
    assert length_weight(50, 10.0, 2.0, 0.25, 1.0, reverse=True) == 0.25
    assert length_weight(1000, 2.0, 0.0, 0.75, 1.25, reverse=True) == 0.75


def test_sentence_level_length_settings_and_the_fix() -> None:
    cfg = CLEMEMetric.Config(level="sentence", fix_sentence_weights=True)
    assert cfg.length_params() == LENGTH_SENTENCE["dependent"]
    ind = CLEMEMetric.Config(level="sentence", assumption="independent",
                             fix_sentence_weights=True)
    assert ind.length_params() == LENGTH_SENTENCE["independent"]
    # THUKElab/CLEME v1.1 ignores the sentence-level settings: the default reproduces that
    assert CLEMEMetric.Config(level="sentence").length_params() == LENGTH_CORPUS
    assert CLEME2Metric.Config(level="sentence").length_params() == LENGTH_CORPUS
    # the former spelling: compat=false switched every fix on, compat=true none
    old = CLEMEMetric.Config(level="sentence", compat=False)
    assert old.length_params() == LENGTH_SENTENCE["dependent"]
    assert (old.fix_rounding, old.fix_sentence_beta, old.fix_zero_weights, old.compat) == \
        (True, True, True, None)
    assert CLEMEMetric.Config(compat=True) == CLEMEMetric.Config()
    assert CLEMEMetric.Config(level="corpus").length_params() == LENGTH_CORPUS
    assert CLEMEMetric.Config(length_alpha=3.0).length_params().alpha == 3.0


def _stats(tp: int, fp: int, fn: int, tn: int = 0) -> RefChunkStats:
    return RefChunkStats(tp=(1,) * tp, fp_un=(1,) * fp, fn=(1,) * fn, tn=tn)


def test_four_decimal_rounding_in_corpus_selection_unless_fixed() -> None:
    # cumulative F is 0.5 after sentence 1; ref A keeps it at exactly 0.5, ref B gives 0.49999
    # (1 TP, 2 FP). Rounded to 4 dp both are 0.5 and the tie goes to B's larger TP.
    stats = [CLEMEStats((_stats(10000, 10000, 10000),)),
             CLEMEStats((_stats(0, 0, 0), _stats(1, 2, 0)))]
    exact = CLEMEMetric(weighting="none", fix_rounding=True).aggregate(stats)
    assert exact.details["chosen_refs"] == [0, 0]
    compat = CLEMEMetric(weighting="none").aggregate(stats)
    assert compat.details["chosen_refs"] == [0, 1]
    actual = (compat.fields["TP"], compat.fields["FP"])
    assert actual == (10001, 10002)


def test_sentence_level_beta_is_honoured_when_fixed() -> None:
    stats = [CLEMEStats((_stats(1, 1, 3),))]
    p, r = 0.5, 0.25
    f1 = 2 * p * r / (p + r)
    fixed = CLEMEMetric(weighting="none", level="sentence", beta=1.0, fix_sentence_beta=True,
                        fix_rounding=True)
    assert fixed.aggregate(stats).value == pytest.approx(f1)
    f05 = 1.25 * p * r / (0.25 * p + r)
    got = CLEMEMetric(weighting="none", level="sentence", beta=1.0).aggregate(stats)
    assert got.value == pytest.approx(round(f05, 4))


def test_model_weights_are_summed_and_zero_stays_zero_when_fixed() -> None:
    r = RefChunkStats(tp=(1, 1), fp_un=(1,), fn=(2,), tn=4,
                      weights=((0.5, 0.0), (), (0.25,), (2.0,)))
    stats = [CLEMEStats((r,))]
    m2 = CLEME2Metric(weighting="similarity").aggregate(stats)
    actual = (m2.fields["TP"], m2.fields["FP_un"], m2.fields["FN"], m2.fields["TN"])
    assert actual == \
        pytest.approx((0.5, 0.25, 2.0, 4))
    m1 = CLEMEMetric(weighting="similarity").aggregate(stats)
    assert m1.fields["TP"] == pytest.approx(1.5)  # reference code: `weight or 1.0`
    fixed_metric = CLEMEMetric(weighting="similarity", fix_zero_weights=True)
    fixed = fixed_metric.aggregate(stats)
    assert fixed.fields["TP"] == pytest.approx(0.5)
    # the tool's score from the same statistics, for the note under the table
    official = fixed_metric.official_score(None, None, stats)  # type: ignore[arg-type]
    assert official is not None and official.fields == m1.fields
    with pytest.raises(ConfigError):
        CLEMEMetric(weighting="similarity").aggregate([CLEMEStats((_stats(1, 0, 0),))])


@pytest.mark.parametrize("options", [
    {"level": "document"}, {"assumption": "both"}, {"weighting": "bert"},
    {"merge_distance": -1}, {"length_alpha": 0.0}, {"length_tp_min": 2.0, "length_tp_max": 1.0},
    {"weighting": "llm"}, {"beta": 0.0}, {"unknown_option": 1},
])
def test_cleme_config_validation(options: dict) -> None:
    with pytest.raises(ConfigError):
        CLEMEMetric(**options)


@pytest.mark.parametrize("factors", [
    {"factor_hit": 0.5, "factor_wrong": 0.5, "factor_under": 0.5, "factor_over": 0.5},
    {"factor_hit": 1.2, "factor_wrong": -0.2, "factor_under": 0.0, "factor_over": 0.0},
    {"factor_hit": 0.5},
])
def test_cleme2_factor_validation(factors: dict) -> None:
    with pytest.raises(ConfigError):
        CLEME2Metric(**factors)


def test_cleme2_default_factors_per_level() -> None:
    """#33 item 1: THUKElab/CLEME's main.py gives its scorer the corpus factors for --level
    corpus and the sentence factors for --level sentence (run here: AMU sentence Score 0.5338,
    tests/regression/test_cleme_conll14.py); the corpus ones at sentence level were a wrong
    default. fix_sentence_factors, which took the sentence ones, is a former no-op option."""
    assert CLEME2Metric.Config().factors() == (0.45, 0.35, 0.15, 0.05)
    assert CLEME2Metric.Config(level="sentence").factors() == (0.35, 0.25, 0.20, 0.20)
    for old in (True, False):
        cfg = CLEME2Metric.Config(level="sentence", fix_sentence_factors=old)
        assert cfg.factors() == (0.35, 0.25, 0.20, 0.20)
        metric = CLEME2Metric(cfg)
        assert metric.fixes_on() == [] and "fix_sentence_factors" not in metric.options()
    assert CLEME2Metric(level="sentence", compat=False).fixes_on() == ["fix_sentence_weights"]


def test_heavy_dependencies_load_only_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    code = ("import sys, gecscope.metrics.cleme, gecscope.cli.explain; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    from gecscope.errors import MissingDependencyError
    from gecscope.metrics.cleme.weights import BERTScoreF1

    monkeypatch.setitem(sys.modules, "torch", None)  # as if the sim extra were not installed
    with pytest.raises(MissingDependencyError, match=r"gecscope\[sim\]"):
        BERTScoreF1()

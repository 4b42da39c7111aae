"""GLEU statistics, corpus sampling and the corrected variant on hand-checked cases."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.m2 import parse_m2
from gecscope.metrics.gleu import (
    GLEUMetric,
    GLEUSentenceStats,
    corrected_stats,
    draw_references,
    gleu_from_stats,
    mean_std_ci,
    official_stats,
)


def _toks(s: str) -> tuple[str, ...]:
    return tuple(s.split())


def test_official_stats_perfect_hypothesis() -> None:
    st = official_stats(_toks("the cat sat"), _toks("the cat sat down"), _toks("the cat sat down"))
    assert st == (4, 4, 4, 4, 3, 3, 2, 2, 1, 1)
    assert gleu_from_stats(st) == 1.0


def test_unchanged_source_and_smoothing() -> None:
    st = official_stats(_toks("the cat sat"), _toks("the cat sat"), _toks("the cat sat down"))
    # 4-grams: none in a 3-token hypothesis -> 0/0 -> corpus-style GLEU is 0
    assert st == (3, 4, 3, 3, 2, 2, 1, 1, 0, 0)
    assert gleu_from_stats(st) == 0.0
    # smoothed (official sentence level): zeros count as 1 -> brevity penalty only
    assert gleu_from_stats(st, smooth=True) == pytest.approx(math.exp(1 - 4 / 3))


def test_count_blind_source_difference_and_corrected_variant() -> None:
    src, hyp, ref = _toks("a a b"), _toks("a a b"), _toks("a c")
    # unigrams: H & R = {a: 1}; official S \ R drops "a" entirely (it occurs in R), keeps
    # {b: 1} -> numerator 1 - 1 = 0. Corrected: "a" (s=2, h=2, r=1): TK 1, UD 1 -> 0;
    # "b" (s=1, h=1, r=0): UD 1 -> -1.
    assert official_stats(src, hyp, ref) == (3, 2, 0, 3, 0, 2, 0, 1, 0, 0)
    assert corrected_stats(src, hyp, ref) == (3, 2, -1, 3, -2, 2, -1, 1, 0, 0)
    # where the bug does not bite, both agree
    s2, h2, r2 = _toks("he go to school"), _toks("he goes to school"), _toks("he goes to school")
    assert official_stats(s2, h2, r2) == corrected_stats(s2, h2, r2) == (
        4, 4, 4, 4, 3, 3, 2, 2, 1, 1)
    # a kept source word that the reference changed is penalised once
    h3 = _toks("he go to school")
    assert official_stats(s2, h3, r2)[2:4] == (2, 4)  # 3 matched unigrams - "go" (in S \ R)
    assert corrected_stats(s2, h3, r2)[2:4] == (2, 4)


def test_reference_draws_python2_and_python3() -> None:
    # Python 2's randint(0, 3) is int(random() * 4); Python 3's uses getrandbits: different
    assert draw_references(8, 4, 1, "py2") == [2, 0, 3, 3, 1, 2, 0, 0]
    assert draw_references(8, 4, 1, "py3") == [1, 2, 3, 0, 1, 1, 2, 3]
    assert draw_references(8, 4, 0, "py2") == [3, 3, 1, 1, 2, 1, 3, 1]
    state = random.getstate()
    draw_references(5, 4, 3, "py3")
    assert random.getstate() == state  # no global random state is touched


def test_iterations_sum_the_drawn_references() -> None:
    a = (3, 3, 3, 3, 2, 2, 1, 1, 1, 1)
    b = (3, 4, 2, 3, 1, 2, 1, 1, 1, 1)
    stats = [GLEUSentenceStats((a, b)), GLEUSentenceStats((b, a)), GLEUSentenceStats((a, a))]
    metric = GLEUMetric(iterations=4)
    expected = []
    for j in range(4):
        picks = draw_references(3, 2, j, "py2")
        total = [sum(col) for col in zip(*(s.refs[k] for s, k in zip(stats, picks)))]
        expected.append(gleu_from_stats(total))
    assert metric.iteration_scores(stats) == pytest.approx(expected)
    score = metric.aggregate(stats)
    mean, std, lo, hi = mean_std_ci(expected)
    assert score.fields == pytest.approx({"GLEU": mean, "draws_std": std, "draws_ci_low": lo, "draws_ci_high": hi})


def test_single_reference_is_one_iteration() -> None:
    stats = [GLEUSentenceStats(((4, 4, 4, 4, 3, 3, 2, 2, 1, 1),))]
    score = GLEUMetric().aggregate(stats)
    assert score.details["iterations"] == 1
    assert score.fields == pytest.approx({"GLEU": 1.0, "draws_std": 0.0, "draws_ci_low": 1.0,
                                          "draws_ci_high": 1.0})


def test_mean_std_ci_matches_the_normal_interval() -> None:
    mean, std, lo, hi = mean_std_ci([0.2, 0.4])
    actual = (mean, std)
    assert actual == pytest.approx((0.3, 0.1))
    actual = (lo, hi)
    assert actual == pytest.approx((0.3 - 0.1959963984540054, 0.3 + 0.1959963984540054))


def test_plain_text_references_and_sentence_scores(tmp_path: Path) -> None:
    (tmp_path / "src").write_text("the cat sat\nhe go home\n", encoding="utf-8")
    (tmp_path / "r0").write_text("the cat sat down\nhe goes home\n", encoding="utf-8")
    (tmp_path / "r1").write_text("the cat sat\nhe went home\n", encoding="utf-8")
    data = EvalData((str(tmp_path / "r0"), str(tmp_path / "r1")), str(tmp_path / "src"))
    hyp = Hypothesis("h", [_toks("the cat sat"), _toks("he goes home")])
    metric = GLEUMetric()
    result = metric.evaluate(data, hyp)
    st = result.stats
    assert st[0].refs == ((3, 4, 3, 3, 2, 2, 1, 1, 0, 0), (3, 3, 3, 3, 2, 2, 1, 1, 0, 0))
    assert st[1].refs == ((3, 3, 3, 3, 2, 2, 1, 1, 0, 0), (3, 3, 2, 3, 0, 2, 0, 1, 0, 0))
    # sentence 0: smoothed GLEU exp(1 - 4/3) and 1.0 -> mean; sentence 1: 1.0 and, with the
    # zeros smoothed to 1, exp(mean(log(2/3), log(1/2), log(1/1), log(1/1)))
    s1b = math.exp((math.log(2 / 3) + math.log(1 / 2)) / 4)
    assert result.sentence_scores == pytest.approx([(math.exp(-1 / 3) + 1) / 2, (1 + s1b) / 2])
    # the 4-gram statistics are 0 in every sentence: every corpus draw scores 0
    assert result.score.value == 0.0


def test_references_derived_from_an_m2() -> None:
    m2 = ("S he go to school\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\n"
          "A 1 2|||Vt|||went|||REQUIRED|||-NONE-|||1\n\n")
    data = EvalData.from_m2(parse_m2(m2))
    stats = GLEUMetric().sentence_stats(data, Hypothesis("h", [_toks("he goes to school")]))
    assert stats[0].refs == ((4, 4, 4, 4, 3, 3, 2, 2, 1, 1), (4, 4, 3, 4, 1, 3, 0, 2, 0, 1))


def test_config_validation() -> None:
    with pytest.raises(ConfigError):
        GLEUMetric(draw="py4")
    with pytest.raises(ConfigError):
        GLEUMetric(variant="green")
    with pytest.raises(ConfigError):
        GLEUMetric(iterations=0)
    with pytest.raises(ConfigError):
        GLEUMetric(order=0)


def test_green_counts_by_hand() -> None:
    # source "a b c", reference "a b d" (c -> d), hypothesis "a x c" (b -> x): unigrams
    # a: kept (TK 1); b: wrongly deleted (OD 1); c: should go (UD 1); d: missing (UI 1);
    # x: wrongly inserted (OI 1) -> TP 1, FP 2, FN 2
    from gecscope.metrics.green import green_score, ngram_counts, order_counts

    s, h, r = (ngram_counts(t.split(), 1) for t in ("a b c", "a x c", "a b d"))
    counts = order_counts(s, h, r, 1)
    assert counts == (1, 2, 2)
    p, rec, f = green_score(counts, 2.0)
    assert p == pytest.approx(1 / 3) and rec == pytest.approx(1 / 3)
    assert f == pytest.approx(1 / 3)
    same = order_counts(s, s, s, 1)  # nothing to do, nothing done
    assert same == (3, 0, 0) and green_score(same, 2.0) == (1.0, 1.0, 1.0)


def test_draw_totals_numpy_equal_the_loop() -> None:
    """The matrix-product sums of every reference draw equal the plain loop's, exactly."""
    pytest.importorskip("numpy")
    import random

    from gecscope.metrics.gleu import (
        GLEUSentenceStats,
        _all_draws,
        _draw_totals,
        _draw_totals_numpy,
    )

    rng = random.Random(3)
    for n_refs in (1, 2, 4):
        stats = [GLEUSentenceStats(tuple(tuple(rng.randint(0, 40) for _ in range(10))
                                         for _ in range(n_refs))) for _ in range(57)]
        draws = _all_draws(len(stats), n_refs, 25, "py2")
        slow = _draw_totals(stats, draws, n_refs, 10)
        assert _draw_totals_numpy(stats, draws, n_refs, 10) == slow
        assert len({tuple(row) for row in slow}) > (n_refs > 1)  # the draws differ


def _unmemoised_official(source, hyp, refs, order=4):
    """The official statistics straight from the definition (``_official_numerator``), as the
    module computed them before the content memo."""
    from gecscope.metrics.gleu import _official_numerator, ngram_counts

    rows = []
    for ref in refs:
        row = [len(hyp), len(ref)]
        for n in range(1, order + 1):
            row += [_official_numerator(ngram_counts(hyp, n), ngram_counts(ref, n),
                                        ngram_counts(source, n)), max(len(hyp) + 1 - n, 0)]
        rows.append(tuple(row))
    return rows


def test_memoised_official_statistics_equal_the_definition(shared_data) -> None:
    # every sentence of JFLEG dev, the source and each reference as hypotheses (repeated
    # n-grams, empty overlaps, identical sentences), and a shuffled copy
    import random as _random

    from gecscope.metrics.gleu import reference_stats

    d = shared_data / "jfleg" / "dev"
    src = [ln.split() for ln in (d / "dev.src").read_text(encoding="utf-8").splitlines()]
    refs = [[ln.split() for ln in (d / f"dev.ref{k}").read_text(encoding="utf-8").splitlines()]
            for k in range(4)]
    rng = _random.Random(5)
    for i, s in enumerate(src):
        sentence_refs = [r[i] for r in refs]
        shuffled = list(s)
        rng.shuffle(shuffled)
        for hyp in (s, sentence_refs[0], sentence_refs[3], shuffled, s + s[:3], []):
            for order in (4, 2):
                assert reference_stats(s, hyp, sentence_refs, order) == \
                    _unmemoised_official(s, hyp, sentence_refs, order)

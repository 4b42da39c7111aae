"""Expected Wins and TrueSkill on small worked examples."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError
from gecscope.judgments import LOSS, TIE, WIN, Comparison
from gecscope.meta_eval.ranking import (
    TrueSkillParams,
    expected_wins,
    expected_wins_bootstrap,
    pairwise_counts,
    sentence_comparisons,
    trueskill_ratings,
    trueskill_scores,
    trueskill_wmt_scores,
)


def C(a: str, b: str, outcome: int) -> Comparison:
    return Comparison(a, b, outcome)


# A beats B 3:1 (.75), A and C 1:1 plus a tie (.5), B beats C 2:0 (1.0); D only ties with A.
COMPS = [C("A", "B", WIN)] * 2 + [C("B", "A", LOSS), C("B", "A", WIN), C("A", "C", WIN),
                                  C("C", "A", WIN), C("A", "C", TIE), C("B", "C", WIN),
                                  C("C", "B", LOSS), C("A", "D", TIE)]


def test_pairwise_counts() -> None:
    counts = pairwise_counts(COMPS)
    assert counts.systems == ("A", "B", "C", "D")
    assert dict(counts.wins) == {("A", "B"): 3, ("B", "A"): 1, ("A", "C"): 1, ("C", "A"): 1,
                                 ("B", "C"): 2}
    actual = (counts.tied("A", "C"), counts.tied("D", "A"))
    assert actual == (1, 1)
    assert counts.win_rate("A", "B") == 0.75
    assert counts.win_rate("A", "D") is None


def test_expected_wins_worked_example() -> None:
    # A: (.75 + .5) / 2 (D never decided: left out); B: (.25 + 1) / 2; C: (.5 + 0) / 2; D: none.
    assert expected_wins(COMPS) == pytest.approx({"A": 0.625, "B": 0.625, "C": 0.25, "D": 0.0})
    assert expected_wins(COMPS, ["A", "B"]) == pytest.approx({"A": 0.75, "B": 0.25})
    assert expected_wins(pairwise_counts(COMPS)) == expected_wins(COMPS)


def test_expected_wins_without_decisions_does_not_divide_by_zero() -> None:
    assert expected_wins([C("A", "B", TIE)]) == {"A": 0.0, "B": 0.0}
    assert expected_wins([]) == {}


def test_bootstrap_is_seeded_and_near_the_point_estimate() -> None:
    pytest.importorskip("numpy")
    data = COMPS * 50
    a = expected_wins_bootstrap(data, ["A", "B", "C"], n_resamples=200, seed=3)
    b = expected_wins_bootstrap(data, ["A", "B", "C"], n_resamples=200, seed=3)
    assert a == b
    # every pair is decided here, so the |S|-1 denominator equals the point estimate's
    assert a == pytest.approx(expected_wins(data, ["A", "B", "C"]), abs=0.02)
    with pytest.raises(ConfigError):
        expected_wins_bootstrap(data, n_resamples=0)


def test_trueskill_single_win_is_symmetric_and_local() -> None:
    trueskill = pytest.importorskip("trueskill")
    before = (trueskill.global_env().mu, trueskill.global_env().sigma)
    r = trueskill_ratings([C("A", "B", WIN)])
    assert r["A"][0] == pytest.approx(-r["B"][0])
    assert r["A"][0] > 0
    assert r["A"][1] == pytest.approx(r["B"][1])
    assert r["A"][1] < 0.5
    draw = trueskill_scores([C("A", "B", TIE)])
    assert draw == pytest.approx({"A": 0.0, "B": 0.0}, abs=1e-12)
    # no global environment was installed or changed
    actual = (trueskill.global_env().mu, trueskill.global_env().sigma)
    assert actual == before


def test_trueskill_is_order_dependent_and_deterministic() -> None:
    pytest.importorskip("trueskill")
    seq = [C("A", "B", WIN), C("B", "C", WIN), C("C", "A", WIN)]
    first = trueskill_scores(seq)
    assert first == trueskill_scores(seq)
    assert first != pytest.approx(trueskill_scores(list(reversed(seq))))
    wide = trueskill_scores(seq, params=TrueSkillParams(beta=1.0))
    assert wide != pytest.approx(first)


def test_trueskill_params_are_validated() -> None:
    with pytest.raises(ConfigError):
        TrueSkillParams(sigma=0)
    with pytest.raises(ConfigError):
        TrueSkillParams(draw_probability=1.0)


def test_trueskill_wmt_protocol_orders_a_clear_ranking() -> None:
    pytest.importorskip("trueskill")
    data = ([C("A", "B", WIN)] * 30 + [C("B", "C", WIN)] * 30 + [C("A", "C", WIN)] * 30
            + [C("A", "B", TIE)] * 5)
    scores = trueskill_wmt_scores(data, n_runs=2, seed=1)
    assert scores == trueskill_wmt_scores(data, n_runs=2, seed=1)
    assert scores["A"] > scores["B"] > scores["C"]
    with pytest.raises(ConfigError):
        trueskill_wmt_scores(data, n_runs=0)


def test_sentence_comparisons_from_metric_scores() -> None:
    scores = {"X": [1.0, 2.0, 0.5], "Y": [0.0, 2.0, 0.7]}
    got = [(c.a, c.b, c.outcome, c.sentence) for c in sentence_comparisons(scores)]
    assert got == [("X", "Y", WIN, 0), ("X", "Y", TIE, 1), ("X", "Y", LOSS, 2)]
    low = sentence_comparisons(scores, ["X", "Y"], sentences=[2], higher_is_better=False)
    actual = [(c.a, c.b, c.outcome) for c in low]
    assert actual == [("X", "Y", WIN)]
    assert expected_wins(sentence_comparisons(scores)) == pytest.approx({"X": 0.5, "Y": 0.5})
    with pytest.raises(ConfigError, match="different numbers"):
        sentence_comparisons({"X": [1.0], "Y": [1.0, 2.0]})

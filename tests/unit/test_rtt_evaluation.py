"""Automatic success/draw/failure judgments (Madnani et al. 2012, Tables 2 and 4) and oracle."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError
from gecscope.rtt.evaluation import (
    EvalConfig,
    evaluate_methods,
    outcome,
    reference_grammaticality,
    token_overlap_f1,
    word_edit_distance,
)
from gecscope.rtt.lm import ArpaLM

ARPA = r"""
\data\
ngram 1=7
ngram 2=4

\1-grams:
-1.0 <s> -0.5
-1.0 </s>
-1.0 he -0.3
-1.2 goes -0.3
-2.5 go -0.3
-1.0 home -0.3
-1.5 now -0.3

\2-grams:
-0.2 <s> he
-0.3 he goes
-0.4 goes home
-0.2 home </s>

\end\
"""


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    p = tmp_path_factory.mktemp("lm") / "t.arpa"
    p.write_text(ARPA.lstrip(), encoding="utf-8")
    return ArpaLM(p)


def test_overlap_and_edit_distance():
    a = ["Both", "experience", "and", "books", "are", "very", "important", "about", "living", "."]
    ru = ["And", "the", "experience", ",", "and", "a", "very", "important", "book", "about", "life", "."]
    assert token_overlap_f1(a, a) == 1.0
    # 6 shared tokens (experience, and, very, important, about, .): F1 0.545 < 0.6, so the
    # Russian round trip of Figure 1 counts as changing the meaning, as the paper says
    assert token_overlap_f1(a, ru) == pytest.approx(2 * 6 / (10 + 12))
    assert token_overlap_f1(a, ru) < EvalConfig().faithfulness_threshold
    # a one-word fix of a three-word sentence keeps the meaning (F1 2/3)
    assert token_overlap_f1(["he", "go", "home"], ["he", "goes", "home"]) >= \
        EvalConfig().faithfulness_threshold
    assert token_overlap_f1([], []) == 1.0
    assert token_overlap_f1(["a"], []) == 0.0
    assert word_edit_distance(["a", "b", "c"], ["A", "c", "d"]) == 2


def test_outcome_matrix():
    # Table 2 (errorful) and Table 4 (grammatical)
    actual = [outcome(g, True, True) for g in ("better", "same", "worse")]
    assert actual == \
        ["success", "draw", "failure"]
    actual = [outcome(g, False, True) for g in ("better", "same", "worse")]
    assert actual == ["failure"] * 3
    actual = [outcome(g, True, False) for g in ("better", "same", "worse")]
    assert actual == \
        ["success", "success", "failure"]
    assert outcome("same", False, False) == "failure"


def test_reference_proxy():
    refs = [["he", "goes", "home"], ["he", "went", "home"]]
    assert reference_grammaticality(["he", "go", "home"], ["he", "goes", "home"], refs) == "better"
    assert reference_grammaticality(["he", "go", "home"], ["he", "go", "home", "now"], refs) == \
        "worse"
    assert reference_grammaticality(["he", "go", "home"], ["he", "gone", "home"], refs) == "same"


def test_evaluate_methods_with_oracle(lm):
    originals = [("he", "go", "home"), ("he", "goes", "home"), ("he", "go", "home")]
    corrections = {
        "greedy": [("he", "goes", "home"), ("he", "goes", "home"), ("home",)],
        "one_best": [("he", "go", "home"), ("he", "go", "home"), ("he", "go", "home")],
    }
    ev = evaluate_methods(originals, corrections, lm, [True, False, True])
    g, o = ev.errorful["greedy"], ev.errorful["one_best"]
    # sentence 1: greedy better + same meaning = success; one_best unchanged = draw
    # sentence 3: greedy drops words (overlap F1 0.5 < 0.6) = failure; one_best draw
    assert g.outcomes == ["success", "failure"]
    assert o.outcomes == ["draw", "draw"]
    assert ev.errorful["oracle"].outcomes == ["success", "draw"]
    assert ev.grammatical["greedy"].outcomes == ["success"]
    assert ev.grammatical["one_best"].outcomes == ["failure"]   # "go" is worse for the LM
    actual = (ev.n_errorful, ev.n_grammatical)
    assert actual == (2, 1)
    md = ev.to_markdown()
    assert "| greedy (G) | 50% (1) | 0% (0) | 50% (1) | 2 |" in md
    assert "| Oracle | 50% (1) | 50% (1) | - | - |" in md
    ev_ref = evaluate_methods(originals, corrections, lm, [True, False, True],
                              EvalConfig(grammar_proxy="reference"),
                              references=[[("he", "goes", "home")] * 3])
    assert ev_ref.errorful["greedy"].outcomes == ["success", "failure"]
    assert ev_ref.grammatical["one_best"].outcomes == ["failure"]


def test_evaluation_input_checks(lm):
    with pytest.raises(ConfigError, match="2 corrections for 1 sentences"):
        evaluate_methods([("a",)], {"greedy": [("a",), ("b",)]}, lm, [True])
    with pytest.raises(ConfigError, match="needs references"):
        evaluate_methods([("a",)], {"greedy": [("a",)]}, lm, [True],
                         EvalConfig(grammar_proxy="reference"))
    with pytest.raises(ConfigError):
        EvalConfig(faithfulness_threshold=2)

"""Sentence-level pairwise agreement: a worked example under both metric-tie rules."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError
from gecscope.formats.appraise_xml import parse_appraise
from gecscope.meta_eval.sentence import sentence_agreement

XML = """<appraise-results><error-correction-ranking-result>
<ranking-item src-id="5" user="j1">
  <translation system="A" rank="1"/><translation system="B C" rank="2"/>
  <translation system="D" rank="3"/>
</ranking-item>
<ranking-item src-id="7" user="j1">
  <translation system="A" rank="2"/><translation system="B" rank="1"/>
</ranking-item>
</error-correction-ranking-result></appraise-results>"""

# rows 0 and 1 hold sentences 5 and 7 (0-based ids)
SCORES = {"A": [3.0, 1.0], "B": [2.0, 1.0], "C": [2.0, 0.0], "D": [5.0, 0.0]}
ROWS = {5: 0, 7: 1}


def test_worked_example_ties_disagree() -> None:
    j = parse_appraise(XML, index_base=0)
    # item 1 pairs with different human ranks: A>B ok, A>C ok, A>D wrong, B>D wrong, C>D wrong
    # (B=C is a human tie: skipped). Item 2: B>A but the metric ties -> disagreement.
    a = sentence_agreement(j, SCORES, ["A", "B", "C", "D"], rows=ROWS)
    actual = (a.pairs, a.agree, a.disagree, a.ties)
    assert actual == (6, 2, 4, 1)
    actual = (a.accuracy, a.kendall)
    assert actual == pytest.approx((2 / 6, -2 / 6))


def test_worked_example_first_loses() -> None:
    j = parse_appraise(XML, index_base=0)
    # the tie (A, B) on sentence 7 reads "A (first in the order) is worse": agrees with B>A
    a = sentence_agreement(j, SCORES, ["A", "B", "C", "D"], rows=ROWS, ties="first-loses")
    actual = (a.pairs, a.agree, a.disagree, a.ties)
    assert actual == (6, 3, 3, 1)
    # with B listed first, B "loses" the tie: now it disagrees
    b = sentence_agreement(j, SCORES, ["B", "A", "C", "D"], rows=ROWS, ties="first-loses")
    actual = (b.agree, b.disagree)
    assert actual == (2, 4)


def test_lower_is_better_and_system_subset() -> None:
    j = parse_appraise(XML, index_base=0)
    neg = {s: [-v for v in vals] for s, vals in SCORES.items()}
    a = sentence_agreement(j, neg, ["A", "B", "C", "D"], rows=ROWS, higher_is_better=False)
    actual = (a.agree, a.disagree, a.ties)
    assert actual == (2, 4, 1)
    sub = sentence_agreement(j, SCORES, ["A", "D"], rows=ROWS)
    actual = (sub.pairs, sub.agree)
    assert actual == (1, 0)


def test_errors() -> None:
    j = parse_appraise(XML, index_base=0)
    with pytest.raises(ConfigError, match="ties must be"):
        sentence_agreement(j, SCORES, ["A"], rows=ROWS, ties="coin")
    with pytest.raises(ConfigError, match="no sentence scores"):
        sentence_agreement(j, SCORES, ["A", "Z"], rows=ROWS)
    with pytest.raises(ConfigError, match="no metric score row"):
        sentence_agreement(j, SCORES, ["A", "B"], rows={5: 0})

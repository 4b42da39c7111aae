"""CLEME from plain text: hypothesis and references annotated with ERRANT (needs spaCy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.cleme import CLEME2Metric, CLEMEMetric

pytest.importorskip("spacy")
pytest.importorskip("errant")
pytestmark = [pytest.mark.slow, pytest.mark.requires_spacy]


def test_plain_text_inputs_give_the_hand_computed_counts(tmp_path: Path) -> None:
    # the toy corpus of test_cleme.py, as text: ERRANT finds the same one-token edits
    (tmp_path / "src.txt").write_text("a b c d e f g\nx y z\np q r s\n", encoding="utf-8")
    (tmp_path / "ref0.txt").write_text("A b C d e f G\nx y z\np Q r s\n", encoding="utf-8")
    (tmp_path / "ref1.txt").write_text("A2 b X d e f G\nx  y z\np q r s\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("A b X d Y f g\nx y z\np Q r s\n", encoding="utf-8")
    data = EvalData((str(tmp_path / "ref0.txt"), str(tmp_path / "ref1.txt")),
                    str(tmp_path / "src.txt"))
    hyp = Hypothesis.from_file(tmp_path / "hyp.txt")
    res = CLEMEMetric(weighting="none").evaluate(data, hyp)
    p, r = 2 / 4, 2 / 3
    assert res.score.fields == pytest.approx(
        {"F": 1.25 * p * r / (0.25 * p + r), "P": p, "R": r, "Acc": 8 / 11, "TP": 2, "FP": 2,
         "FN": 1, "TN": 6})
    ind = CLEME2Metric(assumption="independent").score(data, hyp)
    actual = (ind.fields["TP"], ind.fields["FP_ne"], ind.fields["FP_un"], ind.fields["FN"])
    assert actual == \
        (3, 0, 1, 1)

"""GREEN on the 13 CoNLL-2014 submissions: the numbers gec-metrics printed.

Expected values: ``GREEN`` of gec-metrics 0.1.1 (PyPI wheel; its ``green.py`` and ``base.py``
loaded on their own with gecommon 0.2.0, the toolkit's heavy model dependencies not needed for
GREEN), run here on the official submissions against the two annotators' corrected sentences of
official-2014.combined.m2, default options (n = 4, beta = 2, word n-grams).
``python benchmarks/green_gec_metrics.py`` runs gec-metrics' ``GREEN`` again in the reference
venv (``tests/gec_metrics_ref.py``) and prints these values beside gecscope's (docs/green.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.green import GREENMetric

GEC_METRICS_0_1_1 = {
    "AMU": 0.8007753134684717, "CAMB": 0.8024890262925709, "CUUI": 0.7988469564777396,
    "IITB": 0.781253553577041, "INPUT": 0.7807656452683918, "IPN": 0.7740273067333003,
    "NTHU": 0.7886166958574873, "PKU": 0.7921073105142894, "POST": 0.7899596087849198,
    "RAC": 0.7867132419201184, "SJTU": 0.7835685753873154, "UFC": 0.7825841418397657,
    "UMC": 0.7895336034414799,
}
# score_sentence on AMU's first five sentences (all 1,312 given, references of both annotators)
AMU_FIRST_SENTENCES = [1.0, 1.0, 1.0, 1.0, 0.9348395892176783]


@pytest.fixture(scope="module")
def data(conll14: Path) -> EvalData:
    return EvalData((str(conll14 / "official-2014.combined.m2"),))


@pytest.mark.parametrize("system", sorted(GEC_METRICS_0_1_1))
def test_green_equals_gec_metrics(conll14: Path, data: EvalData, system: str) -> None:
    hyp = Hypothesis.from_file(conll14 / "submissions" / system, system)
    result = GREENMetric().evaluate(data, hyp)
    assert result.score.value == pytest.approx(GEC_METRICS_0_1_1[system], abs=1e-12)
    if system == "AMU":
        assert result.sentence_scores[:5] == pytest.approx(AMU_FIRST_SENTENCES, abs=1e-12)


def test_green_character_level_equals_gec_metrics(conll14: Path, data: EvalData) -> None:
    hyp = Hypothesis.from_file(conll14 / "submissions" / "AMU", "AMU")
    value = GREENMetric(unit="char").evaluate(data, hyp).score.value
    assert value == pytest.approx(0.9365778640476591, abs=1e-12)  # gec-metrics, unit='char'

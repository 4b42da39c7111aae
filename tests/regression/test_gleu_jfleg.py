"""GLEU of the unchanged JFLEG source: the official compute_gleu numbers.

Provenance: JFLEG (Napoles et al. 2017) reports GLEU 38.21 (dev) and 40.54 (test) for the
unchanged source with the official Python-2 script (../shared/data/README.md); Python-3 ports,
whose randint draws other references, give 38.20 / 40.47. The six-decimal GLEU and std values
are what the tools printed when run here: `compute_gleu -d` of cnap/gec-ranking at 50b5032
(HEAD) under Python 2.7.18 (`draw=py2`), and `eval/gleu.py` of keisks/jfleg at ee06ff8
(HEAD) under Python 3.11 (`draw=py3`), for the unchanged source and for the spell-checked
source JFLEG ships (`dev.spellchecked.src`, `test.spellchecked.src`). The interval ends
(printed with three decimals) are gecscope's, checked against those three decimals.
docs/gleu.md records the tools, their commits and the values; ``python benchmarks/gleu_jfleg.py``
prints gecscope's side.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.gate import check_hypothesis
from gecscope.metrics.gleu import GLEUMetric

EXPECTED = {
    ("dev", "py2"): {"GLEU": 0.382146, "draws_std": 0.009891, "draws_ci_low": 0.362761, "draws_ci_high": 0.401532},
    ("dev", "py3"): {"GLEU": 0.381965, "draws_std": 0.009597, "draws_ci_low": 0.363156, "draws_ci_high": 0.400774},
    ("test", "py2"): {"GLEU": 0.40543, "draws_std": 0.007643, "draws_ci_low": 0.390451, "draws_ci_high": 0.420409},
    ("test", "py3"): {"GLEU": 0.40474, "draws_std": 0.007721, "draws_ci_low": 0.389608, "draws_ci_high": 0.419872},
}
# (mean, std) printed by the tools for the spell-checked sources, and their printed intervals
SPELLCHECKED = {
    ("dev", "py2"): (0.434434, 0.009350, (0.416, 0.453)),
    ("test", "py2"): (0.434632, 0.007923, (0.419, 0.450)),
    ("dev", "py3"): (0.434253, 0.009212, (0.416, 0.452)),
    ("test", "py3"): (0.434037, 0.008147, (0.418, 0.450)),
}
PRINTED_CI = {("dev", "py2"): (0.363, 0.402), ("test", "py2"): (0.390, 0.420),
              ("dev", "py3"): (0.363, 0.401), ("test", "py3"): (0.390, 0.420)}
PUBLISHED = {("dev", "py2"): 38.21, ("test", "py2"): 40.54, ("dev", "py3"): 38.20,
             ("test", "py3"): 40.47}


def _data(shared_data: Path, split: str) -> tuple[EvalData, Hypothesis]:
    d = shared_data / "jfleg" / split
    data = EvalData(tuple(str(d / f"{split}.ref{k}") for k in range(4)), str(d / f"{split}.src"))
    return data, Hypothesis.from_file(d / f"{split}.src", expected=len(data))


@pytest.fixture(scope="module")
def official_stats(shared_data: Path) -> dict[str, list]:
    """Sentence statistics of the unchanged source, per split (the draws only re-aggregate)."""
    out = {}
    for split in ("dev", "test"):
        data, hyp = _data(shared_data, split)
        check_hypothesis(data, hyp)
        out[split] = GLEUMetric().sentence_stats(data, hyp)
    return out


@pytest.mark.parametrize(("split", "draw"), sorted(EXPECTED))
def test_jfleg_unchanged_source(official_stats: dict[str, list], split: str, draw: str) -> None:
    score = GLEUMetric(draw=draw).aggregate(official_stats[split])
    assert round(score.value * 100, 2) == PUBLISHED[(split, draw)]
    assert score.fields == pytest.approx(EXPECTED[(split, draw)], abs=1e-6)
    interval = (round(score.fields["draws_ci_low"], 3), round(score.fields["draws_ci_high"], 3))
    assert interval == PRINTED_CI[(split, draw)]


@pytest.mark.parametrize(("split", "draw"), sorted(SPELLCHECKED))
def test_jfleg_spellchecked_source(shared_data: Path, split: str, draw: str) -> None:
    data, _ = _data(shared_data, split)
    d = shared_data / "jfleg" / split
    hyp = Hypothesis.from_file(d / f"{split}.spellchecked.src", expected=len(data))
    fields = GLEUMetric(draw=draw).evaluate(data, hyp).score.fields
    mean, std, ci = SPELLCHECKED[(split, draw)]
    printed = (round(fields["GLEU"], 6), round(fields["draws_std"], 6))
    assert printed == (mean, std)
    interval = (round(fields["draws_ci_low"], 3), round(fields["draws_ci_high"], 3))
    assert interval == ci


def test_jfleg_sentence_scores_and_corrected_variant(shared_data: Path) -> None:
    data, hyp = _data(shared_data, "dev")
    official = GLEUMetric().evaluate(data, hyp)
    # smoothed sentence GLEU, mean over the four references
    assert official.sentence_scores[:3] == pytest.approx([0.138687, 0.274191, 0.541218],
                                                         abs=1e-6)
    corrected = GLEUMetric(variant="corrected").evaluate(data, hyp)
    # without the count-blind source difference, copying the source is penalised for every
    # n-gram the references changed: corpus 4-gram numerators turn negative for two of the
    # four references, so most draws score 0
    assert corrected.score.fields == pytest.approx(
        {"GLEU": 0.008098, "draws_std": 0.032376, "draws_ci_low": -0.055359, "draws_ci_high": 0.071554}, abs=1e-6)
    assert corrected.sentence_scores[:3] == pytest.approx([0.087145, 0.0, 0.538781], abs=1e-6)

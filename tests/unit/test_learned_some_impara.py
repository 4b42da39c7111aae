"""SOME and IMPARA: equal to gec-metrics 0.1.1 on the same (tiny, random) checkpoints.

The official checkpoints cannot be downloaded here, so ``tests/learned_models.py`` builds
small BERT models with fixed seeds; gecscope and gec-metrics (run in its own venv by
``tests/gec_metrics_ref.py``) load the same directories and score the same sentences: the
first 50 CoNLL-2014 sources with AMU's corrections, plus handmade cases (source = hypothesis,
empty lines, unrelated sentences, an input longer than ``max_length``).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_metrics_ref import SUBMODULES_ONLY, run_gec_metrics
from learned_models import (
    N_CONLL,
    build_bert,
    build_vocab,
    conll_sample,
    session_checkpoints,
    session_text,
    split_threshold,
)

from gecscope import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.learned import models as lm
from gecscope.metrics.learned.impara import IMPARAMetric
from gecscope.metrics.learned.some import SOMEMetric
from gecscope.stats.resample import bootstrap_interval

LONG = " ".join(f"word{i % 17} and" for i in range(150)) + " ."  # > 128 word pieces
HANDMADE = [
    ("He go to school yesterday .", "He went to school yesterday ."),
    ("This sentence is fine .", "This sentence is fine ."),  # source = hypothesis
    ("", ""),
    ("There is a apple on table .", ""),  # empty hypothesis
    ("", "Something appeared from nowhere ."),  # empty source
    (LONG, LONG.replace("word3", "words3")),
]


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> tuple[list[str], list[str]]:
    """Sources and hypotheses: CoNLL-2014 lines, handmade pairs, and a few unrelated pairs
    (a source with another sentence's correction), whose low similarity IMPARA gates."""
    sample = conll_sample(request)
    if sample is None:
        pytest.skip("CoNLL-2014 data not available")
    src, hyp = sample
    unrelated = [(src[i], hyp[(i + 17) % N_CONLL]) for i in range(0, N_CONLL, 5)]
    pairs = list(zip(src, hyp, strict=True)) + HANDMADE + unrelated
    return [s for s, _ in pairs], [h for _, h in pairs]


@pytest.fixture(scope="module")
def dirs(request: pytest.FixtureRequest) -> dict[str, str]:
    """The session's tiny checkpoints (shared with the CLI tests; built once)."""
    return session_checkpoints(session_text(request))


def some_options(dirs: dict[str, str]) -> dict[str, str]:
    return {k: dirs[k] for k in ("model_g", "model_f", "model_m")}


def impara_options(dirs: dict[str, str]) -> dict[str, str]:
    return {k: dirs[k] for k in ("model_qe", "model_se")}


def evaluate(metric: Any, corpus: tuple[list[str], list[str]]) -> Any:
    # the unrelated pairs are other source sentences' outputs on purpose: scored as given
    return metric.evaluate(EvalData.from_texts(corpus[0]), Hypothesis.from_texts(corpus[1]),
                           allow={"misplaced-lines"})


#: gec-metrics' own SOME and IMPARA modules, imported without the package's __init__ files
IMPORT = SUBMODULES_ONLY + """
import torch
torch.nn.Module.cuda = lambda self, *a, **k: self  # SOME.__init__ calls .cuda() regardless
from gec_metrics.metrics.impara import IMPARA
from gec_metrics.metrics.some import SOME
"""

REFERENCE = IMPORT + """
torch.set_num_threads(1)  # as gecscope's default (threads=1)


def recording(cls):
    \"\"\"gec-metrics' metric class, keeping the sentence scores its score_corpus computes
    (one scoring pass gives both levels).\"\"\"

    class Recording(cls):
        def score_sentence(self, sources, hypotheses):
            self.sentences = super().score_sentence(sources, hypotheses)
            return self.sentences

    return Recording


d, src, hyp = PAYLOAD["dirs"], PAYLOAD["src"], PAYLOAD["hyp"]
some = recording(SOME)(SOME.Config(model_g=d["model_g"], model_f=d["model_f"],
                                   model_m=d["model_m"], no_cuda=True))
impara = recording(IMPARA)(IMPARA.Config(model_qe=d["model_qe"], model_se=d["model_se"],
                                         no_cuda=True, threshold=PAYLOAD["threshold"]))
some_corpus = some.score_corpus(src, hyp)
impara_corpus = impara.score_corpus(src, hyp)
print(json.dumps({"some": some.sentences, "some_corpus": some_corpus,
                  "impara": impara.sentences, "impara_corpus": impara_corpus}))
"""


@pytest.fixture(scope="module")
def threshold(dirs: dict[str, str], corpus: tuple[list[str], list[str]]) -> float:
    stats = evaluate(IMPARAMetric(**impara_options(dirs)), corpus).stats
    return split_threshold([s.sim for s in stats])


@pytest.fixture(scope="module")
def reference(dirs: dict[str, str], corpus: tuple[list[str], list[str]], threshold: float
              ) -> dict[str, Any]:
    result: dict[str, Any] = run_gec_metrics(REFERENCE, {"dirs": dirs, "src": corpus[0],
                                                         "hyp": corpus[1],
                                                         "threshold": threshold})
    return result


@pytest.mark.slow
def test_some_equals_gec_metrics(dirs: dict[str, str], corpus: tuple[list[str], list[str]],
                                 reference: dict[str, Any]) -> None:
    result = evaluate(SOMEMetric(**some_options(dirs)), corpus)
    assert len(reference["some"]) == len(corpus[0])
    assert result.sentence_scores == pytest.approx(reference["some"], abs=1e-6)
    assert result.score.value == pytest.approx(reference["some_corpus"], abs=1e-6)
    # the random regressors still tell sentences apart: the comparison is not of constants
    assert max(reference["some"]) - min(reference["some"]) > 0.01


@pytest.mark.slow
def test_impara_equals_gec_metrics(dirs: dict[str, str], corpus: tuple[list[str], list[str]],
                                   reference: dict[str, Any], threshold: float) -> None:
    metric = IMPARAMetric(**impara_options(dirs), threshold=threshold)
    result = evaluate(metric, corpus)
    assert result.sentence_scores == pytest.approx(reference["impara"], abs=1e-6)
    assert result.score.value == pytest.approx(reference["impara_corpus"], abs=1e-6)
    ref_gated = [i for i, s in enumerate(reference["impara"]) if s == 0.0]
    assert 0 < len(ref_gated) < len(corpus[0])  # the threshold was exercised both ways
    assert [i for i, s in enumerate(result.stats) if metric.gated(s)] == ref_gated
    assert result.score.fields["gated"] == len(ref_gated) / len(corpus[0])


def test_missing_checkpoints_say_what_to_give(dirs: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="-o model_g=DIR -o model_f=DIR -o model_m=DIR"):
        SOMEMetric()
    with pytest.raises(ConfigError, match="-o model_se=DIR"):
        IMPARAMetric(model_qe=dirs["model_qe"])
    with pytest.raises(ConfigError, match="is not a directory"):
        IMPARAMetric(model_qe=dirs["model_qe"], model_se="bert-base-cased")
    with pytest.raises(ConfigError, match="has no config.json"):
        SOMEMetric(**{**some_options(dirs), "model_m": str(tmp_path)})
    with pytest.raises(ConfigError, match="tokenizer='/nonexistent' is not a directory"):
        SOMEMetric(**some_options(dirs), tokenizer="/nonexistent")


@pytest.mark.parametrize(("cls", "options", "message"), [
    (IMPARAMetric, {"threshold": 1.5}, "threshold must be"),
    (IMPARAMetric, {"batch_size": 0}, "batch_size must be an integer >= 1"),
    (SOMEMetric, {"max_length": 1}, "max_length must be an integer >= 2"),
    (SOMEMetric, {"threads": 0}, "threads must be an integer >= 1"),
    (SOMEMetric, {"weight_g": "high"}, "weight_g must be a number"),
])
def test_bad_options(cls: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cls(**options)


def test_sub_scores_combine_with_the_weights(dirs: dict[str, str],
                                             corpus: tuple[list[str], list[str]]) -> None:
    metric = SOMEMetric(**some_options(dirs), weight_g=1.0, weight_f=0.0, weight_m=0.0)
    result = evaluate(metric, corpus)
    assert result.sentence_scores == [s.g for s in result.stats]
    score = result.score
    assert score.value == pytest.approx(score.fields["grammaticality"], abs=1e-15)
    assert metric.aggregate([]).value == 0.0


def test_batches_and_caches_do_not_change_scores(dirs: dict[str, str],
                                                 corpus: tuple[list[str], list[str]]) -> None:
    one = SOMEMetric(**some_options(dirs), batch_size=1)
    many = SOMEMetric(**some_options(dirs), batch_size=64)
    part = (corpus[0][40:], corpus[1][40:])  # handmade cases included
    a = evaluate(one, part)
    b = evaluate(many, part)
    assert a.sentence_scores == pytest.approx(b.sentence_scores, abs=1e-6)
    # a second system through the same instance: cached and fresh ratings agree
    src = corpus[0]
    other = (src, list(src))  # the uncorrected source as a system
    fresh = evaluate(SOMEMetric(**some_options(dirs), batch_size=64), other)
    assert evaluate(many, other).sentence_scores == pytest.approx(fresh.sentence_scores,
                                                                  abs=1e-6)


def test_one_tokenizer_for_all_three_models(dirs: dict[str, str],
                                           corpus: tuple[list[str], list[str]],
                                           tmp_path: Path) -> None:
    """``tokenizer=DIR`` (the authors' script: bert-base-cased's for all three models): the
    same vocabulary gives the same scores; a different one changes them."""
    small = (corpus[0][:10], corpus[1][:10])
    own = evaluate(SOMEMetric(**some_options(dirs)), small).sentence_scores
    shared = SOMEMetric(**some_options(dirs), tokenizer=dirs["model_f"])
    assert evaluate(shared, small).sentence_scores == pytest.approx(own, abs=1e-6)
    from learned_models import write_tokenizer

    write_tokenizer(tmp_path / "chars", build_vocab([]))  # characters only
    chars = SOMEMetric(**some_options(dirs), tokenizer=str(tmp_path / "chars"))
    assert evaluate(chars, small).sentence_scores != pytest.approx(own, abs=1e-6)


def test_impara_similarity_of_identical_sentences_is_one(
        dirs: dict[str, str], corpus: tuple[list[str], list[str]]) -> None:
    src = corpus[0]
    stats = evaluate(IMPARAMetric(**impara_options(dirs)), (src, src)).stats
    assert [s.sim for s in stats] == pytest.approx([1.0] * len(src), abs=1e-5)


def test_resampling_path_equals_aggregate(dirs: dict[str, str],
                                          corpus: tuple[list[str], list[str]]) -> None:
    class Slow(SOMEMetric):
        def resampling(self) -> None:  # type: ignore[override]
            return None

    fast = SOMEMetric(**some_options(dirs))
    stats = evaluate(fast, corpus).stats
    a = bootstrap_interval(fast, stats, n_samples=200, seed=3)
    b = bootstrap_interval(Slow(**some_options(dirs)), stats, n_samples=200, seed=3)
    assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-12)
    assert a.low < a.high


def test_pickled_metric_reloads_its_models(dirs: dict[str, str],
                                           corpus: tuple[list[str], list[str]]) -> None:
    metric = IMPARAMetric(**impara_options(dirs))
    before = evaluate(metric, corpus).sentence_scores
    copy = pickle.loads(pickle.dumps(metric))  # as parallel workers receive it
    assert copy._models == {} and copy._qe_cache == {}
    assert evaluate(copy, corpus).sentence_scores == pytest.approx(before, abs=1e-6)


def test_signature_names_the_checkpoints(dirs: dict[str, str]) -> None:
    extras = SOMEMetric(**some_options(dirs)).signature_extras()
    assert extras["model_g_hash"] == lm.model_signature(dirs["model_g"]).split("@")[1]
    assert set(extras) >= {"model_g_hash", "model_f_hash", "model_m_hash", "torch",
                           "transformers"}


def test_model_signature_tells_trainings_apart(tmp_path: Path) -> None:
    vocab = build_vocab(["a b c"])
    a = lm.model_signature(build_bert(tmp_path / "a" / "model", vocab, seed=1))
    b = lm.model_signature(build_bert(tmp_path / "b" / "model", vocab, seed=2))
    again = lm.model_signature(build_bert(tmp_path / "c" / "model", vocab, seed=1))
    assert a.split("@")[0] == b.split("@")[0] == "model"  # same name, same config, same sizes
    assert a != b
    assert a == again


def test_a_classifier_with_two_outputs_is_refused(tmp_path: Path,
                                                  corpus: tuple[list[str], list[str]]) -> None:
    vocab = build_vocab(corpus[0][:5])
    qe = build_bert(tmp_path / "qe", vocab, 1, num_labels=2)
    se = build_bert(tmp_path / "se", vocab, 2, kind="encoder")
    metric = IMPARAMetric(model_qe=str(qe), model_se=str(se))
    with pytest.raises(ConfigError, match="one output"):
        evaluate(metric, (corpus[0][:2], corpus[1][:2]))


def test_models_module_api(dirs: dict[str, str]) -> None:
    tokenizer, model = lm.load_encoder(dirs["model_se"], metric="t", option="model_se")
    with lm.inference(threads=1):
        out = model(**tokenizer(["a b", "c"], padding=True, return_tensors="pt"))
    assert tuple(out.last_hidden_state.shape[::2]) == (2, model.config.hidden_size)
    assert list(lm.batches([1, 2, 3, 4, 5], 2)) == [[1, 2], [3, 4], [5]]
    assert lm.by_length(["ccc", "a", "bb"]) == [1, 2, 0]
    with pytest.raises(ConfigError, match="option_x"):
        lm.load_causal_lm("/nonexistent/dir", metric="t", option="option_x")


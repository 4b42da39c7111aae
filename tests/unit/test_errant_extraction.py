"""ERRANT edit extraction: output identical to errant_parallel, parsing each sentence once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("errant", reason="needs the spacy extra (pip install 'gecscope[spacy]')")

from gecscope.formats.m2 import iter_m2
from gecscope.formats.plain import read_tokens

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from _errant_baseline import errant_parallel, load_baseline_annotator

N = 250  # sentences per system: enough to cover every quirk, fast enough for CI


@pytest.fixture(scope="module")
def annotator():
    from gecscope.alignment.errant import ErrantAnnotator

    return ErrantAnnotator()


@pytest.fixture(scope="module")
def baseline():
    return load_baseline_annotator()


def head(src: Path, dst: Path, n: int) -> Path:
    data = src.read_bytes().split(b"\n")[:n]
    dst.write_bytes(b"\n".join(data) + b"\n")
    return dst


def test_identical_to_errant_parallel(conll14: Path, tmp_path: Path, annotator, baseline) -> None:
    # IITB: CRLF line ends; SJTU: trailing spaces; AMU: a strong system with many edits.
    sub = conll14 / "submissions"
    src = head(sub / "INPUT", tmp_path / "INPUT", N)
    cors = [head(sub / s, tmp_path / s, N) for s in ("AMU", "IITB", "SJTU")]
    expected = errant_parallel(baseline, src, cors)
    sources = read_tokens(src)
    corpus = annotator.annotate_corpus(sources, [read_tokens(c) for c in cors])
    assert "".join(iter_m2(corpus)) == expected


def test_parses_each_distinct_sentence_once(annotator) -> None:
    from gecscope.alignment.errant import ErrantAnnotator

    fresh = ErrantAnnotator(annotator.nlp)
    src = [("He", "go", "home", "."), ("Fine", ".")]
    hyps = [[("He", "goes", "home", "."), ("Fine", ".")],
            [("He", "goes", "home", "."), ("Fine", ".")]]
    corpus = fresh.annotate_corpus(src, hyps)
    # Unchanged sentences are never parsed; the shared correction is parsed once.
    assert sorted(fresh._docs) == ["He go home .", "He goes home ."]
    assert corpus[0].edits(0) == corpus[0].edits(1)
    actual = [(e.start, e.end, e.correction, e.type) for e in corpus[0].edits(0)]
    assert actual == [
        (1, 2, ("goes",), "R:VERB:SVA")]
    assert corpus[1].edits(0) == () and corpus[1].annotators == (0, 1)


def test_empty_source_line_kept(annotator) -> None:
    corpus = annotator.annotate_corpus([(), ("a",)], [[(), ("a",)], [("Hi",), ("a",)]])
    assert len(corpus) == 2
    assert corpus[0].annotators == (0, 1)
    assert corpus[0].reference(1) == ("Hi",)


def _spans(edits) -> list[tuple[int, int, int, int]]:
    return [(e.o_start, e.o_end, e.c_start, e.c_end) for e in edits]


def test_rule_merger_equals_errants_on_ordinary_and_degenerate_pairs(annotator) -> None:
    # gecscope's merger (quadratic) against errant 3.0.2's own get_rule_edits (cubic), on the
    # demo pairs, on runaway outputs and on random rewrites mixing case, punctuation,
    # possessives, hyphens and determiners
    import random

    from errant.edit import Edit as ErrantEdit
    from errant.en import merger as errant_merger

    from gecscope.alignment.errant_merge import RuleMerger

    demo = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
    sources = (demo / "source.txt").read_text(encoding="utf-8").splitlines()
    pairs = [(s, c) for f in ("careful.txt", "cautious.txt", "rewriter.txt", "ref0.txt")
             for s, c in zip(sources, (demo / f).read_text(encoding="utf-8").splitlines(),
                             strict=True)]
    pairs += [("I visited my friends house yesterday .", "I visited my friend 's house yesterday ."),
              ("we went home , we slept well .", "we went home . We slept well ."),
              ("the friends car , we said", "the friend 's car . We said"),
              ("It is cats toy .", "It is the cat 's toy .")]  # possessive and case rules
    pairs.append((sources[0], " ".join(["the", "a", ","] * 60)))
    pairs.append((sources[1], " ".join(sources[1].split() * 8)))
    rng = random.Random(4)
    vocab = ["the", "a", "The", "friend", "friends", "'s", ",", ".", "-", "sub", "way", "subway",
             "to", "eat", "eating", "has", "have", "gone", "went", "Cat", "cat", "we", "We",
             "look", "at", "watch", "very", "big", "an", "apple", "apples", "is", "are", "!"]
    for _ in range(300):
        src = [rng.choice(vocab) for _ in range(rng.randint(2, 14))]
        cor = list(src)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(cor) + 1)
            op = rng.random()
            if op < 0.4 and cor:
                cor[min(i, len(cor) - 1)] = rng.choice(vocab)
            elif op < 0.7:
                cor.insert(i, rng.choice(vocab))
            elif cor:
                del cor[min(i, len(cor) - 1)]
        pairs.append((" ".join(src), " ".join(cor) or "x"))
    engine = annotator._errant
    for src, cor in pairs:
        alignment = engine.align(annotator.doc(src), annotator.doc(cor), False)
        theirs = _spans(errant_merger.get_rule_edits(alignment))
        ours = _spans(ErrantEdit(alignment.orig, alignment.cor, list(op[1:]))
                      for op in RuleMerger(alignment).edits())
        assert ours == theirs, (src, cor)


TRANSPOSITIONS = [
    ("I like very much apples .", "I very much like apples ."),
    ("He has gone already home", "He has already gone home"),
    ("the the cat sat on on the mat", "the cat sat on the mat mat"),
    ("A B C D E", "E D C B A"),
    ("", "Something new ."),
    ("Nothing is left", ""),
]


def test_compiled_alignment_equals_errants(conll14: Path, shared_data: Path, annotator) -> None:
    """gecscope's alignment programme gives errant's ``Alignment.align_seq`` on every pair
    (CoNLL-2014 systems, JFLEG references and handmade transpositions; linguistic and
    Levenshtein costs). All 13,144 distinct pairs of CoNLL-2014 and JFLEG dev were checked
    once (docs/errant.md); this test keeps a sample."""
    from errant.alignment import Alignment as ErrantAlignment

    from gecscope._jit import HAVE_NUMBA
    from gecscope.alignment.errant_align import align

    if not HAVE_NUMBA:
        pytest.skip("the compiled alignment needs numba (gecscope[fast])")
    sources = (conll14 / "submissions" / "INPUT").read_text(encoding="utf-8").split("\n")[:N]
    pairs = list(TRANSPOSITIONS)
    for system in ("AMU", "CAMB", "RAC"):
        lines = (conll14 / "submissions" / system).read_text(encoding="utf-8").split("\n")
        pairs += list(zip(sources, lines[:N], strict=True))
    jfleg = shared_data / "jfleg" / "dev"
    pairs += list(zip((jfleg / "dev.src").read_text(encoding="utf-8").splitlines()[:N],
                      (jfleg / "dev.ref0").read_text(encoding="utf-8").splitlines()[:N],
                      strict=True))
    transposed = 0
    for source, correction in pairs:
        orig, cor = annotator.doc(source.strip()), annotator.doc(correction.strip())
        for lev in (False, True):
            expected = ErrantAlignment(orig, cor, lev).align_seq
            assert align(orig, cor, lev).align_seq == expected, (source, correction, lev)
            transposed += any(op[0].startswith("T") for op in expected)
    assert transposed >= 4  # the transposition branch is exercised

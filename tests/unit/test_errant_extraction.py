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

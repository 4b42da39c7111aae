"""The spaCy-free Levenshtein edit extractor."""

from __future__ import annotations

from gecscope.alignment.levenshtein import align, annotate_corpus, extract_edits
from gecscope.types import Edit, apply_edits


def test_merged_edits() -> None:
    src = ["This", "are", "a", "sentence", "."]
    tgt = ["This", "is", "the", "sentence"]
    assert extract_edits(src, tgt) == (
        Edit(1, 3, ("is", "the"), "R:OTHER"),
        Edit(4, 5, (), "U:OTHER"),
    )


def test_split_edits_and_insertions() -> None:
    src = ["a", "b", "c"]
    tgt = ["a", "x", "y", "b"]
    assert extract_edits(src, tgt, merge=False) == (
        Edit(1, 1, ("x",), "M:OTHER"), Edit(1, 1, ("y",), "M:OTHER"), Edit(2, 3, (), "U:OTHER"))
    assert extract_edits(src, tgt) == (Edit(1, 1, ("x", "y"), "M:OTHER"),
                                       Edit(2, 3, (), "U:OTHER"))


def test_alignment_cost_is_minimal() -> None:
    src, tgt = ["a", "b", "c", "d", "e"], ["b", "c", "x", "e", "f"]
    ops = align(src, tgt)
    assert sum(op != "M" for op, *_ in ops) == 3  # delete a, substitute d, insert f


def test_edits_reproduce_target() -> None:
    pairs = [("I has went to shop", "I went to the shop"), ("", "a b"), ("a b", ""),
             ("x y z", "x y z"), ("the the cat", "the cat sat")]
    for s, t in pairs:
        src, tgt = s.split(), t.split()
        assert apply_edits(src, extract_edits(src, tgt)) == tuple(tgt)


def test_annotate_corpus_noop() -> None:
    c = annotate_corpus([("a", "b"), ("c",)], [[("a", "b"), ("d",)]])
    assert c[0].annotators == (0,) and c[0].edits(0) == ()
    assert c[1].edits(0) == (Edit(0, 1, ("d",), "R:OTHER"),)

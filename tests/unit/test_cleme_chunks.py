"""CLEME chunk partition and chunk labelling on hand-made sentences."""

from __future__ import annotations

import pytest

from gecscope.metrics.cleme.chunks import (
    ChunkPartition,
    chunk_spans,
    classify,
    partition,
    shared_intervals,
)
from gecscope.types import Edit, apply_edits


def E(start: int, end: int, cor: str = "", typ: str = "R:OTHER") -> Edit:
    return Edit(start, end, tuple(cor.split()), typ)


SRC = ("He", "go", "to", "school", "by", "bus", "yesterday", ".")  # 8 tokens


def test_shared_intervals_merge_overlapping_and_touching() -> None:
    # hyp [1,2); ref A [2,3) touches it -> merged [1,3); ref B insertion at 5 and [5,6) merge;
    # an insertion at 7 stays on its own (dummy interval)
    got = shared_intervals([[E(1, 2, "goes")], [E(2, 3, "at")], [E(5, 5, "the"), E(5, 6, "car")],
                            [E(7, 7, "ok")]])
    assert got == [(1, 3), (5, 6), (7, 7)]
    # merge_distance=1 also joins spans one token apart
    assert shared_intervals([[E(1, 2), E(3, 4)]], merge_distance=1) == [(1, 4)]
    assert shared_intervals([[E(1, 2), E(3, 4)]]) == [(1, 2), (3, 4)]


def test_chunk_spans_cover_the_source_with_dummy_chunks() -> None:
    assert chunk_spans(8, [(0, 0), (1, 3), (7, 7)]) == [
        ((0, 0), True), ((0, 1), False), ((1, 3), True), ((3, 7), False), ((7, 7), True),
        ((7, 8), False)]
    assert chunk_spans(3, []) == [((0, 3), False)]
    assert chunk_spans(2, [(2, 2)]) == [((0, 2), False), ((2, 2), True)]


def test_partition_same_number_of_chunks_and_tokens_concatenate_to_targets() -> None:
    hyp = [E(1, 2, "goes"), E(6, 7, "today")]
    ref_a = [E(1, 2, "went")]
    ref_b = [E(1, 2, "went"), E(2, 3, "to the"), E(8, 8, "!")]
    part = partition(SRC, hyp, [ref_a, ref_b], [0, 1])
    assert part.spans == ((0, 1), (1, 3), (3, 6), (6, 7), (7, 8), (8, 8))
    assert part.hyp == (("He",), ("goes", "to"), ("school", "by", "bus"), ("today",), (".",), ())
    assert part.hyp_changed == (False, True, False, True, False, False)
    assert part.refs[0][1] == ("went", "to")
    assert part.refs[1][1] == ("went", "to", "the")
    assert part.refs[1][5] == ("!",)
    assert part.refs_changed == ((False, True, False, False, False, False),
                                 (False, True, False, False, False, True))
    for toks in (part.hyp, *part.refs):
        assert len(toks) == len(part.spans)
    assert part.hypothesis_sentence() == apply_edits(SRC, hyp)
    assert part.reference_sentence(1) == apply_edits(SRC, ref_b)
    assert part.applied(3) == ("He", "go", "to", "school", "by", "bus", "today", ".")
    assert part.applied(5, ref=1) == SRC + ("!",)
    assert part.edit_length(1) == 2 and part.edit_length(1, ref=1) == 3
    assert part.edit_length(5, ref=1) == 1


def test_partition_insertion_and_replacement_at_the_same_start() -> None:
    # ERRANT writes an insertion and a replacement starting at the same token (conll14 refs)
    src = ("Genectic", "testing", "is")
    part = partition(src, [], [[E(0, 0, "Having"), E(0, 1, "genetic")]])
    assert part.spans == ((0, 1), (1, 3))
    assert part.refs[0] == (("Having", "genetic"), ("testing", "is"))


def test_empty_references_are_dropped_but_one_is_kept() -> None:
    src = ("Tears", "showed", "nothing", ".")
    keep = partition(src, [], [[E(0, 1, "Fears")], [E(0, 4, "")]], [0, 1])
    assert keep.ref_ids == (0,)
    assert len(keep.refs) == 1
    both_empty = partition(src, [], [[E(0, 4, "")], [E(0, 4, "")]], [3, 5])
    assert both_empty.ref_ids == (3,)
    assert both_empty.refs == (((),),)
    no_refs = partition(src, [E(0, 1, "Fears")], [])
    assert no_refs.ref_ids == (0,)
    assert no_refs.refs_changed == ((False, False),)


def _toy() -> ChunkPartition:
    src = ("a", "b", "c", "d", "e", "f")
    hyp = [E(0, 1, "A"), E(2, 3, "X"), E(4, 5, "Y")]
    ref0 = [E(0, 1, "A"), E(2, 3, "C"), E(5, 6, "F")]
    ref1 = [E(0, 1, "A2"), E(2, 3, "X"), E(3, 4, "D")]
    return partition(src, hyp, [ref0, ref1])


def test_partition_of_toy_sentence() -> None:
    part = _toy()
    # ref1's [3,4) touches hyp/ref0's [2,3) -> one chunk [2,4); [4,5) touches too -> [2,6)
    assert part.spans == ((0, 1), (1, 2), (2, 6))
    assert part.hyp == (("A",), ("b",), ("X", "d", "Y", "f"))
    assert part.refs == ((("A",), ("b",), ("C", "d", "e", "F")),
                         (("A2",), ("b",), ("X", "D", "e", "f")))


def test_classify_dependent_and_independent() -> None:
    src = ("a", "b", "c", "d", "e", "f", "g")
    hyp = [E(0, 1, "A"), E(2, 3, "X"), E(4, 5, "Y")]
    ref0 = [E(0, 1, "A"), E(2, 3, "C"), E(6, 7, "G")]
    ref1 = [E(0, 1, "A2"), E(2, 3, "X"), E(6, 7, "G")]
    part = partition(src, hyp, [ref0, ref1])
    assert part.spans == ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7))
    dep = classify(part, "dependent")
    assert dep == (("TP", "TN", "FP_ne", "TN", "FP_un", "TN", "FN"),
                   ("FP_ne", "TN", "TP", "TN", "FP_un", "TN", "FN"))
    ind = classify(part, "independent")
    assert ind == (("TP", "TN", "TP", "TN", "FP_un", "TN", "FN"),) * 2
    # independent FN needs *all* references to change the chunk
    part2 = partition(src, [], [[E(6, 7, "G")], []])
    assert classify(part2, "independent")[0] == ("TN", "TN")
    assert classify(part2, "dependent") == (("TN", "FN"), ("TN", "TN"))
    with pytest.raises(ValueError):
        classify(part, "both")


def test_changed_chunk_with_source_tokens_follows_the_reference_code() -> None:
    # an edit whose correction equals the source still marks the chunk as changed (types set)
    src = ("a", "b")
    part = partition(src, [E(0, 1, "a", "UNK")], [[]])
    assert part.hyp_changed == (True, False)
    # dependent: changed hyp chunk equal to the (unchanged) reference chunk -> TP
    assert classify(part, "dependent") == (("TP", "TN"),)
    ref_unk = partition(src, [], [[E(0, 1, "a", "UNK")]])
    # unchanged hyp chunk vs reference chunk with the same tokens -> TN (tokens are compared)
    assert classify(ref_unk, "dependent") == (("TN", "TN"),)
    # independent FN only looks at whether every reference changed the chunk
    assert classify(ref_unk, "independent") == (("FN", "TN"),)

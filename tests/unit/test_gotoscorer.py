"""GoToScorer: chunking, the chunk judgement, difficulty weights and options, on hand-built
chunks and on gec-metrics' own small example. The live comparison with gec-metrics 0.1.1 is
``tests/regression/test_gotoscorer_conll14.py``; all systems: ``benchmarks/gotoscorer_conll14.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError
from gecscope.metrics.gotoscorer import (
    SCORED,
    Chunk,
    GoToScorerMetric,
    GoToStats,
    Weights,
    chunks,
    compute_weights,
    judge,
    judge_compat,
    reference_chunks,
    sentence_counts,
)
from gecscope.types import Edit

# gec-metrics' own GoToScorer test example (metrics/gotoscorer_test.py)
SRCS = ["This sentences contain gramamtical error .", "This is a sentence .",
        "This is no change ."]
HYPS = ["This sentence contains a grammatical error .",
        "this was corrected into completely different one .", "This is no change ."]
REFS = [["This sentence contains a gramamtical error .", "dummy sentence .", "This is no change ."],
        ["These sentences contain grammatical errors .", "another dummy sentence .",
         "This is no change ."]]


def edit(start: int, end: int, text: str, type_: str = "R:OTHER") -> Edit:
    return Edit(start, end, tuple(text.split()), type_)


# --------------------------------------------------------------------------- chunks (no spaCy)


def well_formed(out: list[Chunk], n: int) -> None:
    """The chunk sequence tiles the source and has exactly one insertion chunk (an insertion
    edit or an empty slot) at every boundary no chunk covers."""
    spans = [(c.start, c.end) for c in out if c.start < c.end]
    pos = 0
    for s, e in spans:
        assert s == pos
        pos = e
    assert pos == n
    inside = {k for s, e in spans for k in range(s + 1, e)}
    slots = [c.start for c in out if c.start == c.end]
    assert sorted(slots) == sorted(set(slots))  # one per boundary
    assert set(slots) == set(range(n + 1)) - inside
    starts = [c.start for c in out]
    assert starts == sorted(starts)


@st.composite
def source_and_edits(draw: Any) -> tuple[list[str], list[Edit]]:
    n = draw(st.integers(0, 8))
    edits = []
    pos = 0
    while pos <= n:
        kind = draw(st.sampled_from(["skip", "skip", "ins", "rep"]))
        if kind == "skip":
            pos += 1
        elif kind == "ins":
            edits.append(edit(pos, pos, "x", "M:DET"))
            if pos == n:
                break
            length = draw(st.integers(1, min(3, n - pos)))
            edits.append(edit(pos, pos + length, "y", "R:OTHER"))  # ERRANT's M then R at pos
            pos += length + 1
        elif pos < n:
            length = draw(st.integers(1, min(3, n - pos)))
            edits.append(edit(pos, pos + length, draw(st.sampled_from(["", "z"]))))
            pos += length + 1
        else:
            pos += 1
    return [f"w{i}" for i in range(n)], edits


@given(source_and_edits())
@settings(max_examples=200, deadline=None)
def test_chunks_tile_the_source_with_one_slot_per_free_boundary(
        case: tuple[list[str], list[Edit]]) -> None:
    source, edits = case
    out = chunks(source, edits)
    well_formed(out, len(source))
    edited = [c for c in out if c.edited]
    expected = [Chunk(e.start, e.end, " ".join(e.correction), e.type, True) for e in edits]
    assert edited == expected
    # chunks of an untouched source: every token and every slot, all judged right untried
    for c in out:
        right, tried = judge(c, chunks(source, edits))
        assert right and tried == c.edited


def test_noop_unk_and_overlapping_edits_are_left_out() -> None:
    source = ["a", "b", "c"]
    kept = edit(0, 1, "A")
    out = chunks(source, [kept, edit(0, 2, "q"), Edit(2, 3, ("C",), "UNK")])
    edited = [c for c in out if c.edited]
    assert edited == [Chunk(0, 1, "A", "R:OTHER", True)]
    well_formed(out, 3)


def test_empty_source_is_one_slot() -> None:
    assert chunks([], []) == [Chunk(0, 0, "")]
    assert chunks([], [edit(0, 0, "Hi", "M:OTHER")]) == [Chunk(0, 0, "Hi", "M:OTHER", True)]


# --------------------------------------------------------------------------- judging


def test_judge_outcomes() -> None:
    ref_edit = Chunk(1, 2, "goes", "R:VERB:SVA", True)
    ref_token = Chunk(1, 2, "go")
    assert judge(ref_edit, [Chunk(1, 2, "goes", "R:VERB:SVA", True)]) == (True, True)  # TP
    assert judge(ref_edit, [Chunk(1, 2, "went", "R:VERB:TENSE", True)]) == (False, True)
    assert judge(ref_edit, [Chunk(1, 2, "go")]) == (False, False)  # missed: FN
    assert judge(ref_token, [Chunk(1, 2, "went", "R:VERB", True)]) == (False, True)  # FP
    # no chunk with the span: an overlapping hypothesis edit makes it tried
    assert judge(ref_edit, [Chunk(0, 3, "he went", "R:OTHER", True)]) == (False, True)
    assert judge(ref_edit, [Chunk(0, 1, "He"), Chunk(2, 3, "home")]) == (False, False)


def test_a_slot_inside_a_hypothesis_edit_counts_as_right_and_untried() -> None:
    """gec-metrics' rule: an insertion chunk the hypothesis has no chunk for is correct."""
    hyp = [Chunk(0, 0, ""), Chunk(0, 2, "they go", "R:OTHER", True), Chunk(2, 2, "")]
    assert judge(Chunk(1, 1, ""), hyp) == (True, False)
    assert judge(Chunk(1, 1, "to", "M:PREP", True), hyp) == (True, False)


def test_compat_judgement_ignores_the_position() -> None:
    ref = Chunk(3, 4, "the")  # the reference keeps "the" at 3
    hyp = [Chunk(0, 1, "the"), Chunk(3, 4, "", "U:DET", True)]  # the system deletes it
    assert judge(ref, hyp)[0] is False
    assert judge_compat(ref, hyp) is True


def test_sentence_counts_add_each_chunks_weight() -> None:
    ref = [Chunk(0, 1, "A", "R:ORTH", True), Chunk(1, 2, "goes", "R:VERB", True),
           Chunk(2, 3, "home")]
    hyp = [Chunk(0, 1, "A", "R:ORTH", True), Chunk(1, 2, "went", "R:VERB", True),
           Chunk(2, 3, "home")]
    right_edit, wrong_edit, kept_token = 0.25, 0.5, 1.0
    got = sentence_counts(ref, hyp, [right_edit, wrong_edit, kept_token])
    assert got == GoToStats(tp=right_edit, fp=wrong_edit, fn=wrong_edit, tn=kept_token)
    assert sentence_counts(ref, hyp, None) == GoToStats(1.0, 1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("options, message", [
    ({"beta": 0}, "beta"),
    ({"ref_id": -1}, "ref_id"),
    ({"weight_file": "w.json", "weight_systems": ("a.txt",)}, "not both"),
    ({"fix_weight_positions": True}, "fix_weight_positions"),
    ({"weight_systems": (SCORED, "a.txt")}, "stands alone"),
    ({"weight_systems": ("/nonexistent/*.txt",)}, "matches no file"),
    ({"weight_systems": ("/nonexistent/a.txt",)}, "does not exist"),
    ({"weight_file": "/nonexistent/w.json"}, "does not exist"),
])
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        GoToScorerMetric(**options)


def test_weight_systems_string_is_split() -> None:
    m = GoToScorerMetric(weight_systems=SCORED)
    assert m.config.weight_systems == (SCORED,) and m.weighted
    assert not GoToScorerMetric().weighted


def test_weight_file_format_errors(tmp_path: Path) -> None:
    bad = tmp_path / "w.json"
    for text, what in [("{", "not JSON"), ('{"weights": [1]}', "JSON list"),
                       ('[{"weights": ["x"]}]', "sentence 1")]:
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(FormatError, match=what):
            Weights.read(bad)


# --------------------------------------------------------------------------- with ERRANT


@pytest.fixture(scope="module")
def example() -> tuple[EvalData, Hypothesis]:
    return EvalData.from_texts(SRCS, REFS), Hypothesis.from_texts(HYPS, "example")


@pytest.mark.requires_spacy
def test_reference_scores_one_and_source_zero(example: tuple[EvalData, Hypothesis]) -> None:
    data, _ = example
    metric = GoToScorerMetric()
    ref = metric.evaluate(data, Hypothesis.from_texts(REFS[0], "ref")).score.fields
    assert ref["P"] == ref["R"] == ref["F0.5"] == 1.0
    assert ref["FP"] == ref["FN"] == 0.0
    src = metric.evaluate(data, Hypothesis.from_texts(SRCS, "src")).score.fields
    n_ref_edits = sum(c.edited for s in reference_chunks(data) for c in s)
    assert src["TP"] == src["FP"] == src["F0.5"] == 0.0
    assert src["FN"] == n_ref_edits


@pytest.mark.requires_spacy
def test_weights_from_the_reference_and_the_source(example: tuple[EvalData, Hypothesis],
                                                   tmp_path: Path) -> None:
    """Two systems, the reference itself and the unchanged source: each reference edit is
    right for one of them (weight 1/2), every other chunk for both (weight 0)."""
    data, hyp = example
    systems = [Hypothesis.from_texts(REFS[0], "ref"), Hypothesis.from_texts(SRCS, "src")]
    w = compute_weights(data, systems, fix_weight_positions=True)
    ref = reference_chunks(data)
    weights = [list(s) for s in w.weights]
    assert weights == [[0.5 if c.edited else 0.0 for c in s] for s in ref]
    assert w.evaluations is not None and w.systems == ("ref", "src")
    first = [list(e) for e in w.evaluations[0]]
    assert first == [[1, 0] if c.edited else [1, 1] for c in ref[0]]
    # the file round trip, and the same weights through every way of giving them
    path = tmp_path / "weights.json"
    w.write(path)
    assert Weights.read(path) == w and json.loads(path.read_text()) == w.to_json()
    by_file = GoToScorerMetric(weight_file=str(path)).evaluate(data, hyp)
    for i, s in enumerate(systems):
        (tmp_path / f"sys{i}.txt").write_text("\n".join(
            " ".join(t) for t in s.tokens) + "\n", encoding="utf-8")
    by_glob = GoToScorerMetric(weight_systems=str(tmp_path / "sys*.txt"),
                               fix_weight_positions=True).evaluate(data, hyp)
    scored = GoToScorerMetric(weight_systems=SCORED, fix_weight_positions=True)
    with pytest.raises(ConfigError, match="prepare_systems"):
        scored.evaluate(data, hyp)
    scored.prepare_systems(data, systems)
    by_run = scored.evaluate(data, hyp)
    assert by_file.score == by_glob.score == by_run.score
    assert by_file.sentence_scores == by_glob.sentence_scores == by_run.sentence_scores
    n_ref_edits = sum(c.edited for s in ref for c in s)
    reference = GoToScorerMetric(weight_file=str(path)).score(data, systems[0]).fields
    assert reference["TP"] == 0.5 * n_ref_edits
    assert reference["F0.5"] == 1.0
    sig = GoToScorerMetric(weight_file=str(path))
    sig.score(data, hyp)
    assert sig.signature_extras()["weights"] == f"file:weights.json:{w.digest()}"


@pytest.mark.requires_spacy
def test_weights_must_fit_the_reference(example: tuple[EvalData, Hypothesis],
                                        tmp_path: Path) -> None:
    data, hyp = example
    # the other annotator's chunks, judged at their own span (gec-metrics' generator would
    # also count a chunk whose text the system has elsewhere as right)
    w = compute_weights(data, [hyp], ref_id=1, fix_weight_positions=True)
    path = tmp_path / "w.json"
    w.write(path)
    with pytest.raises(ConfigError, match="same reference"):
        GoToScorerMetric(weight_file=str(path)).evaluate(data, hyp)
    # weights from this one system: what it got right weighs 0, what it got wrong 1
    own = GoToScorerMetric(weight_file=str(path), ref_id=1).score(data, hyp).fields
    plain = GoToScorerMetric(ref_id=1).score(data, hyp).fields
    assert own["TP"] == own["TN"] == 0.0
    assert own["FP"] == plain["FP"] and own["FN"] == plain["FN"]
    with pytest.raises(ConfigError, match="ref_id=2"):
        GoToScorerMetric(ref_id=2).evaluate(data, hyp)


@pytest.mark.requires_spacy
def test_unweighted_fast_resampling_equals_aggregate(example: tuple[EvalData, Hypothesis]
                                                     ) -> None:
    from gecscope.stats.resample import bootstrap_interval

    data, hyp = example
    metric = GoToScorerMetric()
    stats = metric.evaluate(data, hyp).stats
    fast = bootstrap_interval(metric, stats, n_samples=200, seed=3)
    slow = bootstrap_interval(metric, stats, n_samples=200, seed=3, fast=False)
    assert fast.low == slow.low and fast.high == slow.high
    assert GoToScorerMetric(weight_systems=SCORED).resampling() is None

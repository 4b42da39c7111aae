"""I-measure metric: the tool's example, the paper's Table 3 case, alignment and score details.

Expected rows of the tool's example and of the paper's Table 3 case: ``ieval.py`` of
mfelice/imeasure fc79fdf run here under Python 2.7.18 (``python2 ieval.py -ref:gold.xml
-hyp:sys.txt`` with the flags named at each test, on ../shared/data/imeasure); docs/imeasure.md
("The reference tool ... was run here") lists these runs and their results.
"""

# ruff: noqa: SIM905
from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.imeasure_xml import (
    Alternative,
    Correction,
    Error,
    GoldSentence,
    IMeasureGold,
    Script,
    m2_to_gold,
    read_gold,
)
from gecscope.metrics.imeasure import IMeasureMetric
from gecscope.metrics.imeasure.align import align
from gecscope.metrics.imeasure.core import (
    IMeasureCounts,
    apply_corrections,
    candidate_references,
    count_columns,
    improvement,
)
from gecscope.types import Annotation, Corpus, Edit, Sentence

ROWS = ("tp", "tn", "fp", "fn", "fpn", "p", "r", "f", "acc", "acc_b", "wacc", "wacc_b", "i")


def _row(fields: dict[str, float], aspect: str) -> list[float]:
    return [round(100 * fields[f"{aspect}_{k}"], 2) if k not in ("tp", "tn", "fp", "fn", "fpn")
            else fields[f"{aspect}_{k}"] for k in ROWS]


def _score_example(shared_data: Path, **options: object) -> dict[str, float]:
    gold = read_gold(shared_data / "imeasure" / "gold.xml")
    hyp = (shared_data / "imeasure" / "sys.txt").read_text().split()
    metric = IMeasureMetric(**options)
    return metric.aggregate(metric.sentence_stats_gold(gold, [hyp])).fields


def test_example_with_mixing(shared_data: Path) -> None:
    # ieval.py -ref:example/gold.xml -hyp:example/sys.txt (mfelice/imeasure fc79fdf, run here)
    expected = [2, 5, 0, 1, 0, 100.00, 66.67, 80.00, 87.50, 62.50, 90.00, 62.50, 73.33]
    fields = _score_example(shared_data)
    assert _row(fields, "d") == pytest.approx(expected)
    assert _row(fields, "c") == pytest.approx(expected)


def test_example_without_mixing(shared_data: Path) -> None:
    # ieval.py ... -nomix (fc79fdf, run here), correction row
    fields = _score_example(shared_data, mix=False)
    assert _row(fields, "c") == pytest.approx(
        [1, 5, 1, 1, 0, 50.00, 50.00, 50.00, 75.00, 75.00, 70.00, 75.00, -6.67])


def test_example_through_evaluate_with_xml_reference(shared_data: Path) -> None:
    data = EvalData((str(shared_data / "imeasure" / "gold.xml"),))
    hyp = Hypothesis("sys", [tuple((shared_data / "imeasure" / "sys.txt").read_text().split())])
    result = IMeasureMetric().evaluate(data, hyp)
    assert result.score.main == "c_i"
    assert result.score.value == pytest.approx(0.733333, abs=1e-6)
    assert result.sentence_scores == pytest.approx([0.733333], abs=1e-6)


def test_candidate_references_of_the_paper_listing() -> None:
    # Felice & Briscoe (2015), section 2.1: Listing 1 yields exactly these four references.
    gold = GoldSentence("1", "This machines is designed for help people .", 2, (
        Error("1", "SVA", True, (
            Alternative("0", (Correction(0, 1, "These"), Correction(2, 3, "are"))),
            Alternative("1", (Correction(1, 2, "machine"),)))),
        Error("2", "Vform", True, (
            Alternative("0", (Correction(5, 6, "helping"),)),
            Alternative("1", (Correction(4, 5, "to"),))))))
    refs = {" ".join(r) for r in candidate_references(gold, mix=True)}
    assert refs == {"These machines are designed for helping people .",
                    "These machines are designed to help people .",
                    "This machine is designed for helping people .",
                    "This machine is designed to help people ."}
    no_mix = [" ".join(r) for r in candidate_references(gold, mix=False)]
    assert no_mix == ["These machines are designed for helping people .",
                      "This machine is designed to help people ."]


# Printed by ieval.py of mfelice/imeasure at HEAD fc79fdf (python2), overall rows
# (TP TN FP FN FPN, then P R F Acc Acc_b WAcc WAcc_b I in percent), on the paper's Table 3
# sentence (gold written by `gecscope convert m2-to-ixml`, one annotator). The tool prints the
# same rows with -nomix and -opt:corpus.
IEVAL_TABLE3 = {
    "The machine is designed for helping people .": {
        "d": [2, 2, 3, 1, 0, 40.00, 66.67, 50.00, 50.00, 57.14, 46.15, 57.14, -19.23],
        "c": [1, 2, 4, 2, 1, 20.00, 33.33, 25.00, 37.50, 57.14, 32.00, 57.14, -44.00]},
    "Machines is a design on the helping of the people .": {
        "d": [1, 2, 6, 2, 0, 14.29, 33.33, 20.00, 27.27, 57.14, 22.22, 57.14, -61.11],
        "c": [1, 2, 6, 2, 0, 14.29, 33.33, 20.00, 27.27, 57.14, 22.22, 57.14, -61.11]},
}


def _table3_gold() -> IMeasureGold:
    src = tuple("Machine is design to help people .".split())
    edits = (Edit(0, 1, ("Machines",), "Nn"), Edit(1, 2, ("are",), "SVA"),
             Edit(2, 3, ("designed",), "Vform"))
    return m2_to_gold(Corpus((Sentence(src, (Annotation(0, edits),)),)))


@pytest.mark.parametrize("options", [{}, {"mix": False}, {"optimise": "corpus"}])
@pytest.mark.parametrize("hyp", sorted(IEVAL_TABLE3))
def test_table3_equals_ieval(hyp: str, options: dict[str, object]) -> None:
    # Felice & Briscoe (2015) Table 3: M2 prefers hypothesis 2 (F0.5 0.45 vs 0.33), the
    # I-measure hypothesis 1. The baseline is the source aligned with the reference on its own
    # (Acc_b = WAcc_b = 4/7), as ieval computes it since commit ceb6c74.
    gold = _table3_gold()
    metric = IMeasureMetric(**options)
    fields = metric.aggregate(metric.sentence_stats_gold(gold, [hyp.split()])).fields
    assert _row(fields, "d") == pytest.approx(IEVAL_TABLE3[hyp]["d"])
    assert _row(fields, "c") == pytest.approx(IEVAL_TABLE3[hyp]["c"])


def test_table3_recount_baseline_is_the_first_release() -> None:
    # baseline=recount re-counts the system's own alignment with the hypothesis replaced by the
    # source (ieval's first release; gecscope 0.1.0's default): every column where the
    # hypothesis inserts a token becomes a baseline TN, so WAcc_b rises to 5/8 and 8/11.
    gold = _table3_gold()
    metric = IMeasureMetric(baseline="recount")
    h1, h2 = sorted(IEVAL_TABLE3, reverse=True)
    f1 = metric.aggregate(metric.sentence_stats_gold(gold, [h1.split()])).fields
    f2 = metric.aggregate(metric.sentence_stats_gold(gold, [h2.split()])).fields
    first = (f1["c_wacc_b"], f1["c_i"])
    assert first == pytest.approx((5 / 8, 0.32 / (5 / 8) - 1))
    second = (f2["c_wacc_b"], f2["c_i"])
    assert second == pytest.approx((8 / 11, (2 / 9) / (8 / 11) - 1))
    assert f1["c_tp"] == IEVAL_TABLE3[h1]["c"][0] and f1["c_fpn"] == IEVAL_TABLE3[h1]["c"][4]


# ieval.py (fc79fdf) on the tool's own example (../shared/data/imeasure), further options
IEVAL_EXAMPLE = [
    ({"optimise": "corpus"}, "-opt:corpus",
     [2, 5, 0, 1, 0, 100.00, 66.67, 80.00, 87.50, 62.50, 90.00, 62.50, 73.33]),
    ({"mix": False, "maximise": "ci"}, "-nomix -max:ci",
     [1, 4, 1, 2, 0, 50.00, 33.33, 40.00, 62.50, 62.50, 60.00, 62.50, -4.00]),
    ({"maximise": "dp", "beta": 0.5, "w": 3.0}, "-max:dp -b:0.5 -w:3",
     [2, 5, 0, 1, 0, 100.00, 66.67, 90.91, 87.50, 62.50, 91.67, 62.50, 77.78]),
]


@pytest.mark.parametrize(("options", "flags", "row"), IEVAL_EXAMPLE,
                         ids=[f for _, f, _ in IEVAL_EXAMPLE])
def test_example_options_equal_ieval(shared_data: Path, options: dict[str, object], flags: str,
                                     row: list[float]) -> None:
    fields = _score_example(shared_data, **options)
    assert _row(fields, "d") == pytest.approx(row)
    assert _row(fields, "c") == pytest.approx(row)


def test_alignment_costs_and_tie_order() -> None:
    s = "a b c".split()
    # all equal: identity
    assert align(s, s, s) == [("a", "a", "a"), ("b", "b", "b"), ("c", "c", "c")]
    # source == hypothesis: pairwise hyp/ref, deletion placed as the backtrace prefers
    assert align(s, s, "a c".split()) == [("a", "a", "a"), ("b", "b", ""), ("c", "c", "c")]
    # three-way: substitution in hyp, deletion in ref
    assert align(s, "a x c".split(), "a c".split()) == [
        ("a", "a", "a"), ("b", "x", ""), ("c", "c", "c")]
    # hypothesis == reference != source goes through the full three-way programme
    assert align("x y".split(), "y".split(), "y".split()) == [("x", "", ""), ("y", "y", "y")]


def test_column_classification() -> None:
    cols = [("a", "a", "a"), ("b", "b", "B"), ("c", "C", "c"), ("d", "D", "D"), ("e", "E", "F"),
            ("", "", "g"), ("", "h", ""), ("i", "", "")]
    c = count_columns(cols)
    assert c == IMeasureCounts(tp_d=3, tp_c=2, tn=1, fp_d=2, fn_d=2, tn_b=3, fn_b=5)
    assert c.aspect("c") == (2, 1, 3, 3, 1)
    assert c.aspect("d") == (3, 1, 2, 2, 0)


def test_apply_corrections_right_to_left_and_empty_guard() -> None:
    src = "a b c d".split()
    assert apply_corrections(src, [(0, 1, "A"), (2, 4, "")]) == ("A", "b")
    assert apply_corrections(src, [(0, 4, "")]) == tuple(src)
    assert apply_corrections(src, [(1, 1, "x y")]) == ("a", "x", "y", "b", "c", "d")


def test_improvement_tie_and_signs() -> None:
    assert improvement(0.5, 0.5) == 0.0
    assert improvement(1.0, 1.0) == 0.0
    assert improvement(1.0, 1.0, tie="floor") == 1.0
    assert improvement(0.9, 0.625) == pytest.approx(0.275 / 0.375)
    assert improvement(0.7, 0.75) == pytest.approx(0.7 / 0.75 - 1)


def test_corpus_optimisation_and_per_sentence_rows(shared_data: Path) -> None:
    gold = read_gold(shared_data / "imeasure" / "gold.xml")
    two = IMeasureGold((Script("1", gold.sentences * 2),))
    hyp = (shared_data / "imeasure" / "sys.txt").read_text().split()
    for opt in ("sent", "corpus"):
        metric = IMeasureMetric(optimise=opt)
        stats = metric.sentence_stats_gold(two, [hyp, hyp])
        assert metric.aggregate(stats).fields["c_wacc"] == pytest.approx(0.9)
        rows = metric.sentence_rows(stats)
        actual = [r["c_i"] for r in rows]
        assert actual == pytest.approx([0.733333] * 2, abs=1e-6)


def test_i_on_a_tie_is_the_tools_floor_unless_fixed(tmp_path: Path) -> None:
    # source, hypothesis and reference identical: ieval prints I = 100 (floor(WAcc) = 1)
    (tmp_path / "ref.m2").write_text("S a b .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n",
                                     encoding="utf-8")
    data = EvalData.from_m2(tmp_path / "ref.m2")
    hyp = Hypothesis.from_texts(["a b ."])
    assert IMeasureMetric().score(data, hyp).fields["c_i"] == 1.0
    fixed = IMeasureMetric(fix_tie_i=True)
    assert fixed.score(data, hyp).fields["c_i"] == 0.0
    assert IMeasureMetric(tie_i="zero").config == fixed.config  # the former spelling
    assert IMeasureMetric(tie_i="floor").config == IMeasureMetric().config
    assert "tie_i" not in IMeasureMetric().options()
    note = fixed.fix_note()
    assert note is not None and "fix_tie_i=true" in note and "ieval.py" in note


@pytest.mark.parametrize("options", [{"maximise": "xwacc"}, {"maximise": "cfoo"},
                                     {"optimise": "doc"}, {"w": 0}, {"tie_i": "one"},
                                     {"search": "fast"}, {"window": 0}, {"main": "c_zz"},
                                     {"unknown": 1}])
def test_config_validation(options: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        IMeasureMetric(**options)


def test_m2_reference_is_converted_on_the_fly(tmp_path: Path) -> None:
    m2 = tmp_path / "gold.m2"
    m2.write_text("S This machines is designed for help people .\n"
                  "A 0 1|||SVA|||These|||REQUIRED|||-NONE-|||0\n"
                  "A 2 3|||SVA|||are|||REQUIRED|||-NONE-|||0\n"
                  "A 5 6|||Vform|||helping|||REQUIRED|||-NONE-|||0\n"
                  "A 1 2|||SVA|||machine|||REQUIRED|||-NONE-|||1\n"
                  "A 4 5|||Vform|||to|||REQUIRED|||-NONE-|||1\n\n")
    # Converted from M2, the five edits become five optional errors (the converter only joins
    # overlapping spans), so mixing can rebuild the hypothesis exactly: WAcc = 1, I = 1.
    data = EvalData((str(m2),))
    hyp = Hypothesis("sys", [tuple("This machines are designed to help people .".split())])
    fields = IMeasureMetric().score(data, hyp).fields
    actual = [fields["c_wacc"], fields["c_wacc_b"], fields["c_i"]]
    assert actual == pytest.approx([1.0, 0.75, 1.0])
    fields = IMeasureMetric(mix=False).score(data, hyp).fields
    assert fields["c_i"] == pytest.approx(0.7 / 0.75 - 1)


def test_undecomposable_huge_sentence_is_refused() -> None:
    # 20 adjacent optional errors with two alternatives each: 3**20 candidates, no cut possible
    errors = tuple(Error(str(i), "T", False, (Alternative("0", (Correction(i, i + 1, "x"),)),
                                              Alternative("1", (Correction(i, i + 1, "y"),))))
                   for i in range(20))
    sent = GoldSentence("9", " ".join(f"w{i}" for i in range(20)), 3, errors)
    gold = IMeasureGold((Script("1", (sent,)),))
    with pytest.raises(ConfigError, match="sentence 9 has up to 3486784401 candidate"):
        IMeasureMetric().sentence_stats_gold(gold, [sent.tokens])
    # without mixing there are three references (source, all-x, all-y); the last two give the
    # same counts against the unchanged hypothesis, so two distinct outcomes remain
    stats = IMeasureMetric(mix=False).sentence_stats_gold(gold, [sent.tokens])
    actual = [o.counts.tn for o in stats[0].options]
    assert actual == [20, 0]


def test_table3_m2_prefers_the_other_hypothesis_and_in_memory_references() -> None:
    # The other half of the paper's point: M2 ranks hypothesis 2 higher (F0.5 0.45 vs 0.33).
    # The references here exist only in memory (EvalData.from_m2), as in the meta-evaluation.
    from gecscope.metrics.m2 import M2Metric

    src = tuple("Machine is design to help people .".split())
    edits = (Edit(0, 1, ("Machines",), "Nn"), Edit(1, 2, ("are",), "SVA"),
             Edit(2, 3, ("designed",), "Vform"))
    data = EvalData.from_m2(Corpus((Sentence(src, (Annotation(0, edits),)),)))
    h1 = Hypothesis("h1", [tuple("The machine is designed for helping people .".split())])
    h2 = Hypothesis("h2", [tuple("Machines is a design on the helping of the people .".split())])
    m2 = M2Metric()
    actual = [round(m2.score(data, h).value, 2) for h in (h1, h2)]
    assert actual == [0.33, 0.45]
    im = IMeasureMetric()
    improvements = [im.score(data, h).fields["c_i"] for h in (h1, h2)]
    assert improvements == pytest.approx([-0.44, -0.6111], abs=5e-5)


def test_warns_once_when_the_compiled_kernel_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without numba the same kernels run as plain Python, about 35x slower: say so, once.
    import warnings

    from gecscope import _jit
    from gecscope.metrics.imeasure import metric as metric_module

    monkeypatch.setattr(_jit, "HAVE_NUMBA", False)
    monkeypatch.setattr(metric_module, "_WARNED", False)
    gold = _table3_gold()
    hyp = ["Machines", "are", "designed", "to", "help", "people", "."]
    with pytest.warns(RuntimeWarning, match=r"gecscope\[fast\]"):
        IMeasureMetric().sentence_stats_gold(gold, [hyp])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        IMeasureMetric().sentence_stats_gold(gold, [hyp])


@pytest.mark.parametrize("metric", ["tp", "tn", "fp", "fn", "p", "r", "f", "acc", "wacc", "i"])
def test_selection_key_is_made_of_aspect_scores(metric: str) -> None:
    """The direct computation of the selection key equals the AspectScores it summarises."""
    import random

    from gecscope.metrics.imeasure.core import IMeasureCounts, aspect_scores, selection_key

    rng = random.Random(7)
    for _ in range(300):
        tp_d = rng.randint(0, 6)
        c = IMeasureCounts(tp_d, rng.randint(0, tp_d), rng.randint(0, 30), rng.randint(0, 6),
                           rng.randint(0, 6), rng.randint(0, 30), rng.randint(0, 8))
        for aspect in ("c", "d"):
            for beta, w, tie in ((1.0, 2.0, "zero"), (0.5, 3.0, "floor")):
                other = "d" if aspect == "c" else "c"
                sa = aspect_scores(c, aspect, beta, w, tie)
                so = aspect_scores(c, other, beta, w, tie)
                assert selection_key(c, aspect, metric, beta, w, tie) == (
                    sa.get(metric), sa.i, sa.wacc, sa.acc, so.get(metric), so.i, so.wacc, so.acc)


def _unsearchable(tmp_path: Path) -> tuple[Path, Path]:
    """A sentence whose every token one annotator deletes and the other replaces: 2^20
    candidate references, and a combination that empties it, so it cannot be cut into
    regions; and a plain second sentence."""
    toks = [f"w{i}" for i in range(20)]
    lines = ["S " + " ".join(toks)]
    for i in range(20):
        lines.append(f"A {i} {i + 1}|||U:OTHER||||||REQUIRED|||-NONE-|||0")
        lines.append(f"A {i} {i + 1}|||R:OTHER|||x{i}|||REQUIRED|||-NONE-|||1")
    m2 = tmp_path / "big.m2"
    m2.write_text("\n".join(lines) + "\n\nS a b c d e f g h i j k\n"
                  "A 0 1|||R:OTHER|||z|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(" ".join(toks) + "\na b c d e f g h i j k\n", encoding="utf-8")
    return m2, hyp


def test_a_sentence_too_large_to_search_is_refused_before_any_metric_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.cli.main import main

    m2, hyp_path = _unsearchable(tmp_path)
    data = EvalData.from_m2(m2)
    hyp = Hypothesis.from_file(hyp_path)
    metric = IMeasureMetric()
    metric.check_inputs(data)
    with pytest.raises(ConfigError, match="sentence 1 has up to 1048576 candidate references"):
        metric.check_hypothesis(data, hyp)  # what the plan asks of every metric first
    rc = main(["evaluate", "-m", "gleu", "-m", "imeasure", "-r", str(m2), "--hyp",
               str(hyp_path)])
    captured = capsys.readouterr()
    assert rc == 64 and "mix=false" in captured.err and captured.out == ""
    # with one reference per annotator it is scored
    assert IMeasureMetric(mix=False).evaluate(data, hyp).score.value is not None

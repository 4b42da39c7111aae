"""ERRANT scoring semantics on hand-made cases (no spaCy needed: edits come from M2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.m2 import parse_m2
from gecscope.metrics.errant import ErrantMetric, category_table

REF = (
    "S a b c d\n"
    "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
    "A 2 3|||R:VERB:SVA|||y|||REQUIRED|||-NONE-|||0\n"
    "A 0 1|||R:NOUN|||z|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S e f\n"
    "A 1 1|||M:DET|||the|||REQUIRED|||-NONE-|||0\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n"
)
HYP = (
    "S a b c d\n"
    "A 0 1|||R:NOUN|||z|||REQUIRED|||-NONE-|||0\n"
    "A 2 3|||R:VERB:SVA|||w|||REQUIRED|||-NONE-|||0\n"
    "\n"
    "S e f\n"
    "A 0 1|||U:NOUN||||||REQUIRED|||-NONE-|||0\n"
)


def score(hyp: str = HYP, ref: str = REF, **opts):
    data = EvalData.from_m2(parse_m2(ref))
    h = parse_m2(hyp)
    return ErrantMetric(**opts).score(data, Hypothesis("h", h.hypotheses(), h))


def test_span_correction_picks_best_reference_per_sentence() -> None:
    # Sentence 1: vs ref 0 TP0 FP2 FN2; vs ref 1 TP1 FP1 FN0 (better F) -> ref 1.
    # Sentence 2: vs ref 0 TP0 FP1 FN1 (F 0); vs ref 1 (noop) TP0 FP1 FN0: cumulative F is
    # equal (TP stays 1), so the tie goes to fewer FN: ref 1.
    f = score().fields
    actual = (f["TP"], f["FP"], f["FN"])
    assert actual == (1, 2, 0)
    assert f["P"] == pytest.approx(1 / 3)
    assert f["F0.5"] == pytest.approx(1.25 * (1 / 3) / (0.25 * (1 / 3) + 1))


def test_detection_ignores_correction() -> None:
    f = score(mode="ds").fields
    # Span detection: sentence 1 vs ref 0 matches both spans (TP 2).
    actual = (f["TP"], f["FP"], f["FN"])
    assert actual == (2, 1, 0)


def test_token_detection_splits_spans() -> None:
    ref = "S a b c\nA 0 2|||R:OTHER|||x|||REQUIRED|||-NONE-|||0\n"
    hyp = "S a b c\nA 1 2|||R:OTHER|||y|||REQUIRED|||-NONE-|||0\n"
    f = score(hyp, ref, mode="dt").fields
    actual = (f["TP"], f["FP"], f["FN"])
    assert actual == (1, 0, 1)


def test_correction_with_classification_requires_type() -> None:
    ref = "S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
    hyp = "S a b\nA 0 1|||R:VERB|||x|||REQUIRED|||-NONE-|||0\n"
    assert score(hyp, ref).fields["TP"] == 1
    assert score(hyp, ref, mode="cse").fields["TP"] == 0


def test_unk_only_counts_in_detection() -> None:
    ref = "S a b\nA 0 1|||UNK|||a|||REQUIRED|||-NONE-|||0\n"
    hyp = "S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
    actual = (score(hyp, ref).fields["TP"], score(hyp, ref).fields["FP"])
    assert actual == (0, 1)
    assert score(hyp, ref, mode="ds").fields["TP"] == 1


def test_duplicate_reference_edits() -> None:
    # errant issue #49: a reference with the same edit twice gives two TP for one edit.
    ref = ("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
           "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n")
    hyp = "S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
    # errant_compare 3.0.2 prints TP 2 FP 0 FN 0 for these two files (run here): the default
    assert score(hyp, ref).fields["TP"] == 2
    assert score(hyp, ref, fix_duplicate_edits=True).fields["TP"] == 1
    # the former spelling still works, and means the same
    assert score(hyp, ref, duplicate_ref_edits="once").fields["TP"] == 1
    assert score(hyp, ref, duplicate_ref_edits="errant").fields["TP"] == 2
    with pytest.raises(ConfigError, match="now fix_duplicate_edits"):
        score(hyp, ref, duplicate_ref_edits="twice")


def test_a_fix_shows_in_the_signature_and_under_the_table(tmp_path: Path) -> None:
    from gecscope.signature import metric_signature

    (tmp_path / "ref.m2").write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n",
                                     encoding="utf-8")
    data = EvalData.from_m2(tmp_path / "ref.m2")
    official, fixed = ErrantMetric(), ErrantMetric(fix_duplicate_edits=True)
    assert "fde:" not in metric_signature(official, data).short()
    assert "|fde:yes|" in metric_signature(fixed, data).short()
    assert "|fix_duplicate_edits:no|" in metric_signature(official, data).long()
    assert "duplicate_ref_edits" not in metric_signature(
        ErrantMetric(duplicate_ref_edits="once"), data).long()
    assert official.fix_note() is None
    note = fixed.fix_note()
    assert note is not None and note.startswith("fix_duplicate_edits=true (")
    assert "errant_compare 3.0.2" in note


def test_single_multi_filter() -> None:
    ref = ("S a b c\nA 0 2|||R:OTHER|||x|||REQUIRED|||-NONE-|||0\n"
           "A 2 3|||R:NOUN|||y|||REQUIRED|||-NONE-|||0\n")
    f = score(ref, ref, single=True).fields
    actual = (f["TP"], f["FN"])
    assert actual == (1, 0)
    f = score(ref, ref, multi=True).fields
    actual = (f["TP"], f["FN"])
    assert actual == (1, 0)
    f = score(ref, ref, filt=("R:NOUN",)).fields
    actual = (f["TP"], f["FN"])
    assert actual == (1, 0)


def test_category_levels() -> None:
    cats = {"R:NOUN": [1, 0, 2], "M:NOUN": [0, 1, 0], "R:VERB:SVA": [3, 0, 0], "UNK": [0, 0, 1]}
    assert category_table(cats, 1) == {"R": [4, 0, 2], "M": [0, 1, 0], "UNK": [0, 0, 1]}
    assert category_table(cats, 2) == {"NOUN": [1, 1, 2], "VERB:SVA": [3, 0, 0],
                                       "UNK": [0, 0, 1]}
    assert category_table(cats, 3) == cats


def test_selection_rounding_changes_choice() -> None:
    # Two candidates whose cumulative F differ only beyond 4 decimals: rounding makes them tie
    # and the tie-break (more TP) decides; without rounding the higher F wins.
    metric = ErrantMetric()
    from gecscope.metrics.errant import Candidate, SentenceStats

    history = [SentenceStats((Candidate(0, 0, 10000, 10000, 10000, ()),))]
    a = Candidate(0, 0, 0, 0, 0, ())
    b = Candidate(0, 1, 1, 2, 0, ())
    chosen = metric.select(history + [SentenceStats((a, b))])
    assert chosen[-1] == b
    chosen = ErrantMetric(selection_rounding=None).select(history + [SentenceStats((a, b))])
    assert chosen[-1] == a


def test_bad_config() -> None:
    from gecscope.errors import ConfigError

    with pytest.raises(ConfigError):
        ErrantMetric(mode="xx")
    with pytest.raises(ConfigError):
        ErrantMetric(beta=0)


def test_category_levels_keep_non_errant_types_whole() -> None:
    # errant_compare cuts every type like "R:NOUN": NUCLE's "Nn" became "N" and "" (a row with
    # no name) at levels 1 and 2
    from gecscope.metrics.errant import category_table

    cats = {"R:NOUN:NUM": [3, 1, 2], "M:DET": [1, 0, 0], "Nn": [2, 0, 5], "": [0, 1, 0],
            "UNK": [0, 0, 1]}
    assert category_table(cats, 1) == {"R": [3, 1, 2], "M": [1, 0, 0], "Nn": [2, 0, 5],
                                       "(untyped)": [0, 1, 0], "UNK": [0, 0, 1]}
    assert category_table(cats, 2) == {"NOUN:NUM": [3, 1, 2], "DET": [1, 0, 0], "Nn": [2, 0, 5],
                                       "(untyped)": [0, 1, 0], "UNK": [0, 0, 1]}
    assert category_table(cats, 3)["(untyped)"] == [0, 1, 0]


def test_the_note_is_printed_under_the_table_only_when_a_fix_is_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.cli.main import main

    ref = tmp_path / "ref.m2"
    ref.write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
                   "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    hyp = tmp_path / "hyp.m2"
    hyp.write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    for style in ([], ["--format", "markdown"]):
        assert main(["evaluate", "-r", str(ref), "--hyp", str(hyp), *style]) == 0
        assert "fix_duplicate_edits" not in capsys.readouterr().out
        assert main(["evaluate", "-r", str(ref), "--hyp", str(hyp), "-o",
                     "fix_duplicate_edits=true", *style]) == 0
        note = capsys.readouterr().out.split("signature:")[1]
        # the note says which numbers the fix changed, and errant_compare's (TP 2, run here)
        assert "fix_duplicate_edits=true (" in note and "it changed hyp (TP 1 vs 2" in note
    # a fix that changes nothing here says so
    ref.write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    assert main(["evaluate", "-r", str(ref), "--hyp", str(hyp), "-o",
                 "fix_duplicate_edits=true"]) == 0
    assert "no number here differs from errant_compare 3.0.2" in capsys.readouterr().out
    html = tmp_path / "report.html"
    assert main(["evaluate", "-r", str(ref), "--hyp", str(hyp), "-o", "fix_duplicate_edits=true",
                 "--html", str(html)]) == 0
    assert '<p class="meta">note: fix_duplicate_edits=true (' in html.read_text(encoding="utf-8")


def test_the_fix_note_is_in_the_json_report(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """#33 item 1: the JSON report (stdout and --json-out) carried the signature but not the
    note saying a fix moved a number away from errant_compare's; it is each metric's
    ``notes``, absent without a fix, and the document still follows the schema."""
    import json

    from gecscope.cli.main import main
    from gecscope.reports.json import load_schema

    ref = tmp_path / "ref.m2"
    ref.write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
                   "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    hyp = tmp_path / "hyp.m2"
    hyp.write_text("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    out = tmp_path / "report.json"
    base = ["evaluate", "-r", str(ref), "--hyp", str(hyp), "--format", "json", "-q"]
    assert main([*base, "--json-out", str(out)]) == 0
    assert "notes" not in json.loads(capsys.readouterr().out)["metrics"][0]
    assert "notes" not in json.loads(out.read_text(encoding="utf-8"))["metrics"][0]
    assert main([*base, "-o", "fix_duplicate_edits=true", "--json-out", str(out)]) == 0
    for doc in (json.loads(capsys.readouterr().out), json.loads(out.read_text(encoding="utf-8"))):
        (note,) = doc["metrics"][0]["notes"]
        assert note.startswith("fix_duplicate_edits=true (") and "it changed hyp (TP 1 vs 2" in note
        assert doc["scores"][0]["fields"]["TP"] == 1
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(doc, load_schema())

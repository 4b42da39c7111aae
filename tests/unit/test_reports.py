"""Report model, edit outcomes, JSON (validated against its schema), TSV, text and HTML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")
from test_stats_metric import Disentangled, EditFFast, ExactMatch, toy_corpus

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.reports.html import disentangled_chart, render_html, write_html_report
from gecscope.reports.json import dumps_report, load_schema, report_to_json, write_json_report
from gecscope.reports.model import OUTCOME_TABLE, build_report, outcome_totals
from gecscope.reports.outcomes import best_reference, classify, spans_overlap
from gecscope.reports.text import colour_enabled, format_ranking, format_report
from gecscope.reports.tsv import HEADER, report_to_tsv
from gecscope.types import Annotation, Edit, Sentence


def _toy_report(n_samples: int = 0):
    data, hyps = toy_corpus()
    metrics = [EditFFast(), Disentangled(), ExactMatch()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    return build_report(data, hyps, results, metrics, n_samples=n_samples, seed=3)


def test_outcomes_follow_cleme2_figure_1() -> None:
    # CLEME2.0 Figure 1 in miniature: the reference changes "were" and "for"; a hypothesis
    # that changes them differently makes necessary FPs, an insertion elsewhere is unnecessary.
    src = ("They", "were", "good", "for", "us")
    ref = [Edit(1, 2, ("was",), "R:VERB:SVA"), Edit(3, 4, ("to",), "R:PREP")]
    hyp = [Edit(1, 2, ("are",), "R:VERB:TENSE"), Edit(3, 4, ("to",), "R:PREP"),
           Edit(5, 5, ("all",), "M:OTHER")]
    got = [(o.start, o.end, o.original, o.correction, o.outcome) for o in classify(src, hyp, ref)]
    assert got == [(1, 2, "were", "are", "fp_ne"), (1, 2, "were", "was", "fn"),
                   (3, 4, "for", "to", "tp"), (5, 5, "", "all", "fp_un")]


def test_span_overlap_rules() -> None:
    e = Edit
    assert spans_overlap(e(1, 3), e(2, 4)) and not spans_overlap(e(1, 2), e(2, 3))
    assert spans_overlap(e(2, 2), e(1, 2)) and spans_overlap(e(2, 2), e(2, 3))
    assert spans_overlap(e(2, 2), e(2, 2)) and not spans_overlap(e(2, 2), e(3, 3))
    assert not spans_overlap(e(0, 1), e(2, 2))


def test_best_reference_and_alternatives() -> None:
    src = ("a", "b", "c")
    ref = Sentence(src, (Annotation(3, (Edit(0, 1, ("x",), "R:X"),)),
                         Annotation(5, (Edit(1, 2, ("y",), "R:Y", alternatives=(("z",),)),))))
    hyp = Sentence(src, (Annotation(0, (Edit(1, 2, ("z",), "R:Y"),)),))
    ann, outs = best_reference(hyp, ref)
    assert ann == 5 and [o.outcome for o in outs] == ["tp"]
    assert best_reference(None, Sentence(src)) == (None, [])


def test_report_model_holds_scores_types_and_sentences() -> None:
    rep = _toy_report(n_samples=300)
    assert rep.systems == ["good", "over", "copy"]
    actual = [m.name for m in rep.metrics]
    assert actual == ["toy-editf", "toy-disentangled", "toy-exact"]
    good = rep.score("good", "toy-editf")
    assert good is not None and good.value == pytest.approx(1.25 * (5 / 7) / (0.25 + 5 / 7))
    assert good.interval is not None and good.interval["n_samples"] == 300
    assert good.interval["low"] <= good.interval["high"]
    assert set(good.field_intervals) == {"TP", "FP", "FN", "P", "R", "F0.5"}
    actual = [s.rank for s in rep.scores if s.metric == "toy-editf"]
    assert actual == [1, 2, 3]
    assert outcome_totals(rep, "over") == {"tp": 3, "fp_ne": 1, "fp_un": 2, "fn": 4}
    rows = {r.type: (r.tp, r.fp_ne, r.fp_un, r.fn) for r in rep.per_type[OUTCOME_TABLE]["over"]}
    assert rows["R:ADJ"] == (0, 0, 1, 0) and rows["R:VERB:TENSE"] == (0, 1, 0, 0)
    assert len(rep.sentences) == 5
    s2 = rep.sentences[1]
    assert s2.source == "She like apple ."
    actual = [r.text for r in s2.references]
    assert actual == ["She likes apples .", "She likes apple s ."]
    assert s2.systems["good"].scores["toy-exact"] == 0.0


def test_json_validates_against_schema(tmp_path: Path) -> None:
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for n in (0, 200):
        doc = report_to_json(_toy_report(n_samples=n))
        jsonschema.validate(doc, schema)
    path = tmp_path / "r.json"
    write_json_report(path, _toy_report(n_samples=50))
    doc = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema)
    assert doc["schema_version"] == "1.2" and doc["resampling"]["n_samples"] == 50
    assert doc["metrics"][0]["signature_long"].startswith("metric:toy-editf|beta:0.5|")
    bad = dict(doc, scores=[{**doc["scores"][0], "value": "high"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_json_writes_non_finite_as_null() -> None:
    rep = _toy_report()
    rep.scores[0].value = float("nan")
    rep.scores[1].fields["P"] = float("inf")
    doc = json.loads(dumps_report(rep, sentences=False))
    assert doc["scores"][0]["value"] is None and doc["scores"][1]["fields"]["P"] is None


def test_tsv_has_one_row_per_field() -> None:
    rep = _toy_report(n_samples=100)
    lines = report_to_tsv(rep).splitlines()
    assert lines[0].split("\t") == list(HEADER)
    rows = [ln.split("\t") for ln in lines[1:]]
    assert len(rows) == 3 * 6 + 3 * 5 + 3 * 2
    main = [r for r in rows if r[0] == "good" and r[1] == "toy-editf" and r[6] == "1"]
    assert len(main) == 1 and main[0][2] == "F0.5"
    assert float(main[0][4]) <= float(main[0][3]) + 1e-12 <= float(main[0][5]) + 2e-12


def test_text_tables_colour_and_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    rep = _toy_report(n_samples=100)
    plain = format_report(rep)
    assert "\x1b[" not in plain
    # Options at their default are left out of the short signature (beta is 0.5 here).
    sig_line = next(ln for ln in plain.splitlines() if ln.startswith("signature: "))
    assert sig_line.startswith("signature: m:toy-editf|r:") and "beta" not in sig_line
    lines = plain.splitlines()
    table = lines[1:6]
    assert len({len(x) for x in table[:2]}) == 1  # header and rule have the same width
    coloured = format_report(rep, colour=True)
    assert "\x1b[1m" in coloured
    assert format_report(rep, quiet=True).splitlines()[0] == \
        f"good\ttoy-editf\t{rep.scores[0].value:.4f}"
    ranking = format_ranking(rep)
    assert ranking.splitlines()[3].split()[:3] == ["1", "1", "good"]

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_enabled(Tty()) is True  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert colour_enabled(Tty()) is False  # type: ignore[arg-type]


def test_html_is_self_contained(tmp_path: Path) -> None:
    rep = _toy_report(n_samples=50)
    page = render_html(rep)
    assert page.startswith("<!DOCTYPE html>")
    for needle in ("http://", "https://", "<link", "src=\""):
        if needle == "http://":
            # the only URL allowed is the SVG namespace, which is not fetched
            assert page.count("http://") == page.count('xmlns="http://www.w3.org/2000/svg"')
        else:
            assert needle not in page
    assert "default-src 'none'" in page
    assert 'id="gecscope-data"' in page and "</script>" in page
    assert disentangled_chart(rep, "toy-editf") is None
    chart = disentangled_chart(rep, "toy-disentangled")
    assert chart is not None and chart.count('class="bar"') == 12


def test_html_escapes_text() -> None:
    data, hyps = toy_corpus()
    hyps[0] = hyps[0].renamed("<b>sys</b>")
    m = ExactMatch()
    page = render_html(build_report(data, hyps, [m.evaluate(data, h) for h in hyps], [m]))
    assert "<b>sys</b>" not in page.split('id="gecscope-data"')[0]
    assert "&lt;b&gt;sys&lt;/b&gt;" in page
    assert "\\u003cb\\u003esys" in page  # and not breakable inside the JSON script


def test_plain_text_references_give_text_only_sentences(tmp_path: Path) -> None:
    src, ref, hyp = tmp_path / "src.txt", tmp_path / "ref.txt", tmp_path / "hyp.txt"
    src.write_text("He go home .\nIt is .\n", encoding="utf-8")
    ref.write_text("He goes home .\nIt is .\n", encoding="utf-8")
    hyp.write_text("He goes home .\nIt is !\n", encoding="utf-8")
    data = EvalData((str(ref),), str(src))
    h = Hypothesis.from_file(hyp, "sys")
    m = ExactMatch()
    rep = build_report(data, [h], [m.evaluate(data, h)], [m])
    assert rep.score("sys", "toy-exact").value == pytest.approx(0.5)
    actual = [(s.source, [r.text for r in s.references], s.systems["sys"].hypothesis,
             s.systems["sys"].edits, s.systems["sys"].scores) for s in rep.sentences]
    assert actual == [
        ("He go home .", ["He goes home ."], "He goes home .", [], {"toy-exact": 1.0}),
        ("It is .", ["It is ."], "It is !", [], {"toy-exact": 0.0})]
    assert any("plain text" in w for w in rep.inputs["warnings"])
    assert OUTCOME_TABLE not in rep.per_type
    jsonschema.validate(report_to_json(rep), load_schema())
    assert "It is !" in render_html(rep)


@pytest.mark.slow
def test_conll_report_with_errant(conll14: Path, tmp_path: Path) -> None:
    from gecscope.metrics.errant import ErrantMetric

    d = conll14 / "errant"
    data = EvalData.from_m2(read_m2(d / "references.m2"))
    hyps = [Hypothesis.from_file(d / f"{n}.m2") for n in ("AMU", "INPUT")]
    metric = ErrantMetric()
    results = [metric.evaluate(data, h) for h in hyps]
    path = tmp_path / "conll.html"
    rep = write_html_report(path, data, hyps, results, [metric], n_samples=100)
    assert path.stat().st_size > 100_000
    amu = rep.score("AMU", "errant")
    # ERRANT on the CLEME repository's re-annotated CoNLL-2014: TP 483, FP 795, FN 1934
    assert amu is not None and amu.fields["TP"] == 483 and amu.fields["FP"] == 795
    cats = {r.type: (r.tp, r.fp, r.fn) for r in rep.per_type["errant"]["AMU"]}
    assert cats["R:NOUN:NUM"] == (117, 124, 89)
    totals = outcome_totals(rep, "INPUT")
    assert totals["tp"] == totals["fp_ne"] == totals["fp_un"] == 0 and totals["fn"] > 2000
    jsonschema.validate(report_to_json(rep), load_schema())


def test_sentence_listings_come_from_the_declared_details() -> None:
    """``evaluate -v`` prints what a metric's ``Metric.details`` gives, whatever its class
    (reports/ names no metric class); a metric without details lists nothing."""
    from dataclasses import dataclass

    from gecscope.reports.tables import format_evaluation

    @dataclass(frozen=True)
    class Detail:
        index: int
        annotator: int
        proposed: tuple[tuple[int, int, str, str], ...]
        gold: tuple[tuple[int, int, str, str], ...]
        correct: tuple[tuple[int, int, str, str], ...]
        counts: tuple[int, int, int]

    class Listed(ExactMatch):
        name = "toy-listed"

        def details(self, stats):  # type: ignore[no-untyped-def]
            edit = (1, 2, "go", "goes")
            return [Detail(i, 1, (edit,), (edit,) if s else (), (edit,) if s else (),
                           (s, 1, s)) for i, s in enumerate(stats)]

    data, hyps = toy_corpus()
    metrics = [Listed(), ExactMatch()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    report = build_report(data, hyps, results, metrics, sentences=False, types=False,
                          details=True)
    assert list(report.details) == ["toy-listed"]
    assert list(report.details["toy-listed"]) == [h.name for h in hyps]
    text = format_evaluation(report)
    blocks = text.split("\n\n")
    assert [b.splitlines()[0] for b in blocks if "per sentence" in b] == [
        f"-- {h.name}: toy-listed per sentence (m2scorer -v) --" for h in hyps]
    good = next(b for b in blocks if b.startswith("-- good: toy-listed")).splitlines()
    stats = next(r.stats for r in results if r.system == "good" and r.metric == "toy-listed")
    assert len(good) == 1 + 4 * len(stats)
    for i, s in enumerate(stats):
        head, proposed, gold, correct = good[1 + 4 * i:5 + 4 * i]
        assert gold == ("  gold:     (1, 2) 'go' -> 'goes'" if s else "  gold:     -")
        assert head == f"sentence {i + 1}  annotator 1  correct {s}  proposed 1  gold {s}"
        assert proposed == "  proposed: (1, 2) 'go' -> 'goes'"
        assert correct == ("  correct:  (1, 2) 'go' -> 'goes'" if s else "  correct:  -")
    assert "toy-exact per sentence" not in text


def test_a_report_without_types_or_sentences_extracts_no_edits() -> None:
    """``evaluate`` builds a Report for every format: without per-type tables, sentences or
    resampling it costs the signatures only, so text systems scored by a metric that reads no
    edits get none extracted (with per-type tables asked for, they are)."""
    demo = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
    data = EvalData((str(demo / "references.m2"),))
    hyps = [Hypothesis.from_file(demo / f"{s}.txt") for s in ("careful", "rewriter")]
    metric = ExactMatch()
    results = [metric.evaluate(data, h) for h in hyps]
    report = build_report(data, hyps, results, [metric], sentences=False, types=False)
    assert [s.value for s in report.scores] == [r.score.value for r in results]
    assert [s.sentence_scores for s in report.scores] == [r.sentence_scores for r in results]
    assert report.per_type == {} and report.sentences == [] and report.details == {}
    assert all(data.known_hypothesis_m2(h) is None for h in hyps)

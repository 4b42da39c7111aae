"""Edit attributions in reports (#35 items 2 and 3): per-type sums, their level mapping, the
note of a corpus-only metric, the JSON carrying the values, and the guard against
attributions that do not start from the scoring's sentence scores.

The toy corpus (tests/unit/test_stats_metric.py) is scored with ExactMatch, a real metric whose
sentence score is 1 when the hypothesis equals a reference, so every Shapley value below is
worked out by hand from the sentences."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from test_stats_metric import EditF, ExactMatch, toy_corpus

from gecscope.errors import ConfigError
from gecscope.explain import attribute
from gecscope.metrics.errant import category_table
from gecscope.reports.attribution import AttributionRequest, type_shares
from gecscope.reports.json import report_to_json
from gecscope.reports.model import build_report
from gecscope.reports.tables import format_evaluation

jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")


def _report(method: str = "shapley", metrics: tuple = (ExactMatch(), EditF()),
            tamper: dict[str, int] | None = None, by: float = 0.5):
    data, hyps = toy_corpus()
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    for r in results:  # a scoring whose sentence scores an attribution cannot start from
        if tamper and r.system in tamper and r.sentence_scores is not None:
            r.sentence_scores[tamper[r.system]] += by
    return build_report(data, hyps, results, list(metrics), sentences=True,
                        attribution=AttributionRequest(method)), data, hyps


def test_shapley_values_by_hand_and_by_type() -> None:
    report, _, _ = _report()
    table = report.attributions["toy-exact"]
    over = table.shares["over"]
    # sentence 1, "He go to school .": over makes go -> goes (a reference on its own: 1) and
    # school -> the school (never a reference): v({}) = 0, v(goes) = 1, v(the) = 0,
    # v(both) = 0, so goes gets (1 + 0) / 2 and "the school" (0 - 1) / 2
    assert [(e.correction, e.value) for e in over[0].edits] == [("goes", 0.5),
                                                                ("the school", -0.5)]
    # sentence 4 "This is fine .": the source is the reference (1), over's fine -> good not (0)
    assert (over[3].base, over[3].full) == (1.0, 0.0)
    assert [(e.type, e.value) for e in over[3].edits] == [("R:ADJ", -1.0)]
    # per full type, over: R:ADJ -1, M:DET -0.5, R:VERB:SVA +0.5, the rest 0
    rows = {r.type: (r.value, r.edits) for r in table.rows["over"]}
    assert rows["R:ADJ"] == (-1.0, 1) and rows["M:DET"] == (-0.5, 1)
    assert rows["R:VERB:SVA"] == (0.5, 1) and rows["R:NOUN:NUM"] == (0.0, 1)
    # good: 3 of its 5 sentences become a reference, 2 of them by two edits together
    assert table.delta["good"] == 2.0 and table.delta["over"] == -1.0
    assert table.rows["copy"] == [] and table.delta["copy"] == 0.0


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("method", ["shapley", "add", "sub", "shapley_sampling"])
def test_type_sums_equal_the_total_delta(level: int, method: str) -> None:
    report, _, _ = _report(method)
    table = report.attributions["toy-exact"]
    for system, rows in table.rows.items():
        by_type = math.fsum(r.value for r in type_shares(rows, level))
        by_edit = math.fsum(e.value for s in table.shares[system] for e in s.edits)
        by_sentence = math.fsum(s.full - s.base for s in table.shares[system])
        assert by_type == pytest.approx(by_edit, abs=1e-12), (system, method, level)
        assert table.delta[system] == pytest.approx(by_sentence, abs=1e-12)
        if method.startswith("shapley"):
            # sum over types = sum over sentences of M(S, H) - M(S, S)
            assert by_type == pytest.approx(by_sentence, abs=1e-12), (system, method, level)
    if method == "add":
        # add (and sub) rescale each sentence's raw values to delta, except when they sum to
        # 0 (gec-metrics' rule): good's sentence 3 needs both of its edits to become a
        # reference, so each alone changes nothing and the sentence's +1 is not shared
        assert table.delta["good"] == 2.0
        assert math.fsum(r.value for r in table.rows["good"]) == 1.0


@pytest.mark.parametrize("level", [1, 2, 3])
def test_levels_are_those_of_the_count_tables(level: int) -> None:
    report, _, _ = _report()
    table = report.attributions["toy-exact"]
    types = ["R:VERB:SVA", "M:DET", "UNK", "Nn", "", "R:NOUN:NUM", "U:PREP"]
    for system, rows in table.rows.items():
        edits = {r.type: r.edits for r in rows}
        # --cat's counts of the same edits (one "TP" per edit) give the same rows and numbers
        counted = category_table({t: [n, 0, 0] for t, n in edits.items()}, level)
        assert {r.type: r.edits for r in type_shares(rows, level)} == \
            {t: c[0] for t, c in counted.items()}, system
    # and on types the toy corpus lacks (not ERRANT's, untyped)
    from gecscope.reports.attribution import TypeShare

    synthetic = [TypeShare(t, 1.0, 1) for t in types]
    assert {r.type for r in type_shares(synthetic, level)} == \
        set(category_table({t: [1, 0, 0] for t in types}, level))


def test_table_states_method_and_a_corpus_only_metric_gets_the_reason() -> None:
    report, _, _ = _report("sub")
    text = format_evaluation(report, cat=2)
    assert "good: toy-exact by error type (level 2), attribution (sub): sum of edit shares " \
           "of delta toy-exact" in text
    assert "delta toy-exact summed over the 5 sentences: -1.0000" in text
    # toy-editf gives no sentence scores: a message, no table
    assert "toy-editf: no per-type attribution" in text
    assert "toy-editf scores the corpus only (no sentence scores)" in text
    assert "toy-editf by error type" not in text
    assert report.attributions["toy-editf"].rows == {}


def test_json_carries_the_attributions() -> None:
    from gecscope.reports.json import load_schema

    report, data, hyps = _report()
    doc = report_to_json(report)
    jsonschema.validate(doc, load_schema())
    assert doc["schema_version"] == "1.2"
    got = doc["attributions"]["toy-exact"]
    assert got["method"] == "shapley" and got["note"] is None
    assert doc["attributions"]["toy-editf"]["note"].startswith("toy-editf scores the corpus")
    over = hyps[1]
    assert over.name == "over"
    # per sentence: the values of gecscope.explain.attribute, called here on its own
    direct = attribute(ExactMatch(), data, over, "shapley")
    for s, a in zip(doc["sentences"], direct, strict=True):
        mine = s["systems"]["over"]["attributions"]["toy-exact"]
        assert (mine["base"], mine["full"]) == (a.base, a.full)
        assert [(e["start"], e["end"], e["correction"], e["type"], e["value"])
                for e in mine["edits"]] == [
            (e.edit.start, e.edit.end, " ".join(e.edit.correction), e.edit.type, e.value)
            for e in a.edits]
    per_type = {r["type"]: r["value"] for r in got["systems"]["over"]["per_type"]}
    assert per_type["R:ADJ"] == -1.0
    assert got["systems"]["over"]["total"] == got["systems"]["over"]["delta"] == -1.0
    # the schema holds the shape: an attributed edit without its value is refused
    bad = report_to_json(report)
    del bad["sentences"][0]["systems"]["good"]["attributions"]["toy-exact"]["edits"][0]["value"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, load_schema())


def test_attributions_from_other_sentence_scores_are_dropped() -> None:
    # a scoring whose sentence 3 of "good" is not what the metric gives that sentence
    report, _, _ = _report(tamper={"good": 2})
    table = report.attributions["toy-exact"]
    assert "good" not in table.rows and set(table.rows) == {"over", "copy"}
    assert any("no toy-exact attributions for good" in w and "sentence 3: 1.0, the scoring's 1.5" in w
               for w in report.inputs["warnings"])


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ConfigError, match="unknown attribution method"):
        AttributionRequest("shap")
    with pytest.raises(ConfigError, match="max_exact"):
        AttributionRequest(max_exact=21)
    with pytest.raises(ConfigError, match="samples"):
        AttributionRequest(samples=0)
    assert dataclasses.replace(AttributionRequest(), max_exact=3).options()["max_exact"] == 3


def test_attributions_out_of_order_or_missing_are_dropped(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    # gecscope.explain.attribute's real results, then reordered or cut short on their way
    # into the report: matched by position they would colour the wrong sentences
    import gecscope.explain

    real = gecscope.explain.attribute
    for tamper, where in ((lambda got: got[1:] + got[:1], "not sentences 1 to 5 in order"),
                          (lambda got: got[:-1], "4 sentences, not sentences 1 to 5")):
        monkeypatch.setattr(gecscope.explain, "attribute",
                            lambda *a, _t=tamper, **k: _t(real(*a, **k)))
        report, _, _ = _report(metrics=(ExactMatch(),))
        assert report.attributions["toy-exact"].rows == {}
        assert sum(where in w for w in report.inputs["warnings"]) == 3  # every system


class _Undefined(ExactMatch):
    """ExactMatch with no number (NaN) for a sentence that still says 'dogs' (sentence 3's
    source): a metric whose sentence score is undefined for some sentences."""

    name = "toy-undefined"

    def sentence_stats(self, data, hyp):  # type: ignore[no-untyped-def]
        return [(s, "dogs" in h) for s, h in zip(super().sentence_stats(data, hyp), hyp.tokens,
                                                 strict=True)]

    def aggregate(self, stats):  # type: ignore[no-untyped-def]
        return super().aggregate([s for s, _ in stats])

    def sentence_values(self, stats):  # type: ignore[no-untyped-def]
        return [math.nan if undefined else float(s) for s, undefined in stats]


def test_undefined_sentence_scores_are_left_out_of_the_sums(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # one NaN sentence made every per-type sum and delta NaN, and the HTML report crashed
    # (a NaN share in its strict JSON data)
    from gecscope.reports.html import write_report_html

    report, _, _ = _report(metrics=(_Undefined(),))
    table = report.attributions["toy-undefined"]
    good = table.shares["good"]
    assert math.isnan(good[2].base) and all(math.isnan(e.value) for e in good[2].edits)
    # good without sentence 3: goes (a reference alone) +1, likes and were 0 on their own
    assert table.undefined["good"] == 1 and table.delta["good"] == 1.0
    assert {r.type: (r.value, r.edits) for r in table.rows["good"]} == {"R:VERB:SVA": (1.0, 3)}
    assert "3 sentences left out of the sums" in table.describe()  # one per system
    assert ("delta toy-undefined summed over the 4 sentences: +1.0000 (1 with no number (NaN) "
            "left out)") in format_evaluation(report, cat=2)
    doc = report_to_json(report)
    shares = doc["sentences"][2]["systems"]["good"]["attributions"]["toy-undefined"]
    assert shares["base"] is None and [e["value"] for e in shares["edits"]] == [None, None]
    path = tmp_path / "report.html"
    write_report_html(path, report)
    page = path.read_text(encoding="utf-8")
    data = page.split('<script id="gecscope-data" type="application/json">', 1)[1]
    browser = json.loads(data.split("</script>", 1)[0])  # strict JSON: NaN is refused
    assert browser["sentences"][2] and browser["attribution_scale"] == [1.0]


def test_float_noise_of_model_metrics_keeps_the_attributions() -> None:
    # a 4-layer BERT SOME/IMPARA scored a sentence up to 6e-8 apart in another batch (the
    # scoring on workers, the attribution here): such a system's attributions were dropped
    kept, _, _ = _report(tamper={"good": 2}, by=6e-8)
    assert "good" in kept.attributions["toy-exact"].shares
    assert not any("no toy-exact attributions" in w for w in kept.inputs["warnings"])
    dropped, _, _ = _report(tamper={"good": 2}, by=1e-4)
    assert "good" not in dropped.attributions["toy-exact"].shares

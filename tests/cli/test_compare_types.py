"""Per-type tables never mix two error-type schemes, and ``compare --html`` extracts every
system's edits once and says what it wrote (issue 31, items 11 and 12).

The gold is the start of the CoNLL-2014 test set, typed in NUCLE's scheme; the systems are
plain text, so their edits are ERRANT's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.errant import ErrantMetric
from gecscope.metrics.m2 import M2Metric
from gecscope.progress import reporting
from gecscope.reports.model import OUTCOME_TABLE, build_report, with_edits
from gecscope.reports.schemes import edit_types, relabel, schemes_differ, type_view
from gecscope.types import Annotation, Corpus, Edit, Sentence

N = 60  # sentences: enough edits of every common type, a few seconds of ERRANT


@pytest.fixture(scope="module")
def nucle(conll14: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The first N sentences of the NUCLE-typed gold, of the same re-annotated with ERRANT
    and of three systems' outputs."""
    folder = tmp_path_factory.mktemp("nucle")
    blocks = conll14.joinpath("official-2014.combined.m2").read_text(
        encoding="utf-8").split("\n\n")
    (folder / "gold.m2").write_text("\n\n".join(blocks[:N]) + "\n\n", encoding="utf-8")
    blocks = conll14.joinpath("errant", "references.m2").read_text(
        encoding="utf-8").split("\n\n")
    (folder / "errant.m2").write_text("\n\n".join(blocks[:N]) + "\n\n", encoding="utf-8")
    out = {"gold": folder / "gold.m2", "errant": folder / "errant.m2"}
    for name in ("AMU", "CAMB", "UFC"):
        lines = conll14.joinpath("submissions", name).read_text(
            encoding="utf-8").splitlines()[:N]
        out[name] = folder / name
        out[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _gold_types(path: Path) -> set[str]:
    return set(edit_types(read_m2(str(path))))


@pytest.mark.requires_spacy
@pytest.mark.requires_data
def test_m2_report_types_are_one_scheme(nucle: dict[str, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    html, js = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["compare", "-m", "m2", "-r", str(nucle["gold"]), "--hyp", str(nucle["AMU"]),
                 str(nucle["CAMB"]), "--bootstrap", "20", "--html", str(html),
                 "--json-out", str(js)]) == 0
    err = capsys.readouterr().err
    doc = json.loads(js.read_text(encoding="utf-8"))
    nucle_types = _gold_types(nucle["gold"])
    assert {"ArtOrDet", "Nn"} <= nucle_types  # the gold is NUCLE-typed
    table = doc["per_type"][OUTCOME_TABLE]
    for system, rows in table.items():
        types = {r["type"] for r in rows}
        # no row of the gold's own scheme is left (old: ArtOrDet... with FN only)
        assert not types & nucle_types, (system, types & nucle_types)
        # rows hold both sides' counts: hits and misses of the same type
        assert any(r["tp"] and r["fn"] for r in rows), system
        # the counts are the sentence outcomes', re-labelled only
        totals = Counter(e["outcome"] for s in doc["sentences"]
                         for e in s["systems"][system]["edits"])
        assert sum(r["tp"] for r in rows) == totals["tp"]
        assert sum(r["fn"] for r in rows) == totals["fn"]
        assert sum(r["fp"] for r in rows) == totals["fp_ne"] + totals["fp_un"]
    ref_types = {e["type"] for s in doc["sentences"] for r in s["references"]
                 for e in r["edits"]}
    assert not ref_types & nucle_types
    note = doc["inputs"]["type_scheme"]
    assert "re-typed with ERRANT" in note and note in doc["inputs"]["warnings"]
    assert "re-typed with ERRANT" in err and f"wrote HTML report {html}" in err
    page = html.read_text(encoding="utf-8")
    assert "re-typed with ERRANT" in page and "ERRANT types (re-typed)</h3>" in page


def _type_tables(out: str) -> dict[str, dict[str, list[int]]]:
    """``evaluate --cat``'s tables: system -> type -> [TP, FP, FN]."""
    tables: dict[str, dict[str, list[int]]] = {}
    rows: dict[str, list[int]] | None = None
    for line in out.splitlines():
        if line.startswith("-- ") and " by error type " in line:
            rows = tables.setdefault(line[3:].split(":")[0], {})
        elif not line.strip():
            rows = None
        elif rows is not None and line.rsplit(None, 6)[1].isdigit():
            name, tp, fp, fn = line.rsplit(None, 6)[:4]  # a name may hold a space: UNK (Um)
            rows[name] = [int(tp), int(fp), int(fn)]
    return tables


@pytest.mark.requires_spacy
@pytest.mark.requires_data
def test_evaluate_cat_tables_are_one_scheme(nucle: dict[str, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``evaluate --cat`` builds its tables from the report's per-type counts (type_counts):
    against the NUCLE-typed gold they are ERRANT's types on both sides (old: ArtOrDet rows
    with only FN beside DET rows with only FP), their counts add up to the scores, and the
    note says why; the scores are those without --cat."""
    args = ["evaluate", "-m", "errant", "-r", str(nucle["gold"]), "--hyp", str(nucle["AMU"]),
            str(nucle["CAMB"])]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main([*args, "--cat", "2"]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert out.startswith(plain.rstrip("\n") + "\n\n-- AMU: errant by error type (level 2)")
    tables = _type_tables(out)
    assert list(tables) == ["AMU", "CAMB"]
    nucle_types = _gold_types(nucle["gold"])
    scores = {ln.split()[0]: [int(x) for x in ln.split()[1:4]] for ln in plain.splitlines()
              if ln.split() and ln.split()[0] in tables}
    for system, rows in tables.items():
        assert not set(rows) & nucle_types, (system, set(rows) & nucle_types)
        assert any(tp and fn for tp, _, fn in rows.values()), system
        assert rows["DET"][1] and rows["DET"][2]  # both sides under one name (old: DET: FP only)
        totals = [sum(r[i] for r in rows.values()) for i in range(3)]  # TP, FP, FN
        assert totals == scores[system]
    assert "gecscope: note: error types are ERRANT's" in err and "re-typed with ERRANT" in err
    assert "meaningless" not in err


@pytest.mark.requires_spacy
@pytest.mark.requires_data
def test_retyping_changes_no_m2_or_errant_count(nucle: dict[str, Path]) -> None:
    """Types do not enter M2's matching nor ERRANT's span-based correction: scored against the
    re-typed gold, every field of both metrics is the same; ERRANT's cse mode compares types,
    so its counts change and the report shows no per-type table for it."""
    data = EvalData.from_m2(str(nucle["gold"]))
    view = type_view(data.m2, {})
    assert view.refused is None
    hyps = with_edits(data, [Hypothesis.from_file(str(nucle[n]), n) for n in ("AMU", "CAMB")])
    view = type_view(data.m2, {h.name: h.m2 for h in hyps if h.m2 is not None})
    assert view.retyped == ["the references"] and view.reference is not None
    assert not set(edit_types(view.reference)) & _gold_types(nucle["gold"])
    typed = EvalData.from_m2(view.reference)
    for metric in (M2Metric(), ErrantMetric()):
        for h in hyps:
            assert metric.score(typed, h).fields == metric.score(data, h).fields
    cse = ErrantMetric(mode="cse")
    results = [cse.evaluate(data, h) for h in hyps]
    report = build_report(data, hyps, results, [cse], sentences=False)
    assert "errant" not in report.per_type
    assert any("depend on the error types" in w for w in report.inputs["warnings"])
    cs = ErrantMetric()
    results = [cs.evaluate(data, h) for h in hyps]
    report = build_report(data, hyps, results, [cs], sentences=False)
    for r in results:
        rows = report.per_type["errant"][r.system]
        assert not {row.type for row in rows} & _gold_types(nucle["gold"])
        actual = [sum(getattr(row, k) for row in rows) for k in ("tp", "fp", "fn")]
        assert actual == [r.score.fields["TP"], r.score.fields["FP"], r.score.fields["FN"]]


def _corpus(types: list[list[str]]) -> Corpus:
    src = ("a", "b", "c", "d", "e", "f")
    return Corpus(tuple(Sentence(src, (Annotation(0, tuple(
        Edit(k, k + 1, ("x",), t) for k, t in enumerate(ts))),)) for ts in types))


def test_schemes_differ_from_the_types_alone() -> None:
    errant = Counter({"R:NOUN:NUM": 30, "M:DET": 20, "R:PREP": 10})
    assert not schemes_differ(errant, Counter({"M:DET": 3}))  # a system of one kind of edit
    own = Counter({"Article": 30, "Noun": 20})
    assert schemes_differ(own, errant) and schemes_differ(errant, own)
    assert not schemes_differ(own, Counter({"Article": 2, "Verb": 1}))  # the same scheme
    assert not schemes_differ(own, Counter())  # no edits: nothing to tell


def test_mixed_schemes_are_refused_where_errant_cannot_retype() -> None:
    ref = _corpus([["Article", "Noun"], ["Noun"]])
    hyp = _corpus([["M:DET"], ["R:NOUN:NUM", "R:PREP"]])
    view = type_view(ref, {"sys": hyp}, errant=False)
    assert view.refused is not None and "Article" in view.refused
    assert view.reference is ref and view.hypotheses["sys"] is hyp and not view.changed


def test_relabel_keeps_every_span_and_refuses_other_edits() -> None:
    ref = _corpus([["Article", "Um"]])
    typed = _corpus([["M:DET", "UNK"]])
    out = relabel(ref, typed)
    actual = [(e.start, e.end, e.correction, e.type) for e in out[0].annotations[0].edits]
    assert actual == [(0, 1, ("x",), "M:DET"), (1, 2, ("x",), "UNK (Um)")]
    from gecscope.errors import GecscopeError

    with pytest.raises(GecscopeError, match="sentence 1"):
        relabel(ref, _corpus([["M:DET"]]))


@pytest.mark.requires_spacy
@pytest.mark.requires_data
def test_html_report_extracts_edits_once(nucle: dict[str, Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Counted with the real progress hook: the edits of every system are extracted in one
    pass (N ticks), and neither scoring nor building the report extracts more; the report's
    edits are the scoring's. (ERRANT-typed gold: nothing to re-type, which would tick too.)"""
    data = EvalData.from_m2(str(nucle["errant"]))
    hyps = [Hypothesis.from_file(str(nucle[n]), n) for n in ("AMU", "CAMB", "UFC")]
    ticks: list[int] = []
    with reporting(ticks.append):
        attached = with_edits(data, hyps)
    assert sum(ticks) == N
    metric = ErrantMetric()
    with reporting(ticks.append):
        results = [metric.evaluate(data, h) for h in attached]
        report = build_report(data, attached, results, [metric], sentences=True)
    assert sum(ticks) == N  # nothing extracted again
    for h in attached:
        assert h.m2 is not None and data.hypothesis_m2(h) is h.m2
        shown = [(e.start, e.end, e.correction) for s in report.sentences
                 for e in s.systems[h.name].edits if e.outcome != "fn"]
        own = [(e.start, e.end, " ".join(e.correction)) for s in h.m2
               for a in s.annotations for e in a.edits]
        assert sorted(shown) == sorted(own)
    # the command line: progress while extracting (with --progress), what it wrote, and -q
    html = tmp_path / "r.html"
    argv = ["compare", "-m", "m2", "-r", str(nucle["gold"]), "--hyp", str(nucle["AMU"]),
            str(nucle["UFC"]), "--bootstrap", "10", "--html", str(html)]
    assert main([*argv, "--progress"]) == 0
    err = capsys.readouterr().err
    assert f"extracting edits: {N}/{N} sentences" in err
    assert f"gecscope: wrote HTML report {html} (2 systems, {N} sentences)" in err
    html.unlink()
    assert main([*argv, "-q"]) == 0
    assert capsys.readouterr().err == "" and html.is_file()


def test_report_without_errant_shows_no_mixed_table() -> None:
    """German edits come from the Levenshtein extractor, which cannot re-type: the references'
    own scheme against ERRANT-typed system edits gives no per-type table at all (JSON and
    HTML), with the reason; the scores are untouched."""
    from gecscope.reports.html import render_html
    from gecscope.reports.json import report_to_json

    ref = _corpus([["Article", "Noun"], ["Noun"], ["Verb"]])
    data = EvalData.from_m2(ref, lang="de")
    hyps = [Hypothesis.from_m2(_corpus([["M:DET"], ["R:NOUN:NUM", "R:PREP"], []]), "one"),
            Hypothesis.from_m2(_corpus([["R:DET", "R:NOUN"], [], ["R:VERB"]]), "two")]
    metric = ErrantMetric()
    results = [metric.evaluate(data, h) for h in hyps]
    assert all(r.score.categories for r in results)  # the mixed counts the metric gives
    report = build_report(data, hyps, results, [metric], sentences=True)
    assert report.per_type == {}
    why = report.inputs["type_scheme"]
    assert why.startswith("no per-type tables") and "Article" in why
    assert report_to_json(report)["per_type"] == {}
    page = render_html(report)
    assert "typetable" not in page.split('id="types"')[1].split("</section>")[0]
    assert "No per-type tables: the references use types such as" in page
    assert report.score("one", "errant").fields == results[0].score.fields

"""``gecscope compare`` end to end on the CoNLL-2014 ERRANT M2 files.

The ERRANT F0.5 values pinned on them (CAMB 0.3348, AMU 0.3208) are errant_compare 3.0.2's:
``python benchmarks/errant_compare_conll14.py`` prints them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")

from gecscope.cli.main import main
from gecscope.reports.json import load_schema


@pytest.fixture(scope="module")
def errant_dir(conll14: Path) -> Path:
    return conll14 / "errant"


def test_compare_ranks_and_clusters(errant_dir: Path, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    hyps = [str(errant_dir / f"{n}.m2") for n in ("UFC", "CAMB", "AMU", "INPUT")]
    out_json = tmp_path / "cmp.json"
    code = main(["compare", "--ref", str(errant_dir / "references.m2"), "--hyp", *hyps,
                 "--bootstrap", "300", "--seed", "1", "--json-out", str(out_json), "-q",
                 "--format", "lines"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    # lines: metric, rank, cluster, system, score. CAMB 0.3348 and AMU 0.3208 (ERRANT F0.5 on
    # this data) are not significantly different; UFC and INPUT are clearly below them.
    rows = [ln.split("\t") for ln in lines]
    actual = [(r[1], r[2], r[3]) for r in rows]
    assert actual == [("1", "1", "CAMB"), ("2", "1", "AMU"),
                                                  ("3", "2", "UFC"), ("4", "3", "INPUT")]
    actual = [r[4] for r in rows[:2]]
    assert actual == ["0.3348", "0.3208"]
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    jsonschema.validate(doc, load_schema())
    assert doc["resampling"] == {"n_samples": 300, "seed": 1, "test": "bootstrap",
                                 "confidence": 0.95, "alpha": 0.05}
    assert doc["sentences"] == []


def test_compare_table_ar_and_errors(errant_dir: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    ref = str(errant_dir / "references.m2")
    code = main(["compare", "--ref", ref, "--hyp", str(errant_dir / "AMU.m2"),
                 str(errant_dir / "IPN.m2"), "--test", "ar", "--bootstrap", "200",
                 "--no-color"])
    assert code == 0
    out = capsys.readouterr().out
    assert "approximate randomisation, 200 samples, seed 12345" in out
    assert "|rs:ar200|s:12345|" in out
    ipn = next(ln for ln in out.splitlines() if " IPN " in ln)
    assert ipn.split()[:2] == ["2", "2"] and ipn.split()[-1] == f"{1 / 201:.4f}"
    assert main(["compare", "--ref", ref, "--hyp", str(errant_dir / "AMU.m2")]) == 64
    assert "at least two systems" in capsys.readouterr().err
    assert main(["compare", "--ref", ref, "--hyp", str(errant_dir / "AMU.m2"),
                 str(errant_dir / "AMU.m2")]) == 64


def test_compare_tsv(errant_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = str(errant_dir / "references.m2")
    assert main(["compare", "--ref", ref, "--hyp", str(errant_dir / "AMU.m2"),
                 str(errant_dir / "POST.m2"), "--bootstrap", "100", "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("system\tmetric\tfield\tvalue\tbootstrap_ci_low\tbootstrap_ci_high")
    main_rows = [ln.split("\t") for ln in lines[1:] if ln.split("\t")[6] == "1"]
    actual = [(r[0], r[7], r[8]) for r in main_rows]
    assert actual == [("AMU", "1", "1"), ("POST", "2", "2")]


def test_evaluate_and_compare_write_one_tsv_schema(errant_dir: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``evaluate --format tsv`` and ``compare --format tsv`` write the one long schema of
    docs/reports.md: the same header, the same value in every (system, metric, field) row;
    ``evaluate --sentences`` adds one row per sentence, in order, with the metric's sentence
    scores."""
    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.m2 import M2Metric
    from gecscope.reports.tsv import HEADER

    ref = str(errant_dir / "references.m2")
    hyps = [str(errant_dir / f"{n}.m2") for n in ("POST", "AMU")]
    assert main(["evaluate", "-r", ref, "--hyp", *hyps, "-m", "errant", "-m", "m2",
                 "--format", "tsv", "--sentences", "-q"]) == 0
    ev = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert main(["compare", "-r", ref, "--hyp", *hyps, "-m", "errant", "-m", "m2",
                 "--format", "tsv", "--bootstrap", "20", "-q"]) == 0
    cmp = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert tuple(ev[0]) == tuple(cmp[0]) == HEADER
    corpus = {tuple(r[:3]): r[3] for r in ev[1:] if not r[10]}
    compared = {tuple(r[:3]): r[3] for r in cmp[1:]}
    assert corpus == compared and len(corpus) == 2 * (6 + 6)
    assert float(corpus["AMU", "errant", "F0.5"]) == pytest.approx(0.3208, abs=5e-5)
    assert all(r[10] == "" for r in cmp[1:]) and all(r[7] for r in cmp[1:])  # ranked
    data = EvalData.from_m2(ref)
    for name, path in (("POST", hyps[0]), ("AMU", hyps[1])):
        rows = [r for r in ev[1:] if r[10] and r[0] == name and r[1] == "m2"]
        numbers = [int(r[10]) for r in rows]
        assert numbers == list(range(1, len(data) + 1))
        assert {(r[2], r[6]) for r in rows} == {("F0.5", "1")}
        expected = M2Metric().evaluate(data, Hypothesis.from_file(path, name)).sentence_scores
        assert expected is not None and [float(r[3]) for r in rows] == expected
        assert len(set(expected)) > 2  # sentences differ: order matters


@pytest.mark.slow
def test_report_arguments_for_evaluate(errant_dir: Path, tmp_path: Path) -> None:
    """What ``gecscope evaluate --html --json-out --bootstrap`` does through write_reports."""
    import argparse

    from gecscope.cli._inputs import (
        add_eval_arguments,
        add_report_arguments,
        build_metrics,
        evaluate_all,
        load_inputs,
        write_reports,
    )

    p = argparse.ArgumentParser()
    add_eval_arguments(p)
    add_report_arguments(p)
    html, js = tmp_path / "r.html", tmp_path / "r.json"
    args = p.parse_args(["--ref", str(errant_dir / "references.m2"), "--hyp",
                         str(errant_dir / "AMU.m2"), str(errant_dir / "UFC.m2"),
                         "--html", str(html), "--json-out", str(js), "--bootstrap", "50",
                         "--seed", "9", "-q"])
    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    results = evaluate_all(metrics, data, hyps, True)
    report = write_reports(args, data, hyps, results, metrics)
    assert report is not None and report.resampling["seed"] == 9
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    doc = json.loads(js.read_text(encoding="utf-8"))
    jsonschema.validate(doc, load_schema())
    assert len(doc["sentences"]) == 1312
    args.html = args.json_out = None
    args.bootstrap = 0
    assert write_reports(args, data, hyps, results, metrics) is None


def test_compare_as_a_markdown_table(capsys) -> None:
    demo = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
    assert main(["compare", "-m", "m2", "-r", str(demo / "references.m2"), "--hyp",
                 str(demo / "careful.txt"), str(demo / "cautious.txt"), "--bootstrap", "50",
                 "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "| rank | cluster | system | F0.5 | 95% CI, bootstrap over sentences | vs | delta | p |" in lines
    assert any(ln.startswith("| 1 | 1 | careful | 0.9449 | [") for ln in lines)

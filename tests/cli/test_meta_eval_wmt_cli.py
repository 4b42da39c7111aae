"""``gecscope meta-eval table`` / ``sentence`` / ``system`` with the WMT-grade statistics
(issue #34 item 1): the JSON output carries the figures the Python API gives (which
tests/regression/test_meta_eval_wmt_stats.py checks against mt-metrics-eval), the Markdown
shows clusters and intervals, and bad settings are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gecscope.cli.main import main
from gecscope.meta_eval.benchmarks import load_seeda
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.meta_eval.runner import evaluate_systems, sentence_score_table
from gecscope.meta_eval.significance import correlation_interval, metric_spa
from gecscope.meta_eval.ties import tie_calibrated_agreement

TOY = "gecscope.meta_eval.examples:CharLengthMetric"
CORPUS_ONLY = "gecscope.meta_eval.examples:CorpusCharLengthMetric"

pytest.importorskip("scipy")


@pytest.fixture(scope="module")
def seeda(shared_data: Path) -> Any:
    return load_seeda(shared_data / "seeda")


def test_table_json_and_clusters(seeda: Any, shared_data: Path, tmp_path: Path) -> None:
    out, js = tmp_path / "t.md", tmp_path / "t.json"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics",
               f"{TOY},{CORPUS_ONLY}", "--permutations", "50", "--resamples", "50",
               "--output", str(out), "--json", str(js), "-q"])
    assert rc == 0
    data = json.loads(js.read_text())
    rows = {r["label"]: r for r in data["rows"]}
    systems = seeda.ordered(seeda.select("base"))
    table = sentence_score_table(evaluate_systems(CharLengthMetric(), seeda, systems))
    sent = rows["Sentcharlen"]["sentence"]["seeda"]["sent"]
    want = tie_calibrated_agreement(seeda.judgments["sent"], table, systems, rows=seeda.rows,
                                    resamples=50)
    assert sent["calibrated"]["acc_eq"] == want.acc_eq
    assert sent["calibrated"]["acc_eq_interval"] == want.acc_interval.as_list()
    assert sent["spa"]["spa"] == metric_spa(seeda.judgments["sent"], table, systems,
                                            permutations=50).spa
    corr = rows["corpuscharlen"]["correlations"]["seeda"]["TS_sent"]
    iv = correlation_interval("pearson", corr["human"], corr["metric"], resamples=50)
    assert corr["intervals"]["pearson"] == iv.as_list()
    assert "sentence" not in rows["corpuscharlen"] or not rows["corpuscharlen"]["sentence"]
    clusters = data["clusters"]["seeda"]
    assert set(clusters) == {"EW_sent", "EW_edit", "TS_sent", "TS_edit"}
    ranked = clusters["TS_sent"]["metrics"]
    assert {m["metric"] for m in ranked} == {"charlen", "Sentcharlen", "corpuscharlen"}
    # three identical score vectors: one cluster, and a p-value of 1 between any two
    assert {m["rank"] for m in ranked} == {1}
    assert clusters["TS_sent"]["p_values"][0][1] == 1.0
    spa = metric_spa(seeda.judgments["sent"], table, systems, permutations=50, resamples=50)
    assert spa.interval is not None
    assert sent["spa"]["spa_interval"] == spa.interval.as_list()
    # one SentX row: a one-metric sentence-level cluster per judgment file
    sent_clusters = data["sentence_clusters"]["seeda"]
    assert set(sent_clusters) == {"sent", "edit"}
    assert sent_clusters["sent"]["metrics"] == [{"metric": "Sentcharlen", "value": want.acc_eq,
                                                 "rank": 1}]
    assert data["settings"]["sentence_test"] == "sign"
    text = out.read_text()
    assert ("| Cluster | Metric | γ [95% CI] | ρ [95% CI] | SPA ★ [95% CI] | acc_eq ★ [95% CI] "
            "| Sent. cluster | τ_eq | acc |") in text
    # under every WMT-grade table: which columns WMT reports, and tau against tau_eq
    lines = text.splitlines()
    tables = [i for i, ln in enumerate(lines) if ln.startswith(("| Cluster |", "| Sent. cluster |"))]
    assert tables
    for i in tables:
        end = next(j for j in range(i, len(lines)) if not lines[j].startswith("|"))
        assert lines[end] == "" and lines[end + 1].startswith("★ what WMT reports now"), i
        assert "τ vs τ_eq" in lines[end + 1]
    line = next(ln for ln in text.splitlines() if ln.startswith("| 1 | Sentcharlen |"))
    assert f"{want.acc_eq:.3f} [{want.acc_interval.low:.3f}, {want.acc_interval.high:.3f}]" \
        in line
    assert f"{spa.spa:.3f} [{spa.interval.low:.3f}, {spa.interval.high:.3f}]" in line


def test_sentence_prints_calibrated_first(seeda: Any, shared_data: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "sentence", "--data-dir", str(shared_data / "seeda"), "-m", TOY,
               "--resamples", "50", "--json"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    systems = seeda.ordered(seeda.select("base"))
    table = sentence_score_table(evaluate_systems(CharLengthMetric(), seeda, systems))
    want = tie_calibrated_agreement(seeda.judgments["edit"], table, systems, rows=seeda.rows,
                                    resamples=50)
    assert data["calibrated"]["edit"]["tau_eq"] == want.tau_eq
    assert data["calibrated"]["edit"]["tau_eq_epsilon"] == want.tau_epsilon
    assert "accuracy" in data["agreement"]["edit"]  # today's figures stay


@pytest.mark.parametrize("flags", [["--alpha", "2"], ["--permutations", "-1"],
                                   ["--resamples", "0"], ["--resamples", "1000000000"],
                                   ["--permutations", "100001"],
                                   ["--sentence-test", "bootstrap"]])
def test_bad_statistics_settings_are_refused(shared_data: Path, tmp_path: Path,
                                             flags: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.md"
    try:
        rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics",
                   TOY, "--output", str(out), "-q", *flags])
    except SystemExit as exc:  # refused while parsing (a count out of its range)
        rc = exc.code
    assert rc == 64
    assert not out.exists()
    assert "Traceback" not in capsys.readouterr().err

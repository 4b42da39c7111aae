"""``gecscope meta-eval`` end to end, in process, with the reference-less toy metric.

The pinned SEEDA correlations and agreements of the toy metric are gec-metrics 0.1.1's
(``MetaEvalSEEDA``): ``python benchmarks/meta_eval_aggregation.py --metrics charlen`` runs it in
the reference venv and prints them ("seeda default ...", "seeda sentence ..."); see also
tests/regression/test_meta_eval_seeda.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main

TOY = "gecscope.meta_eval.examples:CharLengthMetric"

pytest.importorskip("scipy")


def test_system_json_on_seeda(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "system", "--data-dir", str(shared_data / "seeda"), "--metric", TOY,
               "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    actual = (out["benchmark"], out["metric"], len(out["systems"]))
    assert actual == ("seeda", "charlen", 12)
    got = {k: round(c["pearson"], 6) for k, c in out["correlations"].items()}
    assert got == {"EW_sent": 0.453208, "EW_edit": 0.427367, "TS_sent": 0.488042,
                   "TS_edit": 0.483465}


def test_system_table_with_all_systems(shared_data: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "system", "--data-dir", str(shared_data / "seeda"), "--metric", TOY,
               "--systems", "all"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "charlen (corpus level), 15 systems" in out
    assert "GPT-3.5" in out and "INPUT" in out


def test_sentence_with_official_tie_rule(shared_data: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "sentence", "--data-dir", str(shared_data / "seeda"), "--metric",
               TOY, "--ties", "first-loses", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["agreement"]
    assert {k: (a["pairs"], round(a["accuracy"], 6)) for k, a in out.items()} == {
        "sent": (9381, 0.545571), "edit": (7708, 0.536585)}


def test_window_on_gjg15(shared_data: Path, capsys: pytest.CaptureFixture[str],
                         tmp_path: Path) -> None:
    args = ["meta-eval", "window", "--benchmark", "gjg15", "--data-dir",
            str(shared_data / "gjg15"), "--submissions", str(shared_data / "conll14" / "submissions"),
            "--metric", TOY, "--ranking", "EW", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert next(w["systems"] for w in out["EW"]) == ["AMU", "RAC", "CAMB", "CUUI"]
    assert len(out["EW"]) == 10
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    plot = tmp_path / "w.png"
    assert main(args[:-1] + ["--plot", str(plot)]) == 0
    assert plot.stat().st_size > 1000


def test_tradeoff_on_toy_sub_scores(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # CharLengthMetric has the sub-scores "chars" and "sentences"; the search runs on any fields
    rc = main(["meta-eval", "tradeoff", "--data-dir", str(shared_data / "seeda"), "--metric",
               TOY, "--fields", "chars,sentences", "--invert", "0,0", "--step", "0.25", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["grid_size"] == 3
    actual = [f["name"] for f in out["folds"]]
    assert actual == ["EW_sent", "EW_edit", "TS_sent", "TS_edit"]
    # "sentences" is constant across systems, so any weights rank systems by length:
    # the held-out objective is the mean of the toy metric's Pearson and Spearman
    ts_sent = out["correlations"]["TS_sent"]["TS_sent"]
    actual = (round(ts_sent["pearson"], 6), round(ts_sent["spearman"], 6))
    assert actual == (0.488042, 0.552448)


def test_human_on_gjg15(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "human", "--data-dir", str(shared_data / "gjg15"), "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["rank"]
    assert {s: round(v, 3) for s, v in out["EW"].items()} == out["EW published"]
    assert set(out) == {"EW", "EW published", "TS published"}


def test_human_on_seeda_text(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "human", "--data-dir", str(shared_data / "seeda"), "--bootstrap",
               "20"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "SEEDA-S: 600 ranking items, 33544 comparisons" in out
    assert "SEEDA-E: 600 ranking items" in out
    assert "EW bootstrap" in out


def test_table_written(shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.md"
    conll = shared_data / "conll14"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--gjg15",
               str(shared_data / "gjg15"), "--submissions", str(conll / "submissions"),
               "--metrics", f"{TOY},no-such-metric", "--output", str(out), "-q"])
    assert rc == 0
    text = out.read_text()
    assert "| charlen | -0.175 | -0.016 | -0.223 | -0.060 | -0.119 |" in text
    assert "| charlen | 0.488 | 0.552 | 0.483 | 0.594 | 0.530 |" in text
    # sentence-level columns (acc/tau, SEEDA-S then SEEDA-E) next to the system-level ones
    assert ("| Sentcharlen | 0.488 | 0.552 | 0.483 | 0.594 | 0.530 | 0.490 | -0.020 | 0.472 | "
            "-0.055 |") in text
    assert "- `no-such-metric`: ConfigError: unknown metric" in text
    assert "wrote" in capsys.readouterr().out


def test_errors_have_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["meta-eval", "system", "--data-dir", str(tmp_path / "none"), "--metric",
                 TOY]) == 65
    assert "SEEDA" in capsys.readouterr().err
    assert main(["meta-eval", "system", "--benchmark", "gjg15", "--data-dir", str(tmp_path),
                 "--metric", TOY]) == 64
    assert "--submissions" in capsys.readouterr().err
    assert main(["meta-eval", "table", "--output", str(tmp_path / "t.md")]) == 64
    assert main(["meta-eval"]) == 2

"""``gecscope meta-eval`` with ``--aggregation`` and the table's sentence-level columns.

The command line must give the numbers of the Python API (``gecscope.meta_eval``), which
tests/unit/test_meta_eval_aggregation.py checks against gec-metrics.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gecscope.cli.main import main
from gecscope.meta_eval.benchmarks import GJG15_TABLE3_ORDER, load_gjg15, load_seeda
from gecscope.meta_eval.correlation import correlate
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.meta_eval.ranking import aggregate_sentence_scores
from gecscope.meta_eval.runner import (
    evaluate_systems,
    sentence_correlations,
    sentence_score_table,
)

TOY = "gecscope.meta_eval.examples:CharLengthMetric"
CORPUS_ONLY = "gecscope.meta_eval.examples:CorpusCharLengthMetric"

pytest.importorskip("scipy")


@pytest.fixture(scope="module")
def seeda_table(shared_data: Path) -> dict[str, list[float]]:
    bench = load_seeda(shared_data / "seeda")
    return sentence_score_table(evaluate_systems(CharLengthMetric(), bench,
                                                 bench.select("base")))


def _gjg15(shared_data: Path) -> Any:
    return load_gjg15(shared_data / "gjg15", shared_data / "conll14" / "submissions")


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> Any:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def tiny_seeda(root: Path) -> Path:
    """A SEEDA-shaped folder with three judged sentences; system i writes words of i + 1 and
    2 * i characters, so the toy metric decides most pairs and ties some."""
    from gecscope.meta_eval.benchmarks import SEEDA_SYSTEMS

    item = ('<ranking-item src-id="{sid}" user="a"><translation system="T5" rank="1"/>'
            '<translation system="PIE BART" rank="2"/></ranking-item>')
    (root / "data").mkdir(parents=True)
    for level in ("sent", "edit"):
        items = "".join(item.format(sid=s) for s in (1, 2, 3))
        (root / "data" / f"judgments_{level}.xml").write_text(
            f"<appraise-results><error-correction-ranking-result>{items}"
            "</error-correction-ranking-result></appraise-results>")
    (root / "scores" / "human").mkdir(parents=True)
    for name in ("EW_sent", "EW_edit", "TS_sent", "TS_edit"):
        (root / "scores" / "human" / f"{name}.txt").write_text(
            "\n".join(f"{(i * 7 % 15) / 10:.3f}" for i in range(len(SEEDA_SYSTEMS))))
    (root / "outputs" / "subset").mkdir(parents=True)
    for i, s in enumerate(SEEDA_SYSTEMS):
        lines = ["a" * (i % 5 + 1), "b" * (2 * i % 7 + 1), "c"]
        (root / "outputs" / "subset" / f"{s}.txt").write_text("\n".join(lines))
    return root


def test_system_trueskill_equals_the_python_api(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("trueskill")
    root = tiny_seeda(tmp_path / "seeda")
    out = _json(capsys, ["meta-eval", "system", "--data-dir", str(root), "--metric", TOY,
                         "--aggregation", "trueskill", "--json"])
    actual = (out["aggregation"], out["level"], len(out["systems"]))
    assert actual == ("trueskill", "corpus", 12)
    bench = load_seeda(root)
    table = sentence_score_table(evaluate_systems(CharLengthMetric(), bench,
                                                  bench.select("base")))
    # SEEDA's comparison order is its alphabetical system order, as in gec-metrics
    assert out["systems"] == list(bench.ordered(bench.select("base")))
    expected = aggregate_sentence_scores(table, out["systems"], "trueskill")
    assert out["scores"] == expected
    assert expected != aggregate_sentence_scores(table, out["systems"][::-1], "trueskill")
    human = bench.human["TS_sent"]
    assert out["correlations"]["TS_sent"]["pearson"] == pytest.approx(
        correlate(expected, human, out["systems"]).pearson, abs=1e-15)
    low = _json(capsys, ["meta-eval", "system", "--data-dir", str(root), "--metric", TOY,
                         "--aggregation", "trueskill", "--lower-is-better", "--json"])
    assert low["scores"] == aggregate_sentence_scores(table, out["systems"], "trueskill",
                                                      higher_is_better=False)


def test_system_expected_wins_on_gjg15(shared_data: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    args = ["meta-eval", "system", "--benchmark", "gjg15", "--data-dir",
            str(shared_data / "gjg15"), "--submissions",
            str(shared_data / "conll14" / "submissions"), "--metric", TOY,
            "--aggregation", "expected_wins"]
    out = _json(capsys, [*args, "--json"])
    bench = _gjg15(shared_data)
    table = sentence_score_table(evaluate_systems(CharLengthMetric(), bench))
    expected = aggregate_sentence_scores(table, GJG15_TABLE3_ORDER, "expected_wins")
    assert out["scores"] == pytest.approx(expected, abs=1e-15)
    assert out["correlations"]["EW"]["spearman"] == pytest.approx(
        correlate(expected, bench.human["EW"]).spearman, abs=1e-15)
    # lower-is-better turns every comparison around: EW becomes 1 - EW (all pairs decided)
    low = _json(capsys, [*args, "--lower-is-better", "--json"])
    assert low["scores"] == pytest.approx({s: 1 - v for s, v in expected.items()}, abs=1e-12)
    assert main(args) == 0
    assert "charlen (Expected Wins over sentence comparisons), 13 systems" in \
        capsys.readouterr().out


def test_window_with_aggregation(shared_data: Path, seeda_table: Any,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["meta-eval", "window", "--data-dir", str(shared_data / "seeda"),
                         "--metric", TOY, "--aggregation", "expected_wins", "--ranking",
                         "EW_sent", "--window", "4", "--json"])
    first = out["EW_sent"][0]
    scores = aggregate_sentence_scores(seeda_table, None, "expected_wins")
    human = load_seeda(shared_data / "seeda").human["EW_sent"]
    assert first["pearson"] == pytest.approx(
        correlate(scores, human, first["systems"]).pearson, abs=1e-12)


def test_level_applies_to_the_default_aggregation_only(
        shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "system", "--data-dir", str(shared_data / "seeda"), "--metric",
               TOY, "--aggregation", "trueskill", "--level", "sentence"])
    assert rc == 64
    assert "--level applies to --aggregation default only" in capsys.readouterr().err


def _cells(text: str, label: str, section: str) -> list[str]:
    """The cells of the row ``label`` in the Markdown section whose heading starts ``section``."""
    part = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == label:
            return cells[1:]
    raise AssertionError(f"no row {label!r} in section {section!r}:\n{part}")


def test_table_sentence_columns_and_aggregated_rows(
        shared_data: Path, seeda_table: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.md"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--gjg15",
               str(shared_data / "gjg15"), "--submissions",
               str(shared_data / "conll14" / "submissions"), "--metrics",
               f"{TOY},{CORPUS_ONLY}", "--aggregation", "default,expected_wins", "--ties",
               "first-loses", "--output", str(out), "-q"])
    assert rc == 0
    text = out.read_text()
    assert "| Metric | EW γ | EW ρ | TS γ | TS ρ | Avg. | Sent. acc | Sent. τ |" in text
    assert ("| SEEDA-S acc | SEEDA-S τ | SEEDA-E acc | SEEDA-E τ |" in
            text.split("## SEEDA (base systems), TrueSkill")[1].splitlines()[2])
    # sentence-level figures of the toy metric, from the Python API
    gjg = _gjg15(shared_data)
    table = sentence_score_table(evaluate_systems(CharLengthMetric(), gjg))
    rank = sentence_correlations(gjg, table, gjg.select(None), ties="first-loses")["rank"]
    seeda = load_seeda(shared_data / "seeda")
    agree = sentence_correlations(seeda, seeda_table, seeda.select("base"), ties="first-loses")
    gjg_sent = [f"{rank.accuracy:.3f}", f"{rank.kendall:.3f}"]
    seeda_sent = [f"{x:.3f}" for lv in ("sent", "edit")
                  for x in (agree[lv].accuracy, agree[lv].kendall)]
    for label in ("Sentcharlen", "charlen+EW"):
        assert _cells(text, label, "GJG15")[-2:] == gjg_sent
        assert _cells(text, label, "SEEDA (base systems), TrueSkill")[-4:] == seeda_sent
    # corpus-score rows, and a metric without sentence scores, show dashes
    for label in ("charlen", "corpuscharlen"):
        assert _cells(text, label, "GJG15")[-2:] == ["–", "–"]
        assert _cells(text, label, "SEEDA (base systems), TrueSkill")[-4:] == ["–"] * 4
    assert "Sentcorpuscharlen" not in text and "corpuscharlen+EW" not in text
    # the +EW row correlates the Expected Wins over the metric's sentence comparisons
    ew = aggregate_sentence_scores(seeda_table, None, "expected_wins")
    gamma = correlate(ew, seeda.human["EW_sent"], seeda.select("base")).pearson
    assert _cells(text, "charlen+EW", "SEEDA (base systems), Expected Wins")[0] == f"{gamma:.3f}"
    assert "SEEDA's and gec-metrics' rule" in text
    capsys.readouterr()


def test_table_without_default_rows_skips_metrics_without_sentence_scores(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.md"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics",
               f"{TOY},{CORPUS_ONLY}", "--aggregation", "expected_wins", "--output", str(out),
               "-q"])
    assert rc == 0
    text = out.read_text()
    assert "| charlen+EW |" in text
    assert "| charlen |" not in text and "| Sentcharlen |" not in text
    assert ("- `gecscope.meta_eval.examples:CorpusCharLengthMetric`: metric 'corpuscharlen' "
            "defines no sentence scores") in text
    capsys.readouterr()
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics", TOY,
               "--aggregation", "default,elo", "--output", str(out)])
    assert rc == 64
    assert "aggregation must be one of default, trueskill, expected_wins" in \
        capsys.readouterr().err


def test_table_skips_metrics_that_need_a_model_or_an_endpoint(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Metrics that need a local model or an endpoint are skipped with the reason and a hint
    when not configured; the other metrics' rows are still written."""
    out = tmp_path / "table.md"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics",
               f"{TOY},some,llm_sent", "--output", str(out), "-q"])
    assert rc == 0
    text = out.read_text()
    assert "| charlen |" in text and "| Sentcharlen |" in text
    skipped = text.split("## Skipped metrics", 1)[1].split("\n## ", 1)[0]
    assert "- `some`: ConfigError: some: needs the three SOME checkpoints" in skipped
    assert "- `llm_sent`: ConfigError: llm_sent needs an OpenAI-compatible endpoint" in skipped
    assert "--option METRIC.KEY=VALUE" in skipped
    assert "2 metrics skipped" in capsys.readouterr().out


def test_table_passes_options_to_their_metric(shared_data: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.metrics.green import GREENMetric

    conll = shared_data / "conll14"
    m2 = conll / "official-2014.combined.m2"
    out = tmp_path / "table.md"
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--m2", str(m2),
               "--metrics", "green", "--option", "green.order=1", "--output", str(out), "-q",
               "--jobs", "1"])
    assert rc == 0
    seeda = load_seeda(shared_data / "seeda", m2)
    systems = seeda.select("base")
    results = evaluate_systems(GREENMetric(order=1), seeda, systems)
    scores = {s: r.score.value for s, r in results.items()}
    gamma = correlate(scores, seeda.human["TS_sent"], systems).pearson
    default = evaluate_systems(GREENMetric(), seeda, systems)
    other = correlate({s: r.score.value for s, r in default.items()}, seeda.human["TS_sent"],
                      systems).pearson
    assert f"{gamma:.3f}" != f"{other:.3f}"  # the option changes the row
    assert _cells(out.read_text(), "green", "SEEDA (base systems), TrueSkill")[0] == \
        f"{gamma:.3f}"
    capsys.readouterr()


@pytest.mark.parametrize(("option", "message"), [
    ("order=1", "--option expects METRIC.KEY=VALUE"),
    ("green.nope=1", "metric 'green' has no option 'nope'"),
    ("gleu.order=1", "is for metric 'gleu', which is not in the table"),
])
def test_table_refuses_bad_options_before_scoring(shared_data: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  option: str, message: str) -> None:
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics",
               "green", "--option", option, "--output", str(tmp_path / "t.md")])
    assert rc == 64
    assert message in capsys.readouterr().err
    assert not (tmp_path / "t.md").exists()

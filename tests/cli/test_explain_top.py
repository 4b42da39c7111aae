"""``gecscope explain --top N``: the corpus view (sentences, edits and error types that cost a
system most or earned it most) as text and JSON, equal to the Python API's result; its
refusals (exit 64) and bad inputs (exit 65)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli import explain as explain_cli
from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.explain import RANK_BY, CorpusCosts, corpus_costs
from gecscope.gate import admit
from gecscope.metrics.errant import ErrantMetric
from gecscope.metrics.gleu import GLEUMetric

SOURCES = ["the cat sit on mat and he go to school", "this sentence is fine",
           "she have two apple on table"]
REF = ["the cat sits on the mat and he went to school", "this sentence is fine",
       "she has two apples on the table"]
HYPS = ["the cat sits on the mat and she go to school .", "this sentence is fine",
        "she has two apple on the table"]

CORPUS_ONLY = '''
from gecscope.metrics.base import Metric, Score


class CorpusOnly(Metric):
    name = "corpus-only"

    def sentence_stats(self, data, hyp):
        return [len(t) for t in hyp.tokens]

    def aggregate(self, stats):
        return Score(self.name, float(sum(stats)))
'''


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, lines in (("src", SOURCES), ("ref", REF), ("hyp", HYPS)):
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[name] = str(p)
    return out


def argv(files: dict[str, str], *tail: str) -> list[str]:
    return ["explain", "--ref", files["ref"], "--source", files["src"], "--hyp", files["hyp"],
            "--lang", "fr", "-j", "1", *tail]


def test_conll14_json_is_the_api_result(conll14: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    errant = conll14 / "errant"
    ref, amu = str(errant / "references.m2"), str(errant / "AMU.m2")
    assert main(["explain", "-r", ref, "--hyp", amu, "--top", "4", "-m", "errant",
                 "--attribution", "add", "-j", "1", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["hypothesis_file"], out["metric"], out["method"], out["top"]) == (
        amu, "errant", "add", 4)
    assert (out["max_exact"], out["samples"], out["seed"], out["rank_by"]) == (10, 64, 0,
                                                                               "corpus")
    assert out["options"]["beta"] == 0.5
    data = EvalData.from_files(ref)
    hyp = admit(data, [Hypothesis.from_file(amu)]).hypotheses[0]
    api = corpus_costs(ErrantMetric(), data, hyp, 4, "add")
    assert CorpusCosts.from_dict(out) == api
    assert [s["sentence"] for s in out["sentences"]["cost"]] == [s.index + 1
                                                                for s in api.sentence_cost]
    assert len(out["sentences"]["cost"]) == len(out["edits"]["gain"]) == 4


def test_conll14_text_tables(conll14: Path, capsys: pytest.CaptureFixture[str]) -> None:
    errant = conll14 / "errant"
    assert main(["explain", "-r", str(errant / "references.m2"), "--hyp",
                 str(errant / "AMU.m2"), "--top", "2", "-m", "errant", "--attribution",
                 "add", "-j", "1"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("AMU: errant 0.3208 over 1312 sentences, 732 edited")
    for heading in ("sentences that cost AMU most", "sentences that earned AMU most",
                    "edits that cost AMU most", "edits that earned AMU most",
                    "error types that cost AMU most", "error types that earned AMU most"):
        assert f"-- {heading}" in text
    at = lines.index("-- sentences that cost AMU most --")
    assert lines[at + 1].split()[:4] == ["rank", "sentence", "corpus", "change"]
    first = lines[at + 3].split()
    assert first[:2] == ["1", "599"] and first[2].startswith("-0.000")
    assert "[ways -> way]" in lines[at + 3] and "(+2 more edits)" in lines[at + 3]


def test_small_text_by_sentence(files: dict[str, str], capsys: pytest.CaptureFixture[str]
                                ) -> None:
    assert main(argv(files, "--top", "1", "-m", "gleu", "--rank-by", "sentence")) == 0
    text = capsys.readouterr().out
    assert "corpus change" not in text and "sentence change: the sentence's gleu" in text
    # no sentence lowers GLEU here: the cost table says so
    at = text.index("-- sentences that cost hyp most --")
    assert text[at:].splitlines()[1] == "(none)"
    data = EvalData.from_texts(SOURCES, [REF], lang="fr")
    api = corpus_costs(GLEUMetric(), data, Hypothesis.from_texts(HYPS), 1,
                       rank_by="sentence")
    (best,) = api.sentence_gain
    assert f"{best.delta:+.4f}" in text and api.sentence_cost == ()


def test_the_command_line_offers_the_api_choices() -> None:
    assert explain_cli.RANK_BY == RANK_BY


@pytest.mark.parametrize("tail, message", [
    (["--top", "0", "-m", "gleu"], "--top must be a whole number of at least 1, not 0"),
    (["--top", "-3", "-m", "gleu"], "not -3"),
    (["--top", "3"], "--top needs the metric"),
    (["--top", "3", "-m", "gleu", "-n", "1"], "does not go with --sentence or --all"),
    (["--top", "3", "-m", "gleu", "--all"], "does not go with --sentence or --all"),
    (["--rank-by", "corpus", "-m", "gleu", "--attribution", "add", "-n", "1"],
     "--rank-by goes with --top N"),
    (["--top", "3", "-m", "gleu", "--samples", "0"], "samples must be"),
    (["--top", "3", "-m", "cleme2", "--weighting", "length"], "CLEME chunk-table option"),
    (["--top", "3", "-m", "nosuchmetric"], "nosuchmetric"),
])
def test_refusals(files: dict[str, str], capsys: pytest.CaptureFixture[str], tail: list[str],
                  message: str) -> None:
    assert main(argv(files, *tail)) == 64
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("tail, message", [
    (["--top", "two", "-m", "gleu"], "invalid int value: 'two'"),
    (["--top", "3", "-m", "gleu", "--rank-by", "edits"], "invalid choice: 'edits'"),
])
def test_unparsable_options(files: dict[str, str], capsys: pytest.CaptureFixture[str],
                            tail: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv(files, *tail))
    assert info.value.code == 64
    assert message in capsys.readouterr().err


def test_a_metric_without_sentence_scores(files: dict[str, str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "corpus_only_metric.py").write_text(CORPUS_ONLY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(argv(files, "--top", "3", "-m", "corpus_only_metric:CorpusOnly")) == 64
    err = capsys.readouterr().err
    assert "'corpus-only' defines no sentence-level score" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content", ["", "she has two apple on the table\n"])
def test_an_empty_or_truncated_hypothesis(files: dict[str, str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          content: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(content, encoding="utf-8")
    args = argv(files, "--top", "2", "-m", "gleu")
    args[args.index(files["hyp"])] = str(bad)
    assert main(args) == 65
    assert "bad.txt" in capsys.readouterr().err


def test_a_corrupt_m2_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.m2"
    ref.write_text("S the cat sit\nA 2 x|||R:VERB|||sits|||REQUIRED|||-NONE-|||0\n",
                   encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("the cat sits\n", encoding="utf-8")
    assert main(["explain", "-r", str(ref), "--hyp", str(hyp), "--top", "2", "-m", "m2",
                 "-j", "1"]) == 65
    assert "ref.m2" in capsys.readouterr().err


def test_html_page_and_its_refusals(files: dict[str, str], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "view.html"
    assert main(argv(files, "--top", "2", "-m", "gleu", "--html", str(page))) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<section class="costs"' in text
    assert "Content-Security-Policy" in text and "http://" not in text
    capsys.readouterr()
    # --html without --top; a folder that does not exist (exit 73, the path named)
    assert main(argv(files, "-m", "gleu", "--attribution", "add", "-n", "1", "--html",
                     str(page))) == 64
    assert "--html goes with --top N" in capsys.readouterr().err
    bad = tmp_path / "missing" / "view.html"
    assert main(argv(files, "--top", "2", "-m", "gleu", "--html", str(bad))) == 73
    assert str(bad.parent) in capsys.readouterr().err


def test_evaluate_top_adds_costs_to_the_report(files: dict[str, str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")
    from gecscope.reports.json import load_schema

    out, page = tmp_path / "report.json", tmp_path / "report.html"
    base = ["evaluate", "--ref", files["ref"], "--source", files["src"], "--hyp", files["hyp"],
            "--lang", "fr", "-m", "gleu", "-j", "1"]
    assert main([*base, "--top", "2", "--json-out", str(out), "--html", str(page)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(doc, load_schema())
    (costs,) = doc["costs"]
    data = EvalData.from_texts(SOURCES, [REF], lang="fr")
    api = corpus_costs(GLEUMetric(), data, Hypothesis.from_texts(HYPS, name="hyp"), 2)
    assert CorpusCosts.from_dict(costs) == api
    html = page.read_text(encoding="utf-8")
    assert 'id="costs"' in html and "What cost each system most" in html
    assert 'data-export="costs-hyp-gleu-sentences-gain"' in html
    # without --top the report has no costs; --top alone has nowhere to go
    assert main([*base, "--json-out", str(out)]) == 0
    assert "costs" not in json.loads(out.read_text(encoding="utf-8"))
    capsys.readouterr()
    assert main([*base, "--top", "2"]) == 64
    assert "--top N goes with --html FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--top", "0", "--json-out", str(out)])
    # a tampered costs member fails the schema
    doc["costs"][0]["rank_by"] = "edits"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, load_schema())

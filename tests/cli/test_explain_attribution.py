"""``gecscope explain --attribution``: edit attributions of any metric as text and JSON, run
in-process on plain-text files (a Levenshtein-extractor language: no parser to load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli import explain as explain_cli
from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.explain import MAX_EXACT, METHODS, SAMPLES, attribute
from gecscope.metrics.green import GREENMetric

SOURCES = ["the cat sit on mat and he go to school", "this sentence is fine",
           "she have two apple on table"]
REF = ["the cat sits on the mat and he went to school", "this sentence is fine",
       "she has two apples on the table"]
HYPS = ["the cat sits on the mat and she go to school .", "this sentence is fine",
        "she has two apple on the table"]


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


def test_json_carries_each_edit_and_its_share(files: dict[str, str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv(files, "--attribution", "shapley", "-m", "green", "-n", "3", "1",
                     "--format", "json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric"] == "green" and out["method"] == "shapley"
    settings = (out["max_exact"], out["samples"], out["seed"])
    assert settings == (MAX_EXACT, SAMPLES, 0)
    s3, s1 = out["sentences"]
    order = (s3["sentence"], s1["sentence"])
    assert order == (3, 1)
    assert s1["hypothesis"] == HYPS[0]
    edits = [(e["start"], e["end"], e["original"], e["correction"]) for e in s1["edits"]]
    assert edits == [(2, 3, "sit", "sits"), (4, 4, "", "the"), (6, 7, "he", "she"),
                     (10, 10, "", ".")]
    data = EvalData.from_texts(SOURCES, [REF], lang="fr")
    (api,) = attribute(GREENMetric(), data, Hypothesis.from_texts(HYPS), sentences=[0])
    cli_values = [e["value"] for e in s1["edits"]]
    assert cli_values == [e.value for e in api.edits]
    for s in (s1, s3):
        assert s["delta"] == pytest.approx(s["full"] - s["base"], abs=1e-15)
        assert sum(e["value"] for e in s["edits"]) == pytest.approx(s["delta"], abs=1e-12)


def test_text_lists_the_edits_and_all_skips_unchanged_sentences(
        files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv(files, "--attribution", "sub", "-m", "gleu", "--all")) == 0
    text = capsys.readouterr().out
    assert "sentence 1 " in text and "sentence 3 " in text and "sentence 2 " not in text
    assert "sit -> sits" in text and "\u2205 -> the" in text and "sum of attributions" in text
    assert main(argv(files, "--attribution", "add", "-m", "gleu", "-n", "2")) == 0
    assert "(the hypothesis makes no edit)" in capsys.readouterr().out


def test_sampling_options_reach_the_attribution(files: dict[str, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv(files, "--attribution", "shapley", "-m", "green", "-n", "1",
                     "--max-exact", "2", "--samples", "3", "--seed", "7",
                     "--format", "json")) == 0
    (s1,) = json.loads(capsys.readouterr().out)["sentences"]
    assert s1["method"] == "shapley_sampling" and s1["samples"] == 3


@pytest.mark.parametrize("tail, message", [
    (["--attribution", "add", "-n", "1"], "--attribution needs the metric"),
    (["-m", "gleu", "-n", "1"], "for any other metric give --attribution"),
    (["--max-exact", "3", "-n", "1"], "--max-exact goes with --attribution"),
    (["--attribution", "shapley", "-m", "gleu", "--samples", "0", "-n", "1"], "samples"),
    (["--attribution", "add", "-m", "gleu", "-n", "4"], "sentences 1 to 3"),
    (["--attribution", "add", "-m", "gleu"], "--sentence N"),
    (["--attribution", "add", "-m", "gleu", "-n", "1", "--assumption", "dependent"],
     "CLEME chunk-table option"),
])
def test_errors(files: dict[str, str], capsys: pytest.CaptureFixture[str], tail: list[str],
                message: str) -> None:
    assert main(argv(files, *tail)) == 64
    assert message in capsys.readouterr().err


def test_a_short_hypothesis_is_refused(files: dict[str, str], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    short = tmp_path / "short.txt"
    short.write_text("\n".join(HYPS[:2]) + "\n", encoding="utf-8")
    args = argv(files, "--attribution", "add", "-m", "gleu", "--all")
    args[args.index(files["hyp"])] = str(short)
    assert main(args) == 65
    assert "short.txt" in capsys.readouterr().err


def test_the_command_line_offers_the_api_methods_and_defaults() -> None:
    assert explain_cli.ATTRIBUTION_METHODS == METHODS
    source = Path(explain_cli.__file__).read_text(encoding="utf-8")
    assert f"default: {MAX_EXACT})" in source and f"(default: {SAMPLES})" in source


def test_the_command_list_says_explain_attributes(capsys: pytest.CaptureFixture[str]) -> None:
    # `gecscope --help` described explain as the CLEME chunk table only
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = " ".join(capsys.readouterr().out.split())
    assert "explain why a system scored as it did" in listing and "(--attribution)" in listing

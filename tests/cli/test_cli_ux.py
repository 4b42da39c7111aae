"""The command line as a newcomer meets it (#31 item 14): ``--help`` in sections with the common
options first, one meaning of ``-q``, help texts without reStructuredText markup, and a
reference file left out of ``--hyp``."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from gecscope.cli.main import build_parser, main

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
REFS = str(DEMO / "references.m2")
SYSTEMS = [str(DEMO / f"{s}.txt") for s in ("careful", "cautious", "rewriter")]


def help_text(command: str, capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def sections(text: str) -> list[tuple[str, list[str]]]:
    """``(title, option spellings)`` of each section of a help text, in order."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if re.match(r"^\S.*:$", line) and not line.startswith("usage:"):
            out.append((line[:-1], []))
        elif out and re.match(r"^  -", line):
            out[-1][1].extend(re.findall(r"(?:^|, )(--?[\w-]+)", line.strip().split("  ")[0]))
    return out


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_help_shows_the_common_options_first_and_ray_and_zh_in_their_sections(
        command: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text(command, capsys, monkeypatch)
    usage = text.split("\n\n", 1)[0]
    assert usage.startswith(f"usage: gecscope {command} ") and "\n" not in usage
    assert len(usage) <= 100 and "--backend" not in usage and "--zh-data" not in usage
    found = sections(text)
    titles = [t for t, _ in found]
    assert titles[:3] == ["inputs", "metrics", "output"], titles
    by_title = dict(found)
    assert {"-r", "--ref", "-s", "--hyp", "--name"} <= set(by_title["inputs"])
    assert {"-m", "--metric", "-o", "--option", "-b"} <= set(by_title["metrics"])
    assert {"-h", "-q", "--quiet", "--format"} <= set(by_title["output"])
    (ray,) = [t for t in titles if t.startswith("Ray")]
    assert sorted(by_title[ray]) == ["--address", "--backend"]
    (lang,) = [t for t in titles if t.startswith("language")]
    zh = {"--zh-data", "--no-simplified", "--zh-alignments", "--lang"}
    assert zh <= set(by_title[lang])
    for title, options in found:
        if title not in (ray, lang):
            assert not {"--backend", "--address", *zh} & set(options), title
    # every option is listed once, in one section
    listed = [o for _, options in found for o in options]
    assert len(listed) == len(set(listed))


@pytest.mark.parametrize("command", [
    "evaluate", "compare", "demo", "annotate", *(f"meta-eval {what}" for what in
                                                  ("human", "system", "sentence", "window",
                                                   "tradeoff", "table"))])
def test_every_option_has_a_help_text(command: str) -> None:
    # annotate --extractor and meta-eval system/sentence/window/tradeoff --benchmark had none
    parser = build_parser()
    for word in command.split():
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    undocumented = [a.option_strings for a in parser._actions
                    if a.option_strings and not a.help]
    assert undocumented == []


def test_annotate_help_explains_the_extractor(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text("annotate", capsys, monkeypatch)
    after = text.split("--extractor {errant,levenshtein}", 2)[2]  # usage, then the option
    assert "levenshtein" in after.split("\n  -", 1)[0]


def test_demo_help_has_no_rst_markup(capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text("demo", capsys, monkeypatch)
    assert "references.m2" in text and "gecscope/data/demo" in text  # the docstring is shown
    assert "`" not in text and "::" not in text
    assert not re.search(r":[a-z]+:", text)


def test_plain_help_converts_roles_literals_and_literal_blocks() -> None:
    from gecscope.cli._common import plain_help

    text = plain_help("Uses :class:`~gecscope.languages.Language` and :func:`gecscope.evaluate`"
                      " on ``x`` or `y`; for example::\n\n    gecscope demo\n")
    assert text == ("Uses Language and gecscope.evaluate on x or y; for example:\n\n"
                    "    gecscope demo\n")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_quiet_silences_progress_and_leaves_the_results_alone(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    if command == "compare":
        pytest.importorskip("numpy", reason="compare resamples with the stats extra")
    argv = [command, "-m", "m2", "-r", REFS, "--hyp", *SYSTEMS, "--jobs", "1",
            *(["--bootstrap", "30", "--no-color"] if command == "compare" else [])]
    rc, plain, err = run([*argv, "--progress"], capsys)
    assert rc == 0 and "scoring: " in err  # --progress shows progress off a terminal
    rc, quiet, err_quiet = run([*argv, "--progress", "-q"], capsys)
    assert rc == 0 and err_quiet == ""
    assert quiet == plain and "careful" in quiet  # compare -q used to print bare lines


def test_compare_lines_format_is_the_ranking_as_bare_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy", reason="compare resamples with the stats extra")
    argv = ["compare", "-m", "m2", "-m", "gleu", "-r", REFS, "--hyp", *SYSTEMS,
            "--bootstrap", "30", "--jobs", "1", "-q"]
    rc, out, _ = run([*argv, "--format", "lines"], capsys)
    assert rc == 0
    rows = [line.split("\t") for line in out.splitlines()]
    rc, js, _ = run([*argv, "--format", "json"], capsys)
    assert rc == 0
    scores = json.loads(js)["scores"]
    expected = [[s["metric"], str(s["rank"]), str(s["cluster"]), s["system"],
                 f"{s['value']:.4f}"]
                for m in ("m2", "gleu")
                for s in sorted((x for x in scores if x["metric"] == m),
                                key=lambda x: x["rank"])]
    assert rows == expected and len(rows) == 6


def test_a_reference_given_as_hyp_is_left_out_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["evaluate", "-m", "m2", "-r", REFS, "--format", "json", "-q"]
    rc, alone, err = run([*base, "--hyp", SYSTEMS[0]], capsys)
    assert rc == 0 and "note" not in err
    # a glob over the folder also matches references.m2, here spelt another way
    other_spelling = str(DEMO / ".." / "demo" / "references.m2")
    rc, out, err = run([*base, "--hyp", other_spelling, SYSTEMS[0], "--name", "R", "C"],
                       capsys)
    assert rc == 0
    assert err.count("\n") == 1 and "left out of --hyp" in err and other_spelling in err
    doc, ref = json.loads(out), json.loads(alone)
    assert doc["systems"] == ["C"]
    assert doc["scores"][0]["fields"] == ref["scores"][0]["fields"]
    # a copy of the references is not the same file: it is scored, with no note
    copy = tmp_path / "copy.m2"
    shutil.copyfile(REFS, copy)
    rc, out, err = run([*base, "--hyp", str(copy), SYSTEMS[0]], capsys)
    assert rc == 0 and "left out" not in err and len(json.loads(out)["systems"]) == 2


def test_references_only_as_hyp_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(["evaluate", "-m", "m2", "-r", REFS, "--hyp", REFS], capsys)
    assert rc == 64 and "also a reference" in err
    pytest.importorskip("numpy", reason="compare resamples with the stats extra")
    # compare counts the systems left: one is not a comparison
    rc, _, err = run(["compare", "-m", "m2", "-r", REFS, "--hyp", REFS, SYSTEMS[0]], capsys)
    assert rc == 64 and "at least two systems" in err and "left out of --hyp" in err


@pytest.mark.parametrize(("option", "value"), [("beta", "abc"), ("single", "maybe"),
                                               ("selection_rounding", "1.5")])
def test_option_values_are_read_as_the_api_reads_them(
        option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``-o key=value`` and ``ErrantMetric(key=value)`` go through one reader
    (``coerce_option``): the same refusal, word for word, exit 64 without a traceback."""
    from gecscope.errors import ConfigError
    from gecscope.metrics.errant import ErrantMetric

    with pytest.raises(ConfigError) as api:
        ErrantMetric(**{option: value})
    assert main(["evaluate", "-r", REFS, "--hyp", SYSTEMS[0], "-o", f"{option}={value}"]) == 64
    err = capsys.readouterr().err
    assert str(api.value) in err and "Traceback" not in err
    assert main(["evaluate", "-r", REFS, "--hyp", SYSTEMS[0], "-q", "--format", "json",
                 "-o", "beta= 1.0", "-o", "single=YES"]) == 0
    options = json.loads(capsys.readouterr().out)["metrics"][0]["options"]
    assert options["beta"] == 1.0 and options["single"] is True

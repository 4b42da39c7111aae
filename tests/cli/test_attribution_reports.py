"""``evaluate --cat`` with per-type attribution tables, and attributions in ``--json-out``,
end to end on the first sentences of CoNLL-2014 (ERRANT M2 of the gold and of AMU and CAMB;
#35 items 2 and 3).

The totals are checked against the metric alone: the sum over sentences of GLEU's sentence
score of the system minus that of the source scored as a hypothesis (no attribution code)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.gleu import GLEUMetric

jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")

N = 30  # the first sentences of CoNLL-2014


def head_m2(src: Path, dst: Path, n: int = N) -> Path:
    blocks = src.read_text(encoding="utf-8").split("\n\n")
    dst.write_text("\n\n".join(blocks[:n]) + "\n\n", encoding="utf-8")
    return dst


@pytest.fixture(scope="module")
def sample(conll14: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("conll14-head")
    return {n: head_m2(conll14 / "errant" / f"{n}.m2", d / f"{n}.m2")
            for n in ("references", "AMU", "CAMB")}


def _gleu_delta(ref: Path, hyp: Path) -> float:
    """Sum over sentences of GLEU(S, H) - GLEU(S, S), from the metric's sentence scores."""
    data = EvalData((str(ref),))
    metric = GLEUMetric()
    full = metric.evaluate(data, Hypothesis.from_file(hyp)).sentence_scores
    base = metric.evaluate(data, Hypothesis("source", data.sources)).sentence_scores
    assert full is not None and base is not None
    return math.fsum(full) - math.fsum(base)


def _blocks(text: str) -> dict[str, str]:
    """Titled sub-tables of evaluate's output: title -> body."""
    out = {}
    for block in text.split("\n\n"):
        head, _, body = block.partition("\n")
        if head.startswith("-- ") and head.endswith(" --"):
            out[head[3:-3]] = body
    return out


@pytest.mark.parametrize("level", [1, 3])
def test_evaluate_cat_prints_attribution_tables(sample: dict[str, Path], level: int,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ref, amu, camb = sample["references"], sample["AMU"], sample["CAMB"]
    assert main(["evaluate", "-m", "errant", "-m", "gleu", "-r", str(ref), "--hyp", str(amu),
                 str(camb), "--cat", str(level), "-q"]) == 0
    blocks = _blocks(capsys.readouterr().out)
    for name, path in (("AMU", amu), ("CAMB", camb)):
        # errant keeps its counts table; gleu (no counts) gets Shapley attributions beside it
        assert f"{name}: errant by error type (level {level})" in blocks
        title = (f"{name}: gleu by error type (level {level}), attribution (shapley): sum of "
                 "edit shares of delta gleu (M(S, H) - M(S, S), per sentence)")
        body = blocks[title]
        rows = [line.split() for line in body.splitlines()[2:] if line and line[0] != "d"]
        total = next(r for r in rows if r[:2] == ["all", "types"])
        types = [r for r in rows if r[:2] != ["all", "types"]]
        delta = float(re.search(rf"delta gleu summed over the {N} sentences: ([-+0-9.]+)",
                                body).group(1))
        want = _gleu_delta(ref, path)
        # Shapley: the shares of every type add up to the change of the sentence scores
        assert delta == pytest.approx(want, abs=5e-5)
        assert float(total[3]) == pytest.approx(want, abs=5e-5)
        assert sum(float(r[-2]) for r in types) == pytest.approx(want, abs=5e-5 * len(types))
        if level == 1:
            assert {r[0] for r in types} <= {"M", "R", "U"}
        else:
            assert all(r[0][:2] in ("M:", "R:", "U:") for r in types)


def test_json_out_carries_the_attributions(sample: dict[str, Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.reports.json import load_schema

    out = tmp_path / "report.json"
    assert main(["evaluate", "-m", "gleu", "-r", str(sample["references"]), "--hyp",
                 str(sample["AMU"]), "--attribution", "add", "--json-out", str(out),
                 "-q"]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(doc, load_schema())
    att = doc["attributions"]["gleu"]
    assert att["method"] == "add"
    per_sentence = [s["systems"]["AMU"]["attributions"]["gleu"] for s in doc["sentences"]]
    assert len(per_sentence) == N
    scores = [s["systems"]["AMU"]["scores"]["gleu"] for s in doc["sentences"]]
    fulls = [p["full"] for p in per_sentence]
    assert fulls == pytest.approx(scores, abs=1e-12)
    values = [e["value"] for p in per_sentence for e in p["edits"]]
    assert values and any(v > 0 for v in values) and any(v < 0 for v in values)
    by_type = att["systems"]["AMU"]["per_type"]
    assert math.fsum(r["value"] for r in by_type) == pytest.approx(math.fsum(values),
                                                                   abs=1e-12)
    assert sum(r["edits"] for r in by_type) == len(values)
    assert att["systems"]["AMU"]["delta"] == pytest.approx(
        _gleu_delta(sample["references"], sample["AMU"]), abs=1e-12)


def test_bad_attribution_options_are_usage_errors(sample: dict[str, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for extra in (["--attribution", "shap"], ["--max-exact", "21"], ["--samples", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(["evaluate", "-m", "gleu", "-r", str(sample["references"]), "--hyp",
                  str(sample["AMU"]), "--cat", "2", *extra])
        assert exc.value.code not in (0, None)
        assert extra[0] in capsys.readouterr().err


def test_attribution_nothing_shows_is_said(sample: dict[str, Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["-m", "gleu", "-r", str(sample["references"]), "--attribution", "shapley",
            "--hyp", str(sample["AMU"])]
    assert main(["evaluate", *argv]) == 0
    captured = capsys.readouterr()
    assert "--attribution: nothing shows attributions here" in captured.err
    assert "attribution (" not in captured.out
    assert main(["compare", *argv, str(sample["CAMB"]), "--bootstrap", "10"]) == 0
    assert "compare shows attributions only in --html" in capsys.readouterr().err


def test_progress_counts_the_sentences_attributed(sample: dict[str, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # errant counts by type: with --cat only gleu is attributed, for both systems
    assert main(["evaluate", "-m", "gleu", "-m", "errant", "-r", str(sample["references"]),
                 "--hyp", str(sample["AMU"]), str(sample["CAMB"]), "--cat", "2",
                 "--progress"]) == 0
    err = capsys.readouterr().err
    assert f"attributing (shapley): {2 * N}/{2 * N} sentences (100%" in err


@pytest.mark.requires_spacy
def test_llm_judge_cat_by_hand(cache_dir: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    # an LLM judge (llm_sent) on a loopback server whose rule (tests/cli/test_llm_judge_cli.py)
    # gives 1 to a target equal to its source and 2 to any other: a sentence changed by one
    # edit gains +1, by two edits +0.5 each (any one of them alone already gives the 2)
    from loopback import serving
    from test_llm_judge_cli import _Handler

    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("He go home .\nShe like apple .\nThey is happy .\n", encoding="utf-8")
    hyp.write_text("He goes home .\nShe likes apples .\nThey is happy .\n", encoding="utf-8")
    handler = type("Handler", (_Handler,), {"bodies": [], "keys": []})
    with serving(handler) as url:
        assert main(["evaluate", "-m", "llm_sent", "-s", str(src), "--hyp", str(hyp),
                     "-o", f"base_url={url}", "-o", "model=judge", "--cat", "2", "-q",
                     "--jobs", "1"]) == 0
    blocks = _blocks(capsys.readouterr().out)
    body = blocks["hyp: llm_sent by error type (level 2), attribution (shapley): sum of edit "
                  "shares of delta llm_sent (M(S, H) - M(S, S), per sentence)"]
    rows = {line.split()[0]: line.split()[1:] for line in body.splitlines()[2:]
            if line and not line.startswith(("all", "delta"))}
    assert rows == {"NOUN:NUM": ["1", "+0.5000", "+0.5000"],
                    "VERB:SVA": ["2", "+1.5000", "+0.7500"]}
    assert "delta llm_sent summed over the 3 sentences: +2.0000" in body


def test_compare_help_names_no_cat(capsys: pytest.CaptureFixture[str]) -> None:
    # compare has no --cat: its --attribution help must not send the reader to it
    for command, has_cat in (("compare", False), ("evaluate", True)):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        attribution = out.split("--attribution METHOD", 1)[1].split("--max-exact", 1)[0]
        assert ("--cat" in attribution) is has_cat, command
        assert "--html" in attribution

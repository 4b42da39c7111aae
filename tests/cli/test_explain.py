"""``gecscope explain``: chunk tables in text and JSON, run in-process."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cleme_example import REF_M2

from gecscope.cli.main import main

HYP_TXT = "A b X d Y f g\nx y z\np Q r s\n"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    ref, hyp = tmp_path / "ref.m2", tmp_path / "hyp.m2"
    ref.write_text(REF_M2, encoding="utf-8")
    # the hypothesis as an M2 of its edits (plain text would need ERRANT/spaCy)
    hyp.write_text("S a b c d e f g\nA 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0\n"
                   "A 2 3|||R:X|||X|||REQUIRED|||-NONE-|||0\nA 4 5|||R:X|||Y|||REQUIRED|||-NONE-|||0\n\n"
                   "S x y z\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
                   "S p q r s\nA 1 2|||R:X|||Q|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    return str(ref), str(hyp)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_explain_json_chunk_labels(files: tuple[str, str], capsys: pytest.CaptureFixture[str]
                                   ) -> None:
    ref, hyp = files
    out = _json(capsys, ["explain", "--ref", ref, "--hyp", hyp, "--sentence", "1",
                         "--format", "json"])
    (s1,) = out["sentences"]
    assert s1["sentence"] == 1 and s1["metric"] == "cleme2"
    assert s1["hypothesis"] == HYP_TXT.splitlines()[0]
    actual = [c["hypothesis"] for c in s1["chunks"]]
    assert actual == ["A", "b", "X", "d", "Y", "f", "g"]
    actual = [c["kind"] for c in s1["chunks"]]
    assert actual == [
        "corrected", "unchanged", "corrected", "unchanged", "corrected", "unchanged", "corrected"]
    labels = [[lab["label"] for lab in c["labels"]] for c in s1["chunks"]]
    assert labels == [["TP", "FP_ne"], ["TN", "TN"], ["FP_ne", "TP"], ["TN", "TN"],
                      ["FP_un", "FP_un"], ["TN", "TN"], ["FN", "FN"]]
    assert {lab["weight"] for c in s1["chunks"] for lab in c["labels"]} == {1.0}
    # sentence-level CLEME2.0 with the sentence factors (0.35/0.25/0.20/0.20, as the tool's
    # main.py --level sentence): Hit = Wrong = Under = Over = 1/3 for both
    score = 0.35 / 3 + (0.25 + 0.20 + 0.20) * 2 / 3
    actual = [s["Score"] for s in s1["scores"]]
    assert actual == pytest.approx([score, score])
    assert s1["best_reference"] == 0


def test_explain_length_weights_and_independent(files: tuple[str, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = files
    out = _json(capsys, ["explain", "--ref", ref, "--hyp", hyp, "-n", "1", "3", "--metric",
                         "cleme", "--assumption", "independent", "--weighting", "length",
                         "--level", "corpus", "-o", "length_bias=2", "--format", "json"])
    s1, s3 = out["sentences"]
    actual = [c["labels"][0]["label"] for c in s1["chunks"]]
    assert actual == [
        "TP", "TN", "TP", "TN", "FP_un", "TN", "FN"]
    w_tp = min(max(2 / (1 + math.exp(1)), 0.75), 1.25)  # length 1, bias 2, alpha 2
    w_fp = min(max(2 / (1 + math.exp(-1)), 0.75), 1.25)
    actual = [c["labels"][1]["weight"] for c in s1["chunks"]]
    assert actual == pytest.approx(
        [w_tp, 1, w_tp, 1, w_fp, 1, w_tp])
    assert s3["scores"][0]["TP"] == pytest.approx(w_tp)
    assert s1["length_bias"] == 2


def test_explain_text_and_all(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = files
    assert main(["explain", "--ref", ref, "--hyp", hyp, "--all"]) == 0
    text = capsys.readouterr().out
    assert "sentence 1 " in text and "sentence 3 " in text and "sentence 2 " not in text
    assert "FP_ne (1.000)" in text and "FP_un (1.000)" in text
    assert "best reference (sentence level): 0" in text


@pytest.mark.parametrize("argv_tail, message", [
    (["--sentence", "4"], "sentence 4 does not exist"),
    ([], "--sentence N"),
    (["--sentence", "1", "-o", "factor_hit=0.9"], "give all four CLEME2.0 factors"),
    (["--sentence", "1", "-o", "factr_hit=0.9"], "did you mean 'factor_hit'?"),
])
def test_explain_errors(files: tuple[str, str], capsys: pytest.CaptureFixture[str],
                        argv_tail: list[str], message: str) -> None:
    ref, hyp = files
    assert main(["explain", "--ref", ref, "--hyp", hyp, *argv_tail]) == 64
    assert message in capsys.readouterr().err


@pytest.mark.requires_spacy
def test_explain_parallel_hypothesis_sources_checked(files: tuple[str, str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A parallel-format hypothesis goes through the same alignment as ``evaluate``: a source
    column that is not the references' is refused (exit 65) naming the line, never explained
    against another sentence's references."""
    ref, _ = files
    sources = ["a b c d e f g", "x y z", "p q r s"]
    targets = HYP_TXT.splitlines()
    good = tmp_path / "hyp.para"
    good.write_text("".join(f"{i}\t{s}\t{t}\n" for i, (s, t) in
                            enumerate(zip(sources, targets, strict=True))), encoding="utf-8")
    out = _json(capsys, ["explain", "--ref", ref, "--hyp", str(good), "--sentence", "1",
                         "--format", "json"])
    assert out["sentences"][0]["hypothesis"] == targets[0]
    swapped = tmp_path / "swapped.para"
    rows = good.read_text(encoding="utf-8").splitlines(keepends=True)
    swapped.write_text(rows[1] + rows[0] + rows[2], encoding="utf-8")
    assert main(["explain", "--ref", ref, "--hyp", str(swapped), "--sentence", "1"]) == 65
    err = capsys.readouterr().err
    assert "swapped.para" in err and ":1" in err

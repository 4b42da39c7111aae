"""``gecscope evaluate`` and ``gecscope compare`` with ``-m gotoscorer`` and weights computed
from system files, run in-process as a user would, against the Python API on the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.gotoscorer import GoToScorerMetric, compute_weights

pytestmark = pytest.mark.requires_spacy

SYSTEMS = ("AMU", "CAMB", "IPN", "UFC")
N = 25  # the first sentences of CoNLL-2014


@pytest.fixture(scope="module")
def inputs(conll14: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ref.m2`` and ``systems/NAME.txt``: the first N sentences."""
    tmp = tmp_path_factory.mktemp("goto")
    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    (tmp / "ref.m2").write_text("\n\n".join(blocks[:N]) + "\n\n", encoding="utf-8")
    sys_dir = tmp / "systems"
    sys_dir.mkdir()
    for name in SYSTEMS:
        lines = (conll14 / "submissions" / name).read_text(encoding="utf-8").splitlines()
        (sys_dir / f"{name}.txt").write_text("\n".join(lines[:N]) + "\n", encoding="utf-8")
    return tmp


@pytest.fixture(scope="module")
def api(inputs: Path) -> dict[str, object]:
    """The weighted scores of every system through the Python API (weights from all four)."""
    data = EvalData((str(inputs / "ref.m2"),))
    hyps = [Hypothesis.from_file(inputs / "systems" / f"{n}.txt") for n in SYSTEMS]
    weights = compute_weights(data, hyps)
    assert weights.systems == SYSTEMS  # the glob, in sorted order
    path = inputs / "w.json"
    weights.write(path)
    metric = GoToScorerMetric(weight_file=str(path))
    out: dict[str, object] = {h.name: metric.score(data, h) for h in hyps}
    out["unweighted AMU"] = GoToScorerMetric().score(data, hyps[0])
    return out


def test_evaluate_with_weights_from_system_files(capsys: pytest.CaptureFixture[str],
                                                 inputs: Path, api: dict) -> None:
    hyp_files = [str(inputs / "systems" / f"{n}.txt") for n in SYSTEMS[:2]]
    rc = main(["evaluate", "-m", "gotoscorer", "-r", str(inputs / "ref.m2"), "--hyp", *hyp_files,
               "-o", f"weight_systems={inputs}/systems/*.txt", "--format", "json", "-q"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["system"]: r for r in out["scores"]}
    for name in SYSTEMS[:2]:
        assert rows[name]["main"] == "F0.5"
        assert rows[name]["fields"] == pytest.approx(api[name].fields, abs=1e-12)
    assert rows["AMU"]["value"] != api["unweighted AMU"].value


def test_compare_with_weights_from_system_files(capsys: pytest.CaptureFixture[str],
                                                inputs: Path, api: dict) -> None:
    hyp_files = [str(inputs / "systems" / f"{n}.txt") for n in ("AMU", "UFC")]
    rc = main(["compare", "-m", "gotoscorer", "-r", str(inputs / "ref.m2"), "--hyp", *hyp_files,
               "-o", f"weight_systems={inputs}/systems/*.txt", "--bootstrap", "100",
               "--format", "json", "-q"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["system"]: r for r in out["scores"]}
    for name in ("AMU", "UFC"):
        assert rows[name]["value"] == pytest.approx(api[name].value, abs=1e-12)
        interval = rows[name]["interval"]
        assert interval["low"] <= rows[name]["value"] <= interval["high"]
    (pair,) = out["comparisons"]
    assert {pair["system_a"], pair["system_b"]} == {"AMU", "UFC"}
    assert abs(pair["delta"]) == pytest.approx(abs(api["AMU"].value - api["UFC"].value),
                                               abs=1e-12)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_weights_from_the_systems_scored(capsys: pytest.CaptureFixture[str], inputs: Path,
                                         api: dict, jobs: str) -> None:
    """``weight_systems=@scored`` on the command line: the weights come from the four systems
    of the run (prepared once, before scoring; the same in worker processes)."""
    hyp_files = [str(inputs / "systems" / f"{n}.txt") for n in SYSTEMS]
    rc = main(["evaluate", "-m", "gotoscorer", "-r", str(inputs / "ref.m2"), "--hyp", *hyp_files,
               "-o", "weight_systems=@scored", "--format", "json", "-q", "--jobs", jobs])
    assert rc == 0
    rows = {r["system"]: r for r in json.loads(capsys.readouterr().out)["scores"]}
    for name in SYSTEMS:
        assert rows[name]["fields"] == pytest.approx(api[name].fields, abs=1e-12)

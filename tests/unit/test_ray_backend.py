"""``--backend ray`` on a real local Ray instance (two CPUs, so two actors): the same M2 and the
same scores as one process (issue #17)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis, evaluate
from gecscope.cli.main import main

ray = pytest.importorskip("ray", reason="the Ray backend needs the ray extra")
pytest.importorskip("errant")

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"

pytestmark = [pytest.mark.slow, pytest.mark.requires_spacy]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_annotate_on_ray_equals_one_process(cluster: None, tmp_path: Path, monkeypatch) -> None:
    outs = []
    runs = (["--jobs", "1"], ["--backend", "ray", "--jobs", "2", "--shard-size", "3"],
            ["--backend", "ray", "--jobs", "2", "--shard-size", "5"])
    for extra in runs:
        if extra[-1] == "5":  # shards of 5 pairs sent to the actors in chunks of 2 sentences
            monkeypatch.setattr("gecscope.alignment.errant.CHUNK", 4)
        out = tmp_path / f"{len(outs)}.m2"
        assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                     str(DEMO / "rewriter.txt"), "--output", str(out), "-q", *extra]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2] and outs[0].count(b"\n\n") == 12


def test_resume_on_ray_reuses_shards(cluster: None, tmp_path: Path, capsys) -> None:
    whole = tmp_path / "whole.m2"
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                 "--output", str(whole), "-q", "--jobs", "1"]) == 0
    lines = (DEMO / "careful.txt").read_bytes().split(b"\n")
    cor = tmp_path / "careful.txt"
    cor.write_bytes(b"\n".join(lines[:7] + [b"\xff", *lines[8:]]))  # line 8: not UTF-8
    run = tmp_path / "run.m2"
    argv = ["annotate", "-s", str(DEMO / "source.txt"), "-c", str(cor), "--output", str(run),
            "--backend", "ray", "--jobs", "2", "--shard-size", "3", "--resume"]
    assert main(argv) == 65
    assert not run.exists()
    capsys.readouterr()
    cor.write_bytes((DEMO / "careful.txt").read_bytes())
    assert main(argv) == 0
    assert "2 shard(s) reused" in capsys.readouterr().err
    assert run.read_bytes() == whole.read_bytes()


def test_evaluate_on_ray_equals_one_process(cluster: None) -> None:
    data = EvalData.from_m2(DEMO / "references.m2")
    hyps = [Hypothesis.from_file(DEMO / f"{n}.txt") for n in ("careful", "rewriter", "cautious")]
    metrics = ["errant", "m2", "gleu", "imeasure", "cleme2"]
    local = evaluate(metrics, data, hyps)
    data_ray = EvalData.from_m2(DEMO / "references.m2")  # fresh: edits extracted on the actors
    remote = evaluate(metrics, data_ray, hyps, jobs=2, backend="ray")
    remote_order = [(r.metric, r.system) for r in remote]
    local_order = [(r.metric, r.system) for r in local]
    assert remote_order == local_order
    for a, b in zip(local, remote, strict=True):
        assert a.score == b.score and a.stats == b.stats, (a.metric, a.system)
    assert {r.metric: r.score.value for r in remote if r.system == "careful"}["m2"] > 0.5

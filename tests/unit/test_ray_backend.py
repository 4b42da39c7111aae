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
            monkeypatch.setattr("gecscope.execution.chunks.CHUNK", 4)
        out = tmp_path / f"{len(outs)}.m2"
        assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                     str(DEMO / "rewriter.txt"), "--output", str(out), "-q", *extra]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2] and outs[0].count(b"\n\n") == 12
    # recurring sources (the demo's twice, careful then rewriter): regrouped for the actors
    src, cor = tmp_path / "src.txt", tmp_path / "cor.txt"
    src.write_bytes((DEMO / "source.txt").read_bytes() * 2)
    cor.write_bytes((DEMO / "careful.txt").read_bytes() + (DEMO / "rewriter.txt").read_bytes())
    twice = []
    for extra in (["--jobs", "1"], ["--backend", "ray", "--jobs", "2", "--shard-size", "20"]):
        out = tmp_path / f"twice{len(twice)}.m2"
        assert main(["annotate", "-s", str(src), "-c", str(cor), "--output", str(out), "-q",
                     *extra]) == 0
        twice.append(out.read_bytes())
    assert twice[0] == twice[1] and twice[0].count(b"\n\n") == 24


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


def test_evaluate_on_ray_equals_one_process(cluster: None, monkeypatch) -> None:
    """Statistics gathered on the actors in sentence ranges, the corpus scores aggregated by
    the driver."""
    data = EvalData.from_m2(DEMO / "references.m2")
    hyps = [Hypothesis.from_file(DEMO / f"{n}.txt") for n in ("careful", "rewriter", "cautious")]
    metrics = ["errant", "m2", "gleu", "imeasure", "cleme2", "gotoscorer"]
    local = evaluate(metrics, data, hyps)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MAX", 5)  # 12 sentences: ranges of 4
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MIN", 1)
    data_ray = EvalData.from_m2(DEMO / "references.m2")  # fresh: edits extracted on the actors
    remote = evaluate(metrics, data_ray, hyps, jobs=2, backend="ray")
    remote_order = [(r.metric, r.system) for r in remote]
    local_order = [(r.metric, r.system) for r in local]
    assert remote_order == local_order
    for a, b in zip(local, remote, strict=True):
        assert a.score == b.score and a.stats == b.stats, (a.metric, a.system)
    assert {r.metric: r.score.value for r in remote if r.system == "careful"}["m2"] > 0.5


def test_evaluate_on_ray_with_recurring_sources(cluster: None, tmp_path: Path) -> None:
    """The demo's sentences twice (two systems' outputs one after the other, as one system):
    the actors get each recurring source's pairs together, the edits come back in order."""
    gold = tmp_path / "twice.m2"
    m2 = (DEMO / "references.m2").read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    gold.write_text(m2 * 2, encoding="utf-8")
    lines = [line for n in ("careful", "rewriter")
             for line in (DEMO / f"{n}.txt").read_text(encoding="utf-8").splitlines()]
    hyp = Hypothesis.from_texts(lines, "both")
    local = evaluate(["errant"], EvalData.from_m2(gold), [hyp])
    remote = evaluate(["errant"], EvalData.from_m2(gold), [hyp], jobs=2, backend="ray")
    assert len(remote[0].stats) == 24
    assert remote[0].stats == local[0].stats and remote[0].score == local[0].score


def _shards(folder: Path, size: int) -> None:
    """The demo's source and two corrections cut into shard files of ``size`` lines."""
    for name in ("source", "careful", "rewriter"):
        lines = (DEMO / f"{name}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        for k in range(0, len(lines), size):
            (folder / f"{name}-{k // size:02d}.txt").write_text("".join(lines[k:k + size]),
                                                                encoding="utf-8")


def test_sharded_files_on_ray_data(cluster: None, tmp_path: Path, capsys) -> None:
    """Shard files read and written by Ray Data actors (a file:// URI for the output) are the
    whole corpus's M2 cut at the same lines; a shard with a wrong line count fails naming its
    file while the others are written. (--resume over sharded output, a file:// URI too, is
    tests/cli/test_annotate_resume_integrity.py's; a third Ray Data run here repeated it.)"""
    whole = tmp_path / "whole.m2"
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                 str(DEMO / "rewriter.txt"), "--output", str(whole), "-q", "--jobs", "1"]) == 0
    _shards(tmp_path, 5)
    out = tmp_path / "out"
    argv = ["annotate", "--backend", "ray", "--jobs", "2", "--sharded",
            "-s", str(tmp_path / "source-*.txt"), "-c", str(tmp_path / "careful-*.txt"),
            str(tmp_path / "rewriter-*.txt"), "--output", f"file://{out}"]
    good = (tmp_path / "careful-01.txt").read_text(encoding="utf-8")
    (tmp_path / "careful-01.txt").write_text(good + "one line too many\n", encoding="utf-8")
    assert main(argv) == 65
    err = capsys.readouterr().err
    assert "careful-01.txt: has 6 lines but 5 were expected" in err
    assert sorted(p.name for p in out.iterdir()) == ["source-00.m2", "source-02.m2"]

    (tmp_path / "careful-01.txt").write_text(good, encoding="utf-8")
    assert main(argv) == 0
    parts = sorted(out.iterdir())
    assert [p.name for p in parts] == ["source-00.m2", "source-01.m2", "source-02.m2"]
    assert b"".join(p.read_bytes() for p in parts) == whole.read_bytes()


def test_sharded_patterns_must_pair_up(tmp_path: Path, capsys) -> None:
    _shards(tmp_path, 5)
    (tmp_path / "careful-02.txt").unlink()
    assert main(["annotate", "--backend", "ray", "--sharded", "-s", str(tmp_path / "source-*"),
                 "-c", str(tmp_path / "careful-*"), "--output", str(tmp_path / "out")]) == 64
    assert "matches 2 file(s) but" in capsys.readouterr().err
    assert main(["annotate", "--sharded", "-s", str(tmp_path / "source-*"),
                 "-c", str(tmp_path / "careful-*"), "--output", str(tmp_path / "out")]) == 64
    assert "--sharded needs --backend ray" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

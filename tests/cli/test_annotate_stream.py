"""``gecscope annotate`` in shards (streaming) and ``--resume`` after an interruption (issue #17)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecscope.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"

pytestmark = pytest.mark.requires_spacy


def _annotate(out: Path, *extra: str, cor: Path | None = None) -> int:
    pytest.importorskip("errant")
    return main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(cor or DEMO / "careful.txt"),
                 str(DEMO / "rewriter.txt"), "--output", str(out), "--jobs", "1", *extra])


def test_shard_size_does_not_change_the_m2(tmp_path: Path) -> None:
    outs = []
    for size in ("1", "5", "10000"):
        out = tmp_path / f"s{size}.m2"
        assert _annotate(out, "--shard-size", size, "-q") == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count(b"\n\n") == 12 and b"A 0 1|||" in outs[0]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_resume_reuses_finished_shards_after_a_failure(jobs: str, tmp_path: Path, capsys,
                                                       monkeypatch) -> None:
    # with --jobs 2 the shards go through the workers' pipeline (jobs of 2 pairs), which
    # must finish and keep the shards read before the bad one
    from gecscope.execution import chunks as chunks_module

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr(chunks_module, "CHUNK", 2)
    assert _annotate(tmp_path / "whole.m2", "-q") == 0
    lines = (DEMO / "careful.txt").read_bytes().split(b"\n")
    bad = tmp_path / "careful.txt"
    bad.write_bytes(b"\n".join(lines[:10] + [b"caf\xe9", *lines[11:]]))  # line 11: Latin-1
    out = tmp_path / "run.m2"
    assert _annotate(out, "--shard-size", "2", "--resume", "--jobs", jobs, cor=bad) == 65
    err = capsys.readouterr().err
    assert f"{bad}:11" in err and "UTF-8" in err
    assert not out.exists()  # nothing half-written
    parts = sorted((tmp_path / "run.m2.parts").glob("shard-*.m2"))
    kept = [p.name[:12] for p in parts]
    assert kept == [f"shard-{i:06d}" for i in range(5)]
    bad.write_bytes((DEMO / "careful.txt").read_bytes())  # the input fixed: shard 6 changes
    assert _annotate(out, "--shard-size", "2", "--resume", "--jobs", jobs, cor=bad) == 0
    assert "5 shard(s) reused" in capsys.readouterr().err
    assert out.read_bytes() == (tmp_path / "whole.m2").read_bytes()
    assert not (tmp_path / "run.m2.parts").exists()


def test_resume_needs_a_file_output(tmp_path: Path, capsys) -> None:
    assert _annotate(Path("-"), "--resume") == 64
    assert "--resume needs --output to be a file" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_run_resumes_to_the_same_m2(shared_data: Path, tmp_path: Path) -> None:
    # SIGKILL part way through CoNLL-2014's first 600 sentences (AMU against the source; all
    # 1,312 added only time), then --resume
    pytest.importorskip("errant")
    sub = shared_data / "conll14" / "submissions"
    for name in ("INPUT", "AMU"):
        lines = (sub / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (tmp_path / name).write_text("".join(lines[:600]), encoding="utf-8")
    cmd = [sys.executable, "-m", "gecscope", "annotate", "-s", str(tmp_path / "INPUT"), "-c",
           str(tmp_path / "AMU"), "--jobs", "1", "--shard-size", "50", "-q"]
    whole, run = tmp_path / "whole.m2", tmp_path / "run.m2"
    subprocess.run([*cmd, "--output", str(whole)], check=True)
    proc = subprocess.Popen([*cmd, "--output", str(run), "--resume"])
    parts = tmp_path / "run.m2.parts"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(parts.glob("shard-*.m2"))) >= 4:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be interrupted"
    assert not run.exists()
    done = len(list(parts.glob("shard-*.m2")))
    assert 4 <= done < 12
    res = subprocess.run([*cmd, "--output", str(run), "--resume"], check=True,
                         capture_output=True, text=True)
    assert res.returncode == 0
    assert run.read_bytes() == whole.read_bytes()
    assert not parts.exists()

"""``jobs=2`` gives the same results as one process (issue #17): CoNLL-2014 systems and the demo,
with the metrics that allow it scored in sentence ranges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis, evaluate
from gecscope.cli.main import main
from gecscope.formats.m2 import read_m2
from gecscope.types import Corpus

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
METRICS = ["errant", "m2", "gleu", "imeasure", "cleme", "cleme2", "green"]
N = 75  # sentences of CoNLL-2014 (13 systems x 7 metrics; the pool is forced below)

pytestmark = [pytest.mark.slow, pytest.mark.requires_spacy]


def _results(jobs: int, shared_data: Path) -> list:
    gold = read_m2(shared_data / "conll14" / "official-2014.combined.m2")
    data = EvalData.from_m2(Corpus(gold.sentences[:N], gold.path))
    hyps = []
    for path in sorted((shared_data / "conll14" / "submissions").iterdir()):
        lines = path.read_text(encoding="utf-8").split("\n")[:N]
        hyps.append(Hypothesis.from_texts(lines, path.name))
    # NTHU's lines 38-43 are shifted by one (in the official file too): scored as given, as
    # the reference scorers do
    return evaluate(METRICS, data, hyps, jobs=jobs, allow="misplaced-lines")


def test_two_processes_equal_one_on_conll14(shared_data: Path, monkeypatch) -> None:
    pytest.importorskip("errant")
    one = _results(1, shared_data)
    # the pool forced (the sample is below the one-process threshold), every system in
    # three ranges of 25
    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MAX", 30)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MIN", 25)
    two = _results(2, shared_data)
    assert len(one) == len(two) == 13 * len(METRICS)
    for a, b in zip(one, two, strict=True):
        which = (a.metric, a.system)
        assert which == (b.metric, b.system)
        assert a.score == b.score, which
        assert a.stats == b.stats, which
        assert a.sentence_scores == b.sentence_scores, which
    amu = {r.metric: r.score.value for r in two if r.system == "AMU"}
    assert amu["m2"] > amu["errant"] > 0  # real scores, not an empty comparison


def test_jobs_flag_gives_the_same_report(monkeypatch, tmp_path: Path, capsys) -> None:
    # the demo is small, so the thresholds are lowered to force the process pool
    pytest.importorskip("errant")
    from gecscope.execution import chunks as chunks_module

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr(chunks_module, "CHUNK", 8)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MAX", 5)  # the ranged metrics in 3 ranges
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MIN", 1)
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.json"
        argv = ["evaluate", "-r", str(DEMO / "references.m2"), "--hyp",
                str(DEMO / "careful.txt"), str(DEMO / "rewriter.txt"), str(DEMO / "cautious.txt"),
                "-o", "errant.mode=ds", "-o", "m2.beta=1.0", "--json-out", str(out),
                "--bootstrap", "50", "--jobs", jobs, "-q"]
        for m in METRICS:
            argv += ["-m", m]
        assert main(argv) == 0
        outs.append(json.loads(out.read_text(encoding="utf-8")))
        capsys.readouterr()
    for report in outs:
        report.pop("created", None)
    assert outs[0] == outs[1]
    assert len(outs[0]["scores"]) == 3 * len(METRICS)


def test_jobs_must_be_a_count(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "-r", str(DEMO / "references.m2"), "--hyp", str(DEMO / "careful.txt"),
              "--jobs", "-1"])
    assert exc.value.code == 64
    assert "must be >= 0" in capsys.readouterr().err


def test_meta_eval_jobs_gives_the_same_correlations(shared_data: Path) -> None:
    # GJG15 with GLEU: 13 systems x 1,312 sentences is enough work for the process pool
    from gecscope.meta_eval.benchmarks import load_gjg15
    from gecscope.meta_eval.runner import evaluate_systems, system_correlations, system_scores
    from gecscope.metrics.gleu import GLEUMetric

    conll = shared_data / "conll14"
    bench = load_gjg15(shared_data / "gjg15", conll / "submissions",
                       conll / "official-2014.combined.m2")
    systems = bench.select(None)
    one = evaluate_systems(GLEUMetric(), bench, systems, jobs=1)
    two = evaluate_systems(GLEUMetric(), bench, systems, jobs=2)
    assert list(one) == list(two) == list(systems)
    assert all(one[s].score == two[s].score and one[s].stats == two[s].stats for s in systems)
    corr = system_correlations(bench, system_scores(two), systems)
    assert corr == system_correlations(bench, system_scores(one), systems)


def test_workers_retype_the_nucle_references_as_one_process(shared_data: Path, monkeypatch,
                                                            tmp_path: Path, capsys) -> None:
    """CoNLL-2014's gold is NUCLE-typed: a per-type report re-types it with ERRANT. With
    workers the re-typing is done there (while spaCy is loaded) and must equal this
    process's, through the API (the slot the report reads) and in the CLI's JSON report."""
    pytest.importorskip("errant")
    from gecscope.alignment.errant import shared_annotator
    from gecscope.evaluation import score_admitted
    from gecscope.execution import chunks as chunks_module
    from gecscope.execution.chunks import RETYPED_REFERENCE
    from gecscope.metrics.errant import ErrantMetric

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr(chunks_module, "CHUNK", 10)  # several re-typing jobs
    gold = read_m2(shared_data / "conll14" / "official-2014.combined.m2")
    part = Corpus(gold.sentences[:40], gold.path)
    data = EvalData.from_m2(part)
    amu = (shared_data / "conll14" / "submissions" / "AMU").read_text(encoding="utf-8")
    hyp = Hypothesis.from_texts(amu.split("\n")[:40], "AMU")
    score_admitted([ErrantMetric()], data, [hyp], jobs=2, retype_reference=True)
    here = shared_annotator().retype_corpus(part, auto=False, minimise=False)
    assert data.peek(RETYPED_REFERENCE) == here
    assert {e.type for s in here for a in s.annotations for e in a.edits} & {"R:NOUN:NUM"}
    # the CLI: the same JSON report (its per-type tables included) with one and two processes
    from gecscope.formats.m2 import format_sentence

    (tmp_path / "gold.m2").write_text("".join(format_sentence(s) for s in part),
                                      encoding="utf-8")
    (tmp_path / "AMU").write_text("\n".join(amu.split("\n")[:40]) + "\n", encoding="utf-8")
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.json"
        assert main(["evaluate", "-r", str(tmp_path / "gold.m2"), "--hyp", str(tmp_path / "AMU"),
                     "-m", "errant", "-m", "m2", "--json-out", str(out), "--jobs", jobs,
                     "-q"]) == 0
        outs.append(json.loads(out.read_text(encoding="utf-8")))
        capsys.readouterr()
    for report in outs:
        report.pop("created", None)
    assert outs[0] == outs[1]
    assert outs[0]["per_type"], "the report has per-type tables"

"""One scoring path (#32 item 1): ``evaluate`` makes one plan (inputs checked once, then
tasks) and runs it on an executor; serial and worker processes differ only in the executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis, evaluate
from gecscope.errors import GecscopeError
from gecscope.evaluation import make_metrics
from gecscope.execution.plan import make_plan, run

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
SYSTEMS = ("careful", "rewriter", "cautious")


def _hyps() -> list[Hypothesis]:
    return [Hypothesis.from_file(DEMO / f"{n}.txt") for n in SYSTEMS]


@pytest.mark.parametrize("extra", [{"jobs": 1}, {"jobs": 2}, {"jobs": 2, "backend": "ray"}])
def test_a_bad_hypothesis_is_refused_before_any_worker_starts(tmp_path: Path, extra) -> None:
    """A system one line short is refused by the plan, the same way for every executor,
    and no Ray instance was started for it."""
    lines = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    data = EvalData.from_m2(DEMO / "references.m2")
    with pytest.raises(GecscopeError, match="short"):
        make_plan(make_metrics(["gleu", "imeasure"]), data,
                  [Hypothesis.from_file(DEMO / "careful.txt"), Hypothesis.from_file(short)],
                  **extra)
    if extra.get("backend") == "ray":
        ray = pytest.importorskip("ray")
        assert not ray.is_initialized()


def test_serial_plan_is_whole_tasks_metric_major() -> None:
    data = EvalData.from_m2(DEMO / "references.m2")
    plan = make_plan(make_metrics(["gleu", "imeasure"]), data, _hyps())
    assert plan.executor == "serial" and plan.workers == 1
    n = len(data)
    assert plan.tasks == [(m, h, 0, n) for m in range(2) for h in range(3)]


def test_pool_and_serial_give_the_same_results_and_progress(monkeypatch) -> None:
    """The same plan's tasks in this process and on two worker processes (the thresholds
    lowered so the demo goes to workers, cut into sentence ranges): equal scores,
    statistics and order, and progress adds up to every sentence of every pair once."""
    metrics = ["gleu", "imeasure"]
    ticks: list[int] = []
    serial = evaluate(metrics, EvalData.from_m2(DEMO / "references.m2"), _hyps(),
                      progress=ticks.append)
    data = EvalData.from_m2(DEMO / "references.m2")
    assert sum(ticks) == len(data) * len(metrics) * len(SYSTEMS)
    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MAX", 5)
    monkeypatch.setattr("gecscope.execution.pool.RANGE_MIN", 1)
    plan = make_plan(make_metrics(metrics), data, _hyps(), jobs=2)
    assert plan.executor == "pool"
    assert any(b - a < len(data) for _, _, a, b in plan.tasks)  # gleu cut into ranges
    pool_ticks: list[int] = []
    pooled = run(plan, pool_ticks.append)
    assert sum(pool_ticks) == sum(ticks)
    pooled_order = [(r.metric, r.system) for r in pooled]
    serial_order = [(r.metric, r.system) for r in serial]
    assert pooled_order == serial_order
    for a, b in zip(serial, pooled, strict=True):
        assert a.score == b.score and a.stats == b.stats, (a.metric, a.system)
    assert 0 < serial[0].score.value < 1

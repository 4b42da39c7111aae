"""Scoring on several processes: ``evaluate(..., jobs=N)`` and ``--jobs N`` on the command line.

Two phases, each exact by construction (the same code runs on the same inputs, only elsewhere):

1. **Edits.** When a metric reads the systems' edits (``"hypothesis-edits"`` in
   :attr:`Metric.requires <gecscope.metrics.base.Metric.requires>`) every plain-text system
   is annotated with ERRANT at once, cut into chunks of sentences over all workers
   (:func:`gecscope.alignment.errant.annotate_parallel`), so one system on a large corpus
   gets every core too. Each source is parsed once, by the worker holding its chunk.
2. **Scores.** Every (metric, system) pair is one task. Workers receive the references once
   (pickled :class:`~gecscope.data.EvalData`, which carries the extracted edits), load their
   own models, and send back the :class:`~gecscope.metrics.base.SystemResult`; results are
   returned in the order :func:`gecscope.evaluate` gives them.

Worker processes are *spawned* (no inherited threads or model state). Small jobs stay in
this process (:func:`worth_parallel`): there the start-up of the workers (Python, numpy,
spaCy) would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gecscope._pool import process_pool, score_task
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, SystemResult

#: Estimated work below which scoring stays in one process: in units of ``relative_cost``
#: per sentence (1 unit is about 40 microseconds), this is about 6 CPU-seconds, twice what a
#: worker takes to start (Python, numpy, spaCy).
PARALLEL_MIN = 150_000
#: ERRANT edit extraction of one sentence, in the same units.
EDIT_COST = 50

_STATE: dict[str, Any] = {}


def resolve_jobs(jobs: int) -> int:
    """``jobs`` as a process count: ``0`` means every core this process may use."""
    from gecscope._pool import default_jobs

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ConfigError(f"jobs must be a whole number >= 0 (0 = every core), got {jobs!r}")
    return jobs or default_jobs()


def extract_edits(data: EvalData, hyps: Sequence[Hypothesis], jobs: int,
                  progress: Callable[[int], None] | None = None, pool: Any = None) -> None:
    """Annotate every plain-text system (and plain-text references) with ERRANT on ``jobs``
    processes (or on ``pool``) and store the edits in ``data``, where the metrics find them."""
    from gecscope.alignment.errant import annotate_parallel

    if data.lang.extractor != "errant":
        # other extractors are light (no parser to load): extracted here, in one process
        if data.has_references:
            data.reference_edits()
        for h in hyps:
            data.check(h)
            data.hypothesis_m2(h)
        return
    if data.m2 is None and data.has_references and "reference-edits" not in data.cache:
        data.cache["reference-edits"] = annotate_parallel(data.sources, data.references,
                                                          jobs=jobs, pool=pool)
    todo: dict[str, Hypothesis] = {}
    for h in hyps:
        if data.known_hypothesis_m2(h) is None:
            todo.setdefault(h.key, h)
    if not todo:
        return
    systems = list(todo.values())
    for h in systems:
        data.check(h)
    corpus = annotate_parallel(data.sources, [h.tokens for h in systems], jobs=jobs,
                               progress=progress, pool=pool)
    store_joint_edits(data, systems, corpus.sentences)


def store_joint_edits(data: EvalData, systems: Sequence[Hypothesis],
                      joint: Sequence[Any]) -> None:
    """Split sentences annotated with every system as an annotator (annotator ``k`` = system
    ``k``) into each system's edits (annotator 0, as when annotated alone) and store them."""
    from gecscope.types import Annotation, Corpus, Sentence

    for k, system in enumerate(systems):
        own = tuple(
            Sentence(s.source, tuple(Annotation(0, a.edits) for a in s.annotations
                                     if a.annotator == k))
            for s in joint)
        data.set_hypothesis_m2(system, Corpus(own))


def _init_worker(data: EvalData, metrics: list[Metric[Any]], hyps: list[Hypothesis]) -> None:
    _STATE.update(data=data, metrics=metrics, hyps=hyps)


def _score(task: tuple[int, int, Any]) -> tuple[int, int, SystemResult]:
    return score_task(_STATE["data"], _STATE["metrics"], _STATE["hyps"], task)


def _checked(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis]
             ) -> tuple[list[Metric[Any]], list[Hypothesis]]:
    """The inputs checked here, before any work is sent out (as lists, for indexing)."""
    for metric in metrics:
        metric.check_inputs(data)
    for system in hyps:
        data.check(system)
    return list(metrics), list(hyps)


def evaluate_ray(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis],
                 actors: int, address: str | None = None,
                 progress: Callable[[int], None] | None = None) -> list[SystemResult]:
    """:func:`evaluate_parallel` on a Ray cluster (:mod:`gecscope.ray_backend`): the edits of
    every system extracted by annotator actors, then one task per (metric, system)."""
    from gecscope import ray_backend
    from gecscope.alignment.errant import chunks

    metrics, hyps = _checked(metrics, data, hyps)
    needs_edits = [("hypothesis-edits" in m.requires) for m in metrics]
    if any(needs_edits):
        todo = list({h.key: h for h in hyps if data.known_hypothesis_m2(h) is None}.values())
        if todo and data.lang.extractor != "errant":  # the actors run English ERRANT
            for system in todo:
                data.hypothesis_m2(system)
        elif todo:
            jobs = (("sentences", chunk) for chunk in chunks(data.sources,
                                                             [h.tokens for h in todo]))
            joint: list[Any] = []
            for sentences in ray_backend.annotate_jobs(jobs, actors=actors, address=address):
                joint.extend(sentences)
            store_joint_edits(data, todo, joint)
    tasks = [(m, h, data.known_hypothesis_m2(hyps[h]) if needs_edits[m] else None)
             for m in range(len(metrics)) for h in range(len(hyps))]
    out: dict[tuple[int, int], SystemResult] = {}
    for m, h, result in ray_backend.score_tasks(data, metrics, hyps, tasks, actors=actors,
                                                address=address):
        out[m, h] = result
        if progress is not None:
            progress(len(data))
    return [out[t] for t in sorted(out)]


def evaluate_parallel(metrics: Sequence[Metric[Any]], data: EvalData,
                      hyps: Sequence[Hypothesis], jobs: int,
                      progress: Callable[[int], None] | None = None) -> list[SystemResult]:
    """Every metric on every system, metric-major (as :func:`gecscope.evaluate`), on ``jobs``
    processes; identical results to one process. One pool serves both phases, so a worker
    that extracted edits keeps its spaCy model and parses for scoring."""
    n = len(data)
    metrics, hyps = _checked(metrics, data, hyps)
    needs_edits = [("hypothesis-edits" in m.requires) for m in metrics]
    tasks = [(m, h) for m in range(len(metrics)) for h in range(len(hyps))]
    # the costliest metrics first, so no worker is left with a long task at the end
    tasks.sort(key=lambda t: -metrics[t[0]].relative_cost)
    out: dict[tuple[int, int], SystemResult] = {}

    def collect(m: int, h: int, result: SystemResult) -> None:
        out[m, h] = result
        if progress is not None:
            progress(n)

    with process_pool(jobs, len(tasks), _init_worker, (data, metrics, hyps)) as pool:
        if pool is not None:
            if any(needs_edits):
                extract_edits(data, hyps, jobs, pool=pool)
            sent = [(m, h, data.known_hypothesis_m2(hyps[h]) if needs_edits[m] else None)
                    for m, h in tasks]
            for m, h, result in pool.map(_score, sent):
                collect(m, h, result)
    for m, h in tasks:  # only when the workers could not start or broke
        if (m, h) not in out:
            collect(m, h, metrics[m].evaluate(data, hyps[h]))
    return [out[t] for t in sorted(out)]


def worth_parallel(jobs: int, data: EvalData, metrics: Sequence[Metric[Any]],
                   hyps: Sequence[Hypothesis]) -> bool:
    """Whether ``jobs`` processes pay for themselves: the estimated work (sentences x systems
    x :attr:`~gecscope.metrics.base.Metric.relative_cost`, plus :data:`EDIT_COST` per sentence
    of a system whose edits must be extracted) reaches :data:`PARALLEL_MIN`."""
    if jobs <= 1 or len(metrics) * len(hyps) <= 1:
        return False
    work = len(data) * len(hyps) * sum(m.relative_cost for m in metrics)
    if any("hypothesis-edits" in m.requires for m in metrics):
        work += len(data) * EDIT_COST * sum(data.known_hypothesis_m2(h) is None for h in hyps)
    return work >= PARALLEL_MIN

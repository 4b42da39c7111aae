"""Scoring on several processes: ``evaluate(..., jobs=N)`` and ``--jobs N`` on the command line.

Two phases, each exact by construction (the same code runs on the same inputs, only elsewhere):

1. **Edits.** When a metric reads the systems' edits (``"hypothesis-edits"`` in
   :attr:`Metric.requires <gecscope.metrics.base.Metric.requires>`) every plain-text system
   is annotated with ERRANT at once, cut into chunks of sentences over all workers
   (:func:`gecscope.execution.chunks.annotate_parallel`), so one system on a large corpus
   gets every core too. Each source is parsed once, by the worker holding its chunk.
2. **Scores.** Every (metric, system) pair is one task, or, for a metric whose sentence
   statistics do not depend on the other sentences
   (:attr:`~gecscope.metrics.base.Metric.sentence_ranges`), several: ranges of sentences
   (:func:`gecscope.execution.pool.plan_ranges`: at most 5,000 sentences each, and enough ranges for
   every worker to have two tasks). Workers receive the references once (pickled
   :class:`~gecscope.data.EvalData`, which carries the extracted edits) and load their own
   models. A whole task sends back the :class:`~gecscope.metrics.base.SystemResult`; a range
   sends its statistics, scored against :meth:`EvalData.subset <gecscope.data.EvalData.subset>`,
   and the corpus score is aggregated here from all of them in sentence order, as
   :meth:`~gecscope.metrics.base.Metric.evaluate` does. Results are returned in the order
   :func:`gecscope.evaluate` gives them.

Worker processes are *spawned* (no inherited threads or model state), never more than the
cores this process may use (a warning says so when more were asked for), and die with the
driver (:mod:`gecscope.execution.pool`). Small jobs stay in this process (:func:`worth_parallel`):
there the start-up of the workers (Python, numpy, spaCy) would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gecscope.data import REFERENCE_EDITS, EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.execution.pool import Task, plan_ranges, process_pool, score_task
from gecscope.metrics.base import Metric, SystemResult

#: Estimated work below which scoring stays in one process: in units of ``relative_cost``
#: per sentence (1 unit is about 40 microseconds), this is about 6 CPU-seconds, twice what a
#: worker takes to start (Python, numpy, spaCy).
PARALLEL_MIN = 150_000
#: ERRANT edit extraction of one sentence, in the same units.
EDIT_COST = 50

_STATE: dict[str, Any] = {}


def resolve_jobs(jobs: int) -> int:
    """``jobs`` checked (a whole number from 0 to :data:`~gecscope.execution.pool.MAX_JOBS`), as a
    count of workers: ``0`` means every core this process may use. Not capped here (Ray
    actors are capped at the cluster's CPUs, processes at this machine's cores, where they
    start: :func:`~gecscope.execution.pool.capped_jobs`)."""
    from gecscope.execution.pool import MAX_JOBS, default_jobs

    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 0 <= jobs <= MAX_JOBS:
        raise ConfigError(f"jobs must be a whole number from 0 (every core) to {MAX_JOBS}, "
                          f"got {jobs!r}")
    return jobs or default_jobs()


def extract_edits(data: EvalData, hyps: Sequence[Hypothesis], jobs: int,
                  progress: Callable[[int], None] | None = None, pool: Any = None) -> None:
    """Annotate every plain-text system (and plain-text references) with ERRANT on ``jobs``
    processes (or on ``pool``) and store the edits in ``data``, where the metrics find them."""
    from gecscope.execution.chunks import annotate_parallel

    if data.lang.extractor != "errant":
        # other extractors are light (no parser to load): extracted here, in one process
        if data.has_references:
            data.reference_edits()
        for h in hyps:
            data.check(h)
            data.hypothesis_m2(h)
        return
    if data.m2 is None and data.has_references and data.peek(REFERENCE_EDITS) is None:
        data.put(REFERENCE_EDITS, annotate_parallel(data.sources, data.references, jobs=jobs,
                                                    pool=pool))
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
    _STATE.update(data=data, metrics=metrics, hyps=hyps, parts={})


def _score(task: Task) -> tuple[int, int, int, Any]:
    return score_task(_STATE["data"], _STATE["metrics"], _STATE["hyps"], task, _STATE["parts"])


def _checked(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis]
             ) -> tuple[list[Metric[Any]], list[Hypothesis]]:
    """The inputs checked here, before any work is sent out (as lists, for indexing)."""
    for metric in metrics:
        metric.check_inputs(data)
    for system in hyps:
        data.check(system)
    return list(metrics), list(hyps)


def _tasks(plan: Sequence[tuple[int, int, int, int]], metrics: Sequence[Metric[Any]],
           data: EvalData, hyps: Sequence[Hypothesis]) -> list[Task]:
    """The plan's tasks, each with the edits of its system and range when its metric reads
    them (extracted before, in this process or by workers)."""
    from gecscope.types import Corpus

    out: list[Task] = []
    for m, h, a, b in plan:
        edits = None
        if "hypothesis-edits" in metrics[m].requires:
            edits = data.known_hypothesis_m2(hyps[h])
            if edits is not None and (a, b) != (0, len(data)):
                edits = Corpus(edits.sentences[a:b], edits.path)
        out.append((m, h, a, b, edits))
    return out


class _Results:
    """Task results gathered into one :class:`SystemResult` per (metric, system): a whole
    one as it came, ranges' statistics joined in sentence order and aggregated here, as
    :meth:`Metric.evaluate` does with the whole's."""

    def __init__(self, metrics: Sequence[Metric[Any]], hyps: Sequence[Hypothesis],
                 plan: Sequence[tuple[int, int, int, int]],
                 progress: Callable[[int], None] | None) -> None:
        self.metrics, self.hyps, self.progress = metrics, hyps, progress
        self.sizes = {(m, h, a): b - a for m, h, a, b in plan}
        self.pending: dict[tuple[int, int], dict[int, Any]] = {}
        self.expected: dict[tuple[int, int], int] = {}
        for m, h, _, _ in plan:
            self.expected[m, h] = self.expected.get((m, h), 0) + 1
        self.done: dict[tuple[int, int], SystemResult] = {}
        self.reported: dict[tuple[int, int], int] = {}

    def _report(self, m: int, h: int, k: int) -> None:
        self.reported[m, h] = self.reported.get((m, h), 0) + k
        if self.progress is not None and k > 0:
            self.progress(k)

    def add(self, m: int, h: int, start: int, value: Any) -> None:
        self._report(m, h, self.sizes[m, h, start])
        if isinstance(value, SystemResult):
            self.done[m, h] = value
            return
        got = self.pending.setdefault((m, h), {})
        got[start] = value
        if len(got) == self.expected[m, h]:
            metric = self.metrics[m]
            stats = [s for a in sorted(got) for s in got[a]]
            del self.pending[m, h]
            self.done[m, h] = SystemResult(self.hyps[h].name, metric.name,
                                           metric.aggregate(stats), stats,
                                           metric.sentence_values(stats))

    def fill(self, data: EvalData) -> None:
        """Score here the (metric, system) pairs without a result (when the workers could
        not start or broke)."""
        for m, h in sorted(self.expected):
            if (m, h) not in self.done:
                self.pending.pop((m, h), None)
                self.done[m, h] = self.metrics[m].evaluate(data, self.hyps[h])
                self._report(m, h, len(data) - self.reported.get((m, h), 0))

    def ordered(self) -> list[SystemResult]:
        return [self.done[t] for t in sorted(self.done)]


def evaluate_ray(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis],
                 actors: int, address: str | None = None,
                 progress: Callable[[int], None] | None = None) -> list[SystemResult]:
    """:func:`evaluate_parallel` on a Ray cluster (:mod:`gecscope.execution.ray`): the edits of
    every system extracted by annotator actors, then the scoring tasks of
    :func:`~gecscope.execution.pool.plan_ranges` on scorer actors."""
    from gecscope.execution import ray as ray_backend
    from gecscope.execution.chunks import ungrouped, worker_chunks

    metrics, hyps = _checked(metrics, data, hyps)
    _, actors = ray_backend.connect(address, actors)  # capped (and warned about) once
    if any("hypothesis-edits" in m.requires for m in metrics):
        todo = list({h.key: h for h in hyps if data.known_hypothesis_m2(h) is None}.values())
        if todo and data.lang.extractor != "errant":  # the actors run English ERRANT
            for system in todo:
                data.hypothesis_m2(system)
        elif todo:
            order, pieces = worker_chunks(data.sources, [h.tokens for h in todo])
            jobs = (("sentences", piece) for piece in pieces)
            joint: list[Any] = []
            for sentences in ray_backend.annotate_jobs(jobs, actors=actors, address=address):
                joint.extend(sentences)
            store_joint_edits(data, todo, joint if order is None else ungrouped(joint, order))
    plan = plan_ranges(len(data), metrics, len(hyps), actors)
    results = _Results(metrics, hyps, plan, progress)
    for m, h, start, value in ray_backend.score_tasks(data, metrics, hyps,
                                                      _tasks(plan, metrics, data, hyps),
                                                      actors=actors, address=address):
        results.add(m, h, start, value)
    return results.ordered()


def evaluate_parallel(metrics: Sequence[Metric[Any]], data: EvalData,
                      hyps: Sequence[Hypothesis], jobs: int,
                      progress: Callable[[int], None] | None = None) -> list[SystemResult]:
    """Every metric on every system, metric-major (as :func:`gecscope.evaluate`), on ``jobs``
    processes; identical results to one process. One pool serves both phases, so a worker
    that extracted edits keeps its spaCy model and parses for scoring. ``jobs`` is capped at
    the cores this process may use (with a warning)."""
    from gecscope.execution.pool import capped_jobs, default_jobs

    metrics, hyps = _checked(metrics, data, hyps)
    jobs = capped_jobs(jobs, default_jobs())
    needs_edits = any("hypothesis-edits" in m.requires for m in metrics)
    plan = plan_ranges(len(data), metrics, len(hyps), jobs)
    results = _Results(metrics, hyps, plan, progress)
    with process_pool(jobs, len(plan), _init_worker, (data, metrics, hyps)) as pool:
        if pool is not None:
            if needs_edits:
                extract_edits(data, hyps, jobs, pool=pool)
            for m, h, start, value in pool.map(_score, _tasks(plan, metrics, data, hyps)):
                results.add(m, h, start, value)
    results.fill(data)  # only when the workers could not start or broke
    return results.ordered()


def worth_parallel(jobs: int, data: EvalData, metrics: Sequence[Metric[Any]],
                   hyps: Sequence[Hypothesis]) -> bool:
    """Whether ``jobs`` processes pay for themselves: the estimated work (sentences x systems
    x :attr:`~gecscope.metrics.base.Metric.relative_cost`, plus :data:`EDIT_COST` per sentence
    of a system whose edits must be extracted) reaches :data:`PARALLEL_MIN`."""
    if jobs <= 1 or (len(metrics) * len(hyps) <= 1
                     and not any(m.sentence_ranges for m in metrics)):
        return False
    work = len(data) * len(hyps) * sum(m.relative_cost for m in metrics)
    if any("hypothesis-edits" in m.requires for m in metrics):
        work += len(data) * EDIT_COST * sum(data.known_hypothesis_m2(h) is None for h in hyps)
    return work >= PARALLEL_MIN

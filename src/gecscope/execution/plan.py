"""The plan of an evaluation and its one run: :func:`make_plan` checks the inputs once and
cuts the work into tasks, :func:`run` maps them on an executor (:mod:`gecscope.execution.
executors`: this process, worker processes for ``evaluate(..., jobs=N)`` and ``--jobs N``, or
Ray actors for ``backend="ray"``); only the executor differs.

Two phases, each exact by construction (the same code runs on the same inputs, only elsewhere):

1. **Edits.** When a metric reads the systems' edits (``"hypothesis-edits"`` in
   :attr:`Metric.requires <gecscope.metrics.base.Metric.requires>`) every plain-text system
   is annotated with ERRANT at once, cut into chunks of sentences over all workers
   (:func:`gecscope.execution.chunks.annotate_parallel`), so one system on a large corpus
   gets every core too. Each source is parsed once, by the worker holding its chunk.
2. **Scores.** Every (metric, system) pair is one task, or, for a metric whose sentence
   statistics do not depend on the other sentences
   (:attr:`~gecscope.metrics.base.Metric.sentence_ranges`), several: ranges of sentences
   (:func:`gecscope.execution.pool.plan_ranges`: at most 5,000 sentences each, two per
   worker where the corpus allows), the same for every system. A ranged metric's tasks of one
   range go to one worker together (:func:`gecscope.execution.pool.bundles`), so what it
   builds per sentence for all systems (the I-measure's pieces, CLEME's chunks, ERRANT's
   parse of the references) is built once, as in one process, not once in every worker.
   Workers receive the references once (pickled :class:`~gecscope.data.EvalData`, which
   carries the extracted edits) and load their own models. A whole task sends back the
   :class:`~gecscope.metrics.base.SystemResult`; a range sends its statistics, scored
   against :meth:`EvalData.subset <gecscope.data.EvalData.subset>`, and the corpus score is
   aggregated here from all of them in sentence order, as
   :meth:`~gecscope.metrics.base.Metric.evaluate` does. Results are returned in the order
   :func:`gecscope.evaluate` gives them.

Worker processes are *spawned* (no inherited threads or model state), never more than the
cores this process may use (a warning says so when more were asked for), and die with the
driver (:mod:`gecscope.execution.pool`). Small jobs stay in this process
(:func:`~gecscope.execution.executors.worth_parallel` of :func:`scoring_work`): there the
start-up of the workers (Python, numpy, spaCy) would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecscope.data import REFERENCE_EDITS, EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.execution.pool import Task, bundles, plan_ranges, process_pool, score_task
from gecscope.gate.consistency import check_hypothesis
from gecscope.metrics.base import Metric, SystemResult

if TYPE_CHECKING:
    from gecscope.execution.executors import Executor

_STATE: dict[str, Any] = {}


def resolve_jobs(jobs: int) -> int:
    """``jobs`` checked (a whole number from 0 to :data:`~gecscope.execution.pool.MAX_JOBS`), as a
    count of workers: ``0`` means every core this process may use. Not capped here (Ray
    actors are capped at the cluster's CPUs, processes at this machine's cores, where they
    start: :func:`~gecscope.execution.pool.capped_jobs`)."""
    from gecscope.execution.pool import default_jobs

    return check_jobs(jobs) or default_jobs()


def check_jobs(jobs: int) -> int:
    """``jobs`` unchanged when it is a whole number from 0 to
    :data:`~gecscope.execution.pool.MAX_JOBS` (not a bool, not a float such as ``1.0``);
    else a ConfigError."""
    from gecscope.execution.pool import MAX_JOBS

    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 0 <= jobs <= MAX_JOBS:
        raise ConfigError(f"jobs must be a whole number from 0 (every core) to {MAX_JOBS}, "
                          f"got {jobs!r}")
    return jobs


def extract_edits(data: EvalData, hyps: Sequence[Hypothesis], jobs: int,
                  progress: Callable[[int], None] | None = None,
                  executor: Executor | None = None) -> None:
    """Annotate every plain-text system (and plain-text references) with ERRANT on ``jobs``
    processes (or on ``executor``) and store the edits in ``data``, where the metrics find
    them."""
    from gecscope.execution.chunks import annotate_parallel

    if not data.lang.edit_extractor.pooled:
        # other extractors are light (no parser to load): extracted here, in one process
        if data.has_references:
            data.reference_edits()
        for h in hyps:
            check_hypothesis(data, h)
            data.hypothesis_m2(h)
        return
    if data.m2 is None and data.has_references and data.peek(REFERENCE_EDITS) is None:
        data.put(REFERENCE_EDITS, annotate_parallel(data.sources, data.references, jobs=jobs,
                                                    executor=executor))
    todo: dict[str, Hypothesis] = {}
    for h in hyps:
        if data.known_hypothesis_m2(h) is None:
            todo.setdefault(h.key, h)
    if not todo:
        return
    systems = list(todo.values())
    for h in systems:
        check_hypothesis(data, h)
    corpus = annotate_parallel(data.hypothesis_sources, [h.tokens for h in systems], jobs=jobs,
                               progress=progress, executor=executor)
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


def _score(group: list[Task]) -> list[tuple[int, int, int, Any]]:
    """A group of tasks (:func:`~gecscope.execution.pool.bundles`) on a worker, in order."""
    return [score_task(_STATE["data"], _STATE["metrics"], _STATE["hyps"], task,
                       _STATE["parts"]) for task in group]


def _grouped(plan: Plan, tasks: list[Task]) -> list[list[Task]]:
    """``tasks`` (those of ``plan``, in its order) in the groups sent to the workers."""
    return [[tasks[i] for i in group] for group in bundles(plan.tasks, plan.metrics,
                                                             plan.workers)]


def _tasks(plan: Sequence[tuple[int, int, int, int]], metrics: Sequence[Metric[Any]],
           data: EvalData, hyps: Sequence[Hypothesis], remote: bool) -> list[Task]:
    """The plan's tasks, each with the edits of its system and range when its metric reads
    them and the task goes to workers (extracted before, in this process or by workers)."""
    from gecscope.types import Corpus

    out: list[Task] = []
    for m, h, a, b in plan:
        edits = None
        if remote and "hypothesis-edits" in metrics[m].requires:
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
        self.ticked: dict[tuple[int, int, int], int] = {}

    def _report(self, m: int, h: int, k: int) -> None:
        self.reported[m, h] = self.reported.get((m, h), 0) + k
        if self.progress is not None and k > 0:
            self.progress(k)

    def live(self, m: int, h: int, start: int) -> Callable[[int], None]:
        """A progress sink for a task scored here, as it goes (:func:`gecscope.progress.
        tick`), never more than the task's sentences."""
        size = self.sizes[m, h, start]

        def sink(k: int) -> None:
            k = min(k, size - self.ticked.get((m, h, start), 0))
            if k > 0:
                self.ticked[m, h, start] = self.ticked.get((m, h, start), 0) + k
                self._report(m, h, k)

        return sink

    def add(self, m: int, h: int, start: int, value: Any) -> None:
        self._report(m, h, self.sizes[m, h, start] - self.ticked.get((m, h, start), 0))
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
                self.done[m, h] = self.metrics[m].result(data, self.hyps[h])
                self._report(m, h, len(data) - self.reported.get((m, h), 0))

    def ordered(self) -> list[SystemResult]:
        return [self.done[t] for t in sorted(self.done)]


def scoring_work(data: EvalData, metrics: Sequence[Metric[Any]],
                 hyps: Sequence[Hypothesis]) -> float:
    """The estimated work of scoring, in the units of
    :data:`~gecscope.execution.executors.PARALLEL_MIN`: sentences x systems x
    :attr:`~gecscope.metrics.base.Metric.relative_cost`, plus
    :data:`~gecscope.execution.executors.EDIT_COST` per sentence of a system whose edits
    must be extracted; 0 for one whole task (nothing to share)."""
    from gecscope.execution.executors import EDIT_COST

    if len(metrics) * len(hyps) <= 1 and not any(m.sentence_ranges for m in metrics):
        return 0
    work = len(data) * len(hyps) * sum(m.relative_cost for m in metrics)
    if any("hypothesis-edits" in m.requires for m in metrics):
        work += len(data) * EDIT_COST * sum(data.known_hypothesis_m2(h) is None for h in hyps)
    return work


@dataclass
class Plan:
    """One evaluation, its inputs checked: the scoring tasks ``(metric, system, start,
    stop)`` (whole systems, or sentence ranges for workers: :func:`plan_ranges`) and where
    they run (``"serial"``, ``"pool"`` or ``"ray"``, on ``workers``). ``jobs`` is what was
    asked for: with ``"serial"`` scoring the edits may still be extracted on workers."""

    data: EvalData
    metrics: list[Metric[Any]]
    hyps: list[Hypothesis]
    executor: str
    workers: int
    jobs: int
    address: str | None
    tasks: list[tuple[int, int, int, int]]
    #: the reference M2's edits are also re-typed with ERRANT on the workers (see
    #: :func:`needs_retyped_reference`) for a report's per-type tables
    retype_reference: bool = False

    @property
    def needs_edits(self) -> bool:
        """Whether a metric reads the systems' edits (extracted before scoring)."""
        return any("hypothesis-edits" in m.requires for m in self.metrics)


def needs_retyped_reference(data: EvalData) -> bool:
    """Whether a per-type report would re-type the reference M2 with ERRANT: its edits are
    not in ERRANT's scheme (NUCLE's, CoNLL-2014), the language's extractor is ERRANT and
    nothing re-typed them yet."""
    from gecscope.execution.chunks import RETYPED_REFERENCE
    from gecscope.formats.m2 import errant_typed

    if data.m2 is None or not data.lang.edit_extractor.errant \
            or not data.lang.edit_extractor.pooled or data.peek(RETYPED_REFERENCE) is not None:
        return False
    types = [e.type for s in data.m2 for a in s.annotations for e in a.edits]
    return bool(types) and not errant_typed(types)


def make_plan(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis],
              jobs: int = 1, backend: str = "local", address: str | None = None,
              retype_reference: bool = False) -> Plan:
    """Check the inputs, once (every metric's :meth:`~gecscope.metrics.base.Metric.
    check_inputs`, every system with each distinct :meth:`~gecscope.metrics.base.Metric.
    check_hypothesis`), choose where the work runs (Ray for ``backend="ray"``; worker
    processes when :func:`~gecscope.execution.executors.worth_parallel`; else this process)
    and cut it into tasks. ``retype_reference``: a report with per-type tables follows, so
    worker processes also re-type the reference M2 with ERRANT when it will need that
    (:func:`needs_retyped_reference`; stored in ``data``'s
    :data:`~gecscope.execution.chunks.RETYPED_REFERENCE`), while they have spaCy loaded;
    in this process the report does it itself, with the same result."""
    from gecscope.execution.executors import worth_parallel
    from gecscope.execution.pool import capped_jobs, default_jobs

    if backend not in ("local", "ray"):
        raise ConfigError(f"backend must be local or ray, got {backend!r}")
    metrics, hyps = list(metrics), list(hyps)
    jobs = check_jobs(jobs)  # for every backend: False, 0.0 and 1.0 are refused too
    if backend == "local" and jobs != 1:
        jobs = resolve_jobs(jobs)  # 0: every core (with Ray, 0: one actor per CPU)
    for metric in metrics:
        metric.check_inputs(data)
    checks = {type(m).check_hypothesis: m for m in metrics}
    for system in hyps:
        for metric in checks.values():
            metric.check_hypothesis(data, system)
    if backend == "ray":
        from gecscope.execution.ray import connect

        kind, workers = "ray", connect(address, jobs)[1]  # capped (and warned about) once
    elif worth_parallel(jobs, scoring_work(data, metrics, hyps)):
        kind, workers = "pool", capped_jobs(jobs, default_jobs())
    else:
        kind, workers = "serial", 1
    n = len(data)
    if kind == "serial":
        tasks = [(m, h, 0, n) for m in range(len(metrics)) for h in range(len(hyps))]
    else:
        tasks = plan_ranges(n, metrics, len(hyps), workers)
    return Plan(data, metrics, hyps, kind, workers, jobs, address, tasks,
                retype_reference and kind == "pool" and needs_retyped_reference(data))


def run(plan: Plan, progress: Callable[[int], None] | None = None) -> list[SystemResult]:
    """Every task of ``plan`` on its executor, the same code whichever it is: the systems'
    edits extracted first when a metric reads them (on the workers, or here), then the
    scoring tasks mapped, their results gathered into one
    :class:`~gecscope.metrics.base.SystemResult` per (metric, system), metric-major. Pairs
    the workers could not score (they could not start, or broke) are scored here."""
    from gecscope.execution.executors import Pool, Ray, Serial
    from gecscope.progress import reporting

    data, metrics, hyps = plan.data, plan.metrics, plan.hyps
    results = _Results(metrics, hyps, plan.tasks, progress)

    def collect(done: Iterable[tuple[int, int, int, Any]]) -> None:
        for m, h, start, value in done:
            results.add(m, h, start, value)

    def collect_groups(done: Iterable[list[tuple[int, int, int, Any]]]) -> None:
        for group in done:
            collect(group)

    if plan.executor == "serial":
        if plan.jobs > 1 and plan.needs_edits:  # one system on a large corpus: every core
            extract_edits(data, hyps, plan.jobs)
        parts: dict[tuple[int, int], Any] = {}

        def here(task: Task) -> tuple[int, int, int, Any]:
            live = results.live(task[0], task[1], task[2]) if progress is not None else None
            with reporting(live):
                return score_task(data, metrics, hyps, task, parts)

        serial = Serial()
        collect(serial.map(here, _tasks(plan.tasks, metrics, data, hyps, serial.remote)))
    elif plan.executor == "pool":
        with process_pool(plan.workers, len(plan.tasks), _init_worker,
                          (data, metrics, hyps)) as pool:
            if pool is not None:
                executor = Pool(pool)
                retyped = None
                if plan.retype_reference and data.m2 is not None:
                    from gecscope.execution.chunks import RETYPED_REFERENCE, start_retype

                    # queued ahead of the extraction: no pause between the two on the workers
                    retyped = start_retype(data.m2, executor)
                if plan.needs_edits:
                    extract_edits(data, hyps, plan.workers, executor=executor)
                if retyped is not None:
                    data.put(RETYPED_REFERENCE, retyped())
                collect_groups(executor.map(_score, _grouped(plan, _tasks(
                    plan.tasks, metrics, data, hyps, executor.remote))))
    else:
        if plan.needs_edits:
            extract_edits(data, hyps, plan.workers, executor=Ray(plan.workers, plan.address))
        scorers = Ray(plan.workers, plan.address, _init_worker, (data, metrics, hyps))
        collect_groups(scorers.map(_score, _grouped(plan, _tasks(plan.tasks, metrics, data, hyps,
                                                                 scorers.remote))))
    results.fill(data)
    return results.ordered()

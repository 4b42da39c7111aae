"""Worker processes: how many, a pool that fails loudly instead of hanging, and the scoring
task that process-pool workers and Ray actors run alike."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool as BrokenPool
from contextlib import contextmanager
from typing import Any


def default_jobs() -> int:
    """The cores this process may use (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def process_pool(jobs: int, tasks: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> Iterator[Any]:
    """A pool of ``min(jobs, tasks)`` spawned processes, or ``None`` (with a warning) when
    workers cannot start here, e.g. under ``python -`` where the main module cannot be
    re-imported; callers then do the work in this process. Unlike ``multiprocessing.Pool``,
    which restarts failing workers forever, a broken pool ends the run of the pool."""
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.exists(path):
        print(f"gecscope: warning: worker processes cannot re-import the main module {path!r}; "
              "running in one process", file=sys.stderr)
        yield None
        return
    ctx = multiprocessing.get_context("spawn")  # no inherited threads or model state
    try:
        with ProcessPoolExecutor(min(jobs, tasks), mp_context=ctx, initializer=initializer,
                                 initargs=initargs) as pool:
            yield pool
    except BrokenPool as exc:
        print(f"gecscope: warning: worker processes failed ({exc}); running in one process",
              file=sys.stderr)



#: Tasks a streaming run keeps submitted ahead of the one it waits for, per worker: enough
#: that no worker waits while the driver writes results, few enough to bound memory.
IN_FLIGHT = 4


def ordered_map(executor: Any, fn: Callable[[Any], Any], items: Iterable[Any],
                in_flight: int) -> Iterator[Any]:
    """``fn(item)`` for every item on ``executor``, results in input order, with at most
    ``in_flight`` items submitted and not yet yielded (``executor.map`` would read a streamed
    input to its end first). When reading the input fails, the results of the items already
    submitted are yielded before the error is raised (a resumable run keeps their output)."""
    from collections import deque

    futures: deque[Any] = deque()
    it = iter(items)
    failure: BaseException | None = None
    ended = False
    try:
        while True:
            while not ended and len(futures) < in_flight:
                try:
                    item = next(it)
                except StopIteration:
                    ended = True
                except BaseException as exc:  # noqa: BLE001 - raised once the submitted are delivered
                    failure, ended = exc, True
                else:
                    futures.append(executor.submit(fn, item))
            if not futures:
                break
            yield futures.popleft().result()
        if failure is not None:
            raise failure
    finally:
        for future in futures:
            future.cancel()


#: Sentences per scoring task at most when a metric may be split into sentence ranges
#: (bounds what a task holds and sends back, and gives a cluster work to spread) ...
RANGE_MAX = 5_000
#: ... and at least (smaller ranges cost more in hand-over than they gain in balance).
RANGE_MIN = 100

#: A scoring task: (metric, system, first sentence, end, the system's edits of the range or
#: None). A range that is the whole corpus is scored whole (:meth:`Metric.evaluate`).
Task = tuple[int, int, int, int, Any]


def plan_ranges(n: int, metrics: Sequence[Any], systems: int,
                workers: int) -> list[tuple[int, int, int, int]]:
    """``(metric, system, start, stop)`` of every scoring task: each (metric, system) whole,
    or, for metrics with :attr:`~gecscope.metrics.base.Metric.sentence_ranges`, cut into
    ranges of at most :data:`RANGE_MAX` sentences, more when the (metric, system) pairs are
    too few to give every worker two tasks (not below :data:`RANGE_MIN`). The costliest
    tasks come first (:attr:`~gecscope.metrics.base.Metric.relative_cost` x sentences), so no
    worker is left with a long task at the end."""
    import math

    pairs = len(metrics) * systems
    plan: list[tuple[int, int, int, int]] = []
    for m, metric in enumerate(metrics):
        pieces = 1
        if metric.sentence_ranges and n:
            want = math.ceil(2 * workers / max(1, pairs))
            pieces = max(math.ceil(n / RANGE_MAX), min(want, math.ceil(n / RANGE_MIN)))
        bounds = [n * k // pieces for k in range(pieces + 1)]
        plan.extend((m, h, a, b) for h in range(systems)
                    for a, b in itertools.pairwise(bounds) if a < b or n == 0)
    plan.sort(key=lambda t: -metrics[t[0]].relative_cost * (t[3] - t[2]))  # stable
    return plan


def score_task(data: Any, metrics: Sequence[Any], hyps: Sequence[Any], task: Task,
               parts: dict[tuple[int, int], Any]) -> tuple[int, int, int, Any]:
    """One scoring task in a worker (process or Ray actor): ``(metric, system, start,
    SystemResult)`` for a whole corpus, ``(metric, system, start, statistics)`` for a range.
    The system's edits, extracted elsewhere, are stored first. ``parts`` keeps this
    worker's reference subsets by range, so every system of a range shares their caches."""
    m, h, start, stop, edits = task
    metric, hyp = metrics[m], hyps[h]
    if start == 0 and stop == len(data):
        if edits is not None:
            data.set_hypothesis_m2(hyp, edits)
        return m, h, start, metric.evaluate(data, hyp)
    part = parts.get((start, stop))
    if part is None:
        part = parts[start, stop] = data.subset(start, stop)
    sub = hyp.subset(start, stop)
    if edits is not None:
        part.set_hypothesis_m2(sub, edits)
    return m, h, start, metric.range_stats(data, part, sub, start)

"""Where tasks run: this process (:class:`Serial`), spawned worker processes (:class:`Pool`)
or Ray actors (:class:`Ray`). Each offers ``map(fn, tasks)`` with the results in task order,
so a caller's plan (:mod:`gecscope.execution.plan`, the annotation of
:mod:`gecscope.execution.chunks` and :mod:`gecscope.execution.annotate_stream`) is the same
whichever runs it, and so are its results.

Workers hold a state given once when they start (``initializer(*initargs)``: the references,
metrics and systems of an evaluation), so tasks stay small. :func:`worth_parallel` is the one
place that decides whether workers pay for themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Estimated work below which everything stays in one process, in units of
#: :attr:`~gecscope.metrics.base.Metric.relative_cost` per sentence (1 unit is about 40
#: microseconds): about 6 CPU-seconds, twice what a worker takes to start (Python, numpy,
#: spaCy).
PARALLEL_MIN = 150_000
#: ERRANT edit extraction of one sentence pair, in the same units (so annotation alone goes
#: to workers from 2,000 sentence pairs).
EDIT_COST = 75


def worth_parallel(jobs: int, work: float) -> bool:
    """Whether ``jobs`` workers pay for themselves on ``work`` (in the units of
    :data:`PARALLEL_MIN`): the one decision for scoring and for annotation."""
    return jobs > 1 and enough_work(work)


def enough_work(work: float) -> bool:
    """Whether ``work`` reaches :data:`PARALLEL_MIN` (what :func:`worth_parallel` asks of the
    work; a stream of shards stops reading ahead here)."""
    return work >= PARALLEL_MIN


class Serial:
    """This process: ``map`` is the built-in one (lazy, in order); nothing is sent anywhere."""

    remote = False
    workers = 1

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            in_flight: int | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task, in order."""
        return map(fn, tasks)


class Pool:
    """Spawned worker processes (:func:`gecscope.execution.pool.process_pool`: capped at the
    cores, dying with the driver, ignoring SIGINT); the workers keep their models (and spaCy's
    parses) from one ``map`` to the next."""

    remote = True

    def __init__(self, executor: Any) -> None:
        self.executor = executor
        self.workers: int = getattr(executor, "_max_workers", 1)

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            in_flight: int | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task on the workers, in order: all submitted at once, or
        with ``in_flight`` at most submitted and not yet yielded (a streamed input, read as
        the results are consumed: :func:`~gecscope.execution.pool.ordered_map`)."""
        from gecscope.execution.pool import ordered_map

        if in_flight is None:
            return self.executor.map(fn, tasks)
        return ordered_map(self.executor, fn, tasks, in_flight)


class Ray:
    """``actors`` Ray actors (:mod:`gecscope.execution.ray`), each started with
    ``initializer(*initargs)`` when a task first finds none idle and released at the end of
    the ``map`` call."""

    remote = True

    def __init__(self, actors: int, address: str | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        from gecscope.execution.ray import connect

        _, self.workers = connect(address, actors)  # capped (and warned about) once
        self.address = address
        self.initializer, self.initargs = initializer, initargs

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            in_flight: int | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task on the actors, in order, with at most ``in_flight``
        (default: all) sent and not yet yielded."""
        from gecscope.execution.ray import run_tasks

        return run_tasks(fn, tasks, actors=self.workers, address=self.address,
                         initializer=self.initializer, initargs=self.initargs,
                         in_flight=in_flight)


Executor = Serial | Pool | Ray

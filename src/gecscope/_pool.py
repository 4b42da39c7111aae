"""Worker processes: how many, a pool that fails loudly instead of hanging, and the scoring
task that process-pool workers and Ray actors run alike."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
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



def score_task(data: Any, metrics: Sequence[Any], hyps: Sequence[Any],
               task: tuple[int, int, Any]) -> tuple[int, int, Any]:
    """One scoring task ``(metric, system, edits or None)`` in a worker (process or Ray
    actor): the system's edits, extracted elsewhere, are stored first; returns
    ``(metric, system, SystemResult)``."""
    m, h, edits = task
    hyp = hyps[h]
    if edits is not None:
        data.set_hypothesis_m2(hyp, edits)
    return m, h, metrics[m].evaluate(data, hyp)

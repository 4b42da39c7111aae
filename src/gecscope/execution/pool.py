"""Worker processes: how many, a pool that fails loudly instead of hanging, and the scoring
task that process-pool workers and Ray actors run alike.

Workers live no longer than their driver: on Linux each asks the kernel to kill it when the
driver dies (``prctl(PR_SET_PDEATHSIG)``, immediate even when the driver is SIGKILLed, and
independent of what the worker is doing); elsewhere a watchdog thread checks every second
that its parent is still the driver. Workers ignore SIGINT: Ctrl-C reaches every process of
the terminal's group, and only the driver answers it (one message, exit 130), ending its
workers itself, even when it arrives while the workers are being launched."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool as BrokenPool
from contextlib import contextmanager
from typing import Any

#: ``--jobs`` above this is refused as a mistake (a typo, not a machine): no machine or Ray
#: cluster this runs on has that many cores; values up to it are capped at what is available.
MAX_JOBS = 10_000


def default_jobs() -> int:
    """The cores this process may use (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def capped_jobs(jobs: int, available: int, what: str = "worker processes",
                where: str = "cores this process may use") -> int:
    """``jobs`` (``0``: all) at most ``available``, with a warning on stderr when more were
    asked for: more workers than cores only add memory (each loads its own models) and
    switching, never speed."""
    available = max(1, available)
    if jobs > available:
        print(f"gecscope: warning: --jobs {jobs} is more than the {available} {where}; "
              f"using {available} {what}", file=sys.stderr)
        return available
    return jobs or available


def _watch_parent(parent: int) -> None:
    """Kill this worker when ``parent`` (the driver) is gone (see the module docstring)."""
    import signal

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # the driver died before the request was made
                    os._exit(1)
                return
        except (OSError, AttributeError):  # pragma: no cover - no usable libc: the thread below
            pass
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="gecscope-parent-watch", daemon=True).start()


#: initializer arguments that pickle to more than this go to the workers through a file
#: (:func:`_payload`): a spawned worker reads its arguments from a pipe only once its own
#: interpreter is up, so the driver would wait for each worker's start in turn
INLINE_INITARGS = 32 * 1024


class WorkerStartError(RuntimeError):
    """A worker could not read the arguments the driver left for it (the pool then breaks,
    and the caller does the work in its own process)."""


def _payload(initargs: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``initargs`` pickled once into a private temporary file, as ``(path, size, sha256)``
    for :func:`_read_payload`; None when they are small enough to travel inline. One
    pickling for every worker, and the launch does not block on any worker's start."""
    import hashlib
    import tempfile
    from multiprocessing.reduction import ForkingPickler

    blob = bytes(ForkingPickler.dumps(initargs))
    if len(blob) <= INLINE_INITARGS:
        return None
    fd, path = tempfile.mkstemp(prefix="gecscope-workers-", suffix=".pickle")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(blob)
    except BaseException:
        os.unlink(path)
        raise
    return path, len(blob), hashlib.sha256(blob).hexdigest()


def _read_payload(path: str, size: int, digest: str) -> tuple[Any, ...]:
    """The initializer arguments of :func:`_payload`, refused unless the file holds exactly
    the bytes the driver wrote (a file truncated, replaced or changed meanwhile)."""
    import hashlib
    import pickle

    try:
        with open(path, "rb") as src:
            blob = src.read(size + 1)
    except OSError as exc:
        raise WorkerStartError(f"cannot read the workers' start-up data {path}: {exc}") from exc
    if len(blob) != size or hashlib.sha256(blob).hexdigest() != digest:
        raise WorkerStartError(f"the workers' start-up data {path} is not what the driver "
                               f"wrote ({len(blob)} bytes, expected {size} with its checksum)")
    args: tuple[Any, ...] = pickle.loads(blob)
    return args


def _start_worker(parent: int, initializer: Callable[..., None] | None,
                  initargs: tuple[Any, ...], payload: tuple[Any, ...] | None = None) -> None:
    """Every worker's start: ignore SIGINT (the driver answers Ctrl-C), die with the driver,
    then the caller's ``initializer`` (its arguments read from ``payload`` when they were
    left in a file, :func:`_payload`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # discards a Ctrl-C pending since the launch
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by _launch
    _watch_parent(parent)
    if payload is not None:
        initargs = _read_payload(*payload)
    if initializer is not None:
        initializer(*initargs)


def _end_workers(pool: Any) -> None:
    """Stop ``pool``'s workers now, running tasks included (the driver is interrupted or
    failed: nobody will read their results)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        try:
            process.kill()
        except (OSError, ValueError, AttributeError):  # already gone
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.join(5)
        except (OSError, ValueError, AssertionError):
            pass


def _launch(pool: Any) -> None:
    """Start ``pool``'s workers now, with SIGINT blocked from their first instruction (a
    signal mask is inherited and kept across exec) until their initializer ignores it, so a
    Ctrl-C while they import gives no traceback from them. The driver blocks SIGINT meanwhile
    (the mask its workers inherit) and records any that arrives (in another thread, or pending
    when unblocked) instead of losing it: once the workers are launched and the previous
    handler is back, a recorded Ctrl-C is raised again, so it interrupts the run as it would
    have without the pool. Without the executor's launcher (another Python), the workers
    start on the first task and ignore SIGINT from their initializer."""
    import signal
    import threading

    launch = getattr(pool, "_launch_processes", None)
    if launch is None or threading.current_thread() is not threading.main_thread():
        return
    masks = hasattr(signal, "pthread_sigmask")
    if masks:
        # the resource tracker's own start unblocks SIGINT: have it running before the window
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    pending: list[int] = []

    def record(signum: int, frame: Any) -> None:
        pending.append(signum)

    previous = signal.signal(signal.SIGINT, record)
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masks else None
        try:
            launch()
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending SIGINT: record()
    finally:
        # signal.signal runs the handlers of signals already caught before it replaces one
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
    if pending:
        signal.raise_signal(signal.SIGINT)  # the previous handler's answer (KeyboardInterrupt)


@contextmanager
def process_pool(jobs: int, tasks: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> Iterator[Any]:
    """A pool of ``min(jobs, tasks, cores)`` spawned processes (:func:`capped_jobs` warns when
    ``jobs`` is above the cores), or ``None`` (with a warning) when workers cannot start here,
    e.g. under ``python -`` where the main module cannot be re-imported; callers then do the
    work in this process. Unlike ``multiprocessing.Pool``, which restarts failing workers
    forever, a broken pool ends the run of the pool. When the block is left by an exception
    (Ctrl-C, SIGTERM, an error) the workers are killed at once rather than awaited."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.exists(path):
        print(f"gecscope: warning: worker processes cannot re-import the main module {path!r}; "
              "running in one process", file=sys.stderr)
        yield None
        return
    workers = max(1, min(capped_jobs(jobs, default_jobs()), tasks))
    ctx = multiprocessing.get_context("spawn")  # no inherited threads or model state
    payload = _payload(initargs) if initializer is not None and initargs else None
    try:
        pool = ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_start_worker,
            initargs=(os.getpid(), initializer, () if payload else initargs, payload))
        try:
            _launch(pool)
            yield pool
        except BrokenPool as exc:
            _end_workers(pool)
            print(f"gecscope: warning: worker processes failed ({exc}); running in one "
                  "process", file=sys.stderr)
        except BaseException:
            _end_workers(pool)
            raise
        else:
            pool.shutdown(wait=True)
    finally:
        if payload is not None:
            try:
                os.unlink(payload[0])
            except OSError:  # pragma: no cover - removed by someone else
                pass


#: Tasks a streaming run keeps submitted ahead of the one it waits for, per worker: enough
#: that no worker waits while the driver writes results, few enough to bound memory.
IN_FLIGHT = 4


def ordered_map(executor: Any, fn: Callable[[Any], Any], items: Iterable[Any],
                in_flight: int) -> Iterator[Any]:
    """``fn(item)`` for every item on ``executor``, results in input order, with at most
    ``in_flight`` items submitted and not yet yielded (``executor.map`` would read a streamed
    input to its end first). When reading the input fails, the results of the items already
    submitted are yielded before the error is raised (a resumable run keeps their output);
    an interrupt (Ctrl-C, SIGTERM) while reading is raised at once.
    ``in_flight`` is at most :data:`IN_FLIGHT` per worker the executor really has (a
    ``--jobs`` above the cores would otherwise read that many more tasks ahead)."""
    from collections import deque

    workers = getattr(executor, "_max_workers", None)
    if isinstance(workers, int) and workers > 0:
        in_flight = min(in_flight, IN_FLIGHT * workers)
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
                except Exception as exc:  # noqa: BLE001 - raised once the submitted are delivered
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
#: None). A range that is the whole corpus is scored whole (:meth:`Metric.result`).
Task = tuple[int, int, int, int, Any]


def plan_ranges(n: int, metrics: Sequence[Any], systems: int,
                workers: int) -> list[tuple[int, int, int, int]]:
    """``(metric, system, start, stop)`` of every scoring task: each (metric, system) whole,
    or, for metrics with :attr:`~gecscope.metrics.base.Metric.sentence_ranges`, cut into
    ranges of at most :data:`RANGE_MAX` sentences, two per worker when the corpus allows (not
    below :data:`RANGE_MIN`), the same ranges for every system: :func:`bundles` then sends a
    range of every system to one worker. The costliest tasks come first
    (:attr:`~gecscope.metrics.base.Metric.relative_cost` x sentences), so no worker is left
    with a long task at the end."""
    import math

    plan: list[tuple[int, int, int, int]] = []
    for m, metric in enumerate(metrics):
        pieces = 1
        if metric.sentence_ranges and n:
            pieces = max(math.ceil(n / RANGE_MAX), min(2 * workers, math.ceil(n / RANGE_MIN)))
        bounds = [n * k // pieces for k in range(pieces + 1)]
        plan.extend((m, h, a, b) for h in range(systems)
                    for a, b in itertools.pairwise(bounds) if a < b or n == 0)
    plan.sort(key=lambda t: -metrics[t[0]].relative_cost * (t[3] - t[2]))  # stable
    return plan


def bundles(plan: Sequence[tuple[int, int, int, int]], metrics: Sequence[Any],
            workers: int) -> list[list[int]]:
    """The tasks of ``plan`` (indices) in the groups sent to workers, costliest first: the
    tasks of a ranged metric (:attr:`~gecscope.metrics.base.Metric.sentence_ranges`) that
    share a range go together, so one worker scores every system on those sentences and
    builds what the metric keeps per sentence (the I-measure's pieces, CLEME's chunks, the
    parse of the references) once, not once per worker; other tasks go alone. Groups are
    halved, largest first, until every worker can have two."""
    groups: dict[tuple[int, int, int, int], list[int]] = {}
    for i, (m, h, a, b) in enumerate(plan):
        key = (m, a, b, -1) if metrics[m].sentence_ranges else (m, a, b, h)
        groups.setdefault(key, []).append(i)
    out = list(groups.values())

    def cost(group: list[int]) -> float:
        return sum(metrics[plan[i][0]].relative_cost * max(1, plan[i][3] - plan[i][2])
                   for i in group)

    while len(out) < 2 * workers and any(len(g) > 1 for g in out):
        big = max((g for g in out if len(g) > 1), key=cost)
        k = out.index(big)
        out[k:k + 1] = [big[:len(big) // 2], big[len(big) // 2:]]
    out.sort(key=lambda g: -cost(g))  # stable
    return out


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
        return m, h, start, metric.result(data, hyp)  # inputs checked by the plan
    part = parts.get((start, stop))
    if part is None:
        part = parts[start, stop] = data.subset(start, stop)
    sub = hyp.subset(start, stop)
    if edits is not None:
        part.set_hypothesis_m2(sub, edits)
    return m, h, start, metric.range_stats(data, part, sub, start)

"""The Ray backend (``--backend ray``): annotation and scoring on a Ray cluster.

Work goes to a pool of stateful actors (:class:`ray.util.ActorPool`): each actor loads spaCy
(and any metric's model) once and keeps it for every task it is given. Tasks are the same as
those of the local process pool (:mod:`gecscope.parallel`): shards of sentence pairs for
annotation, (metric, system) pairs for scoring; results come back in input order, so the
output is identical to a single process's. The driver streams the input shard by shard and
keeps at most two tasks per actor in flight, so its memory does not grow with the corpus.

``address`` is ``None`` (start a local Ray instance with ``actors`` CPUs), ``"auto"`` (the
cluster this machine belongs to, e.g. after ``ray start --head``) or ``HOST:PORT``. On an
existing cluster every node needs gecscope and its spaCy model installed, or a runtime
environment that installs them (see docs/scale.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from gecscope._optional import require
from gecscope.errors import ConfigError


def connect(address: str | None, actors: int) -> tuple[Any, int]:
    """``ray``, initialised (joins ``address`` or starts a local instance), and the number of
    actors to use: ``actors``, or with ``0`` one per CPU of the cluster."""
    ray = require("ray", "ray", "the Ray backend")
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address is None:
            from gecscope._pool import default_jobs

            kwargs["num_cpus"] = actors or default_jobs()
        else:
            kwargs["address"] = address
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ConfigError(f"cannot connect to the Ray cluster at {address or 'local'}: "
                              f"{exc}") from None
    if not actors:
        actors = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ray, actors


class _Annotator:
    """A Ray actor: an ERRANT annotator (spaCy loaded once) for shards of sentence pairs."""

    def __init__(self, lev: bool, merge: str) -> None:
        from gecscope.alignment.errant import ErrantAnnotator

        self.annotator = ErrantAnnotator(lev=lev, merge=merge)

    def annotate(self, job: tuple[str, Any]) -> Any:
        """``("m2", shard)``: the shard's M2 text; ``("sentences", shard)``: its annotated
        sentences; ``("echo", text)``: the text (a shard reused from an earlier run, passed
        through to keep the order)."""
        from gecscope.formats.m2 import format_sentence

        kind, payload = job
        if kind == "echo":
            return payload
        sources, corrections = payload
        corpus = self.annotator.annotate_corpus(sources, corrections)
        if kind == "sentences":
            return corpus.sentences
        return "".join(format_sentence(s) for s in corpus)


class _Scorer:
    """A Ray actor holding the references, metrics and systems of one evaluation."""

    def __init__(self, data: Any, metrics: list[Any], hyps: list[Any]) -> None:
        self.data, self.metrics, self.hyps = data, metrics, hyps

    def score(self, task: tuple[int, int, Any]) -> tuple[int, int, Any]:
        from gecscope._pool import score_task

        return score_task(self.data, self.metrics, self.hyps, task)


def _ordered(ray: Any, actors: list[Any], method: str, items: Iterable[Any],
             in_flight: int) -> Iterator[Any]:
    """Results of ``actor.method(item)`` in input order, at most ``in_flight`` tasks ahead of
    the consumer (a streaming input). When reading the input fails, the tasks already sent
    are still delivered before the error (so a resumable run keeps their shards); the actors
    are released in every case."""
    from ray.util import ActorPool

    pool = ActorPool(actors)
    pending = 0
    try:
        it = iter(items)
        while True:
            try:
                item = next(it)
            except StopIteration:
                break
            except BaseException:
                while pending:
                    yield pool.get_next()
                    pending -= 1
                raise
            pool.submit(lambda actor, v: getattr(actor, method).remote(v), item)
            pending += 1
            if pending >= in_flight:
                yield pool.get_next()
                pending -= 1
        while pending:
            yield pool.get_next()
            pending -= 1
    finally:
        for actor in actors:
            ray.kill(actor)


def annotate_jobs(jobs: Iterable[tuple[str, Any]], *, actors: int, address: str | None = None,
                  lev: bool = False, merge: str = "rules") -> Iterator[Any]:
    """The result of each job (see :meth:`_Annotator.annotate`), in order, from ``actors``
    Ray actors."""
    ray, actors = connect(address, actors)
    cls = ray.remote(num_cpus=1)(_Annotator)
    pool = [cls.remote(lev, merge) for _ in range(actors)]
    yield from _ordered(ray, pool, "annotate", jobs, 2 * actors)


def score_tasks(data: Any, metrics: Sequence[Any], hyps: Sequence[Any],
                tasks: Sequence[tuple[int, int, Any]], *, actors: int,
                address: str | None = None) -> Iterator[tuple[int, int, Any]]:
    """``(metric, system, SystemResult)`` of every task, in order, on ``actors`` Ray actors."""
    ray, actors = connect(address, actors)
    cls = ray.remote(num_cpus=1)(_Scorer)
    ref = ray.put(data)
    pool = [cls.remote(ref, list(metrics), list(hyps)) for _ in range(min(actors, len(tasks)))]
    yield from _ordered(ray, pool, "score", tasks, 2 * actors)

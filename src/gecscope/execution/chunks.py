"""ERRANT annotation on several workers: a corpus cut into chunks of sentence pairs, jobs
that worker processes and Ray actors run alike (:func:`run_job`), and the results put back in
input order, identical to one process's (:func:`annotate_parallel`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from gecscope.alignment.errant import ErrantAnnotator, process_annotator
from gecscope.errors import LengthMismatchError
from gecscope.types import Corpus, Sentence, Slot, Tokens

if TYPE_CHECKING:
    from gecscope.execution.executors import Executor

T = TypeVar("T")

CHUNK = 500  # sentence pairs per task: small enough to balance, large enough to batch the parser

#: ERRANT's types of the reference M2's edits, spans and corrections kept (``errant_m2 -gold
#: -no_min``, :meth:`ErrantAnnotator.retype_corpus`), computed on the workers of an
#: evaluation that will report per-type tables against references of another scheme
#: (:func:`retype_parallel`), so the report does not parse them again in one process.
RETYPED_REFERENCE: Slot[Corpus] = Slot(__name__, "RETYPED_REFERENCE")


def run_job(annotator: ErrantAnnotator, job: tuple[str, Any]) -> Any:
    """One job of a worker or Ray actor: ``("m2", (sources, corrections))`` gives the chunk's
    M2 text, ``"m2-sentences"`` its sentences' M2 one by one, ``"sentences"`` the annotated
    sentences themselves; ``("retype", corpus)`` the gold sentences re-typed, spans kept;
    ``("echo", text)`` gives ``text`` back. M2 is written by the worker
    (the driver only joins texts: it shares the cores with the workers)."""
    from gecscope.formats.m2 import format_sentence

    kind, payload = job
    if kind == "echo":
        return payload
    if kind == "retype":  # a gold M2 chunk, its edits classified (errant_m2 -gold -no_min)
        return annotator.retype_corpus(payload, auto=False, minimise=False).sentences
    corpus = annotator.annotate_corpus(*payload)
    if kind == "sentences":
        return corpus.sentences
    texts = [format_sentence(s) for s in corpus]
    return texts if kind == "m2-sentences" else "".join(texts)


def pool_job(task: tuple[bool, str, tuple[str, Any]]) -> Any:
    """:func:`run_job` in a worker process (its annotator loaded once per process)."""
    lev, merge, job = task
    return run_job(process_annotator(lev, merge), job)


def chunks(sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]]
           ) -> Iterator[tuple[list[Tokens], list[list[Tokens]]]]:
    """The corpus cut into tasks of about :data:`CHUNK` sentence pairs, in order."""
    size = max(1, CHUNK // max(1, len(corrections)))
    for a in range(0, len(sources), size):
        yield list(sources[a:a + size]), [list(c[a:a + size]) for c in corrections]


def grouped_order(sources: Sequence[Tokens]) -> list[int] | None:
    """The sentence indices with every recurring source gathered at its first occurrence
    (stable), or ``None`` when no source recurs. One process reuses a recurring source's
    parse from its cache; sent to workers in input order, the occurrences could land in
    different workers, each parsing it (CoNLL-2014's outputs of several systems, one after
    the other, cost 20% more CPU on two workers that way)."""
    first: dict[Tokens, int] = {}
    keys = [first.setdefault(tuple(s), i) for i, s in enumerate(sources)]
    if len(first) == len(keys):
        return None
    return sorted(range(len(keys)), key=keys.__getitem__)


def ungrouped(items: Sequence[T], order: Sequence[int]) -> list[T]:
    """``items`` annotated in :func:`grouped_order` ``order``, put back in input order."""
    out = list(items)
    for j, i in enumerate(order):
        out[i] = items[j]
    return out


def worker_chunks(sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]]
                  ) -> tuple[list[int] | None, list[tuple[list[Tokens], list[list[Tokens]]]]]:
    """The sentence pairs cut into workers' jobs (:func:`chunks`), every recurring source's
    pairs gathered first (:func:`grouped_order`, so one worker parses it), and the order they
    were gathered in (``None``: input order), to put the results back with :func:`ungrouped`."""
    order = grouped_order(sources)
    if order is not None:
        sources = [sources[i] for i in order]
        corrections = [[c[i] for i in order] for c in corrections]
    return order, list(chunks(sources, corrections))


def annotate_parallel(sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]], *,
                      jobs: int, lev: bool = False, merge: str = "rules",
                      progress: Callable[[int], None] | None = None,
                      executor: Executor | None = None) -> Corpus:
    """:meth:`ErrantAnnotator.annotate_corpus` on ``jobs`` worker processes, or on
    ``executor`` (the workers of :mod:`gecscope.execution.plan`, which then keep their
    parses for scoring; Ray actors); sentences go out in chunks and come back in input order,
    so the output is identical to one process's. In this process when workers do not pay
    (:func:`~gecscope.execution.executors.worth_parallel`, :data:`EDIT_COST` per pair)."""
    from gecscope.execution.executors import EDIT_COST, Pool, Ray, Serial, worth_parallel
    from gecscope.execution.pool import BrokenPool, process_pool

    n = len(sources)
    work = n * max(1, len(corrections)) * EDIT_COST
    workers = jobs if executor is None else executor.workers
    if isinstance(executor, Serial) or (not isinstance(executor, Ray)  # Ray: always there
                                        and not worth_parallel(workers, work)):
        return process_annotator(lev, merge).annotate_corpus(sources, corrections,
                                                             progress=progress)
    for k, cor in enumerate(corrections):  # before cutting into chunks (annotate_corpus's check)
        if len(cor) != n:
            raise LengthMismatchError(n, len(cor), f"correction #{k + 1}")
    order, pieces = worker_chunks(sources, corrections)
    tasks = [(lev, merge, ("sentences", piece)) for piece in pieces]
    out: list[Sentence] = []
    done = 0  # jobs whose sentences are in out

    def run(on: Executor) -> None:
        nonlocal done
        for sentences in on.map(pool_job, tasks):  # in input order
            out.extend(sentences)
            done += 1
            if progress is not None:
                progress(len(sentences))

    if executor is not None:
        try:
            run(executor)
        except BrokenPool:
            pass
    else:
        with process_pool(jobs, len(tasks)) as pool:
            if pool is not None:
                run(Pool(pool))
    for piece in pieces[done:]:  # the workers could not start or broke: here
        out.extend(process_annotator(lev, merge).annotate_corpus(*piece,
                                                                 progress=progress).sentences)
    return Corpus(tuple(out if order is None else ungrouped(out, order)))


def retype_parallel(corpus: Corpus, executor: Executor) -> Corpus:
    """``corpus``' edits re-typed with ERRANT, spans and corrections kept, as
    ``shared_annotator().retype_corpus(corpus, auto=False, minimise=False)`` gives them (each
    sentence is re-typed on its own), on ``executor``'s workers in chunks of :data:`CHUNK`
    sentences; the chunks a broken pool did not return are re-typed here."""
    return start_retype(corpus, executor)()


def start_retype(corpus: Corpus, executor: Executor) -> Callable[[], Corpus]:
    """:func:`retype_parallel` in two steps: its chunks are submitted to ``executor`` now
    (with a pool, all at once), and the returned function collects them (re-typing here what
    a broken pool did not return). Work submitted in between queues behind the chunks, so
    the workers go on to it without waiting for the driver to collect."""
    from gecscope.execution.pool import BrokenPool

    pieces = [Corpus(corpus.sentences[a:a + CHUNK], corpus.path)
              for a in range(0, len(corpus), CHUNK)]
    results = executor.map(pool_job, [(False, "rules", ("retype", piece)) for piece in pieces])

    def collect() -> Corpus:
        out: list[Sentence] = []
        done = 0
        try:
            for sentences in results:
                out.extend(sentences)
                done += 1
        except BrokenPool:
            pass
        for piece in pieces[done:]:
            out.extend(run_job(process_annotator(), ("retype", piece)))
        return Corpus(tuple(out), corpus.path)

    return collect

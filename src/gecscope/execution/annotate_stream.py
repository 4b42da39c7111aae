"""ERRANT annotation of corpora larger than memory, resumable after an interruption.

The parallel files are read ``shard_size`` lines at a time (:func:`~gecscope.formats.plain.
iter_token_shards`), each shard is annotated and its M2 text streamed into the output, which
is written atomically: an interrupted run leaves no partial output. Peak memory depends on the
shard size and the annotator's bounded caches, not on the corpus size.

With several workers (a process pool kept for the whole run, or Ray actors) the shards flow
through one pipeline: each is cut into jobs (:func:`shard_jobs`), a few jobs per worker are
kept submitted ahead (so no worker waits at a shard's end or while the driver writes), the
workers write the M2 and the driver joins it in order (:func:`assembled`).

With a ``resume_dir`` every finished shard is also kept there as ``shard-<n>-<digest>.m2``,
where the digest covers the shard's input lines and the options. The file's first line is a
check record (:mod:`gecscope.execution.resume`): the shard's number and input lines, the
digest of its input and the SHA-256 of the M2 text that follows. A rerun reuses a shard only
when its file passes that check (so a shard is never annotated twice, a changed input or
option is annotated afresh, and a part cut short, edited or saved under another shard's name
is annotated again, with a note, never copied in), and deletes the folder after the output
is complete.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gecscope.execution.resume import (
    PartCheck,
    annotation_options,
    make_resume_folder,
    note_warning,
    read_part,
    shard_digest,
    write_part,
)
from gecscope.formats.base import PathLike, atomic_write
from gecscope.types import Tokens

SHARD_SIZE = 10_000  # sentences per shard: a few seconds of work, a few MB of M2


def count_lines(path: PathLike) -> int | None:
    """Lines of a regular file (a byte scan, for progress), or ``None`` for streams."""
    p = Path(path)
    if os.fspath(path) == "-" or not p.is_file():
        return None
    n = 0
    last = b"\n"
    with open(p, "rb") as fh:
        while chunk := fh.read(1 << 20):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (last != b"\n")


Part = tuple[Path, PartCheck]  # a shard's file in the resume folder, and its check
Planned = tuple[list[list[Tokens]], Part | None, str | None]  # input lines, part, reused M2


@dataclass
class _Shard:
    """A shard on its way through the workers: its input lines (every file, input order),
    the file that keeps it with ``--resume``, its M2 text when an earlier run finished it,
    the sentences of each job it was sent as and, when its sentences were regrouped by
    source, the order they were sent in."""

    lines: list[list[Tokens]]
    part: Part | None
    done: str | None
    sizes: list[int] = field(default_factory=list)  # sentences per job
    order: list[int] | None = None


def shard_jobs(shards: Iterable[Planned], pending: deque[_Shard]) -> Iterator[tuple[str, Any]]:
    """The jobs of every shard (:func:`~gecscope.execution.chunks.run_job`), each shard
    appended to ``pending``.

    A shard to annotate is cut into chunks (:func:`~gecscope.execution.chunks.worker_chunks`),
    so every worker has a part of every shard; a shard in which a source recurs is first
    regrouped by source (each recurring source parsed once, by one worker) and its sentences'
    M2 come back one by one, to be put back in input order. A shard finished by an earlier run is passed through (``echo``), so
    results keep their order."""
    from gecscope.execution.chunks import worker_chunks

    for lines, part, done in shards:
        if done is not None:
            pending.append(_Shard(lines, part, done, [len(lines[0])]))
            yield ("echo", done)
            continue
        order, pieces = worker_chunks(lines[0], lines[1:])
        pieces = pieces or [(lines[0], lines[1:])]
        pending.append(_Shard(lines, part, None, [len(p[0]) for p in pieces], order))
        kind = "m2" if order is None else "m2-sentences"
        for sources, corrections in pieces:
            yield (kind, (sources, corrections))


def assembled(results: Iterable[Any], pending: deque[_Shard],
              progress: Callable[[int], None] | None) -> Iterator[str]:
    """Each shard's M2 text from the results of its jobs (in job order), written to its
    ``--resume`` file when annotated now; a shard leaves ``pending`` once it is whole."""
    from gecscope.execution.chunks import ungrouped

    got: list[Any] = []
    for result in results:
        shard = pending[0]
        if progress is not None:
            progress(shard.sizes[len(got)])
        got.append(result)
        if len(got) < len(shard.sizes):
            continue
        if shard.done is not None:
            text = shard.done
        else:
            if shard.order is None:
                text = "".join(got)
            else:
                text = "".join(ungrouped([t for piece in got for t in piece], shard.order))
            if shard.part is not None:
                write_part(*shard.part, text)
        got = []
        pending.popleft()
        yield text


def annotate_here(lines: list[list[Tokens]], lev: bool, merge: str,
                  progress: Callable[[int], None] | None) -> str:
    """A shard's M2 text, annotated in this process."""
    from gecscope.alignment.errant import process_annotator
    from gecscope.formats.m2 import format_sentence

    corpus = process_annotator(lev, merge).annotate_corpus(lines[0], lines[1:],
                                                           progress=progress)
    return "".join(format_sentence(s) for s in corpus)


def annotate_stream(paths: Sequence[PathLike], output: PathLike, *, jobs: int,
                    lev: bool = False, merge: str = "rules", shard_size: int = SHARD_SIZE,
                    resume_dir: PathLike | None = None,
                    progress: Callable[[int], None] | None = None,
                    backend: str = "local", address: str | None = None,
                    note: Callable[[str], None] | None = None) -> tuple[int, int]:
    """Annotate ``paths[0]`` (sources) against the corrected files ``paths[1:]`` into the M2
    file ``output``; returns (sentences, shards reused from ``resume_dir``). ``backend="ray"``
    sends the shards to ``jobs`` Ray actors (:mod:`gecscope.execution.ray`) at ``address``.
    A kept shard that fails its check is annotated again and ``note`` (default: a warning)
    is told which file was discarded and why."""
    from gecscope.execution.chunks import pool_job
    from gecscope.execution.executors import EDIT_COST, Pool, Ray, enough_work, worth_parallel
    from gecscope.execution.pool import IN_FLIGHT, process_pool
    from gecscope.formats.plain import iter_token_shards

    if backend not in ("local", "ray"):
        from gecscope.errors import ConfigError

        raise ConfigError(f"backend must be local or ray, got {backend!r}")
    options = annotation_options(lev, merge, len(paths))
    folder = Path(resume_dir) if resume_dir is not None else None
    if folder is not None:
        make_resume_folder(folder)
    counts = {"sentences": 0, "reused": 0}
    tell = note or note_warning

    def plan() -> Iterator[Planned]:
        """Each shard, the file that keeps it (with ``resume_dir``) and its M2 text when a
        previous run finished it (and the file passes its check)."""
        for n, shard in enumerate(iter_token_shards(paths, shard_size)):
            first = counts["sentences"] + 1
            counts["sentences"] += len(shard[0])
            part: Part | None = None
            done = None
            if folder is not None:
                digest = shard_digest(shard, options)
                check = PartCheck(str(n), first, len(shard[0]), digest)
                part = (folder / f"shard-{n:06d}-{digest}.m2", check)
                done, why = read_part(*part)
                if why is not None:
                    tell(f"{part[0]}: discarded, {why}; annotating {check.where()} again")
                counts["reused"] += done is not None
            yield shard, part, done

    def texts() -> Iterator[str]:
        # the first shards, until they hold enough pairs to pay for worker processes
        shards = plan()
        head, pairs = [], 0
        failure: Exception | None = None
        try:
            for item in shards:
                head.append(item)
                if item[2] is None:
                    pairs += len(item[0][0]) * max(1, len(item[0]) - 1)
                if enough_work(pairs * EDIT_COST):
                    break
        except Exception as exc:  # noqa: BLE001 - an unreadable shard: raised after those before
            failure = exc

        def rest() -> Iterator[Planned]:
            if failure is not None:
                raise failure
            yield from shards

        stream = itertools.chain(head, rest())
        if worth_parallel(jobs, pairs * EDIT_COST):
            pending: deque[_Shard] = deque()
            with process_pool(jobs, jobs) as pool:
                if pool is not None:
                    tasks = ((lev, merge, job) for job in shard_jobs(stream, pending))
                    results = Pool(pool).map(pool_job, tasks, in_flight=IN_FLIGHT * jobs)
                    yield from assembled(results, pending, progress)
                    return
            # the workers could not start or one broke (process_pool warned): the shards
            # not yet written, and the rest, in this process
            stream = itertools.chain([(s.lines, s.part, s.done) for s in pending], stream)
        for shard, part, done in stream:
            if done is None:
                done = annotate_here(shard, lev, merge, progress)
                if part is not None:
                    write_part(*part, done)
            elif progress is not None:
                progress(len(shard[0]))
            yield done

    def ray_texts() -> Iterator[str]:
        actors = Ray(jobs, address)
        pending: deque[_Shard] = deque()
        tasks = ((lev, merge, job) for job in shard_jobs(plan(), pending))
        results = actors.map(pool_job, tasks, in_flight=IN_FLIGHT * actors.workers)
        yield from assembled(results, pending, progress)

    atomic_write(output, ray_texts() if backend == "ray" else texts())
    if folder is not None:
        for f in folder.glob("shard-*.m2"):
            try:
                f.unlink()
            except OSError:
                pass  # not a file of ours (a folder of that name): left, with the folder
        try:
            folder.rmdir()
        except OSError:
            pass  # the user's own files are in it: leave it
    return counts["sentences"], counts["reused"]

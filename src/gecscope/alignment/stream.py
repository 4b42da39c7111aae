"""ERRANT annotation of corpora larger than memory, resumable after an interruption.

The parallel files are read ``shard_size`` lines at a time (:func:`~gecscope.formats.plain.
iter_token_shards`), each shard is annotated (on the worker processes of one pool kept for the
whole run) and its M2 text streamed into the output, which is written atomically: an
interrupted run leaves no partial output. Peak memory depends on the shard size and the
annotator's bounded caches, not on the corpus size.

With a ``resume_dir`` every finished shard is also kept there as ``shard-<n>-<digest>.m2``,
where the digest covers the shard's input lines and the options. A rerun reuses every shard
whose digest still matches (so a shard is never annotated twice, and a changed input or option
is annotated afresh, never mixed in), and deletes the folder after the output is complete.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from gecscope.formats.base import PathLike, atomic_write
from gecscope.types import Tokens

SHARD_SIZE = 10_000  # sentences per shard: a few seconds of work, a few MB of M2


def shard_digest(shard: Sequence[Sequence[Tokens]], options: str) -> str:
    """Digest of a shard's input lines (every file) and the annotation options."""
    h = hashlib.sha256(options.encode("utf-8"))
    for lines in shard:
        h.update(b"\x1e")
        for toks in lines:
            h.update(" ".join(toks).encode("utf-8", "surrogatepass"))
            h.update(b"\n")
    return h.hexdigest()[:16]


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


def annotate_stream(paths: Sequence[PathLike], output: PathLike, *, jobs: int,
                    lev: bool = False, merge: str = "rules", shard_size: int = SHARD_SIZE,
                    resume_dir: PathLike | None = None,
                    progress: Callable[[int], None] | None = None,
                    backend: str = "local", address: str | None = None) -> tuple[int, int]:
    """Annotate ``paths[0]`` (sources) against the corrected files ``paths[1:]`` into the M2
    file ``output``; returns (sentences, shards reused from ``resume_dir``). ``backend="ray"``
    sends the shards to ``jobs`` Ray actors (:mod:`gecscope.ray_backend`) at ``address``."""
    from gecscope._pool import process_pool
    from gecscope.alignment.errant import PARALLEL_MIN, annotate_parallel, process_annotator
    from gecscope.formats.m2 import format_sentence
    from gecscope.formats.plain import iter_token_shards

    if backend not in ("local", "ray"):
        from gecscope.errors import ConfigError

        raise ConfigError(f"backend must be local or ray, got {backend!r}")
    options = f"errant-annotate-v1|lev={lev}|merge={merge}|files={len(paths)}"
    folder = Path(resume_dir) if resume_dir is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    counts = {"sentences": 0, "reused": 0}

    def plan() -> Iterator[tuple[list[list[Tokens]], Path | None, str | None]]:
        """Each shard, the file that keeps it (with ``resume_dir``) and its M2 text when a
        previous run finished it."""
        for n, shard in enumerate(iter_token_shards(paths, shard_size)):
            counts["sentences"] += len(shard[0])
            part = done = None
            if folder is not None:
                part = folder / f"shard-{n:06d}-{shard_digest(shard, options)}.m2"
                if part.is_file():
                    counts["reused"] += 1
                    done = part.read_text(encoding="utf-8")
            yield shard, part, done

    def texts() -> Iterator[str]:
        with ExitStack() as stack:
            pool: Any = None
            started = False  # a pool that cannot start is not asked for again
            for shard, part, done in plan():
                sources, corrections = shard[0], shard[1:]
                if done is not None:
                    if progress is not None:
                        progress(len(sources))
                    yield done
                    continue
                big = jobs > 1 and len(sources) * max(1, len(corrections)) >= PARALLEL_MIN
                if big and not started:
                    pool = stack.enter_context(process_pool(jobs, jobs))
                    started = True
                if big and pool is not None:
                    corpus = annotate_parallel(sources, corrections, jobs=jobs, lev=lev,
                                               merge=merge, progress=progress, pool=pool)
                else:
                    corpus = process_annotator(lev, merge).annotate_corpus(
                        sources, corrections, progress=progress)
                text = "".join(format_sentence(s) for s in corpus)
                if part is not None:
                    atomic_write(part, [text])
                yield text

    def ray_texts() -> Iterator[str]:
        from gecscope import ray_backend
        from gecscope.alignment.errant import chunks, grouped_order, ungrouped
        from gecscope.formats.m2 import format_sentence

        # per shard: (part file, sentences, annotated now, number of jobs, order); a shard to
        # annotate goes out in chunks (as with the process pool), so every actor works on
        # every shard; with a recurring source the shard is regrouped (as annotate_parallel
        # does), its sentences come back and are put back in input order here
        pending: list[tuple[Path | None, int, bool, int, list[int] | None]] = []

        def ray_jobs() -> Iterator[tuple[str, Any]]:
            for shard, part, done in plan():
                if done is not None:
                    pending.append((part, len(shard[0]), False, 1, None))
                    yield ("echo", done)
                    continue
                order = grouped_order(shard[0])
                if order is not None:
                    shard = [[c[i] for i in order] for c in shard]
                pieces = list(chunks(shard[0], shard[1:])) or [(shard[0], shard[1:])]
                pending.append((part, len(shard[0]), True, len(pieces), order))
                kind = "m2" if order is None else "sentences"
                for sources, corrections in pieces:
                    yield (kind, (sources, corrections))

        results = ray_backend.annotate_jobs(ray_jobs(), actors=jobs, address=address, lev=lev,
                                            merge=merge)
        n = 0
        texts: list[Any] = []
        for text in results:
            texts.append(text)
            part, size, fresh, n_jobs, order = pending[n]
            if len(texts) < n_jobs:
                continue
            if order is None:
                whole = "".join(texts)
            else:
                grouped = [s for piece in texts for s in piece]
                whole = "".join(format_sentence(s) for s in ungrouped(grouped, order))
            texts = []
            n += 1
            if fresh and part is not None:
                atomic_write(part, [whole])
            if progress is not None:
                progress(size)
            yield whole

    atomic_write(output, ray_texts() if backend == "ray" else texts())
    if folder is not None:
        for f in folder.glob("shard-*.m2"):
            f.unlink()
        try:
            folder.rmdir()
        except OSError:
            pass  # the user's own files are in it: leave it
    return counts["sentences"], counts["reused"]

"""``gecscope annotate``: source + corrected files -> M2 (like ``errant_parallel``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gecscope.cli._common import (
    add_backend_arguments,
    add_jobs_argument,
    add_language_arguments,
    add_output_argument,
    language_from_args,
)
from gecscope.errors import ConfigError
from gecscope.formats.m2 import write_m2
from gecscope.formats.plain import read_tokens
from gecscope.languages import Extractor, language


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "annotate", help="extract and classify edits into an M2 file",
        description="Align a source file with one or more corrected files (one sentence per "
                    "line, space-tokenised) and write the typed edits as M2. The default "
                    "extractor is ERRANT (output identical to errant_parallel); "
                    "'levenshtein' needs no spaCy.")
    p.add_argument("-s", "--source", "-orig", dest="source",
                   help="source (original) text file")
    p.add_argument("-c", "--cor", "-cor", dest="cor", nargs="+",
                   help="corrected text file(s); annotator ids follow their order")
    p.add_argument("--para", metavar="FILE",
                   help="instead of -s/-c: ChERRANT's parallel format, 'id<TAB>source<TAB>"
                        "target...' per line (any number of targets); with --lang zh the M2 "
                        "is ChERRANT's, T lines included (parallel_to_m2.py -g char)")
    p.add_argument("--retype", metavar="M2",
                   help="instead of -s/-c: re-annotate this gold M2 with ERRANT, as errant_m2 "
                        "-auto does (e.g. NUCLE-typed CoNLL-2014 gold, for per-type tables "
                        "against ERRANT-typed hypotheses)")
    p.add_argument("--gold", "-gold", action="store_true",
                   help="--retype: keep the annotators' spans and only classify them "
                        "(errant_m2 -gold)")
    p.add_argument("--no-min", "-no_min", dest="no_min", action="store_true",
                   help="--retype --gold: do not minimise spans (errant_m2 -no_min)")
    p.add_argument("--old-cats", "-old_cats", dest="old_cats", action="store_true",
                   help="--retype --gold: keep the old types (errant_m2 -old_cats)")
    add_output_argument(p, "output M2 file (errant's -out works too)", "--out", "-out",
                        required=True)
    p.add_argument("--extractor", choices=["errant", "levenshtein"], default="errant",
                   help="how edits are found and typed: errant (default; needs spaCy; the "
                        "edits and types of errant_parallel) or levenshtein (no spaCy; "
                        "token-level Levenshtein edits typed R/M/U:OTHER, :ORTH or :WO)")
    p.add_argument("--lev", "-lev", action="store_true",
                   help="ERRANT: plain Levenshtein alignment (errant_parallel -lev)")
    p.add_argument("--merge", "-merge", default="rules",
                   choices=["rules", "all-split", "all-merge", "all-equal"],
                   help="ERRANT merging strategy (default: rules)")
    add_jobs_argument(p, "ERRANT (inputs under 2,000 sentence pairs run in one process)")
    add_backend_arguments(p)
    add_language_arguments(p)
    p.add_argument("--resume", action="store_true",
                   help="keep each finished shard in OUTPUT.parts/ and, when rerun after an "
                        "interruption, reuse the shards whose input and options are unchanged "
                        "(a kept shard that fails its digest check is annotated again, with a "
                        "note)")
    p.add_argument("--shard-size", type=int, default=None, metavar="N",
                   help="sentences read, annotated and written at a time (default 10,000); "
                        "memory depends on this, not on the corpus size")
    p.add_argument("--sharded", action="store_true",
                   help="--backend ray: -s and -c are shard-file patterns (wildcards in the "
                        "file name; local paths or any file system Ray supports, e.g. "
                        "s3://bucket/src-*.txt), the k-th correction shard of each pattern "
                        "pairs with the k-th source shard (name order); --output is a folder "
                        "that receives one M2 per source shard, named after it. The actors "
                        "read and write the shards themselves (Ray Data); with --resume a "
                        "digest of each shard's input and M2 is kept in OUTPUT.parts/ and a "
                        "rerun skips the shards whose M2 still matches it")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import Progress

    t0 = time.perf_counter()
    if args.retype:
        return _retype(args, t0)
    lang = language_from_args(args)
    if args.para or not lang.is_default:
        return _other_language(args, lang, t0)
    if not args.source or not args.cor:
        raise ConfigError("give the source (-s) and the corrected file(s) (-c), or a gold M2 "
                          "to re-annotate (--retype)")
    if args.sharded:
        return _sharded(args, t0)
    if not _flag_extractor(args).pooled:  # --extractor levenshtein: light, one process
        from gecscope.alignment.levenshtein import annotate_corpus

        if args.resume or args.shard_size or args.backend != "local":
            raise ConfigError("--resume, --shard-size and --backend are for the ERRANT extractor")
        sources = read_tokens(args.source)
        cors = [read_tokens(c, expected=len(sources), expected_from=args.source)
                for c in args.cor]
        corpus = annotate_corpus(sources, cors, merge=args.merge != "all-split")
        write_m2(args.output, corpus)
        n, reused = len(corpus), 0
    else:
        from gecscope.execution.annotate_stream import SHARD_SIZE, annotate_stream, count_lines
        from gecscope.execution.pool import default_jobs

        size = SHARD_SIZE if args.shard_size is None else args.shard_size
        if size < 1:
            raise ConfigError(f"--shard-size must be at least 1, got {size}")
        resume = None
        if args.resume:
            if str(args.output) == "-" or not Path(args.output).parent.is_dir():
                raise ConfigError("--resume needs --output to be a file in an existing folder "
                                  "(finished shards are kept beside it)")
            resume = Path(f"{args.output}.parts")
        total = count_lines(args.source)
        progress = Progress(total or 0, "annotating", args.quiet or total is None,
                            unit="sentences")
        try:
            ray = args.backend == "ray"
            n, reused = annotate_stream([args.source, *args.cor], args.output,
                                        jobs=args.jobs if ray else args.jobs or default_jobs(),
                                        lev=args.lev, merge=args.merge, shard_size=size,
                                        resume_dir=resume, progress=progress,
                                        backend=args.backend, address=args.address,
                                        note=_note)
        finally:
            progress.close()
    if not args.quiet:
        again = f", {reused} shard(s) reused" if reused else ""
        print(f"wrote {args.output}: {n} sentences, {len(args.cor)} annotator(s) "
              f"in {time.perf_counter() - t0:.1f}s{again}", file=sys.stderr)
    return 0


def _flag_extractor(args: argparse.Namespace) -> Extractor:
    """The extractor ``--extractor`` names for English -s/-c files (ERRANT or Levenshtein)."""
    return language("en", extractor=args.extractor).edit_extractor


def _note(message: str) -> None:
    """A note on stderr (a kept shard discarded by ``--resume``), shown even with ``-q``,
    over the progress line on a terminal."""
    start = "\r\033[K" if sys.stderr.isatty() else ""
    print(f"{start}gecscope: note: {message}", file=sys.stderr)


def _sharded(args: argparse.Namespace, t0: float) -> int:
    """``--sharded``: shard files annotated where they are, on Ray Data (issue #17)."""
    from gecscope.cli._common import Progress
    from gecscope.execution import ray as ray_backend

    if args.backend != "ray" or not _flag_extractor(args).pooled or args.shard_size:
        raise ConfigError("--sharded needs --backend ray and the ERRANT extractor (shards are "
                          "the files themselves: no --shard-size)")
    output = str(args.output)
    if output == "-":
        raise ConfigError("--sharded writes a folder of M2 files: give --output a folder")
    rows = ray_backend.plan_shards(args.source, args.cor, output)
    progress = Progress(len(rows), "annotating", args.quiet, unit="shards")
    try:
        n, kept = ray_backend.annotate_shards(rows, output, actors=args.jobs,
                                              address=args.address, lev=args.lev,
                                              merge=args.merge, resume=args.resume,
                                              progress=progress, note=_note)
    finally:
        progress.close()
    if not args.quiet:
        again = f", {kept} shard(s) kept from an earlier run" if kept else ""
        print(f"wrote {len(rows)} M2 shard(s) to {output}: {n} sentences, {len(args.cor)} "
              f"annotator(s) in {time.perf_counter() - t0:.1f}s{again}", file=sys.stderr)
    return 0


def _retype(args: argparse.Namespace, t0: float) -> int:
    from gecscope.alignment.errant import ErrantAnnotator
    from gecscope.cli._common import Progress
    from gecscope.formats.m2 import read_m2

    if args.source or args.cor:
        raise ConfigError("--retype reads the sources from the M2: leave out -s and -c")
    if not _flag_extractor(args).errant:
        raise ConfigError("--retype re-annotates with ERRANT (--extractor errant)")
    corpus = read_m2(args.retype)
    progress = Progress(len(corpus), "re-annotating", args.quiet)
    out = ErrantAnnotator(lev=args.lev, merge=args.merge).retype_corpus(
        corpus, auto=not args.gold, minimise=not args.no_min, old_types=args.old_cats,
        progress=progress)
    progress.close()
    write_m2(args.output, out)
    if not args.quiet:
        print(f"wrote {args.output}: {len(out)} sentences re-annotated with ERRANT "
              f"({'gold spans' if args.gold else 'automatic edits'}) in "
              f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


def _other_language(args: argparse.Namespace, lang: Any, t0: float) -> int:
    """``--para`` input or a ``--lang`` other than English: the language's extractor, in one
    process (ChERRANT's M2, with its T lines, for Chinese)."""
    from gecscope.cli._common import Progress
    from gecscope.formats.base import atomic_write
    from gecscope.formats.m2 import format_sentence
    from gecscope.formats.parallel import read_parallel

    if args.resume or args.shard_size or args.backend != "local":
        raise ConfigError("--resume, --shard-size and --backend are for English ERRANT "
                          "annotation of -s/-c files")
    if args.para:
        if args.source or args.cor:
            raise ConfigError("give either --para FILE or -s/-c files, not both")
        rows = [(r.source, list(r.targets)) for r in read_parallel(args.para)]
    else:
        if not args.source or not args.cor:
            raise ConfigError("give the source (-s) and the corrected file(s) (-c), or --para")
        from gecscope.formats.plain import read_lines

        src = read_lines(args.source)
        cors = [read_lines(c, expected=len(src), expected_from=args.source) for c in args.cor]
        rows = [(s, [c[i] for c in cors]) for i, s in enumerate(src)]
    render: Callable[[tuple[str, list[str]]], str]
    if lang.edit_extractor.raw_text:  # ChERRANT: raw text in, its M2 with T lines out
        from gecscope.alignment.cherrant import CherrantAnnotator

        ann = lang.annotator()
        assert isinstance(ann, CherrantAnnotator)
        render = lambda row: ann.annotate(*row).m2()  # with ChERRANT's T lines
    else:
        from gecscope.languages import annotate_rows

        render = lambda row: format_sentence(annotate_rows(lang, [row])[0])
    progress = Progress(len(rows), "annotating", args.quiet, unit="sentences")

    def blocks() -> Iterator[str]:
        for row in rows:
            yield render(row)
            progress(1)

    try:
        atomic_write(args.output, blocks())
    finally:
        progress.close()
    if not args.quiet:
        print(f"wrote {args.output}: {len(rows)} sentences ({lang.describe()['edits']} edits, "
              f"--lang {lang.code}) in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0

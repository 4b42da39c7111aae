"""``gecscope annotate``: source + corrected files -> M2 (like ``errant_parallel``)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from gecscope.cli._common import add_output_argument
from gecscope.formats.m2 import write_m2
from gecscope.formats.plain import read_tokens


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "annotate", help="extract and classify edits into an M2 file",
        description="Align a source file with one or more corrected files (one sentence per "
                    "line, space-tokenised) and write the typed edits as M2. The default "
                    "extractor is ERRANT (output identical to errant_parallel); "
                    "'levenshtein' needs no spaCy.")
    p.add_argument("-s", "--source", "-orig", dest="source", required=True,
                   help="source (original) text file")
    p.add_argument("-c", "--cor", "-cor", dest="cor", nargs="+", required=True,
                   help="corrected text file(s); annotator ids follow their order")
    add_output_argument(p, "output M2 file (errant's -out works too)", "--out", "-out",
                        required=True)
    p.add_argument("--extractor", choices=["errant", "levenshtein"], default="errant")
    p.add_argument("--lev", "-lev", action="store_true",
                   help="ERRANT: plain Levenshtein alignment (errant_parallel -lev)")
    p.add_argument("--merge", "-merge", default="rules",
                   choices=["rules", "all-split", "all-merge", "all-equal"],
                   help="ERRANT merging strategy (default: rules)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import Progress

    t0 = time.perf_counter()
    sources = read_tokens(args.source)
    cors = [read_tokens(c, expected=len(sources), expected_from=args.source) for c in args.cor]
    if args.extractor == "levenshtein":
        from gecscope.alignment.levenshtein import annotate_corpus

        corpus = annotate_corpus(sources, cors, merge=args.merge != "all-split")
    else:
        from gecscope.alignment.errant import ErrantAnnotator

        progress = Progress(len(sources), "annotating", args.quiet)
        corpus = ErrantAnnotator(lev=args.lev, merge=args.merge).annotate_corpus(
            sources, cors, progress=progress)
        progress.close()
    write_m2(args.output, corpus)
    if not args.quiet:
        print(f"wrote {args.output}: {len(corpus)} sentences, {len(cors)} annotator(s) "
              f"in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0

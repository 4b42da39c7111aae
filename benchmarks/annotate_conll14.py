"""Benchmark: ERRANT annotation of the 13 CoNLL-2014 submissions against the source.

Compares gecscope's batched, cached annotator with errant's own per-file loop (what
``errant_parallel`` does, see _errant_baseline.py) in the same run, and checks that both
write identical M2. Usage::

    python benchmarks/annotate_conll14.py [--data ../shared/data] [--systems AMU CAMB ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock
from _errant_baseline import errant_parallel, load_baseline_annotator

from gecscope.meta_eval.benchmarks import GJG15_SYSTEMS

SYSTEMS = list(GJG15_SYSTEMS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[1].parent / "shared"
                                          / "data"))
    ap.add_argument("--systems", nargs="+", default=SYSTEMS)
    ap.add_argument("--skip-baseline", action="store_true")
    args = ap.parse_args()
    sub = Path(args.data) / "conll14" / "submissions"

    from gecscope.alignment.errant import ErrantAnnotator
    from gecscope.formats.m2 import iter_m2
    from gecscope.formats.plain import read_tokens

    with Clock() as load:
        ann = ErrantAnnotator()
    sources = read_tokens(sub / "INPUT")
    ours: dict[str, str] = {}
    with Clock() as mine:
        for s in args.systems:
            hyp = read_tokens(sub / s, expected=len(sources))
            ours[s] = "".join(iter_m2(ann.annotate_corpus(sources, [hyp])))
    n = len(sources) * len(args.systems)
    print(f"gecscope: {len(args.systems)} systems, {n} sentence pairs in {mine} "
          f"({n / mine.wall:.0f} sentences/s; model load {load}; "
          f"{len(ann._docs)} distinct sentences parsed)")
    if args.skip_baseline:
        return 0
    base = load_baseline_annotator()
    same = True
    with Clock() as theirs:
        for s in args.systems:
            expected = errant_parallel(base, sub / "INPUT", [sub / s])
            if expected != ours[s]:
                same = False
                print(f"  {s}: OUTPUT DIFFERS from errant's loop")
    print(f"errant per-file loop: {n} sentence pairs in {theirs} ({n / theirs.wall:.0f} "
          f"sentences/s)")
    print(f"speed-up: {theirs.wall / mine.wall:.1f}x wall, {theirs.cpu / mine.cpu:.1f}x CPU; "
          f"M2 output identical: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

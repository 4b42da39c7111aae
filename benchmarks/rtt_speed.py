"""Speed of the round-trip correction pipeline (prints its figures; see docs/rtt.md).

    python benchmarks/rtt_speed.py [--n 100] [--data ../shared/data/jfleg/dev]

Measures, on the first N JFLEG dev sentences: Apertium round trips per pivot (no cache, one
process per batch and direction), TERp alignment, lattice building + the six methods, and the
cost of one uncached round trip batch vs the cached lookup.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock


def main() -> int:
    from gecscope.formats.plain import read_tokens
    from gecscope.rtt.correct import CorrectorConfig, RoundTripCorrector
    from gecscope.rtt.lm import PocketSphinxLM
    from gecscope.rtt.methods import METHODS
    from gecscope.rtt.tokenize import detokenize, tokenize
    from gecscope.rtt.translator import ApertiumTranslator, CachedTranslator, RoundTripCache

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "jfleg" / "dev"))
    args = ap.parse_args()
    src = read_tokens(Path(args.data) / "dev.spellchecked.src")[: args.n]
    words = sum(len(s) for s in src)
    texts = [detokenize(s) for s in src]
    tr = ApertiumTranslator()
    pivots = tr.available_pivots()
    print(f"{len(src)} sentences, {words} tokens; pivots {', '.join(pivots)}")
    rts = {}
    for p in pivots:
        with Clock() as c:
            rts[p] = [tokenize(o) for o in tr.round_trip(texts, p)]
        print(f"apertium round trip {p}: {c} ({words / c.wall:.0f} tokens/s; CPU includes "
              "the Apertium processes)")
    with tempfile.TemporaryDirectory() as tmp:
        cached = CachedTranslator(tr, RoundTripCache(tmp))
        cached.cache.put_many(tr.name, pivots[0], list(zip(texts, [" ".join(r) for r in
                                                                  rts[pivots[0]]])))
        with Clock() as c:
            cached.round_trip(texts, pivots[0])
        print(f"cached lookup of {len(texts)} round trips: {c}")
    with Clock() as c:
        lm = PocketSphinxLM()
    print(f"load CMU trigram (pocketsphinx): {c}")
    corr = RoundTripCorrector(None, lm, CorrectorConfig(pivots=pivots, methods=METHODS))
    corr.aligner.word_relation("living", "life")  # load WordNet outside the timing
    with Clock() as c:
        aligns = [[corr.aligner.align(s, rts[p][k]) for p in pivots] for k, s in enumerate(src)]
    n_al = len(src) * len(pivots)
    print(f"TERp alignment: {n_al} pairs in {c} ({1000 * c.wall / n_al:.1f} ms/pair)")
    del aligns
    timings = {}
    for m in METHODS:
        c1 = RoundTripCorrector(None, lm, CorrectorConfig(pivots=pivots, methods=(m,)))
        c1.aligner = corr.aligner
        with Clock() as c:
            for k, s in enumerate(src):
                c1.correct_from_round_trips(s, {p: rts[p][k] for p in pivots})
        timings[m] = c
    for m, v in timings.items():
        print(f"align + lattice + {m}: {1000 * v.wall / len(src):.1f} ms/sentence wall, "
              f"{1000 * v.cpu / len(src):.1f} ms CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

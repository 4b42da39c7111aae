#!/usr/bin/env python
"""Inference speed of the shipped UCCA parser (sentences per second on this CPU).

Parses the JFLEG dev sources (754 sentences, 18.6 tokens on average) or, without the shared
data, a built-in set of sentences repeated; prints model load time, sentences/s for the whole
pipeline and for its parts (features: MiniLM + spaCy; scoring + CKY + passage building), with
CPU seconds beside wall time (the machine is shared; a speed must be checkable under load).

    python benchmarks/ucca_parser_speed.py [--jfleg ../shared/data/jfleg/dev/dev.src] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

FALLBACK = [
    "The dog chased the cat across the garden .",
    "I think we should go home now , before it rains .",
    "Highly recommended ! Great service and friendly staff .",
    "She said that the meeting had been moved to Friday morning .",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jfleg", default="../shared/data/jfleg/dev/dev.src")
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS threads (the parser's default: 1; 0: the BLAS default, one per core)")
    ap.add_argument("--limit", type=int, default=754)
    args = ap.parse_args()
    import threadpoolctl

    path = Path(args.jfleg)
    if path.is_file():
        sents = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        sents = [s.split() for s in FALLBACK] * 50
    sents = [s for s in sents if s][:args.limit]
    from gecscope._optional import blas_threads
    from gecscope.semantics.ucca_parser import UccaParser

    threads = args.threads or None
    t0, c0 = time.perf_counter(), time.process_time()
    parser = UccaParser(threads=threads)
    load, load_cpu = time.perf_counter() - t0, time.process_time() - c0
    parser.parse(sents[:16])  # warm-up
    n = len(sents)

    def timed(step):
        t0, c0 = time.perf_counter(), time.process_time()
        out = step()
        return out, time.perf_counter() - t0, time.process_time() - c0

    with blas_threads(threads):
        feats, t_feat, c_feat = timed(lambda: parser.featurizer(sents))
        used = max(p["num_threads"] for p in threadpoolctl.threadpool_info()
                   if p["user_api"] == "blas")
    _, t_score, c_score = timed(lambda: parser.predict_spans(feats))
    _, total, c_total = timed(lambda: parser.parse(sents))
    print(f"sentences: {n} ({sum(map(len, sents)) / n:.1f} tokens avg), BLAS threads: {used}")
    print(f"model load: {load:.1f}s wall, {load_cpu:.1f}s CPU")
    print(f"features (MiniLM + spaCy): {n / t_feat:.1f} sent/s ({c_feat:.1f}s CPU)")
    print(f"scoring + CKY: {n / t_score:.1f} sent/s ({c_score:.1f}s CPU)")
    print(f"end to end parse(): {n / total:.1f} sent/s ({total:.1f}s wall, {c_total:.1f}s CPU, "
          f"{n / c_total:.1f} sent per CPU-second)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

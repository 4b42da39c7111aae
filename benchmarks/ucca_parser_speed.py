#!/usr/bin/env python
"""Inference speed of the shipped UCCA parser (sentences per second on this CPU).

Parses the JFLEG dev sources (754 sentences, 18.6 tokens on average) or, without the shared
data, a built-in set of sentences repeated; prints model load time, sentences/s for the whole
pipeline and for its parts (features: MiniLM + spaCy; scoring + CKY + passage building).

    python benchmarks/ucca_parser_speed.py [--jfleg ../shared/data/jfleg/dev/dev.src] [--threads 2]
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
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch default)")
    ap.add_argument("--limit", type=int, default=754)
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    path = Path(args.jfleg)
    if path.is_file():
        sents = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        sents = [s.split() for s in FALLBACK] * 50
    sents = [s for s in sents if s][:args.limit]
    from gecscope.semantics.ucca_parser import UccaParser

    t0 = time.perf_counter()
    parser = UccaParser()
    load = time.perf_counter() - t0
    parser.parse(sents[:16])  # warm-up
    t0 = time.perf_counter()
    feats = parser.featurizer(sents)
    t_feat = time.perf_counter() - t0
    t0 = time.perf_counter()
    parser.predict_spans(feats)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    parser.parse(sents)
    total = time.perf_counter() - t0
    n = len(sents)
    print(f"sentences: {n} ({sum(map(len, sents)) / n:.1f} tokens avg), "
          f"torch threads: {torch.get_num_threads()}")
    print(f"model load: {load:.1f}s")
    print(f"features (MiniLM + spaCy): {n / t_feat:.1f} sent/s")
    print(f"scoring + CKY: {n / t_score:.1f} sent/s")
    print(f"end to end parse(): {n / total:.1f} sent/s ({total:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

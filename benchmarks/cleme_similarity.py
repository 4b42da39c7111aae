"""Speed of CLEME2.0 similarity weighting on CPU (sentences per second).

Scores the first N CoNLL-2014 sentences of one system (default AMU, N=200) with CLEME2.0,
similarity weighting, dependent assumption, on the bundled all-MiniLM-L6-v2 (or
``--model PATH``), and prints the time spent in the encoder part and the throughput.

    python benchmarks/cleme_similarity.py [--system AMU] [-n 200] [--model PATH] [--layer L]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.cleme import CLEME2Metric, similarity_scorer
from gecscope.metrics.cleme.metric import MODELS
from gecscope.types import Corpus

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14" / "errant"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--system", default="AMU")
    parser.add_argument("-n", type=int, default=200, help="number of sentences (default 200)")
    parser.add_argument("--model", default="", help="local HF model directory (default: bundled)")
    parser.add_argument("--layer", type=int, default=None)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    args = parser.parse_args(argv)
    if not (args.data / "references.m2").is_file():
        print(f"data not found: {args.data}/references.m2", file=sys.stderr)
        return 1
    refs = read_m2(args.data / "references.m2")
    hyp_corpus = read_m2(args.data / f"{args.system}.m2")
    n = min(args.n, len(refs))
    data = EvalData.from_m2(Corpus(refs.sentences[:n], str(args.data / "references.m2")))
    sub = Corpus(hyp_corpus.sentences[:n], hyp_corpus.path)
    hyp = Hypothesis(args.system, sub.hypotheses(), sub, hyp_corpus.path)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    metric = CLEME2Metric(weighting="similarity", sim_model=args.model, sim_layer=args.layer)
    t0 = time.perf_counter()
    scorer = similarity_scorer(metric.config, data.slot(MODELS, dict))
    load = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    stats = metric.sentence_stats(data, hyp)
    weigh, cpu = time.perf_counter() - t1, time.process_time() - c1
    score = metric.aggregate(stats)
    chunks = sum(len(g) for s in stats for r in s.refs if r.weights for g in r.weights)
    print(f"encoder {scorer.name} layer {scorer.layer}: loaded in {load:.1f} s")
    print(f"{n} sentences ({chunks} weighted chunk-reference pairs) in {weigh:.1f} s: "
          f"{n / weigh:.1f} sentences/s on CPU (wall clock); {cpu:.1f} s of CPU time, "
          f"{n / cpu:.1f} sentences per CPU-second (all threads)")
    print(f"CLEME2.0-sim dependent corpus Score on these sentences: {score.value:.4f} "
          f"(Hit {score.fields['Hit']:.4f}, Wrong {score.fields['Wrong']:.4f}, "
          f"Under {score.fields['Under']:.4f}, Over {score.fields['Over']:.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

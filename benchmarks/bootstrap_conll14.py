"""Resampling speed on CoNLL-2014: 1,000 bootstrap resamples of the 13 official systems.

Usage: python benchmarks/bootstrap_conll14.py [--data ../shared/data/conll14] [--samples 1000]
       [--slow-samples 20] [--m2]

Prints the time to score the 13 systems with ERRANT (from the ERRANT-typed M2 files of the CLEME
repository), to draw 1,000 bootstrap resamples of every system through the vectorised count path
(exact: the greedy best-reference choice is re-run on each resample), the same through the
generic ``aggregate`` path (timed on ``--slow-samples`` resamples and extrapolated), a full
``PairedTest`` ranking (bootstrap and approximate randomisation) and, with ``--m2``, the same
for the M2 scorer on the official submissions, with ``--cleme2`` for CLEME2.0 and with
``--gleu`` for GLEU.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.meta_eval.benchmarks import GJG15_SYSTEMS
from gecscope.stats.paired import PairedTest
from gecscope.stats.resample import bootstrap_indices, bootstrap_samples, make_rng

SYSTEMS = GJG15_SYSTEMS


def bench(label: str, metric, data: EvalData, hyps: list[Hypothesis], samples: int,
          slow_samples: int) -> None:
    with Clock() as score:
        results = [metric.evaluate(data, h) for h in hyps]
    idx = bootstrap_indices(len(data), samples, make_rng(12345))
    with Clock() as fast:
        for r in results:
            bootstrap_samples(metric, r.stats, indices=idx)
    with Clock() as slow:
        for r in results:
            bootstrap_samples(metric, r.stats, indices=idx[:slow_samples], fast=False)
    scale = samples / slow_samples
    with Clock() as rank:
        pt = PairedTest(metric, results, n_samples=samples, seed=12345)
        ranking = pt.ranking()
    with Clock() as ar:
        pt_ar = PairedTest(metric, results, n_samples=samples, seed=12345, test="ar")
        order = [row.system for row in ranking]
        for a, b in itertools.pairwise(order):
            pt_ar.compare(a, b)
    n = len(hyps)
    print(f"{label}: {n} systems x {len(data)} sentences")
    print(f"  scoring (per-sentence statistics)          {score}")
    print(f"  bootstrap, vectorised, {samples} x {n} systems  {fast}")
    print(f"  bootstrap, aggregate(), {samples} x {n} (extrapolated from {slow_samples}) "
          f"{slow.wall * scale:.1f}s wall, {slow.cpu * scale:.1f}s CPU")
    print(f"  PairedTest ranking (bootstrap, intervals)  {rank}")
    print(f"  approximate randomisation, {n - 1} adjacent pairs x {samples} {ar}")
    print("  ranking: " + ", ".join(f"{r.system}({r.cluster})" for r in ranking))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" /
                                          "data" / "conll14"))
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--slow-samples", type=int, default=20)
    ap.add_argument("--m2", action="store_true", help="also benchmark the M2 scorer")
    ap.add_argument("--cleme2", action="store_true", help="also benchmark CLEME2.0 (corpus, "
                    "unweighted)")
    ap.add_argument("--gleu", action="store_true", help="also benchmark GLEU (official M2's "
                    "two annotators as references, 500 reference draws)")
    args = ap.parse_args()
    base = Path(args.data)
    from gecscope.metrics.errant import ErrantMetric

    data = EvalData.from_m2(read_m2(base / "errant" / "references.m2"))
    hyps = [Hypothesis.from_file(base / "errant" / f"{s}.m2") for s in SYSTEMS]
    bench("errant (CLEME-repo ERRANT M2)", ErrantMetric(), data, hyps, args.samples,
          args.slow_samples)
    if args.cleme2:
        from gecscope.metrics.cleme import CLEME2Metric

        bench("cleme2 (corpus, dependent, unweighted)", CLEME2Metric(), data, hyps,
              args.samples, args.slow_samples)
    if args.m2:
        from gecscope.metrics.m2 import M2Metric

        data = EvalData((str(base / "official-2014.combined.m2"),))
        hyps = [Hypothesis.from_file(base / "submissions" / s, s) for s in SYSTEMS]
        bench("m2 (official-2014.combined.m2)", M2Metric(), data, hyps, args.samples,
              args.slow_samples)
    if args.gleu:
        from gecscope.metrics.gleu import GLEUMetric

        data = EvalData((str(base / "official-2014.combined.m2"),))
        hyps = [Hypothesis.from_file(base / "submissions" / s, s) for s in SYSTEMS]
        bench("gleu (official-2014.combined.m2 annotators as references)", GLEUMetric(), data,
              hyps, args.samples, min(args.slow_samples, 5))


if __name__ == "__main__":
    main()

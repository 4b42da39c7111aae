"""MaxMatch (M2) speed: the 13 CoNLL-2014 systems, and degenerate 500-token hypotheses.

    python benchmarks/m2_conll14.py [--data ../shared/data/conll14]

Prints the P/R/F0.5 table of every system against ``official-2014.combined.m2`` with the time
per system and in total (targets: all 13 in under 60 s), then the time to score single
sentences whose hypothesis is one word repeated 500 times (target: under 5 s), against a
median-length CoNLL-2014 sentence and against the longest one (227 tokens). Wall-clock and
CPU times are both printed: the machine is shared, and CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.meta_eval.benchmarks import GJG15_SYSTEMS
from gecscope.metrics.m2 import M2Metric

SYSTEMS = GJG15_SYSTEMS
DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"


def systems_table(directory: Path) -> tuple[float, float]:
    metric = M2Metric()
    w0, c0 = time.perf_counter(), time.process_time()
    data = EvalData((str(directory / "official-2014.combined.m2"),))
    print("| system | correct | proposed | gold | P | R | F0.5 | time (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in SYSTEMS:
        t = time.perf_counter()
        hyp = Hypothesis.from_file(directory / "submissions" / name, expected=len(data))
        s = metric.score(data, hyp)
        d = s.details
        print(f"| {name} | {d['correct']} | {d['proposed']} | {d['gold']} | "
              f"{s.fields['P'] * 100:.2f} | {s.fields['R'] * 100:.2f} | "
              f"{s.fields['F0.5'] * 100:.2f} | {time.perf_counter() - t:.2f} |")
    return time.perf_counter() - w0, time.process_time() - c0


def degenerate(directory: Path) -> None:
    corpus = read_m2(directory / "official-2014.combined.m2")
    lengths = sorted(len(s.source) for s in corpus)
    median = lengths[len(lengths) // 2]
    typical = next(s for s in corpus if len(s.source) == median and "the" in s.source)
    longest = max(corpus, key=lambda s: len(s.source))
    metric = M2Metric()
    print("\n| source tokens | hypothesis | annotators | proposed | wall (s) | CPU (s) |")
    print("|---:|---|---:|---:|---:|---:|")
    for sent in (typical, longest):
        for word in ("the", "zzz"):
            hyp = (word,) * 500
            w, c = time.perf_counter(), time.process_time()
            stats = metric.score_sentence(sent.source, hyp, sent)
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            print(f"| {len(sent.source)} | {word!r} x 500 | {len(stats.rows)} | "
                  f"{max(r.proposed for r in stats.rows)} | {wall:.2f} | {cpu:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    args = ap.parse_args()
    wall, cpu = systems_table(args.data)
    print(f"\nall 13 systems: {wall:.1f} s wall, {cpu:.1f} s CPU (target < 60 s)")
    degenerate(args.data)


if __name__ == "__main__":
    main()

"""GLEU on JFLEG: the official numbers of the unchanged source, and the time they take.

    python benchmarks/gleu_jfleg.py [--data ../shared/data/jfleg]

For dev and test: statistics once, then the 500-iteration corpus score with Python-2 draws
(published: 38.21 / 40.54), Python-3 draws (38.20 / 40.47) and the corrected variant.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.gleu import GLEUMetric

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "jfleg"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the jfleg data folder")
    args = ap.parse_args()
    print("| split | variant | draw | GLEU | std | 95% interval | stats (s CPU) | "
          "iterations (s CPU) |")
    print("|---|---|---|---:|---:|---|---:|---:|")
    for split in ("dev", "test"):
        d = args.data / split
        data = EvalData(tuple(str(d / f"{split}.ref{k}") for k in range(4)),
                        str(d / f"{split}.src"))
        hyp = Hypothesis.from_file(d / f"{split}.src", expected=len(data))
        for variant, draw in (("official", "py2"), ("official", "py3"), ("corrected", "py2")):
            metric = GLEUMetric(variant=variant, draw=draw)
            t0 = time.process_time()
            stats = metric.sentence_stats(data, hyp)
            t1 = time.process_time()
            s = metric.aggregate(stats)
            t2 = time.process_time()
            f = s.fields
            print(f"| {split} | {variant} | {draw} | {f['GLEU'] * 100:.2f} | "
                  f"{f['draws_std'] * 100:.2f} | {f['draws_ci_low'] * 100:.2f}-{f['draws_ci_high'] * 100:.2f} | "
                  f"{t1 - t0:.2f} | {t2 - t1:.2f} |")


if __name__ == "__main__":
    main()

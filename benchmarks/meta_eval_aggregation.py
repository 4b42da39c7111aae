"""Meta-evaluation vs gec-metrics 0.1.1 in full: system level (default and TrueSkill
aggregation) and sentence level, on SEEDA base and GJG15.

    python benchmarks/meta_eval_aggregation.py [--data ../shared/data] [--metrics green,charlen]

For each metric (GREEN, and gec-metrics' toy character-length metric), gec-metrics'
``MetaEvalSEEDA`` / ``MetaEvalGJG`` run in its reference venv (tests/gec_metrics_ref.py):
``corr_system(metric)`` (default aggregation: the corpus scores), ``corr_system(metric,
aggregation="trueskill")`` (TrueSkill over every sentence comparison: 25,806 on SEEDA base,
102,336 on GJG15) and ``corr_sentence(metric)``, against gecscope's runner on the same data
(``gecscope_meta_eval`` and ``differences`` of tests/unit/test_meta_eval_aggregation.py, which
runs the same comparison on samples). Prints every number with whether it is equal (system order,
win counts, TrueSkill scores and sentence-level accuracy/tau: bit for bit; corpus scores and
correlations: within 1e-12), and the CPU beside the wall time of each side (the machine is
shared; CPU is the steadier figure).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "unit")]

from _clock import Clock
from test_meta_eval_aggregation import differences, gec_metrics_meta_eval, gecscope_meta_eval

from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.metrics.green import GREENMetric

DEFAULT = HERE.parent.parent / "shared" / "data"
METRICS = {"green": GREENMetric, "charlen": CharLengthMetric}


def show(bench: str, ours: dict[str, Any]) -> None:
    """gecscope's numbers, one line each."""
    print(f"| {bench} corpus scores (default) | "
          + ", ".join(f"{x:.6f}" for x in ours["default_scores"]) + " |")
    for part, label in (("default_corr", "default"), ("corr", "TrueSkill")):
        for key, (pearson, spearman) in ours[part].items():
            print(f"| {bench} {label} {key} γ, ρ | {pearson:.6f}, {spearman:.6f} |")
    print(f"| {bench} TrueSkill scores | " + ", ".join(f"{x:.6f}" for x in ours["scores"])
          + " |")
    for level, (accuracy, kendall) in ours["sentence"].items():
        print(f"| {bench} sentence {level} acc, τ | {accuracy:.6f}, {kendall:.6f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the shared data folder")
    ap.add_argument("--metrics", default="green,charlen", help="green and/or charlen")
    args = ap.parse_args()
    conll = args.data / "conll14"
    m2 = conll / "official-2014.combined.m2"
    benches = {"seeda": load_seeda(args.data / "seeda", m2),
               "gjg": load_gjg15(args.data / "gjg15", conll / "submissions", m2)}
    all_equal = True
    for name in [m.strip() for m in args.metrics.split(",") if m.strip()]:
        if name not in METRICS:
            ap.error(f"--metrics: {name!r} is not one of {', '.join(METRICS)}")
        with Clock() as ref_clock, tempfile.TemporaryDirectory() as tmp:
            ref = gec_metrics_meta_eval(args.data, Path(tmp), seeda=(name, 0), gjg=(name, 0))
        with Clock() as our_clock:
            ours = {b: gecscope_meta_eval(bench, METRICS[name]()) for b, bench in benches.items()}
        print(f"\n## {name}: gec-metrics {ref_clock} (incl. its imports and data set-up), "
              f"gecscope {our_clock}\n")
        print("| number | gecscope |")
        print("|---|---|")
        for bench in benches:
            show(bench, ours[bench])
        for bench in benches:
            diff = differences(ours[bench], ref[bench])
            all_equal &= not diff
            print(f"\n{name} on {bench}: "
                  + ("every number equal to gec-metrics" if not diff else "DIFFERENT:"))
            for line in diff:
                print(f"  {line}")
    print(f"\nall numbers equal: {all_equal}")
    return 0 if all_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())

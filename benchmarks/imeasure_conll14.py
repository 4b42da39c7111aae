"""Benchmark: I-measure of the 13 CoNLL-2014 systems against the official two-annotator gold.

Converts ``official-2014.combined.m2`` with gecscope's M2-to-XML converter, scores every system
with the default options (mixing, maximise correction WAcc per sentence, w=2, beta=1) and prints
the correction I (x100) next to the published value, then the timings. ``--verify N`` then
compares the decomposed search with the tool's exhaustive enumeration on N random
(sentence, system) pairs with at most ``--max-candidates`` candidates. Usage::

    python benchmarks/imeasure_conll14.py [--data ../shared/data/conll14] [--fix-tie-i]
    python benchmarks/imeasure_conll14.py --verify 300
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from gecscope.formats.imeasure_xml import m2_to_gold
from gecscope.formats.m2 import read_m2
from gecscope.formats.plain import read_tokens
from gecscope.metrics.imeasure import IMeasureMetric
from gecscope.metrics.imeasure.search import (
    decomposed_options,
    exhaustive_options,
    n_candidates_upper,
)

# Felice & Briscoe (2015), CoNLL-2014 systems, I-measure x100 (as quoted in issue #4)
PUBLISHED = {"UFC": 1.35, "INPUT": 0.00, "IITB": -0.25, "SJTU": -1.16, "CUUI": -2.18,
             "PKU": -2.38, "AMU": -2.47, "UMC": -2.84, "IPN": -3.04, "POST": -4.18,
             "RAC": -4.41, "CAMB": -5.15, "NTHU": -5.29}


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(here.parent / "shared" / "data" / "conll14"))
    ap.add_argument("--fix-tie-i", action="store_true",
                    help="I = 0 on a tie with the baseline (default: ieval's floor(WAcc))")
    ap.add_argument("--baseline", default="separate", choices=["separate", "recount"])
    ap.add_argument("--retokenize", default=None, choices=[None, "treebank"])
    ap.add_argument("--window", type=int, default=2)
    ap.add_argument("--all-annotators", action="store_true")
    ap.add_argument("--systems", nargs="*", default=None)
    ap.add_argument("--optimise", default="sent", choices=["sent", "corpus"])
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="check N random sentence/system pairs against exhaustive search")
    ap.add_argument("--max-candidates", type=int, default=64)
    args = ap.parse_args()
    data = Path(args.data)
    t0 = time.perf_counter()
    gold = m2_to_gold(read_m2(data / "official-2014.combined.m2"), retokenize=args.retokenize,
                      all_annotators=args.all_annotators)
    t_conv = time.perf_counter() - t0
    metric = IMeasureMetric(fix_tie_i=args.fix_tie_i, window=args.window, optimise=args.optimise,
                            baseline=args.baseline)
    caches: list[dict] = [{} for _ in range(len(gold))]
    print(f"{'system':8} {'c_I':>7} {'published':>9} {'diff':>6} {'c_WAcc':>7} {'c_WAcc_b':>8} "
          f"{'c_P':>6} {'c_R':>6} {'c_F':>6} {'sec':>6}")
    t_all, c_all = time.perf_counter(), time.process_time()
    for name in args.systems or sorted(PUBLISHED, key=lambda k: -PUBLISHED[k]):
        hyps = read_tokens(data / "submissions" / name, expected=len(gold))
        t1 = time.perf_counter()
        stats = metric.sentence_stats_gold(gold, hyps, caches)
        sc = metric.aggregate(stats)
        dt = time.perf_counter() - t1
        f = sc.fields
        ci = 100 * f["c_i"]
        print(f"{name:8} {ci:7.2f} {PUBLISHED[name]:9.2f} {ci - PUBLISHED[name]:6.2f} "
              f"{100 * f['c_wacc']:7.2f} {100 * f['c_wacc_b']:8.2f} {100 * f['c_p']:6.2f} "
              f"{100 * f['c_r']:6.2f} {100 * f['c_f']:6.2f} {dt:6.1f}")
    total, cpu = time.perf_counter() - t_all, time.process_time() - c_all
    print(f"conversion {t_conv:.2f}s; 13 systems x {len(gold)} sentences scored in {total:.1f}s "
          f"wall, {cpu:.1f}s CPU")
    if args.verify:
        verify(gold, data, args.verify, args.max_candidates, args.window, args.baseline)


def verify(gold: object, data: Path, n: int, max_candidates: int, window: int,
           baseline: str = "separate") -> None:
    """Decomposed search against the tool's enumeration on random sentence/system pairs."""
    sents = gold.sentences  # type: ignore[attr-defined]
    systems = {name: read_tokens(data / "submissions" / name, expected=len(sents))
               for name in PUBLISHED}
    pool = [(i, name) for i, s in enumerate(sents) if 1 < n_candidates_upper(s) <= max_candidates
            for name in systems]
    rng = random.Random(1)
    sample = rng.sample(pool, min(n, len(pool)))
    t0, c0 = time.perf_counter(), time.process_time()
    same = fallback = 0
    for i, name in sample:
        fast = decomposed_options(sents[i], systems[name][i], window, baseline=baseline)
        if fast is None:  # not decomposable: the metric enumerates this sentence itself
            fallback += 1
            continue
        slow = exhaustive_options(sents[i], systems[name][i], baseline=baseline)
        key = [(o.counts, o.witness, o.reference) for o in slow]
        if [(o.counts, o.witness, o.reference) for o in fast] == key:
            same += 1
        else:
            print(f"DIFFERENT: sentence {sents[i].id}, system {name}")
    print(f"verify: {same}/{len(sample) - fallback} decomposed pairs identical to exhaustive "
          f"search ({fallback} not decomposable, enumerated by the metric; "
          f"2-{max_candidates} candidates, {time.perf_counter() - t0:.0f}s wall, "
          f"{time.process_time() - c0:.0f}s CPU)")


if __name__ == "__main__":
    main()

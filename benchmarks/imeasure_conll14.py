"""Benchmark: I-measure of the 13 CoNLL-2014 systems against the official two-annotator gold.

Converts ``official-2014.combined.m2`` with gecscope's M2-to-XML converter, scores every system
with the default options (mixing, maximise correction WAcc per sentence, w=2, beta=1) and prints
the correction I (x100) next to the published value, then the timings. ``--verify N`` then
compares the decomposed search with the tool's exhaustive enumeration on N random
(sentence, system) pairs with at most ``--max-candidates`` candidates.

``--before REV`` also runs the I-measure package as it was at git revision REV (default
ec5e480, the code before issue #44's speed-up: its files are taken with ``git show`` into a
temporary package), on the same machine in the same run, prints both CPU and wall times, and
checks that every sentence's statistics (every outcome's counts, witness and reference, and
the chosen one) and every corpus field are identical. Usage::

    python benchmarks/imeasure_conll14.py [--data ../shared/data/conll14] [--fix-tie-i]
    python benchmarks/imeasure_conll14.py --before ec5e480
    python benchmarks/imeasure_conll14.py --verify 300
"""

from __future__ import annotations

import argparse
import importlib
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

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


#: the revision before issue #44's speed-up
BEFORE = "ec5e480b29d9755d09fbfcded8de7a0559062455"
_PACKAGE = "gecscope.metrics.imeasure"


def load_revision(rev: str) -> ModuleType:
    """The I-measure package (``src/gecscope/metrics/imeasure``) as it was at git revision
    ``rev``, imported under another name from a temporary directory (the rest of gecscope is
    the current one)."""
    repo = Path(__file__).resolve().parent.parent
    folder = "src/gecscope/metrics/imeasure"
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:{folder}"], cwd=repo,
                           check=True, capture_output=True, text=True).stdout.split()
    pkg = f"_imeasure_{rev[:10]}"
    root = Path(tempfile.gettempdir()) / "gecscope-bench-revisions" / rev
    (root / pkg).mkdir(parents=True, exist_ok=True)
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{folder}/{name}"], cwd=repo,
                                  check=True, capture_output=True, text=True).stdout
            target = root / pkg / name
            text = text.replace(_PACKAGE, pkg)
            if not target.exists() or target.read_text() != text:
                target.write_text(text)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(pkg)


def sentence_fields(stats: Any) -> list[tuple[Any, ...]]:
    """Everything of a system's sentence statistics, as plain values (comparable across two
    copies of the package): per sentence every outcome's counts, witness and reference, and
    the chosen outcome. (The reference, not its pieces: how a reference is cut into regions
    depends on the proposed cuts, e.g. on ``window``, while the reference does not.)"""
    return [(tuple((o.counts.as_tuple(), o.witness, o.reference) for o in st.options), st.best)
            for st in stats]


def run_systems(metric: Any, gold: Any, systems: dict[str, list[Any]]
                ) -> tuple[dict[str, Any], dict[str, Any], Clock]:
    """Each system's sentence statistics and corpus fields, and the time they took, from cold:
    the process's sentence cache of the metric's module is emptied first."""
    module = sys.modules[type(metric).__module__]
    module._SENTENCES.clear()
    module._CACHED["options"] = 0
    caches: list[dict[Any, Any]] = [{} for _ in range(len(gold))]
    stats, fields = {}, {}
    with Clock() as clock:
        for name, hyps in systems.items():
            st = metric.sentence_stats_gold(gold, hyps, caches)
            stats[name] = st
            fields[name] = metric.aggregate(st).fields
    return stats, fields, clock


def before_after(gold: Any, data: Path, rev: str, options: dict[str, Any]) -> bool:
    """Old and new code on the 13 systems: CPU and wall seconds, and every sentence compared."""
    systems = {name: read_tokens(data / "submissions" / name, expected=len(gold))
               for name in sorted(PUBLISHED, key=lambda k: -PUBLISHED[k])}
    old = load_revision(rev)
    old_metric = old.IMeasureMetric(**options)
    new_metric = IMeasureMetric(**options)
    # compile (or load from numba's cache) every kernel of both copies outside the clock
    warm = {name: hyps[:40] for name, hyps in list(systems.items())[:2]}
    run_systems(old_metric, gold.subset(0, 40), warm)
    run_systems(new_metric, gold.subset(0, 40), warm)
    old_stats, old_fields, t_old = run_systems(old_metric, gold, systems)
    new_stats, new_fields, t_new = run_systems(new_metric, gold, systems)
    same = True
    for name in systems:
        a, b = sentence_fields(old_stats[name]), sentence_fields(new_stats[name])
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if diff or old_fields[name] != new_fields[name]:
            same = False
            print(f"DIFFERENT: {name}: sentences {diff[:10]} (of {len(diff)}), fields equal: "
                  f"{old_fields[name] == new_fields[name]}")
    n_out = sum(len(st.options) for stats in new_stats.values() for st in stats)
    print(f"before ({rev[:7]}): {t_old}\nafter  (this tree): {t_new}\n"
          f"CPU {t_old.cpu / t_new.cpu:.1f}x less; {len(systems)} systems x {len(gold)} "
          f"sentences, {n_out} outcomes: "
          + ("every sentence's outcomes, witnesses, references and choice, and every corpus "
             "field identical" if same else "NOT IDENTICAL"))
    return same


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(here.parent / "shared" / "data" / "conll14"))
    ap.add_argument("--fix-tie-i", action="store_true",
                    help="I = 0 on a tie with the baseline (default: ieval's floor(WAcc))")
    ap.add_argument("--baseline", default="separate", choices=["separate", "recount"])
    ap.add_argument("--retokenize", default=None, choices=[None, "treebank"])
    ap.add_argument("--window", type=int, default=None,
                    help="cut proposal window (speed only); default: each revision's own")
    ap.add_argument("--all-annotators", action="store_true")
    ap.add_argument("--systems", nargs="*", default=None)
    ap.add_argument("--optimise", default="sent", choices=["sent", "corpus"])
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="check N random sentence/system pairs against exhaustive search")
    ap.add_argument("--max-candidates", type=int, default=64)
    ap.add_argument("--before", nargs="?", const=BEFORE, default=None, metavar="REV",
                    help="also time the package at git revision REV (default: the code before "
                         "issue #44) and compare every sentence")
    args = ap.parse_args()
    data = Path(args.data)
    t0 = time.perf_counter()
    gold = m2_to_gold(read_m2(data / "official-2014.combined.m2"), retokenize=args.retokenize,
                      all_annotators=args.all_annotators)
    t_conv = time.perf_counter() - t0
    window = {} if args.window is None else {"window": args.window}
    metric = IMeasureMetric(fix_tie_i=args.fix_tie_i, optimise=args.optimise,
                            baseline=args.baseline, **window)
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
    if args.before:
        opts = {"fix_tie_i": args.fix_tie_i, "optimise": args.optimise,
                "baseline": args.baseline, **window}
        if not before_after(gold, data, args.before, opts):
            raise SystemExit(1)
    if args.verify:
        verify(gold, data, args.verify, args.max_candidates, metric.config.window,
               args.baseline)


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

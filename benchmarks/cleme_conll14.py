"""CLEME / CLEME2.0 on the 13 CoNLL-2014 systems: the full table and its run time.

Reads the ERRANT-annotated M2 files shipped with THUKElab/CLEME (``../shared/data/conll14/errant``:
``references.m2`` and one ``SYSTEM.m2`` per system), scores every system with CLEME
(dependent/independent x corpus/sentence x unweighted/length-weighted) and CLEME2.0
(dependent/independent x corpus/sentence, unweighted), prints Markdown tables and the total time.

    python benchmarks/cleme_conll14.py                       # tables + timing on stdout
    python benchmarks/cleme_conll14.py --update-docs docs/cleme.md

``--update-docs`` rewrites the part of the page between ``<!-- cleme-table:start -->`` and
``<!-- cleme-table:end -->``.

    python benchmarks/cleme_conll14.py --bootstrap 1000 [--slow-samples 50] [--baseline]

``--bootstrap N`` also times N bootstrap resamples (seed 12345) of every system for the
settings whose resampling re-weights each resample (CLEME length-weighted at corpus and
sentence level, CLEME2.0 length-weighted): the vectorised path on all N, ``aggregate`` (the
path before the vectorised one) on the first ``--slow-samples`` of them, extrapolated, or on
all N with ``--baseline``; every field of the shared resamples is checked equal on both.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gecscope.data import EvalData, Hypothesis
from gecscope.gate import check_hypothesis
from gecscope.meta_eval.benchmarks import GJG15_SYSTEMS
from gecscope.metrics.cleme import CLEME2Metric, CLEMEMetric
from gecscope.stats.resample import Scorer, bootstrap_indices, make_rng

SYSTEMS = GJG15_SYSTEMS
DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14" / "errant"
START, END = "<!-- cleme-table:start -->", "<!-- cleme-table:end -->"


def run(directory: Path) -> tuple[dict, float, float]:
    """All scores: ``{(metric, assumption, level, weighting): {system: fields}}``, wall and CPU
    seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    data = EvalData((str(directory / "references.m2"),))
    results: dict = {}
    for system in SYSTEMS:
        hyp = Hypothesis.from_file(directory / f"{system}.m2", name=system)
        check_hypothesis(data, hyp)
        for assumption in ("dependent", "independent"):
            for level in ("corpus", "sentence"):
                for weighting in ("none", "length"):
                    m = CLEMEMetric(level=level, assumption=assumption, weighting=weighting)
                    stats = m.sentence_stats(data, hyp)
                    results.setdefault(("cleme", assumption, level, weighting), {})[system] = \
                        m.aggregate(stats).fields
                m2 = CLEME2Metric(level=level, assumption=assumption)
                results.setdefault(("cleme2", assumption, level, "none"), {})[system] = \
                    m2.aggregate(m2.sentence_stats(data, hyp)).fields
    return results, time.perf_counter() - t0, time.process_time() - c0


def markdown(results: dict) -> str:
    """The tables as Markdown."""
    out: list[str] = []
    out.append("CLEME (F0.5 / P / R), columns: assumption, level, weighting "
               "(dep = dependent, ind = independent, unw = unweighted, len = length-weighted).\n")
    cols = [(a, lv, w) for a in ("dependent", "independent") for lv in ("corpus", "sentence")
            for w in ("none", "length")]
    short = {"dependent": "dep", "independent": "ind", "none": "unw", "length": "len"}
    header = "| system | " + " | ".join(f"{short[a]} {lv} {short[w]}" for a, lv, w in cols) + " |"
    out.append(header)
    out.append("|---" * (len(cols) + 1) + "|")
    for system in SYSTEMS:
        cells = []
        for a, lv, w in cols:
            f = results[("cleme", a, lv, w)][system]
            cells.append(f"{f['F']:.4f} / {f['P']:.4f} / {f['R']:.4f}")
        out.append(f"| {system} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("CLEME2.0 (unweighted; Score with the paper's factors: corpus 0.45/0.35/0.15/0.05, "
               "sentence 0.35/0.25/0.20/0.20).\n")
    for a in ("dependent", "independent"):
        for lv in ("corpus", "sentence"):
            out.append(f"**CLEME2.0 {a}, {lv} level**\n")
            out.append("| system | Score | Hit | Wrong | Under | Over | TP | FP_ne | FP_un | FN |")
            out.append("|---|---|---|---|---|---|---|---|---|---|")
            for system in SYSTEMS:
                f = results[("cleme2", a, lv, "none")][system]
                out.append(f"| {system} | {f['Score']:.4f} | {f['Hit']:.4f} | {f['Wrong']:.4f} | "
                           f"{f['Under']:.4f} | {f['Over']:.4f} | {f['TP']:.0f} | {f['FP_ne']:.0f} | "
                           f"{f['FP_un']:.0f} | {f['FN']:.0f} |")
            out.append("")
    return "\n".join(out)


#: the settings whose resampling recomputes the length weights of every resample
BOOTSTRAP_SETTINGS = (("cleme corpus len", CLEMEMetric, {}),
                      ("cleme sentence len", CLEMEMetric, {"level": "sentence"}),
                      ("cleme2 corpus len", CLEME2Metric, {"weighting": "length"}))


def bootstrap(directory: Path, samples: int, slow_samples: int) -> int:
    """Times ``samples`` resamples of every system, vectorised and through ``aggregate``
    (``slow_samples`` of them, extrapolated); 1 when a field differs between the paths."""
    data = EvalData((str(directory / "references.m2"),))
    hyps = [Hypothesis.from_file(directory / f"{s}.m2", name=s) for s in SYSTEMS]
    idx = bootstrap_indices(len(data), samples, make_rng(12345))
    slow_samples = min(slow_samples, samples)
    scale = samples / slow_samples
    worst = 0.0
    print(f"\nbootstrap: {len(SYSTEMS)} systems x {samples} resamples of {len(data)} sentences "
          f"(aggregate timed on {slow_samples}{'' if scale == 1 else ', extrapolated'})")
    print("| setting | vectorised CPU-s | aggregate CPU-s | speed-up | largest difference |")
    print("|---|---:|---:|---:|---:|")
    for label, cls, options in BOOTSTRAP_SETTINGS:
        metric = cls(**options)
        stats = [metric.sentence_stats(data, h) for h in hyps]
        fast_cpu = slow_cpu = diff = 0.0
        for st in stats:
            c0 = time.process_time()
            fast = Scorer(metric, st).values(idx, fields=True)
            c1 = time.process_time()
            slow = Scorer(metric, st, fast=False).values(idx[:slow_samples], fields=True)
            c2 = time.process_time()
            fast_cpu += c1 - c0
            slow_cpu += c2 - c1
            if set(fast) != set(slow):
                print(f"{label}: the paths report different fields", file=sys.stderr)
                return 1
            for name, v in slow.items():
                diff = max(diff, float(abs(fast[name][:slow_samples] - v).max()))
        worst = max(worst, diff)
        print(f"| {label} | {fast_cpu:.1f} | {slow_cpu * scale:.1f} | "
              f"{slow_cpu * scale / fast_cpu:.0f}x | {diff:.1e} |", flush=True)
    return 0 if worst <= 1e-12 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR,
                        help="directory with references.m2 and SYSTEM.m2 (default: %(default)s)")
    parser.add_argument("--update-docs", type=Path, default=None,
                        help="rewrite the table between the markers in this Markdown file")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="also time N bootstrap resamples per system (vectorised path "
                             "against aggregate)")
    parser.add_argument("--slow-samples", type=int, default=50,
                        help="resamples timed through aggregate, extrapolated to N "
                             "(default: %(default)s)")
    parser.add_argument("--baseline", action="store_true",
                        help="time aggregate on all N resamples (the path before the "
                             "vectorised one)")
    parser.add_argument("--no-tables", action="store_true",
                        help="only the bootstrap timing (with --bootstrap)")
    args = parser.parse_args(argv)
    if not (args.data / "references.m2").is_file():
        print(f"data not found: {args.data}/references.m2", file=sys.stderr)
        return 1
    if args.bootstrap < 0 or args.slow_samples < 1:
        print("--bootstrap must be >= 0 and --slow-samples >= 1", file=sys.stderr)
        return 64
    if args.no_tables:
        if not args.bootstrap:
            print("--no-tables needs --bootstrap N", file=sys.stderr)
            return 64
        return bootstrap(args.data, args.bootstrap,
                         args.bootstrap if args.baseline else args.slow_samples)
    results, total, cpu = run(args.data)
    table = markdown(results)
    print(table)
    print(f"13 systems x {{dep, ind}} x {{corpus, sentence}} x {{unweighted, length}} CLEME "
          f"+ CLEME2.0 from M2 files: {total:.2f}s wall, {cpu:.2f}s CPU "
          f"({total / len(SYSTEMS):.2f}s wall per system)")
    if args.update_docs is not None:
        text = args.update_docs.read_text(encoding="utf-8")
        if START not in text or END not in text:
            print(f"{args.update_docs}: markers {START} / {END} not found", file=sys.stderr)
            return 1
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        args.update_docs.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
        print(f"updated {args.update_docs}")
    if args.bootstrap:
        return bootstrap(args.data, args.bootstrap,
                         args.bootstrap if args.baseline else args.slow_samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

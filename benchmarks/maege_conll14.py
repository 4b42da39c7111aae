"""MAEGE (Choshen & Abend 2018) on CoNLL-2014 for every offline gecscope metric.

    python benchmarks/maege_conll14.py [--data ../shared/data/conll14] [--bootstrap 1000]
        [--metrics m2,gleu,...] [--sampler nested|eoe] [--types nucle,errant] [--json FILE]

Builds EoE's lattice (seed 1, one order per annotator: 759 sentences, 1,792 chains, 7,604
nodes) and 11 corpora from ``official-2014.combined-withalt.m2``, scores every node against the
M2's other annotators (leave-one-out) and prints, per metric, the corpus-level Pearson and
Spearman, the chain Kendall tau (ties as neither; EoE's tie-as-agreement figure beside it) with
95% bootstrap intervals over sentences, and the time taken (wall and CPU). A metric that cannot
run here (a model or endpoint it needs) is listed as skipped with the reason. The last lines
are the Markdown table of docs/metric-validation.md's MAEGE section.

``--before REV`` (with ``--metrics imeasure``) also runs the I-measure package as it was at
git revision REV (default: the code before issue #44's speed-up; see
benchmarks/imeasure_conll14.py), in the same run, prints both times and checks that every
figure (node scores, correlations, intervals, per-type changes) is identical.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock
from imeasure_conll14 import BEFORE, load_revision

from gecscope.formats.m2 import read_m2
from gecscope.meta_eval.maege import run_maege
from gecscope.registry import get_metric

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"
#: every metric that needs no model download or endpoint (USIM, the I-measure and CLEME cost
#: 100-140 CPU-s each here, the others 2-60; benchmarks/metric_validation.py has the table)
OFFLINE = ("m2", "errant", "gleu", "green", "imeasure", "cleme", "cleme2", "gotoscorer",
           "pterrant", "ptm2", "usim")


def _cell(e: dict[str, float | None]) -> str:
    if e["value"] is None:
        return "undefined"
    return f"{e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--metrics", default=",".join(OFFLINE))
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--slow-corpus-bootstrap", type=int, default=1000,
                    help="corpus-level resamples for metrics without a vectorised resampling "
                         "path (each re-aggregates 11 corpora in Python; CLEME's length "
                         "weights: ~90 CPU-s for 1,000)")
    ap.add_argument("--sampler", default="nested", choices=["nested", "eoe"])
    ap.add_argument("--types", default="nucle,errant")
    ap.add_argument("--json", type=Path, help="also write every figure as JSON")
    ap.add_argument("--before", nargs="?", const=BEFORE, default=None, metavar="REV",
                    help="also run the I-measure of git revision REV and compare")
    args = ap.parse_args()
    corpus = read_m2(args.data / "official-2014.combined-withalt.m2")
    results, skipped = [], {}
    types = [t for t in args.types.split(",") if t]
    with Clock() as total:
        for name in [m for m in args.metrics.split(",") if m]:
            with Clock() as c:
                try:
                    metric = get_metric(name)()
                    slow = metric.resampling() is None
                    [r] = run_maege(corpus, [metric], sampler=args.sampler,
                                    n_samples=args.bootstrap, type_schemes=types,
                                    corpus_samples=args.slow_corpus_bootstrap if slow else None)
                except Exception as exc:  # noqa: BLE001 - report and go on
                    skipped[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
                    print(f"{name}: skipped ({skipped[name]})", flush=True)
                    continue
            d = r.as_dict()
            d["seconds"] = {"wall": c.wall, "cpu": c.cpu}
            results.append(d)
            print(f"{name}: {c}", flush=True)
    first = results[0] if results else None
    if first:
        lat = first["lattice"]
        print(f"\nlattice: {lat['sentences']} sentences, {lat['chains']} chains, "
              f"{lat['nodes']} nodes; references: {first['references']}")
        print("corpora (" + first["corpus"]["sampler"] + "): mean applied edits " +
              ", ".join(f"{x:.2f}" for x in first["corpus"]["mean_applied_edits"]))
    print(f"total: {total}\n")
    print("| metric | corpus Pearson | corpus Spearman | chain tau | tie share | EoE tau "
          "| corpus resamples | time |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for d in sorted(results, key=lambda d: -(d["sentence"]["tau"]["value"] or -9)):
        s = d["sentence"]
        print(f"| {d['metric']} | {_cell(d['corpus']['pearson'])} | "
              f"{_cell(d['corpus']['spearman'])} | {_cell(s['tau'])} | "
              f"{s['ties'] / s['pairs']:.3f} | {s['eoe_tau']:.3f} | "
              f"{d['bootstrap']['corpus_samples']} | "
              f"{d['seconds']['wall']:.0f} s wall, {d['seconds']['cpu']:.0f} s CPU |")
    for name, why in skipped.items():
        print(f"- {name}: skipped ({why})")
    print("\nvalid corrections penalised: error types whose mean score change has its whole "
          "interval below 0 (of the types with at least 30 edits)")
    for d in results:
        for scheme, per in d["per_type"].items():
            bad = sorted((t for t, e in per.items() if e["n"] >= 30 and e["high"] is not None
                          and e["high"] < 0), key=lambda t: per[t]["value"])
            flat = sorted(t for t, e in per.items() if e["n"] >= 30 and e["low"] is not None
                          and e["low"] <= 0 <= e["high"])
            print(f"- {d['metric']} ({scheme}): penalised {', '.join(bad) or 'none'}; "
                  f"no clear change {', '.join(flat) or 'none'}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "skipped": skipped}, indent=1))
    if args.before:
        return before_after(corpus, args, types, results)
    return 0


def before_after(corpus: object, args: argparse.Namespace, types: list[str],
                 results: list[dict]) -> int:
    """The I-measure's MAEGE run with the package of ``args.before``, timed, and every figure
    compared with this tree's run (``results``)."""
    new = next((d for d in results if d["metric"] == "imeasure"), None)
    if new is None:
        print("--before needs imeasure among --metrics")
        return 64
    old = load_revision(args.before)
    with Clock() as c:
        [r] = run_maege(corpus, [old.IMeasureMetric()], sampler=args.sampler,
                        n_samples=args.bootstrap, type_schemes=types)
    d = r.as_dict()
    fields = [k for k in d if k != "seconds"]
    same = all(d[k] == new[k] for k in fields)
    print(f"imeasure before ({args.before[:7]}): {c}\nimeasure after  (this tree): "
          f"{new['seconds']['wall']:.2f}s wall, {new['seconds']['cpu']:.2f}s CPU\n"
          f"CPU {c.cpu / new['seconds']['cpu']:.1f}x less; every figure "
          + ("identical" if same else "NOT IDENTICAL: " + ", ".join(
              k for k in fields if d[k] != new[k])))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

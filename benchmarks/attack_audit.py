"""The attack audit of every offline gecscope metric on CoNLL-2014 (GJG15) and SEEDA.

    python benchmarks/attack_audit.py [--data ../shared/data] [--metrics m2,gleu,...] [--all]
        [--attack-dir DIR] [--resamples 1000] [--jobs 1] [--json FILE] [--markdown FILE]

Runs ``gecscope meta-eval attack``'s audit (gecscope.meta_eval.audit.run_audit) with every
built-in attack on both test sets: GJG15 (the whole CoNLL-2014 test set, 12 systems, INPUT as
the source, the human-preferred system AMU) and SEEDA (its 391 judged sentences, the 12
``base`` systems, INPUT as the source, human-preferred TransGEC by sentence-level Expected
Wins). ``--attack-dir`` adds the published attack outputs of Goto et al. (2025), e.g. your
copy of gotutiyan/attack-gec-metrics' ``experiments/attack_results`` (``conll14-*.txt`` are
read; nothing is downloaded). Prints each test set's Markdown tables and its time, wall and
CPU seconds (this process and its workers), per metric and in all: on a shared machine the CPU
seconds are the figure to check. The default metrics are the fast offline ones; ``--all`` adds
USIM, PT-ERRANT and PT-M2 (slow on rewritten sentences, see :data:`SLOW`). A metric that
refuses an attack (the I-measure on CoNLL-2014's rewrites of sentence 333) has a ``refused``
cell for it, the reason in a footnote, and the rank ensemble does not rank that attack. Last,
the correlations of each metric and of their rank ensemble with the human rankings (what the
defence costs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

from gecscope.meta_eval.attacks import list_attacks, read_attack_dir
from gecscope.meta_eval.audit import benchmark_test_set, render_markdown, run_audit
from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
#: the offline metrics the default run audits (about 4 CPU-minutes for both test sets)
FAST = ("m2", "errant", "gleu", "green", "imeasure", "cleme", "cleme2", "gotoscorer")
#: the other offline metrics (``--all``): PT-ERRANT and PT-M2 encode with BERT each distinct
#: text an edit makes (~99,000 texts for both test sets' audit systems, each once per process),
#: USIM parses each distinct sentence once with the UCCA parser: ``--metrics usim,pterrant,ptm2``
#: took 2,124 CPU-s for GJG15 and SEEDA (benchmarks/slow_metrics_attacks.py times each metric)
SLOW = ("usim", "pterrant", "ptm2")
#: SOME, IMPARA and Scribendi need local model directories: ``gecscope meta-eval attack
#: --option some.model_g=DIR --option some.model_f=DIR --option some.model_m=DIR ...``


def ensemble_costs(r: object, bench: object) -> str:
    """Markdown: Pearson and Spearman with each human ranking of every metric and of the rank
    ensemble of all of them, on the benchmark's system set (GJG15: the 13 systems with INPUT;
    SEEDA: the 12 base systems), from the audit's scores of the real systems and the source:
    the same figures as ``meta-eval table --ensemble`` rows."""
    from gecscope.meta_eval.correlation import correlate
    from gecscope.meta_eval.ensemble import rank_ensemble

    systems = [s for s in bench.select(None) if s in r.scores[r.metrics[0]]]  # type: ignore[attr-defined]
    cols = {m: r.scores[m] for m in r.metrics}  # type: ignore[attr-defined]
    cols["RankEns"] = rank_ensemble(cols, systems)
    keys = list(bench.human)  # type: ignore[attr-defined]
    lines = [f"{r.test_set} ({len(systems)} systems):", "",  # type: ignore[attr-defined]
             "| Metric | " + " | ".join(f"{k} γ | {k} ρ" for k in keys) + " |",
             "|---|" + "---|---|" * len(keys)]
    for m, scores in cols.items():
        cells = []
        for k in keys:
            c = correlate(scores, bench.human[k], systems)  # type: ignore[attr-defined]
            cells += [f"{c.pearson:.3f}", f"{c.spearman:.3f}"]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--metrics", default=",".join(FAST))
    ap.add_argument("--all", action="store_true", help="also " + ", ".join(SLOW))
    ap.add_argument("--attack-dir", type=Path, help="published attack outputs (conll14-*.txt)")
    ap.add_argument("--test-sets", default="gjg15,seeda")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write every figure as JSON")
    ap.add_argument("--markdown", type=Path, help="also write the Markdown tables")
    args = ap.parse_args()
    c = args.data / "conll14"
    m2 = c / "official-2014.combined.m2"
    metrics = [m for m in args.metrics.split(",") if m] + (list(SLOW) if args.all else [])
    results, clocks, benches = [], {}, {}
    with Clock() as total:
        for name in [t for t in args.test_sets.split(",") if t]:
            with Clock() as clock:
                bench = (load_gjg15(args.data / "gjg15", c / "submissions", m2)
                         if name == "gjg15" else load_seeda(args.data / "seeda", m2))
                ts = benchmark_test_set(bench)
                extra = (read_attack_dir(args.attack_dir, ts.sentences, ts.total,
                                         "conll14-*.txt") if args.attack_dir else [])
                r = run_audit(ts, metrics, attacks=list_attacks(), extra=extra,
                              resamples=args.resamples, seed=args.seed, jobs=args.jobs,
                              progress=lambda m: print(m, file=sys.stderr, flush=True))
            results.append(r)
            benches[name] = bench
            clocks[name] = clock
            print(f"{name}: {clock}", file=sys.stderr, flush=True)
    text = render_markdown(results)
    print(text)
    print("## What the defence costs: correlation with the human rankings")
    print()
    for r in results:
        print(ensemble_costs(r, benches[r.test_set]))
        print()
    print("## Time")
    print()
    for r in results:
        secs = ", ".join(f"{k} {v:.0f}" for k, v in r.seconds.items())
        cpus = ", ".join(f"{k} {v:.0f}" for k, v in r.cpu_seconds.items())
        print(f"- {r.test_set}: {clocks[r.test_set]} (CPU seconds per step: {cpus}; wall: "
              f"{secs})")
    print(f"- total: {total}")
    if args.json:
        args.json.write_text(json.dumps({"audits": [r.as_dict() for r in results],
                                         "wall": total.wall, "cpu": total.cpu}, indent=1),
                             encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

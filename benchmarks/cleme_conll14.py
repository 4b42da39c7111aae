"""CLEME / CLEME2.0 on the 13 CoNLL-2014 systems: the full table and its run time.

Reads the ERRANT-annotated M2 files shipped with THUKElab/CLEME (``../shared/data/conll14/errant``:
``references.m2`` and one ``SYSTEM.m2`` per system), scores every system with CLEME
(dependent/independent x corpus/sentence x unweighted/length-weighted) and CLEME2.0
(dependent/independent x corpus/sentence, unweighted), prints Markdown tables and the total time.

    python benchmarks/cleme_conll14.py                       # tables + timing on stdout
    python benchmarks/cleme_conll14.py --update-docs docs/cleme.md

``--update-docs`` rewrites the part of the page between ``<!-- cleme-table:start -->`` and
``<!-- cleme-table:end -->``.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR,
                        help="directory with references.m2 and SYSTEM.m2 (default: %(default)s)")
    parser.add_argument("--update-docs", type=Path, default=None,
                        help="rewrite the table between the markers in this Markdown file")
    args = parser.parse_args(argv)
    if not (args.data / "references.m2").is_file():
        print(f"data not found: {args.data}/references.m2", file=sys.stderr)
        return 1
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

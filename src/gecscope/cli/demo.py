"""``gecscope demo``: evaluate three toy systems on a small built-in learner corpus.

The example (``gecscope/data/demo``) was written for gecscope: twelve learner-like sentences,
two annotators' corrections (``references.m2``, annotated with ERRANT from ``ref0.txt`` and
``ref1.txt``) and three systems: a careful corrector, a cautious one that fixes little, and a
rewriter that paraphrases freely.

The table shows each metric's main columns (those ``gecscope evaluate`` shows by default; the
headline alone for a metric that names none), then one line per metric saying what its main
figure measures, and a note where two metrics disagree a lot on one system and why.
``--all-fields`` shows every column (docs/metrics.md explains each).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import SystemResult
    from gecscope.reports.model import Report

DEMO_SYSTEMS = ("careful", "cautious", "rewriter")
DEMO_METRICS = ("errant", "m2", "gleu", "cleme2", "imeasure")

#: What each metric's headline measures, with the metrics' default options (the demo takes
#: no options). A metric not listed gets its own one-line description.
MEASURES = {
    "errant": "F0.5 of the system's edits, extracted from its text by ERRANT without looking at "
              "the references, against each sentence's annotator (the one best for the "
              "corpus so far); an edit counts only with the same span and correction "
              "(errant_compare 3.0.2)",
    "m2": "F0.5 of the system's edits against the best-matching annotator's; the edits are cut "
          "from the system's text (M2's edit lattice) so as to match as many gold edits as "
          "possible (m2scorer 3.2)",
    "gleu": "GLEU: n-gram precision against the references that also penalises n-grams of the "
            "source the references changed, with a brevity penalty; with several references "
            "the mean over 500 random draws of one per sentence (compute_gleu)",
    "cleme2": "Score = 0.45 Hit + 0.35 (1 - Wrong) + 0.15 (1 - Under) + 0.05 (1 - Over): Hit "
              "corrections right, Wrong at the right place but wrong, Under errors missed "
              "(each over the necessary edits), Over unnecessary edits (over the system's)",
    "imeasure": "c_i, the Improvement: how much the output's weighted accuracy (c_wacc: "
                "token-level, the system's edits weighing twice) gains over that of the source "
                "left unchanged (c_wacc_b); 0 = no better, below 0 = worse than doing nothing "
                "(ieval.py)",
    "cleme": "F0.5 of chunks (the sentence cut where the system or a reference edits), each "
             "chunk weighted by its length (CLEME 1.1)",
    "green": "F2 of n-grams (1-4) the system rightly removed, added or kept, against the source "
             "and the best reference; recall counts more (gec-metrics 0.1.1)",
    "gotoscorer": "F0.5 of the reference's chunks judged against the system's, each weighted by "
                  "its difficulty (unweighted by default: 1 each; gec-metrics 0.1.1)",
    "usim": "reference-less: F-score of aligning the UCCA graph of the source with that of the "
            "output (1 = the meaning is kept)",
    "pterrant": "ERRANT's F0.5 with every edit weighted by how much it alone moves the "
                "BERTScore of the source towards the reference",
    "ptm2": "mean over sentences of MaxMatch's F0.5 with BERTScore-weighted edits",
}

#: |difference| of two metrics' headlines on one system above which the demo explains it
GAP = 0.1


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter, plain_help

    p = sub.add_parser("demo", help="evaluate the built-in example and print the table",
                       description=plain_help(__doc__ or ""), formatter_class=HelpFormatter)
    p.add_argument("--format", choices=["table", "json", "tsv"], default="table",
                   help="output format on stdout (default: table)")
    p.add_argument("--metric", action="append", default=None,
                   help="metric(s) to show (default: every installed one of "
                        f"{', '.join(DEMO_METRICS)})")
    p.add_argument("--cat", type=int, choices=[1, 2, 3], help="per-error-type tables")
    p.add_argument("--all-fields", action="store_true",
                   help="table: every column of every metric, not only the main ones "
                        "(docs/metrics.md says what each means)")
    p.set_defaults(func=run)


def demo_dir() -> Any:
    return resources.files("gecscope") / "data" / "demo"


def _namespace(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments of ``gecscope evaluate`` on the demo's files."""
    base = demo_dir()
    return argparse.Namespace(
        metric=args.metric or list(DEMO_METRICS), ref=[str(base / "references.m2")],
        source=None, hyp=[str(base / f"{s}.txt") for s in DEMO_SYSTEMS],
        name=list(DEMO_SYSTEMS), option=[], format=args.format, cat=args.cat,
        sentences=False, quiet=False, all_fields=getattr(args, "all_fields", False),
        bootstrap=0, seed=12345, json_out=None, html=None)


def run(args: argparse.Namespace) -> int:
    ns = _namespace(args)
    if args.format != "table":  # machine-readable: exactly what evaluate writes
        from gecscope.cli import evaluate

        return evaluate.run(ns)
    print("gecscope demo: 12 learner sentences, 2 annotators, 3 systems "
          f"(data in {demo_dir()})\n")
    report, results = _evaluate(ns)
    from gecscope.reports.tables import format_evaluation
    from gecscope.reports.text import colour_enabled

    if not ns.all_fields:
        report.metrics = [main_fields(m) for m in report.metrics]
    sys.stdout.write(format_evaluation(report, colour=colour_enabled(sys.stdout), cat=ns.cat,
                                       all_fields=ns.all_fields))
    sys.stdout.write("\n" + explanations([m.name for m in report.metrics], results)
                     + "\n")
    return 0


def _evaluate(ns: argparse.Namespace) -> tuple[Report, list[SystemResult]]:
    """The steps of ``gecscope evaluate``'s table (its functions), keeping the results."""
    from gecscope.cli._inputs import build_metrics, evaluate_all, load_inputs
    from gecscope.cli.check import print_summary
    from gecscope.cli.evaluate import attribution_request, close_progress
    from gecscope.reports.model import build_report

    metrics = build_metrics(ns)
    data, hyps = load_inputs(ns)
    print_summary(data, hyps, getattr(ns, "gate_findings", ()))
    results = evaluate_all(metrics, data, hyps, ns.quiet)
    attribution = (attribution_request(ns, results, cat=True, n_sentences=len(data))
                   if ns.cat else None)
    try:
        report = build_report(data, hyps, results, metrics, types=bool(ns.cat),
                              attribution=attribution)
    finally:
        close_progress(attribution)
    if ns.cat:
        for note in report.inputs.get("warnings", []):
            print(f"gecscope: note: {note}", file=sys.stderr)
    return report, results


def main_fields(m: Any) -> Any:
    """The metric's table entry with only its main columns: those it displays by default
    (``Score.display``), or its headline alone when it names none."""
    return dataclasses.replace(m, display=tuple(m.display) or (m.main,))


def describe(metric: str) -> str:
    """One line: what the metric's headline measures."""
    if metric in MEASURES:
        return f"{metric}: {MEASURES[metric]}"
    from gecscope.registry import get_metric

    return f"{metric}: {get_metric(metric).description or 'see docs/metrics.md'}"


def _fields(results: Sequence[SystemResult], metric: str, system: str) -> dict[str, Any]:
    return next((r.score.fields for r in results if r.metric == metric and r.system == system),
                {})


def _value(results: Sequence[SystemResult], metric: str, system: str) -> float | None:
    return next((r.score.value for r in results if r.metric == metric and r.system == system),
                None)


def gap_notes(results: Sequence[SystemResult]) -> list[str]:
    """Why M2 and ERRANT disagree by more than :data:`GAP` on a system, with its counts.

    Checked on the demo's rewriter (M2 18 TP / 17 FP, ERRANT 12 / 38): both score edits
    against the same references, but M2 chooses, among the ways of cutting the system's
    changes into edits, the one that matches the most gold edits, and merges the changes
    that match nothing into fewer, longer edits (its sentence 4, "When I was child" -> "As a
    child": "When I was" -> "As" plus the insertion of "a", the gold edit); ERRANT extracts
    the edits once from the text alone ("I" -> "As", "was" -> "a": no match) and so finds
    more, shorter edits, fewer of which have a gold edit's exact span and correction."""
    notes = []
    systems = list(dict.fromkeys(r.system for r in results))
    same = [s for s in systems if _value(results, "m2", s) is not None
            and _value(results, "m2", s) == _value(results, "errant", s)]
    for system in systems:
        m2, errant = _value(results, "m2", system), _value(results, "errant", system)
        if m2 is None or errant is None or abs(m2 - errant) <= GAP:
            continue
        f2, fe = _fields(results, "m2", system), _fields(results, "errant", system)
        counts = (f"M2 {f2.get('TP')} TP / {f2.get('FP')} FP, ERRANT {fe.get('TP')} TP / "
                  f"{fe.get('FP')} FP")
        notes.append(
            f"{system}: m2 {m2:.4f} vs errant {errant:.4f} ({counts}). Both match the "
            "system's edits with the annotators', but M2 cuts the system's changes into "
            "whichever edits match the most gold edits and merges the changes that match "
            "nothing into fewer, longer edits (its edit lattice), while ERRANT extracts the "
            "edits once, from the text alone, and counts one only if its span and "
            "correction equal a gold edit's: paraphrases become many short ERRANT edits, "
            "few of them the annotators'."
            + (f" Systems whose edits are the annotators' own score the same under both "
               f"({', '.join(same)})." if same else ""))
    return notes


def explanations(metrics: Sequence[str], results: Sequence[SystemResult]) -> str:
    """The lines under the tables: what each headline measures, then the gap notes."""
    lines = ["What the main figures measure:"] + [f"  {describe(m)}" for m in metrics]
    notes = gap_notes(results)
    if notes:
        lines += ["", "Why metrics disagree:"] + [f"  {n}" for n in notes]
    lines += ["", "Every column: gecscope demo --all-fields; what each means: docs/metrics.md"]
    return "\n".join(lines)

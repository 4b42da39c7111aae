"""``gecscope evaluate``: score one or more systems with any registered metric."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.cli._inputs import (
    EVAL_USAGE,
    add_eval_arguments,
    add_report_arguments,
    build_metrics,
    evaluate_all,
    load_inputs,
    write_reports,
)


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter

    p = sub.add_parser(
        "evaluate", help="score system outputs against references", usage=EVAL_USAGE,
        add_help=False, formatter_class=HelpFormatter,
        description="Score hypotheses (plain text, one sentence per line, or an M2 of their "
                    "edits) against references (one M2 with all annotators, or plain-text "
                    "references with --source). One row per system.")
    groups = add_eval_arguments(p)
    out = groups.output
    out.add_argument("--format", choices=["table", "json", "tsv", "markdown", "latex"],
                     default="table",
                     help="output format on stdout (default: table); json follows the "
                          "versioned report schema (docs/reports.md)")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="M2: print each sentence's chosen annotator and edits (m2scorer -v)")
    out.add_argument("--cat", "-cat", type=int, choices=[1, 2, 3],
                     help="also print per-error-type tables: 1 operation, 2 main type, 3 full "
                          "type (metrics with typed edits, e.g. errant)")
    out.add_argument("--sentences", action="store_true",
                     help="include per-sentence scores (json/tsv) where the metric defines them")
    out.add_argument("--all-fields", action="store_true",
                     help="table: show every column of metrics that display a summary")
    add_report_arguments(groups.report)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score, build the report (cheap without resampling, per-type tables or sentences:
    the signatures only) and print it in the asked format."""
    from gecscope.reports.model import build_report, metric_details

    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    results = evaluate_all(metrics, data, hyps, args.quiet, getattr(args, "progress", False),
                           getattr(args, "jobs", 1), getattr(args, "backend", "local"),
                           getattr(args, "address", None))
    fmt = args.format
    types = fmt == "json" or bool(args.cat and fmt != "tsv")  # per-type tables are shown
    report = write_reports(args, data, hyps, results, metrics)
    if report is None:
        report = build_report(data, hyps, results, metrics,
                              sentences=fmt == "json" and args.sentences, types=types)
    if (types or getattr(args, "html", None)) and not args.quiet:
        # the report's notes: why its per-type tables are re-typed, or why there are none
        for note in report.inputs.get("warnings", []):
            print(f"gecscope: note: {note}", file=sys.stderr)
    out = sys.stdout
    if fmt == "json":
        from gecscope.reports.json import dumps_report

        out.write(dumps_report(report, sentences=args.sentences) + "\n")
        return 0
    if args.cat and not any(r.score.categories for r in results):
        print("gecscope: warning: --cat: none of the selected metrics "
              f"({', '.join(m.name for m in metrics)}) counts by error type; errant does",
              file=sys.stderr)
    if fmt == "tsv":
        from gecscope.reports.tsv import report_to_tsv

        out.write(report_to_tsv(report, sentences=args.sentences))
        return 0
    from gecscope.reports.tables import format_evaluation
    from gecscope.reports.text import colour_enabled

    listed = [m for m in metrics
              if getattr(args, "verbose", False) or getattr(m.config, "verbose", False)]
    if listed and fmt == "table":
        report.details = metric_details(results, listed)
    style = "plain" if fmt == "table" else fmt
    out.write(format_evaluation(report, style=style,
                                colour=style == "plain" and colour_enabled(out), cat=args.cat,
                                sentences=args.sentences, all_fields=args.all_fields))
    return 0

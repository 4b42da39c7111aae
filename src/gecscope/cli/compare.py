"""``gecscope compare``: rank systems and group those not significantly different."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.cli._inputs import (
    EVAL_USAGE,
    add_eval_arguments,
    add_report_arguments,
    build_metrics,
    drop_reference_hyps,
    evaluate_all,
    load_inputs,
    write_reports,
)
from gecscope.errors import ConfigError


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter

    p = sub.add_parser(
        "compare", help="rank systems with confidence intervals and significance clusters",
        usage=EVAL_USAGE, add_help=False, formatter_class=HelpFormatter,
        description="Score two or more systems, rank them by each metric, and group systems "
                    "that are not significantly different from the best system of their group "
                    "(paired bootstrap resampling or approximate randomisation over "
                    "per-sentence statistics; the metric is recomputed on every resample).")
    groups = add_eval_arguments(p)
    groups.output.add_argument(
        "--format", choices=["table", "json", "tsv", "markdown", "latex", "lines"],
        default="table",
        help="output format on stdout (default: table); lines: one 'metric rank cluster system "
             "score' line per system, tab-separated, no header (for scripts; what -q printed "
             "before -q meant quiet in every command)")
    groups.output.add_argument("--no-color", action="store_true", help="never colour the output")
    report = groups.report
    add_report_arguments(report, bootstrap_default=1000)
    report.add_argument("--test", choices=["bootstrap", "ar"], default="bootstrap",
                        help="paired bootstrap (default) or approximate randomisation")
    report.add_argument("--alpha", type=float, default=0.05,
                        help="significance level for the clusters (default: 0.05)")
    report.add_argument("--confidence", type=float, default=0.95,
                        help="confidence level of the intervals (default: 0.95)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if len(drop_reference_hyps(args)) < 2:
        raise ConfigError("compare needs at least two systems (--hyp A B ...)")
    if args.bootstrap < 1:
        raise ConfigError(f"--bootstrap must be a positive number of samples, got "
                          f"{args.bootstrap}")
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha must lie between 0 and 1, got {args.alpha}")
    if not 0 < args.confidence < 1:
        raise ConfigError(f"--confidence must lie between 0 and 1, got {args.confidence}")
    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    names = [h.name for h in hyps]
    if len(set(names)) != len(names):
        raise ConfigError(f"two systems have the same name ({', '.join(names)}); give "
                          "distinct names with --name")
    results = evaluate_all(metrics, data, hyps, args.quiet, getattr(args, "progress", False),
                           getattr(args, "jobs", 1), getattr(args, "backend", "local"),
                           getattr(args, "address", None))

    def progress(msg: str) -> None:
        if not args.quiet and sys.stderr.isatty():
            sys.stderr.write(msg + "\n")

    report = write_reports(args, data, hyps, results, metrics, sentences=bool(args.html),
                           title="gecscope comparison", progress=progress)
    assert report is not None  # --bootstrap >= 1 always asks for it
    out = sys.stdout
    if args.format == "json":
        from gecscope.reports.json import dumps_report

        out.write(dumps_report(report, sentences=False) + "\n")
    elif args.format == "tsv":
        from gecscope.reports.tsv import report_to_tsv

        out.write(report_to_tsv(report))
    else:
        from gecscope.reports.text import colour_enabled, format_ranking

        style = "plain" if args.format == "table" else args.format
        colour = style == "plain" and not args.no_color and colour_enabled(out)
        out.write(format_ranking(report, colour=colour, quiet=args.format == "lines",
                                 style=style))
    return 0

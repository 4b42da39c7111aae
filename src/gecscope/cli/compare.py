"""``gecscope compare``: rank systems and group those not significantly different."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.cli._inputs import (
    add_eval_arguments,
    add_report_arguments,
    build_metrics,
    evaluate_all,
    load_inputs,
    write_reports,
)
from gecscope.errors import ConfigError


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compare", help="rank systems with confidence intervals and significance clusters",
        description="Score two or more systems, rank them by each metric, and group systems "
                    "that are not significantly different from the best system of their group "
                    "(paired bootstrap resampling or approximate randomisation over "
                    "per-sentence statistics; the metric is recomputed on every resample).")
    add_eval_arguments(p)
    add_report_arguments(p, bootstrap_default=1000)
    p.add_argument("--test", choices=["bootstrap", "ar"], default="bootstrap",
                   help="paired bootstrap (default) or approximate randomisation")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level for the clusters (default: 0.05)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence level of the intervals (default: 0.95)")
    p.add_argument("--format", choices=["table", "json", "tsv", "markdown", "latex"],
                   default="table",
                   help="output format on stdout (default: table)")
    p.add_argument("--no-color", action="store_true", help="never colour the output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if len(args.hyp) < 2:
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
        out.write(format_ranking(report, colour=colour, quiet=args.quiet, style=style))
    return 0

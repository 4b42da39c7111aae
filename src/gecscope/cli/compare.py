"""``gecscope compare``: rank systems and group those not significantly different."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import EvalData, Hypothesis, Metric, SystemResult
    from gecscope.reports.model import Report


def add_parser(sub: Any) -> None:
    from gecscope.cli.evaluate import add_eval_arguments

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
    p.add_argument("--format", choices=["table", "json", "tsv"], default="table",
                   help="output format on stdout (default: table)")
    p.add_argument("--no-color", action="store_true", help="never colour the output")
    p.set_defaults(func=run)


def add_report_arguments(p: argparse.ArgumentParser, bootstrap_default: int = 0) -> None:
    """``--html``, ``--json-out``, ``--bootstrap N`` and ``--seed`` (shared with evaluate)."""
    p.add_argument("--bootstrap", type=int, default=bootstrap_default, metavar="N",
                   help="bootstrap resamples for 95%% confidence intervals and significance "
                        f"clusters (default: {bootstrap_default}{'' if bootstrap_default else ', none'})")
    p.add_argument("--seed", type=int, default=12345,
                   help="seed of the local random generator used for resampling (default: 12345)")
    p.add_argument("--json-out", metavar="FILE",
                   help="write the full JSON report (schema report-v1) to FILE")
    p.add_argument("--html", metavar="FILE",
                   help="write a self-contained HTML report (scores, types, sentences) to FILE")


def write_reports(args: argparse.Namespace, data: EvalData, hyps: Sequence[Hypothesis],
                  results: Sequence[SystemResult], metrics: Sequence[Metric], *,
                  sentences: bool | None = None, title: str | None = None,
                  progress: Callable[[str], None] | None = None) -> Report | None:
    """Build the report when ``--html``, ``--json-out`` or ``--bootstrap`` asks for it and
    write the requested files; returns it (``None`` when nothing was asked for) so a caller
    can also print it, e.g. with :func:`gecscope.reports.text.format_report`. Per-sentence
    rows are included when ``sentences`` says so (default: for ``--html``, ``--json-out`` and
    ``--sentences``)."""
    from gecscope.reports.model import build_report

    n = int(getattr(args, "bootstrap", 0) or 0)
    html = getattr(args, "html", None)
    json_out = getattr(args, "json_out", None)
    if not (n or html or json_out):
        return None
    if n < 0:
        raise ConfigError(f"--bootstrap must be a positive number of samples, got {n}")
    if sentences is None:
        sentences = bool(html or json_out or getattr(args, "sentences", False))
    report = build_report(data, hyps, results, metrics, n_samples=n,
                          seed=getattr(args, "seed", 12345),
                          test=getattr(args, "test", "bootstrap"),
                          confidence=getattr(args, "confidence", 0.95),
                          alpha=getattr(args, "alpha", 0.05), sentences=sentences,
                          progress=progress)
    if json_out:
        from gecscope.reports.json import write_json_report

        write_json_report(json_out, report)
    if html:
        from gecscope.reports.html import write_report_html

        write_report_html(html, report, title=title)
    return report


def run(args: argparse.Namespace) -> int:
    from gecscope.cli.evaluate import build_metrics, evaluate_all, load_inputs

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
    results = evaluate_all(metrics, data, hyps, args.quiet)

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

        colour = not args.no_color and colour_enabled(out)
        out.write(format_ranking(report, colour=colour, quiet=args.quiet))
    return 0

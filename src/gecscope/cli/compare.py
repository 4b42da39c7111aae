"""``gecscope compare``: rank systems and group those not significantly different."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

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
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.reports.model import Report


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
    from gecscope.cli.evaluate import add_attribution_arguments

    add_attribution_arguments(report, cat=False)
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
    from gecscope.cli.check import print_summary

    print_summary(data, hyps, getattr(args, "gate_findings", ()))  # the one line evaluate prints on what `check` would find
    force = getattr(args, "progress", False)
    if args.html:  # the report shows every system's edits: extracted once, scoring uses them
        hyps = _with_edits(data, hyps, args, force)
    results = evaluate_all(metrics, data, hyps, args.quiet, force,
                           getattr(args, "jobs", 1), getattr(args, "backend", "local"),
                           getattr(args, "address", None),
                           bool(args.html or args.json_out or args.format == "json"))

    def progress(msg: str) -> None:
        if not args.quiet and (force or sys.stderr.isatty()):
            sys.stderr.write(msg + "\n")

    if args.html or args.json_out or args.format == "json":
        from gecscope.cli.evaluate import attribution_request, close_progress

        attribution = attribution_request(args, results, n_sentences=len(data))
        try:
            report = write_reports(args, data, hyps, results, metrics,
                                   sentences=bool(args.html), title="gecscope comparison",
                                   progress=progress, attribution=attribution)
        finally:
            close_progress(attribution)
    else:  # nothing shown has per-type tables: leave them (and any re-typing) out
        from gecscope.reports.model import build_report

        if getattr(args, "attribution", None):
            print("gecscope: warning: --attribution: compare shows attributions only in "
                  "--html, --json-out and --format json", file=sys.stderr)

        report = build_report(data, hyps, results, metrics, n_samples=args.bootstrap,
                              seed=args.seed, test=args.test, confidence=args.confidence,
                              alpha=args.alpha, sentences=False, types=False,
                              progress=progress)
    assert report is not None  # --bootstrap >= 1 always asks for it
    _say_written(args, report)
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


def _with_edits(data: EvalData, hyps: list[Hypothesis], args: argparse.Namespace,
                force: bool) -> list[Hypothesis]:
    """The systems with their edits attached, for the HTML report's edit outcomes and for
    every metric that reads edits: extracted here once, all systems together on ``--jobs``
    processes with a progress display, so neither the scoring nor the report extracts any
    (the scores are those of the systems without them: the same edits)."""
    from gecscope.cli._common import Progress
    from gecscope.data import DERIVED_CACHE_SIZE
    from gecscope.progress import reporting
    from gecscope.reports.model import with_edits

    todo = len({h.key for h in hyps if data.known_hypothesis_m2(h) is None})
    batches = -(-todo // DERIVED_CACHE_SIZE)  # with_edits extracts at most that many at once
    bar = Progress(len(data) * batches, "extracting edits", args.quiet, unit="sentences",
                   force=force)
    try:
        with reporting(bar if todo else None):
            return with_edits(data, hyps, jobs=getattr(args, "jobs", 1))
    finally:
        if bar.done:
            bar.close()


def _say_written(args: argparse.Namespace, report: Report) -> None:
    """What was written, on stderr (unless ``-q``): the report's notes (e.g. the error-type
    scheme of its per-type tables when it is not the inputs' own) and the report files."""
    if args.quiet:
        return
    if args.html or args.json_out or args.format == "json":
        for note in report.inputs.get("warnings", []):
            print(f"gecscope: note: {note}", file=sys.stderr)
    what = f"{len(report.systems)} systems, {report.inputs.get('n_sentences', 0)} sentences"
    for path, kind in ((args.json_out, "JSON report"), (args.html, "HTML report")):
        if path:
            print(f"gecscope: wrote {kind} {path} ({what})", file=sys.stderr)

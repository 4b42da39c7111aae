"""``gecscope evaluate``: score one or more systems with any registered metric."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.metrics.base import EvalData, Hypothesis, Metric, SystemResult
from gecscope.registry import list_metrics


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "evaluate", help="score system outputs against references",
        description="Score hypotheses (plain text, one sentence per line, or an M2 of their "
                    "edits) against references (one M2 with all annotators, or plain-text "
                    "references with --source). One row per system.")
    add_eval_arguments(p)
    from gecscope.cli.compare import add_report_arguments

    add_report_arguments(p)
    p.add_argument("--format", choices=["table", "json", "tsv"], default="table",
                   help="output format on stdout (default: table); json follows the "
                        "versioned report schema (docs/reports.md)")
    p.add_argument("--cat", type=int, choices=[1, 2, 3],
                   help="also print per-error-type tables: 1 operation, 2 main type, 3 full "
                        "type (metrics with typed edits, e.g. errant)")
    p.add_argument("--sentences", action="store_true",
                   help="include per-sentence scores (json/tsv) where the metric defines them")
    p.add_argument("--all-fields", action="store_true",
                   help="table: show every column of metrics that display a summary")
    p.set_defaults(func=run)


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments shared by evaluate-like subcommands (also used by ``compare``)."""
    p.add_argument("-m", "--metric", action="append", default=None,
                   help=f"metric name, repeatable (default: errant); available: "
                        f"{', '.join(list_metrics())}")
    p.add_argument("-r", "--ref", nargs="+", default=[],
                   help="references: one M2 file, or several plain-text reference files "
                        "(omit for reference-less metrics such as usim, giving --source)")
    p.add_argument("-s", "--source", help="source text file (needed with plain-text references)")
    p.add_argument("--hyp", nargs="+", required=True,
                   help="hypothesis file(s): plain text or M2; one result row per file")
    p.add_argument("--name", nargs="+", help="system names (default: file names)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="metric option, e.g. beta=1.0 or errant.mode=ds (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress display")


def build_metrics(args: argparse.Namespace) -> list[Metric]:
    from gecscope.cli._common import make_metric

    return [make_metric(name, args.option) for name in args.metric or ["errant"]]


def load_inputs(args: argparse.Namespace) -> tuple[EvalData, list[Hypothesis]]:
    from gecscope.errors import ConfigError

    if not args.ref and not args.source:
        raise ConfigError("give the references (--ref) or, for a reference-less metric, "
                          "the source (--source)")
    data = EvalData(tuple(args.ref), args.source)
    names = args.name or [None] * len(args.hyp)
    if len(names) != len(args.hyp):
        raise ConfigError(f"--name gives {len(names)} names for {len(args.hyp)} hypotheses")
    n = len(data)
    origin = args.ref[0] if args.ref and data.m2 is not None else args.source
    hyps = [Hypothesis.from_file(h, nm, expected=n, expected_from=origin)
            for h, nm in zip(args.hyp, names)]
    return data, hyps


def evaluate_all(metrics: list[Metric], data: EvalData, hyps: list[Hypothesis],
                 quiet: bool = False) -> list[SystemResult]:
    from gecscope.cli._common import Progress

    progress = Progress(len(metrics) * len(hyps), "scoring", quiet)
    results = []
    for metric in metrics:
        for hyp in hyps:
            results.append(metric.evaluate(data, hyp))
            progress()
    progress.close()
    return results


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import render_table, render_tsv
    from gecscope.cli.compare import write_reports
    from gecscope.signature import signature

    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    results = evaluate_all(metrics, data, hyps, args.quiet)
    report = write_reports(args, data, hyps, results, metrics)
    out = sys.stdout
    if args.format == "json":
        from gecscope.reports.json import dumps_report
        from gecscope.reports.model import build_report

        if report is None:
            report = build_report(data, hyps, results, metrics, sentences=args.sentences)
        out.write(dumps_report(report, sentences=args.sentences) + "\n")
        return 0
    if args.format == "table" and report is not None and report.resampling:
        from gecscope.reports.text import colour_enabled, format_report

        out.write(format_report(report, colour=colour_enabled(out)))
        return 0
    by_metric: dict[str, list[SystemResult]] = {}
    for r in results:
        by_metric.setdefault(r.metric, []).append(r)
    blocks = []
    for m in metrics:
        rows_res = by_metric[m.name]
        if args.format == "tsv":
            header = ["system", *rows_res[0].score.fields]
            rows = [[r.system, *r.score.fields.values()] for r in rows_res]
            blocks.append(render_tsv(["metric", *header], [[m.name, *row] for row in rows]))
            if args.sentences:
                blocks.append(sentence_tsv(rows_res))
        else:
            shown = list(rows_res[0].score.display or rows_res[0].score.fields)
            if args.all_fields:
                shown = list(rows_res[0].score.fields)
            header = ["system", *shown]
            rows = [[r.system, *(r.score.fields[k] for k in shown)] for r in rows_res]
            title = rows_res[0].score.details.get("title") or m.description or m.name
            blocks.append(f"== {m.name}: {title} ==\n" + render_table(header, rows)
                          + f"\nsignature: {signature(m, data)}")
            if args.cat:
                blocks.extend(category_tables(m, rows_res, args.cat))
    out.write("\n\n".join(blocks) + "\n")
    return 0


def sentence_tsv(results: list[SystemResult]) -> str:
    from gecscope.cli._common import render_tsv

    rows = []
    for r in results:
        for i, s in enumerate(r.sentence_scores or []):
            rows.append([r.metric, r.system, i + 1, s])
    return render_tsv(["metric", "system", "sentence", "score"], rows)


def category_tables(metric: Metric, results: list[SystemResult], level: int) -> list[str]:
    from gecscope.cli._common import render_table
    from gecscope.metrics.counts import prf
    from gecscope.metrics.errant import category_table

    beta = getattr(metric.config, "beta", 0.5)
    blocks = []
    for r in results:
        cats = r.score.details.get("categories")
        if not cats:
            continue
        table = category_table(cats, level)
        rows = [[k, v[0], v[1], v[2], *prf(v[0], v[1], v[2], beta)]
                for k, v in sorted(table.items())]
        blocks.append(f"-- {r.system}: {metric.name} by error type (level {level}) --\n"
                      + render_table(["type", "TP", "FP", "FN", "P", "R", f"F{beta:g}"], rows))
    return blocks

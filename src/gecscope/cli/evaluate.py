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
from gecscope.metrics.base import Metric, SystemResult


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
    from gecscope.cli._common import render_tsv
    from gecscope.reports.text import render_table
    from gecscope.signature import signature

    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    results = evaluate_all(metrics, data, hyps, args.quiet, getattr(args, "progress", False),
                           getattr(args, "jobs", 1), getattr(args, "backend", "local"),
                           getattr(args, "address", None))
    if (args.cat or args.html or args.format == "json") and any(r.score.categories
                                                                for r in results):
        warn_type_schemes(data, hyps)  # per-type tables are shown
    report = write_reports(args, data, hyps, results, metrics)
    out = sys.stdout
    if args.format == "json":
        from gecscope.reports.json import dumps_report
        from gecscope.reports.model import build_report

        if report is None:
            report = build_report(data, hyps, results, metrics, sentences=args.sentences)
        out.write(dumps_report(report, sentences=args.sentences) + "\n")
        return 0
    by_metric: dict[str, list[SystemResult]] = {}
    for r in results:
        by_metric.setdefault(r.metric, []).append(r)
    if args.cat and not any(r.score.categories for r in results):
        print("gecscope: warning: --cat: none of the selected metrics "
              f"({', '.join(m.name for m in metrics)}) counts by error type; errant does",
              file=sys.stderr)
    if args.format in ("markdown", "latex") or (
            args.format == "table" and report is not None and report.resampling):
        from gecscope.reports.model import build_report
        from gecscope.reports.text import colour_enabled, format_report

        if report is None:
            report = build_report(data, hyps, results, metrics, sentences=args.sentences)
        style = "plain" if args.format == "table" else args.format
        text = format_report(report, colour=style == "plain" and colour_enabled(out),
                             style=style)
        extra = [b for m in metrics for b in extra_blocks(args, m, by_metric[m.name], style)]
        out.write(text + ("\n" + "\n\n".join(extra) + "\n" if extra else ""))
        return 0
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
            title = rows_res[0].score.title or m.description or m.name
            blocks.append(f"== {m.name}: {title} ==\n" + render_table(header, rows)
                          + f"\nsignature: {signature(m, data)}")
            blocks.extend(extra_blocks(args, m, rows_res, "plain"))
    out.write("\n\n".join(blocks) + "\n")
    return 0


def titled(text: str, table: str, style: str) -> str:
    """A sub-table under its title, in the output style."""
    if style == "markdown":
        return f"*{text}*\n\n{table}"
    return (f"% {text}" if style == "latex" else f"-- {text} --") + "\n" + table


def extra_blocks(args: argparse.Namespace, metric: Metric, results: list[SystemResult],
                 style: str) -> list[str]:
    """What --cat, --sentences and -v add under a metric's scores, in the table ``style``."""
    blocks = []
    if args.cat:
        blocks.extend(category_tables(metric, results, args.cat, style))
    if args.sentences:
        blocks.extend(sentence_tables(metric, results, style))
    if style == "plain" and (getattr(args, "verbose", False)
                             or getattr(metric.config, "verbose", False)):
        blocks.extend(verbose_blocks(metric, results))
    return blocks


def sentence_tables(metric: Metric, results: list[SystemResult], style: str) -> list[str]:
    """Sentence scores, one column per system (--sentences)."""
    from gecscope.reports.text import render_table

    if not results or results[0].sentence_scores is None:
        return []
    header = ["sentence", *(r.system for r in results)]
    rows = [[i + 1, *(r.sentence_scores[i] if r.sentence_scores else None for r in results)]
            for i in range(len(results[0].sentence_scores))]
    return [titled(f"{metric.name}: sentence scores", render_table(header, rows, style=style),
                   style)]


def warn_type_schemes(data: Any, hyps: list[Any]) -> None:
    """Warn (stderr) when reference and hypothesis edits are typed in different schemes."""
    from gecscope.checks import type_set_warning

    if data.m2 is None:  # plain-text references are annotated with ERRANT, as hypotheses are
        return
    ref_types = [e.type for s in data.m2 for a in s.annotations for e in a.edits]
    for h in hyps:
        hyp_types = ([e.type for s in h.m2 for a in s.annotations for e in a.edits]
                     if h.m2 is not None else ["R:OTHER"])  # text: annotated with ERRANT
        warning = type_set_warning(h.name, ref_types, hyp_types)
        if warning:
            print(f"gecscope: warning: {warning}", file=sys.stderr)


def verbose_blocks(metric: Metric, results: list[SystemResult]) -> list[str]:
    """m2scorer ``-v``-style listings: per sentence the annotator the corpus-order choice kept,
    the proposed, gold and correct edits (``start end|||original|||correction``), the counts."""
    from gecscope.metrics.m2 import M2Metric

    if not isinstance(metric, M2Metric):
        return []

    def edits(es: Any) -> str:
        return "; ".join(f"({a}, {b}) {o!r} -> {c!r}" for a, b, o, c in es) or "-"

    out = []
    for r in results:
        lines = [f"-- {r.system}: {metric.name} per sentence (m2scorer -v) --"]
        for d in metric.details(r.stats):
            c, p, g = d.counts
            lines.append(f"sentence {d.index + 1}  annotator {d.annotator}  "
                         f"correct {c}  proposed {p}  gold {g}")
            lines.append(f"  proposed: {edits(d.proposed)}")
            lines.append(f"  gold:     {edits(d.gold)}")
            lines.append(f"  correct:  {edits(d.correct)}")
        out.append("\n".join(lines))
    return out


def sentence_tsv(results: list[SystemResult]) -> str:
    from gecscope.cli._common import render_tsv

    rows = []
    for r in results:
        for i, s in enumerate(r.sentence_scores or []):
            rows.append([r.metric, r.system, i + 1, s])
    return render_tsv(["metric", "system", "sentence", "score"], rows)


def category_tables(metric: Metric, results: list[SystemResult], level: int,
                    style: str = "plain") -> list[str]:
    from gecscope.metrics.errant import category_table
    from gecscope.reports.text import render_table
    from gecscope.stats.prf import prf

    beta = getattr(metric.config, "beta", 0.5)
    blocks = []
    for r in results:
        cats = r.score.categories
        if not cats:
            continue
        table = category_table(cats, level)
        rows = [[k, v[0], v[1], v[2], *prf(v[0], v[1], v[2], beta)]
                for k, v in sorted(table.items())]
        table_text = render_table(["type", "TP", "FP", "FN", "P", "R", f"F{beta:g}"], rows,
                                  style=style)
        blocks.append(titled(f"{r.system}: {metric.name} by error type (level {level})",
                             table_text, style))
    return blocks

"""The tables ``gecscope evaluate`` prints: each metric's scores and what ``--cat``,
``--sentences`` and ``-v`` add under them, as terminal text, Markdown or LaTeX.

Everything is read from a :class:`~gecscope.reports.model.Report`: the scores and the fields a
metric shows by default (``MetricInfo.display``), the per-type counts (``Report.per_type``,
built by :func:`~gecscope.reports.model.type_counts`, so that reference and system edits are
typed in one scheme), the sentence scores (``ScoreEntry.sentence_scores``) and the metrics'
sentence listings (``Report.details``, from :meth:`Metric.details
<gecscope.metrics.base.Metric.details>`). No metric class is named here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gecscope.reports.model import MetricInfo, Report, ScoreEntry
from gecscope.reports.text import format_report, render_table, reported_mark, reported_notes
from gecscope.stats.prf import prf

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import SentenceDetail, SpanEdit


def format_evaluation(report: Report, *, style: str = "plain", colour: bool = False,
                      cat: int | None = None, sentences: bool = False,
                      all_fields: bool = False) -> str:
    """The scores of every metric, each followed by its per-type tables (``cat``: level 1
    operation, 2 main type, 3 full type), its sentence scores (``sentences``) and, on a
    terminal, its sentence listing (whatever ``report.details`` holds). A report with
    resampling, and the ``markdown`` and ``latex`` styles, show the scores as
    :func:`~gecscope.reports.text.format_report` does, the additions after them."""
    if report.resampling or style != "plain":
        text = format_report(report, colour=colour and style == "plain", style=style)
        extra = [b for m in report.metrics
                 for b in metric_additions(report, m, style, cat=cat, sentences=sentences)]
        return text + ("\n" + "\n\n".join(extra) + "\n" if extra else "")
    blocks: list[str] = []
    for m in report.metrics:
        blocks.append(score_table(report, m, all_fields=all_fields))
        blocks.extend(metric_additions(report, m, style, cat=cat, sentences=sentences))
    notes = reported_notes(report).rstrip("\n")
    if notes:
        blocks.append(notes)
    return "\n\n".join(blocks) + "\n"


def _entries(report: Report, metric: str) -> list[ScoreEntry]:
    return [s for s in report.scores if s.metric == metric]


def score_table(report: Report, m: MetricInfo, *, all_fields: bool = False) -> str:
    """``== name: title ==``, one row per system with the fields the metric shows by default
    (every field with ``all_fields``), and the signature."""
    entries = _entries(report, m.name)
    fields = entries[0].fields if entries else {}
    shown = list(fields) if all_fields else list(m.display or fields)
    rows = [[s.system, *(s.fields[k] for k in shown)] for s in entries]
    title = m.title or m.description or m.name
    return (f"== {m.name}: {title} =={reported_mark(report, m.name)}\n" + render_table(["system", *shown], rows)
            + f"\nsignature: {m.signature}" + "".join(f"\nnote: {n}" for n in m.notes))


def titled(text: str, table: str, style: str) -> str:
    """A sub-table under its title, in the output style."""
    if style == "markdown":
        return f"*{text}*\n\n{table}"
    return (f"% {text}" if style == "latex" else f"-- {text} --") + "\n" + table


def metric_additions(report: Report, m: MetricInfo, style: str, *, cat: int | None = None,
                     sentences: bool = False) -> list[str]:
    """What ``--cat``, ``--sentences`` and ``-v`` add under a metric's scores (the sentence
    listing on a terminal only)."""
    blocks = []
    if cat:
        blocks.extend(type_tables(report, m, cat, style))
        blocks.extend(attribution_type_tables(report, m, cat, style))
    if sentences:
        blocks.extend(sentence_tables(report, m, style))
    if style == "plain":
        blocks.extend(detail_listings(report, m))
    return blocks


def type_tables(report: Report, m: MetricInfo, level: int, style: str = "plain") -> list[str]:
    """Per system, the metric's counts by error type at ``level`` (1 operation, 2 main type,
    3 full type: :func:`gecscope.metrics.errant.category_table`) with P, R and F."""
    from gecscope.metrics.errant import category_table

    beta = m.options.get("beta", 0.5)
    blocks = []
    for system, type_rows in report.per_type.get(m.name, {}).items():
        cats = {row.type: [row.tp, row.fp, row.fn] for row in type_rows}
        table = category_table(cats, level)
        rows = [[k, v[0], v[1], v[2], *prf(v[0], v[1], v[2], beta)]
                for k, v in sorted(table.items())]
        text = render_table(["type", "TP", "FP", "FN", "P", "R", f"F{beta:g}"], rows,
                            style=style)
        blocks.append(titled(f"{system}: {m.name} by error type (level {level})", text, style))
    return blocks


def _signed(v: float) -> str:
    return f"{v:+.4f}"


def attribution_type_tables(report: Report, m: MetricInfo, level: int,
                            style: str = "plain") -> list[str]:
    """Per system, the sum of its edits' attributions (shares of each sentence's delta M) by
    error type at ``level``, the same rows as :func:`type_tables`
    (:func:`~gecscope.reports.attribution.type_shares`), with the number of edits, the mean
    share, the total and the sum over sentences of delta M (equal to the total for Shapley
    values); the title says it is an attribution and by which method. A metric that cannot be
    attributed (no sentence scores) gets the reason instead of a table."""
    from gecscope.reports.attribution import type_shares

    table = report.attributions.get(m.name)
    if table is None:
        return []
    if table.note is not None:
        return [titled(f"{m.name}: no per-type attribution", table.note, style)]
    blocks = []
    for system, rows in table.rows.items():
        shown = type_shares(rows, level)
        body = [[r.type, r.edits, _signed(r.value), _signed(r.value / r.edits) if r.edits
                 else "-"] for r in shown]
        n = sum(r.edits for r in shown)
        total = sum(r.value for r in rows)
        body.append(["all types", n, _signed(total), _signed(total / n) if n else "-"])
        text = render_table(["type", "edits", "sum", "mean"], body, style=style)
        delta = table.delta[system]
        undefined = table.undefined.get(system, 0)
        n_sent = len(table.shares.get(system, ())) - undefined
        sep = {"markdown": "\n\n", "latex": "\n% "}.get(style, "\n")
        text += sep + f"delta {m.name} summed over the {n_sent} sentences: {_signed(delta)}"
        if undefined:
            text += f" ({undefined} with no number (NaN) left out)"
        blocks.append(titled(f"{system}: {m.name} by error type (level {level}), "
                             f"{table.describe()}", text, style))
    return blocks


def sentence_tables(report: Report, m: MetricInfo, style: str = "plain") -> list[str]:
    """Sentence scores, one column per system (``--sentences``)."""
    entries = _entries(report, m.name)
    if not entries or entries[0].sentence_scores is None:
        return []
    header = ["sentence", *(s.system for s in entries)]
    rows = [[i + 1, *(s.sentence_scores[i] if s.sentence_scores else None for s in entries)]
            for i in range(len(entries[0].sentence_scores))]
    return [titled(f"{m.name}: sentence scores", render_table(header, rows, style=style),
                   style)]


def _edits(es: Sequence[SpanEdit]) -> str:
    return "; ".join(f"({a}, {b}) {o!r} -> {c!r}" for a, b, o, c in es) or "-"


def detail_listing(system: str, metric: str, listing: Sequence[SentenceDetail]) -> str:
    """``m2scorer -v``-style lines: per sentence the annotator the scoring kept, the
    proposed, gold and correct edits (``(start, end) 'original' -> 'correction'``) and the
    counts."""
    lines = [f"-- {system}: {metric} per sentence (m2scorer -v) --"]
    for d in listing:
        c, p, g = d.counts
        lines.append(f"sentence {d.index + 1}  annotator {d.annotator}  "
                     f"correct {c}  proposed {p}  gold {g}")
        lines.append(f"  proposed: {_edits(d.proposed)}")
        lines.append(f"  gold:     {_edits(d.gold)}")
        lines.append(f"  correct:  {_edits(d.correct)}")
    return "\n".join(lines)


def detail_listings(report: Report, m: MetricInfo) -> list[str]:
    """The metric's sentence listing of every system the report holds one for (``-v``)."""
    return [detail_listing(system, m.name, listing)
            for system, listing in report.details.get(m.name, {}).items()]

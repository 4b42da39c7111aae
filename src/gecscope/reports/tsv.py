"""TSV output of a report, the one schema of ``evaluate --format tsv`` and ``compare --format
tsv``: long (tidy) format, one row per system, metric and score field.

Columns: ``system metric field value bootstrap_ci_low bootstrap_ci_high main rank cluster
signature sentence`` (the interval: percentile bootstrap over the sentences; a metric's own
interval is a field of its own, named for what it is over, e.g. GLEU's ``draws_ci_low``).
``main`` is ``1`` on the headline field's row. ``sentence`` is empty on corpus rows; with
per-sentence scores (``evaluate --sentences``) each system and metric gets one more row per
sentence after the corpus rows: ``field`` the headline field's name, ``main`` 1, ``sentence``
the 1-based sentence number, ``value`` the metric's score of that sentence alone. Empty cells
mean "not computed" (no resampling, no rank, no sentence score). Floats are written with
``repr`` (round-trip exact); a non-finite score is an empty cell.
"""

from __future__ import annotations

from typing import Any

from gecscope.reports.model import Report, clean

HEADER = ("system", "metric", "field", "value", "bootstrap_ci_low", "bootstrap_ci_high", "main",
          "rank", "cluster", "signature", "sentence")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v).replace("\t", " ").replace("\n", " ")


def report_rows(report: Report, *, sentences: bool = False) -> list[tuple[Any, ...]]:
    """The rows of :data:`HEADER`: every score field, then (``sentences``) every sentence
    score."""
    sigs = {m.name: m.signature for m in report.metrics}
    rows: list[tuple[Any, ...]] = []
    for s in report.scores:
        fields = dict(s.fields)
        if s.main not in fields:
            fields = {s.main: s.value, **fields}
        for name, value in fields.items():
            iv = s.interval if name == s.main else s.field_intervals.get(name)
            rows.append((s.system, s.metric, name, value, iv["low"] if iv else None,
                         iv["high"] if iv else None, int(name == s.main), s.rank, s.cluster,
                         sigs.get(s.metric, ""), None))
    if sentences:
        for s in report.scores:
            for i, v in enumerate(s.sentence_scores or []):
                rows.append((s.system, s.metric, s.main, clean(v), None, None, 1, None, None,
                             sigs.get(s.metric, ""), i + 1))
    return rows


def report_to_tsv(report: Report, *, sentences: bool = False) -> str:
    """The report as TSV (:data:`HEADER`; ``sentences``: with the sentence scores)."""
    lines = ["\t".join(HEADER)]
    lines += ["\t".join(_cell(v) for v in row) for row in report_rows(report, sentences=sentences)]
    return "\n".join(lines) + "\n"

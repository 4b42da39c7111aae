"""TSV output of a report: one row per system, metric and score field (long format).

Columns: ``system metric field value ci_low ci_high main rank cluster signature``. ``main`` is
``1`` on the headline field's row. Empty cells mean "not computed" (no resampling, no rank).
Floats are written with ``repr`` (round-trip exact).
"""

from __future__ import annotations

from typing import Any

from gecscope.reports.model import Report

HEADER = ("system", "metric", "field", "value", "ci_low", "ci_high", "main", "rank", "cluster",
          "signature")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v).replace("\t", " ").replace("\n", " ")


def report_rows(report: Report) -> list[tuple[Any, ...]]:
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
                         sigs.get(s.metric, "")))
    return rows


def report_to_tsv(report: Report) -> str:
    lines = ["\t".join(HEADER)]
    lines += ["\t".join(_cell(v) for v in row) for row in report_rows(report)]
    return "\n".join(lines) + "\n"

"""JSON output of a report, following the versioned schema ``schema/report-v1.json``.

The document is an object with ``schema`` (the schema id) and ``schema_version`` (``"1.0"``;
the minor number grows for backward-compatible additions, the major number on breaking
changes), then ``gecscope_version``, ``created``, ``inputs``, ``resampling``, ``systems``,
``metrics`` (name, options, signatures, and the ``notes`` printed under its table, e.g.
which ``fix_*`` option moved a number away from the official scorer's; since 1.1),
``scores`` (one per system and metric, with fields, intervals, rank and significance
cluster), ``comparisons``, ``per_type``, ``attributions`` (when
asked for: each metric's edit attributions summed by type; since 1.1), ``reported`` (when
the references are a known test set: the figure its papers report, and why the others differ;
since 1.2), ``costs`` (when ``evaluate --top N`` asked for it: per system and metric, the
sentences, edits and error types that cost or earned it most, as ``gecscope explain --top``
prints them with ``--format json``; optional, in 1.2) and ``sentences`` (with each sentence's attributions). Every bootstrap interval
says what it is over (``over``: ``sentences``, ``method``; since 1.2); a metric's own interval
is a field named for what it is over (GLEU's ``draws_ci_low``/``draws_ci_high``: over
reference draws).
Non-finite numbers are written as ``null`` so the output is strict JSON.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from gecscope.formats.base import atomic_write
from gecscope.reports.model import SCHEMA_ID, Report


def _type_row(row: Any) -> dict[str, Any]:
    d = {"type": row.type, "tp": row.tp, "fp": row.fp, "fn": row.fn, "p": row.p, "r": row.r,
         "f": row.f}
    if row.fp_ne is not None:
        d["fp_ne"] = row.fp_ne
        d["fp_un"] = row.fp_un
    return d


def _attributions(report: Report) -> dict[str, Any]:
    return {name: {"method": t.method, "description": t.describe(), "max_exact": t.max_exact,
                   "note": t.note,
                   "systems": {system: {"delta": t.delta[system],
                                        "total": math.fsum(r.value for r in rows),
                                        "sampled": t.sampled.get(system, 0),
                                        "per_type": [{"type": r.type, "value": r.value,
                                                      "edits": r.edits} for r in rows]}
                               for system, rows in t.rows.items()}}
            for name, t in report.attributions.items()}


def _sentence_attributions(report: Report, index: int, system: str) -> dict[str, Any]:
    out = {}
    for name, t in report.attributions.items():
        shares = t.shares.get(system)
        if shares is not None and index < len(shares):
            out[name] = shares[index].as_dict()
    return out


def _system_sentence(report: Report, index: int, name: str, ss: Any) -> dict[str, Any]:
    d = {"hypothesis": ss.hypothesis, "reference": ss.reference,
         "edits": [e.as_dict() for e in ss.edits], "scores": ss.scores}
    attributions = _sentence_attributions(report, index, name)
    if attributions:
        d["attributions"] = attributions
    return d


def report_to_json(report: Report, *, sentences: bool = True) -> dict[str, Any]:
    """The report as a JSON-ready dict (``sentences=False`` drops the per-sentence section)."""
    doc: dict[str, Any] = finite({
        "schema": SCHEMA_ID,
        "schema_version": report.schema_version,
        "gecscope_version": report.gecscope_version,
        "created": report.created,
        "inputs": report.inputs,
        "resampling": report.resampling,
        "systems": list(report.systems),
        "metrics": [{"name": m.name, "main": m.main, "description": m.description,
                     "options": m.options, "signature": m.signature,
                     "signature_long": m.signature_long,
                     **({"notes": list(m.notes)} if m.notes else {})}
                    for m in report.metrics],
        "scores": [{"system": s.system, "metric": s.metric, "value": s.value, "main": s.main,
                    "fields": s.fields, "interval": s.interval,
                    "field_intervals": s.field_intervals, "rank": s.rank,
                    "cluster": s.cluster} for s in report.scores],
        "comparisons": report.comparisons,
        "pairwise": report.pairwise,
        "per_type": {table: {system: [_type_row(r) for r in rows]
                             for system, rows in per_sys.items()}
                     for table, per_sys in report.per_type.items()},
        **({"attributions": _attributions(report)} if report.attributions else {}),
        **({"reported": report.reported.as_dict()} if report.reported is not None else {}),
        **({"costs": [c.as_dict() for c in report.costs]} if report.costs else {}),
        "sentences": [] if not sentences else [
            {"index": s.index, "source": s.source,
             "references": [{"annotator": r.annotator, "text": r.text, "edits": r.edits}
                            for r in s.references],
             "systems": {name: _system_sentence(report, s.index, name, ss)
                         for name, ss in s.systems.items()}}
            for s in report.sentences],
    })
    return doc


def finite(obj: Any) -> Any:
    """Replace non-finite floats anywhere in ``obj`` by ``None`` (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj


def dumps_report(report: Report, *, sentences: bool = True, indent: int | None = 2) -> str:
    return json.dumps(report_to_json(report, sentences=sentences), indent=indent,
                      ensure_ascii=False, allow_nan=False)


def write_json_report(path: str | Path, report: Report, *, sentences: bool = True) -> None:
    """Write the report as JSON (atomically)."""
    atomic_write(path, [dumps_report(report, sentences=sentences), "\n"])


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report document."""
    text = resources.files("gecscope.reports").joinpath("schema/report-v1.json").read_text(
        encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema

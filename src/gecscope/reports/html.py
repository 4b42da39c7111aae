"""A self-contained HTML report: one file, inline CSS, JavaScript and SVG, no network access.

Sections: a score table for every system and metric (with bootstrap intervals, ranks and
significance clusters when resampling was done, and each metric's signature); a chart of the
four disentangled CLEME2.0 scores (Hit, Wrong, Under, Over) for every metric whose Score has
those fields; per-error-type tables (from ``Score.categories`` of metrics that give
them, and the report's own edit outcomes); and a sentence browser showing source, references
and each system's hypothesis with its edits coloured by outcome (TP, FP necessary, FP
unnecessary, FN, as in the CLEME2.0 paper's Figure 1), searchable and filterable by system,
outcome and error type. The sentence data is embedded as JSON and rendered by a small script,
page by page.

For a paper: systems are in the order of their score everywhere (:func:`system_order`: a
metric's own tables and figures by that metric, the others by the first metric); every table
downloads as CSV and LaTeX and every figure as SVG (:mod:`gecscope.reports.html_export`,
written when the page is built).

A section is a function ``(page: Page) -> Section | None`` (None: nothing to show); to add
one, write it and add its call to the list in :func:`render_html`. Its tables register their
downloads with ``page.exports.table(...)``, its figures get :func:`svg_button`; its style
rules go in ``Section.css``; an inline script it needs goes in ``Section.scripts``, whose
hashes the page's Content-Security-Policy allows (no inline event handlers: they are refused).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gecscope.formats.base import atomic_write
from gecscope.reports.html_assets import CSS, JS
from gecscope.reports.html_charts import (
    COLOURS,
    DISENTANGLED,
    disentangled_chart,
    figure_id,
    interval_chart,
    ordered_scores,
    system_order,
)
from gecscope.reports.html_costs import COSTS_CSS, render_costs_html
from gecscope.reports.html_export import Exports, svg_button
from gecscope.reports.json import finite
from gecscope.reports.model import OUTCOME_TABLE, Report, ScoreEntry, TypeRow, build_report
from gecscope.reports.outcomes import OUTCOME_LABELS, OUTCOMES
from gecscope.reports.text import fmt, integral_column

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData, Hypothesis
    from gecscope.explain.corpus import CorpusCosts
    from gecscope.metrics.base import Metric, SystemResult

__all__ = ["COLOURS", "DISENTANGLED", "Page", "Section", "costs_section", "disentangled_chart",
           "interval_chart", "render_costs_page", "render_html", "render_page", "script_hash",
           "significance_matrix", "system_order", "write_costs_html", "write_html_report",
           "write_report_html"]


@dataclass
class Page:
    """What the sections of one page share: the report and the page's downloads."""

    report: Report
    exports: Exports = field(default_factory=Exports)

    def order(self, metric: str | None = None) -> list[str]:
        """The systems by ``metric``'s score, best first (the first metric's for None)."""
        return system_order(self.report, metric)


@dataclass
class Section:
    """One ``<section>`` of the page: its id (the nav's anchor), nav label, heading and body;
    ``css``: rules the body needs, added to the page's stylesheet; ``scripts``: inline
    scripts it needs, run with their hash in the Content-Security-Policy."""

    id: str
    nav: str
    title: str
    body: str
    css: str = ""
    scripts: tuple[str, ...] = ()

    def html(self) -> str:
        return (f'<section id="{_e(self.id)}"><h2>{_e(self.title)}</h2>{self.body}</section>'
                + "".join(f"<script>{s}</script>" for s in self.scripts))


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def _num(v: Any, digits: int = 4) -> str:
    return "–" if v is None else _e(fmt(v, digits))


def _interval(s: ScoreEntry) -> str:
    if not s.interval:
        return ""
    return (f'<span class="ci">[{_num(s.interval["low"])}, {_num(s.interval["high"])}]'
            "</span>")


def _low_high(s: ScoreEntry | None) -> list[Any]:
    iv = s.interval if s is not None else None
    return [iv["low"], iv["high"]] if iv else [None, None]


def _p(p: float) -> str:
    """A p-value as printed: unsigned, three decimals (``<0.001`` below that)."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _overview(page: Page) -> str:
    """Systems x metrics, headline values with intervals, by the first metric's score."""
    report = page.report
    head = "".join(f"<th data-sort=\"num\">{_e(m.name)} <small>{_e(m.main)}</small></th>"
                   for m in report.metrics)
    with_iv = {m.name for m in report.metrics
               if any(s.interval for s in report.scores if s.metric == m.name)}
    rows, data = [], []
    for system in page.order():
        cells, values = [], [system]
        for m in report.metrics:
            s = report.score(system, m.name)
            values += [s.value if s is not None else None] + (
                _low_high(s) if m.name in with_iv else [])
            if s is None:
                cells.append("<td>–</td>")
                continue
            cls = ' class="best"' if s.cluster == 1 else ""
            cells.append(f'<td{cls} data-v="{_num(s.value, 10)}">{_num(s.value)} '
                         f"{_interval(s)}</td>")
        rows.append(f"<tr><th scope=\"row\">{_e(system)}</th>{''.join(cells)}</tr>")
        data.append(values)
    header = ["system"] + [h for m in report.metrics for h in
                           [f"{m.name} {m.main}"] + ([f"{m.name} low", f"{m.name} high"]
                                                     if m.name in with_iv else [])]
    buttons = page.exports.table("scores", "scores of every system and metric", header, data)
    return (f'<p class="tools">all metrics{buttons}</p><div class="scroll">'
            f'<table class="sortable" id="overview"><thead><tr><th data-sort="text">system</th>'
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _metric_table(page: Page, name: str) -> str:
    report = page.report
    info = report.metric(name)
    assert info is not None
    entries = ordered_scores(report, name)
    ranked = any(s.rank is not None for s in entries)
    with_iv = any(s.interval for s in entries)
    fields: list[str] = []
    for s in entries:
        fields += [k for k in s.fields if k != s.main and k not in fields]
    comps = {c["system_b"]: c for c in report.comparisons if c.get("metric") == name}
    head = (("<th data-sort=\"num\">rank</th><th data-sort=\"num\">cluster</th>" if ranked
             else "") + "<th data-sort=\"text\">system</th>"
            f"<th data-sort=\"num\">{_e(info.main)}</th>"
            + ("<th>95% interval</th>" if with_iv else "")
            + ("<th title=\"paired test against the best system of the cluster above\">"
               "tested against (p)</th>" if comps else "")
            + "".join(f"<th data-sort=\"num\">{_e(f)}</th>" for f in fields))
    counts = {f for f in fields if integral_column([s.fields.get(f) for s in entries])}
    rows, data = [], []
    for s in entries:
        cls = ' class="best"' if s.cluster == 1 else ""
        cells = ([f"<td>{_num(s.rank)}</td><td>{_num(s.cluster)}</td>"] if ranked else [])
        values: list[Any] = [s.rank, s.cluster] if ranked else []
        cells.append(f"<th scope=\"row\">{_e(s.system)}</th>")
        cells.append(f"<td{cls} data-v=\"{_num(s.value, 10)}\">{_num(s.value)}</td>")
        values += [s.system, s.value]
        if with_iv:
            cells.append(f"<td>{_interval(s)}</td>")
            values += _low_high(s)
        if comps:
            c = comps.get(s.system)
            cells.append(f"<td>{_e(c['system_a'])} (p = {c['p_value']:.4f})</td>" if c else
                         "<td>–</td>")
            values += [c["system_a"], c["p_value"]] if c else [None, None]
        for f in fields:
            v = s.fields.get(f)
            iv = s.field_intervals.get(f)
            tip = f' title="{_num(iv["low"])} – {_num(iv["high"])}"' if iv else ""
            shown = _num(int(v)) if f in counts and isinstance(v, float) else _num(v)
            cells.append(f"<td{tip} data-v=\"{_num(v, 10)}\">{shown}</td>")
            values.append(int(v) if f in counts and isinstance(v, float) else v)
        rows.append(f"<tr>{''.join(cells)}</tr>")
        data.append(values)
    header = ((["rank", "cluster"] if ranked else []) + ["system", info.main]
              + (["low", "high"] if with_iv else [])
              + (["tested against", "p"] if comps else []) + fields)
    what = info.title or info.description
    buttons = page.exports.table(f"metric-{name}", f"{name}{': ' + what if what else ''} "
                                 f"({info.signature})", header, data)
    desc = f" <small>{_e(info.description)}</small>" if info.description else ""
    return (f'<section class="metric" id="metric-{_e(name)}"><h3>{_e(name)}{desc}{buttons}</h3>'
            f'<table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p class="sig">signature: <code title="{_e(info.signature_long)}">'
            f"{_e(info.signature)}</code></p>"
            + "".join(f'<p class="meta">note: {_e(n)}</p>' for n in info.notes)
            + "</section>")


def _pairs(report: Report, metric: str
           ) -> tuple[list[str], dict[tuple[str, str], tuple[float, float]], float] | None:
    """The systems tested (by score), each ordered pair's (row − column delta, p), alpha."""
    pairs = [c for c in report.pairwise if c["metric"] == metric]
    if not pairs or report.resampling is None:
        return None
    cell: dict[tuple[str, str], tuple[float, float]] = {}
    for c in pairs:
        cell[(c["system_a"], c["system_b"])] = (float(c["delta"]), float(c["p_value"]))
        cell[(c["system_b"], c["system_a"])] = (-float(c["delta"]), float(c["p_value"]))
    tested = {a for a, _ in cell}
    order = [s.system for s in ordered_scores(report, metric) if s.system in tested]
    return order, cell, float(report.resampling["alpha"])


def _arrow(delta: float) -> tuple[str, str]:
    """The direction mark of a row − column difference and the word it stands for."""
    if delta > 0:
        return "▲", "row"
    if delta < 0:
        return "▼", "column"
    return "=", "neither"


def significance_matrix(report: Report, metric: str) -> str | None:
    """A table of paired-test p-values between every two systems, best first: each cell the
    p-value (unsigned) and an arrow, ▲ where the row system scored higher, ▼ where the column
    system did (the tooltip says which and by how much); shaded where p < alpha. None
    without pairwise tests."""
    got = _pairs(report, metric)
    if got is None:
        return None
    order, cell, alpha = got
    head = "".join(f'<th scope="col">{_e(s)}</th>' for s in order)
    body = []
    for a in order:
        tds = []
        for b in order:
            if a == b:
                tds.append('<td class="empty">–</td>')
                continue
            delta, p = cell[(a, b)]
            sig = p < alpha
            cls = ("sig-better" if delta > 0 else "sig-worse") if sig else "not-sig"
            mark, who = _arrow(delta)
            better = {"row": f"{a} scored higher", "column": f"{b} scored higher",
                      "neither": "equal scores"}[who]
            tds.append(f'<td class="{cls}" data-p="{p!r}" data-better="{who}" '
                       f'title="{_e(a)} − {_e(b)} = {delta:+.4f}, p = {p:.4f} ({_e(better)}'
                       f'{"" if sig else ", not significant"})">{_p(p)} '
                       f'<span class="dir" aria-label="{_e(better)}">{mark}</span></td>')
        body.append(f'<tr><th scope="row">{_e(a)}</th>{"".join(tds)}</tr>')
    return (f'<table class="sigmatrix" data-metric="{_e(metric)}"><thead><tr><th>row vs column'
            f"</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _matrix_export(page: Page, metric: str) -> str:
    got = _pairs(page.report, metric)
    assert got is not None
    order, cell, alpha = got
    rows = [[a, *("–" if a == b else f"{cell[(a, b)][1]:.4f} {_arrow(cell[(a, b)][0])[0]}"
                  for b in order)] for a in order]
    return page.exports.table(
        f"significance-{metric}", f"{metric}: p-values of paired tests (▲ the row system "
        f"scored higher, ▼ the column system; significant where p < {alpha:g})",
        ["row vs column", *order], rows)


def _type_cell(r: TypeRow | None) -> str:
    if r is None:
        return '<td class="empty">–</td>'
    fp = f"{r.fp_ne}+{r.fp_un}" if r.fp_ne is not None else str(r.fp)
    tip = f"TP {r.tp}, FP {fp}, FN {r.fn}; P {r.p:.3f}, R {r.r:.3f}, F {r.f:.3f}"
    shade = int(255 - 120 * r.f) if (r.tp + r.fp) else 255
    zero = ' class="zero"' if not (r.tp or r.fp or r.fn) else ""
    return (f'<td{zero} title="{_e(tip)}" data-tp="{r.tp}" data-fp="{r.fp}" data-fn="{r.fn}" '
            f'data-f="{r.f:.4f}" data-v="{r.f:.6f}" style="background:rgb({shade},255,{shade})">'
            f'{r.f:.3f}<span class="cnt">{r.tp}/{r.fp}/{r.fn}</span></td>')


def _type_table(page: Page, table: str, per_sys: dict[str, list[TypeRow]], opened: bool) -> str:
    """One type x system table: the types some system edited (TP + FP > 0), most edits
    (TP + FP + FN over the systems) first, each cell F with TP/FP/FN; the types no system
    edited (only missed edits, or none) folded away under it, in the same order."""
    report = page.report
    info = report.metric(table)
    systems = [s for s in page.order(info.name if info else None) if s in per_sys]
    lookup = {(s, r.type): r for s in systems for r in per_sys[s]}
    types = {r.type for rows in per_sys.values() for r in rows}
    total = {t: sum(r.tp + r.fp + r.fn for s in systems if (r := lookup.get((s, t))))
             for t in types}
    # a type some system edited (TP or FP) is shown; one no system touched (only missed
    # edits, F 0 everywhere, or no count at all) is folded away
    edited = {t for t in types if any((r := lookup.get((s, t))) and r.tp + r.fp
                                      for s in systems)}
    active = sorted(edited, key=lambda t: (-total[t], t))
    zero = sorted(types - edited, key=lambda t: (-total[t], t))
    beta = float((info.options.get("beta") if info else None) or 0.5)
    f_name = f"F{beta:g}"
    title = ("edit outcomes against the best reference per sentence (TP / FP necessary / "
             "FP unnecessary / FN)" if table == OUTCOME_TABLE else
             f"{table}: counts of the metric's chosen references")
    if report.inputs.get("type_scheme"):  # shown tables were re-typed (see the note)
        title += ", ERRANT types (re-typed)"
    head = ('<th data-sort="text">type</th><th data-sort="num" title="TP + FP + FN summed '
            'over the systems">edits</th>'
            + "".join(f"<th data-sort=\"num\">{_e(s)}</th>" for s in systems))

    def rows(ts: Sequence[str]) -> str:
        return "".join(f"<tr><th scope=\"row\">{_e(t)}</th><td data-v=\"{total[t]}\">{total[t]}"
                       f"</td>{''.join(_type_cell(lookup.get((s, t))) for s in systems)}</tr>"
                       for t in ts)

    outcomes = table == OUTCOME_TABLE
    counts = (["TP", "FP necessary", "FP unnecessary", "FN"] if outcomes else ["TP", "FP", "FN"])
    header = ["type", "edits"] + [f"{s} {c}" for s in systems for c in [*counts, f_name]]

    def values(t: str) -> list[Any]:
        out: list[Any] = [t, total[t]]
        for s in systems:
            r = lookup.get((s, t))
            if r is None:
                out += [None] * (len(counts) + 1)
            else:
                out += ([r.tp, r.fp_ne, r.fp_un, r.fn] if outcomes else [r.tp, r.fp, r.fn])
                out.append(r.f)
        return out

    buttons = page.exports.table(
        f"types-{table}", title, header, [values(t) for t in active + zero],
        latex_rows=[values(t) for t in active])
    folded = (f'<details class="zero-types"><summary>{len(zero)} type'
              f'{"" if len(zero) == 1 else "s"} no system edited (F 0 for every system; '
              "their missed edits in FN)</summary>"
              f'<table class="typetable zero-table"><thead><tr>{head}</tr></thead>'
              f"<tbody>{rows(zero)}</tbody></table></details>" if zero else "")
    shown = (f'<table class="sortable typetable"><thead><tr>{head}</tr></thead>'
             f"<tbody>{rows(active)}</tbody></table>" if active else
             '<p class="meta">No system made an edit of any type.</p>')
    return (f'<section class="types" data-table="{_e(table)}"><details{" open" if opened else ""}>'
            f"<summary><h3>{_e(title)}</h3></summary>{buttons}"
            f'<p class="meta">Each cell: {_e(f_name)}, then TP/FP/FN'
            f'{" (FP: necessary + unnecessary, split on hover)" if outcomes else ""}; types with '
            "the most edits first.</p>"
            f'<div class="scroll">{shown}</div>{folded}</details></section>')


def _type_tables(page: Page) -> str:
    report = page.report
    blocks = [_type_table(page, table, per_sys, k == 0)
              for k, (table, per_sys) in enumerate(report.per_type.items())]
    scheme = report.inputs.get("type_scheme")
    if not blocks:
        if scheme:  # the tables were refused: why
            return f'<p class="types-note">{_e(scheme[:1].upper() + scheme[1:])}.</p>'
        return "<p>No per-type counts: no metric gave them and the references are not M2.</p>"
    note = f'<p class="meta types-note">Note: {_e(scheme)}.</p>' if scheme else ""
    return note + "".join(blocks)


def _attribution_tables(page: Page) -> str:
    """Per attributed metric, a type x system table of the sums of the edits' shares of
    delta M (full ERRANT types), green where the edits of a type raised the metric, red
    where they lowered it; the edit count and mean on hover. A metric that cannot be
    attributed gets its note."""
    report = page.report
    blocks = []
    for name, t in report.attributions.items():
        if t.note is not None:
            blocks.append(f'<p class="meta attr-note">{_e(t.note)}.</p>')
            continue
        if not t.rows:
            continue
        systems = [s for s in page.order(name) if s in t.rows]
        lookup = {(s, r.type): r for s in systems for r in t.rows[s]}
        types = sorted({r.type for rows in t.rows.values() for r in rows})
        top = max((abs(r.value) for r in lookup.values()), default=0.0) or 1.0
        rows, data = [], []
        for ty in types:
            cells = []
            for s in systems:
                r = lookup.get((s, ty))
                if r is None:
                    cells.append('<td class="empty">–</td>')
                    continue
                a = 0.1 + 0.5 * min(1.0, abs(r.value) / top)
                colour = ("26,152,80" if r.value > 0 else "214,39,40" if r.value < 0
                          else "128,128,128")
                tip = f"{r.edits} edits, mean share {r.value / r.edits:+.6f}" if r.edits else ""
                cells.append(f'<td title="{_e(tip)}" data-v="{r.value:.10g}" '
                             f'style="background:rgba({colour},{a:.3f})">{r.value:+.4f}</td>')
            rows.append(f"<tr><th scope=\"row\">{_e(ty)}</th>{''.join(cells)}</tr>")
            data.append([ty, *(r.value if (r := lookup.get((s, ty))) else None
                               for s in systems)])
        sums = [math.fsum(r.value for r in t.rows[s]) for s in systems]
        total = "".join(f"<td>{v:+.4f}</td>" for v in sums)
        delta = "".join(f"<td>{t.delta[s]:+.4f}</td>" for s in systems)
        head = "".join(f"<th data-sort=\"num\">{_e(s)}</th>" for s in systems)
        data += [["all types", *sums], [f"delta {name}", *(t.delta[s] for s in systems)]]
        title = f"{name} by error type, {t.describe()}"
        buttons = page.exports.table(f"attribution-{name}", title, ["type", *systems], data)
        blocks.append(
            f'<section class="types attr-types" data-metric="{_e(name)}"><details open>'
            f"<summary><h3>{_e(title)}</h3></summary>{buttons}"
            f'<table class="sortable typetable"><thead><tr><th data-sort="text">type</th>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody>"
            f"<tfoot><tr><th scope=\"row\">all types</th>{total}</tr>"
            f"<tr><th scope=\"row\">delta {_e(name)}</th>{delta}</tr></tfoot></table>"
            "</details></section>")
    return "".join(blocks)


def _browser_data(report: Report) -> dict[str, Any]:
    """Compact sentence data for the page (arrays, type/outcome indices); the systems in
    :func:`system_order`."""
    types: list[str] = []
    tindex: dict[str, int] = {}

    def ti(t: str) -> int:
        if t not in tindex:
            tindex[t] = len(types)
            types.append(t)
        return tindex[t]

    metrics = [m.name for m in report.metrics]
    systems = system_order(report)
    attributed = [name for name, t in report.attributions.items() if t.shares]
    scale = {name: max((abs(e.value) for shares in report.attributions[name].shares.values()
                        for sh in shares for e in sh.edits if math.isfinite(e.value)),
                       default=0.0)
             for name in attributed}
    sents = []
    for s in report.sentences:
        # a plain-text reference has no edits to draw over the source: its text instead
        refs = [[r.annotator, [[e["start"], e["end"], e["correction"], ti(e["type"])]
                               for e in r.edits],
                 r.text if not r.edits and r.text != s.source else None]
                for r in s.references]
        per_sys: list[Any] = []
        for name in systems:
            ss = s.systems.get(name)
            if ss is None:
                per_sys.append(None)
                continue
            edits = [[e.start, e.end, e.correction, ti(e.type), OUTCOMES.index(e.outcome)]
                     for e in ss.edits]
            if attributed:
                _attach_shares(edits, report, s.index, name, attributed, ti)
            has_edits = any(e[4] != OUTCOMES.index("fn") for e in edits)
            hyp = None if (ss.hypothesis == s.source or has_edits) else ss.hypothesis
            per_sys.append([hyp, ss.reference, edits, [ss.scores.get(m) for m in metrics]])
        sents.append([s.source, refs, per_sys])
    return {"systems": systems, "metrics": metrics, "types": types, "outcomes": list(OUTCOMES),
            "outcome_labels": [OUTCOME_LABELS[o] for o in OUTCOMES], "sentences": sents,
            "attributed": attributed,
            "attribution_methods": [report.attributions[n].method for n in attributed],
            "attribution_scale": [scale[n] for n in attributed]}


def _attach_shares(edits: list[list[Any]], report: Report, index: int, system: str,
                   attributed: Sequence[str], ti: Callable[[str], int]) -> None:
    """Give each hypothesis edit row its share of every attributed metric's delta (a sixth
    element: one value or ``None`` per metric of ``attributed``), matched by span and
    correction; an attributed edit without an outcome row (plain-text references, or
    edits read from a hypothesis M2 that differ from those attributed) is added with outcome
    -1 (no outcome)."""
    fn = OUTCOMES.index("fn")
    rows = {(e[0], e[1], e[2]): e for e in edits if e[4] != fn}
    for e in edits:
        e.append([None] * len(attributed))
    for k, name in enumerate(attributed):
        shares = report.attributions[name].shares.get(system)
        if shares is None or index >= len(shares):
            continue
        for share in shares[index].edits:
            key = (share.start, share.end, share.correction)
            row = rows.get(key)
            if row is None:
                row = [share.start, share.end, share.correction, ti(share.type), -1,
                       [None] * len(attributed)]
                rows[key] = row
                edits.append(row)
            row[5][k] = share.value


def _script_json(obj: Any) -> str:
    # strict JSON: an undefined (NaN) score or attribution share becomes null (no colour)
    text = json.dumps(finite(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def script_hash(script: str) -> str:
    """The Content-Security-Policy source that allows one inline script: ``'sha256-…'`` of
    its text exactly as it stands between ``<script>`` and ``</script>``."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


# -- the sections, in page order --------------------------------------------------------------

def scores_section(page: Page) -> Section:
    """The systems x metrics table, then each metric's own table."""
    report = page.report
    resampling = ""
    if report.resampling:
        r = report.resampling
        resampling = (f"<p class=\"meta\">Intervals: {int(r['confidence'] * 100)}% percentile "
                      f"bootstrap, {r['n_samples']} resamples, seed {r['seed']}. Cluster: "
                      f"systems not significantly different ({_e(r['test'])}, p ≥ "
                      f"{r['alpha']}) from the best system of their cluster; cluster 1 in bold."
                      "</p>")
    order = (f'<p class="meta">Systems by {_e(report.metrics[0].name)} '
             f"{_e(report.metrics[0].main)}, best first; a metric's own tables and figures by "
             "its own score.</p>" if report.metrics else "")
    return Section("scores", "Scores", "Scores", resampling + order + _overview(page)
                   + "".join(_metric_table(page, m.name) for m in page.report.metrics))


def significance_section(page: Page) -> Section | None:
    """Per metric, the scores on their intervals and the matrix of paired tests."""
    parts = []
    for m in page.report.metrics:
        plot, matrix = interval_chart(page.report, m.name), significance_matrix(page.report,
                                                                                m.name)
        if plot is not None:
            parts.append(f"<h3>{_e(m.name)}: {_e(m.main)} with 95% intervals"
                         f"{svg_button(figure_id('ci', m.name))}</h3>"
                         f'<div class="scroll">{plot}</div>')
        if matrix is not None:
            alpha = float(page.report.resampling["alpha"]) if page.report.resampling else 0.05
            parts.append(f"<h3>{_e(m.name)}: paired tests between every two systems"
                         f"{_matrix_export(page, m.name)}</h3>"
                         '<p class="meta legend sig-legend">Each cell: the p-value of the '
                         "paired test, then <b>▲</b> where the row system scored higher, "
                         "<b>▼</b> where the column system did (hover for the difference). "
                         f"Shaded where p &lt; {alpha:g}: green, the row system is "
                         "significantly better; red, significantly worse.</p>"
                         f'<div class="scroll">{matrix}</div>')
    if not parts:
        return None
    return Section("significance", "Significance", "Intervals and significance", "".join(parts))


def disentangled_section(page: Page) -> Section | None:
    """CLEME2.0's four scores, per metric that has them."""
    charts = []
    for m in page.report.metrics:
        svg = disentangled_chart(page.report, m.name)
        if svg is not None:
            charts.append(f"<h3>{_e(m.name)}: disentangled scores"
                          f"{svg_button(figure_id('disentangled', m.name))}</h3>"
                          f'<div class="scroll">{svg}</div>')
    if not charts:
        return None
    return Section("disentangled", "CLEME2.0", "Hit, wrong, under and over-correction",
                   "".join(charts))


def types_section(page: Page) -> Section:
    """The per-type tables (metrics' counts, edit outcomes, attributions)."""
    return Section("types", "Error types", "Error types",
                   _type_tables(page) + _attribution_tables(page))


def sentences_section(page: Page) -> Section | None:
    """The sentence browser (its data in a JSON block; the page's script draws it)."""
    report = page.report
    if not report.sentences:
        return None
    legend = "".join(
        f'<span><i class="sw" style="background:{COLOURS[o]}"></i>{_e(OUTCOME_LABELS[o])}</span>'
        for o in OUTCOMES if o != "fn")
    legend += ('<span>FN, a missed edit: a number<i class="e fn fn-sample"></i> after the '
               '<span class="fn-span">underlined</span> words (or where a word is missing); '
               "the correction on hover</span>")
    colour_by, attr_legend = "", ""
    if any(t.shares for t in report.attributions.values()):
        colour_by = ('<label>colour edits by <select id="f-colour"><option value="-1">outcome'
                     "</option></select></label>")
        attr_legend = (
            '<div class="legend" id="attr-legend" hidden><span><i class="sw" '
            f'style="background:{COLOURS["tp"]}"></i>helped: the edit raised '
            '<b id="attr-metric"></b></span><span><i class="sw" '
            f'style="background:{COLOURS["fp_un"]}"></i>hurt: it lowered it</span>'
            "<span>(deeper: a larger share; the value on hover)</span></div>")
    body = ('<div id="controls"><label>search <input type="search" id="f-search" '
            'placeholder="words in any line"></label>'
            '<label>system <select id="f-system"><option value="">all systems</option>'
            "</select></label>"
            '<label>outcome <select id="f-outcome"><option value="">any</option></select>'
            "</label>"
            '<label>error type <select id="f-type"><option value="">any</option></select>'
            "</label>"
            + colour_by +
            '<span id="match-count"></span>'
            f'<div class="legend" id="outcome-legend">{legend}</div>{attr_legend}</div>'
            '<div id="sentences-list"></div>'
            '<div id="pager"><button id="prev" type="button">previous</button>'
            '<button id="next" type="button">next</button><span id="page-info"></span></div>'
            f'<script id="gecscope-data" type="application/json">'
            f"{_script_json(_browser_data(report))}</script>")
    return Section("sentences", "Sentences", "Sentences", body)


def _costs_order(page: Page) -> list[CorpusCosts]:
    """The report's corpus views: metrics in the report's order, systems by each metric's
    score (best first), then any others as they came."""
    costs = list(page.report.costs)
    metrics = list(dict.fromkeys([m.name for m in page.report.metrics]
                                 + [c.metric for c in costs]))

    def key(c: CorpusCosts) -> tuple[int, int]:
        order = page.order(c.metric) if page.report.metric(c.metric) else []
        return (metrics.index(c.metric),
                order.index(c.system) if c.system in order else len(order))

    return sorted(costs, key=key)


def costs_section(page: Page) -> Section | None:
    """Per system and metric, the sentences, edits and error types that cost it most and
    earned it most (``evaluate --top N``; :func:`gecscope.explain.corpus_costs`), each table
    downloadable."""
    if not page.report.costs:
        return None
    intro = ('<p class="meta">Negative: a cost, positive: a gain. With the corpus ranking a '
             "sentence's change is the corpus score minus the corpus score with that sentence "
             "left as its source, and its edits' attributions (Shapley values of that corpus "
             "score) sum to it; hover over an excerpt for the whole sentence.</p>")
    body = "".join(render_costs_html(c, exports=page.exports) for c in _costs_order(page))
    return Section("costs", "Costs", "What cost each system most", intro + body, css=COSTS_CSS)


def _document(page: Page, sections: Sequence[Section], title: str, meta: str,
              warnings: str = "") -> str:
    """The page around ``sections``: head (the Content-Security-Policy with the hashes of
    every inline script), header with its nav, the downloads and the page's script."""
    nav = "<nav>" + "".join(f'<a href="#{_e(s.id)}">{_e(s.nav)}</a>' for s in sections) + "</nav>"
    scripts = [JS, *(x for s in sections for x in s.scripts)]
    csp = ("default-src 'none'; style-src 'unsafe-inline'; script-src "
           + " ".join(dict.fromkeys(script_hash(x) for x in scripts)) + "; img-src data:")
    exports = (f'<script id="gecscope-exports" type="application/json">'
               f"{_script_json(page.exports.tables)}</script>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">"
            f"<title>{_e(title)}</title><style>{CSS % COLOURS}{''.join(s.css for s in sections)}"
            "</style></head><body>"
            f"<header><h1>{_e(title)}</h1><p class=\"meta\">{meta}</p>{warnings}{nav}</header>"
            + "".join(s.html() for s in sections) + exports + f"<script>{JS}</script>"
            + "</body></html>\n")


def render_page(page: Page, sections: Sequence[Section], title: str, meta: str) -> str:
    """A self-contained page of ``sections`` (their downloads registered in ``page.exports``),
    with the report's style, script and Content-Security-Policy: for pages other than an
    evaluation report (``meta-eval attack --html``). ``meta`` is HTML."""
    return _document(page, sections, title, meta)


def render_html(report: Report, *, title: str = "gecscope evaluation report") -> str:
    """The whole page as a string."""
    page = Page(report)
    sections = [s for s in (scores_section(page), significance_section(page),
                            disentangled_section(page), types_section(page),
                            costs_section(page), sentences_section(page)) if s is not None]
    n_sent = report.inputs.get("n_sentences", len(report.sentences))
    meta = (f"{len(report.systems)} systems · {n_sent} sentences · references: "
            f"{_e(', '.join(Path(p).name for p in report.inputs.get('references', [])))} · "
            f"gecscope {_e(report.gecscope_version)} · {_e(report.created)}")
    warnings = "".join(f"<p class=\"meta\">note: {_e(w)}</p>"
                       for w in report.inputs.get("warnings", []))
    return _document(page, sections, title, meta, warnings)


def render_costs_page(costs: Sequence[CorpusCosts], *, references: Sequence[str] = (),
                      title: str | None = None) -> str:
    """A self-contained page of corpus views alone (``gecscope explain --top N --html``):
    the report's costs section, with its downloads, style and script."""
    from gecscope import __version__

    report = Report(list(dict.fromkeys(c.system for c in costs)), [], [], costs=list(costs))
    page = Page(report)
    section = costs_section(page)
    sections = [section] if section is not None else []
    first = costs[0] if costs else None
    n = f"{first.sentences} sentences · " if first is not None else ""
    meta = (f"{n}references: {_e(', '.join(Path(p).name for p in references))} · "
            f"gecscope {_e(__version__)} · {_e(report.created)}")
    if title is None:
        title = (f"gecscope: what cost {first.system} most under {first.metric}"
                 if first is not None else "gecscope corpus view")
    return _document(page, sections, title, meta)


def write_costs_html(path: str | Path, costs: Sequence[CorpusCosts], *,
                     references: Sequence[str] = (), title: str | None = None) -> None:
    """Write :func:`render_costs_page` (atomically)."""
    atomic_write(path, [render_costs_page(costs, references=references, title=title)])


def write_report_html(path: str | Path, report: Report, *, title: str | None = None) -> None:
    """Write an already built report as HTML (atomically)."""
    atomic_write(path, [render_html(report, title=title or "gecscope evaluation report")])


def write_html_report(path: str | Path, data: EvalData, hyps: Sequence[Hypothesis],
                      results: Sequence[SystemResult], metrics: Sequence[Metric], *,
                      n_samples: int = 0, seed: int | None = 12345, test: str = "bootstrap",
                      title: str | None = None) -> Report:
    """Build the report of an evaluation and write it as one self-contained HTML file.

    ``results`` holds one :class:`SystemResult` per (system, metric); ``n_samples > 0`` adds
    bootstrap intervals and significance clusters. Returns the report (to reuse for JSON).
    """
    report = build_report(data, hyps, results, metrics, n_samples=n_samples, seed=seed,
                          test=test)
    write_report_html(path, report, title=title)
    return report

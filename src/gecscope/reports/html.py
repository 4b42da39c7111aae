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
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gecscope.formats.base import atomic_write
from gecscope.reports.json import finite
from gecscope.reports.model import OUTCOME_TABLE, Report, ScoreEntry, build_report
from gecscope.reports.outcomes import OUTCOME_LABELS, OUTCOMES
from gecscope.reports.text import fmt, integral_column

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.base import Metric, SystemResult

DISENTANGLED = ("hit", "wrong", "under", "over")
COLOURS = {"tp": "#1a9850", "fp_ne": "#f28e2b", "fp_un": "#d62728", "fn": "#4e79a7"}


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def _num(v: Any, digits: int = 4) -> str:
    return "–" if v is None else _e(fmt(v, digits))


def _interval(s: ScoreEntry) -> str:
    if not s.interval:
        return ""
    return (f'<span class="ci">[{_num(s.interval["low"])}, {_num(s.interval["high"])}]'
            "</span>")


def _overview(report: Report) -> str:
    """Systems x metrics, headline values with intervals."""
    head = "".join(f"<th data-sort=\"num\">{_e(m.name)} <small>{_e(m.main)}</small></th>"
                   for m in report.metrics)
    rows = []
    for system in report.systems:
        cells = []
        for m in report.metrics:
            s = report.score(system, m.name)
            if s is None:
                cells.append("<td>–</td>")
                continue
            cls = ' class="best"' if s.cluster == 1 else ""
            cells.append(f'<td{cls} data-v="{_num(s.value, 10)}">{_num(s.value)} '
                         f"{_interval(s)}</td>")
        rows.append(f"<tr><th scope=\"row\">{_e(system)}</th>{''.join(cells)}</tr>")
    return (f'<table class="sortable" id="overview"><thead><tr><th data-sort="text">system</th>'
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _metric_table(report: Report, name: str) -> str:
    info = report.metric(name)
    assert info is not None
    entries = [s for s in report.scores if s.metric == name]
    ranked = any(s.rank is not None for s in entries)
    if ranked:
        entries.sort(key=lambda s: s.rank or 0)
    fields: list[str] = []
    for s in entries:
        fields += [k for k in s.fields if k != s.main and k not in fields]
    comps = {c["system_b"]: c for c in report.comparisons if c.get("metric") == name}
    head = (("<th data-sort=\"num\">rank</th><th data-sort=\"num\">cluster</th>" if ranked
             else "") + "<th data-sort=\"text\">system</th>"
            f"<th data-sort=\"num\">{_e(info.main)}</th>"
            + ("<th>95% interval</th>" if any(s.interval for s in entries) else "")
            + ("<th title=\"paired test against the best system of the cluster above\">"
               "tested against (p)</th>" if comps else "")
            + "".join(f"<th data-sort=\"num\">{_e(f)}</th>" for f in fields))
    counts = {f for f in fields if integral_column([s.fields.get(f) for s in entries])}
    rows = []
    for s in entries:
        cls = ' class="best"' if s.cluster == 1 else ""
        cells = ([f"<td>{_num(s.rank)}</td><td>{_num(s.cluster)}</td>"] if ranked else [])
        cells.append(f"<th scope=\"row\">{_e(s.system)}</th>")
        cells.append(f"<td{cls} data-v=\"{_num(s.value, 10)}\">{_num(s.value)}</td>")
        if any(x.interval for x in entries):
            cells.append(f"<td>{_interval(s)}</td>")
        if comps:
            c = comps.get(s.system)
            cells.append(f"<td>{_e(c['system_a'])} ({c['p_value']:.4f})</td>" if c else
                         "<td>–</td>")
        for f in fields:
            v = s.fields.get(f)
            iv = s.field_intervals.get(f)
            tip = f' title="{_num(iv["low"])} – {_num(iv["high"])}"' if iv else ""
            shown = _num(int(v)) if f in counts and isinstance(v, float) else _num(v)
            cells.append(f"<td{tip} data-v=\"{_num(v, 10)}\">{shown}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    desc = f" <small>{_e(info.description)}</small>" if info.description else ""
    return (f'<section class="metric" id="metric-{_e(name)}"><h3>{_e(name)}{desc}</h3>'
            f'<table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p class="sig">signature: <code title="{_e(info.signature_long)}">'
            f"{_e(info.signature)}</code></p>"
            + "".join(f'<p class="meta">note: {_e(n)}</p>' for n in info.notes)
            + "</section>")


def _disentangled_fields(s: ScoreEntry) -> dict[str, float] | None:
    lower = {k.lower(): v for k, v in s.fields.items()}
    if all(isinstance(lower.get(k), int | float) for k in DISENTANGLED):
        return {k: float(lower[k]) for k in DISENTANGLED}
    return None


def disentangled_chart(report: Report, metric: str) -> str | None:
    """Inline SVG bar chart of Hit/Wrong/Under/Over per system, or None without those fields."""
    rows = [(s.system, f) for s in report.scores if s.metric == metric
            and (f := _disentangled_fields(s)) is not None]
    if not rows:
        return None
    colours = {"hit": COLOURS["tp"], "wrong": COLOURS["fp_ne"], "under": COLOURS["fn"],
               "over": COLOURS["fp_un"]}
    bar, gap, label_w, plot_w = 9, 10, 110, 480
    group = 4 * bar + gap
    height = 30 + group * len(rows) + 20
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
             f'width="{label_w + plot_w + 60}" height="{height}" '
             f'aria-label="{_e(metric)}: hit, wrong, under and over scores per system">')]
    for i, name in enumerate(DISENTANGLED):
        x = label_w + i * 120
        parts.append(f'<rect x="{x}" y="4" width="10" height="10" fill="{colours[name]}"/>'
                     f'<text x="{x + 14}" y="13">{name.capitalize()}</text>')
    for t in range(0, 11, 2):
        gx = label_w + plot_w * t / 10
        parts.append(f'<line x1="{gx:.1f}" y1="24" x2="{gx:.1f}" y2="{height - 16}" '
                     f'class="grid"/><text x="{gx:.1f}" y="{height - 4}" '
                     f'text-anchor="middle">{t / 10:.1f}</text>')
    for j, (system, vals) in enumerate(rows):
        y0 = 28 + j * group
        parts.append(f'<text x="{label_w - 6}" y="{y0 + 2 * bar + 3}" text-anchor="end" '
                     f'class="sys">{_e(system)}</text>')
        for i, name in enumerate(DISENTANGLED):
            v = max(0.0, min(1.0, vals[name]))
            parts.append(f'<rect class="bar" x="{label_w}" y="{y0 + i * bar}" '
                         f'width="{plot_w * v:.1f}" height="{bar - 1}" fill="{colours[name]}">'
                         f"<title>{_e(system)} {name}: {vals[name]:.4f}</title></rect>")
            parts.append(f'<text x="{label_w + plot_w * v + 3:.1f}" y="{y0 + i * bar + 8}" '
                         f'class="val">{vals[name]:.3f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def interval_chart(report: Report, metric: str) -> str | None:
    """Inline SVG: each system's score as a dot on its bootstrap interval, best first, the
    first cluster in green; None without intervals."""
    rows = sorted((s for s in report.scores if s.metric == metric and s.interval),
                  key=lambda s: (s.rank or 0, -(s.value or 0.0)))
    if not rows:
        return None
    lo = min(float(s.interval["low"]) for s in rows if s.interval)
    hi = max(float(s.interval["high"]) for s in rows if s.interval)
    pad = (hi - lo) * 0.05 or 0.01
    lo, hi = lo - pad, hi + pad
    label_w, plot_w, row_h = 120, 460, 22
    height = 20 + row_h * len(rows) + 24

    def x(v: float) -> float:
        return label_w + plot_w * (v - lo) / (hi - lo)

    main = rows[0].main
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart ci-chart" role="img" '
              f'width="{label_w + plot_w + 20}" height="{height}" aria-label="{_e(metric)}: '
              f'{_e(main)} of each system with its bootstrap interval">')]
    for t in range(6):
        v = lo + (hi - lo) * t / 5
        parts.append(f'<line x1="{x(v):.1f}" y1="12" x2="{x(v):.1f}" y2="{height - 18}" '
                     f'class="grid"/><text x="{x(v):.1f}" y="{height - 6}" '
                     f'text-anchor="middle">{v:.3f}</text>')
    for j, s in enumerate(rows):
        assert s.interval is not None
        y = 22 + j * row_h
        colour = COLOURS["tp"] if s.cluster == 1 else "#555"
        a, b = float(s.interval["low"]), float(s.interval["high"])
        parts.append(f'<text x="{label_w - 8}" y="{y + 4}" text-anchor="end" class="sys">'
                     f"{_e(s.system)}</text>"
                     f'<line class="ci" x1="{x(a):.1f}" y1="{y}" x2="{x(b):.1f}" y2="{y}" '
                     f'stroke="{colour}" stroke-width="2"/>'
                     f'<circle class="point" cx="{x(s.value or 0.0):.1f}" cy="{y}" r="4" '
                     f'fill="{colour}"><title>{_e(s.system)}: {_e(main)} {s.value or 0.0:.4f} '
                     f"[{a:.4f}, {b:.4f}], cluster {s.cluster}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def significance_matrix(report: Report, metric: str) -> str | None:
    """A table of paired-test p-values between every two systems (row minus column: the
    delta's sign), shaded where p < alpha; None without pairwise tests."""
    pairs = [c for c in report.pairwise if c["metric"] == metric]
    if not pairs or report.resampling is None:
        return None
    alpha = float(report.resampling["alpha"])
    order = [s.system for s in sorted((s for s in report.scores if s.metric == metric),
                                      key=lambda s: (s.rank or 0, -(s.value or 0.0)))]
    cell: dict[tuple[str, str], tuple[float, float]] = {}
    for c in pairs:
        cell[(c["system_a"], c["system_b"])] = (float(c["delta"]), float(c["p_value"]))
        cell[(c["system_b"], c["system_a"])] = (-float(c["delta"]), float(c["p_value"]))
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
            tds.append(f'<td class="{cls}" title="{_e(a)} − {_e(b)} = {delta:+.4f}, '
                       f'p = {p:.4f}">{"+" if delta > 0 else "−"} {p:.3f}</td>')
        body.append(f'<tr><th scope="row">{_e(a)}</th>{"".join(tds)}</tr>')
    return (f'<table class="sigmatrix" data-metric="{_e(metric)}"><thead><tr><th>row vs column'
            f"</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _type_tables(report: Report) -> str:
    blocks: list[str] = []
    for table, per_sys in report.per_type.items():
        systems = [s for s in report.systems if s in per_sys]
        types = sorted({r.type for rows in per_sys.values() for r in rows})
        lookup = {(s, r.type): r for s in systems for r in per_sys[s]}
        title = ("edit outcomes against the best reference per sentence (TP / FP necessary / "
                 "FP unnecessary / FN)" if table == OUTCOME_TABLE else
                 f"{table}: counts of the metric's chosen references")
        if report.inputs.get("type_scheme"):  # shown tables were re-typed (see the note)
            title += ", ERRANT types (re-typed)"
        head = "".join(f"<th data-sort=\"num\">{_e(s)}</th>" for s in systems)
        rows = []
        for t in types:
            cells = []
            for s in systems:
                r = lookup.get((s, t))
                if r is None:
                    cells.append('<td class="empty">–</td>')
                    continue
                fp = (f"{r.fp_ne}+{r.fp_un}" if r.fp_ne is not None else str(r.fp))
                tip = f"TP {r.tp}, FP {fp}, FN {r.fn}; P {r.p:.3f}, R {r.r:.3f}, F0.5 {r.f:.3f}"
                shade = int(255 - 120 * r.f) if (r.tp + r.fp) else 255
                cells.append(
                    f'<td title="{_e(tip)}" data-tp="{r.tp}" data-fp="{r.fp}" '
                    f'data-fn="{r.fn}" data-f="{r.f:.4f}" data-v="{r.f:.6f}" '
                    f'style="background:rgb({shade},255,{shade})">{r.f:.3f}</td>')
            rows.append(f"<tr><th scope=\"row\">{_e(t)}</th>{''.join(cells)}</tr>")
        opened = " open" if not blocks else ""
        blocks.append(
            f'<section class="types" data-table="{_e(table)}"><details{opened}><summary>'
            f'<h3>{_e(title)}</h3></summary>'
            f'<table class="sortable typetable"><thead><tr><th data-sort="text">type</th>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></details></section>")
    scheme = report.inputs.get("type_scheme")
    if not blocks:
        if scheme:  # the tables were refused: why
            return f'<p class="types-note">{_e(scheme[:1].upper() + scheme[1:])}.</p>'
        return "<p>No per-type counts: no metric gave them and the references are not M2.</p>"
    note = f'<p class="meta types-note">Note: {_e(scheme)}.</p>' if scheme else ""
    switch = note + ('<p>Show: <select id="type-cell"><option value="f">F0.5</option>'
              '<option value="tp">TP</option><option value="fp">FP</option>'
              '<option value="fn">FN</option></select> (hover a cell for all counts)</p>')
    return switch + "".join(blocks)


def _attribution_tables(report: Report) -> str:
    """Per attributed metric, a type x system table of the sums of the edits' shares of
    delta M (full ERRANT types), green where the edits of a type raised the metric, red
    where they lowered it; the edit count and mean on hover. A metric that cannot be
    attributed gets its note."""
    blocks = []
    for name, t in report.attributions.items():
        if t.note is not None:
            blocks.append(f'<p class="meta attr-note">{_e(t.note)}.</p>')
            continue
        if not t.rows:
            continue
        systems = [s for s in report.systems if s in t.rows]
        lookup = {(s, r.type): r for s in systems for r in t.rows[s]}
        types = sorted({r.type for rows in t.rows.values() for r in rows})
        top = max((abs(r.value) for r in lookup.values()), default=0.0) or 1.0
        rows = []
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
        total = "".join(f"<td>{math.fsum(r.value for r in t.rows[s]):+.4f}</td>"
                        for s in systems)
        delta = "".join(f"<td>{t.delta[s]:+.4f}</td>" for s in systems)
        head = "".join(f"<th data-sort=\"num\">{_e(s)}</th>" for s in systems)
        blocks.append(
            f'<section class="types attr-types" data-metric="{_e(name)}"><details open>'
            f"<summary><h3>{_e(name)} by error type, {_e(t.describe())}</h3></summary>"
            f'<table class="sortable typetable"><thead><tr><th data-sort="text">type</th>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody>"
            f"<tfoot><tr><th scope=\"row\">all types</th>{total}</tr>"
            f"<tr><th scope=\"row\">delta {_e(name)}</th>{delta}</tr></tfoot></table>"
            "</details></section>")
    return "".join(blocks)


def _browser_data(report: Report) -> dict[str, Any]:
    """Compact sentence data for the page (arrays, type/outcome indices)."""
    types: list[str] = []
    tindex: dict[str, int] = {}

    def ti(t: str) -> int:
        if t not in tindex:
            tindex[t] = len(types)
            types.append(t)
        return tindex[t]

    metrics = [m.name for m in report.metrics]
    systems = list(report.systems)
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


CSS = """
:root{--tp:%(tp)s;--fpne:%(fp_ne)s;--fpun:%(fp_un)s;--fn:%(fn)s;--fg:#222;--muted:#666}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
margin:0 auto;max-width:1200px;padding:0 16px 40px}
header{border-bottom:1px solid #ddd;margin-bottom:12px}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #eee}
h3{font-size:15px;margin:16px 0 6px}small,.meta,.ci,.sig{color:var(--muted)}
nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th[scope=row],thead th:first-child{text-align:left}thead th{background:#f5f5f5;cursor:pointer}
td.best{font-weight:600}td.empty{color:#bbb}
.typetable td{min-width:42px}.scroll{overflow-x:auto}
.sig code{word-break:break-all}summary h3{display:inline-block;cursor:pointer}
.chart text{font-size:11px;fill:#333}.chart .grid{stroke:#e5e5e5}.chart .val{fill:#555;font-size:9px}
.sigmatrix td.sig-better{background:#d9f0d3}.sigmatrix td.sig-worse{background:#fbd5d5}
.sigmatrix td.not-sig{color:var(--muted)}
#controls{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid #eee;z-index:1}
#controls label{margin-right:12px}#controls input[type=search]{width:220px}
.legend span{display:inline-block;margin-right:12px}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.card{border:1px solid #e3e3e3;border-radius:6px;padding:8px 10px;margin:10px 0}
.card .idx{color:var(--muted);font-size:12px}
.line{margin:3px 0;display:flex;gap:8px}.line .lab{flex:0 0 110px;color:var(--muted);
text-align:right;font-size:12px;padding-top:2px;overflow:hidden;text-overflow:ellipsis}
.line .txt{flex:1;word-wrap:break-word}.line .sc{color:var(--muted);font-size:12px;white-space:nowrap}
.e{border-radius:3px;padding:0 2px;margin:0 1px}
.e del{text-decoration:line-through;opacity:.75}.e ins{text-decoration:none;font-weight:600}
.e.tp{background:color-mix(in srgb,var(--tp) 22%%,white);border-bottom:2px solid var(--tp)}
.e.fp_ne{background:color-mix(in srgb,var(--fpne) 22%%,white);border-bottom:2px solid var(--fpne)}
.e.fp_un{background:color-mix(in srgb,var(--fpun) 20%%,white);border-bottom:2px solid var(--fpun)}
.e.fn{border:1px dashed var(--fn);color:var(--fn);font-size:12px}
.e.ref{background:#eee;border-bottom:2px solid #aaa}
.e.edit{background:#f3f3f3;border-bottom:2px solid #999}
.e.attr.helped{border-bottom:2px solid var(--tp)}.e.attr.hurt{border-bottom:2px solid var(--fpun)}
.e.attr.neutral{border-bottom:2px solid #999}
.e.dim{opacity:.35}
#pager{margin:10px 0}#pager button{margin-right:6px}
"""

JS = r"""
(function(){
'use strict';
var D=JSON.parse(document.getElementById('gecscope-data').textContent);
var PAGE=25,page=0,matches=[],colourBy=(D.attributed||[]).length?0:-1;
var $=function(id){return document.getElementById(id);};
function esc(s){return String(s).replace(/[&<>"]/g,function(c){
  return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function applyEdits(toks,edits){ // hypothesis text from source tokens + its (non-FN) edits
  var out=[],pos=0;edits.forEach(function(e){if(e[4]===3||e[0]<pos)return;
    out=out.concat(toks.slice(pos,e[0]));if(e[2])out.push(e[2]);pos=e[1];});
  return out.concat(toks.slice(pos)).join(' ');}
function signed(v){var a=Math.abs(v);
  return (v>0?'+':v<0?'−':'±')+(a>=0.001||a===0?a.toFixed(4):a.toExponential(2));}
function shareColour(v,m){ // green: the edit raised the metric, red: it lowered it
  var top=(D.attribution_scale||[])[m]||0,a=top>0?0.15+0.65*Math.min(1,Math.abs(v)/top):0;
  if(v>0)return 'rgba(26,152,80,'+a.toFixed(3)+')';if(v<0)return 'rgba(214,39,40,'+a.toFixed(3)+')';
  return 'rgba(128,128,128,0.15)';}
function badge(toks,e,kind,flt){ // one edit as a coloured span
  var s=e[0],t=e[1],cor=e[2],type=D.types[e[3]];
  var oc=kind==='ref'?'ref':e[4]<0?'edit':D.outcomes[e[4]];
  var orig=toks.slice(s,t).join(' ');
  var tip=(kind==='ref'||e[4]<0?'':D.outcome_labels[e[4]]+' · ')+type+': '+(orig||'∅')+' → '+(cor||'∅');
  var shares=kind==='ref'?null:e[5],attr='',style='';
  if(shares){shares.forEach(function(v,m){if(v!==null)tip+=' · '+D.attributed[m]+' share '+signed(v)+
    ' ('+D.attribution_methods[m]+')';});
    if(colourBy>=0&&shares[colourBy]!==null&&shares[colourBy]!==undefined){var v=shares[colourBy];
      attr=' attr '+(v>0?'helped':v<0?'hurt':'neutral');
      style=' style="background:'+shareColour(v,colourBy)+'" data-attribution="'+v+'"';}}
  var dim=flt&&!flt(e)?' dim':'';
  var body=oc==='fn'?(orig?'<del>'+esc(orig)+'</del>':'')+'→<ins>'+esc(cor||'∅')+'</ins>'
    :(orig?'<del>'+esc(orig)+'</del>':'')+(orig&&cor?' ':'')+(cor?'<ins>'+esc(cor)+'</ins>':'');
  return '<span class="e '+oc+attr+dim+'" data-outcome="'+oc+'" data-type="'+esc(type)+'" title="'+esc(tip)+'"'+style+'>'+body+'</span>';}
function render(toks,edits,kind,flt){ // kind: 'hyp' (coloured by outcome) or 'ref'
  var html=[],pos=0,i;
  var ev=edits.slice().sort(function(a,b){return a[0]-b[0]||a[1]-b[1];});
  function plain(to){if(to>pos){html.push(esc(toks.slice(pos,to).join(' ')));pos=to;}}
  ev.forEach(function(e){
    var s=e[0],t=e[1];
    if(kind==='hyp'&&e[4]===3){plain(Math.min(s,toks.length));html.push(badge(toks,e,kind,flt));return;}
    if(s<pos)return; plain(s); html.push(badge(toks,e,kind,flt)); pos=t;});
  plain(toks.length);
  return html.join(' ');}
function filters(){
  var sys=$('f-system').value,oc=$('f-outcome').value,ty=$('f-type').value;
  return {sys:sys===''?null:+sys,oc:oc===''?null:+oc,ty:ty===''?null:+ty,
    q:$('f-search').value.trim().toLowerCase()};}
function editOk(f){return function(e){return (f.oc===null||e[4]===f.oc)&&(f.ty===null||e[3]===f.ty);};}
function visibleSystems(f){var out=[];D.systems.forEach(function(_,k){
  if(f.sys===null||f.sys===k)out.push(k);});return out;}
function matchesSentence(s,f){
  var ok=editOk(f),syss=visibleSystems(f);
  if(f.oc!==null||f.ty!==null){
    if(!syss.some(function(k){var x=s[2][k];return x&&x[2].some(ok);}))return false;}
  if(f.q){var toks=s[0].split(' ');
    var hay=[s[0]].concat(s[1].map(function(r){return r[2]?r[2]:applyEdits(toks,r[1].map(function(e){
      return [e[0],e[1],e[2],e[3],0];}));}));
    syss.forEach(function(k){var x=s[2][k];if(x)hay.push(x[0]!==null?x[0]:applyEdits(toks,x[2]));});
    if(hay.join('\n').toLowerCase().indexOf(f.q)<0)return false;}
  return true;}
function card(i,f){
  var s=D.sentences[i],toks=s[0].split(' '),ok=(f.oc!==null||f.ty!==null)?editOk(f):null;
  var h=['<div class="card" data-index="'+i+'"><div class="idx">sentence '+(i+1)+'</div>'];
  h.push('<div class="line src"><span class="lab">source</span><span class="txt">'+esc(s[0])+'</span></div>');
  s[1].forEach(function(r){h.push('<div class="line ref"><span class="lab">reference '+r[0]+
    '</span><span class="txt">'+(r[2]?esc(r[2]):render(toks,r[1],'ref',null))+'</span></div>');});
  visibleSystems(f).forEach(function(k){var x=s[2][k];if(!x)return;
    var sc=x[3].map(function(v,m){return v===null||v===undefined?'':D.metrics[m]+' '+v.toFixed(3);})
      .filter(Boolean).join(' · ');
    var nonfn=x[2].some(function(e){return e[4]!==3;});
    var txt=(x[0]!==null&&!nonfn)?esc(x[0])+' '+x[2].map(function(e){return badge(toks,e,'hyp',ok);}).join(' ')
      :render(toks,x[2],'hyp',ok);
    h.push('<div class="line hyp" data-system="'+esc(D.systems[k])+'"><span class="lab" title="'+
      esc(D.systems[k])+(x[1]!==null?' (vs reference '+x[1]+')':'')+'">'+esc(D.systems[k])+
      '</span><span class="txt">'+txt+'</span><span class="sc">'+esc(sc)+'</span></div>');});
  h.push('</div>');return h.join('');}
function legend(){var a=$('attr-legend'),o=$('outcome-legend');if(!a||!o)return;
  a.hidden=colourBy<0;o.hidden=colourBy>=0;
  if(colourBy>=0)$('attr-metric').textContent=D.attributed[colourBy];}
function update(resetPage){
  var f=filters();if(resetPage)page=0;
  matches=[];for(var i=0;i<D.sentences.length;i++)if(matchesSentence(D.sentences[i],f))matches.push(i);
  var pages=Math.max(1,Math.ceil(matches.length/PAGE));if(page>=pages)page=pages-1;
  var shown=matches.slice(page*PAGE,(page+1)*PAGE);
  $('sentences-list').innerHTML=shown.map(function(i){return card(i,f);}).join('');
  $('match-count').textContent=matches.length+' of '+D.sentences.length+' sentences';
  $('page-info').textContent='page '+(page+1)+' of '+pages;
  $('prev').disabled=page===0;$('next').disabled=page>=pages-1;}
function init(){
  var sel=$('f-system');D.systems.forEach(function(s,k){var o=document.createElement('option');
    o.value=k;o.textContent=s;sel.appendChild(o);});
  var ty=$('f-type');D.types.map(function(t,k){return [t,k];}).sort(function(a,b){
    return a[0]<b[0]?-1:a[0]>b[0]?1:0;}).forEach(function(p){
    var o=document.createElement('option');o.value=p[1];o.textContent=p[0];ty.appendChild(o);});
  var oc=$('f-outcome');D.outcome_labels.forEach(function(l,k){var o=document.createElement('option');
    o.value=k;o.textContent=l;oc.appendChild(o);});
  var cb=$('f-colour');if(cb){(D.attributed||[]).forEach(function(m,k){var o=document.createElement('option');
    o.value=k;o.textContent=m+' attribution ('+D.attribution_methods[k]+')';cb.appendChild(o);});
    cb.value=String(colourBy);cb.addEventListener('change',function(){colourBy=+cb.value;legend();update(false);});}
  legend();
  ['f-system','f-outcome','f-type'].forEach(function(id){$(id).addEventListener('change',function(){update(true);});});
  $('f-search').addEventListener('input',function(){update(true);});
  $('prev').addEventListener('click',function(){page--;update(false);});
  $('next').addEventListener('click',function(){page++;update(false);});
  update(true);
  if(location.hash){var t=document.getElementById(location.hash.slice(1));if(t)t.scrollIntoView();}}
function sortable(){Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){
  Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,col){th.addEventListener('click',function(){
    var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),num=th.dataset.sort==='num';
    var dir=th.dataset.dir==='desc'?1:-1;th.dataset.dir=dir===1?'asc':'desc';
    rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];
      var u=num?parseFloat(x.dataset.v||x.textContent):x.textContent,v=num?parseFloat(y.dataset.v||y.textContent):y.textContent;
      if(num){u=isNaN(u)?-Infinity:u;v=isNaN(v)?-Infinity:v;}
      return (u<v?-1:u>v?1:0)*dir;});
    rows.forEach(function(r){body.appendChild(r);});});});});}
function typeCells(){var s=$('type-cell');if(!s)return;s.addEventListener('change',function(){
  Array.prototype.forEach.call(document.querySelectorAll('.typetable td[data-f]'),function(td){
    td.textContent=s.value==='f'?(+td.dataset.f).toFixed(3):td.dataset[s.value];
    td.dataset.v=s.value==='f'?td.dataset.f:td.dataset[s.value];});});}
sortable();typeCells();init();
window.gecscopeReport={update:update,matches:function(){return matches.slice();}};
})();
"""


def render_html(report: Report, *, title: str = "gecscope evaluation report") -> str:
    """The whole page as a string."""
    charts = []
    for m in report.metrics:
        svg = disentangled_chart(report, m.name)
        if svg is not None:
            charts.append(f"<h3>{_e(m.name)}: disentangled scores</h3><div class=\"scroll\">"
                          f"{svg}</div>")
    n_sent = report.inputs.get("n_sentences", len(report.sentences))
    meta = (f"{len(report.systems)} systems · {n_sent} sentences · references: "
            f"{_e(', '.join(Path(p).name for p in report.inputs.get('references', [])))} · "
            f"gecscope {_e(report.gecscope_version)} · {_e(report.created)}")
    resampling = ""
    if report.resampling:
        r = report.resampling
        resampling = (f"<p class=\"meta\">Intervals: {int(r['confidence'] * 100)}% percentile "
                      f"bootstrap, {r['n_samples']} resamples, seed {r['seed']}. Cluster: "
                      f"systems not significantly different ({_e(r['test'])}, p ≥ "
                      f"{r['alpha']}) from the best system of their cluster; cluster 1 in bold."
                      "</p>")
    warnings = "".join(f"<p class=\"meta\">note: {_e(w)}</p>"
                       for w in report.inputs.get("warnings", []))
    legend = "".join(f'<span><i class="sw" style="background:{COLOURS[o]}"></i>'
                     f"{_e(OUTCOME_LABELS[o])}</span>" for o in OUTCOMES)
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
    sections = [
        '<section id="scores"><h2>Scores</h2>', resampling, '<div class="scroll">',
        _overview(report), "</div>",
        "".join(_metric_table(report, m.name) for m in report.metrics), "</section>",
    ]
    significance = []
    for m in report.metrics:
        plot, matrix = interval_chart(report, m.name), significance_matrix(report, m.name)
        if plot is not None:
            significance.append(f"<h3>{_e(m.name)}: {_e(m.main)} with 95% intervals</h3>"
                                f'<div class="scroll">{plot}</div>')
        if matrix is not None:
            significance.append(f"<h3>{_e(m.name)}: paired tests between every two systems"
                                "</h3><p class=\"meta\">Sign of row − column, then p; shaded "
                                "where significant (green: the row system is better).</p>"
                                f'<div class="scroll">{matrix}</div>')
    if significance:
        sections += ['<section id="significance"><h2>Intervals and significance</h2>',
                     *significance, "</section>"]
    if charts:
        sections += ['<section id="disentangled"><h2>Hit, wrong, under and over-correction</h2>',
                     *charts, "</section>"]
    sections += ['<section id="types"><h2>Error types</h2><div class="scroll">',
                 _type_tables(report), _attribution_tables(report), "</div></section>"]
    if report.sentences:
        sections += [
            '<section id="sentences"><h2>Sentences</h2>',
            ('<div id="controls"><label>search <input type="search" id="f-search" '
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
            "</section>"),
            (f'<script id="gecscope-data" type="application/json">'
            f"{_script_json(_browser_data(report))}</script>"),
            f"<script>{JS}</script>",
        ]
    nav = ('<nav><a href="#scores">Scores</a>'
           + ('<a href="#significance">Significance</a>' if significance else "")
           + ('<a href="#disentangled">CLEME2.0</a>' if charts else "")
           + '<a href="#types">Error types</a>'
           + ('<a href="#sentences">Sentences</a>' if report.sentences else "") + "</nav>")
    css = CSS % COLOURS
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{_e(title)}</title><style>{css}</style></head><body>"
            f"<header><h1>{_e(title)}</h1><p class=\"meta\">{meta}</p>{warnings}{nav}</header>"
            + "".join(sections) + "</body></html>\n")


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

"""The HTML report's figures: inline SVG that also stands alone as a downloaded ``.svg``.

Each figure carries its own ``<style>`` (fonts, grid colour) and a white background, and has
an ``id`` that its download button names (:func:`gecscope.reports.html_export.svg_button`).
Systems are drawn in the order of their score (:func:`system_order`), best first.
"""

from __future__ import annotations

import html
import math
from typing import Any

from gecscope.reports.html_export import slug
from gecscope.reports.model import Report, ScoreEntry

DISENTANGLED = ("hit", "wrong", "under", "over")
COLOURS = {"tp": "#1a9850", "fp_ne": "#f28e2b", "fp_un": "#d62728", "fn": "#4e79a7"}
#: the figures' own style (no ``<``, ``>`` or ``&``: it sits in the HTML as it is)
SVG_STYLE = (".chart text{font:11px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
             "fill:#333}.chart .grid{stroke:#e5e5e5}.chart .val{fill:#555;font-size:9px}")


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def system_order(report: Report, metric: str | None = None) -> list[str]:
    """The report's systems by ``metric``'s score, best first (the first metric's when
    ``metric`` is None); ties by name, then the systems without a number, by name."""
    name = metric if metric is not None else (report.metrics[0].name if report.metrics else None)
    value = {s.system: s.value for s in report.scores if s.metric == name}

    def key(system: str) -> tuple[bool, float, str]:
        v = value.get(system)
        known = v is not None and math.isfinite(v)
        return (not known, -float(v) if known and v is not None else 0.0, system)

    return sorted(report.systems, key=key)


def ordered_scores(report: Report, metric: str) -> list[ScoreEntry]:
    """``metric``'s score entries in :func:`system_order`."""
    rank = {name: k for k, name in enumerate(system_order(report, metric))}
    return sorted((s for s in report.scores if s.metric == metric),
                  key=lambda s: rank.get(s.system, len(rank)))


def figure_id(kind: str, metric: str) -> str:
    """The id of a figure (and the stem of its downloaded file)."""
    return f"fig-{kind}-{slug(metric)}"


def _open_svg(svg_id: str, cls: str, width: int, height: int, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="{_e(svg_id)}" class="{cls}" '
            f'role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'aria-label="{_e(label)}"><title>{_e(label)}</title><style>{SVG_STYLE}</style>'
            f'<rect class="bg" x="0" y="0" width="{width}" height="{height}" fill="#fff"/>')


def _disentangled_fields(s: ScoreEntry) -> dict[str, float] | None:
    lower = {k.lower(): v for k, v in s.fields.items()}
    if all(isinstance(lower.get(k), int | float) for k in DISENTANGLED):
        return {k: float(lower[k]) for k in DISENTANGLED}
    return None


def disentangled_chart(report: Report, metric: str) -> str | None:
    """Inline SVG bar chart of Hit/Wrong/Under/Over per system, or None without those fields."""
    rows = [(s.system, f) for s in ordered_scores(report, metric)
            if (f := _disentangled_fields(s)) is not None]
    if not rows:
        return None
    colours = {"hit": COLOURS["tp"], "wrong": COLOURS["fp_ne"], "under": COLOURS["fn"],
               "over": COLOURS["fp_un"]}
    bar, gap, label_w, plot_w = 9, 10, 110, 480
    group = 4 * bar + gap
    height = 30 + group * len(rows) + 20
    parts = [_open_svg(figure_id("disentangled", metric), "chart", label_w + plot_w + 60, height,
                       f"{metric}: hit, wrong, under and over scores per system")]
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
    rows = [s for s in ordered_scores(report, metric) if s.interval]
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
    parts = [_open_svg(figure_id("ci", metric), "chart ci-chart", label_w + plot_w + 20, height,
                       f"{metric}: {main} of each system with its bootstrap interval")]
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

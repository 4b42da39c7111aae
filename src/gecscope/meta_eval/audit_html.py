"""The attack audit (:mod:`gecscope.meta_eval.audit`) as a self-contained HTML page
(``gecscope meta-eval attack --html FILE``): per test set, the attacks x metrics table (each
cell the attack's place among the real systems and its significant wins, refused cells with
their reason as a footnote), the scores and the attacks' descriptions, every table
downloadable as CSV and LaTeX. The same figures as the Markdown and the JSON."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from gecscope.formats.base import atomic_write
from gecscope.meta_eval.audit import (
    ENSEMBLE,
    FLAGS,
    TARGETS,
    AttackCell,
    AuditResult,
    attack_notes,
    fmt_score,
    footnotes,
    score_rows,
)
from gecscope.reports.html import Page, Section, render_page
from gecscope.reports.model import Report

CSS = """
td.gamed{background:#fde2e1;font-weight:600}
td.above{font-weight:700}
td.refused{color:#777;font-style:italic}
ol.notes{font-size:.9em;color:#444}
"""

LEGEND = ("Each cell: the attack's place among the real systems (1 + the number of real "
          "systems scoring strictly more, out of their number + 1; bold: above every real "
          "system) and the wins that are significant (paired bootstrap, p < alpha, delta > 0): "
          "B over the metric's best real system, H over the human-preferred system, S over the "
          "unchanged source; shaded: a significant win over the best or the human-preferred "
          f"system. {ENSEMBLE}: the rank ensemble of the metrics (Goto et al. 2025). refused: "
          "the metric refused to score the attack (the note gives its reason); the ensemble "
          "does not rank an attack one of its members refused.")


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _flags(c: AttackCell) -> str:
    return "".join(FLAGS[k] for k in TARGETS if k in c.versus and c.versus[k].significant)


def _cell(c: AttackCell | None, note: tuple[str, int] | None) -> str:
    if c is None:
        return "<td>–</td>"
    if c.refused:
        mark, k = note if note is not None else ("", 0)
        return (f'<td class="refused">refused<sup><a href="#{_e(mark)}">{k}</a></sup></td>'
                if mark else '<td class="refused">refused</td>')
    cls = "gamed" if any(k in c.versus and c.versus[k].significant for k in ("best", "human")) \
        else "above" if c.above_all else ""
    flags = _flags(c)
    text = f"{c.rank}/{c.of}" + (f" {flags}" if flags else "")
    return f'<td class="{cls}">{_e(text)}</td>' if cls else f"<td>{_e(text)}</td>"


def _section(page: Page, r: AuditResult) -> Section:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", r.test_set).strip("-") or "audit"
    cols = [*r.metrics, *([ENSEMBLE] if r.ensemble_members else [])]
    names = [a["name"] for a in r.attacks]
    marks = footnotes(r)
    ids = {key: (f"{slug}-note-{k}", k) for k, key in enumerate(marks, 1)}
    s = r.settings
    intro = (f"{s['sentences']} sentences; attacks built from {r.best}"
             + (f"; human-preferred system {r.human_best} ({r.human_ranking})"
                if r.human_best else "")
             + f"; source {r.source}; {s['resamples']} bootstrap resamples, seed {s['seed']}, "
               f"alpha {s['alpha']}."
             + (f" {ENSEMBLE} = {' + '.join(r.ensemble_members)}." if r.ensemble_members
                else ""))
    rows, export = [], []
    for a in names:
        cells = [r.cell(m, a) for m in cols]
        rows.append(f"<tr><th>{_e(a.removeprefix('attack:'))}</th>"
                    + "".join(_cell(c, ids.get((c.metric, c.refused)) if c else None)
                              for c in cells) + "</tr>")
        export.append([a.removeprefix("attack:"), *[
            "–" if c is None else "refused" if c.refused
            else f"{c.rank}/{c.of}" + (f" {_flags(c)}" if _flags(c) else "") for c in cells]])
    buttons = page.exports.table(f"attacks-{slug}", f"{r.test_set}: attack places",
                                 ["attack", *cols], export)
    table = (f"<p>{_e(intro)}</p>{buttons}<table><thead><tr><th>attack</th>"
             + "".join(f"<th>{_e(c)}</th>" for c in cols) + "</tr></thead><tbody>"
             + "".join(rows) + "</tbody></table>")
    if marks:
        notes = []
        for (metric, reason), (_mark, attacks) in marks.items():
            which = ", ".join(f"<code>{_e(a.removeprefix('attack:'))}</code>" for a in attacks)
            verb = "did not rank" if metric == ENSEMBLE else "refused"
            notes.append(f'<li id="{_e(ids[metric, reason][0])}"><code>{_e(metric)}</code> '
                         f"{verb} {which}: {_e(reason)}</li>")
        table += '<ol class="notes">' + "".join(notes) + "</ol>"
    scores = score_rows(r)
    sbuttons = page.exports.table(f"scores-{slug}", f"{r.test_set}: scores",
                                  ["system", *r.metrics],
                                  [[n, *[fmt_score(v) for v in vals]] for n, vals in scores])
    table += (f"<h3>Scores</h3>{sbuttons}<table><thead><tr><th>system</th>"
              + "".join(f"<th>{_e(m)}</th>" for m in r.metrics) + "</tr></thead><tbody>"
              + "".join(f"<tr><th>{_e(n)}</th>"
                        + "".join(f"<td>{_e(fmt_score(v))}</td>" for v in vals) + "</tr>"
                        for n, vals in scores) + "</tbody></table>")
    items = [f"<li><code>{_e(a['name'].removeprefix('attack:'))}</code>: {_e(a['description'])}"
             + (f" ({_e(attack_notes(a['notes']))})" if attack_notes(a["notes"]) else "")
             + "</li>" for a in r.attacks]
    items += [f"<li>skipped <code>{_e(k)}</code>: {_e(v)}</li>"
              for k, v in r.skipped_attacks.items()]
    table += "<h3>Attacks</h3><ul>" + "".join(items) + "</ul>"
    if r.skipped_metrics:
        table += ("<h3>Skipped metrics</h3><ul>" + "".join(
            f"<li><code>{_e(k)}</code>: {_e(v)}</li>" for k, v in r.skipped_metrics.items())
            + "</ul>")
    return Section(f"audit-{slug}", r.test_set,
                   f"{r.test_set}: {len(names)} attacks vs {len(r.real)} real systems",
                   table, css=CSS)


def render_audit_html(results: Sequence[AuditResult], *,
                      title: str = "gecscope attack audit") -> str:
    """The page of ``results`` (one section per test set)."""
    from gecscope import __version__

    page = Page(Report([], [], []))
    sections = [_section(page, r) for r in results]
    if sections:
        sections[0].body = f'<p class="meta">{_e(LEGEND)}</p>' + sections[0].body
    meta = (f"{len(results)} test set{'s' if len(results) != 1 else ''} · gecscope "
            f"{_e(__version__)}")
    return render_page(page, sections, title, meta)


def write_audit_html(path: str | Path, results: Sequence[AuditResult]) -> None:
    """Write :func:`render_audit_html` (atomically)."""
    atomic_write(path, [render_audit_html(results)])

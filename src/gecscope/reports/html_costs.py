"""The corpus view of edit attribution (:func:`gecscope.explain.corpus_costs`) as an HTML
fragment: the sentences, edits and error types that cost a system most and earned it most.

:func:`render_costs_html` returns one ``<section>`` to place in a page (the HTML report's
stylesheet takes :data:`COSTS_CSS`): no script, no inline event handler, no inline style and
no external resource; every text from the inputs is escaped. Costs carry the class ``cost``,
gains ``gain``, and every number its exact value in ``data-value``. Given the page's
:class:`~gecscope.reports.html_export.Exports`, each of its six tables gets CSV and LaTeX
download buttons (the HTML report's ``costs_section`` and ``gecscope explain --top --html``).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gecscope.explain.corpus import CorpusCosts, EditCost, SentenceCost, TypeCost, excerpt

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.reports.html_export import Exports

__all__ = ["COSTS_CSS", "render_costs_html"]

EMPTY = "\u2205"

#: The rules the fragment's classes need (for the page's ``<style>``).
COSTS_CSS = """
section.costs table{border-collapse:collapse;margin:.3em 0 1em}
section.costs th,section.costs td{padding:.15em .6em;text-align:left;vertical-align:top}
section.costs td.num{text-align:right;font-variant-numeric:tabular-nums}
section.costs td.num.cost{color:#a40000}
section.costs td.num.gain{color:#006400}
section.costs del{background:#fde2e2;text-decoration:line-through}
section.costs ins{background:#e2f5e2;text-decoration:none}
section.costs .gap{color:#888}
section.costs .more{color:#888;font-style:italic}
section.costs h4{margin:.8em 0 .2em}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float, digits: int) -> str:
    """A signed number cell, classed ``cost`` or ``gain`` by its sign."""
    if not math.isfinite(value):
        return '<td class="num">\u2013</td>'
    cls = "num cost" if value < 0 else "num gain" if value > 0 else "num"
    return f'<td class="{cls}" data-value="{value!r}">{value:+.{digits}f}</td>'


def _excerpt(s: SentenceCost, limit: int = 3) -> str:
    """The sentence's first ``limit`` edits marked (``<del>``/``<ins>``) in a few tokens of
    context; the whole source and hypothesis on hover."""
    parts = []
    for kind, a, b in excerpt(s.source, s.edits[:limit], 2):
        if kind == "gap":
            parts.append('<span class="gap">\u2026</span>')
        elif kind == "edit":
            parts.append(f"<del>{_e(a or EMPTY)}</del><ins>{_e(b or EMPTY)}</ins>")
        else:
            parts.append(_e(a))
    if len(s.edits) > limit:
        more = len(s.edits) - limit
        parts.append(f'<span class="more">(+{more} more edit{"s" if more > 1 else ""})</span>')
    tip = f"source: {s.source}\nhypothesis: {s.hypothesis}"
    return f'<td class="excerpt" title="{_e(tip)}">{" ".join(parts)}</td>'


def _table(header: Sequence[str], rows: Sequence[str], empty: str) -> str:
    if not rows:
        return f'<p class="meta">{_e(empty)}</p>'
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    return (f'<table class="costs-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _sentence_rows(items: Sequence[SentenceCost], corpus: bool) -> list[str]:
    return [f'<tr data-sentence="{s.index + 1}"><td>{k}</td><td>{s.index + 1}</td>'
            + (_num(s.change, 6) if corpus else "") + _num(s.delta, 4) + _excerpt(s) + "</tr>"
            for k, s in enumerate(items, 1)]


def _edit_rows(items: Sequence[EditCost], digits: int) -> list[str]:
    return [f'<tr data-sentence="{e.index + 1}"><td>{k}</td><td>{e.index + 1}</td>'
            f"<td>{e.start}-{e.end}</td><td><del>{_e(e.original or EMPTY)}</del> "
            f"<ins>{_e(e.correction or EMPTY)}</ins></td><td>{_e(e.type)}</td>"
            + _num(e.value, digits) + "</tr>"
            for k, e in enumerate(items, 1)]


def _type_rows(items: Sequence[TypeCost], digits: int) -> list[str]:
    return [f"<tr><td>{k}</td><td>{_e(t.type)}</td><td>{t.edits}</td>" + _num(t.total, digits)
            + _num(t.total / t.edits if t.edits else math.nan, digits) + "</tr>"
            for k, t in enumerate(items, 1)]


def _export_rows(what: str, items: Sequence[Any], corpus: bool) -> tuple[list[str], list[list[Any]]]:
    """The header and plain rows of one ranking, for its CSV and LaTeX downloads."""
    if what == "sentences":
        return (["rank", "sentence", *(["corpus change"] if corpus else []), "sentence change",
                 "edits", "source", "hypothesis"],
                [[k, s.index + 1, *([s.change] if corpus else []), s.delta, len(s.edits),
                  s.source, s.hypothesis] for k, s in enumerate(items, 1)])
    if what == "edits":
        return (["rank", "sentence", "start", "end", "original", "correction", "type",
                 "attribution"],
                [[k, e.index + 1, e.start, e.end, e.original or EMPTY, e.correction or EMPTY,
                  e.type, e.value] for k, e in enumerate(items, 1)])
    return (["rank", "type", "edits", "sum", "mean"],
            [[k, t.type, t.edits, t.total, t.total / t.edits if t.edits else None]
             for k, t in enumerate(items, 1)])


def render_costs_html(costs: CorpusCosts, max_exact: int | None = None,
                      exports: Exports | None = None) -> str:
    """``costs`` as one ``<section class="costs">``: a note on what the numbers are, then for
    sentences, edits and error types a table of the costliest and one of the most earning.
    ``max_exact`` (the Shapley cut-off used; default: the one ``costs`` records) completes the
    note on sampled sentences; ``exports`` registers each table's downloads (buttons in its
    heading)."""
    c = costs
    sys_, metric = _e(c.system), _e(c.metric)
    corpus = c.rank_by == "corpus"
    digits = 6 if corpus else 4  # shares of a corpus score change are small
    max_exact = c.max_exact if max_exact is None else max_exact
    how = _e(c.method)
    if c.sampled:
        plural = "s" if c.sampled != 1 else ""
        how += (f"; Shapley values sampled for {c.sampled} sentence{plural} with more than "
                f"{max_exact} edits")
    change = (f"corpus change: {metric} of the corpus minus {metric} with that sentence left "
              "as its source (leave-one-out)" if corpus else
              f"sentence change: the sentence's {metric} minus the source's")
    share = (f"an edit's attribution is its share of its sentence's corpus change (the {metric} "
             "of the corpus with the sentence as the source plus some of its edits; a "
             "sentence's shares sum to its corpus change)" if corpus else
             f"an edit's attribution is its share of its sentence's {metric} change")
    score = f"{c.score:.4f}" if math.isfinite(c.score) else "undefined"
    notes = [(f"{sys_}: {metric} {score} over {c.sentences} sentences, {c.edited} edited; "
             f"edits attributed by {how}."), f"{change}; {share}."]
    if c.undefined:
        notes.append(f"{c.undefined} sentences with an undefined (NaN) score or attribution "
                     "left out.")
    header = ["rank", "sentence", *(["corpus change"] if corpus else []), "sentence change",
              "source \u2192 hypothesis"]

    def buttons(what: str, sign: str, items: Sequence[Any], title: str) -> str:
        if exports is None or not items:
            return ""
        head, rows = _export_rows(what, items, corpus)
        return exports.table(f"costs-{c.system}-{c.metric}-{what}-{sign}",
                             f"{c.system}, {c.metric}: {title}", head, rows)

    blocks = [(f'<section class="costs" data-system="{sys_}" data-metric="{metric}" '
              f'data-rank-by="{_e(c.rank_by)}">'),
              f"<h3>What cost and earned {sys_} its {metric} score</h3>",
              *(f'<p class="meta">{n}</p>' for n in notes)]
    for sign, what, sentences in (("cost", "cost", c.sentence_cost),
                                  ("gain", "earned", c.sentence_gain)):
        title = f"Sentences that {what} {c.system} most"
        blocks += [f"<h4>{_e(title)}{buttons('sentences', sign, sentences, title)}</h4>",
                   _table(header, _sentence_rows(sentences, corpus), "none")]
    for sign, what, edits in (("cost", "cost", c.edit_cost), ("gain", "earned", c.edit_gain)):
        title = f"Edits that {what} {c.system} most"
        blocks += [f"<h4>{_e(title)}{buttons('edits', sign, edits, title)}</h4>",
                   _table(["rank", "sentence", "span", "edit", "type", "attribution"],
                          _edit_rows(edits, digits), "none")]
    for sign, what, types in (("cost", "cost", c.type_cost), ("gain", "earned", c.type_gain)):
        title = f"Error types that {what} {c.system} most (sum of attributions)"
        blocks += [f"<h4>{_e(title)}{buttons('types', sign, types, title)}</h4>",
                   _table(["rank", "type", "edits", "sum", "mean"], _type_rows(types, digits),
                          "none")]
    blocks.append("</section>")
    return "\n".join(blocks)

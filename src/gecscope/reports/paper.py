"""The paper table (``gecscope evaluate --paper``): the standard table of a test set, to paste.

Per system the headline figures as the test set's papers print them (:class:`~gecscope.
reports.headline.Headline`: e.g. CoNLL-2014's M2 P/R/F0.5 x100 with two decimals), the 95%
bootstrap interval of the headline field, and a paired bootstrap test against a named
baseline, as Markdown or LaTeX, with footnotes that say what each interval and test is over and
the metric's signature. Systems keep the order they were given in (the baseline where the user
put it). Everything is read from a :class:`~gecscope.reports.model.Report` built with
bootstrap resampling; nothing is scored here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscope.errors import ConfigError
from gecscope.reports.headline import Headline
from gecscope.reports.model import Report
from gecscope.reports.text import latex_escape, render_table

#: ``--paper`` styles
PAPER_STYLES = ("markdown", "latex")


def generic_headline(report: Report, metric: str) -> Headline:
    """A headline for references that are not a known test set: ``metric``'s fields that are
    scores (not counts) among those its table shows, x100 with two decimals."""
    info = report.metric(metric)
    entries = [s for s in report.scores if s.metric == metric]
    if info is None or not entries:
        raise ConfigError(f"--paper: no scores of metric {metric!r}")
    shown = list(info.display or entries[0].fields) or [info.main]
    fields = [k for k in shown if not isinstance(entries[0].fields.get(k), int)
              and isinstance(entries[0].fields.get(k), float)]
    if info.main not in fields:
        fields = [k for k in fields if k != info.main] + [info.main]
    return Headline("these references", metric, tuple(fields), 100.0, 2,
                    ", ".join(report.inputs.get("references", [])))


def _direction(delta: float) -> tuple[str, str]:
    """The arrow of a difference against the baseline, plain and in LaTeX."""
    if delta > 0:
        return "\u2191", r"$\uparrow$"
    if delta < 0:
        return "\u2193", r"$\downarrow$"
    return "=", "="


def _p_cells(report: Report, metric: str, baseline: str) -> dict[str, tuple[float, float]]:
    """system -> (p-value, its score minus the baseline's) of the paired bootstrap test."""
    out: dict[str, tuple[float, float]] = {}
    for c in report.pairwise:
        if c["metric"] != metric:
            continue
        a, b = c["system_a"], c["system_b"]
        if a == baseline:
            out[b] = (float(c["p_value"]), -float(c["delta"]))
        elif b == baseline:
            out[a] = (float(c["p_value"]), float(c["delta"]))
    return out


def paper_rows(report: Report, head: Headline, baseline: str
               ) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """The header and rows of the table, plain text and LaTeX cells."""
    r = report.resampling
    if not r or r.get("test") != "bootstrap":
        raise ConfigError("--paper needs bootstrap resampling (--bootstrap N, --test bootstrap)")
    if baseline not in report.systems:
        raise ConfigError(f"--baseline {baseline!r} is not one of the systems: "
                          f"{', '.join(report.systems)}")
    entries = {s.system: s for s in report.scores if s.metric == head.metric}
    if any(s.main != head.figure for s in entries.values()):
        raise ConfigError(f"--paper: {head.metric}'s main score is not {head.figure}, the "
                          "figure its intervals and tests would be of")
    missing = [k for k in head.fields
               if any(k not in s.fields and k != s.main for s in entries.values())]
    if missing:
        raise ConfigError(f"--paper: {head.metric} has no field {missing[0]!r}")
    ci = f"{round(float(r['confidence']) * 100):g}% CI (bootstrap over sentences)"
    header = ["System", *head.fields, f"{head.figure} {ci}", f"p vs {baseline} (paired bootstrap)"]
    tests = _p_cells(report, head.metric, baseline)
    plain, latex = [], []
    for system in report.systems:
        s = entries.get(system)
        if s is None:
            continue
        values = [s.value if k == s.main else s.fields.get(k) for k in head.fields]
        cells = [head.printed(v if isinstance(v, float | int) else None) for v in values]
        iv = s.interval if head.figure == s.main else s.field_intervals.get(head.figure)
        interval = (f"[{head.printed(iv['low'])}, {head.printed(iv['high'])}]" if iv else "-")
        if system == baseline:
            p_plain = p_latex = "baseline"
        elif system in tests:
            p, delta = tests[system]
            arrow, arrow_tex = _direction(delta)
            p_plain, p_latex = f"{p:.3f} {arrow}", f"{p:.3f} {arrow_tex}"
        else:
            p_plain = p_latex = "-"
        plain.append([system, *cells, interval, p_plain])
        latex.append([latex_escape(system), *cells, interval, p_latex])
    return header, plain, latex


def footnotes(report: Report, head: Headline, baseline: str) -> list[str]:
    """What the table's figures, intervals and tests are, and the signature to quote."""
    r = report.resampling or {}
    info = report.metric(head.metric)
    n = report.inputs.get("n_sentences")
    where = (f"{head.test_set}, against {head.reference}" if head.reference
             else head.test_set)
    count = f"{n:,}" if isinstance(n, int) else str(n)
    samples = r.get("n_samples")
    notes = [f"Scores: {head.metric} {'/'.join(head.fields)} x{head.scale:g} ({where}).",
             (f"CI: percentile bootstrap over the {count} sentences ({samples} resamples, "
              f"seed {r.get('seed')}), of {head.figure}."),
             (f"p: paired bootstrap test of each system against {baseline} on {head.figure} "
              f"(two-sided, the same {samples} resamples for every system); "
              f"\u2191/\u2193: higher/lower than {baseline}; p < {r.get('alpha', 0.05)}: "
              "significant."),
             f"Signature: {info.signature if info else ''}"]
    if info is not None:
        notes += [f"Note: {x}" for x in info.notes]
    return notes


def _latex_note(note: str) -> str:
    """A footnote in LaTeX: escaped, arrows and ``<`` in maths, the signature in ``\\texttt``
    (its ``|`` would print as a dash in text mode)."""
    if note.startswith("Signature: "):
        return r"Signature: \texttt{" + latex_escape(note[len("Signature: "):]).replace(
            "|", r"\textbar{}") + "}"
    text = latex_escape(note).replace("\u2191", r"$\uparrow$").replace("\u2193", r"$\downarrow$")
    return text.replace(" < ", r" $<$ ").replace(" x100", r" $\times$100")


def format_paper(report: Report, head: Headline, baseline: str, style: str = "markdown",
                 caption: str | None = None) -> str:
    """The paper table in ``style`` (``markdown`` or ``latex``)."""
    if style not in PAPER_STYLES:
        raise ConfigError(f"--paper prints {' or '.join(PAPER_STYLES)}, not {style!r}")
    header, plain, latex = paper_rows(report, head, baseline)
    notes = footnotes(report, head, baseline)
    title = caption or f"{head.test_set}: {head.metric} {'/'.join(head.fields)}"
    left = (0,)
    if style == "markdown":
        table = render_table(header, plain, left=left, style="markdown")
        return f"**{title}**\n\n{table}\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    spec = "l" + "r" * (len(header) - 1)
    head_cells = " & ".join(latex_escape(h).replace("p vs", "$p$ vs") for h in header)
    body = [" & ".join(row) + r" \\" for row in latex]
    foot = [_latex_note(n) for n in notes]
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule", head_cells + r" \\", r"\midrule",
             *body, r"\bottomrule", r"\end{tabular}", r"\par\smallskip",
             r"\parbox{\linewidth}{\footnotesize " + r" \\ ".join(foot) + "}",
             rf"\caption{{{latex_escape(title)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def paper_output(report: Report, head: Headline, baseline: str,
                 styles: Sequence[str] = PAPER_STYLES) -> str:
    """The table in each of ``styles``, one after the other (``--paper``'s default: both)."""
    return "\n".join(format_paper(report, head, baseline, s) for s in styles)


def paper_json(report: Report, head: Headline, baseline: str) -> dict[str, Any]:
    """The table's content as data (for scripts and tests)."""
    header, plain, _ = paper_rows(report, head, baseline)
    return {"headline": head.as_dict(), "baseline": baseline, "header": header,
            "rows": plain, "footnotes": footnotes(report, head, baseline)}

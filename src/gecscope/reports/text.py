"""Terminal rendering: aligned tables, optional ANSI colour, a quiet form for scripts.

Colour is used only when asked for; :func:`colour_enabled` gives the usual default (the stream
is a terminal, ``NO_COLOR`` is unset and ``TERM`` is not ``dumb``). Widths ignore the escape
codes, so coloured and plain tables align the same way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any, TextIO

from gecscope.reports.model import Report, ScoreEntry

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
BOLD, DIM, GREEN, RESET = "\x1b[1m", "\x1b[2m", "\x1b[32m", "\x1b[0m"


def colour_enabled(stream: TextIO) -> bool:
    """True for a terminal without ``NO_COLOR`` (https://no-color.org) and not ``TERM=dumb``."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ and \
        os.environ.get("TERM") != "dumb"


def visible_len(s: str) -> int:
    return len(_ANSI.sub("", s))


def _pad(s: str, width: int, left: bool) -> str:
    gap = " " * (width - visible_len(s))
    return s + gap if left else gap + s


STYLES = ("plain", "markdown", "latex")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def render_table(header: Sequence[Any], rows: Sequence[Sequence[Any]], digits: int = 4, *,
                 colour: bool = False, left: Sequence[int] = (0,), style: str = "plain") -> str:
    """An aligned table; columns in ``left`` are left-aligned, the others right-aligned.

    Cells that are not strings are formatted by :func:`format_cells` (counts without
    decimals, other floats with ``digits`` decimals). ``style``: ``plain`` (terminal),
    ``markdown`` (a pipe table) or ``latex`` (a booktabs ``tabular``, cells escaped)."""
    header = [str(h) for h in header]
    rows = format_cells(rows, digits)
    if style == "markdown":
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        align = ["---" if i in left else "---:" for i in range(len(header))]
        return "\n".join([line(header), "|" + "|".join(align) + "|", *map(line, rows)])
    if style == "latex":
        spec = "".join("l" if i in left else "r" for i in range(len(header)))
        body = [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
        return "\n".join([rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                          " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule",
                          *body, r"\bottomrule", r"\end{tabular}"])
    if style != "plain":
        raise ValueError(f"unknown table style {style!r}; choose from {', '.join(STYLES)}")
    widths = [visible_len(h) for h in header]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], visible_len(c))
    head = "  ".join(_pad(h, w, i in left) for i, (h, w) in enumerate(zip(header, widths,
                                                                          strict=True)))
    rule = "  ".join("-" * w for w in widths)
    if colour:
        head = BOLD + head + RESET
    lines = [head.rstrip(), rule]
    for r in rows:
        lines.append("  ".join(_pad(c, w, i in left) for i, (c, w) in
                               enumerate(zip(r, widths, strict=True))).rstrip())
    return "\n".join(lines)


def fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def integral_column(values: Sequence[Any]) -> bool:
    """A column of counts: every value an int, or every value a whole-number float with some
    above 1 (a float column of 0s and 1s is more likely a score than a count)."""
    nums = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if nums and all(isinstance(v, int) for v in nums):
        return True
    return bool(nums) and all(float(v).is_integer() and abs(v) < 2 ** 53 for v in nums) and \
        any(abs(v) > 1 for v in nums)


def _as_int(v: Any) -> Any:
    return int(v) if isinstance(v, float) else v


def format_cells(rows: Sequence[Sequence[Any]], digits: int = 4) -> list[list[str]]:
    """Format a table's values: counts (whole-number columns) without decimals, other floats
    with ``digits`` decimals, anything else with ``str``."""
    width = max((len(r) for r in rows), default=0)
    counts = {i for i in range(width) if integral_column([r[i] for r in rows if i < len(r)])}
    return [[fmt(_as_int(v) if i in counts else v, digits) for i, v in enumerate(r)]
            for r in rows]


def _score_cell(s: ScoreEntry | None, digits: int) -> str:
    if s is None:
        return "-"
    out = fmt(s.value, digits)
    if s.interval is not None:
        out += f" [{fmt(s.interval['low'], digits)}, {fmt(s.interval['high'], digits)}]"
    return out


def _metric_block(m: Any, header: Sequence[Any], rows: Sequence[Sequence[Any]],
                  left: Sequence[int], colour: bool, style: str, mark: str = "") -> str:
    """A metric's title (with ``mark``: :func:`reported_mark`), table and signature in the
    output ``style``."""
    title = m.name + (f" ({m.description})" if m.description else "") + mark
    sig = f"signature: {m.signature}"
    gap = "\n"
    if style == "markdown":
        title, sig, gap = f"**{title}**", f"`{sig}`", "\n\n"
    elif style == "latex":
        title, sig = f"% {title}", f"% {sig}"
    elif colour:
        title, sig = BOLD + title + RESET, DIM + sig + RESET
    table = render_table(header, rows, colour=colour and style == "plain", left=left,
                         style=style)
    notes = "".join(gap + _note(n, colour, style) for n in getattr(m, "notes", ()))
    return f"{title}{gap}{table}{gap}{sig}{notes}"


def _note(note: str, colour: bool, style: str) -> str:
    """A closing note in the output ``style`` (a comment in LaTeX, dimmed on a terminal)."""
    if style == "latex":
        return "% " + note
    return DIM + note + RESET if colour and style == "plain" else note


OWN_INTERVAL = ("draws_ci_low", "draws_ci_high")


def interval_label(report: Report) -> str:
    """The column name of a bootstrap interval: its confidence and what it is over."""
    r = report.resampling or {}
    return f"{round(float(r.get('confidence', 0.95)) * 100):g}% CI, bootstrap over sentences"


def reported_mark(report: Report, metric: str) -> str:
    """`` <- report this (TEST SET)`` after the title of the metric whose figure the
    references' test set reports (:attr:`Report.reported`), else ``""``."""
    rep = report.reported
    if rep is None or rep.marked != metric:
        return ""
    return f"  <- report this ({rep.headline.test_set}: {rep.headline.figure})"


def reported_notes(report: Report, style: str = "plain") -> str:
    """The lines that say which figure to report and why the others differ (empty when the
    references are not a known test set), each as a note in ``style``."""
    rep = report.reported
    if rep is None or not rep.notes:
        return ""
    if style == "latex":
        return "\n".join("% " + n for n in rep.notes) + "\n"
    if style == "markdown":
        return "\n".join(f"*{n}*  " for n in rep.notes) + "\n"
    return "\n".join(f"note: {n}" for n in rep.notes) + "\n"


def format_report(report: Report, *, colour: bool = False, quiet: bool = False,
                  digits: int = 4, style: str = "plain") -> str:
    """The scores as aligned tables followed by each metric's signature.

    One table per metric (all Score fields, the headline first, with the interval when
    resampling was done, rank and cluster); ``quiet`` gives ``system<TAB>metric<TAB>value``
    lines only.
    """
    if quiet:
        return "\n".join(f"{s.system}\t{s.metric}\t{fmt(s.value, digits)}"
                         for s in report.scores) + "\n"
    blocks: list[str] = []
    hidden: list[str] = []
    for m in report.metrics:
        entries = [s for s in report.scores if s.metric == m.name]
        ranked = any(s.rank is not None for s in entries)
        if ranked:
            entries.sort(key=lambda s: (s.rank or 0))
        names: list[str] = []
        for s in entries:
            for k in s.fields:
                if k != s.main and k not in names:
                    names.append(k)
        if report.resampling and any(k in OWN_INTERVAL for k in names):
            # one interval per row: the bootstrap one; a metric's own (GLEU's interval over
            # reference draws) stays in the JSON output
            names = [k for k in names if k not in OWN_INTERVAL]
            hidden.append(m.name)
        main = f"{m.main} [{interval_label(report)}]" if report.resampling else m.main
        header = (["rank", "cluster"] if ranked else []) + ["system", main] + names
        field_cells = format_cells([[s.fields.get(k) for k in names] for s in entries], digits)
        rows = []
        for s, cells in zip(entries, field_cells, strict=True):
            first = _score_cell(s, digits)
            if colour and s.cluster == 1:
                first = GREEN + first + RESET
            row = ([fmt(s.rank), fmt(s.cluster)] if ranked else []) + [s.system, first]
            rows.append(row + cells)
        left = (2,) if ranked else (0,)
        blocks.append(_metric_block(m, header, rows, left, colour, style,
                                    reported_mark(report, m.name)))
    if report.resampling:
        r = report.resampling
        note = (f"{int(r['confidence'] * 100)}% intervals from {r['n_samples']} bootstrap "
                f"resamples of the sentences (seed {r['seed']}); clusters: not significantly "
                f"different from the cluster's best system ({r['test']}, p >= {r['alpha']})")
        if hidden:
            note += (f"; {', '.join(hidden)}: its own interval (draws_ci_low, draws_ci_high: "
                     "over reference draws, not resamples) is in the JSON output")
        blocks.append(_note(note, colour, style))
    notes = reported_notes(report, style).rstrip("\n")
    if notes:
        blocks.append(notes)
    return "\n\n".join(blocks) + "\n"


def format_ranking(report: Report, *, colour: bool = False, quiet: bool = False,
                   digits: int = 4, style: str = "plain") -> str:
    """Systems ranked per metric with their cluster, interval and the test against the
    cluster's best system (the output of ``gecscope compare``)."""
    if quiet:
        return "".join(f"{s.metric}\t{s.rank}\t{s.cluster}\t{s.system}\t{fmt(s.value, digits)}\n"
                       for m in report.metrics
                       for s in sorted((x for x in report.scores if x.metric == m.name),
                                       key=lambda x: x.rank or 0))
    blocks = []
    for m in report.metrics:
        entries = sorted((s for s in report.scores if s.metric == m.name),
                         key=lambda s: s.rank or 0)
        comps = {c["system_b"]: c for c in report.comparisons if c["metric"] == m.name}
        header = ["rank", "cluster", "system", m.main, interval_label(report), "vs", "delta",
                  "p"]
        rows = []
        for s in entries:
            c = comps.get(s.system)
            iv = s.interval
            value = fmt(s.value, digits)
            if colour and s.cluster == 1:
                value = GREEN + value + RESET
            rows.append([fmt(s.rank), fmt(s.cluster), s.system, value,
                         f"[{fmt(iv['low'], digits)}, {fmt(iv['high'], digits)}]" if iv else "-",
                         c["system_a"] if c else "-",
                         f"{-c['delta']:+.{digits}f}" if c else "-",
                         f"{c['p_value']:.4f}" if c else "-"])
        blocks.append(_metric_block(m, header, rows, (2, 5), colour, style,
                                    reported_mark(report, m.name)))
    if report.resampling:
        r = report.resampling
        test = "paired bootstrap" if r["test"] == "bootstrap" else "approximate randomisation"
        note = (f"Clusters: a system joins the cluster of the best system above it unless it is "
                f"significantly worse ({test}, {r['n_samples']} samples, seed {r['seed']}, "
                f"p < {r['alpha']}); 'vs' is the best system of the cluster it was tested "
                f"against.")
        blocks.append(_note(note, colour, style))
    notes = reported_notes(report, style).rstrip("\n")
    if notes:
        blocks.append(notes)
    return "\n\n".join(blocks) + "\n"

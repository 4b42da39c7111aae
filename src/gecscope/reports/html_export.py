"""Downloads of the HTML report's tables (CSV, LaTeX) and figures (SVG), made at build time.

Every table of the page registers here what a paper needs of it: a header and rows of plain
values. The CSV (full precision, UTF-8) and the LaTeX (a booktabs ``tabular``, 4 decimals,
:func:`gecscope.reports.text.render_table`'s) are written now, in Python, and embedded in the
page as one JSON block; the page's script only hands them to the browser as a file. Figures are
inline SVG that carry their own style, so the script serialises the element as it is.
Nothing is fetched: the page stays one self-contained file.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscope.reports.text import render_table

#: symbols the page uses that LaTeX (without extra packages) would not typeset as such
LATEX_SYMBOLS = {"▲": r"$\uparrow$", "▼": r"$\downarrow$", "–": "--", "−": "$-$", "∅": r"$\emptyset$",
                 "±": r"$\pm$", "·": r"$\cdot$", "→": r"$\rightarrow$"}


def slug(text: str) -> str:
    """A file-name-safe form of ``text`` (letters, digits, ``.``, ``_`` and ``-``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "table"


def csv_cell(v: Any) -> str:
    """A value as a CSV cell: full precision for numbers, empty for a missing or undefined
    (NaN) one."""
    if v is None or isinstance(v, float) and not math.isfinite(v):
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def csv_text(header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """RFC 4180 CSV of a header and its rows (``\\r\\n`` line ends, quotes where needed)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([str(h) for h in header])
    for r in rows:
        writer.writerow([csv_cell(v) for v in r])
    return buf.getvalue()


def latex_text(title: str, header: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """A booktabs ``tabular`` under a comment naming the table, special characters escaped
    and the page's symbols (arrows, dashes) written as LaTeX math."""
    cells = [["–" if v is None or isinstance(v, float) and not math.isfinite(v) else v
              for v in r] for r in rows]
    labels = tuple(i for i, h in enumerate(header) if h in ("system", "type"))
    table = render_table(list(header), cells, style="latex", left=labels or (0,))
    for sym, tex in LATEX_SYMBOLS.items():
        table = table.replace(sym, tex)
    title = " ".join(title.split())
    for sym, tex in LATEX_SYMBOLS.items():
        title = title.replace(sym, tex)
    return f"% {title}\n% needs \\usepackage{{booktabs}}\n{table}\n"


@dataclass
class Exports:
    """The downloadable tables of one page: ``key`` -> file name, CSV and LaTeX."""

    tables: dict[str, dict[str, str]] = field(default_factory=dict)

    def table(self, key: str, title: str, header: Sequence[Any], rows: Sequence[Sequence[Any]],
              *, latex_rows: Sequence[Sequence[Any]] | None = None) -> str:
        """Register a table (``latex_rows``: fewer rows for the paper's version) and return
        its CSV and LaTeX download buttons. Keys are made of system and metric names, which
        may contain dashes (``costs-a-b-m2`` is system ``a-b`` or metric ``b-m2``): a key
        already taken gets ``-2``, ``-3``... so every table keeps its own download."""
        if key in self.tables:
            n = 2
            while f"{key}-{n}" in self.tables:
                n += 1
            key = f"{key}-{n}"
        name = f"gecscope-{slug(key)}"
        self.tables[key] = {"name": name, "title": title, "csv": csv_text(header, rows),
                            "latex": latex_text(title, header,
                                                rows if latex_rows is None else latex_rows)}
        k = html.escape(key, quote=True)
        return ('<span class="dl-group">'
                f'<button type="button" class="dl" data-export="{k}" data-format="csv" '
                f'title="download this table as CSV ({name}.csv)">CSV</button>'
                f'<button type="button" class="dl" data-export="{k}" data-format="latex" '
                f'title="download this table as a LaTeX tabular ({name}.tex)">LaTeX</button>'
                "</span>")


def svg_button(svg_id: str) -> str:
    """The download button of the inline SVG figure whose id is ``svg_id``."""
    k = html.escape(svg_id, quote=True)
    return (f'<span class="dl-group"><button type="button" class="dl" data-svg="{k}" '
            f'title="download this figure as SVG (gecscope-{k}.svg)">SVG</button></span>')

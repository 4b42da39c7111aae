"""The HTML report's paper-facing parts (issue #43 item 3), read from the generated page:
unsigned p-values with a direction, the folded per-type table with its counts, systems in
score order, FN marks that add no text, and the CSV / LaTeX / SVG downloads embedded in the
page under a hash-based Content-Security-Policy. The page's script is run in a real browser
by tests/browser/test_html_report.py."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from test_stats_metric import Disentangled, EditFFast, ExactMatch, toy_corpus

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.reports.html import render_html, system_order
from gecscope.reports.html_export import csv_text, latex_text
from gecscope.reports.model import OUTCOME_TABLE, Report, build_report

SVG_NS = "{http://www.w3.org/2000/svg}"


class Tables(HTMLParser):
    """Every ``<table>`` of a page: its attributes, the ancestors' classes and its rows of
    (tag, attributes, text) cells; ``<details>`` nesting is kept as the ``folded`` flag."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, Any]] = []
        self.stack: list[dict[str, Any]] = []
        self.cell: list[Any] | None = None
        self.path: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag not in ("br", "img", "meta", "input", "rect", "line", "circle"):
            self.path.append((tag, a))
        if tag == "table":
            self.stack.append({"attrs": a, "rows": [], "ancestors": [dict(p[1]) | {"tag": p[0]}
                                                                     for p in self.path[:-1]]})
        elif tag == "tr" and self.stack:
            self.stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self.stack:
            self.cell = [tag, a, ""]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.stack:
            self.stack[-1]["rows"][-1].append(tuple(self.cell))
            self.cell = None
        elif tag == "table" and self.stack:
            self.tables.append(self.stack.pop())
        while self.path and self.path[-1][0] != tag:
            self.path.pop()
        if self.path:
            self.path.pop()

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[2] += data


def tables(page: str) -> list[dict[str, Any]]:
    parser = Tables()
    parser.feed(page)
    return parser.tables


def texts(table: dict[str, Any]) -> list[list[str]]:
    return [[c[2].strip() for c in row] for row in table["rows"]]


def exports(page: str) -> dict[str, dict[str, str]]:
    block = page.split('<script id="gecscope-exports" type="application/json">', 1)[1]
    return dict(json.loads(block.split("</script>", 1)[0]))


def toy_report(order: tuple[int, ...] = (2, 1, 0), n_samples: int = 200,
               twin: bool = False) -> Report:
    """The toy corpus, systems handed in worst first (copy, over, good); ``twin`` adds a copy
    of ``copy`` named ``a-copy`` (a tie, to be ordered by name)."""
    data, hyps = toy_corpus()
    hyps = [hyps[k] for k in order]
    if twin:
        hyps.append(hyps[0].renamed("a-copy"))
    metrics = [EditFFast(), Disentangled(), ExactMatch()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    return build_report(data, hyps, results, metrics, n_samples=n_samples, seed=3)


@pytest.fixture(scope="module")
def toy() -> tuple[Report, str]:
    report = toy_report(twin=True)
    return report, render_html(report)


def by_score(report: Report, metric: str) -> list[str]:
    scores = [s for s in report.scores if s.metric == metric]
    return [s.system for s in sorted(scores, key=lambda s: (-(s.value or 0.0), s.system))]


# -- 1. p-values unsigned, the direction as an arrow with its words --------------------------

def test_p_values_are_unsigned_with_a_direction(toy: tuple[Report, str]) -> None:
    report, page = toy
    alpha = report.resampling["alpha"]
    for m in report.metrics:
        (matrix,) = [t for t in tables(page) if t["attrs"].get("data-metric") == m.name
                     and t["attrs"].get("class") == "sigmatrix"]
        order = [c[2] for c in matrix["rows"][0][1:]]
        assert order == by_score(report, m.name)
        seen = 0
        for c in report.pairwise:
            if c["metric"] != m.name:
                continue
            for a, b, delta in ((c["system_a"], c["system_b"], c["delta"]),
                                (c["system_b"], c["system_a"], -c["delta"])):
                _tag, attrs, text = matrix["rows"][1 + order.index(a)][1 + order.index(b)]
                p = c["p_value"]
                shown = "<0.001" if p < 0.001 else f"{p:.3f}"
                mark = "▲" if delta > 0 else "▼" if delta < 0 else "="
                assert text == f"{shown} {mark}", (a, b)
                assert not re.search(r"[+−-]", text)  # no sign: it is a p-value
                assert attrs["data-better"] == ("row" if delta > 0 else
                                                "column" if delta < 0 else "neither")
                who = a if delta > 0 else b
                assert (f"({who} scored higher" in attrs["title"] if delta else
                        "(equal scores" in attrs["title"])
                assert attrs["title"].startswith(f"{a} − {b} = {delta:+.4f}, p = {p:.4f}")
                assert attrs["class"] == ("not-sig" if p >= alpha else
                                          "sig-better" if delta > 0 else "sig-worse")
                seen += 1
        assert seen == len(order) * (len(order) - 1)
        # best first: above the diagonal the row system scored at least as high
        for i, row in enumerate(matrix["rows"][1:]):
            assert all(cell[2].endswith(("▲", "=")) for cell in row[2 + i:])
    assert "<b>▲</b> where the row system scored higher" in page


# -- 2. the per-type table: edited types with counts, by frequency; the rest folded ----------

def _type_tables(page: str, table: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    found = [t for t in tables(page) if "typetable" in t["attrs"].get("class", "")
             and any(a.get("data-table") == table for a in t["ancestors"])]
    shown = [t for t in found if "zero-table" not in t["attrs"]["class"]]
    folded = [t for t in found if "zero-table" in t["attrs"]["class"]]
    assert len(shown) == 1 and len(folded) <= 1
    if folded:  # inside a closed <details> of its own
        assert any(a["tag"] == "details" and a.get("class") == "zero-types" and "open" not in a
                   for a in folded[0]["ancestors"])
    return shown[0], folded[0] if folded else None


def check_type_table(report: Report, page: str, table: str) -> tuple[list[str], list[str]]:
    """Check one type table against the report; return the shown and the folded types."""
    per_sys = report.per_type[table]
    info = report.metric(table)
    systems = [s for s in system_order(report, info.name if info else None) if s in per_sys]
    lookup = {(s, r.type): r for s in systems for r in per_sys[s]}
    types = {r.type for rows in per_sys.values() for r in rows}
    shown_t, folded_t = _type_tables(page, table)
    assert [c[2] for c in shown_t["rows"][0]] == ["type", "edits", *systems]
    got: dict[str, list[str]] = {}
    for t in (shown_t, folded_t):
        for row in (t["rows"][1:] if t else []):
            got[row[0][2]] = [c[2] for c in row[1:]]
    assert set(got) == types  # every type is on the page, shown or folded
    total = {t: sum(r.tp + r.fp + r.fn for s in systems if (r := lookup.get((s, t))))
             for t in types}
    for t, cells in got.items():
        assert cells[0] == str(total[t])
        for s, cell in zip(systems, cells[1:], strict=True):
            r = lookup.get((s, t))
            # the counts are on the cell, not only on hover
            assert cell == ("–" if r is None else f"{r.f:.3f}{r.tp}/{r.fp}/{r.fn}"), (t, s)
    shown = [row[0][2] for row in shown_t["rows"][1:]]
    folded = [row[0][2] for row in folded_t["rows"][1:]] if folded_t else []
    edited = {t for t in types if any((r := lookup.get((s, t))) and r.tp + r.fp for s in systems)}
    assert set(shown) == edited and set(folded) == types - edited
    assert shown == sorted(shown, key=lambda t: (-total[t], t))  # most edits first
    assert folded == sorted(folded, key=lambda t: (-total[t], t))
    return shown, folded


def test_type_table_folds_the_types_no_system_edited(toy: tuple[Report, str]) -> None:
    report, page = toy
    shown, folded = check_type_table(report, page, OUTCOME_TABLE)
    # U:PREP: the references delete "in", no system does (good and copy miss it)
    assert folded == ["U:PREP"]
    assert shown[0] == "R:VERB:SVA" and "R:ADJ" in shown
    assert "1 type no system edited" in page


@pytest.fixture(scope="module")
def conll(conll14: Path) -> tuple[Report, str]:
    from gecscope.metrics.errant import ErrantMetric

    d = conll14 / "errant"
    data = EvalData.from_m2(read_m2(d / "references.m2"))
    hyps = [Hypothesis.from_file(d / f"{n}.m2") for n in ("UFC", "AMU", "CAMB", "INPUT")]
    metric = ErrantMetric()
    results = [metric.evaluate(data, h) for h in hyps]
    report = build_report(data, hyps, results, [metric], n_samples=50, seed=7)
    return report, render_html(report)


def test_conll_type_tables(conll: tuple[Report, str]) -> None:
    report, page = conll
    for table in ("errant", OUTCOME_TABLE):
        shown, folded = check_type_table(report, page, table)
        # ERRANT on CoNLL-2014: noun number is the most frequent type; no system deletes a
        # possessive (U:NOUN:POSS: only missed edits)
        assert shown[0] == "R:NOUN:NUM" and folded == ["U:NOUN:POSS"]
    # the systems by ERRANT's F0.5, best first (handed in as UFC, AMU, CAMB, INPUT)
    assert system_order(report) == ["CAMB", "AMU", "UFC", "INPUT"]
    overview = next(t for t in tables(page) if t["attrs"].get("id") == "overview")
    assert [r[0] for r in texts(overview)[1:]] == ["CAMB", "AMU", "UFC", "INPUT"]
    amu = next(r for r in report.per_type["errant"]["AMU"] if r.type == "R:NOUN:NUM")
    assert (amu.tp, amu.fp, amu.fn) == (117, 124, 89)
    csv_rows = list(csv.reader(io.StringIO(exports(page)["types-errant"]["csv"])))
    head = csv_rows[0]
    row = next(r for r in csv_rows if r[0] == "R:NOUN:NUM")
    assert [row[head.index(f"AMU {c}")] for c in ("TP", "FP", "FN")] == ["117", "124", "89"]
    assert len(csv_rows) == 1 + 53  # every type in the CSV; the LaTeX one without the folded
    latex = exports(page)["types-errant"]["latex"]
    assert "U:NOUN:POSS" not in latex and r"R:NOUN:NUM & " in latex


# -- 3. systems in score order everywhere ----------------------------------------------------

def test_systems_in_score_order_everywhere(toy: tuple[Report, str]) -> None:
    report, page = toy
    main = report.metrics[0].name
    assert report.systems == ["copy", "over", "good", "a-copy"]  # as handed in
    first = by_score(report, main)
    assert first == ["good", "over", "a-copy", "copy"]  # a-copy ties copy: by name
    assert system_order(report) == first
    all_tables = tables(page)
    overview = next(t for t in all_tables if t["attrs"].get("id") == "overview")
    assert [r[0] for r in texts(overview)[1:]] == first
    for m in report.metrics:  # a metric's own table by its own score
        section = [t for t in all_tables if any(a.get("id") == f"metric-{m.name}"
                                                for a in t["ancestors"])]
        rows = texts(section[0])
        col = rows[0].index("system")
        assert [r[col] for r in rows[1:]] == by_score(report, m.name)
    # the exact-match ranking differs from the F0.5 one: copy (0.2) above over (0.0)
    assert by_score(report, "toy-exact") == ["good", "a-copy", "copy", "over"]
    # the figures
    for kind, metric in (("ci", main), ("disentangled", "toy-disentangled")):
        svg = re.search(rf'<svg [^>]*id="fig-{kind}-{metric}".*?</svg>', page).group(0)
        labels = [t.text for t in ET.fromstring(svg).iter(f"{SVG_NS}text")
                  if t.get("class") == "sys"]
        assert labels == by_score(report, metric)
    # the type table's columns and the sentence browser's systems
    shown, _ = _type_tables(page, OUTCOME_TABLE)
    assert [c[2] for c in shown["rows"][0][2:]] == first
    block = page.split('<script id="gecscope-data" type="application/json">', 1)[1]
    assert json.loads(block.split("</script>", 1)[0])["systems"] == first


def test_order_puts_systems_without_a_number_last() -> None:
    report = toy_report(n_samples=0)
    entry = report.score("good", report.metrics[0].name)
    assert entry is not None
    entry.value = float("nan")
    assert system_order(report) == ["over", "copy", "good"]
    entry.value = None
    assert system_order(report) == ["over", "copy", "good"]
    assert system_order(report, "toy-exact") == ["good", "copy", "over"]


# -- 4. FN marks add no text -----------------------------------------------------------------

def test_fn_marks_are_drawn_without_text(toy: tuple[Report, str]) -> None:
    _, page = toy
    css = page.split("<style>", 1)[1].split("</style>", 1)[0]
    # the number is generated content: the line's text stays the system's output
    assert ".e.fn::after{content:attr(data-n)" in css and ".fn-span{" in css
    script = page.rsplit("<script>", 1)[1]
    assert "function fnMark(" in script and "'→<ins>'" not in script
    assert "FN, a missed edit: a number" in page


# -- 5. downloads: CSV, LaTeX, SVG; one self-contained file under its CSP --------------------

def test_every_table_and_figure_has_its_download(toy: tuple[Report, str]) -> None:
    report, page = toy
    x = exports(page)
    buttons = re.findall(r'data-export="([^"]+)" data-format="(csv|latex)"', page)
    assert sorted(set(buttons)) == sorted({(k, f) for k in x for f in ("csv", "latex")})
    assert set(x) == {"scores", "types-edit-outcomes",
                      *(f"metric-{m.name}" for m in report.metrics),
                      *(f"significance-{m.name}" for m in report.metrics)}
    # every table of the page but the folded rows' has a download
    n_tables = len([t for t in tables(page) if "zero-table" not in t["attrs"].get("class", "")])
    assert n_tables == len(x)
    for key, t in x.items():
        rows = list(csv.reader(io.StringIO(t["csv"])))
        assert len({len(r) for r in rows}) == 1, key  # rectangular
        latex = t["latex"]
        assert latex.startswith("% ") and r"\begin{tabular}{" in latex
        assert latex.rstrip().endswith(r"\end{tabular}")
        spec = re.search(r"\\begin\{tabular\}\{([lr]+)\}", latex).group(1)
        assert len(spec) == len(rows[0]), key
        body = latex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0].strip().splitlines()
        if not key.startswith("types-"):
            assert len(body) == len(rows) - 1, key
        assert all(line.count(" & ") == len(spec) - 1 for line in body), key
    # the numbers at full precision, in score order
    scores = list(csv.reader(io.StringIO(x["scores"]["csv"])))
    assert scores[0][:4] == ["system", "toy-editf F0.5", "toy-editf low", "toy-editf high"]
    for row in scores[1:]:
        s = report.score(row[0], "toy-editf")
        assert float(row[1]) == s.value and float(row[2]) == s.interval["low"]
    assert [r[0] for r in scores[1:]] == by_score(report, "toy-editf")
    sig = list(csv.reader(io.StringIO(x["significance-toy-editf"]["csv"])))
    assert sig[0] == ["row vs column", *by_score(report, "toy-editf")]
    assert all(re.fullmatch(r"\d\.\d{4} [▲▼=]|–", c) for r in sig[1:] for c in r[1:])
    assert r"$\uparrow$" in x["significance-toy-editf"]["latex"]
    # figures: well-formed SVG carrying their own style, each with its button
    figures = re.findall(r'<svg [^>]*id="([^"]+)".*?</svg>', page, flags=re.DOTALL)
    assert sorted(figures) == sorted([*(f"fig-ci-{m.name}" for m in report.metrics),
                                      "fig-disentangled-toy-disentangled"])
    for fid in figures:
        assert f'data-svg="{fid}"' in page
        svg = re.search(rf'<svg [^>]*id="{fid}".*?</svg>', page, flags=re.DOTALL).group(0)
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG_NS}svg" and root.find(f"{SVG_NS}style") is not None
        assert ".chart .grid{stroke:" in root.find(f"{SVG_NS}style").text


def test_inline_script_is_allowed_by_its_hash_only(toy: tuple[Report, str]) -> None:
    _, page = toy
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert len(scripts) == 1  # the data blocks are JSON, never run
    want = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{want}'"  # no 'unsafe-inline' for scripts
    for needle in ("https://", "<link", 'src="', "url("):
        assert needle not in page
    assert page.count("http://") == page.count('xmlns="http://www.w3.org/2000/svg"')


def test_exports_survive_hostile_names_and_missing_numbers() -> None:
    data, hyps = toy_corpus()
    name = 'a,b "q" & 50%_x</script>'
    hyps[0] = hyps[0].renamed(name)
    m = ExactMatch()
    report = build_report(data, hyps, [m.evaluate(data, h) for h in hyps], [m])
    report.scores[1].value = float("nan")
    page = render_html(report)
    assert "</script>" not in page.split('id="gecscope-exports"', 1)[1].split("</script>")[0]
    x = exports(page)
    rows = list(csv.reader(io.StringIO(x["scores"]["csv"])))
    assert rows[1] == [name, repr(report.scores[0].value)]  # the name round-trips
    nan_row = next(r for r in rows if r[0] == report.scores[1].system)
    assert nan_row[1] == ""  # undefined: an empty cell, not "nan"
    latex = x["scores"]["latex"]
    assert r'a,b "q" \& 50\%\_x</script>' in latex and " & --" in latex
    assert csv_text(["a"], [[None], [1], [0.5]]) == 'a\r\n""\r\n1\r\n0.5\r\n'  # "" : one empty cell
    assert latex_text("t → u", ["x", "y"], [["a", float("inf")]]).splitlines()[0] == \
        r"% t $\rightarrow$ u"


def test_tables_whose_keys_collide_keep_their_own_downloads() -> None:
    """Export keys are built from system and metric names with dashes between them: system
    ``a-b`` with metric ``m2`` and system ``a`` with metric ``b-m2`` give one key. Each table
    must keep its own download (once a ValueError ended the report)."""
    from gecscope.reports.html_export import Exports

    ex = Exports()
    first = ex.table("costs-a-b-m2", "one", ["system"], [["a-b"]])
    second = ex.table("costs-a-b-m2", "two", ["system"], [["a"]])
    third = ex.table("costs-a-b-m2", "three", ["system"], [["x"]])
    keys = [re.search(r'data-export="([^"]+)"', b).group(1) for b in (first, second, third)]
    assert keys == ["costs-a-b-m2", "costs-a-b-m2-2", "costs-a-b-m2-3"]
    assert [ex.tables[k]["title"] for k in keys] == ["one", "two", "three"]
    assert "a-b" in ex.tables[keys[0]]["csv"] and "\r\na\r\n" in ex.tables[keys[1]]["csv"]
    assert len({ex.tables[k]["name"] for k in keys}) == 3  # three file names

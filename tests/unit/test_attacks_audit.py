"""The attack audit (gecscope.meta_eval.audit) and the rank ensemble (meta_eval.ensemble): the
ensemble's definition (Goto et al. 2025's code: negative ranks, ties share the best rank), its
resampled form, and audits on CoNLL-2014 (GJG15) with fast reference-based metrics; a metric
that refuses one attack (the I-measure on a sentence rewritten whole) gets a refused cell, the
other attacks scored as without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_examples import REWRITE, RewriteLongest

from gecscope.data import Hypothesis
from gecscope.errors import ConfigError
from gecscope.meta_eval.attacks import AttackContext
from gecscope.meta_eval.audit import AuditResult, TestSet, cell_text, render_markdown, run_audit
from gecscope.meta_eval.ensemble import negative_ranks, rank_ensemble


def test_rank_ensemble_is_the_mean_negative_rank_with_shared_ties() -> None:
    scores = {"a": {"x": 0.9, "y": 0.5, "z": 0.5},   # ranks 1, 2, 2 (paper: index of first)
              "b": {"x": 0.1, "y": 0.3, "z": 0.2}}   # ranks 3, 1, 2
    assert rank_ensemble(scores) == {"x": -2.0, "y": -1.5, "z": -2.0}
    assert rank_ensemble(scores, ["y", "z"]) == {"y": -1.0, "z": -1.5}
    with pytest.raises(ConfigError, match="no score for w"):
        rank_ensemble(scores, ["x", "w"])
    with pytest.raises(ConfigError, match="at least one metric"):
        rank_ensemble({})


def test_negative_ranks_agree_with_the_ensemble_per_resample() -> None:
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, size=(5, 40)).astype(float)  # many ties
    b = rng.integers(0, 4, size=(5, 40)).astype(float)
    ens = (negative_ranks(a) + negative_ranks(b)) / 2
    names = list("vwxyz")
    for col in range(40):
        ref = rank_ensemble({"a": dict(zip(names, a[:, col], strict=True)),
                             "b": dict(zip(names, b[:, col], strict=True))})
        assert [ref[n] for n in names] == list(ens[:, col])


@pytest.fixture(scope="module")
def gjg15_test_set(shared_data: Path) -> object:
    from gecscope.meta_eval.audit import benchmark_test_set
    from gecscope.meta_eval.benchmarks import load_gjg15

    c = shared_data / "conll14"
    bench = load_gjg15(shared_data / "gjg15", c / "submissions", c / "official-2014.combined.m2")
    return benchmark_test_set(bench)


@pytest.mark.requires_data
def test_audit_on_conll14_truncation_games_m2_not_gleu(gjg15_test_set: object) -> None:
    from gecscope.meta_eval.audit import render_markdown, run_audit

    r = run_audit(gjg15_test_set, ["m2", "gleu"],  # type: ignore[arg-type]
                  attacks=["copy-source", "truncated-reference"], resamples=200, seed=0)
    assert r.metrics == ["m2", "gleu"] and not r.skipped_metrics
    assert r.best == r.human_best == "AMU" and r.source == "INPUT" and len(r.real) == 12
    # the published M2 F0.5 of the real systems (shared/data/README)
    assert round(r.scores["m2"]["CAMB"] * 100, 2) == 37.33
    assert r.scores["m2"]["INPUT"] == 0.0
    copy = r.cell("m2", "attack:copy-source")
    assert copy is not None and copy.score == 0.0 and copy.rank == 13 and copy.of == 13
    assert copy.versus["source"].delta == 0 and copy.versus["source"].p_value == 1.0
    assert not copy.versus["source"].significant
    # half of a reference: precise edits, a cheap deletion: above every real system under M2
    trunc = r.cell("m2", "attack:truncated-reference")
    assert trunc is not None and trunc.above_all and trunc.rank == 1 and trunc.gamed
    assert trunc.versus["best"].system == "CAMB" and trunc.versus["human"].system == "AMU"
    assert all(v.significant for v in trunc.versus.values())
    # GLEU's n-gram precision against the reference sees the lost half
    g = r.cell("gleu", "attack:truncated-reference")
    assert g is not None and g.rank == 13 and not g.gamed
    # the ensemble of the two, over 14 systems (12 real, the source, the attack): truncation
    # ranks 1st under M2 and 14th under GLEU
    e = r.cell("RankEns", "attack:truncated-reference")
    assert e is not None and e.score == -7.5 and not e.gamed
    assert e.versus["best"].p_value is not None
    text = render_markdown([r])
    assert "| truncated-reference | **1**/13 BHS | 13/13 | 7/13 S |" in text
    d = r.as_dict()
    assert d["cells"][0]["metric"] == "m2" and d["settings"]["resamples"] == 200


@pytest.mark.requires_data
def test_audit_refusals(gjg15_test_set: object) -> None:
    import dataclasses

    from gecscope.meta_eval.audit import run_audit

    ts = gjg15_test_set
    with pytest.raises(ConfigError, match="resamples must be at least 1"):
        run_audit(ts, ["m2"], attacks=["copy-source"], resamples=0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ensemble member"):
        run_audit(ts, ["m2"], attacks=["copy-source"], ensemble=["gleu"],  # type: ignore[arg-type]
                  resamples=10)
    bare = dataclasses.replace(ts, human={})  # type: ignore[type-var]
    with pytest.raises(ConfigError, match="--best"):
        run_audit(bare, ["m2"], attacks=["copy-source"], resamples=10)
    r = run_audit(ts, ["m2", "no-such-metric"], attacks=["copy-source"],  # type: ignore[arg-type]
                  resamples=10)
    assert "unknown metric 'no-such-metric'" in r.skipped_metrics["no-such-metric"]


@pytest.mark.requires_data
def test_ensemble_row_against_gjg15_human_ranking(shared_data: Path) -> None:
    """The ensemble's table row: its system scores are the rank ensemble of the members'
    corpus scores, correlated with GJG15's human scores like any metric row."""
    from gecscope.meta_eval.benchmarks import load_gjg15
    from gecscope.meta_eval.correlation import correlate
    from gecscope.meta_eval.ensemble import ensemble_row
    from gecscope.meta_eval.runner import evaluate_systems, system_scores
    from gecscope.registry import get_metric

    c = shared_data / "conll14"
    bench = load_gjg15(shared_data / "gjg15", c / "submissions", c / "official-2014.combined.m2")
    row = ensemble_row([bench], ["m2", "gleu"])
    assert row.label == "RankEns(m2+gleu)"
    scores = {m: system_scores(evaluate_systems(get_metric(m)(), bench), "corpus")
              for m in ("m2", "gleu")}
    ens = rank_ensemble(scores, bench.systems)
    assert ens["INPUT"] < ens["CAMB"]
    want = correlate(ens, bench.human["EW"], bench.systems)
    got = row.correlations["gjg15"]["EW"]
    assert (got.pearson, got.spearman) == pytest.approx((want.pearson, want.spearman), rel=1e-12)
    # a rank ensemble of two reasonable metrics agrees with the judges (GJG15 EW)
    assert got.spearman > 0.5


# ------------------------------------------- a metric that refuses one attack (issue #45)

REFUSAL = "candidate references and cannot be split into independent regions"


@pytest.fixture(scope="module")
def rows_333(gjg15_test_set: TestSet) -> TestSet:
    """CoNLL-2014 rows 330-335 (333 is the longest) with four of GJG15's systems and INPUT:
    real data, small enough that the I-measure scores it in a few seconds."""
    start, stop = 330, 336
    ts = gjg15_test_set

    def cut(h: Hypothesis) -> Hypothesis:
        return Hypothesis(h.name, list(h.tokens[start:stop]))

    return TestSet("gjg15[330:336]", ts.data.subset(start, stop),
                   {s: cut(ts.real[s]) for s in ("AMU", "CAMB", "CUUI", "POST")},
                   cut(ts.source), dict(ts.human), ts.human_ranking)


@pytest.fixture(scope="module")
def refusal_audit(rows_333: TestSet) -> AuditResult:
    return run_audit(rows_333, ["m2", "imeasure"],
                     attacks=[REWRITE, "copy-source", "chatter-suffix"], resamples=50)


@pytest.mark.requires_data
def test_a_refused_attack_is_a_refused_cell_not_a_skipped_metric(
        rows_333: TestSet, refusal_audit: AuditResult) -> None:
    r = refusal_audit
    assert r.metrics == ["m2", "imeasure"] and not r.skipped_metrics
    cell = r.cell("imeasure", "attack:rewrite-longest")
    assert cell is not None and cell.refused.startswith("ConfigError: imeasure: sentence 3 ")
    assert REFUSAL in cell.refused and cell.rank == 0 and not cell.versus and not cell.gamed
    assert r.refused["imeasure"] == {"attack:rewrite-longest": cell.refused}
    assert "attack:rewrite-longest" not in r.scores["imeasure"]
    # M2 scores it: only the I-measure refused
    m2 = r.cell("m2", "attack:rewrite-longest")
    assert m2 is not None and not m2.refused and m2.score == r.scores["m2"]["attack:rewrite-longest"]
    # the ensemble does not rank it over M2 alone: refused, naming the member
    ens = r.cell("RankEns", "attack:rewrite-longest")
    assert ens is not None and ens.refused == "member imeasure refused this attack"
    assert r.refused["RankEns"] == {"attack:rewrite-longest": ens.refused}
    # the other attacks: scored and tested as in an audit without the refused one
    alone = run_audit(rows_333, ["m2", "imeasure"], attacks=["copy-source", "chatter-suffix"],
                      resamples=50)
    assert not alone.refused
    for metric in ("m2", "imeasure", "RankEns"):
        for attack in ("attack:copy-source", "attack:chatter-suffix"):
            got, want = r.cell(metric, attack), alone.cell(metric, attack)
            assert got is not None and not got.refused and got == want, (metric, attack)
    assert r.scores["imeasure"] == alone.scores["imeasure"]
    d = r.as_dict()
    (js,) = [c for c in d["cells"] if c["metric"] == "imeasure"
             and c["attack"] == "attack:rewrite-longest"]
    assert js["refused"] == cell.refused and js["score"] is None and js["rank"] is None
    assert d["refused"]["RankEns"] == {"attack:rewrite-longest": ens.refused}
    assert all(c["refused"] is None for c in d["cells"] if c["attack"] != "attack:rewrite-longest")
    # every step timed twice, wall and CPU (the figure for a shared machine), in JSON too
    assert set(r.seconds) == set(r.cpu_seconds) == {"attacks", "m2", "imeasure", "RankEns"}
    assert all(v >= 0 for v in r.cpu_seconds.values()) and d["cpu_seconds"] == r.cpu_seconds
    text = render_markdown([r])
    row = next(ln for ln in text.splitlines() if ln.startswith("| rewrite-longest |"))
    assert row == (f"| rewrite-longest | {cell_text(m2)} | refused[^gjg15-330-336-1] | "
                   "refused[^gjg15-330-336-2] |")
    assert f"[^gjg15-330-336-1]: `imeasure` refused `rewrite-longest`: {cell.refused}" in text
    assert ("[^gjg15-330-336-2]: `RankEns` did not rank `rewrite-longest`: member imeasure "
            "refused this attack") in text
    assert f"| rewrite-longest | {m2.score:.4f} | refused |" in text  # the scores table


@pytest.mark.requires_data
def test_a_refused_real_system_still_skips_the_metric(rows_333: TestSet) -> None:
    import dataclasses

    ctx = AttackContext(tuple(rows_333.source.tokens), rows_333.data.m2, rows_333.real, "AMU",
                        rows_333.data)
    rewritten = RewriteLongest().build(ctx).hypothesis.renamed("REWRITER")
    ts = dataclasses.replace(rows_333, real={**rows_333.real, "REWRITER": rewritten})
    r = run_audit(ts, ["imeasure", "m2"], attacks=["copy-source"], resamples=20)
    assert r.metrics == ["m2"] and r.ensemble_members == ["m2"]
    assert REFUSAL in r.skipped_metrics["imeasure"] and not r.refused


@pytest.mark.requires_data
def test_a_bug_in_a_metric_is_not_a_refusal(rows_333: TestSet) -> None:
    from gecscope.registry import get_metric

    class Broken(get_metric("gleu")):  # type: ignore[misc, valid-type]
        name = "broken"

        def sentence_stats(self, data: object, hyp: object) -> list[object]:
            raise TypeError("a bug, not a refusal")

    with pytest.raises(TypeError, match="a bug"):
        run_audit(rows_333, ["broken"], attacks=["copy-source"], resamples=10,
                  make_metric=lambda name: Broken())


@pytest.mark.requires_data
def test_a_metric_named_twice_is_scored_once(rows_333: TestSet,
                                             refusal_audit: AuditResult) -> None:
    """The ensemble's delta counted m2 once and its null twice when m2 was listed twice."""
    r = run_audit(rows_333, ["m2", "imeasure", "m2"], attacks=[REWRITE, "copy-source",
                                                               "chatter-suffix"],
                  ensemble=["m2", "imeasure", "m2"], resamples=50)
    assert r.metrics == ["m2", "imeasure"] and r.ensemble_members == ["m2", "imeasure"]
    assert r.cells == refusal_audit.cells
    with pytest.raises(ConfigError, match="'M2' is m2, named before: name each metric once"):
        run_audit(rows_333, ["m2", "M2"], attacks=["copy-source"], resamples=10)


@pytest.mark.requires_data
def test_the_audit_as_html_has_the_markdown_figures(refusal_audit: AuditResult) -> None:
    """``meta-eval attack --html``: the same places, flags, refusals and scores as the
    Markdown, in a page that parses, with a download for every table."""
    import html as html_lib
    import json as json_lib
    import re
    from html.parser import HTMLParser

    from gecscope.meta_eval.audit import fmt_score, score_rows
    from gecscope.meta_eval.audit_html import render_audit_html

    r = refusal_audit
    page = render_audit_html([r])

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[str]] = []
            self.open: list[str] = []
            self.cell: list[str] | None = None

        def handle_starttag(self, tag: str, attrs: list) -> None:
            self.open.append(tag)
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag: str) -> None:
            assert self.open and self.open[-1] == tag, (tag, self.open[-5:])  # well nested
            self.open.pop()
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append("".join(self.cell))
                self.cell = None

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

    void = {"meta", "br", "img", "link", "input"}
    parser = Cells()
    parser.feed(re.sub(r"<(" + "|".join(void) + r")\b[^>]*>", "", page))
    assert parser.open == []
    cols = [*r.metrics, "RankEns"]
    attacks = {row[0]: row[1:] for row in parser.rows if row and row[0] in
               {a["name"].removeprefix("attack:") for a in r.attacks} and len(row) == 4}
    for a in r.attacks:
        name = a["name"].removeprefix("attack:")
        for got, metric in zip(attacks[name], cols, strict=True):
            c = r.cell(metric, a["name"])
            assert c is not None
            if c.refused:
                assert got.startswith("refused")
            else:
                assert got == cell_text(c).replace("**", "")
    # the refusals' reasons, each once, as notes the refused cells link to
    reason = r.cell("imeasure", "attack:rewrite-longest").refused
    assert page.count(html_lib.escape(reason, quote=True)) == 1
    assert "member imeasure refused this attack" in page
    assert len(re.findall(r'<td class="refused">refused<sup><a href="#', page)) == 2
    # the scores table: every value as the Markdown prints it
    scores = {row[0]: row[1:] for row in parser.rows if len(row) == 1 + len(r.metrics)}
    for name, vals in score_rows(r):
        assert scores[name] == [fmt_score(v) for v in vals]
    # every table downloads: two per test set, their CSV the cells shown
    blob = re.search(r'<script id="gecscope-exports" type="application/json">(.*?)</script>',
                     page, re.DOTALL)
    assert blob is not None
    tables = json_lib.loads(blob.group(1))
    assert sorted(tables) == ["attacks-gjg15-330-336", "scores-gjg15-330-336"]
    m2 = r.cell("m2", "attack:rewrite-longest")
    assert m2 is not None
    assert (f"rewrite-longest,{cell_text(m2).replace('**', '')},refused,refused\r\n"
            in tables["attacks-gjg15-330-336"]["csv"])
    assert "Content-Security-Policy" in page and "unsafe-inline'; script-src 'sha256-" in page

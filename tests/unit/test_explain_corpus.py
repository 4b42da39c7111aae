"""The corpus view of edit attribution (gecscope.explain.corpus_costs): leave-one-out sentence
changes recomputed by scoring the reverted corpus, rankings, edit attributions summing to
their sentence's change, the JSON form and the HTML fragment, on CoNLL-2014 (AMU) and on
small Levenshtein-extractor data; bad inputs refused."""

from __future__ import annotations

import csv
import html.parser
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.explain import CorpusCosts, SentenceCost, attribute, corpus_costs
from gecscope.explain.attribution import applied, hypothesis_edits
from gecscope.explain.corpus import EditCost, excerpt, leave_one_out
from gecscope.explain.swap import CorpusSwap, GreedyCountsSwap, corpus_swap
from gecscope.gate import admit
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.errant import ErrantMetric
from gecscope.metrics.gleu import GLEUMetric
from gecscope.metrics.green import GREENMetric
from gecscope.metrics.m2.metric import M2Metric
from gecscope.reports.html_costs import render_costs_html
from gecscope.reports.html_export import Exports
from gecscope.types import Annotation, Corpus, Sentence

ALL = 10**6  # a top that keeps every entry of each ranking

SOURCES = ["the cat sit on mat and he go to school", "this sentence is fine",
           "she have two apple on table", "we was happy <b> yesterday"]
REF = ["the cat sits on the mat and he went to school", "this sentence is fine",
       "she has two apples on the table", "we were happy <b> yesterday"]
HYPS = ["the cat sits on the mat and she go to school .", "this sentence is fine",
        "she has two apple on the table", "we is happy <i> yesterday"]


def reverted(hyp: Hypothesis, data: EvalData, i: int) -> Hypothesis:
    """``hyp`` with sentence ``i`` left as its source (its M2 sentence without edits)."""
    tokens = list(hyp.tokens)
    tokens[i] = data.sources[i]
    m2 = None
    if hyp.m2 is not None:
        sentences = list(hyp.m2.sentences)
        sentences[i] = Sentence(data.sources[i], (Annotation(0, ()),))
        m2 = Corpus(tuple(sentences))
    return Hypothesis(hyp.name, tokens, m2)


def check_rankings(c: CorpusCosts) -> None:
    """Every ranking ordered by value, ties by sentence then edit position (types: name)."""
    for items in (c.sentence_cost, c.sentence_gain):
        sign = -1 if items is c.sentence_cost else 1
        keys = [(-sign * s.change, s.index) for s in items]
        assert keys == sorted(keys) and all(sign * s.change > 0 for s in items)
    for items in (c.edit_cost, c.edit_gain):
        sign = -1 if items is c.edit_cost else 1
        keys = [(-sign * e.value, e.index, e.start, e.end) for e in items]
        assert keys == sorted(keys) and all(sign * e.value > 0 for e in items)
    for items in (c.type_cost, c.type_gain):
        sign = -1 if items is c.type_cost else 1
        keys = [(-sign * t.total, t.type) for t in items]
        assert keys == sorted(keys) and all(sign * t.total > 0 for t in items)


# -- CoNLL-2014, AMU under M2 (corpus-level counts) -----------------------------------------


@pytest.fixture(scope="module")
def amu(conll14: Path) -> tuple[EvalData, Hypothesis, CorpusCosts]:
    data = EvalData.from_files(str(conll14 / "official-2014.combined.m2"))
    hyp = admit(data, [Hypothesis.from_file(str(conll14 / "submissions" / "AMU"))]).hypotheses[0]
    return data, hyp, corpus_costs(M2Metric(), data, hyp, ALL, "shapley")


@pytest.mark.requires_spacy
def test_m2_leave_one_out_is_the_reverted_corpus_score(
        amu: tuple[EvalData, Hypothesis, CorpusCosts]) -> None:
    data, hyp, c = amu
    metric = M2Metric()
    assert c.score == metric.evaluate(data, hyp).score.value
    assert round(100 * c.score, 2) == 35.01  # published AMU F0.5
    assert (c.sentences, c.edited, c.undefined, c.rank_by) == (1312, 732, 0, "corpus")
    # the costliest, the most earning, and one from the middle of each ranking
    for s in (c.sentence_cost[0], c.sentence_gain[0], c.sentence_cost[40], c.sentence_gain[40]):
        again = metric.evaluate(data, reverted(hyp, data, s.index)).score.value
        assert c.score - again == s.change
    # sentence 599 (five edits, none correct) costs most; sentence 799 costs exactly as much
    top2 = [(s.index + 1, s.change) for s in c.sentence_cost[:2]]
    assert [i for i, _ in top2] == [599, 799] and top2[0][1] == top2[1][1] < 0
    # its sentence F0.5 is 0 with and without the edits: only the corpus view sees the cost
    assert (c.sentence_cost[0].base, c.sentence_cost[0].full) == (0.0, 0.0)
    assert c.sentence_gain[0].index + 1 == 334
    check_rankings(c)


@pytest.mark.requires_spacy
def test_m2_rankings_cover_every_edited_sentence_and_edit(
        amu: tuple[EvalData, Hypothesis, CorpusCosts]) -> None:
    data, hyp, c = amu
    ranked = {s.index for s in c.sentence_cost + c.sentence_gain}
    edited = {i for i in range(len(hyp)) if hyp.tokens[i] != data.sources[i]}
    # each of AMU's 732 edited sentences moves the corpus F0.5 (none by exactly 0): 353
    # lower it, 379 raise it
    assert len(c.sentence_cost) + len(c.sentence_gain) == len(ranked) == 732
    assert ranked == edited and (len(c.sentence_cost), len(c.sentence_gain)) == (353, 379)
    # the edits' Shapley values of the corpus score sum to each sentence's leave-one-out
    # change (sampled ones too), to float rounding: the changes are 1e-6 to 3e-3
    for s in c.sentence_cost + c.sentence_gain:
        assert sum(e.value for e in s.edits) == pytest.approx(s.change, rel=1e-9, abs=1e-15)
    # a one-edit sentence's edit gets the whole change
    one = [s for s in c.sentence_cost + c.sentence_gain if len(s.edits) == 1]
    assert len(one) > 100 and all(s.edits[0].value == s.change for s in one)
    # the per-type sums are the sums of the ranked edits (an edit of value 0 adds nothing)
    edits = c.edit_cost + c.edit_gain
    for t in c.type_cost + c.type_gain:
        assert t.total == pytest.approx(sum(e.value for e in edits if e.type == t.type),
                                        abs=1e-12)
    every = [e for s in c.sentence_cost + c.sentence_gain for e in s.edits]
    total = sum(t.total for t in c.type_cost + c.type_gain)
    assert total == pytest.approx(sum(e.value for e in every), abs=1e-12)
    # an edit's share is attribute()'s at the corpus level, for the costliest edit's sentence
    top = c.edit_cost[0]
    (a,) = attribute(M2Metric(), data, hyp, "shapley", sentences=[top.index], level="corpus")
    assert top.value in [e.value for e in a.edits]
    assert (a.full, a.full - a.base) == (c.score, next(
        s.change for s in c.sentence_cost + c.sentence_gain if s.index == top.index))
    assert c.sampled == 1  # one AMU sentence has more than 10 edits


@pytest.mark.requires_spacy
def test_head_json_and_html(amu: tuple[EvalData, Hypothesis, CorpusCosts]) -> None:
    _, _, c = amu
    five = c.head(5)
    assert five.top == 5 and five.sentence_cost == c.sentence_cost[:5]
    assert five.type_gain == c.type_gain[:5]
    text = json.dumps(five.as_dict())
    assert CorpusCosts.from_dict(json.loads(text)) == five
    d = five.as_dict()
    assert d["sentences"]["cost"][0]["rank"] == 1 and d["sentences"]["cost"][0]["sentence"] == 599
    fragment = render_costs_html(five, max_exact=10)
    check_fragment(fragment)
    assert fragment.count('<tr data-sentence="') == 20  # 5 + 5 sentences, 5 + 5 edits
    assert 'data-value="-0.0007721395661228758"' in fragment  # exact, as in the JSON
    # with the page's downloads: six tables registered, each with its buttons
    exports = Exports()
    fragment = render_costs_html(five, exports=exports)
    check_fragment(fragment)
    assert len(exports.tables) == 6 and fragment.count('data-format="csv"') == 6
    rows = list(csv.reader(io.StringIO(exports.tables["costs-AMU-m2-sentences-cost"]["csv"])))
    assert rows[0][:4] == ["rank", "sentence", "corpus change", "sentence change"]
    assert rows[1][:3] == ["1", "599", "-0.0007721395661228758"] and len(rows) == 6


# -- CoNLL-2014, AMU under ERRANT, the hypothesis as M2 -------------------------------------


def test_errant_with_an_m2_hypothesis(conll14: Path) -> None:
    errant = conll14 / "errant"
    data = EvalData.from_files(str(errant / "references.m2"))
    hyp = admit(data, [Hypothesis.from_file(str(errant / "AMU.m2"))]).hypotheses[0]
    assert hyp.m2 is not None
    metric = ErrantMetric()
    c = corpus_costs(metric, data, hyp, 3, "add")
    for s in (c.sentence_cost[0], c.sentence_gain[0], c.sentence_gain[2]):
        again = metric.evaluate(data, reverted(hyp, data, s.index)).score.value
        assert c.score - again == s.change
    assert c.score == metric.evaluate(data, hyp).score.value
    check_rankings(c)
    # ranked by the sentence score change instead: the deltas, in order
    by_sentence = corpus_costs(metric, data, hyp, 3, "add", rank_by="sentence")
    assert by_sentence.score == c.score
    assert all(s.change == s.delta for s in by_sentence.sentence_cost + by_sentence.sentence_gain)
    check_rankings(by_sentence)
    # by sentence, the edits share the sentence F change (whole units, for one edit); by
    # corpus, the corpus change, and they sum to it
    assert by_sentence.edit_cost[0].value == -1.0 and c.edit_cost[0].value > -0.01
    for s in c.sentence_cost + c.sentence_gain:
        assert sum(e.value for e in s.edits) == pytest.approx(s.change, rel=1e-9, abs=1e-15)


def subsets_rescored(metric: Metric[Any], data: EvalData, hyp: Hypothesis, i: int
                     ) -> dict[int, float]:
    """The corpus score of ``hyp`` with sentence ``i`` = its source plus each subset of its
    edits (bit mask), every subset scored as a whole corpus by ``metric.evaluate``."""
    edits = hypothesis_edits(data, hyp)[i]
    out = {}
    for mask in range(1 << len(edits)):
        tokens = list(hyp.tokens)
        tokens[i] = applied(data.sources[i], edits, mask)
        m2 = None
        if hyp.m2 is not None:
            sentences = list(hyp.m2.sentences)
            chosen = tuple(e for k, e in enumerate(edits) if mask >> k & 1)
            sentences[i] = Sentence(data.sources[i], (Annotation(0, chosen),))
            m2 = Corpus(tuple(sentences))
        out[mask] = metric.evaluate(data, Hypothesis(hyp.name, tokens, m2)).score.value
    return out


@pytest.mark.requires_spacy
@pytest.mark.parametrize("which", ["m2", "errant"])
def test_a_two_edit_sentence_rescored_subset_by_subset(conll14: Path, which: str) -> None:
    if which == "m2":
        data = EvalData.from_files(str(conll14 / "official-2014.combined.m2"))
        hyp_file, metric = conll14 / "submissions" / "AMU", M2Metric()
    else:
        data = EvalData.from_files(str(conll14 / "errant" / "references.m2"))
        hyp_file, metric = conll14 / "errant" / "AMU.m2", ErrantMetric()
    hyp = admit(data, [Hypothesis.from_file(str(hyp_file))]).hypotheses[0]
    edits = hypothesis_edits(data, hyp)
    # the first two-edit sentences whose edits change the corpus score differently
    pairs = [i for i, e in enumerate(edits) if len(e) == 2][:12]
    (found,) = [a for a in attribute(metric, data, hyp, "shapley", sentences=pairs,
                                     level="corpus")
                if abs(a.edits[0].value - a.edits[1].value) > 1e-9][:1]
    v = subsets_rescored(metric, data, hyp, found.index)
    assert v[3] == found.full == metric.evaluate(data, hyp).score.value
    assert v[0] == found.base
    # Shapley of two players: half of each order's marginal contribution
    phi = [((v[1] - v[0]) + (v[3] - v[2])) / 2, ((v[2] - v[0]) + (v[3] - v[1])) / 2]
    assert [e.value for e in found.edits] == pytest.approx(phi, rel=1e-12, abs=1e-18)
    assert phi[0] != phi[1]


@pytest.mark.requires_spacy
@pytest.mark.parametrize("which", ["m2", "errant"])
def test_the_greedy_shortcut_is_the_aggregation(conll14: Path, which: str) -> None:
    """The swap of M2 and ERRANT (running totals kept, only the choices that can change
    redone) gives exactly the score the metric's aggregate gives for the swapped corpus."""
    if which == "m2":
        data = EvalData.from_files(str(conll14 / "official-2014.combined.m2"))
        hyp_file, metric = conll14 / "submissions" / "AMU", M2Metric()
    else:
        data = EvalData.from_files(str(conll14 / "errant" / "references.m2"))
        hyp_file, metric = conll14 / "errant" / "AMU.m2", ErrantMetric()
    hyp = admit(data, [Hypothesis.from_file(str(hyp_file))]).hypotheses[0]
    stats = metric.sentence_stats(data, hyp)
    fast, slow = corpus_swap(metric, stats), CorpusSwap(metric, stats)
    assert isinstance(fast, GreedyCountsSwap) and fast.score == slow.score
    # every sentence's statistics put in the place of other sentences', early and late
    n = len(stats)
    for i in range(0, n, 37):
        for j in (i, (i * 7 + 3) % n, n - 1 - i):
            assert fast.value(i, stats[j]) == slow.value(i, stats[j])
    # and the leave-one-out changes agree with leave_one_out's (its own aggregation)
    score, changes = leave_one_out(metric, data, hyp, list(range(0, n, 53)))
    sources = [data.sources[i] for i in range(0, n, 53)]
    m2 = ([Sentence(s, (Annotation(0, ()),)) for s in sources] if hyp.m2 is not None
          else None)
    from gecscope.explain.attribution import variant_stats

    reverted_stats = variant_stats(metric, data, list(range(0, n, 53)), sources, m2)
    for i, st in zip(range(0, n, 53), reverted_stats, strict=True):
        assert score - fast.value(i, st) == changes[i]


def test_other_metrics_swap_by_aggregating(small: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = small
    swap = corpus_swap(GLEUMetric(), GLEUMetric().sentence_stats(data, hyp))
    assert type(swap) is CorpusSwap


# -- small data (Levenshtein edits, no parser) ----------------------------------------------


@pytest.fixture()
def small() -> tuple[EvalData, Hypothesis]:
    return EvalData.from_texts(SOURCES, [REF], lang="fr"), Hypothesis.from_texts(HYPS)


def test_gleu_leave_one_out_and_every_edit(small: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = small
    metric = GLEUMetric()
    c = corpus_costs(metric, data, hyp, ALL, "shapley")
    assert c.edited == 3 and c.sentences == 4
    for s in c.sentence_cost + c.sentence_gain:
        again = metric.evaluate(data, reverted(hyp, data, s.index)).score.value
        assert c.score - again == s.change
    attributed = {(e.index, e.start): e.value for e in c.edit_cost + c.edit_gain}
    for a in attribute(metric, data, hyp, "shapley", sentences=[0, 2, 3], level="corpus"):
        for e in a.edits:
            assert attributed.get((a.index, e.edit.start), 0.0) == e.value
    check_rankings(c)
    assert CorpusCosts.from_dict(json.loads(json.dumps(c.as_dict()))) == c


def test_html_escapes_the_text_and_carries_no_script(small: tuple[EvalData, Hypothesis]
                                                     ) -> None:
    data, hyp = small
    c = corpus_costs(GREENMetric(), data, hyp, ALL, "sub", rank_by="sentence")
    fragment = render_costs_html(c)
    check_fragment(fragment)
    assert "<b>" not in fragment and "&lt;b&gt;" in fragment and "&lt;i&gt;" in fragment
    assert "corpus change" not in fragment and "sentence change" in fragment


class _Checker(html.parser.HTMLParser):
    VOID = frozenset({"br", "hr", "img", "meta", "link", "input"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.extend(attrs)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack.pop() == tag, f"</{tag}> closes nothing open"


def check_fragment(fragment: str) -> None:
    """Balanced tags, one top-level section, no script, handler, inline style or URL."""
    p = _Checker()
    p.feed(fragment)
    p.close()
    assert not p.stack
    assert fragment.startswith('<section class="costs"') and fragment.endswith("</section>")
    assert not p.tags & {"script", "style", "link", "img", "iframe"}
    names = {k for k, _ in p.attrs}
    assert not {n for n in names if n.startswith("on")} and "style" not in names
    assert "http" not in fragment and "src=" not in fragment and "href" not in fragment


# -- the excerpt ----------------------------------------------------------------------------


def edit(start: int, end: int, original: str, correction: str) -> EditCost:
    return EditCost(start=start, end=end, original=original, correction=correction, type="X",
                    value=-0.5, index=0)


def test_excerpt_keeps_context_and_marks_gaps() -> None:
    source = "a b c d e f g h i j k l"
    got = excerpt(source, [edit(5, 6, "f", "F"), edit(0, 0, "", "Z")], context=2)
    assert got == [("edit", "", "Z"), ("text", "a b", ""), ("gap", "", ""), ("text", "d e", ""),
                   ("edit", "f", "F"), ("text", "g h", ""), ("gap", "", "")]
    # near edits share their context; the end of the sentence is kept when short
    got = excerpt(source, [edit(8, 9, "i", ""), edit(10, 11, "k", "K")], context=2)
    assert got == [("gap", "", ""), ("text", "g h", ""), ("edit", "i", ""), ("text", "j", ""),
                   ("edit", "k", "K"), ("text", "l", "")]
    # an edit overlapping an earlier one is skipped, as apply_edits skips it
    assert excerpt("a b", [edit(0, 2, "a b", "x"), edit(1, 2, "b", "y")]) == [
        ("edit", "a b", "x")]
    assert excerpt("", [edit(0, 0, "", "x")]) == [("edit", "", "x")]


# -- refusals -------------------------------------------------------------------------------


class CorpusOnly(Metric[int]):
    """A metric with a corpus score only (no sentence_values)."""

    name = "corpus-only"

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[int]:
        return [len(t) for t in hyp.tokens]

    def aggregate(self, stats: Any) -> Score:
        return Score(self.name, float(sum(stats)))


@pytest.mark.parametrize("kwargs, message", [
    ({"top": 0}, "top must be a whole number of at least 1, not 0"),
    ({"top": -2}, "not -2"),
    ({"top": True}, "not True"),
    ({"top": 2.5}, "not 2.5"),
    ({"rank_by": "edit"}, "rank_by must be one of corpus, sentence, not 'edit'"),
    ({"method": "lime"}, "unknown attribution method 'lime'"),
    ({"max_exact": 21}, "max_exact must be a whole number from 0 to 20"),
])
def test_bad_options_are_refused(small: tuple[EvalData, Hypothesis], kwargs: dict[str, Any],
                                 message: str) -> None:
    data, hyp = small
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        corpus_costs(GLEUMetric(), data, hyp, **kwargs)


def test_a_metric_without_sentence_scores_is_refused(small: tuple[EvalData, Hypothesis]
                                                     ) -> None:
    data, hyp = small
    with pytest.raises(ConfigError, match="'corpus-only' defines no sentence-level score"):
        corpus_costs(CorpusOnly(), data, hyp)


def test_a_hypothesis_of_another_length_is_refused(small: tuple[EvalData, Hypothesis]) -> None:
    data, _ = small
    with pytest.raises(Exception, match="3") as info:
        corpus_costs(GLEUMetric(), data, Hypothesis.from_texts(HYPS[:3]))
    assert getattr(info.value, "exit_code", None) == 65


@pytest.mark.parametrize("tamper", [
    lambda d: d.pop("sentences"),
    lambda d: d["sentences"]["gain"][0].pop("change"),
    lambda d: d["edits"]["cost"][0].update(start="two"),
    lambda d: d.update(top=None),
])
def test_a_tampered_json_form_is_refused(small: tuple[EvalData, Hypothesis], tamper: Any
                                         ) -> None:
    data, hyp = small
    d = corpus_costs(GLEUMetric(), data, hyp, ALL).as_dict()
    assert d["sentences"]["gain"] and d["edits"]["cost"]
    tamper(d)
    with pytest.raises(ConfigError, match="not a corpus-costs result"):
        CorpusCosts.from_dict(d)


def test_an_undefined_change_is_left_out_and_counted() -> None:
    # a NaN change (an undefined score) is neither a cost nor a gain
    from gecscope.explain.attribution import EditAttribution, SentenceAttribution
    from gecscope.explain.corpus import _rank
    from gecscope.types import Edit

    data = EvalData.from_texts(["a b", "c d"], [["a x", "c y"]], lang="fr")
    hyp = Hypothesis.from_texts(["a x", "c z"])
    found = [SentenceAttribution(0, 0.0, 1.0, (EditAttribution(Edit(1, 2, ("x",)), 1.0),),
                                 "shapley"),
             SentenceAttribution(1, 0.0, math.nan, (EditAttribution(Edit(1, 2, ("z",)),
                                                                    math.nan),), "shapley")]
    c = _rank("m", hyp, data, found, {0: 0.25, 1: math.nan}, 0.5, "corpus", "shapley", 5)
    assert c.undefined == 1 and [s.index for s in c.sentence_gain] == [0]
    assert c.sentence_cost == () and [t.type for t in c.type_gain] == [""]
    assert isinstance(c.sentence_gain[0], SentenceCost)

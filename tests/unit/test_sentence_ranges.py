"""Scoring in sentence ranges (issue #17): every metric that allows it
(:attr:`Metric.sentence_ranges`) gives, range by range against :meth:`EvalData.subset`, the
statistics the whole corpus gives, on every kind of reference (M2 with several annotators,
I-measure gold XML, plain-text references, ChERRANT's M2 with cycled targets)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis
from gecscope.data import REFERENCE_EDITS
from gecscope.formats.m2 import read_m2
from gecscope.metrics.base import Metric
from gecscope.registry import get_metric, list_metrics
from gecscope.types import Corpus

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
SYSTEMS = ("careful", "rewriter", "cautious")
#: The metrics scored in ranges by default, with the options that change their statistics.
RANGED = {
    "errant": [{}, {"mode": "ds"}],
    "m2": [{}],
    "gleu": [{}, {"variant": "corrected"}],
    "green": [{}],
    "imeasure": [{}, {"optimise": "sent"}],
    "cleme": [{}, {"assumption": "independent"}],
    "cleme2": [{}],
    "gotoscorer": [{}, {"weight_systems": "@scored"}],
}

pytestmark = pytest.mark.requires_spacy


def test_the_ranged_metrics_are_these() -> None:
    ranged = sorted(n for n in list_metrics() if get_metric(n).sentence_ranges)
    assert ranged == sorted(RANGED)
    # model weighting batches chunks through an encoder: never split
    assert get_metric("cleme2")(weighting="similarity").sentence_ranges is False


def _cuts(n: int) -> list[int]:
    return sorted({0, 1, min(2, n), n // 3, n // 2 + 1, n - 1, n} - {-1})


def assert_ranges_equal_whole(metric: Metric, data: EvalData, hyp: Hypothesis) -> None:
    whole = metric.evaluate(data, hyp)
    cuts = _cuts(len(data))
    stats = []
    for a, b in itertools.pairwise(cuts):
        stats.extend(metric.range_stats(data, data.subset(a, b), hyp.subset(a, b), a))
    assert stats == whole.stats, (metric.name, hyp.name)
    assert metric.aggregate(stats) == whole.score, (metric.name, hyp.name)
    assert metric.sentence_values(stats) == whole.sentence_scores, (metric.name, hyp.name)


def _run(data: EvalData, hyps: list[Hypothesis], names: list[str] | None = None) -> None:
    for name in names or list(RANGED):
        for options in RANGED[name]:
            metric = get_metric(name)(**options)
            metric.prepare_systems(data, hyps)
            for hyp in hyps:
                assert_ranges_equal_whole(metric, data, hyp)


def test_demo_m2_every_ranged_metric() -> None:
    pytest.importorskip("errant")
    data = EvalData.from_m2(DEMO / "references.m2")
    _run(data, [Hypothesis.from_file(DEMO / f"{s}.txt") for s in SYSTEMS])


def test_plain_text_references() -> None:
    """References annotated with ERRANT: a range takes the whole's annotated references."""
    pytest.importorskip("errant")
    data = EvalData.from_files([DEMO / "ref0.txt", DEMO / "ref1.txt"], DEMO / "source.txt")
    data.reference_edits()
    hyps = [Hypothesis.from_file(DEMO / f"{s}.txt") for s in SYSTEMS[:2]]
    _run(data, hyps, ["errant", "gleu", "imeasure", "gotoscorer"])
    # a range cut before the whole's references were annotated annotates its own
    fresh = EvalData.from_files([DEMO / "ref0.txt", DEMO / "ref1.txt"], DEMO / "source.txt")
    part = fresh.subset(4, 9)
    assert part.peek(REFERENCE_EDITS) is None
    for name in ("errant", "imeasure"):
        metric = get_metric(name)()
        want = metric.evaluate(data, hyps[0]).stats[4:9]
        assert metric.range_stats(fresh, part, hyps[0].subset(4, 9), 4) == want, name


def test_conll14_two_annotators(shared_data: Path) -> None:
    pytest.importorskip("errant")
    gold = read_m2(shared_data / "conll14" / "official-2014.combined.m2")
    n = 60
    data = EvalData.from_m2(Corpus(gold.sentences[:n], gold.path))
    hyps = []
    for name in ("AMU", "CAMB", "CUUI"):
        lines = (shared_data / "conll14" / "submissions" / name).read_text(
            encoding="utf-8").split("\n")[:n]
        hyps.append(Hypothesis.from_texts(lines, name))
    _run(data, hyps)
    assert data.subset(5, 9).references == [r[5:9] for r in data.references]


def test_imeasure_gold_xml(tmp_path: Path) -> None:
    """Gold XML of two scripts (the demo's M2 converted): ranges cut across scripts."""
    from gecscope.formats.imeasure_xml import IMeasureGold, Script, m2_to_gold, write_gold
    from gecscope.metrics.imeasure.metric import GOLD, load_gold

    pytest.importorskip("errant")
    gold = m2_to_gold(read_m2(DEMO / "references.m2"))
    sentences = gold.sentences
    write_gold(tmp_path / "gold.xml", IMeasureGold((Script("1", sentences[:5]),
                                                    Script("2", sentences[5:]))))
    data = EvalData.from_files(tmp_path / "gold.xml")
    hyps = [Hypothesis.from_file(DEMO / f"{s}.txt") for s in SYSTEMS[:2]]
    _run(data, hyps, ["imeasure", "m2", "gleu", "cleme"])
    part = data.subset(3, 9)
    cut = part.peek(GOLD)  # the whole's gold (built while scoring), cut to the range
    assert cut is not None and cut is not data.peek(GOLD)
    assert [len(sc.sentences) for sc in cut.scripts] == [2, 4]
    assert cut.sentences == sentences[3:9]
    # a range of references never scored is cut from the file as read: the same gold
    fresh = EvalData.from_files(tmp_path / "gold.xml").subset(3, 9)
    assert fresh.peek(GOLD) is None
    assert load_gold(fresh).sentences == sentences[3:9]


def test_cherrant_m2_cycled_targets(shared_data: Path) -> None:
    """ChERRANT's M2 (sentences with one to several targets, the k-th reference cycled): a
    range keeps the whole's number of reference sets."""
    d = shared_data / "mucgec" / "cherrant-samples"
    data = EvalData.from_m2(d / "demo.ref.m2.char", lang="zh")
    hyp = Hypothesis.from_m2(read_m2(d / "demo.hyp.m2.char"), "demo")
    assert data.cycle_references
    _run(data, [hyp], ["errant", "m2", "gleu", "cleme"])
    assert len(data.subset(0, 2).references) == len(data.references)


def test_subset_bounds() -> None:
    from gecscope.errors import ConfigError

    data = EvalData.from_texts(["a b", "c d"], [["a b", "c e"]])
    assert len(data.subset(1, 1)) == 0 and data.subset(0, 2).references == data.references
    with pytest.raises(ConfigError, match="outside the 2 sentences"):
        data.subset(1, 3)


def test_plan_cuts_ranged_metrics_only() -> None:
    from gecscope.execution.pool import RANGE_MAX, plan_ranges

    errant, usim = get_metric("errant")(), get_metric("usim")()
    n = 2 * RANGE_MAX + 1
    plan = plan_ranges(n, [errant, usim], 2, workers=2)
    assert plan[0][0] == 1  # the costliest tasks first: usim's, whole
    ranges = sorted((a, b) for m, h, a, b in plan if (m, h) == (0, 1))
    assert ranges[0][0] == 0 and ranges[-1][1] == n and len(ranges) == 4  # two per worker
    assert all(b - a <= RANGE_MAX for a, b in ranges)
    assert all(x[1] == y[0] for x, y in itertools.pairwise(ranges))
    assert [(a, b) for m, h, a, b in plan if m == 1] == [(0, n), (0, n)]
    # one system and metric, 1,000 sentences, 8 workers: two ranges per worker would be 16,
    # but a range keeps at least 100 sentences
    one = plan_ranges(1000, [errant], 1, workers=8)
    assert len(one) == 10 and {b - a for _, _, a, b in one} == {100}
    assert plan_ranges(0, [errant], 1, workers=2) == [(0, 0, 0, 0)]
    # many systems do not make the ranges whole: every system gets the same ranges
    many = plan_ranges(1312, [errant], 13, workers=2)
    assert {(a, b) for _, _, a, b in many} == {(0, 328), (328, 656), (656, 984), (984, 1312)}


def test_bundles_send_a_range_of_every_system_to_one_worker() -> None:
    from gecscope.execution.pool import bundles, plan_ranges

    errant, usim = get_metric("errant")(), get_metric("usim")()
    plan = plan_ranges(1312, [errant, usim], 13, workers=2)
    groups = bundles(plan, [errant, usim], workers=2)
    assert sorted(i for g in groups for i in g) == list(range(len(plan)))  # each task once
    for g in groups:
        kinds = {(plan[i][0], plan[i][2], plan[i][3]) for i in g}
        assert len(kinds) == 1  # one metric, one range
        m = plan[g[0]][0]
        if m == 0:  # errant (ranged): all 13 systems of the range together
            assert sorted(plan[i][1] for i in g) == list(range(13))
        else:  # usim (not ranged): each system alone, whole
            assert len(g) == 1 and plan[g[0]][2:] == (0, 1312)
    assert plan[groups[0][0]][0] == 1  # the costliest first
    # too few groups for the workers: the largest are halved until each worker has two
    one = plan_ranges(99, [errant], 13, workers=2)  # under RANGE_MIN: one range
    halves = bundles(one, [errant], workers=2)
    assert len(halves) == 4 and sorted(len(g) for g in halves) == [3, 3, 3, 4]
    assert sorted(i for g in halves for i in g) == list(range(13))

"""I-measure's sentence cache and resampling fast path (issue #34: the metric validation's CPU).

Sentence statistics are cached by (config, gold content, hypothesis) for the process, region
caches are shared by gold sentences with the same content, and bootstrap resamples are scored
from summed integer rows. Each test compares against the statistics computed with the cache
emptied, or against ``aggregate`` on the resampled list itself, so a stale or too coarse key
or a wrong sum fails here.
"""

# ruff: noqa: SIM905
from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.formats.imeasure_xml import (
    Alternative,
    Correction,
    Error,
    GoldSentence,
    IMeasureGold,
    Script,
    m2_to_gold,
)
from gecscope.metrics.imeasure import IMeasureMetric
from gecscope.metrics.imeasure import metric as metric_module
from gecscope.stats.resample import Scorer, make_rng


def _gold(*sentences: GoldSentence) -> IMeasureGold:
    return IMeasureGold((Script("1", tuple(sentences)),))


def _sentence(sid: str = "1", fix: str = "designed", required: bool = True) -> GoldSentence:
    # "Machines is design to help people ." with two annotated errors
    return GoldSentence(sid, "Machines is design to help people .", 2, (
        Error("1", "SVA", required, (Alternative("0", (Correction(1, 2, "are"),)),)),
        Error("2", "Vform", True, (Alternative("0", (Correction(2, 3, fix),)),
                                   Alternative("1", (Correction(2, 3, "made"),)))),
    ))


def _clear() -> None:
    metric_module._SENTENCES.clear()
    metric_module._CACHED["options"] = 0


def _fresh(metric: IMeasureMetric, gold: IMeasureGold, hyps: list[list[str]]) -> list:
    _clear()
    return metric.sentence_stats_gold(gold, hyps)


def _counts(stats: list) -> list:
    return [(s.counts, s.best, tuple(o.counts for o in s.options)) for s in stats]


def test_one_character_apart_hypotheses_get_their_own_statistics() -> None:
    gold = _gold(_sentence())
    metric = IMeasureMetric()
    right = "Machines are designed to help people .".split()
    near = "Machines are designee to help people .".split()
    _clear()
    cached = [metric.sentence_stats_gold(gold, [h])[0] for h in (right, near, right)]
    assert cached[0] is cached[2]  # the repeated pair is a cache hit
    alone = [_fresh(metric, gold, [h])[0] for h in (right, near)]
    assert _counts(cached[:2]) == _counts(alone)
    assert cached[0].counts != cached[1].counts  # the two really differ


def test_gold_content_is_in_the_key_and_ids_are_not() -> None:
    metric = IMeasureMetric()
    hyp = "Machines are designed to help people .".split()
    _clear()
    a = metric.sentence_stats_gold(_gold(_sentence("1")), [hyp])[0]
    renamed = metric.sentence_stats_gold(_gold(_sentence("7")), [hyp])[0]
    assert renamed is a  # the same sentence under another id is the same entry
    other_fix = metric.sentence_stats_gold(_gold(_sentence(fix="designer")), [hyp])[0]
    optional = metric.sentence_stats_gold(_gold(_sentence(required=False)), [hyp])[0]
    assert _counts([other_fix]) == _counts(_fresh(metric, _gold(_sentence(fix="designer")),
                                                  [hyp]))
    assert _counts([optional]) == _counts(_fresh(metric, _gold(_sentence(required=False)),
                                                 [hyp]))
    assert other_fix.counts != a.counts
    assert len(optional.options) != len(a.options)  # optional error: leave-it option too


@pytest.mark.parametrize("options", [{"maximise": "cf"}, {"w": 0.5}, {"mix": False},
                                     {"baseline": "recount"}, {"maximise": "dtp"}])
def test_options_that_change_the_statistics_are_in_the_key(options: dict) -> None:
    gold = _gold(_sentence())
    hyp = "Machines are made to help people .".split()
    _clear()
    [default] = IMeasureMetric().sentence_stats_gold(gold, [hyp])  # cached, default options
    other = IMeasureMetric(**options)
    got = other.sentence_stats_gold(gold, [hyp])
    assert got[0] is not default  # an entry of its own, even where the numbers agree
    assert _counts(got) == _counts(_fresh(other, gold, [hyp]))


def test_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metric_module, "MAX_CACHED_SENTENCES", 3)
    _clear()
    gold = _gold(_sentence())
    metric = IMeasureMetric()
    for k in range(6):
        metric.sentence_stats_gold(gold, [f"Machines are designed {k} help people .".split()])
    assert len(metric_module._SENTENCES) == 3
    # and by outcomes in all: the oldest go until the rest fit
    monkeypatch.setattr(metric_module, "MAX_CACHED_SENTENCES", 100)
    sizes = [len(s.options) for s in metric_module._SENTENCES.values()]
    monkeypatch.setattr(metric_module, "MAX_CACHED_OPTIONS", sizes[-1] + sizes[-2])
    metric.sentence_stats_gold(gold, ["Machines are designed to help people .".split()])
    kept = sum(len(s.options) for s in metric_module._SENTENCES.values())
    assert kept == metric_module._CACHED["options"] <= sizes[-1] + sizes[-2]
    assert len(metric_module._SENTENCES) < 3


def test_region_caches_are_shared_by_content_only() -> None:
    gold = _gold(_sentence("1"), _sentence("2"), _sentence("3", fix="designer"))
    caches = metric_module.region_caches(gold)
    assert caches[0] is caches[1]
    assert caches[2] is not caches[0]


@pytest.fixture(scope="module")
def conll_slice(conll14: Path):  # type: ignore[no-untyped-def]
    from gecscope.formats.m2 import read_m2
    from gecscope.formats.plain import read_tokens
    from gecscope.types import Corpus

    corpus = read_m2(conll14 / "official-2014.combined.m2")
    n = 120
    gold = m2_to_gold(Corpus(corpus.sentences[:n], corpus.path))
    hyps = read_tokens(conll14 / "submissions" / "CAMB", expected=len(corpus))[:n]
    return gold, hyps


@pytest.mark.parametrize("options", [{"main": "d_wacc", "fix_tie_i": True}])
def test_fast_resampling_equals_aggregate_on_conll14(conll_slice, options: dict) -> None:  # type: ignore[no-untyped-def]
    gold, hyps = conll_slice
    metric = IMeasureMetric(**options)
    stats = metric.sentence_stats_gold(gold, hyps)
    scorer = Scorer(metric, stats)
    assert scorer.rows is not None  # the fast path is taken
    rows = make_rng(3).integers(0, len(stats), size=(40, len(stats)))
    rows[0] = range(len(stats))  # the full corpus too
    fast = scorer.values(rows, fields=True)
    for b, row in enumerate(rows):
        want = metric.aggregate([stats[i] for i in row]).fields
        got = {k: float(fast[k][b]) for k in want}
        assert got == {k: float(v) for k, v in want.items()}  # exactly, every field
    assert fast["value"][0] == metric.aggregate(stats).value


def test_corpus_optimisation_keeps_aggregate() -> None:
    # the corpus-level choice depends on sentence order: no summed-rows shortcut
    assert IMeasureMetric(optimise="corpus").resampling() is None
    assert IMeasureMetric().resampling() is not None


@pytest.mark.parametrize("maximise", ["cwacc", "ci", "dacc", "cf", "dp", "cr", "ctp", "dfn"])
@pytest.mark.parametrize("tie", ["zero", "floor"])
def test_vectorised_choice_equals_the_first_wins_scan(maximise: str, tie: str) -> None:
    # small counts give many exact ties between keys (the first must win) and zero
    # denominators; the list is long enough to take the array path
    import random

    from gecscope.metrics.imeasure.core import (
        _VECTOR_MIN,
        IMeasureCounts,
        _scan,
        best_option,
    )

    rnd = random.Random(f"{maximise}{tie}")
    for trial in range(60):
        counts = []
        for _ in range(_VECTOR_MIN + rnd.randrange(40)):
            tp_d = rnd.randrange(3)
            fp_d, fn_d, tn = rnd.randrange(3), rnd.randrange(3), rnd.randrange(4)
            tn_b = rnd.randrange(4)
            counts.append(IMeasureCounts(tp_d, rnd.randrange(tp_d + 1), tn, fp_d, fn_d,
                                         tn_b, tp_d + fn_d + rnd.randrange(2)))
        if trial % 3 == 0:  # the best key repeated: the earliest copy must be chosen
            counts += counts[:5]
            rnd.shuffle(counts)
        args = (maximise[0], maximise[1:], 1.0 if trial % 2 else 0.5, 2.0, tie)
        assert best_option(counts, *args) == _scan(counts, *args), (trial, counts)

"""Every resampling fast path equals its metric's ``aggregate`` on the same resamples.

The fast path (``Metric.resampling``: count vectors summed per resample and, for best-reference
metrics, the greedy reference choice re-run vectorised) must compute what ``aggregate``
computes on the resampled list of sentence statistics. Here every metric that has one is run
on real data (the bundled demo, CoNLL-2014 and the ChERRANT demo from ../shared/data), and
each of a fixed-seed set of bootstrap resamples is scored both ways: every field the fast path
reports must equal ``aggregate``'s to 1e-12. ``test_every_fast_path_is_covered`` fails when
a metric gains a fast path this file does not check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="resampling needs the stats extra")

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.base import Metric
from gecscope.registry import get_metric, list_metrics
from gecscope.stats.resample import Scorer, bootstrap_samples

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"

#: Registered metrics with a fast path, and the test below that checks it.
COVERED = {
    "errant": "conll14, cherrant demo",
    "m2": "conll14",
    "pterrant": "conll14 (weights 1), demo (BERTScore weights)",
    "ptm2": "conll14 (weights 1), demo (BERTScore weights)",
    "cleme": "conll14 (tests/unit/test_cleme_fastpath.py: 250 resamples of AMU, CAMB, UFC; ten "
             "settings)",
    "cleme2": "conll14",
    "gotoscorer": "demo",
    "gleu": "demo",
    "some": "mean columns",
    "impara": "mean columns",
    "scribendi": "mean columns",
    "llm_sent": "mean columns",
    "llm_edit": "mean columns",
    "imeasure": "conll14 (first 80 sentences; every field exactly in test_imeasure_cache.py)",
    "green": "conll14 (two option sets, every field bit-equal)",
}


def assert_fast_equals_aggregate(metric: Metric, stats: Sequence[Any], seed: int,
                                 n_samples: int = 8) -> None:
    """Scores ``n_samples`` bootstrap resamples (fixed seed) through the fast path and through
    ``aggregate``; every fast-path field must equal the aggregate's."""
    assert Scorer(metric, stats).fast, f"{metric.name}: no fast path taken"
    idx = np.random.default_rng(seed).integers(0, len(stats), size=(n_samples, len(stats)))
    fast = bootstrap_samples(metric, stats, indices=idx, fields=True)
    brute = [metric.aggregate([stats[i] for i in row]) for row in idx]
    assert fast["value"].tolist() == pytest.approx([s.value for s in brute], abs=1e-12, rel=0)
    fields = set(fast) - {"value"}
    assert brute[0].main in fields
    assert fields <= set(brute[0].fields), f"{metric.name}: fields aggregate does not report"
    for name in sorted(fields):
        assert fast[name].tolist() == pytest.approx([float(s.fields[name]) for s in brute],
                                                    abs=1e-12, rel=0), (metric.name, name)


def test_every_fast_path_is_covered() -> None:
    with_path = {name for name in list_metrics()
                 if get_metric(name).resampling is not Metric.resampling}
    assert with_path == set(COVERED)


# -------------------------------------------------------------------------- CoNLL-2014


@pytest.fixture(scope="module")
def conll(conll14: Path) -> tuple[EvalData, dict[str, Hypothesis]]:
    """The CoNLL-2014 test set with three submissions' ERRANT edits (AMU, UFC, INPUT)."""
    d = conll14 / "errant"
    data = EvalData.from_m2(read_m2(d / "references.m2"))
    return data, {n: Hypothesis.from_file(d / f"{n}.m2") for n in ("AMU", "UFC", "INPUT")}


ERRANT_OPTIONS = [{}, {"selection_rounding": None}, {"mode": "ds"}, {"mode": "dt"},
                  {"mode": "cse", "beta": 1.0}, {"fix_duplicate_edits": True}]


@pytest.mark.parametrize("options", ERRANT_OPTIONS, ids=str)
def test_errant_on_conll(conll: tuple[EvalData, dict[str, Hypothesis]],
                         options: dict[str, Any]) -> None:
    data, hyps = conll
    metric = get_metric("errant")(**options)
    for k, hyp in enumerate(hyps.values()):
        assert_fast_equals_aggregate(metric, metric.sentence_stats(data, hyp), seed=k)


@pytest.mark.parametrize("name,options", [
    ("m2", {}), ("pterrant", {"weighting": "none"}),
    ("pterrant", {"weighting": "none", "level": "sentence"}),
    ("ptm2", {"weighting": "none", "level": "corpus"}), ("ptm2", {"weighting": "none"}),
    ("cleme2", {}),
], ids=str)
def test_count_metrics_on_conll(conll: tuple[EvalData, dict[str, Hypothesis]], name: str,
                                options: dict[str, Any]) -> None:
    """With every edit weighing 1 the weighted counts are whole numbers: ties between
    references are frequent, so the tie-breaks are exercised too."""
    data, hyps = conll
    metric = get_metric(name)(**options)
    for k, hyp in enumerate(hyps.values()):
        assert_fast_equals_aggregate(metric, metric.sentence_stats(data, hyp), seed=10 + k,
                                     n_samples=4)


@pytest.mark.parametrize("options", [{}, {"maximise": "ci", "fix_tie_i": True}], ids=str)
def test_imeasure_on_conll(conll14: Path, options: dict[str, Any]) -> None:
    """The I-measure sums each sentence's chosen counts (optimise=sent)."""
    from gecscope.formats.imeasure_xml import m2_to_gold
    from gecscope.formats.plain import read_tokens
    from gecscope.types import Corpus

    corpus = read_m2(conll14 / "official-2014.combined.m2")
    gold = m2_to_gold(Corpus(corpus.sentences[:80], corpus.path))
    metric = get_metric("imeasure")(**options)
    for k, name in enumerate(("AMU", "UFC")):
        hyps = read_tokens(conll14 / "submissions" / name, expected=len(corpus))[:80]
        assert_fast_equals_aggregate(metric, metric.sentence_stats_gold(gold, hyps),
                                     seed=20 + k)


@pytest.mark.parametrize("options", [{}, {"beta": 0.5, "order": 2}], ids=str)
def test_green_on_conll(conll: tuple[EvalData, dict[str, Hypothesis]],
                        options: dict[str, Any]) -> None:
    """GREEN sums each sentence's best-reference counts; every field of every resample must
    be bit-equal to ``aggregate``'s (not only within 1e-12)."""
    data, hyps = conll
    metric = get_metric("green")(**options)
    for k, hyp in enumerate(hyps.values()):
        stats = metric.sentence_stats(data, hyp)
        assert_fast_equals_aggregate(metric, stats, seed=30 + k)
        idx = np.random.default_rng(40 + k).integers(0, len(stats), size=(4, len(stats)))
        fast = bootstrap_samples(metric, stats, indices=idx, fields=True)
        for b, row in enumerate(idx):
            brute = metric.aggregate([stats[i] for i in row])
            assert fast["value"][b] == brute.value
            assert {name: fast[name][b] for name in brute.fields} == {
                name: float(v) for name, v in brute.fields.items()}


def test_cherrant_demo(shared_data: Path) -> None:
    """ChERRANT-style scoring (character edits, several annotators, 无法标注 sentences)."""
    d = shared_data / "mucgec" / "cherrant-samples"
    data = EvalData.from_m2(d / "demo.ref.m2.char")
    hyp = Hypothesis.from_m2(read_m2(d / "demo.hyp.m2.char"), "demo")
    for options in ({}, {"mode": "dt"}, {"selection_rounding": None}):
        metric = get_metric("errant")(**options)
        assert_fast_equals_aggregate(metric, metric.sentence_stats(data, hyp), seed=3,
                                     n_samples=40)


# -------------------------------------------------------------------------- the demo


@pytest.fixture(scope="module")
def demo() -> tuple[EvalData, list[Hypothesis]]:
    data = EvalData.from_m2(DEMO / "references.m2")
    hyps = [Hypothesis.from_texts((DEMO / f"{n}.txt").read_text(encoding="utf-8").splitlines(),
                                  n) for n in ("careful", "rewriter", "cautious")]
    return data, hyps


@pytest.mark.requires_spacy
@pytest.mark.parametrize("name,options", [
    ("pterrant", {}), ("pterrant", {"level": "sentence"}), ("ptm2", {}),
    ("ptm2", {"level": "corpus"}), ("gotoscorer", {}), ("errant", {}), ("m2", {}),
    ("gleu", {"iterations": 20}),
], ids=str)
def test_metrics_on_the_demo(demo: tuple[EvalData, list[Hypothesis]], name: str,
                             options: dict[str, Any]) -> None:
    data, hyps = demo
    metric = get_metric(name)(**options)
    for k, hyp in enumerate(hyps):
        assert_fast_equals_aggregate(metric, metric.sentence_stats(data, hyp), seed=20 + k,
                                     n_samples=60)


# -------------------------------------------------------------------------- mean columns


def _demo_pairs() -> list[tuple[str, str]]:
    src = (DEMO / "source.txt").read_text(encoding="utf-8").splitlines()
    out = []
    for name in ("careful", "rewriter", "cautious"):
        hyp = (DEMO / f"{name}.txt").read_text(encoding="utf-8").splitlines()
        out.extend(zip(src, hyp, strict=True))
    return out


def _ratio(a: str, b: str) -> float:
    """A number in [0, 1] of two sentences (stands in for a model's output)."""
    import difflib

    return difflib.SequenceMatcher(None, a, b).ratio()


def _some_stats() -> list[Any]:
    from gecscope.metrics.learned.some import SOMEStats

    return [SOMEStats(_ratio(s, h), len(h) / (len(s) + 1), _ratio(h, s[::-1]))
            for s, h in _demo_pairs()]


def _impara_stats() -> list[Any]:
    from gecscope.metrics.learned.impara import IMPARAStats

    return [IMPARAStats(len(h) / (len(s) + 7), _ratio(s, h)) for s, h in _demo_pairs()]


def _scribendi_stats() -> list[Any]:
    from gecscope.metrics.learned.scribendi import ScribendiStats

    return [ScribendiStats(0 if s == h else (1 if _ratio(s, h) > 0.9 else -1))
            for s, h in _demo_pairs()]


def _llm_stats() -> list[Any]:
    return [1 + int(4 * _ratio(s, h)) for s, h in _demo_pairs()]


LLM = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}  # never called
NO_MODEL = "<a model directory>"  # aggregate and the fast path load no model




@pytest.mark.parametrize("name,options,stats", [
    ("some", {"model_g": NO_MODEL, "model_f": NO_MODEL, "model_m": NO_MODEL}, _some_stats),
    ("impara", {"threshold": 0.8, "model_qe": NO_MODEL, "model_se": NO_MODEL}, _impara_stats),
    ("scribendi", {"model": NO_MODEL}, _scribendi_stats), ("llm_sent", LLM, _llm_stats),
    ("llm_edit", LLM, _llm_stats),
], ids=lambda x: x if isinstance(x, str) else "")
def test_mean_columns(name: str, options: dict[str, Any], stats: Callable[[], list[Any]],
                      tmp_path: Path) -> None:
    """The mean-of-sentence metrics (the sentence statistics computed from the demo's
    sentences instead of by the models, which the test_learned_* files run)."""
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    metric = get_metric(name)(**{k: str(tmp_path) if v == NO_MODEL else v
                                 for k, v in options.items()})
    values = stats()
    assert len(set(map(repr, values))) > 2  # not a constant corpus
    assert_fast_equals_aggregate(metric, values, seed=7, n_samples=60)


# -------------------------------------------------------------------------- tie-breaks


def _small_counts(seed: int, n: int = 300) -> list[list[tuple[int, int, int]]]:
    """Sentences of 1-3 candidates with counts 0-3, after one sentence of large counts: exact
    F ties, ties after rounding to 4 digits and ties on the tie-break columns are frequent
    (real corpora rarely reach them: on CoNLL-2014 the rounding never changes a choice)."""
    rng = np.random.default_rng(seed)
    out = [[(300, 700, 900)]]
    for _ in range(n):
        out.append([tuple(int(x) for x in rng.integers(0, 4, size=3))
                    for _ in range(int(rng.integers(1, 4)))])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_tie_breaks_on_small_counts(seed: int) -> None:
    from gecscope.metrics.errant import Candidate, SentenceStats
    from gecscope.metrics.m2 import M2Row, M2SentenceStats
    from gecscope.metrics.pt_errant import PTCandidate, PTStats

    sentences = _small_counts(seed)
    errant = [SentenceStats(tuple(Candidate(0, k, *c, ()) for k, c in enumerate(s)))
              for s in sentences]
    # m2scorer's counts: correct <= proposed, correct <= gold
    m2 = [M2SentenceStats(tuple(M2Row(k, c[0], c[0] + c[1], c[0] + c[2])
                                for k, c in enumerate(s))) for s in sentences]
    weighted = [PTStats(tuple(PTCandidate(k, (c[0] * 0.5, c[1] * 0.25, c[2] * 0.5), c)
                              for k, c in enumerate(s))) for s in sentences]
    weighted_m2 = [PTStats(tuple(PTCandidate(k, (c[0] * 0.5, c[0] * 0.5 + c[1] * 0.25,
                                                 c[0] * 0.5 + c[2]), c)
                                 for k, c in enumerate(s))) for s in sentences]
    for metric, stats in ((get_metric("errant")(), errant),
                          (get_metric("errant")(selection_rounding=None, beta=1.0), errant),
                          (get_metric("m2")(), m2), (get_metric("m2")(beta=2.0), m2),
                          (get_metric("pterrant")(weighting="none"), weighted),
                          (get_metric("ptm2")(weighting="none", level="corpus"), weighted_m2)):
        assert_fast_equals_aggregate(metric, stats, seed=seed, n_samples=30)

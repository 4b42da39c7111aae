"""Sentence-level significance clusters of tie-calibrated accuracy (acc_eq) and SPA's interval
(issue #34 item 1).

The clusters' p-values equal mt-metrics-eval's ``data.CompareMetrics(corrs,
stats.KendallWithTiesOpt, "item", k, psd, perm_test="pairs", sample_rate=1.0)`` after
``np.random.seed(0)`` (WMT 2023-24's acc_eq task settings, ``stats.PairwisePermutationSigDiff``)
when gecscope replays its random stream (``test="mt-metrics-eval"``). The pinned values were
printed by that call at mt-metrics-eval commit 68a481aea1a787392d55af8f76ac8ef40c5f4664 on the
first 30 SEEDA ranking items of each judgment file, 200 permutations, blocks of 1000 (no early
stop) and of 50 (its early stop, min 0.05 / max 0.3), for GLEU, character length and two tied
variants (GLEU rounded to 0.1, length // 10: non-zero tie thresholds), by ``python
benchmarks/mt_metrics_eval_reference.py --mme <mt-metrics-eval> --clusters``. When the mirror of
mt-metrics-eval is present, the same call also runs live for the four cases, on inputs built
from the XML without gecscope; on SEEDA-S its early stop changes the p-values. The default
draws (``test="sign"``) are checked against the exact permutation p-value of a small case.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import types
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from gecscope.errors import ConfigError
from gecscope.judgments import Judgments
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.meta_eval.runner import (
    MetricRow,
    TableResult,
    add_wmt_statistics,
    build_table,
    render_wmt_sections,
)
from gecscope.meta_eval.significance import (
    PermutationParams,
    human_pairwise_p_values,
    metric_spa,
    pairwise_p_values,
    soft_pairwise_accuracy,
    spa_interval,
)
from gecscope.meta_eval.ties import (
    PairOutcomes,
    calibrated_sig_diff,
    compare_calibrated,
    tie_calibrated_agreement,
)
from gecscope.registry import get_metric

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

MIRROR = Path("/work/.mirror/google-research+mt-metrics-eval/repo")
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
ITEMS = 30
# (level, block size) -> (labels best first, acc_eq values, ranks, p-value matrix)
PINNED: dict[tuple[str, int], tuple[list[str], list[float], list[int], list[list[float]]]] = {
    ("sent", 1000): (["gleu", "charlen", "gleu1", "len10"],
                     [0.6023208273208275, 0.6021837421837425, 0.598850408850409,
                      0.5988504088504086], [1, 1, 1, 1],
                     [[0.0, 0.535, 0.455, 0.415], [0.0, 0.0, 0.54, 0.555],
                      [0.0, 0.0, 0.0, 1.0], [0.0] * 4]),
    ("sent", 50): (["gleu", "charlen", "gleu1", "len10"],
                   [0.6023208273208275, 0.6021837421837425, 0.598850408850409,
                    0.5988504088504086], [1, 1, 1, 1],
                   [[0.0, 0.55, 0.52, 0.4266666666666667], [0.0, 0.0, 0.4, 0.47],
                    [0.0, 0.0, 0.0, 1.0], [0.0] * 4]),
    ("edit", 1000): (["gleu", "gleu1", "charlen", "len10"],
                     [0.6728643578643579, 0.6482347282347283, 0.5546007696007696,
                      0.5013684463684464], [1, 1, 2, 2],
                     [[0.0, 0.28, 0.0, 0.0], [0.0, 0.0, 0.055, 0.0], [0.0, 0.0, 0.0, 0.135],
                      [0.0] * 4]),
    ("edit", 50): (["gleu", "gleu1", "charlen", "len10"],
                   [0.6728643578643579, 0.6482347282347283, 0.5546007696007696,
                    0.5013684463684464], [1, 1, 2, 2],
                   [[0.0, 0.28, 0.0, 0.0], [0.0, 0.0, 0.055, 0.0], [0.0, 0.0, 0.0, 0.135],
                    [0.0] * 4]),
}


def _params(block: int) -> PermutationParams:
    return PermutationParams(200, block, 0.05, 0.3)


def _reference_module() -> Any:
    """benchmarks/mt_metrics_eval_reference.py, the command that printed ``PINNED``."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import mt_metrics_eval_reference  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCHMARKS))
    return mt_metrics_eval_reference


@pytest.fixture(scope="module")
def seeda(shared_data: Path) -> dict[str, Any]:
    """SEEDA's base systems and the four score tables, built as the printing command builds
    them (``cluster_case``)."""
    case: dict[str, Any] = _reference_module().cluster_case(shared_data)
    return case


def _slice(case: dict[str, Any], level: str) -> Judgments:
    return Judgments(tuple(list(case["bench"].judgments[level])[:ITEMS]))


def _outcomes(case: dict[str, Any], level: str) -> dict[str, PairOutcomes]:
    out = {}
    for name, table in case["tables"].items():
        t = tie_calibrated_agreement(_slice(case, level), table, case["systems"],
                                     rows=case["bench"].rows, resamples=1)
        assert t.outcomes is not None
        out[name] = t.outcomes
    return out


@pytest.mark.parametrize("level,block", sorted(PINNED))
def test_clusters_equal_mt_metrics_eval_pinned(seeda: dict[str, Any], level: str,
                                               block: int) -> None:
    labels, values, ranks, p = PINNED[(level, block)]
    got = compare_calibrated(_outcomes(seeda, level), seed=0, params=_params(block),
                             test="mt-metrics-eval")
    assert list(got.labels) == labels
    assert list(got.values) == values
    assert list(got.ranks) == ranks
    got_p = [list(row) for row in got.p]
    assert got_p == p


@pytest.fixture(scope="module")
def mt_metrics_eval(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """mt-metrics-eval's ``data`` and ``stats`` from the fetched mirror (its ``data.py``
    imports apache_beam and ``ratings.py`` dacite at the top; neither is used by the
    functions called, so empty modules stand in while it is imported)."""
    if not (MIRROR / "HEAD").is_file():
        pytest.skip(f"mt-metrics-eval mirror not found at {MIRROR} (pinned values still "
                    "checked)")
    root = tmp_path_factory.mktemp("mme")
    archive = subprocess.run(["git", "--git-dir", str(MIRROR), "archive", "HEAD"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    stubs = [n for n in ("apache_beam", "dacite") if n not in sys.modules]
    for name in stubs:
        sys.modules[name] = types.ModuleType(name)
    sys.path.insert(0, str(root))
    try:
        from mt_metrics_eval import data, stats  # type: ignore[import-not-found]

        yield data, stats
    finally:
        sys.path.remove(str(root))
        for name in [*stubs, *(m for m in sys.modules if m.startswith("mt_metrics_eval"))]:
            sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def live(seeda: dict[str, Any], mt_metrics_eval: Any) -> dict[tuple[str, int], Any]:
    """mt-metrics-eval's own clusters of the pinned cases, by ``clusters`` of
    benchmarks/mt_metrics_eval_reference.py (the command that printed ``PINNED``), which
    builds its inputs from the judgment XML without gecscope's reader or its conversion of
    judgments to scores."""
    data, stats = mt_metrics_eval
    found = _reference_module().clusters((data, None, stats), seeda)
    return {(level, block): found[f"{level}/{block}"] for level, block in PINNED}


@pytest.mark.parametrize("level,block", sorted(PINNED))
def test_clusters_equal_mt_metrics_eval_live(seeda: dict[str, Any], level: str, block: int,
                                             live: dict[tuple[str, int], Any]) -> None:
    """gecscope's replay of the stream against mt-metrics-eval's own call on inputs it built
    from the XML itself, same seed and permutations, with and without its early stop."""
    ref = live[level, block]
    got = compare_calibrated(_outcomes(seeda, level), seed=0, params=_params(block),
                             test="mt-metrics-eval")
    assert list(got.labels) == ref["labels"]
    assert list(got.values) == ref["values"]
    assert list(got.ranks) == ref["ranks"]
    got_p = [list(row) for row in got.p]
    assert got_p == ref["p"]


def test_the_live_cases_exercise_the_early_stop(live: dict[tuple[str, int], Any]) -> None:
    """On SEEDA-S the early stop (blocks of 50) changes mt-metrics-eval's p-values against no
    early stop (blocks of 1000), so the live comparison above covers a stopped test; on
    SEEDA-E it does not (every pair far from the thresholds)."""
    assert live["sent", 50]["p"] != live["sent", 1000]["p"]
    assert live["edit", 50]["p"] == live["edit", 1000]["p"]


def _exact_p(worse: list[int], better: list[int], sizes: list[int]) -> Fraction:
    """Share of all 2^pairs swap patterns whose difference of item means reaches the
    observed one (Fractions: no rounding)."""
    items = [i for i, n in enumerate(sizes) for _ in range(n * (n - 1) // 2)]
    tot = {i: Fraction(1, n * (n - 1) // 2 * len(sizes)) for i, n in enumerate(sizes)}
    observed = sum((b - w) * tot[i] for w, b, i in zip(worse, better, items, strict=True))
    hits = 0
    for swap in itertools.product((0, 1), repeat=len(items)):
        stat = sum(((w - b) if s else (b - w)) * tot[i]
                   for w, b, i, s in zip(worse, better, items, swap, strict=True))
        hits += stat >= observed
    return Fraction(hits, 2 ** len(items))


def test_both_draws_estimate_the_exact_permutation_p_value() -> None:
    """Two items of 3 and 4 systems (3 + 6 pairs): the better metric agrees with the humans
    on 7 pairs, the worse on 3. Both ways of drawing must estimate the p-value that
    enumerating all 512 swap patterns gives (within 4 standard errors)."""
    sizes = [3, 4]
    better = [1, 1, 0, 1, 1, 1, 0, 1, 1]
    worse = [0, 1, 0, 0, 1, 0, 1, 0, 0]
    exact = float(_exact_p(worse, better, sizes))
    assert 0.02 < exact < 0.2  # a case where the estimate is informative

    def out(good: list[int]) -> PairOutcomes:
        return PairOutcomes(sum(good) / len(good), 0.0, tuple("ABCD"),
                            tuple((1 << n) - 1 for n in sizes), bytes(good))

    for test, rng, k in (("sign", np.random.default_rng(1), 20000),
                         ("mt-metrics-eval", np.random.RandomState(1), 4000)):
        p, delta, draws = calibrated_sig_diff(out(worse), out(better), rng=rng, test=test,
                                              params=PermutationParams(k, k))
        assert draws == k
        assert delta == pytest.approx((2 / 3 + 5 / 6) / 2 - (1 / 3 + 2 / 6) / 2)
        assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / k), test


def test_paired_test_refuses_different_pairs() -> None:
    a = PairOutcomes(0.5, 0.0, ("A", "B", "C"), (0b111,), bytes([1, 0, 1]))
    b = PairOutcomes(0.5, 0.0, ("A", "B", "C"), (0b11, 0b11), bytes([1, 0]))
    with pytest.raises(ConfigError, match="different pairs"):
        calibrated_sig_diff(a, b, rng=np.random.default_rng(0))
    with pytest.raises(ConfigError, match="sentence test"):
        compare_calibrated({"a": a}, test="bootstrap")


def test_spa_interval_equals_a_direct_bootstrap(seeda: dict[str, Any]) -> None:
    """SPA's interval against a direct reading of its definition: the same resampled systems
    (``default_rng(seed).integers``), SPA over every pair of distinct draws."""
    bench, systems = seeda["bench"], seeda["systems"]
    j = bench.judgments["sent"]
    human_p = human_pairwise_p_values(j, systems, 100)
    table = seeda["tables"]["gleu"]
    got = metric_spa(j, table, systems, permutations=100, human_p=human_p, resamples=200,
                     bootstrap_seed=3)
    assert got.interval is not None
    metric_p = pairwise_p_values(np.asarray([table[s] for s in systems]), 100)
    assert got.spa == soft_pairwise_accuracy(human_p, metric_p)
    n = len(systems)
    idx = np.random.default_rng(3).integers(0, n, size=(200, n))
    values = []
    for draw in idx:
        gaps = [abs(human_p[min(a, b), max(a, b)] - metric_p[min(a, b), max(a, b)])
                for x, a in enumerate(draw) for b in draw[x + 1:] if a != b]
        values.append(1 - sum(gaps) / len(gaps))
    lo, hi = np.percentile(values, [2.5, 97.5])
    bounds = (got.interval.low, got.interval.high)
    assert bounds == pytest.approx((lo, hi), abs=1e-12)
    assert got.interval.low <= got.spa <= got.interval.high
    assert got.as_dict()["spa_interval"] == got.interval.as_list()
    # two systems: every resample with both gives the one pair's SPA; the others are dropped
    two = spa_interval([[math.nan, 0.2], [math.nan, math.nan]],
                       [[math.nan, 0.5], [math.nan, math.nan]], resamples=50)
    two_bounds = (two.low, two.high)
    assert two_bounds == pytest.approx((0.7, 0.7))
    assert 0 < two.resamples < 50


def test_table_carries_sentence_clusters(seeda: dict[str, Any]) -> None:
    """build_table's sentence-level clusters are compare_calibrated on the SentX rows'
    verdicts (charlen and GLEU on SEEDA); Markdown and JSON show them, and SPA's interval."""
    bench = seeda["bench"]

    def make(name: str) -> Any:
        return CharLengthMetric() if name == "charlen" else get_metric(name)()

    result = build_table([bench], ["charlen", "gleu"], make_metric=make, permutations=100,
                         resamples=50)
    for level in ("sent", "edit"):
        want = compare_calibrated(
            {f"Sent{name}": tie_calibrated_agreement(
                bench.judgments[level], seeda["tables"][name], seeda["systems"],
                rows=bench.rows, resamples=1).outcomes  # type: ignore[misc]
             for name in ("charlen", "gleu")},
            seed=0, params=PermutationParams(100))
        got = result.sentence_rankings["seeda"][level]
        got_clusters = (got.labels, got.ranks, got.p)
        assert got_clusters == (want.labels, want.ranks, want.p)
    assert result.settings["sentence_test"] == "sign"
    data = result.as_dict()
    clusters = data["sentence_clusters"]["seeda"]["edit"]  # type: ignore[index]
    order = [m["metric"] for m in clusters["metrics"]]
    assert order == ["Sentgleu", "Sentcharlen"]
    rows = {r["label"]: r for r in data["rows"]}  # type: ignore[union-attr]
    spa = rows["Sentgleu"]["sentence"]["seeda"]["sent"]["spa"]
    row = next(r for r in result.rows if r.label == "Sentgleu")
    assert spa["spa_interval"] == row.spa["seeda"]["sent"].interval.as_list()  # type: ignore[union-attr]
    lines = render_wmt_sections(result)
    assert lines[0].startswith("## ") and lines[1] == "" and lines[3] == ""
    header = ("| Cluster | Metric | γ [95% CI] | ρ [95% CI] | SPA ★ [95% CI] | acc_eq ★ [95% CI] "
              "| Sent. cluster | τ_eq | acc |")
    assert header in lines
    start = lines.index("### Sentence level on SEEDA (SEEDA-E, edit-level rankings), ranked by "
                        "acc_eq")
    ranking = result.sentence_rankings["seeda"]["edit"]
    body = lines[start + 4:start + 6]
    shown = [ln.split(" | ")[:2] for ln in body]
    expected = [[f"| {r}", label] for label, r in zip(ranking.labels, ranking.ranks, strict=True)]
    assert shown == expected
    # mt-metrics-eval's stream gives the same clusters here (p far from alpha)
    add_wmt_statistics(result, permutations=100, resamples=50, sentence_test="mt-metrics-eval")
    assert result.settings["sentence_test"] == "mt-metrics-eval"
    assert result.sentence_rankings["seeda"]["edit"].ranks == ranking.ranks


def test_tampered_pair_outcomes_are_refused() -> None:
    ok = PairOutcomes(0.5, 0.0, ("A", "B", "C"), (0b111,), bytes([1, 0, 1]))
    short = PairOutcomes(0.5, 0.0, ("A", "B", "C"), (0b111,), bytes([1, 0]))
    with pytest.raises(ConfigError, match="different pairs"):
        calibrated_sig_diff(ok, short, rng=np.random.default_rng(0))
    with pytest.raises(ConfigError, match="item sizes"):
        calibrated_sig_diff(short, short, rng=np.random.default_rng(0))
    two = PairOutcomes(0.5, 0.0, ("A", "B", "C"), (0b111,), bytes([1, 2, 1]))
    with pytest.raises(ConfigError, match="0 or 1"):
        calibrated_sig_diff(ok, two, rng=np.random.default_rng(0))


def test_metric_with_missing_scores_is_left_out_of_the_clusters(seeda: dict[str, Any]) -> None:
    """A SentX row whose metric has no score (NaN) on a judged sentence is judged on fewer
    pairs: it cannot enter the paired test. The others are clustered, it is named as left out,
    and nothing crashes."""
    bench, systems = seeda["bench"], seeda["systems"]
    j = _slice(seeda, "sent")
    item = next(iter(j))
    ranked = next(s for s in systems if s in item.ranks)
    holed = {s: list(v) for s, v in seeda["tables"]["gleu"].items()}
    holed[ranked][bench.rows[item.sentence]] = math.nan
    tables = {"charlen": seeda["tables"]["charlen"], "gleu": seeda["tables"]["gleu"],
              "holed": holed}
    rows = [MetricRow(f"Sent{name}", kind="sentence", calibrated={"seeda": {
        "sent": tie_calibrated_agreement(j, t, systems, rows=bench.rows, resamples=1)}})
        for name, t in tables.items()]
    result = TableResult(rows, {}, {}, {})
    add_wmt_statistics(result, permutations=50, resamples=10)
    ranking = result.sentence_rankings["seeda"]["sent"]
    assert set(ranking.labels) == {"Sentcharlen", "Sentgleu"}
    left = result.settings["sentence_clusters_excluded"]
    assert left["seeda/sent"]["metrics"] == ["Sentholed"]  # type: ignore[index]
    text = "\n".join(render_wmt_sections(result))
    assert "Not clustered (scored on different (sentence, system) cells" in text
    assert "`Sentholed`" in text


def _three_items() -> list[types.SimpleNamespace]:
    return [types.SimpleNamespace(sentence=k, ranks={"A": 1, "B": 2, "C": 3}) for k in range(3)]


def test_same_item_sizes_but_different_pairs_are_refused() -> None:
    """X lacks system A on sentence 0, Y lacks system C there: both compare 2, 3 and 3
    systems (same sizes, same pair count) but sentence 0's pair is B-C for X and A-B for Y.
    Swapping verdicts between those non-corresponding pairs gave a p-value with exit 0; the
    paired test must refuse, and build the clusters only from metrics on the same pairs."""
    nan = math.nan
    items: Any = _three_items()
    x = {"A": [nan, 3, 3], "B": [2, 2, 2], "C": [1, 1, 1]}
    y = {"A": [3, 3, 3], "B": [2, 2, 2], "C": [nan, 1, 1]}
    ox = tie_calibrated_agreement(items, x, ["A", "B", "C"], resamples=1).outcomes
    oy = tie_calibrated_agreement(items, y, ["A", "B", "C"], resamples=1).outcomes
    assert ox is not None and oy is not None
    assert ox.sizes == oy.sizes == (2, 3, 3) and ox.pairs == oy.pairs == 7
    assert ox.cells == (0b110, 0b111, 0b111) and oy.cells == (0b011, 0b111, 0b111)
    with pytest.raises(ConfigError, match="different pairs"):
        calibrated_sig_diff(ox, oy, rng=np.random.default_rng(0))
    with pytest.raises(ConfigError, match="different pairs"):
        compare_calibrated({"X": ox, "Y": oy}, params=PermutationParams(20))
    # the same cells in another system order are other pairs too
    oz = tie_calibrated_agreement(items, y, ["C", "B", "A"], resamples=1).outcomes
    assert oz is not None and oz.sizes == oy.sizes
    with pytest.raises(ConfigError, match="different pairs"):
        calibrated_sig_diff(oy, oz, rng=np.random.default_rng(0))


def test_cluster_group_has_the_most_pairs_and_an_accurate_note() -> None:
    """Two incomplete metrics with the same hole (7 pairs) against one complete metric
    (9 pairs): the complete one is clustered, though the other group has more metrics, and
    the note names the incomplete ones with their pair counts. Equal pair counts (X's hole
    vs Y's hole): the group with more metrics wins, then the first by name."""
    nan = math.nan
    items: Any = _three_items()
    tables = {
        "SentX": {"A": [nan, 3, 3], "B": [2, 2, 2], "C": [1, 1, 1]},
        "SentX2": {"A": [nan, 1, 3], "B": [2, 2, 2], "C": [1, 3, 1]},
        "SentFull": {"A": [3, 1, 3], "B": [2, 2, 2], "C": [1, 3, 1]},
        "SentY": {"A": [3, 3, 3], "B": [2, 2, 2], "C": [nan, 1, 1]},
    }

    def run(labels: list[str]) -> TableResult:
        rows = [MetricRow(m, kind="sentence", calibrated={"b": {"sent": tie_calibrated_agreement(
            items, tables[m], ["A", "B", "C"], resamples=1)}}) for m in labels]
        result = TableResult(rows, {}, {}, {})
        add_wmt_statistics(result, permutations=20, resamples=5)
        return result

    result = run(["SentX", "SentX2", "SentFull"])
    assert result.sentence_rankings["b"]["sent"].labels == ("SentFull",)
    note = result.settings["sentence_clusters_excluded"]["b/sent"]  # type: ignore[index]
    assert note["metrics"] == ["SentX", "SentX2"]
    assert note["pairs"] == {"SentX": 7, "SentX2": 7} and note["clustered_pairs"] == 9
    text = "\n".join(render_wmt_sections(result))
    assert "the group with the most pairs, 9, is clustered): `SentX` (7 pairs)" in text
    # 7 pairs each: two metrics beat one, then the first by sorted names
    ranked = run(["SentY", "SentX", "SentX2"]).sentence_rankings["b"]["sent"]
    assert set(ranked.labels) == {"SentX", "SentX2"}
    ranked = run(["SentY", "SentX"]).sentence_rankings["b"]["sent"]
    assert ranked.labels == ("SentX",)
    assert run(["SentX"]).settings.get("sentence_clusters_excluded") is None

"""System rankings from a metric's sentence scores (TrueSkill / Expected Wins aggregation).

Goto et al. (2025) rank systems as human judges' rankings are turned into system scores: every
sentence compares every pair of systems by the metric's sentence scores, and the comparisons
are rated. Small worked examples first, then the live comparison with gec-metrics 0.1.1 on
GREEN (a metric both implement): its ``MetaEvalSEEDA``/``MetaEvalGJG`` ``corr_system`` (default
and ``aggregation="trueskill"``), ``corr_sentence`` and ``rank_systems(...,
aggregation="trueskill")``, run at test time in its reference venv. TrueSkill over all 1,312
GJG15 sentences, and gec-metrics' toy character-length metric (integer scores, many ties), are
compared in ``benchmarks/meta_eval_aggregation.py`` (slower).
"""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest

from gecscope.errors import ConfigError
from gecscope.judgments import LOSS, TIE, WIN
from gecscope.meta_eval.benchmarks import (
    GJG15_TABLE3_ORDER,
    Benchmark,
    load_gjg15,
    load_seeda,
)
from gecscope.meta_eval.examples import CharLengthMetric
from gecscope.meta_eval.ranking import (
    AGGREGATIONS,
    TrueSkillParams,
    aggregate_sentence_scores,
    pairwise_counts,
    sentence_comparisons,
)
from gecscope.meta_eval.runner import (
    evaluate_systems,
    sentence_correlations,
    sentence_score_table,
    system_correlations,
    system_scores,
)
from gecscope.metrics.base import Metric, SystemResult
from gecscope.metrics.green import GREENMetric

# Three systems, two sentences. Sentence 0: A > B > C. Sentence 1: A > B, C > A, B = C.
SCORES = {"A": [3.0, 2.0], "B": [2.0, 1.0], "C": [1.0, 3.0]}


def test_comparisons_are_made_sentence_by_sentence_in_system_order() -> None:
    got = [(c.sentence, c.a, c.b, c.outcome) for c in sentence_comparisons(SCORES, ["A", "B", "C"])]
    assert got == [(0, "A", "B", WIN), (0, "A", "C", WIN), (0, "B", "C", WIN),
                   (1, "A", "B", WIN), (1, "A", "C", LOSS), (1, "B", "C", LOSS)]
    ties = sentence_comparisons({"A": [1.0], "B": [1.0]}, ["B", "A"])
    assert [(c.a, c.b, c.outcome) for c in ties] == [("B", "A", TIE)]


def test_expected_wins_worked_example() -> None:
    # wins: A-B 2:0, A-C 1:1, B-C 1:1.  EW(A) = (2/2 + 1/2) / 2 = .75, EW(B) = (0/2 + 1/2) / 2
    # = .25, EW(C) = (1/2 + 1/2) / 2 = .5
    got = aggregate_sentence_scores(SCORES, ["A", "B", "C"], "expected_wins")
    assert got == pytest.approx({"A": 0.75, "B": 0.25, "C": 0.5}, abs=1e-15)
    # lower-is-better reverses every comparison
    low = aggregate_sentence_scores(SCORES, ["A", "B", "C"], "expected_wins",
                                    higher_is_better=False)
    assert low == pytest.approx({"A": 0.25, "B": 0.75, "C": 0.5}, abs=1e-15)


def _one_match(winner_mu: float, sigma: float, beta: float, draw_probability: float) -> float:
    """Posterior mean of the winner of one decisive 1-vs-1 TrueSkill match between two new
    players (Herbrich et al. 2006): mu + sigma^2 / c * v(t / c, eps / c), c^2 = 2 beta^2 +
    2 sigma^2, draw margin eps = Phi^-1((p + 1) / 2) * sqrt(2) * beta."""
    n = NormalDist()
    c = math.sqrt(2 * beta ** 2 + 2 * sigma ** 2)
    eps = n.inv_cdf((draw_probability + 1) / 2) * math.sqrt(2) * beta
    t = 0.0  # equal means
    v = n.pdf(t / c - eps / c) / n.cdf(t / c - eps / c)
    return winner_mu + sigma ** 2 / c * v


def test_trueskill_uses_gec_metrics_environment() -> None:
    pytest.importorskip("trueskill")
    params = TrueSkillParams()
    actual = (params.mu, params.sigma, params.beta, params.tau, params.draw_probability)
    assert actual == (0.0, 0.5, 0.25, 0.0, 0.25)  # gec_metrics/metrics/base.py run_trueskill
    got = aggregate_sentence_scores({"A": [1.0], "B": [0.0]}, ["A", "B"])
    # the trueskill package approximates the normal CDF, hence 1e-6
    assert got["A"] == pytest.approx(_one_match(0.0, 0.5, 0.25, 0.25), abs=1e-6)
    assert got["B"] == pytest.approx(-got["A"], abs=1e-12)
    # equal sentence scores are a draw: two new players stay at mu = 0
    draw = aggregate_sentence_scores({"A": [1.0], "B": [1.0]}, ["A", "B"])
    assert draw == pytest.approx({"A": 0.0, "B": 0.0}, abs=1e-12)


def test_trueskill_depends_on_the_system_order() -> None:
    pytest.importorskip("trueskill")
    first = aggregate_sentence_scores(SCORES, ["A", "B", "C"])
    assert first == aggregate_sentence_scores(SCORES, ["A", "B", "C"])
    assert first != pytest.approx(aggregate_sentence_scores(SCORES, ["C", "B", "A"]), abs=1e-9)
    # the updates weigh late comparisons more: C beat A in the last sentence and ends above
    # A, although A has the better record (Expected Wins: A .75, C .5)
    assert first["C"] > first["A"] > first["B"]


def test_aggregation_errors() -> None:
    assert AGGREGATIONS == ("default", "trueskill", "expected_wins")
    with pytest.raises(ConfigError, match="aggregation must be one of"):
        aggregate_sentence_scores(SCORES, None, "elo")
    with pytest.raises(ConfigError, match="default aggregation"):
        aggregate_sentence_scores(SCORES, None, "default")
    with pytest.raises(ConfigError, match="no sentence scores for system"):
        aggregate_sentence_scores(SCORES, ["A", "Z"], "expected_wins")


def _result(name: str, values: list[float] | None) -> SystemResult:
    from gecscope.metrics.base import Score

    return SystemResult(name, "toy", Score("toy", 0.0), [], values)


def test_system_scores_aggregation_and_level() -> None:
    results = {s: _result(s, v) for s, v in SCORES.items()}
    ew = system_scores(results, aggregation="expected_wins")
    assert ew == pytest.approx({"A": 0.75, "B": 0.25, "C": 0.5}, abs=1e-15)
    assert system_scores(results, "sentence") == pytest.approx({"A": 2.5, "B": 1.5, "C": 2.0})
    with pytest.raises(ConfigError, match="default aggregation only"):
        system_scores(results, "sentence", "trueskill")
    with pytest.raises(ConfigError, match="no sentence-level scores"):
        system_scores({"A": _result("A", None), "B": _result("B", None)},
                      aggregation="expected_wins")


# -- live comparison with gec-metrics 0.1.1 --------------------------------------------------

#: Builds the data layout gec-metrics' meta-evaluation globs for (``meta_eval_data/SEEDA/...``,
#: ``meta_eval_data/conll14/...``, ``meta_eval_data/GJG15/judgments.xml``) in a temporary
#: folder the way its prepare_meta_eval.sh does (references with gecommon, SEEDA's subset
#: references with its gen_subset), changes into it and runs its meta-evaluation classes. The
#: CoNLL-2014 submissions are copied with each line stripped: gec-metrics keeps the leading
#: space of three NTHU lines (a '' token for GREEN), gecscope reads whitespace-separated tokens.
#: ``PAYLOAD[bench]`` = [metric, k]: system level on the first k sentences (0: all; a sample
#: keeps the test fast), sentence level always on every judged sentence.
REFERENCE = r"""
import os, sys, time
from pathlib import Path
from gecommon import Parallel

P = PAYLOAD
tmp = Path(P["tmp"])
root = tmp / "meta_eval_data"
seeda = root / "SEEDA"
(seeda / "outputs" / "subset").mkdir(parents=True)
for f in Path(P["seeda"], "outputs", "subset").iterdir():
    (seeda / "outputs" / "subset" / f.name).symlink_to(f)
for d in ("data", "scores"):
    (seeda / d).symlink_to(Path(P["seeda"], d))
(seeda / "outputs" / "all").symlink_to(Path(P["seeda"], "outputs", "all"))
conll = root / "conll14"
(conll / "official_submissions").mkdir(parents=True)
for f in Path(P["submissions"]).iterdir():
    lines = f.read_bytes().decode("utf-8").splitlines()
    (conll / "official_submissions" / f.name).write_text("\n".join(ln.strip() for ln in lines))
sources = [ln[2:] for ln in open(P["m2"]).read().split("\n") if ln.startswith("S ")]
(conll / "official_submissions" / "INPUT").write_text("\n".join(sources))
from gec_metrics.cli import gen_subset
for k in (0, 1):
    (conll / f"REF{k}").write_text("\n".join(Parallel.from_m2(P["m2"], ref_id=k).trgs))
    sys.argv = ["gen_subset", "--src_full", str(seeda / "outputs/all/INPUT.txt"),
                "--src_subset", str(seeda / "outputs/subset/INPUT.txt"),
                "--input", str(conll / f"REF{k}"),
                "--out", str(seeda / f"outputs/subset/REF{k}.txt")]
    gen_subset.main()
(root / "GJG15").mkdir()
(root / "GJG15" / "judgments.xml").symlink_to(Path(P["gjg15"], "judgments.xml"))
os.chdir(tmp)

clock = time.process_time()
from gec_metrics.metrics import GREEN, MetricBaseForReferenceFree
from gec_metrics.meta_eval import MetaEvalGJG, MetaEvalSEEDA


class Length(MetricBaseForReferenceFree):
    # gec-metrics' own toy metric (meta_eval/gjg_test.py): characters of the hypothesis
    def score_sentence(self, sources, hypotheses):
        return [len(h) for h in hypotheses]


METRICS = {"green": lambda: GREEN(GREEN.Config()), "charlen": lambda: Length(Length.Config())}
out = {"cpu": {"import": time.process_time() - clock}}


def run(meta, metric, k, seeda):
    data = meta.system_data
    if k:
        data["sources"] = data["sources"][:k]
        data["hypotheses"] = [h[:k] for h in data["hypotheses"]]
        data["references"] = [r[:k] for r in data["references"]]
    tables = []
    score_pairwise = metric.score_pairwise

    def recording(*args, **kwargs):
        # keep the pairwise outcomes rank_systems rates
        tables.append(score_pairwise(*args, **kwargs))
        return tables[-1]

    metric.score_pairwise = recording
    default = meta.corr_system(metric)
    ts = meta.corr_system(metric, aggregation="trueskill")
    metric.score_pairwise = score_pairwise
    sent = meta.corr_sentence(metric)
    pairwise = tables[0]
    n = len(data["models"])
    keys = {k: (k if seeda else k.upper()) for k in meta.SCORE_ID}
    first = getattr(ts, meta.SCORE_ID[0].lower())
    levels = {"sent": sent.sent, "edit": sent.edit} if seeda else {"rank": sent.corr}
    return {
        "models": data["models"],
        "default_scores": getattr(default, meta.SCORE_ID[0].lower()).metric_scores,
        "default_corr": {ours: [getattr(default, k.lower()).pearson,
                                getattr(default, k.lower()).spearman]
                         for k, ours in keys.items()},
        "scores": first.metric_scores,
        "corr": {ours: [getattr(ts, k.lower()).pearson, getattr(ts, k.lower()).spearman]
                 for k, ours in keys.items()},
        "wins": [[sum(p[i][j] == 1 for p in pairwise) for j in range(n)] for i in range(n)],
        "sentence": {level: [c.accuracy, c.kendall] for level, c in levels.items()},
    }


if P.get("seeda_bench"):
    name, k = P["seeda_bench"]
    out["seeda"] = run(MetaEvalSEEDA(MetaEvalSEEDA.Config(system="base")), METRICS[name](), k,
                       True)
    out["cpu"]["seeda"] = time.process_time() - clock
if P.get("gjg_bench"):
    name, k = P["gjg_bench"]
    out["gjg"] = run(MetaEvalGJG(), METRICS[name](), k, False)
out["cpu"]["total"] = time.process_time() - clock
print(json.dumps(out))
"""


def gec_metrics_meta_eval(shared: Path, tmp: Path, *, seeda: tuple[str, int] | None = None,
                          gjg: tuple[str, int] | None = None) -> Any:
    """gec-metrics' meta-evaluation numbers (see :data:`REFERENCE`): ``seeda``/``gjg`` =
    (metric, k), metric ``green`` or the toy ``charlen``, system level on the first k sentences
    (0: all)."""
    from gec_metrics_ref import run_gec_metrics

    conll = shared / "conll14"
    return run_gec_metrics(REFERENCE, {
        "tmp": str(tmp), "seeda": str(shared / "seeda"), "gjg15": str(shared / "gjg15"),
        "submissions": str(conll / "submissions"),
        "m2": str(conll / "official-2014.combined.m2"), "seeda_bench": seeda, "gjg_bench": gjg},
        timeout=3600)


def gecscope_meta_eval(bench: Benchmark, metric: Metric, k: int = 0) -> dict[str, Any]:
    """The numbers :data:`REFERENCE` reads from gec-metrics, computed by gecscope's runner, in
    gec-metrics' system order: system level (corpus scores and TrueSkill over the sentence
    comparisons) on the first ``k`` sentences (0: all), sentence level with SEEDA's tie rule."""
    systems = bench.ordered(bench.select(None))
    full = evaluate_systems(metric, bench, systems)
    results = full
    if k:
        results = {s: SystemResult(s, r.metric, metric.aggregate(r.stats[:k]), r.stats[:k],
                                   (r.sentence_scores or [])[:k]) for s, r in full.items()}
    corpus = system_scores(results, "corpus")
    default = system_correlations(bench, corpus, systems)
    ts = system_scores(results, aggregation="trueskill", systems=systems)
    corr = system_correlations(bench, ts, systems)
    ew = system_scores(results, aggregation="expected_wins", systems=systems)
    counts = pairwise_counts(sentence_comparisons(sentence_score_table(results), systems))
    agreement = sentence_correlations(bench, sentence_score_table(full), systems,
                                      ties="first-loses")
    return {
        "models": list(systems),
        "default_scores": [corpus[s] for s in systems],
        "default_corr": {key: [c.pearson, c.spearman] for key, c in default.items()},
        "scores": [ts[s] for s in systems],
        "corr": {key: [c.pearson, c.spearman] for key, c in corr.items()},
        "wins": [[counts.won(a, b) for b in systems] for a in systems],
        "sentence": {level: [a.accuracy, a.kendall] for level, a in agreement.items()},
        "expected_wins": [ew[s] for s in systems],  # gecscope only (not in gec-metrics 0.1.1)
    }


def differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Where gecscope's numbers differ from gec-metrics': system order, win counts, TrueSkill
    scores and sentence-level accuracy/tau bit for bit (the same integer counts and the same
    float operations in the same order); corpus scores and correlations within 1e-12 (the
    summation order may differ)."""
    out = []
    for key in ("models", "wins", "scores", "sentence"):
        if ours[key] != theirs[key]:
            out.append(f"{key}: gecscope {ours[key]} != gec-metrics {theirs[key]}")
    pairs = [("default_scores", ours["default_scores"], theirs["default_scores"])]
    for part in ("default_corr", "corr"):
        if set(ours[part]) != set(theirs[part]):
            out.append(f"{part}: rankings {sorted(ours[part])} != {sorted(theirs[part])}")
            continue
        pairs += [(f"{part} {k}", ours[part][k], v) for k, v in theirs[part].items()]
    for label, a, b in pairs:
        if len(a) != len(b) or not all(_near(x, y) for x, y in zip(a, b, strict=True)):
            out.append(f"{label}: gecscope {a} != gec-metrics {b}")
    return out


def _near(x: float, y: float) -> bool:
    """Within 1e-12, or both undefined (nan: constant scores)."""
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-12


SEEDA_SAMPLE = 100  # SEEDA sentences of the system-level check in the test (all: benchmark)
GJG_SAMPLE = 60  # GJG15 sentences of the system-level check in the test


@pytest.fixture(scope="module")
def reference(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("scipy")
    pytest.importorskip("trueskill")
    return gec_metrics_meta_eval(shared_data, tmp_path_factory.mktemp("gec-metrics"),
                                 seeda=("green", SEEDA_SAMPLE), gjg=("charlen", GJG_SAMPLE))


@pytest.mark.slow
def test_seeda_green_equals_gec_metrics(shared_data: Path, reference: Any) -> None:
    """GREEN on SEEDA base: MetaEvalSEEDA.corr_system (default and TrueSkill aggregation) on
    the first SEEDA_SAMPLE sentences, corr_sentence on all 391."""
    bench = load_seeda(shared_data / "seeda",
                       shared_data / "conll14" / "official-2014.combined.m2")
    ours = gecscope_meta_eval(bench, GREENMetric(), SEEDA_SAMPLE)
    assert differences(ours, reference["seeda"]) == []
    wins = ours["wins"]
    # the sample has ties (equal outputs score the same), which TrueSkill rates as draws
    assert sum(map(sum, wins)) < 66 * SEEDA_SAMPLE
    # Expected Wins: gec-metrics 0.1.1 has none; the usual formula from gec-metrics' win
    # counts, sum_j wins(i, j) / (wins(i, j) + wins(j, i)) / (n - 1) (every pair is decided)
    n = len(wins)
    later = [sum(wins[i][j] / (wins[i][j] + wins[j][i]) for j in range(n) if j != i) / (n - 1)
             for i in range(n)]
    assert ours["expected_wins"] == pytest.approx(later, abs=1e-15)


@pytest.mark.slow
def test_gjg15_equals_gec_metrics(shared_data: Path, reference: Any) -> None:
    """gec-metrics' toy metric on GJG15 (integer scores, many ties: the tie rule in GJG15's
    Table 3 system order): MetaEvalGJG.corr_system on the first GJG_SAMPLE sentences,
    corr_sentence on every judged sentence."""
    bench = load_gjg15(shared_data / "gjg15", shared_data / "conll14" / "submissions")
    ours = gecscope_meta_eval(bench, CharLengthMetric(), GJG_SAMPLE)
    assert ours["models"] == list(GJG15_TABLE3_ORDER)
    assert differences(ours, reference["gjg"]) == []

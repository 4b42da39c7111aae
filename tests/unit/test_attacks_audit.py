"""The attack audit (gecscope.meta_eval.audit) and the rank ensemble (meta_eval.ensemble): the
ensemble's definition (Goto et al. 2025's code: negative ranks, ties share the best rank), its
resampled form, and audits on CoNLL-2014 (GJG15) with fast reference-based metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import ConfigError
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

"""MAEGE (#34 item 2): lattice and corpora equal borgr/EoE's, chains are monotone, metric ties
are not agreements, EoE's degenerate sampler vs the nested one, errors, JSON output.

EoE cannot run in CI (it needs its repository): the pinned values below were printed by EoE at
commit 68e8058 (``create_db.create_ranks`` / ``create_corpora`` after ``random.seed(1);
np.random.seed(1)`` as ``compare_measures.main`` does, Python 3.11, numpy 2.4; and
``utils.kendall_partial_order_from_seq`` on ``np.argsort`` of the scores), run on
``official-2014.combined-withalt.m2``."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError
from gecscope.formats.m2 import parse_m2, read_m2
from gecscope.meta_eval.maege import (
    References,
    build_lattice,
    chain_counts,
    run_maege,
    sample_corpora,
)
from gecscope.metrics.base import Metric, Score
from gecscope.types import Corpus, apply_edits

# EoE 68e8058, seed 1: sha256 of json.dumps([[sentence id, [[start, end, correction,
# annotator] of the chain's edits in order]] for every chain]) and of the corpora likewise
EOE_P1 = ((759, 1792, 7604, 1859),
          "bda2f9c3843c76d7e3970ff9277fb32399efd31ea8e37256a41a2c0b6a9943e7")
EOE_P11 = ((775, 10710, 58541, 1859),
           "ba70eee2cd01aa6e501fe139fb87ab4c61913d1a42c84a49c8765a96b13b1c11")
EOE_CORPORA = "dd880efa125987f313aee14fa16db1f15ee8dd3578290602a25cb4afd0280c53"
EOE_FIRST_CHAINS = [[9, [[3, 4, "diagnosed", 0], [4, 5, "", 0], [8, 9, "diseases", 0]]],
                    [9, [[6, 6, "a", 1], [12, 13, "supposed", 1], [3, 5, "diagnosed", 1]]],
                    [9, [[3, 4, "diagnosed", 2], [4, 5, "", 2], [12, 13, "supposed", 2],
                         [6, 6, "a", 2]]],
                    [11, [[12, 13, "frightening", 0], [11, 12, "having", 0],
                          [13, 14, "effects", 0]]]]


@pytest.fixture(scope="module")
def withalt(request: pytest.FixtureRequest) -> Corpus:
    path = request.getfixturevalue("conll14") / "official-2014.combined-withalt.m2"
    return read_m2(path)


def _canon(items: Sequence[tuple[int, int, Sequence]]) -> list:  # type: ignore[type-arg]
    return [[i, [[e.start, e.end, " ".join(e.correction), a] for e in edits]]
            for i, a, edits in items]


def _sha(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj).encode()).hexdigest()


@pytest.mark.parametrize(("p", "expected"), [(1, EOE_P1), (11, EOE_P11)])
def test_lattice_equals_eoe(withalt: Corpus, p: int, expected: tuple) -> None:  # type: ignore[type-arg]
    lat = build_lattice(withalt, max_permutations=p, seed=1)
    counts, digest = expected
    assert (len(lat.sentences), len(lat.chains), lat.n_nodes, lat.annotations) == counts
    chains = _canon([(c.sentence, c.annotator, c.edits) for c in lat.chains])
    if p == 1:
        assert chains[:4] == EOE_FIRST_CHAINS
    assert _sha(chains) == digest
    # another seed draws other orders over the same sentences
    other = build_lattice(withalt, max_permutations=p, seed=2)
    assert other.sentences == lat.sentences
    assert _sha(_canon([(c.sentence, c.annotator, c.edits) for c in other.chains])) != digest


def test_eoe_sampler_equals_eoe_and_is_degenerate(withalt: Corpus) -> None:
    co = sample_corpora(withalt, sampler="eoe", seed=1)
    assert len(co.corpora) == 11 and len(co.corpora[0]) == 831
    assert _sha([_canon([(cs.sentence, cs.annotator, cs.edits) for cs in c])
                 for c in co.corpora]) == EOE_CORPORA
    applied = co.mean_applied()
    # EoE's own corpora: the upper six apply 2.68-3.00 edits per sentence, not 5-10, and
    # corpus 8 fewer than corpus 7: their order is noise
    assert all(2.6 < a < 3.01 for a in applied[5:])
    assert applied[8] < applied[7]
    assert applied[2] == pytest.approx(1.4163658243080626)  # truncated binomial n, not 2


def test_nested_sampler_is_nested_and_linear(withalt: Corpus) -> None:
    co = sample_corpora(withalt, sampler="nested", seed=1)
    eoe = sample_corpora(withalt, sampler="eoe", seed=1)
    assert co.sentences == eoe.sentences  # the same sentences, another sampler
    for j in range(len(co.corpora[0])):
        seq = [c[j] for c in co.corpora]
        assert len({cs.annotator for cs in seq}) == 1
        assert seq[0].edits == ()
        full = withalt[seq[0].sentence].edits(seq[0].annotator)
        assert sorted(seq[-1].edits, key=repr) == sorted(full, key=repr)
        for a, b in itertools.pairwise(seq):
            assert b.edits[:len(a.edits)] == a.edits  # every corpus extends the previous
    applied = co.mean_applied()
    assert all(y > x for x, y in itertools.pairwise(applied))
    total = applied[-1]
    for k, m in enumerate(applied):
        assert m == pytest.approx(k / 10 * total, abs=0.08)


def test_chains_are_monotone(withalt: Corpus) -> None:
    lat = build_lattice(withalt, seed=3)
    for ch in lat.chains:
        src = withalt[ch.sentence].source
        assert ch.node(src, 0) == src
        assert ch.node(src, ch.n_nodes - 1) == withalt[ch.sentence].reference(ch.annotator)
        assert sorted(ch.edits, key=repr) == sorted(withalt[ch.sentence].edits(ch.annotator),
                                                    key=repr)


def test_ties_are_not_agreement() -> None:
    const = chain_counts([0.3, 0.3, 0.3])
    assert (const.concordant, const.discordant, const.ties) == (0, 0, 3)
    assert const.tau == 0.0 and math.isnan(const.tau_b)
    assert const.eoe_tau == 1.0  # EoE's kendall_partial_order_from_seq gives 1.0
    a, b = chain_counts([0.1, 0.1, 0.3]), chain_counts([0.5, 0.2, 0.2, 0.9])
    c, d, t = (a.concordant + b.concordant, a.discordant + b.discordant, a.ties + b.ties)
    assert (c, d, t) == (5, 2, 2)
    # EoE on these two chains: 0.5555555555555556; ties as neither: 3/9
    assert 1 - 2 * d / (c + d + t) == pytest.approx(0.5555555555555556)
    assert (c - d) / (c + d + t) == pytest.approx(1 / 3)


class Constant(Metric[float]):
    """Scores every sentence 0.5 (a metric that cannot tell partial corrections apart)."""

    name = "constant"
    requires = frozenset({"sources"})

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[float]:
        return [0.5] * len(hyp.tokens)

    def aggregate(self, stats: Sequence[float]) -> Score:
        return Score(self.name, sum(stats) / len(stats) if stats else 0.0)

    def sentence_values(self, stats: Sequence[float]) -> list[float] | None:
        return list(stats)


@pytest.fixture(scope="module")
def small(withalt: Corpus) -> Corpus:
    return Corpus(withalt.sentences[:50], withalt.path)


def test_constant_metric_gets_no_agreement(small: Corpus) -> None:
    [r] = run_maege(small, [Constant()], n_samples=50)
    assert r.kendall.concordant == r.kendall.discordant == 0 and r.kendall.ties > 0
    assert r.tau.value == 0.0 and r.kendall.eoe_tau == 1.0
    assert math.isnan(r.spearman.value) and r.spearman.undefined == 50


def test_split_scores_equal_a_direct_evaluation(small: Corpus) -> None:
    from gecscope.meta_eval.benchmarks import single_reference
    from gecscope.metrics.m2 import M2Metric

    [r] = run_maege(small, [M2Metric()], refs=References("split", (1,)), lattice_annotators=[0],
                    n_samples=50)
    assert r.lattice["sentences"] > 5 and r.references.startswith("split")
    # the top corpus is annotator 0's full correction of the eligible sentences that
    # annotator 1 annotated: score it directly against annotator 1's edits alone
    co = sample_corpora(small, annotators=[0])
    keep = [cs.sentence for cs in co.corpora[-1] if 1 in small[cs.sentence].annotators]
    gold = single_reference(Corpus(tuple(small[i] for i in keep), small.path), 1)
    hyp = [" ".join(small[i].reference(0)) for i in keep]
    direct = M2Metric().corpus_score(hyp, EvalData.from_m2(gold)).value
    assert r.corpus_scores[-1] == pytest.approx(direct, abs=1e-12)
    assert r.corpus_scores[0] == 0.0 and r.spearman.value > 0.9
    lo, hi = r.tau.low, r.tau.high
    assert lo <= r.tau.value <= hi


def test_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_edits = parse_m2("S A b .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
                        "S C d .\n", "plain.m2")
    with pytest.raises(FormatError, match="no edits"):
        build_lattice(no_edits)
    one = parse_m2("S A b .\nA 1 2|||Nn|||c|||REQUIRED|||-NONE-|||0\n\n", "one.m2")
    with pytest.raises(ConfigError, match="annotator 5 does not occur"):
        build_lattice(one, annotators=[5])
    with pytest.raises(ConfigError, match="sampler"):
        sample_corpora(one, sampler="binomial")
    path = tmp_path / "plain.m2"
    path.write_text("S A b .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    assert main(["meta-eval", "maege", "--m2", str(path), "-m", "m2"]) == 65
    assert "no edits" in capsys.readouterr().err
    path.write_text("S A b .\nA 1 2|||Nn|||c|||REQUIRED|||-NONE-|||0\n"
                    "A 0 1|||Nn|||D|||REQUIRED|||-NONE-|||1\n\n")
    assert main(["meta-eval", "maege", "--m2", str(path), "-m", "m2", "--refs", "split",
                 "--ref-annotators", "3"]) == 64
    assert "annotator 3 does not occur" in capsys.readouterr().err


def test_json_output(small: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.m2"
    from gecscope.formats.m2 import write_m2

    write_m2(path, small)
    assert main(["meta-eval", "maege", "--m2", str(path), "-m", "m2", "--bootstrap", "40",
                 "--sampler", "eoe", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["references"].startswith("leave-one-out")
    [m2] = out["results"]
    assert m2["metric"] == "m2"
    api = run_maege(read_m2(path), ["m2"], sampler="eoe", n_samples=40)[0].as_dict()
    assert m2 == api
    s = m2["sentence"]
    assert s["pairs"] == s["concordant"] + s["discordant"] + s["ties"] > 0
    assert s["tau"]["value"] == pytest.approx((s["concordant"] - s["discordant"]) / s["pairs"])
    assert m2["corpus"]["sampler"] == "eoe" and len(m2["corpus"]["scores"]) == 11
    assert set(m2["per_type"]["nucle"]) >= {"ArtOrDet", "Nn"}
    n_edits = sum(len(c.edits) for c in build_lattice(read_m2(path)).chains)
    assert sum(t["n"] for t in m2["per_type"]["nucle"].values()) == n_edits


def test_chain_nodes_apply_the_edits(withalt: Corpus) -> None:
    lat = build_lattice(withalt, seed=1)
    ch = lat.chains[0]
    src = withalt[ch.sentence].source
    assert " ".join(ch.node(src, 1)) == " ".join(apply_edits(src, ch.edits[:1]))
    assert " ".join(ch.node(src, 1)).startswith("When we are diagnosed out")


def test_given_references(small: Corpus, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.formats.m2 import write_m2

    # the sentences annotator 1 annotated (split drops the others: an annotator without
    # lines for a sentence changed nothing, and a no-change reference makes MAEGE unsound)
    small = Corpus(tuple(s for s in small if 1 in s.annotators), small.path)
    gold = tmp_path / "gold.m2"
    write_m2(gold, small)
    # plain-text references = annotator 1's corrections: the same figures as the split
    ref = tmp_path / "ref1.txt"
    ref.write_text("".join(" ".join(t) + "\n" for t in small.references(1)), encoding="utf-8")
    common = ["meta-eval", "maege", "--m2", str(gold), "-m", "green", "--bootstrap", "30",
              "--lattice-annotators", "0", "--format", "json"]
    assert main([*common, "--refs", "given", "--references", str(ref)]) == 0
    given = json.loads(capsys.readouterr().out)["results"][0]
    assert main([*common, "--refs", "split", "--ref-annotators", "1"]) == 0
    split = json.loads(capsys.readouterr().out)["results"][0]
    assert given["references"].startswith("given") and split["references"].startswith("split")
    for key in ("corpus", "sentence", "per_type"):
        assert given[key] == split[key]
    # tampered references: a line short, or the M2's sentences swapped, are refused
    ref.write_text("".join(" ".join(t) + "\n" for t in small.references(1)[:-1]))
    assert main([*common, "--refs", "given", "--references", str(ref)]) == 65
    assert f"expected one reference per sentence of the gold M2 ({len(small)})" in \
        capsys.readouterr().err
    swapped = list(small.sentences)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    write_m2(tmp_path / "swapped.m2", Corpus(tuple(swapped)))
    assert main([*common, "--refs", "given", "--references", str(tmp_path / "swapped.m2")]) == 64
    assert "sentence 4: the references' source differs" in capsys.readouterr().err


def test_text_output_and_seeded_intervals(small: Corpus, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from gecscope.formats.m2 import write_m2

    path = tmp_path / "small.m2"
    write_m2(path, small)
    args = ["meta-eval", "maege", "--m2", str(path), "-m", "m2", "--bootstrap", "30",
            "--corpus-bootstrap", "20"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "references: leave-one-out" in text and "(20 at corpus level)" in text
    assert "m2: mean score change per nucle type" in text
    assert main(args) == 0
    assert capsys.readouterr().out == text  # seeded: the same intervals again
    assert main([*args, "--bootstrap-seed", "7"]) == 0
    assert capsys.readouterr().out != text
    assert main([*args[:-1], "0"]) == 64
    assert "resamples must be positive, got 0" in capsys.readouterr().err


@pytest.mark.requires_spacy
def test_errant_types_of_gold_edits(small: Corpus) -> None:
    from gecscope.meta_eval.maege import errant_types

    lat = build_lattice(small)
    types = errant_types(small, lat.sentences)
    # sentence 9, annotator 0: "diagonosed" -> "diagnosed" (Mec), "out" deleted (Prep),
    # "disease" -> "diseases" (Nn); the types errant's own import_edit(..., min=False) gives
    # with the same spaCy model
    by_edit = {(i, a, " ".join(e.correction)): t for (i, a, e), t in types.items()}
    assert by_edit[(9, 0, "diagnosed")] == "R:SPELL"
    assert by_edit[(9, 0, "diseases")] == "R:NOUN:NUM"
    assert by_edit[(9, 0, "")] == "U:PART"
    n_edits = sum(len(small[i].edits(a)) for i in lat.sentences for a in small[i].annotators)
    assert len(types) == n_edits

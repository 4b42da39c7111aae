"""Lattice and the lattice-only methods on the paper's Figure 1 (Madnani et al., 2012).

The original and its eight Google round trips are typed from Figure 1; the expected Greedy and
1-best corrections are those of Figure 3(c).
"""

from __future__ import annotations

import itertools
import math

import pytest

from gecscope.rtt import methods as M
from gecscope.rtt.lattice import END, START, build_lattice
from gecscope.rtt.lm import ArpaLM
from gecscope.rtt.terp import TerpAligner, TerpConfig
from gecscope.rtt.tokenize import tokenize

ORIGINAL = "Both experience and books are very important about living."
ROUND_TRIPS = {
    "Swedish": "Both experience and books are very important in live.",
    "Italian": "Both books are very important experience and life.",
    "Russian": "And the experience, and a very important book about life.",
    "French": "Both experience and the books are very important in life.",
    "German": "Both experience and books are very important about life.",
    "Chinese": "Related to the life experiences and the books are very important.",
    "Spanish": "Both experience and the books are very important about life.",
    "Arabic": "Both experience and books are very important for life.",
}


def _wordnet_or_skip() -> None:
    from gecscope.errors import MissingDependencyError
    from gecscope.rtt.wordnet import find_wordnet_dir

    try:
        find_wordnet_dir()
    except MissingDependencyError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def figure1():
    _wordnet_or_skip()
    aligner = TerpAligner()
    orig = tokenize(ORIGINAL)
    aligns = [aligner.align(orig, tokenize(rt)) for rt in ROUND_TRIPS.values()]
    return build_lattice(orig, aligns, list(ROUND_TRIPS))


def test_greedy_matches_figure_3c(figure1):
    assert " ".join(M.greedy(figure1)) == \
        "Both experience and books are very important about life ."


def test_one_best_matches_figure_3c(figure1):
    assert " ".join(M.one_best(figure1)) == \
        "Both experience and the books are very important about life ."


def test_lattice_merges_duplicates_and_sums_weights(figure1):
    lat = figure1
    words = {(n.word, n.kind) for n in lat.nodes}
    # "life" replaces "living" in six round trips: one node, not six.
    life = [n for n in lat.nodes if n.word == "life"]
    assert len(life) == 1
    actual = ("life", "synonym")
    assert actual in words
    # "the" inserted before "books" by French, Spanish and Chinese: one node.
    bb = lat.backbone
    the_before_books = [v for (u, v) in lat.edges if u == bb[2] and lat.nodes[v].word == "the"]
    assert len(the_before_books) == 1
    assert lat.edges[(bb[2], the_before_books[0])] == 3
    # backbone edge "and -> books": original + Swedish, Italian, German, Arabic
    assert lat.edges[(bb[2], bb[3])] == 5
    # "important -> about": original + Russian, German, Spanish
    assert lat.edges[(bb[6], bb[7])] == 4
    # 9 paths (original + 8 round trips) leave the start node
    assert sum(w for _, w in lat.out_edges(START)) == 9
    # every edge goes forward in the topological order (a DAG)
    pos = {v: k for k, v in enumerate(lat.topological_order())}
    assert all(pos[a] < pos[b] for a, b in lat.edges)


def _all_paths(lat):
    out = []

    def walk(v, path):
        if v == END:
            out.append(path)
            return
        for b, _ in lat.out_edges(v):
            walk(b, [*path, b])

    walk(START, [START])
    return out


def test_k_best_agrees_with_brute_force(figure1):
    lat = figure1
    paths = _all_paths(lat)
    weights = sorted((sum(lat.edges[(a, b)] for a, b in itertools.pairwise(p)) for p in paths),
                     reverse=True)
    got = [p.weight for p in M.k_best_paths(lat, 25)]
    assert got == pytest.approx(weights[:25])
    best = M.n_best(lat, 20)
    assert len({p.words for p in best}) == len(best) == 20
    assert best[0].words == M.one_best(lat)


ARPA = r"""
\data\
ngram 1=8
ngram 2=5

\1-grams:
-1.0 <s> -0.5
-1.0 </s>
-1.2 both -0.3
-1.5 experience -0.3
-0.8 and -0.3
-1.5 books -0.3
-1.1 life -0.3
-1.3 in -0.3

\2-grams:
-0.2 in life
-0.3 about life
-0.1 life </s>
-0.4 <s> both
-0.6 and books

\end\
"""


@pytest.fixture(scope="module")
def arpa_lm(tmp_path_factory):
    p = tmp_path_factory.mktemp("lm") / "tiny.arpa"
    p.write_text(ARPA.lstrip(), encoding="utf-8")
    return ArpaLM(p)


def test_lm_composition_is_the_best_path_of_the_product(figure1, arpa_lm):
    """Viterbi over (node, LM state) equals exhaustive search over all lattice paths."""
    lat = figure1
    logp = {}
    for v in range(len(lat.nodes)):
        succ = lat.out_edges(v)
        tot = sum(w for _, w in succ)
        for b, w in succ:
            logp[(v, b)] = math.log10(w / tot)
    best = max(_all_paths(lat), key=lambda p: sum(logp[e] for e in itertools.pairwise(p))
               + arpa_lm.score(lat.words(p)))
    assert M.lm_composition(lat, arpa_lm) == lat.words(best)


def test_reranking_methods_pick_from_the_n_best(figure1, arpa_lm):
    lat = figure1
    cands = M.n_best(lat, 20)
    lm_best = max(cands, key=lambda p: arpa_lm.score(p.words)).words
    assert M.lm_reranked(lat, arpa_lm) == lm_best
    prod_best = max(cands, key=lambda p: p.log10_prob + arpa_lm.score(p.words)).words
    assert M.product_reranked(lat, arpa_lm) == prod_best
    rts = [tokenize(r) for r in ROUND_TRIPS.values()]
    assert M.baseline_lm(tokenize(ORIGINAL), rts, arpa_lm) == \
        max(rts, key=arpa_lm.score)


def test_renderings(figure1):
    dot = figure1.to_dot("figure1")
    assert dot.startswith('digraph "figure1" {')
    assert dot.count(" -> ") == len(figure1.edges)
    assert 'label="life"' in dot
    text = figure1.to_text()
    assert text.splitlines()[1] == f"{len(figure1.nodes)} nodes, {len(figure1.edges)} edges, " \
                                   "8 round trips"


def test_without_synonyms_living_and_life_are_separate():
    orig = tokenize(ORIGINAL)
    aligner = TerpAligner(TerpConfig(use_synonyms=False))
    al = aligner.align(orig, tokenize(ROUND_TRIPS["German"]))
    actual = [o.code for o in al.ops]
    assert actual == ["M"] * 8 + ["S", "M"]


def test_method_names():
    assert M.canonical_method("G") == "greedy"
    assert M.canonical_method("1-best") == "one_best"
    assert M.canonical_method("lm_composition") == "lm_composition"
    from gecscope.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown correction method"):
        M.canonical_method("viterbi")


def test_corrector_api_and_casing(arpa_lm):
    _wordnet_or_skip()
    from gecscope.errors import ConfigError
    from gecscope.rtt.correct import CorrectorConfig, RoundTripCorrector

    corr = RoundTripCorrector(None, arpa_lm, CorrectorConfig(methods=("G", "1", "C")))
    assert corr.config.methods == ("greedy", "one_best", "lm_composition")
    res = corr.correct_from_round_trips(tokenize(ORIGINAL),
                                        {k: tokenize(v) for k, v in ROUND_TRIPS.items()})
    assert set(res.corrections) == {"greedy", "one_best", "lm_composition"}
    assert " ".join(res.corrections["greedy"]) == \
        "Both experience and books are very important about life ."
    assert res.alignments["Russian"].shifts == 1
    # "Has" begins its round trip but replaces "have" inside the sentence: lower-cased node;
    # a round trip that drops the first word does not leave the output lower-case.
    res = corr.correct_from_round_trips(
        ("She", "have", "two", "cat", "."),
        {"a": ("Has", "two", "cats", "."), "b": ("She", "has", "two", "cats", "."),
         "c": ("has", "two", "cats", ".")})
    assert res.corrections["one_best"] == ("She", "has", "two", "cats", ".")
    actual = [n.word for n in res.lattice.nodes if n.word.lower() == "has"]
    assert actual == ["has"]
    with pytest.raises(ConfigError, match="no translator"):
        corr.correct(["x"])
    with pytest.raises(ConfigError, match="at least one pivot"):
        CorrectorConfig(pivots=())

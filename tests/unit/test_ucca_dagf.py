"""DAG F-score between two annotations of the same tokens (hand-computed examples)."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError, FormatError
from gecscope.semantics.dagf import PRF, dag_f, dag_f_corpus, edge_keys, flatten_centers
from gecscope.semantics.graph import EvalGraph
from gecscope.semantics.ucca import Passage

G1 = "[H [A John] [P moved] [A [R to] [C Paris]]] [U .]"
G2 = "[H [A John] [P moved] [D [R to] [C Paris]]] [U .]"
G3 = "[H [A John] [P moved] [R to] [A Paris]] [U .]"


def P(text: str) -> Passage:
    return Passage.from_bracketed("t", text)


def prf(x: PRF) -> tuple[int, int, int, float, float, float]:
    return (x.matched, x.guessed, x.reference, x.precision, x.recall, x.f)


def test_identical_annotations_score_one() -> None:
    r = dag_f(P(G1), P(G1))
    assert prf(r.primary) == (6, 6, 6, 1.0, 1.0, 1.0)
    assert prf(r.labeled["remote"]) == (0, 0, 0, 1.0, 1.0, 1.0)


def test_label_change_counts_only_in_labelled() -> None:
    # 6 primary edges each (H, A, P, A/D, R, C; punctuation U is not counted); one label differs
    r = dag_f(P(G2), P(G1))
    assert prf(r.primary) == pytest.approx((5, 6, 6, 5 / 6, 5 / 6, 5 / 6))
    assert prf(r.unlabeled["primary"]) == pytest.approx((6, 6, 6, 1.0, 1.0, 1.0))


def test_flatter_structure_precision_and_recall() -> None:
    # G3 has 5 edges (H, A, P, R, A); 4 match G1 (A{Paris} vs C{Paris} differs in label)
    r = dag_f(P(G3), P(G1))
    assert prf(r.primary) == pytest.approx((4, 5, 6, 0.8, 4 / 6, 2 * 0.8 * (4 / 6) / (0.8 + 4 / 6)))
    assert prf(r.unlabeled["primary"]) == pytest.approx((5, 5, 6, 1.0, 5 / 6, 10 / 11))
    # swapping the arguments swaps precision and recall
    s = dag_f(P(G1), P(G3))
    actual = (s.primary.precision, s.primary.recall)
    assert actual == pytest.approx((4 / 6, 0.8))


def test_remote_edges_are_keyed_by_parent_and_child_yield() -> None:
    a, b, c = P(G1), P(G1), P(G1)
    a.add_edge("1.5", "1.3", "A", remote=True)
    b.add_edge("1.5", "1.3", "A", remote=True)
    c.add_edge("1.2", "1.3", "A", remote=True)  # same child, other parent
    assert prf(dag_f(a, b).labeled["remote"]) == (1, 1, 1, 1.0, 1.0, 1.0)
    assert prf(dag_f(a, c).labeled["remote"]) == (0, 1, 1, 0.0, 0.0, 0.0)
    # remote edges do not change yields: the primary score is untouched
    assert prf(dag_f(a, c).primary) == (6, 6, 6, 1.0, 1.0, 1.0)
    assert dag_f(a, c).total().guessed == 7


def test_implicit_units_are_keyed_by_parent_yield() -> None:
    with_implicit = P("[H [A John] [P moved] [A [R to] [C Paris]] [D IMPLICIT]] [U .]")
    r = dag_f(with_implicit, P(G1))
    assert prf(r.labeled["implicit"]) == (0, 1, 0, 0.0, 1.0, 0.0)
    assert prf(dag_f(with_implicit, with_implicit).labeled["implicit"]) == (1, 1, 1, 1.0, 1.0,
                                                                             1.0)
    keys = edge_keys(EvalGraph(with_implicit))
    assert keys["implicit"] == {(frozenset({0, 1, 2, 3}), "D"): 1}


def test_duplicate_keys_are_a_multiset() -> None:
    # a unary chain: the unit "Paris" has the same yield as its parent, and the same label
    a = P("[H [A John] [P moved] [A [A Paris]]]")
    b = P("[H [A John] [P moved] [A Paris]]")
    r = dag_f(a, b)
    assert prf(r.primary) == pytest.approx((4, 5, 4, 0.8, 1.0, 8 / 9))


def test_punctuation_can_be_included() -> None:
    a = P("[H [A John] [P moved]] [U .]")
    b = P("[H [A John] [P moved] [U .]]")
    assert dag_f(a, b).primary.f == 1.0
    # counting punctuation in yields, the H units differ ({John moved} vs {John moved .})
    assert prf(dag_f(a, b, include_punct=True).primary) == pytest.approx(
        (2, 3, 3, 2 / 3, 2 / 3, 2 / 3))


def test_micro_average_sums_counts() -> None:
    total = dag_f_corpus([(P(G3), P(G1)), (P(G3), P(G1)), (P(G1), P(G1))])
    assert prf(total.primary) == pytest.approx((14, 16, 18, 14 / 16, 14 / 18,
                                                2 * 14 / (16 + 18)))


def test_different_tokens_are_refused() -> None:
    with pytest.raises(FormatError, match="do not share their tokens"):
        dag_f(P(G1), P("[H [A Mary] [P moved]]"))


def test_empty_graphs() -> None:
    assert prf(PRF()) == (0, 0, 0, 1.0, 1.0, 1.0)
    assert prf(PRF(0, 3, 0)) == (0, 3, 0, 0.0, 1.0, 0.0)


# --- the UCCA evaluation tool's conventions (counting="yields", flatten, weak labels) -------

def test_yield_counting_counts_distinct_yields_with_intersecting_labels() -> None:
    # G4 has two edges with the yield {Paris} (A over C); as edges they are a multiset of
    # two keys, as yields one key whose label set {A, C} meets G1's {C}
    g4 = "[H [A John] [P moved] [R to] [A [C Paris]]] [U .]"
    edges = dag_f(P(g4), P(G1))
    assert prf(edges.primary) == pytest.approx((5, 6, 6, 5 / 6, 5 / 6, 5 / 6))
    ys = dag_f(P(g4), P(G1), counting="yields")
    # yields: G4 {all}, {John}, {moved}, {to}, {Paris}; G1 adds {to Paris}
    assert prf(ys.primary) == pytest.approx((5, 5, 6, 1.0, 5 / 6, 10 / 11))
    assert prf(ys.unlabeled["primary"]) == pytest.approx((5, 5, 6, 1.0, 5 / 6, 10 / 11))


def test_weak_labels_match_equivalent_pairs() -> None:
    g5 = "[H [A John] [S moved] [A [F to] [C Paris]]] [U .]"
    assert dag_f(P(g5), P(G1), counting="yields").primary.matched == 4
    assert dag_f(P(g5), P(G1), counting="yields", equivalents=True).primary.matched == 6
    assert dag_f(P(g5), P(G1), counting="yields",
                 equivalents=[("F", "R")]).primary.matched == 5
    with pytest.raises(ConfigError):
        dag_f(P(g5), P(G1), equivalents=True)  # edge counting has no equivalences
    with pytest.raises(ConfigError):
        dag_f(P(g5), P(G1), counting="units")


def test_flatten_centers_removes_a_center_wrapping_one_center() -> None:
    nested = P("[H [A [E the] [C [C dog]]] [P barked]]")
    flat = flatten_centers(nested)
    assert nested.units.keys() - flat.units.keys() == {"1.5"}  # the outer C {dog}
    actual = [(e.tag, e.child) for e in flat.units["1.3"].edges]
    assert actual == [("E", "1.4"), ("C", "1.6")]
    assert flat.tokens == nested.tokens
    assert len(nested.units) == 7  # the original is not modified
    # the nested C no longer costs a missing edge against the flat annotation
    simple = P("[H [A [E the] [C dog]] [P barked]]")
    assert prf(dag_f(nested, simple).primary) == pytest.approx((5, 6, 5, 5 / 6, 1.0, 10 / 11))
    assert prf(dag_f(nested, simple, flatten=True).primary) == (5, 5, 5, 1.0, 1.0, 1.0)
    # two Centers under the parent: nothing is flattened
    two = P("[H [A [C [C dog]] [C cat]] [P barked]]")
    assert flatten_centers(two).units.keys() == two.units.keys()

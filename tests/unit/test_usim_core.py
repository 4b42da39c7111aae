"""USIM core: normalisation, leaf alignment, unit alignment (paper w and F1), P/R/F, DISTSIM."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError
from gecscope.metrics.usim import usim
from gecscope.metrics.usim.core import (
    USimGraph,
    USimOptions,
    align_leaves,
    common_sentence_ends,
    distsim,
    normalize_text,
    normalize_token,
    sentence_ends,
    usim_passages,
)
from gecscope.semantics.ucca import Passage, Unit

# A paper-Figure-1-like pair: the correction turns the recipient into a prepositional phrase.
SOURCE = "[H [A John] [P gave] [A Mary] [A [E a] [C book]]] [U .]"
CORRECTION = "[H [A John] [P gave] [A [E a] [C book]] [A [R to] [C Mary]]] [U .]"


def P(text: str) -> Passage:
    return Passage.from_bracketed("t", text)


def triple(d: object) -> tuple[float, float, float]:
    return (d.precision, d.recall, d.f)  # type: ignore[attr-defined]


def test_normalisation() -> None:
    actual = [normalize_token(t) for t in ["Genes.", "'s", ",", "Don't", "e.g."]]
    assert actual == [
        "genes", "s", "", "dont", "eg"]
    assert normalize_text("The U.S. army, e.g. THIS one!") == "the us army eg this one"
    assert normalize_text("I have  a dog .") == "i have a dog"


def test_leaf_alignment_edit_distance_and_position() -> None:
    o = USimOptions()
    s = USimGraph(P("[H [A I] [P has] [A [E a] [C apple]]] [U .]"), o)
    c = USimGraph(P("[H [A I] [P have] [A [E an] [C apple]]] [U .]"), o)
    assert align_leaves(s, c) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    # equal words are matched in order of position; the extra "the" stays unaligned
    s = USimGraph(P("[H [A the] [A the] [P x]]"), o)
    c = USimGraph(P("[H [A the] [A the] [A the] [P x]]"), o)
    assert align_leaves(s, c) == [(0, 0), (1, 1), (2, 3)]


def test_paper_weight_reproduces_hand_computation() -> None:
    r = usim_passages(P(SOURCE), P(CORRECTION), details=True)
    # s->c: w(v,u) = overlap/|yield(u)| sends the source H unit to the correction's
    # "a book" unit (w = 1) rather than its H unit (w = 5/6), and "Mary" to C{Mary}:
    # 5 of 7 source edges and 5 of 9 correction edges match.
    assert triple(r.s2c) == pytest.approx((5 / 9, 5 / 7, 0.625))
    # c->s: precision 7/9, recall 7/7, as in the paper's Figure 1
    assert triple(r.c2s) == pytest.approx((7 / 9, 1.0, 0.875))
    assert r.average == pytest.approx(0.75)
    assert r.unit_alignment_s2c["1.2"] == "1.5"  # H -> the "a book" unit
    assert r.leaf_alignment == [(0, 0), (1, 1), (2, 5), (3, 2), (4, 3)]


def test_f1_weight_aligns_whole_scenes() -> None:
    r = usim_passages(P(SOURCE), P(CORRECTION), USimOptions(node_weight="f1"))
    assert triple(r.s2c) == pytest.approx((6 / 9, 6 / 7, 0.75))
    assert triple(r.c2s) == pytest.approx((7 / 9, 1.0, 0.875))


def test_functional_api_and_identity() -> None:
    r = usim(P(SOURCE), P(SOURCE))
    actual = [triple(r.s2c), triple(r.c2s), r.average]
    assert actual == [(1.0, 1.0, 1.0), (1.0, 1.0, 1.0), 1.0]
    r = usim(P(SOURCE), P(CORRECTION), node_weight="f1")
    d = r.as_dict()
    assert d["s2c"] == pytest.approx({"precision": 6 / 9, "recall": 6 / 7, "f": 0.75})
    assert d["c2s"] == pytest.approx({"precision": 7 / 9, "recall": 1.0, "f": 0.875})
    assert d["average"] == pytest.approx(0.8125)


def test_label_compatibility_breaks_ties() -> None:
    # in the correction "Mary" is a unary chain A -> C: both units have the same yield
    s = P("[H [A John] [P saw] [A Mary]]")
    c = P("[H [A John] [P saw] [A [C Mary]]]")
    r = usim_passages(s, c, details=True)
    assert r.unit_alignment_s2c["1.5"] == "1.5"  # the A unit, not its C child
    assert triple(r.s2c) == pytest.approx((4 / 5, 1.0, 8 / 9))


def test_min_yield_and_remote_options() -> None:
    s, c = P(SOURCE), P(CORRECTION)
    r = usim_passages(s, c, USimOptions(node_weight="f1", min_yield=2))
    # only H and "a book" (source), H, "a book", "to Mary" (correction) are counted
    assert triple(r.s2c) == pytest.approx((2 / 3, 1.0, 0.8))
    s.add_edge("1.5", "1.3", "A", remote=True)  # source "Mary" unit gets a remote A to John
    with_remote = usim_passages(s, c, USimOptions(node_weight="f1"))
    without = usim_passages(s, c, USimOptions(node_weight="f1", include_remote=False))
    actual = (with_remote.s2c.source_edges, without.s2c.source_edges)
    assert actual == (8, 7)
    assert with_remote.s2c.source_matched == 7  # the remote A into John finds an A edge


def test_tool_node_counting() -> None:
    # units of 2+ tokens: source H, "a book"; correction H, "a book", "to Mary". s->c aligns
    # both source units to same-label units (recall 1); c->s sends "to Mary" (A) to the
    # source H (overlap F1 2/7), so 2 of 3 correction units match (precision 2/3).
    r = usim_passages(P(SOURCE), P(CORRECTION), USimOptions.tool())
    actual = (r.s2c.source_matched, r.s2c.source_edges)
    assert actual == (2, 2)
    actual = (r.c2s.correction_matched, r.c2s.correction_edges)
    assert actual == (2, 3)
    assert r.tool_f == pytest.approx(0.8)


def test_max_leaf_distance_drops_unrelated_words() -> None:
    s, c = P("[H [A John] [P ran]]"), P("[H [A Mary] [P ran]]")
    assert usim_passages(s, c).average == 1.0  # forced alignment John-Mary
    r = usim_passages(s, c, USimOptions(max_leaf_distance=0.5))
    assert triple(r.s2c) == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_empty_graphs() -> None:
    empty = Passage.from_tokens("e", [])
    assert usim_passages(empty, empty).average == 1.0
    assert usim_passages(empty, P(SOURCE)).average == 0.0
    assert usim_passages(P(SOURCE), empty).average == 0.0


def test_distsim() -> None:
    s = P("[H [A John] [P moved]]")
    c = P("[H [A John] [P moved] [D quickly]] [L and] [H [P stopped]]")
    assert distsim([(s, c), (s, s)]) == pytest.approx({"A+D": 0.5, "Scene": 0.5})
    assert distsim([(s, c)], labels=("A", "D", "H", "L")) == pytest.approx(
        {"A": 0.0, "D": 1.0, "H": 1.0, "L": 1.0})
    assert distsim([]) == {"A+D": 0.0, "Scene": 0.0}


@pytest.mark.parametrize("kwargs", [{"node_weight": "max"}, {"min_yield": 0},
                                    {"position_weight": -1.0}, {"max_leaf_distance": 2.0},
                                    {"counting": "units"}, {"units": "nodes"},
                                    {"label_classes": "coarse"}, {"sentence_split": "spacy"},
                                    {"word_form": "upper"}, {"tie_break": "random"}])
def test_invalid_options(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        USimOptions(**kwargs)  # type: ignore[arg-type]


# --- the USim tool's whole protocol (USimOptions.tool_exact) ---------------------------------

def test_sentence_ends() -> None:
    p = P("[H [A John] [P left.]] [H [A Mary] [P stayed]] [U .]")
    # "left." ends the first top-level scene; the final "." follows the second one
    assert sentence_ends(p, "tool") == [2, 5]
    assert sentence_ends(p, "exact") == [5]  # only a token that *is* "." counts
    inside = P("[H [A Dr.] [P left]]")  # "Dr." ends no scene: not a sentence end
    assert sentence_ends(inside, "tool") == [2]


def test_common_sentence_ends() -> None:
    s = P("[H [A John] [P left.]] [H [A Mary] [P stayed]] [U .]")
    c = P("[H [A John] [P left.]] [H [A Mary] [P stayed]] [L so] [U .]")
    # ends pair by their last word ("left"); the final ends ("." -> "stayed" vs "so") differ
    # but the passages' last tokens always close the last common sentence
    actual = (sentence_ends(s), sentence_ends(c))
    assert actual == ([2, 5], [2, 6])
    assert common_sentence_ends(s, [2, 5], c, [2, 6]) == ([2, 5], [2, 6])
    # when they agree, a final "." moves the end back to the word before it
    c = P("[H [A John] [P left.]] [H [A Mary] [P stayed]] [U !]")
    assert common_sentence_ends(s, [2, 5], c, [2, 5]) == ([2, 4], [2, 4])
    # an inserted sentence is merged into the next one
    s = P("[H [A A] [P b.]] [H [A C] [P d.]]")
    c = P("[H [A A] [P b.]] [H [A X] [P y.]] [H [A C] [P d.]]")
    assert common_sentence_ends(s, [2, 4], c, [2, 4, 6]) == ([2, 4], [2, 6])
    assert common_sentence_ends(s, [], c, [2]) == ([], [])


def test_tool_exact_units_and_label_classes() -> None:
    s = P("[H [A John] [S is happy] [A [R in] [C Paris]]] [U .]")
    c = P("[H [A John] [P feels happy] [A [F in] [C Paris]]] [U .]")
    g = USimGraph(s, USimOptions.tool_exact())
    # every non-root unit with 2+ terminals: H, "is happy", "in Paris" (not "John", "in")
    assert g.units == ["1.2", "1.4", "1.5"]
    exact = usim_passages(s, c, USimOptions.tool_exact(label_classes="exact"))
    actual = (exact.s2c.source_matched, exact.s2c.source_edges)
    assert actual == (2, 3)
    ucca = usim_passages(s, c, USimOptions.tool_exact())  # P=S under the UCCA equivalences
    actual = (ucca.s2c.source_matched, ucca.c2s.correction_matched, ucca.tool_f)
    assert actual == (3, 3, 1.0)


def test_tool_exact_counts_linkage_and_remote_labels() -> None:
    p = P("[H [A John] [P came home]] [L and] [H [A Mary] [P stayed out]]")
    # units: 1.2 H, 1.3 A John, 1.4 P came home, 1.5 L and, 1.6 H, 1.7 A Mary, 1.8 P
    p.units["1.9"] = Unit("1.9", "LKG")
    p.add_edge("1.9", "1.5", "LR")
    p.add_edge("1.9", "1.2", "LA")
    p.add_edge("1.9", "1.6", "LA")
    p.add_edge("1.6", "1.4", "A", remote=True)
    g = USimGraph(p, USimOptions.tool_exact())
    labels = {(g.units[int(u)], lbl) for u, lbl in zip(g.edge_child, g.edge_labels, strict=True)}
    assert labels == {("1.2", "H"), ("1.2", "LA"), ("1.4", "P"), ("1.4", "A"), ("1.6", "H"),
                      ("1.6", "LA"), ("1.8", "P")}
    assert USimGraph(p, USimOptions()).edge_labels.count("LA") == 0  # paper: not counted


def _random_passage(rng, n_tokens: int) -> Passage:
    """A random UCCA-like passage: nested units with random labels, unary chains of one label
    (the case that broke self-similarity), punctuation tokens and remote edges."""
    labels = ["H", "A", "P", "S", "D", "C", "E", "F", "R", "L"]
    tokens = [f"w{i}" for i in range(n_tokens)]
    punct = [rng.random() < 0.1 for _ in tokens]
    p = Passage.from_tokens("r", tokens, punct)
    units = ["1.1"]

    def build(parent: str, lo: int, hi: int, depth: int) -> None:
        if hi - lo == 1 or depth > 4 or rng.random() < 0.2:
            for k in range(lo, hi):
                p.add_terminal(parent, k + 1)
            return
        cuts = sorted(rng.sample(range(lo + 1, hi), min(hi - lo - 1, rng.randint(1, 3))))
        for a, b in zip([lo, *cuts], [*cuts, hi], strict=True):
            label = "U" if all(punct[a:b]) else rng.choice(labels)
            child = p.add_unit(parent, label, unit_type="PNCT" if label == "U" else "FN")
            units.append(child)
            if label != "U" and rng.random() < 0.3:  # a unary chain, often with one label
                child = p.add_unit(child, label if rng.random() < 0.7 else rng.choice(labels))
                units.append(child)
            build(child, a, b, depth + 1)

    build("1.1", 0, n_tokens, 0)
    for _ in range(rng.randint(0, 2)):
        a, b = rng.sample(units[1:], 2) if len(units) > 2 else (None, None)
        if a is not None and b is not None and a != b:
            p.add_edge(a, b, rng.choice(labels), remote=True)
    return p


@pytest.mark.parametrize("weight", ["paper", "f1"])
def test_usim_of_a_graph_with_itself_is_one(weight: str) -> None:
    import random

    rng = random.Random(7)
    opts = USimOptions(node_weight=weight)
    for _ in range(300):
        p = _random_passage(rng, rng.randint(1, 25))
        r = usim_passages(p, p, opts)
        scores = (r.s2c.f, r.c2s.f, r.average)
        assert scores == (1.0, 1.0, 1.0), p
    # a unary chain with one label on both levels: the case that gave 0.97 on a parsed graph
    chain = P("[H [A [A John]] [P left]] [U .]")
    assert usim_passages(chain, chain, opts).average == 1.0

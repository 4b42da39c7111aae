"""The six ways of reading a correction off the round trips (Madnani et al., 2012, section 3.2).

=====================  ======================================================================
``baseline_lm`` (B)    the round trip the language model scores highest
``greedy`` (G)         from the start node, follow the heaviest outgoing edge
``one_best`` (1)       the shortest path with edge cost = -weight (the paper's footnote 4),
                       i.e. the path of largest summed weight: O(V + E) on the DAG
``lm_reranked`` (L)    the n-best (n=20) lattice paths re-ranked by the language model
``product`` (P)        the same n-best list re-ranked by lattice probability times LM
                       probability (sum of the two log10 probabilities; see below)
``lm_composition`` (C) Viterbi search over (node, LM state) pairs: the lattice with edge
                       weights turned into probabilities (weight / total weight leaving the
                       node) composed with the n-gram model, best path of the product
=====================  ======================================================================

The paper leaves two details open; the choices made here are documented in docs/rtt.md:
"product of the cost ... and the language model score" is read as the product of the path's
lattice probability and its LM probability, both as probabilities (a product of a negative cost
and a negative log-probability would reward low-probability paths); LM scores are total log10
probabilities of the sentence with ``<s>``/``</s>``, as a plain n-gram model gives them.

The n-best list holds the best ``n`` *distinct* word sequences: the k-best DP keeps
``3 n`` paths per node (O(E k log k)) and duplicates spelled the same are dropped.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.rtt.lattice import END, START, Lattice
from gecscope.rtt.lm import BOS, EOS, LanguageModel
from gecscope.types import Tokens

METHODS = ("baseline_lm", "greedy", "one_best", "lm_reranked", "product", "lm_composition")
#: The paper's one-letter names.
METHOD_CODES = {"baseline_lm": "B", "greedy": "G", "one_best": "1", "lm_reranked": "L",
                "product": "P", "lm_composition": "C"}
LM_METHODS = frozenset({"baseline_lm", "lm_reranked", "product", "lm_composition"})
ALIASES = {"b": "baseline_lm", "baseline": "baseline_lm", "g": "greedy", "1": "one_best",
           "1best": "one_best", "1-best": "one_best", "l": "lm_reranked", "lm": "lm_reranked",
           "p": "product", "c": "lm_composition", "composition": "lm_composition"}


def canonical_method(name: str) -> str:
    """Map a method name or alias (``G``, ``1-best``...) to its canonical name."""
    key = name.strip().lower().replace("-", "_")
    if key in METHODS:
        return key
    key2 = name.strip().lower()
    if key2 in ALIASES:
        return ALIASES[key2]
    from gecscope.errors import ConfigError

    raise ConfigError(f"unknown correction method {name!r}; choose from {', '.join(METHODS)} "
                      "or 'all'")


def greedy(lat: Lattice) -> Tokens:
    """Heaviest outgoing edge at every node; ties go to the successor earliest in the
    topological order (the backbone before later alternatives)."""
    path = [START]
    v = START
    while v != END:
        succ = lat.out_edges(v)
        best_w = max(w for _, w in succ)
        v = next(b for b, w in succ if w == best_w)
        path.append(v)
    return lat.words(path)


def _edge_log10_probs(lat: Lattice) -> dict[tuple[int, int], float]:
    out: dict[tuple[int, int], float] = {}
    for v in range(len(lat.nodes)):
        succ = lat.out_edges(v)
        total = sum(w for _, w in succ)
        for b, w in succ:
            out[(v, b)] = math.log10(w / total)
    return out


@dataclass(frozen=True)
class ScoredPath:
    """A lattice path with its summed edge weight and log10 lattice probability."""

    words: Tokens
    nodes: tuple[int, ...]
    weight: float
    log10_prob: float


def k_best_paths(lat: Lattice, k: int) -> list[ScoredPath]:
    """The ``k`` paths of largest summed weight (shortest under cost = -weight), best first.

    Dynamic programming in topological order keeping the top ``k`` partial paths per node:
    O(E k log k).
    """
    inc = lat.in_edges()
    best: dict[int, list[tuple[float, int, int]]] = {START: [(0.0, -1, -1)]}
    for v in lat.topological_order():
        if v == START:
            continue
        cands = [(entries[r][0] + w, u, r)
                 for u, w in inc[v] if (entries := best.get(u))
                 for r in range(len(entries))]
        best[v] = heapq.nlargest(k, cands, key=lambda c: (c[0], -c[1], -c[2]))
    logp = _edge_log10_probs(lat)
    out = []
    for r in range(len(best.get(END, []))):
        nodes = [END]
        v, rank = END, r
        weight = best[END][r][0]
        while v != START:
            _, u, ur = best[v][rank]
            nodes.append(u)
            v, rank = u, ur
        nodes.reverse()
        lp = sum(logp[(a, b)] for a, b in itertools.pairwise(nodes))
        out.append(ScoredPath(lat.words(nodes), tuple(nodes), weight, lp))
    return out


def n_best(lat: Lattice, n: int = 20) -> list[ScoredPath]:
    """Up to ``n`` best paths spelling distinct sentences."""
    seen: set[Tokens] = set()
    out = []
    for p in k_best_paths(lat, 3 * n):
        if p.words not in seen:
            seen.add(p.words)
            out.append(p)
            if len(out) == n:
                break
    return out


def one_best(lat: Lattice) -> Tokens:
    """The path of largest summed weight (longest path in the DAG, O(V + E))."""
    return k_best_paths(lat, 1)[0].words


def baseline_lm(original: Sequence[str], round_trips: Sequence[Sequence[str]],
                lm: LanguageModel) -> Tokens:
    """The round trip the language model prefers (the original when there is none)."""
    if not round_trips:
        return tuple(original)
    scored = [(lm.score(rt), -k) for k, rt in enumerate(round_trips)]
    return tuple(round_trips[-max(scored)[1]])


def lm_reranked(lat: Lattice, lm: LanguageModel, n: int = 20) -> Tokens:
    """The n-best sentence with the highest LM log-probability (ties: lattice order)."""
    cands = n_best(lat, n)
    return max(enumerate(cands), key=lambda c: (lm.score(c[1].words), -c[0]))[1].words


def product_reranked(lat: Lattice, lm: LanguageModel, n: int = 20) -> Tokens:
    """The n-best sentence maximising lattice probability x LM probability."""
    cands = n_best(lat, n)
    return max(enumerate(cands),
               key=lambda c: (c[1].log10_prob + lm.score(c[1].words), -c[0]))[1].words


def lm_composition(lat: Lattice, lm: LanguageModel) -> Tokens:
    """Best path of the lattice (edge probabilities) composed with the n-gram model.

    Viterbi over (node, LM state) in topological order; a state is the model's last
    ``order - 1`` words, nodes whose word the model does not score (punctuation) keep the state.
    Cost O(E x S) for S states per node (S is bounded by the distinct histories reaching a node;
    for a trigram, by the pairs of words on paths into it).
    """
    logp = _edge_log10_probs(lat)
    start_state = lm.state((BOS,))
    # best[v][state] = (score, prev_node, prev_state)
    best: dict[int, dict[tuple[str, ...], tuple[float, int, tuple[str, ...]]]] = {
        START: {start_state: (0.0, -1, ())}}
    order = lat.topological_order()
    for u in order:
        states = best.get(u)
        if not states or u == END:
            continue
        for v, _w in lat.out_edges(u):
            lp_edge = logp[(u, v)]
            if v == END:
                toks: list[str] = []
            else:
                toks = lm.lm_tokens((lat.nodes[v].word,))
            dest = best.setdefault(v, {})
            for st, (score, _, _) in states.items():
                s = score + lp_edge
                new_st = st
                for t in toks:
                    s += lm.log10_prob(t, new_st)
                    new_st = lm.state(new_st + (t,))
                if v == END:
                    s += lm.log10_prob(EOS, st)
                    new_st = ()
                old = dest.get(new_st)
                if old is None or s > old[0]:
                    dest[new_st] = (s, u, st)
    # backtrack
    end_states = best[END]
    st = max(end_states, key=lambda s: end_states[s][0])
    nodes = [END]
    v = END
    while v != START:
        _, u, pst = best[v][st]
        nodes.append(u)
        v, st = u, pst
    nodes.reverse()
    return lat.words(nodes)

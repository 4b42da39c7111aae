"""DAG F-score between two UCCA annotations of the same tokens (Choshen & Abend 2018, sec. 3).

Two edges match when their children have the same yield and the edges the same label
(unlabelled: the same yield). Labelled precision is the number of matching edges over
``|E1|`` (the first, "guessed" graph), recall over ``|E2|`` (the second, reference graph), and
the DAG F-score their harmonic mean; on trees it is the usual parsing F-score.

As in the UCCA evaluation tools the edges are scored in separate groups: ``primary`` (keyed by
the child's yield), ``remote`` (keyed by the parent's and the child's yield: a remote edge is
a second parent of a unit, so its parent identifies it) and ``implicit`` (edges into implicit
units, keyed by the parent's yield). Edges are multisets: two edges with the same key in one
graph need two in the other. Counts add up over passages (micro-averaging).

The UCCA evaluation tool's conventions are options of :func:`dag_f`: ``counting="yields"``
(each distinct child yield once, matched when the label sets intersect), ``flatten=True``
(:func:`flatten_centers` first) and ``equivalents`` (its weak-labelled score).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.errors import ConfigError, FormatError
from gecscope.semantics.graph import EvalGraph
from gecscope.semantics.ucca import Passage
from gecscope.stats.prf import prf

KINDS = ("primary", "remote", "implicit")


@dataclass(frozen=True, slots=True)
class PRF:
    """Matched edges and the two totals, with precision, recall and F derived from them."""

    matched: int = 0
    guessed: int = 0
    reference: int = 0

    def __add__(self, other: PRF) -> PRF:
        return PRF(self.matched + other.matched, self.guessed + other.guessed,
                   self.reference + other.reference)

    def _prf(self) -> tuple[float, float, float]:
        return prf(self.matched, self.guessed - self.matched, self.reference - self.matched, 1.0)

    @property
    def precision(self) -> float:
        """Matched over guessed edges (1.0 when nothing was guessed: vacuously precise)."""
        return self._prf()[0]

    @property
    def recall(self) -> float:
        """Matched over reference edges (1.0 when the reference has none)."""
        return self._prf()[1]

    @property
    def f(self) -> float:
        return self._prf()[2]

    def as_dict(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f": self.f,
                "matched": self.matched, "guessed": self.guessed, "reference": self.reference}


@dataclass(frozen=True, slots=True)
class DagFResult:
    """Labelled and unlabelled counts per edge kind (``primary``, ``remote``, ``implicit``)."""

    labeled: dict[str, PRF]
    unlabeled: dict[str, PRF]

    def __add__(self, other: DagFResult) -> DagFResult:
        return DagFResult({k: self.labeled[k] + other.labeled[k] for k in KINDS},
                          {k: self.unlabeled[k] + other.unlabeled[k] for k in KINDS})

    @classmethod
    def zero(cls) -> DagFResult:
        return cls({k: PRF() for k in KINDS}, {k: PRF() for k in KINDS})

    @property
    def primary(self) -> PRF:
        """The headline: labelled primary edges (the paper's IAA DAG F-score)."""
        return self.labeled["primary"]

    def total(self, labeled: bool = True, kinds: Iterable[str] = KINDS) -> PRF:
        """Every kind in ``kinds`` pooled."""
        table = self.labeled if labeled else self.unlabeled
        out = PRF()
        for k in kinds:
            out = out + table[k]
        return out


def edge_keys(graph: EvalGraph, labeled: bool = True) -> dict[str, Counter[Hashable]]:
    """The multiset of edge keys of each kind (see the module docstring)."""
    y = graph.yields
    out: dict[str, Counter[Hashable]] = {k: Counter() for k in KINDS}
    for e in graph.edges:
        label = e.label if labeled else None
        if e.implicit:
            out["implicit"][(y[e.parent], label)] += 1
        elif not y[e.child]:
            continue  # a unit of punctuation only: nothing to compare it by
        elif e.remote:
            out["remote"][(y[e.parent], y[e.child], label)] += 1
        else:
            out["primary"][(y[e.child], label)] += 1
    return out


def _match(a: Counter[Hashable], b: Counter[Hashable]) -> PRF:
    return PRF(sum((a & b).values()), sum(a.values()), sum(b.values()))


#: Label pairs the UCCA evaluation tool treats as equivalent in its "weak labelled" score.
UCCA_EQUIVALENTS = (("P", "S"), ("H", "C"), ("N", "L"), ("F", "R"))


def _label_class(label: str, pairs: Sequence[tuple[str, str]] = UCCA_EQUIVALENTS) -> str:
    for pair in pairs:
        if label in pair:
            return pair[0]
    return label


def yield_tables(graph: EvalGraph, *, empty_yield: bool = True
                 ) -> dict[str, dict[frozenset[int], set[str]]]:
    """The UCCA evaluation tool's view: per kind, each distinct child yield -> its edge labels.

    Primary and implicit edges share the ``primary`` table (an implicit unit's yield is the
    empty set, a key like any other unless ``empty_yield=False``); remote edges are keyed by
    their child's yield alone.
    """
    out: dict[str, dict[frozenset[int], set[str]]] = {k: {} for k in KINDS}
    for e in graph.edges:
        y = graph.yields[e.child]
        if not y and not empty_yield:
            continue
        out["remote" if e.remote else "primary"].setdefault(y, set()).add(e.label)
    return out


def _match_yields(a: dict[frozenset[int], set[str]], b: dict[frozenset[int], set[str]],
                  labeled: bool, equivalents: Sequence[tuple[str, str]]) -> PRF:
    matched = 0
    for y, tags in a.items():
        other = b.get(y)
        if other is None:
            continue
        if not labeled:
            matched += 1
        elif equivalents:
            matched += bool({_label_class(t, equivalents) for t in tags}
                            & {_label_class(t, equivalents) for t in other})
        else:
            matched += bool(tags & other)
    return PRF(matched, len(a), len(b))


def flatten_centers(passage: Passage) -> Passage:
    """A copy of ``passage`` with the UCCA evaluation tool's normalisation of Centers in Centers.

    A Center unit with exactly one Center child, whose parent has exactly one Center child,
    is removed and its children attached to its parent with their labels (if the unit has
    other, remote, parents it is kept unless it has a single Center, which then takes over
    its remote incoming edges). The evaluation tool applies this to both passages before
    scoring; it changes only which units exist, never a token.
    """
    import copy

    p = copy.deepcopy(passage)
    units = p.units

    def incoming() -> dict[str, list]:
        acc: dict[str, list] = {}
        for u in units.values():
            for e in u.edges:
                acc.setdefault(e.child, []).append(e)
        return acc

    def ftag_parent(uid: str, inc: dict[str, list]) -> tuple[str | None, str | None]:
        for e in inc.get(uid, ()):
            if not e.remote:
                return e.tag, e.parent
        return None, None

    def center_children(uid: str, inc: dict[str, list]) -> list[str]:
        return [e.child for e in units[uid].edges
                if e.child in units and units[e.child].type == "FN"
                and ftag_parent(e.child, inc)[0] == "C"]

    inc = incoming()
    todo = []
    for uid, u in units.items():
        if u.type != "FN":
            continue
        tag, parent = ftag_parent(uid, inc)
        if tag != "C":
            continue
        if len(center_children(uid, inc)) == 1 and (
                parent is None or len(center_children(parent, inc)) == 1):
            todo.append(uid)
    for uid in todo:
        inc = incoming()
        if uid not in units:
            continue
        _, parent = ftag_parent(uid, inc)
        if parent is None:
            continue
        into = inc.get(uid, [])
        if len(into) > 1:
            centers = [e.child for e in units[uid].edges if e.tag == "C"]
            if len(centers) != 1:
                continue
            for e in into:
                if e.remote:
                    p.add_edge(e.parent, centers[0], e.tag, remote=True)
        for e in units[uid].edges:
            units[parent].edges.append(type(e)(parent, e.child, e.tag, dict(e.attrib),
                                               e.categories))
        for e in into:
            units[e.parent].edges.remove(e)
        del units[uid]
    return p


def _as_graph(x: Passage | EvalGraph, include_punct: bool) -> EvalGraph:
    return x if isinstance(x, EvalGraph) else EvalGraph(x, include_punct=include_punct)


COUNTINGS = ("edges", "yields")


def dag_f(guessed: Passage | EvalGraph, reference: Passage | EvalGraph, *,
          include_punct: bool = False, check_tokens: bool = True, counting: str = "edges",
          flatten: bool = False, empty_yield: bool = True,
          equivalents: bool | Sequence[tuple[str, str]] = False) -> DagFResult:
    """DAG F-score of ``guessed`` against ``reference`` (two annotations of the same tokens).

    ``counting="edges"`` (default) is the paper's definition: edges are a multiset of
    (child yield, label). ``counting="yields"`` is the UCCA evaluation tool's: each distinct
    child yield counts once and matches when the two label sets intersect (``empty_yield``:
    whether the empty yield of implicit units is a key; ``equivalents``: the tool's "weak
    labelled" score, P=S, H=C, N=L, F=R; or a sequence of label pairs). ``flatten=True`` first applies the tool's
    :func:`flatten_centers` to both passages. Raises :class:`FormatError` when the two passages
    do not have the same tokens (DAG F is only defined over a shared set of leaves; use USIM
    for different tokens).
    """
    if counting not in COUNTINGS:
        raise ConfigError(f"dag_f: counting must be one of {', '.join(COUNTINGS)}, "
                          f"got {counting!r}")
    if equivalents and counting != "yields":
        raise ConfigError("dag_f: label equivalents apply to counting='yields' (the UCCA "
                          "evaluation tool's weak-labelled score)")
    if flatten:
        guessed = flatten_centers(guessed.passage if isinstance(guessed, EvalGraph)
                                  else guessed)
        reference = flatten_centers(reference.passage if isinstance(reference, EvalGraph)
                                    else reference)
    g1 = _as_graph(guessed, include_punct)
    g2 = _as_graph(reference, include_punct)
    if check_tokens and g1.tokens != g2.tokens:
        n = next((i for i, (a, b) in enumerate(zip(g1.tokens, g2.tokens, strict=False))
                  if a != b), min(len(g1.tokens), len(g2.tokens)))
        raise FormatError(
            f"passages {g1.passage.id} and {g2.passage.id} do not share their tokens "
            f"({len(g1.tokens)} vs {len(g2.tokens)} tokens, first difference at token {n + 1}); "
            "DAG F compares two annotations of the same text", g1.passage.path)
    if counting == "yields":
        pairs: Sequence[tuple[str, str]] = (
            UCCA_EQUIVALENTS if equivalents is True else equivalents or ())
        t1, t2 = yield_tables(g1, empty_yield=empty_yield), yield_tables(g2,
                                                                         empty_yield=empty_yield)
        return DagFResult({k: _match_yields(t1[k], t2[k], True, pairs) for k in KINDS},
                          {k: _match_yields(t1[k], t2[k], False, ()) for k in KINDS})
    lab1, lab2 = edge_keys(g1, True), edge_keys(g2, True)
    unl1, unl2 = edge_keys(g1, False), edge_keys(g2, False)
    return DagFResult({k: _match(lab1[k], lab2[k]) for k in KINDS},
                      {k: _match(unl1[k], unl2[k]) for k in KINDS})


def dag_f_corpus(pairs: Iterable[tuple[Passage | EvalGraph, Passage | EvalGraph]], *,
                 include_punct: bool = False, **options: Any) -> DagFResult:
    """Micro-averaged DAG F over passage pairs (the counts are summed, then divided);
    ``options`` are :func:`dag_f`'s keyword arguments."""
    total = DagFResult.zero()
    for a, b in pairs:
        total = total + dag_f(a, b, include_punct=include_punct, **options)
    return total

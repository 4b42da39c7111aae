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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from gecscope.errors import FormatError
from gecscope.semantics.graph import EvalGraph
from gecscope.semantics.ucca import Passage

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

    @property
    def precision(self) -> float:
        """Matched over guessed edges (1.0 when nothing was guessed: vacuously precise)."""
        return self.matched / self.guessed if self.guessed else 1.0

    @property
    def recall(self) -> float:
        """Matched over reference edges (1.0 when the reference has none)."""
        return self.matched / self.reference if self.reference else 1.0

    @property
    def f(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

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


def _as_graph(x: Passage | EvalGraph, include_punct: bool) -> EvalGraph:
    return x if isinstance(x, EvalGraph) else EvalGraph(x, include_punct=include_punct)


def dag_f(guessed: Passage | EvalGraph, reference: Passage | EvalGraph, *,
          include_punct: bool = False, check_tokens: bool = True) -> DagFResult:
    """DAG F-score of ``guessed`` against ``reference`` (two annotations of the same tokens).

    Raises :class:`FormatError` when the two passages do not have the same tokens (DAG F is
    only defined over a shared set of leaves; use USIM for different tokens).
    """
    g1 = _as_graph(guessed, include_punct)
    g2 = _as_graph(reference, include_punct)
    if check_tokens and g1.tokens != g2.tokens:
        n = next((i for i, (a, b) in enumerate(zip(g1.tokens, g2.tokens, strict=False))
                  if a != b), min(len(g1.tokens), len(g2.tokens)))
        raise FormatError(
            f"passages {g1.passage.id} and {g2.passage.id} do not share their tokens "
            f"({len(g1.tokens)} vs {len(g2.tokens)} tokens, first difference at token {n + 1}); "
            "DAG F compares two annotations of the same text", g1.passage.path)
    lab1, lab2 = edge_keys(g1, True), edge_keys(g2, True)
    unl1, unl2 = edge_keys(g1, False), edge_keys(g2, False)
    return DagFResult({k: _match(lab1[k], lab2[k]) for k in KINDS},
                      {k: _match(unl1[k], unl2[k]) for k in KINDS})


def dag_f_corpus(pairs: Iterable[tuple[Passage | EvalGraph, Passage | EvalGraph]], *,
                 include_punct: bool = False) -> DagFResult:
    """Micro-averaged DAG F over passage pairs (the counts are summed, then divided)."""
    total = DagFResult.zero()
    for a, b in pairs:
        total = total + dag_f(a, b, include_punct=include_punct)
    return total

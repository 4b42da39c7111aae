"""Evaluation view of a UCCA passage: unit yields and the labelled edges the measures count.

Conventions (those of the UCCA evaluation tools, documented in ``docs/usim.md``):

* the *yield* of a unit is the set of token positions reached from it through **primary**
  edges only (remote edges do not add to a yield), **punctuation tokens excluded** by default;
* the counted edges are the layer-1 edges with a semantic label: ``Terminal`` edges, ``U``
  (punctuation) edges and the linkage edges ``LR``/``LA`` are not counted;
* edges are *primary*, *remote* (``remote="True"``) or *implicit* (into an implicit unit, whose
  yield is empty: such an edge is identified by its parent's yield);
* an edge's label is its ``type`` (the first category).
"""

from __future__ import annotations

from dataclasses import dataclass

from gecscope.semantics.ucca import NON_SEMANTIC, TERMINAL, Passage


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """A counted edge: parent and child unit ids, label, and its kind."""

    parent: str
    child: str
    label: str
    remote: bool = False
    implicit: bool = False

    @property
    def kind(self) -> str:
        return "remote" if self.remote else "implicit" if self.implicit else "primary"


class EvalGraph:
    """Yields and counted edges of one passage, computed once and reused by every measure."""

    __slots__ = ("edges", "include_punct", "passage", "punct", "tokens", "yields")

    def __init__(self, passage: Passage, *, include_punct: bool = False) -> None:
        self.passage = passage
        self.include_punct = include_punct
        self.tokens: tuple[str, ...] = passage.tokens
        self.punct: tuple[bool, ...] = tuple(t.punct for t in passage.terminals)
        self.yields: dict[str, frozenset[int]] = {}
        self._compute_yields()
        edges: list[GraphEdge] = []
        for unit in passage.units.values():
            if unit.type == "LKG":
                continue
            for e in unit.edges:
                if e.tag in NON_SEMANTIC:
                    continue
                child = passage.units[e.child]
                edges.append(GraphEdge(unit.id, e.child, e.tag, e.remote, child.implicit))
        self.edges: tuple[GraphEdge, ...] = tuple(edges)

    def _compute_yields(self) -> None:
        p = self.passage
        positions = {t.id: t.position - 1 for t in p.terminals
                     if self.include_punct or not t.punct}
        yields = self.yields
        for start in p.units:
            if start in yields:
                continue
            stack = [start]
            while stack:
                uid = stack[-1]
                if uid in yields:
                    stack.pop()
                    continue
                pending = [e.child for e in p.units[uid].edges
                           if not e.remote and e.tag != TERMINAL and e.child not in yields]
                if pending:
                    stack.extend(pending)
                    continue
                acc: set[int] = set()
                for e in p.units[uid].edges:
                    if e.remote:
                        continue
                    if e.tag == TERMINAL:
                        pos = positions.get(e.child)
                        if pos is not None:
                            acc.add(pos)
                    else:
                        acc |= yields[e.child]
                yields[uid] = frozenset(acc)
                stack.pop()

    def content_positions(self) -> list[int]:
        """Token positions that can be in a yield (non-punctuation unless punct is included)."""
        return [i for i, is_p in enumerate(self.punct) if self.include_punct or not is_p]

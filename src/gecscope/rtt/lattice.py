"""The round-trip lattice of Madnani et al. (2012, section 3.1).

The original sentence is the backbone: one node per word, chained by edges of weight 1. Every
round trip is aligned to it (:mod:`gecscope.rtt.terp`) and walked as a path through the lattice:
matched words reuse the backbone node, inserted, substituted, stemmed, synonym and paraphrased
words get alternative nodes, deleted words are skipped. An alternative node is identified by its
word (lower-cased) and its place relative to the backbone, so the same alternative proposed by
several round trips is one node ("duplicate nodes are merged"), and the weights of an edge
produced by several round trips are added.

Every node has a sort key that grows along any path (insertions before backbone word ``i``:
``(i, 0, k)``; word ``i`` or its alternatives: ``(i, 1, k)``), so the lattice is a DAG whose
topological order is the key order; the path algorithms in :mod:`gecscope.rtt.methods` rely on it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from gecscope.rtt.terp import DELETION, INSERTION, MATCH, PARAPHRASE, Alignment
from gecscope.types import Tokens

START = 0
END = 1


@dataclass
class Node:
    """A lattice node: a word, its sort key and the operation(s) that created it."""

    id: int
    word: str
    key: tuple[int, int, int]
    kind: str
    sources: list[str] = field(default_factory=list)


class Lattice:
    """Weighted word lattice over an original sentence (words on nodes, weights on edges)."""

    def __init__(self, original: Sequence[str], backbone_weight: float = 1.0):
        self.original: Tokens = tuple(original)
        n = len(self.original)
        self.nodes: list[Node] = [Node(START, "<s>", (-1, 1, 0), "start"),
                                  Node(END, "</s>", (n, 2, 0), "end")]
        self.backbone: list[int] = []
        self._index: dict[tuple[object, ...], int] = {}
        self.edges: dict[tuple[int, int], float] = {}
        self.edge_sources: dict[tuple[int, int], list[str]] = {}
        self.round_trips: list[str] = []
        for i, w in enumerate(self.original):
            self.backbone.append(self._new_node(w, (i, 1, 0), "backbone", ("bb", i)))
        self._add_path([START, *self.backbone, END], backbone_weight, "original")
        self._out: dict[int, list[tuple[int, float]]] | None = None

    def _new_node(self, word: str, key: tuple[int, int, int], kind: str,
                  ident: tuple[object, ...]) -> int:
        node_id = self._index.get(ident)
        if node_id is None:
            node_id = len(self.nodes)
            self.nodes.append(Node(node_id, word, key, kind))
            self._index[ident] = node_id
        elif kind not in self.nodes[node_id].kind.split("/"):
            self.nodes[node_id].kind += "/" + kind
        return node_id

    def _add_path(self, path: list[int], weight: float, label: str) -> None:
        for u, v in itertools.pairwise(path):
            self.edges[(u, v)] = self.edges.get((u, v), 0.0) + weight
            self.edge_sources.setdefault((u, v), []).append(label)
        for v in path[1:-1]:
            self.nodes[v].sources.append(label)
        self._out = None

    def add_alignment(self, alignment: Alignment, label: str = "", weight: float = 1.0) -> None:
        """Walk one round trip's alignment through the lattice, adding nodes and weights."""
        if alignment.reference != self.original:
            raise ValueError("alignment reference differs from the lattice backbone")
        label = label or f"rt{len(self.round_trips) + 1}"
        self.round_trips.append(label)
        path = [START]
        ins_slot, ins_k = -1, 0
        for op in alignment.ops:
            if op.op == INSERTION:
                if op.ref_start != ins_slot:
                    ins_slot, ins_k = op.ref_start, 0
                for w in op.hyp:
                    path.append(self._new_node(w, (op.ref_start, 0, ins_k), INSERTION,
                                               ("ins", op.ref_start, ins_k, w.lower())))
                    ins_k += 1
                continue
            ins_slot = -1
            if op.op == DELETION:
                continue
            if op.op == MATCH:
                path.append(self.backbone[op.ref_start])
            elif op.op == PARAPHRASE:
                for k, w in enumerate(op.hyp):
                    path.append(self._new_node(
                        w, (op.ref_start, 1, k), PARAPHRASE,
                        ("para", op.ref_start, op.ref_end, k, w.lower())))
            else:  # substitution, stem, synonym: one word for one word
                word = op.hyp[0]
                if op.ref_start > 0 and op.hyp_positions == (0,) and word[:1].isupper() \
                        and word[1:].islower() and word != "I":
                    word = word.lower()  # capitalised only because it began the round trip
                path.append(self._new_node(word, (op.ref_start, 1, 0), op.op,
                                           ("alt", op.ref_start, word.lower())))
        path.append(END)
        self._add_path(path, weight, label)

    # -- graph access -------------------------------------------------------------------------
    def out_edges(self, u: int) -> list[tuple[int, float]]:
        """Successors of ``u`` with edge weights, in topological order of the successor."""
        if self._out is None:
            out: dict[int, list[tuple[int, float]]] = {n.id: [] for n in self.nodes}
            for (a, b), w in self.edges.items():
                out[a].append((b, w))
            for lst in out.values():
                lst.sort(key=lambda e: (self.nodes[e[0]].key, e[0]))
            self._out = out
        return self._out[u]

    def in_edges(self) -> dict[int, list[tuple[int, float]]]:
        inc: dict[int, list[tuple[int, float]]] = {n.id: [] for n in self.nodes}
        for (a, b), w in self.edges.items():
            inc[b].append((a, w))
        return inc

    def topological_order(self) -> list[int]:
        return [n.id for n in sorted(self.nodes, key=lambda n: (n.key, n.id))]

    def words(self, path: Sequence[int]) -> Tokens:
        """The sentence spelled by a path (start and end nodes left out)."""
        return tuple(self.nodes[v].word for v in path if v not in (START, END))

    # -- rendering ----------------------------------------------------------------------------
    def to_text(self) -> str:
        """Nodes in topological order with their successors and edge weights."""
        lines = [f"lattice over: {' '.join(self.original)}",
                 (f"{len(self.nodes)} nodes, {len(self.edges)} edges, "
                 f"{len(self.round_trips)} round trips")]
        for v in self.topological_order():
            node = self.nodes[v]
            succ = ", ".join(f"{self.nodes[b].word}#{b}:{w:g}" for b, w in self.out_edges(v))
            lines.append(f"{node.word}#{v} [{node.kind}] -> {succ}")
        return "\n".join(lines)

    def to_dot(self, name: str = "lattice") -> str:
        """Graphviz DOT: backbone nodes as boxes, edge labels are the summed weights."""

        def esc(s: str) -> str:
            return s.replace("\\", "\\\\").replace('"', '\\"')

        lines = [f'digraph "{esc(name)}" {{', "  rankdir=LR;",
                 '  node [fontname="Helvetica", shape=ellipse];']
        for v in self.topological_order():
            node = self.nodes[v]
            shape = "box" if node.kind in ("backbone", "start", "end") else "ellipse"
            style = ', style=filled, fillcolor="#e8eef7"' if node.kind == "backbone" else ""
            lines.append(f'  n{v} [label="{esc(node.word)}", shape={shape}{style}];')
        for (a, b), w in sorted(self.edges.items()):
            lines.append(f'  n{a} -> n{b} [label="{w:g}", penwidth={1 + 0.4 * w:.1f}];')
        lines.append("}")
        return "\n".join(lines) + "\n"


def build_lattice(original: Sequence[str], alignments: Sequence[Alignment],
                  labels: Sequence[str] | None = None, backbone_weight: float = 1.0) -> Lattice:
    """The lattice of ``original`` with every alignment added (labels name the round trips)."""
    lat = Lattice(original, backbone_weight)
    for k, al in enumerate(alignments):
        lat.add_alignment(al, labels[k] if labels else "")
    return lat

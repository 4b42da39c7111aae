"""Constituency-style encoding of the UCCA primary tree, and its inverse.

The parser predicts a labelled span tree. This module turns the primary edges of a UCCA
passage into such a tree and back:

* every layer-1 unit (implicit units and remote edges left out) becomes a node whose span is
  the range of tokens it covers (punctuation included);
* a **discontinuous** unit ``u`` (e.g. *gave ... up*) is made continuous by moving the largest
  units inside its gap under ``u``; the moved unit's label gets the suffix ``^`` so that the
  decoder lifts it back to ``u``'s parent (one level: deeper origins are lifted to the parent
  too, the only loss of the encoding);
* **unary chains** (a unit whose only child is a unit, hence the same span) collapse into one
  span whose label is the chain of edge labels, top first, joined by ``|`` (``H|P``);
* tokens not covered by a labelled span are ``Terminal`` children of the smallest labelled
  span above them, so a labelled span with no labelled sub-span is a leaf unit
  (``New York``).

The root unit is the whole input; the label of the whole span is the chain *below* the root
(empty when the root has several children).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gecscope.semantics.ucca import TERMINAL, Passage

CHAIN_SEP = "|"
RAISE = "^"
#: Tokens after which a new sentence may start (the input is cut there before parsing).
SENTENCE_END = frozenset({".", "!", "?", "...", "..", "!!", "??", "!!!", "?!", "!?", "....",
                          ";"})
_CLOSERS = frozenset({'"', "'", ")", "]", "''", "”", "’", "»"})


@dataclass(eq=False)
class Node:
    """A unit of the span tree: its incoming edge label, children (nodes or token indices)."""

    label: str
    children: list[Node | int] = field(default_factory=list)
    raised: bool = False

    def tokens(self) -> set[int]:
        out: set[int] = set()
        for c in self.children:
            out |= c.tokens() if isinstance(c, Node) else {c}
        return out


def passage_tree(passage: Passage) -> Node:
    """The primary tree of ``passage`` (0-based token indices), remote and implicit left out."""
    pos = {t.id: t.position - 1 for t in passage.terminals}

    def build(uid: str, label: str) -> Node | None:
        unit = passage.units[uid]
        node = Node(label)
        for e in unit.edges:
            if e.remote:
                continue
            if e.tag == TERMINAL:
                node.children.append(pos[e.child])
                continue
            child = passage.units[e.child]
            if child.implicit or child.type == "LKG":
                continue
            sub = build(e.child, e.tag)
            if sub is not None:
                node.children.append(sub)
        return node if node.children else None

    root = build(passage.root().id, "")
    return root if root is not None else Node("")


def _parents(root: Node) -> dict[int, Node]:
    out: dict[int, Node] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        for c in n.children:
            if isinstance(c, Node):
                out[id(c)] = n
                stack.append(c)
    return out


def _all_nodes(root: Node) -> list[Node]:
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(c for c in n.children if isinstance(c, Node))
    return out


def make_continuous(root: Node, max_steps: int = 10_000) -> Node:
    """Move gap units into discontinuous units (marking them ``raised``); in place."""
    for _ in range(max_steps):
        nodes = _all_nodes(root)  # the tree does not change until the move below
        spans = {id(n): n.tokens() for n in nodes}
        bad = [n for n in nodes
               if spans[id(n)] and max(spans[id(n)]) - min(spans[id(n)]) + 1 != len(spans[id(n)])]
        if not bad:
            return root
        u = min(bad, key=lambda n: (max(spans[id(n)]) - min(spans[id(n)]), len(spans[id(n)])))
        ys = spans[id(u)]
        lo, hi = min(ys), max(ys)
        gap = next(t for t in range(lo, hi + 1) if t not in ys)
        parents = _parents(root)
        # the token's own attachment: the deepest node holding it directly
        holder = next(n for n in nodes if gap in n.children)
        moved: Node | int = gap
        cur = holder
        # climb while the next ancestor still lies inside u's range and is not an ancestor of u
        while True:
            s = spans[id(cur)]
            if id(cur) == id(root) or min(s) < lo or max(s) > hi or s & ys:
                break
            moved = cur
            nxt = parents.get(id(cur))
            if nxt is None:
                break
            cur = nxt
        owner = holder if isinstance(moved, int) else parents[id(moved)]
        owner.children.remove(moved)
        if isinstance(moved, int):
            moved_node: Node | int = moved
        else:
            moved.raised = True
            moved_node = moved
        u.children.append(moved_node)
        # an emptied owner disappears
        if not owner.children and id(owner) != id(root):
            parents[id(owner)].children.remove(owner)
    raise RuntimeError("could not make the tree continuous")


def _order(node: Node) -> None:
    def key(c: Node | int) -> int:
        return min(c.tokens()) if isinstance(c, Node) else c

    node.children.sort(key=key)
    for c in node.children:
        if isinstance(c, Node):
            _order(c)


def node_label(node: Node) -> str:
    return node.label + (RAISE if node.raised else "")


def tree_spans(root: Node) -> dict[tuple[int, int], str]:
    """Labelled spans ``(start, end) -> chain`` of a continuous tree (root chain at the top)."""
    _order(root)
    out: dict[tuple[int, int], str] = {}

    def visit(node: Node, chain: list[str]) -> None:
        ys = node.tokens()
        span = (min(ys), max(ys) + 1)
        kids = node.children
        if len(kids) == 1 and isinstance(kids[0], Node):
            visit(kids[0], chain + [node_label(kids[0])])
            return
        if chain:
            out[span] = CHAIN_SEP.join(chain)
        for c in kids:
            if isinstance(c, Node):
                visit(c, [node_label(c)])

    visit(root, [])
    return out


def encode_passage(passage: Passage) -> dict[tuple[int, int], str]:
    """Gold labelled spans of a passage (the training targets)."""
    return tree_spans(make_continuous(passage_tree(passage)))


def sentence_cuts(tokens: list[str] | tuple[str, ...]) -> list[int]:
    """Start indices of the sentences of a token list (cut after sentence-final punctuation)."""
    starts = [0]
    i = 0
    n = len(tokens)
    while i < n:
        if tokens[i] in SENTENCE_END:
            j = i + 1
            while j < n and (tokens[j] in SENTENCE_END or tokens[j] in _CLOSERS):
                j += 1
            if j < n:
                starts.append(j)
            i = j
        else:
            i += 1
    return starts


def spans_to_passage(passage: Passage, parts: list[tuple[int, dict[tuple[int, int], str]]],
                     *, punct: list[bool]) -> Passage:
    """Fill ``passage`` (tokens and root only) from labelled spans of its sentences.

    ``parts`` holds ``(offset, spans)`` for each sentence: spans are relative to the sentence,
    which starts at token ``offset``; the span covering the whole sentence carries the chain
    below the root. Spans must be nested (a tree).
    """
    root_id = passage.root().id
    n_total = len(passage.terminals)
    for k_part, (offset, spans) in enumerate(parts):
        end = parts[k_part + 1][0] if k_part + 1 < len(parts) else n_total
        items = sorted(spans.items(), key=lambda kv: (kv[0][0], -kv[0][1]))
        nodes: list[tuple[int, int, list[str]]] = [
            (a + offset, b + offset, [x for x in lab.split(CHAIN_SEP) if x])
            for (a, b), lab in items]
        # parent of each span: the innermost enclosing span (stack over the sorted order)
        ids: list[str] = []
        stack: list[int] = []
        raised_to: list[tuple[str, str]] = []
        covered: dict[int, str] = {}
        for k, (a, b, chain) in enumerate(nodes):
            while stack and not (nodes[stack[-1]][0] <= a and b <= nodes[stack[-1]][1]):
                stack.pop()
            parent = ids[stack[-1]] if stack else root_id
            for depth, lab in enumerate(chain):
                raised = lab.endswith(RAISE)
                tag = lab.rstrip(RAISE) or "A"
                new = passage.add_unit(parent, tag,
                                       unit_type="PNCT" if tag == "U" and b - a == 1
                                       and punct[a] and depth == len(chain) - 1 else "FN")
                if raised:
                    raised_to.append((new, parent))
                parent = new
            ids.append(parent)
            stack.append(k)
            for t in range(a, b):
                covered[t] = parent
        for t in range(offset, end):
            passage.add_terminal(covered.get(t, root_id), t + 1)
        _apply_raises(passage, raised_to, root_id)
    return passage


def _apply_raises(passage: Passage, raised: list[tuple[str, str]], root_id: str) -> None:
    """Move each raised unit from its decoded parent to that parent's own parent."""
    if not raised:
        return
    parent_of: dict[str, str] = {}
    for u in passage.units.values():
        for e in u.edges:
            if not e.remote and e.tag != TERMINAL:
                parent_of[e.child] = u.id
    for uid, par in raised:
        if par == root_id:
            continue
        grand = parent_of.get(par)
        if grand is None:
            continue
        edges = passage.units[par].edges
        k = next(i for i, e in enumerate(edges) if e.child == uid)
        edge = edges.pop(k)
        passage.units[grand].edges.append(edge)
        edge.parent = grand
        parent_of[uid] = grand

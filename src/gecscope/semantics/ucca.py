"""UCCA passages: a small data model and a reader/writer for the standard UCCA XML.

A :class:`Passage` holds layer 0 (the :class:`Terminal` tokens, words and punctuation) and
layer 1, the foundational layer: :class:`Unit` nodes (``FN`` foundational units, ``PNCT``
punctuation units, ``LKG`` linkage nodes) joined by labelled :class:`Edge` objects. An edge is
*primary* (the spanning tree of the DAG) or *remote* (``remote="True"``, a reentrancy); a unit
with ``implicit="True"`` stands for an unexpressed participant and has no terminals. Edges of
type ``Terminal`` link a unit to the tokens it covers.

The XML is the format of the UCCA English-Web-Treebank, English-20K and learner corpora::

    <root annotationID=".." passageID="..">
      <attributes .../>
      <layer layerID="0"> <node ID="0.1" type="Word"><attributes paragraph="1"
          paragraph_position="1" text="Genetic"/></node> ... </layer>
      <layer layerID="1"> <node ID="1.1" type="FN"><attributes/>
          <edge toID="1.2" type="H"><attributes/><category tag="H" .../></edge> ... </layer>
    </root>

Everything the files carry (attributes, ``<extra>`` elements, edge ``<category>`` elements,
remarks) is kept, so :func:`write_passage` reproduces a file read by :func:`read_passage`
(byte for byte for the corpora in ``shared/data/ucca``). Written from the format as found in
those files; no code of the GPL ``ucca`` package is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from gecscope.errors import FormatError
from gecscope.formats.xmltree import XmlElement, parse_xml

#: Layer-1 edge labels (UCCA foundational layer v1/v2).
LABELS = {
    "H": "Parallel Scene", "A": "Participant", "P": "Process", "S": "State",
    "D": "Adverbial", "T": "Time", "G": "Ground", "C": "Center", "E": "Elaborator",
    "F": "Function", "N": "Connector", "R": "Relator", "Q": "Quantifier", "L": "Linker",
    "U": "Punctuation", "LR": "Link Relation", "LA": "Link Argument",
}
TERMINAL = "Terminal"
PUNCTUATION_LABEL = "U"
LINKAGE_LABELS = frozenset({"LR", "LA"})
#: Edges that carry no semantic category: never counted by the evaluation measures.
NON_SEMANTIC = frozenset({TERMINAL, PUNCTUATION_LABEL}) | LINKAGE_LABELS


@dataclass(frozen=True, slots=True)
class Category:
    """One ``<category>`` of an edge (newer UCCA XML; the first one repeats the edge type)."""

    tag: str
    attrib: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class Terminal:
    """A token of layer 0. ``position`` is its 1-based index in the passage."""

    id: str
    text: str
    position: int
    punct: bool = False
    attrib: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Edge:
    """A labelled edge ``parent -> child`` of layer 1 (``tag`` is the edge's ``type``)."""

    parent: str
    child: str
    tag: str
    attrib: dict[str, str] = field(default_factory=dict)
    categories: tuple[Category, ...] = ()

    @property
    def remote(self) -> bool:
        return self.attrib.get("remote") == "True"

    @property
    def tags(self) -> tuple[str, ...]:
        """Every category of the edge (the type alone when the file lists no categories)."""
        cats = tuple(c.tag for c in self.categories)
        return cats or (self.tag,)


@dataclass(slots=True)
class Unit:
    """A node of layer 1 with its outgoing edges in file order."""

    id: str
    type: str = "FN"
    attrib: dict[str, str] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    extras: list[dict[str, str]] = field(default_factory=list)

    @property
    def implicit(self) -> bool:
        return self.attrib.get("implicit") == "True"


@dataclass
class Passage:
    """A UCCA passage: tokens, layer-1 units and edges, and the file's extra attributes."""

    id: str
    terminals: list[Terminal] = field(default_factory=list)
    units: dict[str, Unit] = field(default_factory=dict)
    annotation_id: str | None = "0"
    attrib: dict[str, str] = field(default_factory=dict)
    layer_attrib: dict[str, dict[str, str]] = field(default_factory=dict)
    path: str | None = field(default=None, compare=False)
    _index: dict[str, Terminal] | None = field(default=None, init=False, repr=False,
                                               compare=False)
    _last_unit: int = field(default=0, init=False, repr=False, compare=False)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def from_tokens(cls, passage_id: str, tokens: Iterable[str],
                    punct: Iterable[bool] | None = None) -> Passage:
        """A passage with the given tokens and only the root unit ``1.1`` (to be filled in)."""
        toks = list(tokens)
        flags = list(punct) if punct is not None else [False] * len(toks)
        p = cls(passage_id, layer_attrib={"0": {}, "1": {}})
        for i, (tok, is_p) in enumerate(zip(toks, flags, strict=True), start=1):
            p.terminals.append(Terminal(f"0.{i}", tok, i, is_p,
                                        {"paragraph": "1", "paragraph_position": str(i),
                                         "text": tok}))
        p.units["1.1"] = Unit("1.1")
        return p

    @classmethod
    def from_bracketed(cls, passage_id: str, text: str) -> Passage:
        """A passage from bracket notation, for examples and tests.

        ``"[H [A John] [P moved] [A [R to] [C Paris]]] [U .]"``: each ``[LABEL ...]`` is a
        unit under the enclosing one (the top level is under the root ``1.1``); bare words are
        its tokens; ``[U x]`` is punctuation; ``[A IMPLICIT]`` an implicit unit.
        """
        import re

        parts = re.findall(r"\[|\]|[^\s\[\]]+", text)
        words: list[tuple[str, bool]] = []
        plan: list[tuple[str, str, str | int]] = []  # (op, parent, arg)
        stack = ["1.1"]
        label_next = False
        counter = 1
        for tok in parts:
            if tok == "[":
                label_next = True
            elif tok == "]":
                if len(stack) == 1:
                    raise ValueError(f"unbalanced ']' in {text!r}")
                stack.pop()
            elif label_next:
                counter += 1
                plan.append(("unit", stack[-1], tok))
                stack.append(f"1.{counter}")
                label_next = False
            elif tok == "IMPLICIT":
                plan.append(("implicit", stack[-1], ""))
            else:
                is_punct = plan[-1][2] == "U" if plan else False
                words.append((tok, is_punct))
                plan.append(("word", stack[-1], len(words)))
        if len(stack) != 1:
            raise ValueError(f"unbalanced '[' in {text!r}")
        p = cls.from_tokens(passage_id, [w for w, _ in words], [f for _, f in words])
        for op, parent, arg in plan:
            if op == "unit":
                p.add_unit(parent, str(arg), unit_type="PNCT" if arg == "U" else "FN")
            elif op == "implicit":
                p.units[parent].attrib["implicit"] = "True"
            else:
                p.add_terminal(parent, int(arg))
        return p

    def add_unit(self, parent: str, tag: str, *, remote: bool = False, implicit: bool = False,
                 unit_type: str = "FN") -> str:
        """Create a unit under ``parent`` with an edge labelled ``tag``; returns its id."""
        uid = f"1.{self._next_unit_number()}"
        self.units[uid] = Unit(uid, unit_type, {"implicit": "True"} if implicit else {})
        self.add_edge(parent, uid, tag, remote=remote)
        return uid

    def add_edge(self, parent: str, child: str, tag: str, *, remote: bool = False) -> Edge:
        """Add an edge between existing nodes (child may be a terminal id for ``Terminal``)."""
        if parent not in self.units:
            raise KeyError(f"no unit {parent!r} in passage {self.id}")
        edge = Edge(parent, child, tag, {"remote": "True"} if remote else {})
        self.units[parent].edges.append(edge)
        return edge

    def add_terminal(self, unit: str, position: int) -> None:
        """Attach the 1-based ``position`` token to ``unit`` by a ``Terminal`` edge."""
        self.add_edge(unit, self.terminals[position - 1].id, TERMINAL)

    def _next_unit_number(self) -> int:
        if not self._last_unit or f"1.{self._last_unit + 1}" in self.units:
            self._last_unit = max((int(u.split(".", 1)[1]) for u in self.units), default=0)
        self._last_unit += 1
        return self._last_unit

    # --- queries --------------------------------------------------------------------------
    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.terminals)

    def terminal(self, tid: str) -> Terminal | None:
        if self._index is None or len(self._index) != len(self.terminals):
            self._index = {t.id: t for t in self.terminals}
        return self._index.get(tid)

    def edges(self) -> Iterator[Edge]:
        """Every layer-1 edge (terminal edges included), unit by unit in file order."""
        for unit in self.units.values():
            yield from unit.edges

    def root(self) -> Unit:
        """The top unit: ``1.1`` when present, else the first unit without a primary parent."""
        if "1.1" in self.units:
            return self.units["1.1"]
        children = {e.child for e in self.edges() if not e.remote}
        for unit in self.units.values():
            if unit.id not in children and unit.type != "LKG":
                return unit
        raise FormatError(f"passage {self.id} has no root unit", self.path)

    def text(self) -> str:
        return " ".join(self.tokens)


# --- reading ------------------------------------------------------------------------------

def _require(el: XmlElement, key: str, path: str | None) -> str:
    value = el.attrib.get(key)
    if value is None:
        raise FormatError(f"<{el.tag}> lacks the {key!r} attribute", path, el.line)
    return value


def parse_passage(data: bytes | str, path: str | Path | None = None) -> Passage:
    """Parse the UCCA XML of one passage (``data`` as read from a file)."""
    spath = str(path) if path is not None else None
    if isinstance(data, str):
        data = data.encode("utf-8")
    root = parse_xml(data, spath, "a UCCA passage file")
    if root.tag != "root":
        raise FormatError(f"top element is <{root.tag}>, expected <root> of a UCCA passage",
                          spath, root.line)
    passage = Passage(_require(root, "passageID", spath),
                      annotation_id=root.attrib.get("annotationID"), path=spath)
    attrs = root.find("attributes")
    passage.attrib = dict(attrs.attrib) if attrs is not None else {}
    layers = {}
    for layer in root.children:
        if layer.tag == "layer":
            lid = _require(layer, "layerID", spath)
            layers[lid] = layer
            la = layer.find("attributes")
            passage.layer_attrib[lid] = dict(la.attrib) if la is not None else {}
    if "0" not in layers:
        raise FormatError("no <layer layerID=\"0\"> (the tokens)", spath, root.line)
    for node in layers["0"].children:
        if node.tag != "node":
            continue
        nid = _require(node, "ID", spath)
        ntype = _require(node, "type", spath)
        a = node.find("attributes")
        attrib = dict(a.attrib) if a is not None else {}
        if "text" not in attrib:
            raise FormatError(f"terminal {nid} has no text attribute", spath, node.line)
        if ntype not in ("Word", "Punctuation"):
            raise FormatError(f"terminal {nid} has type {ntype!r}, expected Word or "
                              "Punctuation", spath, node.line)
        passage.terminals.append(Terminal(nid, attrib["text"], len(passage.terminals) + 1,
                                          ntype == "Punctuation", attrib))
    lines: dict[str, int] = {}
    for node in (layers["1"].children if "1" in layers else []):
        if node.tag != "node":
            continue
        nid = _require(node, "ID", spath)
        if nid in passage.units:
            raise FormatError(f"unit {nid} is defined twice", spath, node.line)
        unit = Unit(nid, _require(node, "type", spath))
        lines[nid] = node.line
        for child in node.children:
            if child.tag == "attributes":
                unit.attrib = dict(child.attrib)
            elif child.tag == "extra":
                unit.extras.append(dict(child.attrib))
            elif child.tag == "edge":
                ea = child.find("attributes")
                cats = tuple(Category(c.attrib.get("tag", ""),
                                      tuple((k, v) for k, v in c.attrib.items()))
                             for c in child.children if c.tag == "category")
                unit.edges.append(Edge(nid, _require(child, "toID", spath),
                                       _require(child, "type", spath),
                                       dict(ea.attrib) if ea is not None else {}, cats))
                lines[f"{nid}->{unit.edges[-1].child}"] = child.line
        passage.units[nid] = unit
    _validate(passage, lines)
    return passage


def _validate(p: Passage, lines: dict[str, int]) -> None:
    for unit in p.units.values():
        for e in unit.edges:
            line = lines.get(f"{e.parent}->{e.child}")
            if e.tag == TERMINAL:
                if p.terminal(e.child) is None:
                    raise FormatError(f"Terminal edge of unit {e.parent} points to {e.child}, "
                                      "which is not a token of layer 0", p.path, line)
            elif e.child not in p.units:
                raise FormatError(f"edge {e.parent} -> {e.child} ({e.tag}) points to a unit "
                                  "that does not exist", p.path, line)
    # the primary edges must form an acyclic graph
    state: dict[str, int] = {}
    for start in p.units:
        if state.get(start):
            continue
        stack = [(start, iter(p.units[start].edges))]
        state[start] = 1
        while stack:
            uid, it = stack[-1]
            for e in it:
                if e.remote or e.tag == TERMINAL or e.child not in p.units:
                    continue
                s = state.get(e.child, 0)
                if s == 1:
                    raise FormatError(f"primary edges form a cycle through unit {e.child}",
                                      p.path, lines.get(f"{e.parent}->{e.child}"))
                if s == 0:
                    state[e.child] = 1
                    stack.append((e.child, iter(p.units[e.child].edges)))
                    break
            else:
                state[uid] = 2
                stack.pop()


def read_passage(path: str | Path) -> Passage:
    """Read one UCCA XML file (raises :class:`FormatError` naming file and line)."""
    from gecscope.formats.base import read_bytes

    p = Path(path)
    return parse_passage(read_bytes(p, "a UCCA XML file"), p)


# --- writing ------------------------------------------------------------------------------

_ENTITIES = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}


def quoteattr(value: str) -> str:
    """A double-quoted XML attribute value, non-ASCII as character references (as the corpora)."""
    text = escape(value, _ENTITIES)
    if not text.isascii():
        text = "".join(c if ord(c) < 128 else f"&#{ord(c)};" for c in text)
    return f'"{text}"'


def _attrs(items: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {k}={quoteattr(v)}" for k, v in items)


def _empty(tag: str, items: Iterable[tuple[str, str]], indent: str) -> str:
    return f"{indent}<{tag}{_attrs(items)} />\n"


def passage_to_xml(passage: Passage) -> str:
    """The standard UCCA XML of ``passage`` (two-space indentation, as the corpora use)."""
    out: list[str] = []
    head = [] if passage.annotation_id is None else [("annotationID", passage.annotation_id)]
    out.append(f"<root{_attrs([*head, ('passageID', passage.id)])}>\n")
    out.append(_empty("attributes", passage.attrib.items(), "  "))
    out.append('  <layer layerID="0">\n')
    out.append(_empty("attributes", passage.layer_attrib.get("0", {}).items(), "    "))
    for t in passage.terminals:
        ntype = "Punctuation" if t.punct else "Word"
        attrib = dict(t.attrib)
        attrib["text"] = t.text
        out.append(f'    <node ID={quoteattr(t.id)} type="{ntype}">\n')
        out.append(_empty("attributes", attrib.items(), "      "))
        out.append("    </node>\n")
    out.append("  </layer>\n")
    out.append('  <layer layerID="1">\n')
    out.append(_empty("attributes", passage.layer_attrib.get("1", {}).items(), "    "))
    for u in passage.units.values():
        out.append(f"    <node ID={quoteattr(u.id)} type={quoteattr(u.type)}>\n")
        out.append(_empty("attributes", u.attrib.items(), "      "))
        for extra in u.extras:
            out.append(_empty("extra", extra.items(), "      "))
        for e in u.edges:
            out.append(f"      <edge toID={quoteattr(e.child)} type={quoteattr(e.tag)}>\n")
            out.append(_empty("attributes", e.attrib.items(), "        "))
            for c in e.categories:
                out.append(_empty("category", c.attrib or (("tag", c.tag),), "        "))
            out.append("      </edge>\n")
        out.append("    </node>\n")
    out.append("  </layer>\n</root>\n")
    return "".join(out)


def write_passage(passage: Passage, path: str | Path) -> None:
    """Write ``passage`` as UCCA XML, atomically."""
    from gecscope.formats.base import atomic_write

    atomic_write(path, [passage_to_xml(passage)])

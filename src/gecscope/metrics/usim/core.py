"""USIM: semantic faithfulness of a correction to its source (Choshen & Abend 2018, sec. 3).

The source graph ``G_s`` and the correction graph ``G_c`` are over different tokens, so their
nodes are aligned first:

1. **Leaves.** Tokens are normalised (:func:`normalize_token`: lower-cased, non-word characters
   removed, as the USim tool does before parsing) and aligned by a minimum-cost bipartite
   matching (``scipy.optimize.linear_sum_assignment``) whose cost is the character edit
   distance plus a position term ``position_weight * |i/m - j/n|`` (relative positions, so
   that equal words are matched in order; the tool uses ``|i - j| / max(m, n)`` per
   sentence, which is the same when ``m == n``). Every token of the shorter side is matched;
   tokens left over on the longer side stay unaligned.
2. **Units.** Each unit ``v`` of one graph is aligned to the unit ``u`` of the other that
   maximises the paper's ``w(v, u) = |A_l ∩ (yield(u) × yield(v))| / |yield(u)|``
   (``node_weight="paper"``), or the terminal-overlap F1 ``2|A_l ∩ ..| / (|yield(v)| +
   |yield(u)|)`` of the USim tool (``node_weight="f1"``). Ties go to the larger overlap, then
   to a unit with a common incoming label, then to the first unit in file order. Pairs of
   weight zero are not aligned.
3. **Edges.** An edge ``(p, v, l)`` of one graph matches an edge ``(q, u, l)`` of the other
   when their labels are equal and their children are aligned. Recall is the share of source
   edges with a match, precision the share of correction edges with a match, F their
   harmonic mean. The alignment of step 2 is computed in both directions, source to
   correction (``s->c``) and back (``c->s``), giving two P/R/F triples; USIM is reported for
   each and as their average.

Counted edges and yields follow :mod:`gecscope.semantics.graph` (primary and remote edges
with a semantic label, punctuation out of yields; implicit units, which have no yield to
align, are left out). ``min_yield=2`` keeps only units of two or more tokens, as the tool's
"comparable nodes"; ``counting="nodes"`` counts units instead of edges, and
:meth:`USimOptions.tool` combines the tool's choices (its single score is
:attr:`USimResult.tool_f`). :meth:`USimOptions.tool_exact` adds the rest of the tool's
protocol: every non-root unit of 2+ terminals labelled by all its incoming edges, the UCCA
evaluation tool's label equivalences (P=S, H=C, N=L, F=R), lower-cased words aligned per
common sentence (:func:`sentence_ends`, :func:`common_sentence_ends`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from gecscope._optional import require
from gecscope.alignment.levenshtein import distance
from gecscope.errors import ConfigError
from gecscope.semantics.graph import EvalGraph, GraphEdge
from gecscope.semantics.ucca import TERMINAL, Passage

if TYPE_CHECKING:
    import numpy as np

NODE_WEIGHTS = ("paper", "f1")
#: ``edges``: the children of counted edges (paper); ``all``: every non-root foundational unit
#: (USim tool), labelled by all its incoming edges, linkage ones included.
UNIT_SETS = ("edges", "all")
#: ``ucca``: the UCCA evaluation tool's equivalent label pairs (P=S, H=C, N=L, F=R).
LABEL_CLASSES = ("exact", "ucca")
SENTENCE_SPLITS = ("none", "tool", "exact")
WORD_FORMS = ("normalized", "lower")
_UCCA_CLASS = {"S": "P", "C": "H", "L": "N", "R": "F"}
SENTENCE_END_MARKS = (".", "?", "!")
_NON_WORD = re.compile(r"[^\w]+")
_SINGLE_LETTERS = re.compile(r"\b(?:[^\W\d_] ){1,}[^\W\d_]\b")


def normalize_token(token: str) -> str:
    """A token as compared by the leaf alignment: lower-cased, non-word characters removed."""
    return _NON_WORD.sub("", token).lower()


def normalize_text(text: str) -> str:
    """Sentence normalisation of the USim tool, applied to raw text before parsing.

    Non-word characters become spaces, runs of isolated single letters are joined into one
    word (``"U. S."`` -> ``"us"``, ``"e.g."`` -> ``"eg"``) and the text is lower-cased;
    whitespace is collapsed.
    """
    text = _NON_WORD.sub(" ", text)
    text = " ".join(text.split())
    text = _SINGLE_LETTERS.sub(lambda m: m.group(0).replace(" ", ""), text)
    return text.lower()


@lru_cache(maxsize=200_000)
def _lev(a: str, b: str) -> int:
    return 0 if a == b else distance(a, b)


def edit_distance_matrix(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Character Levenshtein distances between every token of ``a`` and of ``b``."""
    import numpy as np

    try:
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cdist
    except ImportError:
        return np.array([[_lev(x, y) for y in b] for x in a], dtype=float).reshape(len(a),
                                                                                   len(b))
    return cdist(a, b, scorer=Levenshtein.distance, dtype=np.int32).astype(float)


@dataclass(frozen=True)
class USimOptions:
    """How USIM aligns and counts (defaults follow the paper; see the module docstring)."""

    node_weight: str = "paper"
    min_yield: int = 1
    include_remote: bool = True
    include_punct: bool = False
    position_weight: float = 1.0
    max_leaf_distance: float | None = None
    counting: str = "edges"
    units: str = "edges"
    label_classes: str = "exact"
    sentence_split: str = "none"
    word_form: str = "normalized"
    tie_break: str = "overlap"

    @classmethod
    def tool(cls) -> USimOptions:
        """The USim tool's choices: overlap-F1 alignment, units of 2+ tokens, node counting
        (its single score is :attr:`USimResult.tool_f`)."""
        return cls(node_weight="f1", min_yield=2, counting="nodes")

    @classmethod
    def tool_exact(cls, **changes: Any) -> USimOptions:
        """The USim tool's whole protocol, as far as it is documented (``docs/usim.md``).

        Units: every foundational unit except the root with more than one terminal,
        punctuation included (``units="all"``, ``include_punct``, ``min_yield=2``), each
        with the labels of all its incoming edges (remote and linkage ones too); labels
        compared under the UCCA evaluation tool's equivalences P=S, H=C, N=L, F=R
        (``label_classes="ucca"``); words lower-cased only and aligned per common sentence
        with cost edit distance + ``|i - j| / max(m, n)`` (``word_form="lower"``,
        ``sentence_split="tool"``); unit alignment by overlap F1, ties to a unit with a
        compatible label (``tie_break="label"``); units counted (``counting="nodes"``).
        ``changes`` override single fields (e.g. ``label_classes="exact"``).
        """
        base: dict[str, Any] = {"node_weight": "f1", "min_yield": 2, "counting": "nodes", "units": "all",
                "include_punct": True, "label_classes": "ucca", "sentence_split": "tool",
                "word_form": "lower", "tie_break": "label"}
        base.update(changes)
        return cls(**base)

    def __post_init__(self) -> None:
        if self.node_weight not in NODE_WEIGHTS:
            raise ConfigError(f"usim: node_weight must be one of {', '.join(NODE_WEIGHTS)}, "
                              f"got {self.node_weight!r}")
        if self.counting not in ("edges", "nodes"):
            raise ConfigError(f"usim: counting must be 'edges' or 'nodes', got {self.counting!r}")
        if self.min_yield < 1:
            raise ConfigError(f"usim: min_yield must be >= 1, got {self.min_yield}")
        if self.position_weight < 0:
            raise ConfigError("usim: position_weight must be >= 0")
        for name, allowed in (("units", UNIT_SETS), ("label_classes", LABEL_CLASSES),
                              ("sentence_split", SENTENCE_SPLITS), ("word_form", WORD_FORMS),
                              ("tie_break", ("overlap", "label"))):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"usim: {name} must be one of {', '.join(allowed)}, "
                                  f"got {getattr(self, name)!r}")
        if self.max_leaf_distance is not None and not 0 <= self.max_leaf_distance <= 1:
            raise ConfigError("usim: max_leaf_distance must be in [0, 1] (edit distance over "
                              "the longer word's length) or None")


def _all_unit_edges(eg: EvalGraph, options: USimOptions) -> list[GraphEdge]:
    """The USim tool's units: every foundational unit with a primary (or linkage) parent and
    ``min_yield`` tokens or more, one pseudo-edge per incoming edge of any label."""
    p = eg.passage
    out: list[GraphEdge] = []
    has_parent: set[str] = set()
    for unit in p.units.values():
        for e in unit.edges:
            if e.tag == TERMINAL or e.child not in p.units:
                continue
            if not e.remote:
                has_parent.add(e.child)
    for unit in p.units.values():
        for e in unit.edges:
            child = p.units.get(e.child)
            if (child is None or child.type != "FN" or e.child not in has_parent
                    or len(eg.yields[e.child]) < options.min_yield
                    or (e.remote and not options.include_remote)):
                continue
            out.append(GraphEdge(unit.id, e.child, e.tag, e.remote, child.implicit))
    return out


def _top_scene_spans(passage: Passage) -> tuple[set[int], set[int]]:
    """First and last token positions (1-based, punctuation included) of the top-level
    scenes: units with a Process or State child and no scene above them."""
    eg = EvalGraph(passage, include_punct=True)
    units = passage.units
    parent: dict[str, str] = {}
    for u in units.values():
        for e in u.edges:
            if not e.remote and e.child in units and e.child not in parent:
                parent[e.child] = u.id
    scene = {u.id for u in units.values() if u.type == "FN"
             and any(e.tag in ("P", "S") for e in u.edges)}
    starts: set[int] = set()
    ends: set[int] = set()
    for uid in scene:
        up = parent.get(uid)
        seen = {uid}
        while up is not None and up not in scene and up not in seen:
            seen.add(up)
            up = parent.get(up)
        if up is not None and up in scene:
            continue
        y = eg.yields[uid]
        if y:
            starts.add(min(y) + 1)
            ends.add(max(y) + 1)
    return starts, ends


def sentence_ends(passage: Passage, mode: str = "tool") -> list[int]:
    """Sentence-final token positions (1-based) as the USim tool's sentence splitter finds them.

    A token ending in ``.``, ``?`` or ``!`` (``mode="tool"``; ``"exact"``: a token that *is*
    one of them) ends a sentence when it ends a top-level scene, or follows one without
    starting another; paragraph ends always end a sentence. ``"exact"`` also drops
    punctuation-only sentences.
    """
    terms = passage.terminals
    if not terms:
        return []
    starts, ends = _top_scene_spans(passage)
    if mode == "exact":
        marks = [t.position for t in terms if t.text in SENTENCE_END_MARKS]
    else:
        marks = [t.position for t in terms if t.text[-1:] in SENTENCE_END_MARKS]
    marks = [x for x in marks if x in ends or (x - 1 in ends and x not in starts)]
    para = [t.position - 1 for t in terms
            if t.position != 1 and t.attrib.get("paragraph_position") == "1"]
    out = sorted(set(marks + para + [terms[-1].position]))
    if mode == "exact" and len(out) > 1:
        out = [x for x, y in pairwise(out)
               if not all(t.punct for t in terms[x:y])] + [out[-1]]
    return out


_NON_ALNUM = re.compile(r"[\W_]+")


def common_sentence_ends(p1: Passage, ends1: list[int], p2: Passage,
                         ends2: list[int]) -> tuple[list[int], list[int]]:
    """Pair the sentence ends of two passages as the USim tool does: ends whose final words
    agree (after removing non-alphanumerics) are kept, one added or removed sentence end is
    skipped over, others are dropped (their sentences merge); the passages' last ends pair."""
    if not ends1 or not ends2:
        return [], []

    def choose(p: Passage, pos: int) -> tuple[int, str]:
        reg = _NON_ALNUM.sub("", p.terminals[pos - 1].text)
        if not reg and pos > 1:
            pos -= 1
            reg = _NON_ALNUM.sub("", p.terminals[pos - 1].text)
        return pos, reg

    out1: list[int] = []
    out2: list[int] = []
    i = j = 0
    while i < len(ends1) and j < len(ends2):
        pos1, reg1 = choose(p1, ends1[i])
        pos2, reg2 = choose(p2, ends2[j])
        after1 = choose(p1, ends1[i + 1]) if i + 1 < len(ends1) else (pos1, reg1)
        after2 = choose(p2, ends2[j + 1]) if j + 1 < len(ends2) else (pos2, reg2)
        if reg1 == reg2:
            out1.append(pos1)
            out2.append(pos2)
        elif after1[1] == reg2:
            i += 1
            out1.append(after1[0])
            out2.append(pos2)
        elif reg1 == after2[1]:
            j += 1
            out1.append(pos1)
            out2.append(after2[0])
        i += 1
        j += 1
    last1, _ = choose(p1, ends1[-1])
    last2, _ = choose(p2, ends2[-1])
    if not out1 or (out1[-1] != last1 and out2[-1] != last2):
        out1.append(ends1[-1])
        out2.append(ends2[-1])
    elif out1[-1] != last1:
        out1[-1] = last1
    elif out2[-1] != last2:
        out2[-1] = ends2[-1]
    return out1, out2


class USimGraph:
    """A passage prepared for USIM: normalised tokens, unit incidence and edge label arrays."""

    def __init__(self, passage: Passage | EvalGraph, options: USimOptions = USimOptions(),
                 labels: dict[str, int] | None = None) -> None:
        require("numpy", "ucca", "USIM")  # without the extra: its install, not a traceback
        import numpy as np

        eg = passage if isinstance(passage, EvalGraph) else EvalGraph(
            passage, include_punct=options.include_punct)
        self.graph = eg
        self.passage = eg.passage
        self.content = eg.content_positions()
        col = {pos: k for k, pos in enumerate(self.content)}
        if options.word_form == "lower":
            self.words = [eg.tokens[p].strip().lower() for p in self.content]
        else:
            self.words = [normalize_token(eg.tokens[p]) for p in self.content]
        if options.units == "all":
            edges = _all_unit_edges(eg, options)
        else:
            edges = [e for e in eg.edges if not e.implicit and (options.include_remote or
                                                                 not e.remote)
                     and len(eg.yields[e.child]) >= options.min_yield]
        self.units: list[str] = list(dict.fromkeys(e.child for e in edges))
        index = {u: i for i, u in enumerate(self.units)}
        self.label_index = labels if labels is not None else {}
        classes = _UCCA_CLASS if options.label_classes == "ucca" else {}
        keys = [classes.get(e.label, e.label) for e in edges]
        for k in keys:
            self.label_index.setdefault(k, len(self.label_index))
        inc = np.zeros((len(self.units), len(self.content)), dtype=np.float64)
        for i, u in enumerate(self.units):
            for pos in eg.yields[u]:
                inc[i, col[pos]] = 1.0
        self.incidence = inc
        self.sizes = inc.sum(axis=1)
        self.edge_child = np.array([index[e.child] for e in edges], dtype=np.int64)
        self.edge_label = np.array([self.label_index[k] for k in keys], dtype=np.int64)
        self.edge_labels = [e.label for e in edges]
        # depth inside a chain of units with one and the same yield (0 = outermost): the last
        # tie-break of the alignment, so that a unary chain maps level to level and a graph
        # aligned with itself maps every unit to itself
        parent = {e.child: e.parent for e in eg.edges if not e.remote}
        rank = np.zeros(len(self.units), dtype=np.int64)
        for i, u in enumerate(self.units):
            up = parent.get(u)
            while up is not None and eg.yields.get(up) == eg.yields[u]:
                rank[i] += 1
                up = parent.get(up)
        self.chain_rank = rank
        self.sentence_ends: list[int] | None = (
            None if options.sentence_split == "none"
            else sentence_ends(self.passage, options.sentence_split))

    def label_matrix(self, n_labels: int) -> np.ndarray:
        """Units x labels: True where the unit has an incoming counted edge with that label."""
        import numpy as np

        m = np.zeros((len(self.units), n_labels), dtype=np.bool_)
        m[self.edge_child, self.edge_label] = True
        return m

    def label_counts(self) -> Counter[str]:
        """Counted edges per label, plus ``Scene`` (units with a P or S edge) and ``A+D``."""
        c = Counter(self.edge_labels)
        c["A+D"] = c.get("A", 0) + c.get("D", 0)
        scenes = {e.parent for e in self.graph.edges
                  if e.label in ("P", "S") and not e.remote}
        c["Scene"] = len(scenes)
        return c


@dataclass(frozen=True, slots=True)
class DirectionCounts:
    """Edge matches of one alignment direction: source edges matched of all, correction idem."""

    source_matched: int
    source_edges: int
    correction_matched: int
    correction_edges: int

    @property
    def recall(self) -> float:
        if not self.source_edges:
            return 1.0 if not self.correction_edges else 0.0
        return self.source_matched / self.source_edges

    @property
    def precision(self) -> float:
        if not self.correction_edges:
            return 1.0 if not self.source_edges else 0.0
        return self.correction_matched / self.correction_edges

    @property
    def f(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, o: DirectionCounts) -> DirectionCounts:
        return DirectionCounts(self.source_matched + o.source_matched,
                               self.source_edges + o.source_edges,
                               self.correction_matched + o.correction_matched,
                               self.correction_edges + o.correction_edges)


@dataclass(frozen=True)
class USimResult:
    """USIM of one pair: counts of both directions, and the alignments behind them."""

    s2c: DirectionCounts
    c2s: DirectionCounts
    leaf_alignment: list[tuple[int, int]] = field(default_factory=list, compare=False)
    unit_alignment_s2c: dict[str, str] = field(default_factory=dict, compare=False)
    unit_alignment_c2s: dict[str, str] = field(default_factory=dict, compare=False)
    label_diff: dict[str, int] = field(default_factory=dict, compare=False)

    @property
    def average(self) -> float:
        """The mean of the two directions' F-scores (the paper's "Avg")."""
        return (self.s2c.f + self.c2s.f) / 2

    @property
    def tool_f(self) -> float:
        """The USim tool's single score: recall from s->c, precision from c->s."""
        r, p = self.s2c.recall, self.c2s.precision
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "s2c": {"precision": self.s2c.precision, "recall": self.s2c.recall, "f": self.s2c.f},
            "c2s": {"precision": self.c2s.precision, "recall": self.c2s.recall, "f": self.c2s.f},
            "average": self.average, "tool_f": self.tool_f,
        }


def align_leaves(src: USimGraph, cor: USimGraph, position_weight: float = 1.0,
                 max_distance: float | None = None) -> list[tuple[int, int]]:
    """Token alignment as ``(source content index, correction content index)`` pairs.

    Whole passages are aligned with the relative-position term ``|i/m - j/n|``; when the
    graphs were prepared with a ``sentence_split``, each pair of common sentences
    (:func:`common_sentence_ends`) is aligned on its own with the USim tool's
    ``|i - j| / max(m, n)``. With ``max_distance``, matched pairs whose edit distance exceeds
    that share of the longer word's length are dropped afterwards (the paper and the tool
    keep every pair).
    """
    if src.sentence_ends is not None and cor.sentence_ends is not None:
        e1, e2 = common_sentence_ends(src.passage, src.sentence_ends, cor.passage,
                                      cor.sentence_ends)
        pairs: list[tuple[int, int]] = []
        a0 = b0 = 0
        for a1, b1 in zip(e1, e2, strict=True):
            ia = [k for k, p in enumerate(src.content) if a0 <= p < a1]
            ib = [k for k, p in enumerate(cor.content) if b0 <= p < b1]
            for i, j in _assign([src.words[k] for k in ia], [cor.words[k] for k in ib],
                                position_weight, relative=False):
                pairs.append((ia[i], ib[j]))
            a0, b0 = a1, b1
    else:
        pairs = _assign(src.words, cor.words, position_weight, relative=True)
    if max_distance is None:
        return pairs
    return [(i, j) for i, j in pairs
            if _lev(src.words[i], cor.words[j])
            <= max_distance * max(len(src.words[i]), len(cor.words[j]), 1)]


def _assign(a: Sequence[str], b: Sequence[str], position_weight: float,
            relative: bool) -> list[tuple[int, int]]:
    """Minimum-cost matching of two word lists (edit distance plus a position term)."""
    import numpy as np

    linear_sum_assignment = require("scipy.optimize", "ucca", "USIM").linear_sum_assignment
    m, n = len(a), len(b)
    if not m or not n:
        return []
    cost = edit_distance_matrix(a, b)
    if position_weight:
        if relative:
            ri = (np.arange(m) + 0.5) / m
            rj = (np.arange(n) + 0.5) / n
            cost = cost + position_weight * np.abs(ri[:, None] - rj[None, :])
        else:
            cost = cost + position_weight * np.abs(
                np.arange(m)[:, None] - np.arange(n)[None, :]) / max(m, n)
    rows, cols = linear_sum_assignment(cost)
    return list(zip(rows.tolist(), cols.tolist(), strict=True))


def _best(weight: np.ndarray, overlap: np.ndarray, compat: np.ndarray,
          by_overlap: bool = True, rank_rows: np.ndarray | None = None,
          rank_cols: np.ndarray | None = None) -> np.ndarray:
    """Row-wise argmax of ``weight``; ties by overlap (unless ``by_overlap=False``), then
    compatibility, then (given ``rank_rows``/``rank_cols``) the closest depth inside a chain of
    same-yield units, then first column.

    Returns -1 for rows whose best weight is zero.
    """
    import numpy as np

    if weight.shape[1] == 0:
        return np.full(weight.shape[0], -1, dtype=np.int64)
    w = np.round(weight, 9)
    best_w = w.max(axis=1, keepdims=True)
    cand = w == best_w
    if by_overlap:
        ov = np.where(cand, overlap, -1.0)
        cand &= ov == ov.max(axis=1, keepdims=True)
    if rank_rows is not None and rank_cols is not None:
        key = np.where(cand, compat.astype(np.float64), -1.0)
        cand &= key == key.max(axis=1, keepdims=True)
        gap = np.abs(rank_rows[:, None] - rank_cols[None, :]).astype(np.float64)
        key = np.where(cand, -gap, -np.inf)
    else:
        key = np.where(cand, compat.astype(np.float64), -1.0)
    choice = key.argmax(axis=1)
    choice[best_w[:, 0] <= 0] = -1
    return choice


def _direction(a_lab: np.ndarray, b_lab: np.ndarray, a: USimGraph | _Relabelled,
               b: USimGraph | _Relabelled, mapping: np.ndarray) -> tuple[int, int]:
    """Edges of ``a`` matched through ``mapping`` (a-unit -> b-unit), and edges of ``b``."""
    import numpy as np

    # a-edges: child aligned and the aligned unit has an incoming edge with the same label
    target = mapping[a.edge_child]
    ok = target >= 0
    a_matched = int(b_lab[target[ok], a.edge_label[ok]].sum())
    # b-edges: some a-unit mapped onto the child has an incoming edge with the same label
    reach = np.zeros((len(b.units), a_lab.shape[1]), dtype=bool)
    src_units = np.nonzero(mapping >= 0)[0]
    if len(src_units):
        np.logical_or.at(reach, mapping[src_units], a_lab[src_units])
    b_matched = int(reach[b.edge_child, b.edge_label].sum()) if len(b.edge_child) else 0
    return a_matched, b_matched


def _direction_nodes(a_lab: np.ndarray, b_lab: np.ndarray,
                     mapping: np.ndarray) -> tuple[int, int]:
    """Units of ``a`` whose aligned unit shares an incoming label, and units of ``b`` that
    some such ``a`` unit is aligned to (the USim tool's node counting)."""
    import numpy as np

    ok = np.nonzero(mapping >= 0)[0]
    hit = (a_lab[ok] & b_lab[mapping[ok]]).any(axis=1)
    return int(hit.sum()), len(set(mapping[ok][hit].tolist()))


def usim_graphs(src: USimGraph, cor: USimGraph, options: USimOptions = USimOptions(),
                details: bool = False) -> USimResult:
    """USIM between two prepared graphs (build them with a shared ``labels`` dict)."""
    import numpy as np

    labels = dict(src.label_index)
    for lbl in cor.label_index:
        labels.setdefault(lbl, len(labels))
    if cor.label_index is not src.label_index:
        remap = np.array([labels[lbl] for lbl in cor.label_index], dtype=np.int64)
        cor_edge_label = remap[cor.edge_label] if len(cor.edge_label) else cor.edge_label
    else:
        cor_edge_label = cor.edge_label
    n_labels = len(labels)
    s_lab = src.label_matrix(n_labels)
    c_lab = np.zeros((len(cor.units), n_labels), dtype=np.bool_)
    c_lab[cor.edge_child, cor_edge_label] = True
    cor_view = _Relabelled(cor, cor_edge_label)

    pairs = align_leaves(src, cor, options.position_weight, options.max_leaf_distance)
    if pairs and len(src.units) and len(cor.units):
        ai = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
        aj = np.fromiter((p[1] for p in pairs), dtype=np.int64, count=len(pairs))
        if len(src.content) * len(cor.content) > 10_000:  # passages: sparse product
            csr_matrix = require("scipy.sparse", "ucca", "USIM").csr_matrix
            overlap = (csr_matrix(src.incidence[:, ai]) @ csr_matrix(cor.incidence[:, aj]).T
                       ).toarray()
        else:
            overlap = src.incidence[:, ai] @ cor.incidence[:, aj].T
    else:
        overlap = np.zeros((len(src.units), len(cor.units)))
    compat = (s_lab.astype(np.float64) @ c_lab.T.astype(np.float64)) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if options.node_weight == "paper":
            w_sc = overlap / np.maximum(cor.sizes, 1)[None, :]
            w_cs = overlap.T / np.maximum(src.sizes, 1)[None, :]
        else:
            denom = src.sizes[:, None] + cor.sizes[None, :]
            w_sc = 2 * overlap / np.maximum(denom, 1)
            w_cs = w_sc.T
    by_overlap = options.tie_break == "overlap"
    ranks_sc: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    ranks_cs: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    if by_overlap:  # gecscope's tie-break; the tool's ("label") stays the tool's
        ranks_sc, ranks_cs = (src.chain_rank, cor.chain_rank), (cor.chain_rank, src.chain_rank)
    map_sc = _best(w_sc, overlap, compat, by_overlap, *ranks_sc)
    map_cs = _best(w_cs, overlap.T, compat.T, by_overlap, *ranks_cs)

    if options.counting == "nodes":
        s_m1, c_m1 = _direction_nodes(s_lab, c_lab, map_sc)
        c_m2, s_m2 = _direction_nodes(c_lab, s_lab, map_cs)
        ns, nc = len(src.units), len(cor.units)
    else:
        s_m1, c_m1 = _direction(s_lab, c_lab, src, cor_view, map_sc)
        c_m2, s_m2 = _direction(c_lab, s_lab, cor_view, src, map_cs)
        ns, nc = len(src.edge_child), len(cor.edge_child)
    result = USimResult(DirectionCounts(s_m1, ns, c_m1, nc), DirectionCounts(s_m2, ns, c_m2, nc))
    if not details:
        return result
    sc = {src.units[i]: cor.units[j] for i, j in enumerate(map_sc.tolist()) if j >= 0}
    cs = {cor.units[i]: src.units[j] for i, j in enumerate(map_cs.tolist()) if j >= 0}
    leaf = [(src.content[i], cor.content[j]) for i, j in pairs]
    cs_counts, cc_counts = src.label_counts(), cor.label_counts()
    diff = {lbl: cs_counts.get(lbl, 0) - cc_counts.get(lbl, 0)
            for lbl in sorted(set(cs_counts) | set(cc_counts))}
    return USimResult(result.s2c, result.c2s, leaf, sc, cs, diff)


class _Relabelled:
    """A view of a graph with its edge labels renumbered into a shared label index."""

    def __init__(self, g: USimGraph, edge_label: np.ndarray) -> None:
        self.units = g.units
        self.edge_child = g.edge_child
        self.edge_label = edge_label


def usim_passages(source: Passage, correction: Passage, options: USimOptions = USimOptions(),
                  details: bool = False) -> USimResult:
    """USIM between a source passage and a correction passage."""
    labels: dict[str, int] = {}
    return usim_graphs(USimGraph(source, options, labels), USimGraph(correction, options, labels),
                       options, details)


def distsim(pairs: Sequence[tuple[Passage | USimGraph, Passage | USimGraph]],
            labels: Sequence[str] = ("A+D", "Scene"),
            options: USimOptions = USimOptions()) -> dict[str, float]:
    """DISTSIM(l) = mean over pairs of |c_i(l) - d_i(l)| (edge counts of label ``l``).

    ``l`` is a layer-1 label, ``"A+D"`` (Participants and Adverbials together) or ``"Scene"``
    (units with a Process or State). The paper's formula; lower means more similar.
    """
    if not pairs:
        return {lbl: 0.0 for lbl in labels}
    total: Counter[str] = Counter()
    for s, c in pairs:
        gs = s if isinstance(s, USimGraph) else USimGraph(s, options)
        gc = c if isinstance(c, USimGraph) else USimGraph(c, options)
        cs, cc = gs.label_counts(), gc.label_counts()
        for lbl in labels:
            total[lbl] += abs(cs.get(lbl, 0) - cc.get(lbl, 0))
    return {lbl: total[lbl] / len(pairs) for lbl in labels}

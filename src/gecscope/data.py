"""The inputs of an evaluation: the references (:class:`EvalData`) and a system's output
(:class:`Hypothesis`), from files or from memory, checked on the way in.

Everything a metric derives from them (ERRANT edits, chunk partitions, parses) is cached by
*content*: reference-level data in typed :class:`Slot` s declared by the component that fills
them (:meth:`EvalData.slot`), hypothesis-level data under the
hypothesis' content digest (:attr:`Hypothesis.key`) in a small least-recently-used store. A
training loop that builds a fresh ``Hypothesis`` for every checkpoint therefore never gets
another checkpoint's numbers back, and memory stays bounded however long the loop runs.

Strings are tokenised on whitespace by default, as the reference tools (m2scorer,
errant_compare, GLEU, ieval) read their pre-tokenised input; ``tokenise="spacy"`` re-tokenises
raw text the way ``errant_parallel -tok`` does, ``"chars"`` splits into characters (Chinese).
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Generic, TypeVar

from gecscope.errors import ConfigError, FormatError, InputWarning, LengthMismatchError
from gecscope.formats.m2 import format_sentence, parse_m2
from gecscope.formats.parallel import parse_parallel
from gecscope.formats.plain import read_tokens, split_tokens
from gecscope.formats.references import ReferenceFile, read_hypothesis_text, read_references
from gecscope.languages import (
    Language,
    Tokeniser,
    annotate_rows,
    as_language,
    check_token_lists,
    path_hint,
    tokenise_texts,
)
from gecscope.types import Corpus, Tokens

T = TypeVar("T")

#: Hypotheses whose derived data :class:`EvalData` keeps (least recently used dropped first).
DERIVED_CACHE_SIZE = 16


class Slot(Generic[T]):
    """A piece of reference-level derived data of an :class:`EvalData`, declared (as a
    module-level constant) by the component that fills it, saying whether it travels to
    worker processes (``portable``: plain data that is costly to rebuild) and how a sentence
    range cuts it (``cut(value, start, stop)``; without one, :meth:`EvalData.subset` starts
    without it). A slot is pickled by reference (its module and name), so a worker finds the
    same slot object."""

    def __init__(self, module: str, name: str, *, portable: bool = False,
                 cut: Callable[[T, int, int], T] | None = None) -> None:
        self.module, self.name, self.portable, self.cut = module, name, portable, cut

    def __repr__(self) -> str:
        return f"Slot({self.module}.{self.name})"

    def __reduce__(self) -> tuple[Callable[[str, str], Slot[Any]], tuple[str, str]]:
        return _declared_slot, (self.module, self.name)


def _declared_slot(module: str, name: str) -> Slot[Any]:
    import importlib

    slot = getattr(importlib.import_module(module), name)
    assert isinstance(slot, Slot), (module, name)
    return slot


def _cut_corpus(corpus: Corpus, start: int, stop: int) -> Corpus:
    return Corpus(corpus.sentences[start:stop], corpus.path)


#: The references annotated with the language's extractor (plain-text references).
REFERENCE_EDITS: Slot[Corpus] = Slot(__name__, "REFERENCE_EDITS", portable=True, cut=_cut_corpus)
#: A hypothesis' edits (kept per hypothesis, by content; they travel to workers).
HYPOTHESIS_EDITS: Slot[Corpus] = Slot(__name__, "HYPOTHESIS_EDITS")


# --------------------------------------------------------------------------- hypothesis


class Hypothesis:
    """One system's output: its corrected sentences (token tuples), and its edits when known.

    Read from ChERRANT's parallel format, it also keeps the file's ``sources`` column and its
    ``ids``: :meth:`EvalData.align` matches the rows to the references' by id (when those
    have ids) and checks every source against the references' before anything is scored.

    Immutable: :attr:`key` digests the content once, so caches keyed by it stay valid.
    """

    name: str
    tokens: tuple[Tokens, ...]
    m2: Corpus | None
    path: str | None
    sources: tuple[Tokens, ...] | None
    ids: tuple[str, ...] | None

    def __init__(self, name: str, tokens: Sequence[Sequence[str]], m2: Corpus | None = None,
                 path: str | None = None, *, sources: Sequence[Sequence[str]] | None = None,
                 ids: Sequence[str] | None = None) -> None:
        object.__setattr__(self, "name", str(name))
        object.__setattr__(self, "tokens", check_token_lists(tokens, f"hypothesis {name!r}"))
        object.__setattr__(self, "m2", m2)
        object.__setattr__(self, "path", path)
        n = len(self.tokens)
        if sources is not None:
            sources = check_token_lists(sources, f"hypothesis {name!r} sources")
            if len(sources) != n:
                raise LengthMismatchError(n, len(sources), f"hypothesis {name!r} sources")
        if ids is not None:
            ids = tuple(str(i) for i in ids)
            if len(ids) != n:
                raise LengthMismatchError(n, len(ids), f"hypothesis {name!r} ids")
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "ids", ids)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Hypothesis is immutable; build a new one")

    def __repr__(self) -> str:
        return f"Hypothesis({self.name!r}, {len(self.tokens)} sentences)"

    def __len__(self) -> int:
        return len(self.tokens)

    def _rebuilt(self, name: str, rows: Sequence[int] | None = None) -> Hypothesis:
        """This hypothesis under ``name``, with only sentences ``rows`` (in that order)."""
        def pick(seq: Any) -> Any:
            return seq if rows is None or seq is None else [seq[i] for i in rows]

        m2 = self.m2
        if m2 is not None and rows is not None:
            m2 = Corpus(tuple(m2.sentences[i] for i in rows), m2.path)
        return Hypothesis(name, pick(self.tokens), m2, self.path, sources=pick(self.sources),
                          ids=pick(self.ids))

    def renamed(self, name: str) -> Hypothesis:
        """The same output under another system name."""
        return self._rebuilt(name)

    def subset(self, start: int, stop: int) -> Hypothesis:
        """Sentences ``start`` to ``stop - 1`` (with their edits when an M2 was given): the
        hypothesis side of :meth:`EvalData.subset`."""
        return self._rebuilt(self.name, range(start, min(stop, len(self))))

    def reordered(self, order: Sequence[int]) -> Hypothesis:
        """The sentences in another order: sentence ``k`` of the result is ``order[k]`` of
        this one (with its edits, source and id)."""
        return self._rebuilt(self.name, order)

    @cached_property
    def key(self) -> str:
        """Digest of the content (sentences, and the edits when an M2 was given)."""
        h = hashlib.sha256()
        for toks in self.tokens:
            h.update("\x1f".join(toks).encode("utf-8", "surrogatepass"))
            h.update(b"\n")
        if self.m2 is not None:
            h.update(b"\x00m2")
            for s in self.m2:
                h.update(format_sentence(s).encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    @classmethod
    def from_texts(cls, texts: Sequence[str], name: str = "hypothesis", *,
                   tokenise: Tokeniser | None = None,
                   lang: Language | str | None = None) -> Hypothesis:
        """A hypothesis from one string per sentence, tokenised by ``tokenise`` (default: as
        ``lang`` tokenises, whitespace for English)."""
        fn = tokenise if tokenise is not None else as_language(lang).tokeniser()
        return cls(name, tokenise_texts(texts, fn, f"hypothesis {name!r}"))

    @classmethod
    def from_m2(cls, corpus: Corpus, name: str | None = None) -> Hypothesis:
        """A hypothesis given by its edits (a system M2: one annotator)."""
        return cls(name or Path(corpus.path or "hypothesis").stem, corpus.hypotheses(), corpus,
                   corpus.path)

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None,
                  expected: int | None = None, expected_from: str | None = None, *,
                  lang: Language | str | None = None, format: str = "auto") -> Hypothesis:
        """Read a hypothesis from plain text (one sentence per line), from an M2 of its edits,
        or from ChERRANT's parallel format (``id<TAB>source<TAB>output``, every line); text is
        tokenised as ``lang`` says (default: on whitespace).

        ``format="auto"`` takes a format only when the whole file looks like it
        (:func:`sniff_format`; a close call is an :class:`InputWarning` saying what was
        assumed); ``"plain"``, ``"m2"`` or ``"parallel"`` force one. A parallel file keeps its
        source column and ids: score it through :func:`gecscope.evaluate` (or
        :meth:`EvalData.align`), which matches its rows to the references' by id and checks
        every source."""
        p = Path(path)
        label = name or ("stdin" if str(path) == "-" else p.stem)
        format, text = read_hypothesis_text(path, format)
        if format == "m2":
            corpus = parse_m2(text, p)
            if expected is not None and len(corpus) != expected:
                raise LengthMismatchError(expected, len(corpus), p, "sentences", expected_from)
            return cls(label, corpus.hypotheses(), corpus, str(p))
        if not text.strip():
            raise FormatError("file is empty, expected at least one sentence", p)
        language_ = as_language(lang)
        fn = language_.tokeniser()
        if format == "parallel":
            rows = parse_parallel(text, p, targets=1)
            if expected is not None and len(rows) != expected:
                raise LengthMismatchError(expected, len(rows), p, "lines", expected_from)
            ids = [r.id for r in rows]
            if language_.extractor == "cherrant":
                # as parallel_to_m2.py: the edits are found against the file's own sources
                corpus = Corpus(annotate_rows(language_, [(r.source, r.targets) for r in rows]),
                                str(p))
                return cls(label, corpus.hypotheses(), corpus, str(p), sources=corpus.sources,
                           ids=ids)
            return cls(label, [fn(r.targets[0]) for r in rows], None, str(p),
                       sources=[fn(r.source) for r in rows], ids=ids)
        toks = split_tokens(text, p, expected=expected, expected_from=expected_from, tokenise=fn)
        return cls(label, toks, None, str(p))


# --------------------------------------------------------------------------- references

_FILES_LOADER = "EvalData.from_files(references, source)"


class _Derived:
    """A bounded store of hypothesis-derived data, keyed by content."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._hyps: OrderedDict[str, dict[Any, Any]] = OrderedDict()

    def get(self, hyp: Hypothesis, key: Any, compute: Callable[[], T]) -> T:
        entry = self._hyps.get(hyp.key)
        if entry is None:
            entry = self._hyps[hyp.key] = {}
            while len(self._hyps) > self.size:
                self._hyps.popitem(last=False)
        else:
            self._hyps.move_to_end(hyp.key)
        if key not in entry:
            entry[key] = compute()
        value: T = entry[key]
        return value

    def put(self, hyp_key: str, key: Any, value: Any) -> None:
        """Store ``value`` for the hypothesis whose :attr:`Hypothesis.key` is ``hyp_key``."""
        entry = self._hyps.setdefault(hyp_key, {})
        self._hyps.move_to_end(hyp_key)
        entry[key] = value
        while len(self._hyps) > self.size:
            self._hyps.popitem(last=False)

    def peek(self, hyp: Hypothesis, key: Any) -> Any:
        """The stored value, or ``None``, without computing or reordering anything."""
        return self.peek_key(hyp.key, key)

    def peek_key(self, hyp_key: str, key: Any) -> Any:
        return self._hyps.get(hyp_key, {}).get(key)

    def entries(self, key: Any) -> dict[str, Any]:
        """``{hypothesis key: value}`` of every hypothesis that has ``key``."""
        return {h: e[key] for h, e in self._hyps.items() if key in e}

    def clear(self) -> None:
        self._hyps.clear()


class EvalData:
    """The references of an evaluation, shared (and cached) across every system scored.

    Build it with :meth:`from_files`, :meth:`from_m2` or :meth:`from_texts`. The plain
    constructor takes the paths the user gave (one M2 or gold XML file, or several plain-text
    references with ``source_path``) and reads them when first needed.
    """

    def __init__(self, reference_paths: Sequence[str] = (), source_path: str | None = None,
                 lang: Language | str | None = None) -> None:
        if isinstance(reference_paths, str | Path):
            reference_paths = (str(reference_paths),)
        #: how plain text is tokenised and which extractor finds the edits (default English)
        self.lang: Language = as_language(lang)
        #: whether missing k-th references reuse the sentence's others (see :attr:`references`)
        self.cycle_references = False
        self.reference_paths: tuple[str, ...] = tuple(str(p) for p in reference_paths)
        self.source_path = str(source_path) if source_path is not None else None
        #: the references' sentence ids (a parallel reference file's first column), by which
        #: parallel-format hypotheses are matched to them (:meth:`align`); ``None`` otherwise
        self.ids: tuple[str, ...] | None = None
        #: the reference file as read (:func:`~gecscope.formats.references.read_references`)
        self.reference_file: ReferenceFile | None = None
        self._slots: dict[Slot[Any], Any] = {}
        self._derived = _Derived(DERIVED_CACHE_SIZE)

    def __repr__(self) -> str:
        what = ", ".join(self.reference_paths) or "in memory"
        return f"EvalData({what})"

    def __getstate__(self) -> dict[str, Any]:
        """What a worker process needs (pickling): the paths, the parsed references, the
        portable :class:`Slot` s and every system's extracted edits.
        Models, encoders and per-process memo tables stay behind (a worker builds its own)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_slots", "_derived")}
        state["_slots"] = {k: v for k, v in self._slots.items() if k.portable}
        state["hyp_edits"] = self._derived.entries(HYPOTHESIS_EDITS)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        edits = state.pop("hyp_edits")
        self.__dict__.update(state)
        self._derived = _Derived(max(DERIVED_CACHE_SIZE, len(edits)))
        for key, corpus in edits.items():
            self._derived.put(key, HYPOTHESIS_EDITS, corpus)

    # -- constructors -----------------------------------------------------------------------

    @classmethod
    def from_files(cls, references: str | Path | Sequence[str | Path],
                   source: str | Path | None = None, *,
                   lang: Language | str | None = None) -> EvalData:
        """References from files (one M2, gold XML or ChERRANT-style parallel file, or
        plain-text references plus the source), read and checked now rather than when first
        scored. ``lang`` chooses tokenisation and edit extraction (:mod:`gecscope.languages`)."""
        refs = (references,) if isinstance(references, str | Path) else tuple(references)
        if not refs:
            raise ConfigError("give at least one reference file")
        data = cls(tuple(str(r) for r in refs), str(source) if source is not None else None,
                   lang)
        if data.m2 is None:
            if len(refs) == 1 and source is None:
                raise ConfigError(f"{refs[0]} is not M2 or I-measure XML; plain-text references "
                                  "need the source file too")
            data.references  # noqa: B018 - reads and length-checks every file
        return data

    @classmethod
    def from_m2(cls, corpus: Corpus | str | Path, *,
                lang: Language | str | None = None) -> EvalData:
        """References given by their edits: a :class:`Corpus` or the path of an M2 file
        (``lang`` then says how text hypotheses are tokenised and their edits found)."""
        if not isinstance(corpus, Corpus):
            data = cls((str(corpus),), None, lang)
            if data.m2 is None:
                raise FormatError("not an M2 file (the first line must start with 'S ')", corpus)
            return data
        data = cls((corpus.path or "<m2>",), None, lang)
        data.__dict__["m2"] = corpus
        return data

    @classmethod
    def from_texts(cls, sources: Sequence[str], references: Sequence[Sequence[str]] | None = None,
                   *, m2: Corpus | str | Path | None = None,
                   tokenise: Tokeniser | None = None,
                   lang: Language | str | None = None) -> EvalData:
        """References from memory: ``sources`` (one string per sentence) and ``references`` as
        ``[reference][sentence]`` strings, or the gold edits as ``m2`` (a Corpus or a path).

        Lengths and orientation are checked: ``[sentence][reference]`` lists and a single
        reference not wrapped in a list are refused with a message saying how to fix them.
        """
        language_ = as_language(lang)
        if tokenise is None:
            tokenise = language_.tokeniser()
        src = tokenise_texts(sources, tokenise, "sources", _FILES_LOADER)
        if m2 is not None:
            if references is not None:
                raise ConfigError("give the references either as texts or as M2, not both")
            data = cls.from_m2(m2)
            data.lang = language_
            gold = data.m2
            assert gold is not None
            if len(gold) != len(src):
                raise LengthMismatchError(len(src), len(gold), gold.path, "sentences", "sources")
            for i, (a, b) in enumerate(zip(src, gold.sources, strict=True)):
                if a != b:
                    raise ConfigError(f"sentence {i + 1}: the source differs from the M2's S line "
                                      f"({' '.join(a)[:40]!r} vs {' '.join(b)[:40]!r})")
            return data
        data = cls((), None, language_)
        data.__dict__["sources"] = src
        if references is None:
            data.__dict__["references"] = []
            return data
        hint = path_hint(references, _FILES_LOADER)
        if hint:
            raise TypeError(f"references: {hint}")
        if isinstance(references, str | bytes) or (
                len(references) and all(isinstance(r, str) for r in references)):
            raise TypeError("references must be a list of reference sets ([reference][sentence]); "
                            "got a list of strings: for one reference write references=[refs]")
        sets = [list(r) for r in references]
        n = len(src)
        if sets and all(len(r) != n for r in sets) and len(sets) == n:
            raise ConfigError(
                f"references look like [sentence][reference] ({len(sets)} lists of "
                f"{len(sets[0])}); give them as [reference][sentence]: "
                "references=[list(r) for r in zip(*references)]")
        refs = []
        for k, r in enumerate(sets):
            if len(r) != n:
                raise LengthMismatchError(n, len(r), f"references[{k}]", "sentences", "sources")
            refs.append(tokenise_texts(r, tokenise, f"references[{k}]", _FILES_LOADER))
        data.__dict__["references"] = refs
        data.reference_paths = tuple(f"<reference {k}>" for k in range(len(refs)))
        return data

    # -- content ----------------------------------------------------------------------------

    @cached_property
    def m2(self) -> Corpus | None:
        """The gold M2 corpus, if the references are a single M2 file or I-measure gold XML.

        Gold XML is converted to M2 (every alternative of every annotator kept), so edit-based
        metrics can score against it too; the parsed XML stays in :attr:`reference_file`.
        """
        if len(self.reference_paths) != 1 or self.reference_paths[0].startswith("<"):
            return None
        path = self.reference_paths[0]
        ref = self.reference_file = read_references(path, parallel=self.source_path is None)
        self.cycle_references = ref.cycle
        if ref.rows is not None:
            ids = tuple(r.id for r in ref.rows)
            self.ids = ids if len(set(ids)) == len(ids) else None  # duplicates: by position
            return Corpus(annotate_rows(self.lang, [(r.source, r.targets) for r in ref.rows]),
                          path)
        if ref.note and self.source_path is not None:
            warnings.warn(f"{path}: {ref.note}", InputWarning, stacklevel=2)
        return ref.m2

    def require_m2(self, metric: str) -> Corpus:
        if self.m2 is None:
            raise ConfigError(f"metric {metric!r} needs the references as one M2 file "
                              f"(got {', '.join(self.reference_paths) or 'none'})")
        return self.m2

    @cached_property
    def sources(self) -> list[Tokens]:
        if self.m2 is not None:
            return self.m2.sources
        if self.source_path is None:
            raise ConfigError("plain-text references need the source file too (--source)")
        return read_tokens(self.source_path, tokenise=self.lang.tokeniser())

    @cached_property
    def references(self) -> list[list[Tokens]]:
        """References as ``[reference][sentence]`` token lists, length-checked.

        In an M2, an annotator without lines for a sentence changed nothing (its reference is
        the source), as the reference tools read it. Parallel files and ChERRANT's M2 instead
        list every target, and their sentences have different numbers of them (MuCGEC: one
        to seven): there reference ``k`` of a sentence with fewer is its reference
        ``k mod count``, so every reference set is a real correction."""
        if self.m2 is not None:
            ids = self.m2.annotators
            if not self.cycle_references or all(s.annotators == ids for s in self.m2):
                return [self.m2.references(k) for k in ids] or [self.m2.sources]
            per = [[s.reference(a) for a in s.annotators] or [s.source] for s in self.m2]
            return [[refs[k % len(refs)] for refs in per] for k in range(len(ids))]
        n = len(self.sources)
        fn = self.lang.tokeniser()
        return [read_tokens(p, expected=n, expected_from=self.source_path, tokenise=fn)
                for p in self.reference_paths]

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def has_references(self) -> bool:
        """Whether references were given (reference-less metrics need only the sources)."""
        if "references" in self.__dict__:
            return bool(self.__dict__["references"])
        return bool(self.reference_paths) or self.__dict__.get("m2") is not None

    def reference_edits(self) -> Corpus:
        """The gold edits: the reference M2, or plain-text references annotated with ERRANT
        (annotator ``k`` = reference ``k``), computed once."""
        if self.m2 is not None:
            return self.m2
        if not self.references:
            raise ConfigError("this metric needs references (none were given)")
        return self.slot(REFERENCE_EDITS, lambda: self.lang.annotator().annotate_corpus(
            self.sources, self.references))

    def subset(self, start: int, stop: int) -> EvalData:
        """The references of sentences ``start`` to ``stop - 1`` as an in-memory EvalData.

        Scoring a corpus in sentence ranges (Ray, :mod:`gecscope.execution.plan`) scores each range
        against its subset: the sources, the reference sets (as many as the whole corpus has,
        ChERRANT's cycling already applied), the gold M2 or XML and any annotated references
        are the whole's, cut, so every per-sentence statistic is the one the whole gives
        (:attr:`gecscope.metrics.base.Metric.sentence_ranges`). Paths stay for messages and
        signatures; derived data in a :class:`Slot` with a ``cut`` is cut, the rest starts
        empty.
        """
        n = len(self)
        if not 0 <= start <= stop <= n:
            raise ConfigError(f"sentence range {start}:{stop} is outside the {n} sentences")
        part = EvalData(self.reference_paths, self.source_path, self.lang)
        part.cycle_references = self.cycle_references
        m2 = self.m2
        part.ids = self.ids[start:stop] if self.ids is not None else None
        part.__dict__["m2"] = (Corpus(m2.sentences[start:stop], m2.path) if m2 is not None
                               else None)
        part.__dict__["sources"] = self.sources[start:stop]
        part.__dict__["references"] = ([r[start:stop] for r in self.references]
                                       if self.has_references else [])
        if self.reference_file is not None:
            part.reference_file = self.reference_file.subset(start, stop)
        part._slots = {k: k.cut(v, start, stop) for k, v in self._slots.items() if k.cut}
        return part

    # -- derived data -----------------------------------------------------------------------

    def slot(self, slot: Slot[T], compute: Callable[[], T]) -> T:
        """The value of ``slot``, computed by ``compute()`` the first time."""
        if slot not in self._slots:
            self._slots[slot] = compute()
        value: T = self._slots[slot]
        return value

    def peek(self, slot: Slot[T]) -> T | None:
        """The value of ``slot`` if it has one, else ``None`` (nothing is computed)."""
        return self._slots.get(slot)

    def put(self, slot: Slot[T], value: T) -> None:
        """Give ``slot`` a value computed elsewhere (e.g. in worker processes)."""
        self._slots[slot] = value

    # -- hypothesis-derived data ------------------------------------------------------------

    def derived(self, hyp: Hypothesis, key: Any, compute: Callable[[], T]) -> T:
        """``compute()`` for ``hyp`` under ``key``, cached by the hypothesis' content."""
        return self._derived.get(hyp, key, compute)

    def hypothesis_m2(self, hyp: Hypothesis) -> Corpus:
        """The hypothesis' edits: read from its M2, or extracted with ERRANT (cached by content).

        Parsing is shared across systems: every distinct sentence is parsed once per process.
        """
        if hyp.m2 is not None:
            return hyp.m2

        def extract() -> Corpus:
            from gecscope.progress import tick

            return self.lang.annotator().annotate_corpus(self.sources, [hyp.tokens],
                                                         progress=tick)

        return self.derived(hyp, HYPOTHESIS_EDITS, extract)

    def known_hypothesis_m2(self, hyp: Hypothesis) -> Corpus | None:
        """The edits of ``hyp`` if they are at hand (its M2, or extracted before), else None."""
        if hyp.m2 is not None:
            return hyp.m2
        corpus: Corpus | None = self._derived.peek(hyp, HYPOTHESIS_EDITS)
        return corpus

    def set_hypothesis_m2(self, hyp: Hypothesis, corpus: Corpus) -> None:
        """Give the edits of ``hyp`` extracted elsewhere (e.g. by :mod:`gecscope.execution.plan`)."""
        if len(corpus) != len(hyp):
            raise LengthMismatchError(len(hyp), len(corpus), "the given edits", "sentences",
                                      hyp.name)
        self._derived.put(hyp.key, HYPOTHESIS_EDITS, corpus)

    def adopt_hypothesis_edits(self, other: EvalData) -> None:
        """Take the hypothesis edits ``other`` has extracted, when it has the same sources and
        language (the edits do not depend on the references): a view of the same corpus with
        other references does not extract them again."""
        if other is not self and other.lang == self.lang and other.sources == self.sources:
            for key, corpus in other._derived.entries(HYPOTHESIS_EDITS).items():
                if corpus is not None and self._derived.peek_key(key, HYPOTHESIS_EDITS) is None:
                    self._derived.put(key, HYPOTHESIS_EDITS, corpus)

    def align(self, hyp: Hypothesis) -> Hypothesis:
        """``hyp`` with its sentences in the references' order, checked (:meth:`check`).

        A parallel-format hypothesis (with ids) is matched by id when the references have ids
        (a parallel reference file whose ids are unique): rows in another order are put in
        the references' order; a duplicate, unknown or missing id is a :class:`FormatError`
        naming the file, line and id. Otherwise sentences are matched by position, and a
        hypothesis that carries its sources (M2 or parallel) must have the references' source
        on every line. Every input path (the CLI, :func:`gecscope.evaluate`) goes through here,
        whatever the language."""
        len(self)  # reads the references (and their ids)
        if hyp.ids is not None and self.ids is not None and hyp.ids != self.ids:
            known = frozenset(self.ids)
            where = self.reference_paths[0] if self.reference_paths else "the references"
            position: dict[str, int] = {}
            for i, k in enumerate(hyp.ids):
                if k in position:
                    raise FormatError(f"id {k!r} is given twice (lines {position[k] + 1} and "
                                      f"{i + 1}); each line needs its own id to be matched to "
                                      f"the references ({where})", hyp.path, i + 1)
                if k not in known:
                    raise FormatError(f"id {k!r} is not an id of the references ({where})",
                                      hyp.path, i + 1)
                position[k] = i
            missing = [k for k in self.ids if k not in position]
            if missing:
                raise FormatError(f"has no line for id {missing[0]!r} of the references ({where}"
                                  f"; {len(missing)} id(s) missing)", hyp.path or hyp.name)
            hyp = hyp.reordered([position[k] for k in self.ids])
        self.check(hyp)
        return hyp

    def check(self, hyp: Hypothesis) -> None:
        """The hypothesis has one sentence per reference sentence, in the references' order:
        its ids (parallel format) are the references' and its sources (M2 or parallel format)
        are the references' sources, on every line (see :meth:`align`, which reorders by id)."""
        if len(hyp) != len(self):
            origin = self.reference_paths[0] if self.m2 is not None else self.source_path
            raise LengthMismatchError(len(self), len(hyp), hyp.path or hyp.name, "sentences",
                                      origin)
        if hyp.ids is not None and self.ids is not None and hyp.ids != self.ids:
            i = next(i for i, (a, b) in enumerate(zip(hyp.ids, self.ids, strict=True)) if a != b)
            raise FormatError(
                f"has id {hyp.ids[i]!r} where the references' sentence {i + 1} has id "
                f"{self.ids[i]!r}: its lines are in another order; gecscope.evaluate() and "
                "`gecscope evaluate`/`compare` match them by id (EvalData.align)", hyp.path, i + 1)
        sources = hyp.m2.sources if hyp.m2 is not None else hyp.sources
        if sources is not None and list(sources) != list(self.sources):
            import unicodedata

            parallel = hyp.sources is not None
            for i, (a, b) in enumerate(zip(sources, self.sources, strict=True)):
                # equal up to Unicode compatibility forms is the same source: ChERRANT's
                # demo references have ':' where its hypothesis M2 has the full-width '：'
                if a != b and unicodedata.normalize("NFKC", " ".join(a)) != \
                        unicodedata.normalize("NFKC", " ".join(b)):
                    what = ("its source column differs from the references' source"
                            if parallel else "source differs from the reference source")
                    fix = ("a parallel file's source column must be the references' source, "
                           "line by line" if parallel else
                           "hypothesis and reference M2 must share their S lines")
                    j = next((j for j, ref in enumerate(self.sources) if ref == a), None)
                    if j is not None:
                        fix = (f"it is the source of the references' sentence {j + 1}: lines "
                               "in another order? (matching by id needs references with ids, "
                               "a parallel reference file)")
                    raise FormatError(
                        f"sentence {i + 1}: {what} ({' '.join(a)[:50]!r} vs "
                        f"{' '.join(b)[:50]!r}); {fix}", hyp.path, i + 1 if parallel else None)

"""The data model of an evaluation: the references (:class:`EvalData`, read lazily from files
or given in memory, shared by every system scored) and a system's output (:class:`Hypothesis`).
What components derive from them is kept by *content*: reference data in the typed
:class:`~gecscope.types.Slot` s they declare, hypothesis data under the hypothesis' digest in
a bounded store (a fresh ``Hypothesis`` per checkpoint never gets another's numbers back)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from gecscope.errors import ConfigError, FormatError, InputWarning, LengthMismatchError
from gecscope.formats.plain import read_tokens
from gecscope.formats.references import (
    ReferenceFile,
    check_m2_sources,
    corpus_references,
    read_references,
)
from gecscope.hypothesis import DERIVED_CACHE_SIZE, Hypothesis, HypothesisStore
from gecscope.languages import (
    Language,
    Tokeniser,
    annotate_rows,
    as_language,
    reference_sets,
    tokenise_texts,
)
from gecscope.progress import tick
from gecscope.types import Corpus, Slot, Tokens

__all__ = ["DERIVED_CACHE_SIZE", "HYPOTHESIS_EDITS", "REFERENCE_EDITS", "EvalData", "Hypothesis",
           "Slot"]

T = TypeVar("T")

#: The references annotated with the language's extractor (plain-text references).
REFERENCE_EDITS: Slot[Corpus] = Slot(__name__, "REFERENCE_EDITS", portable=True,
                                     cut=lambda c, start, stop: c.subset(start, stop))
#: A hypothesis' edits (kept per hypothesis, by content; they travel to workers).
HYPOTHESIS_EDITS: Slot[Corpus] = Slot(__name__, "HYPOTHESIS_EDITS", portable=True)

_FILES_LOADER = "EvalData.from_files(references, source)"


class EvalData:
    """The references of an evaluation, shared (and cached) across every system scored:
    :meth:`from_files`, :meth:`from_m2`, :meth:`from_texts`, or the paths the user gave (one
    M2 or gold XML file, or plain-text references with ``source_path``), read when needed.
    Hypotheses reach the metrics through :func:`gecscope.gate.admit`."""

    def __init__(self, reference_paths: Sequence[str] = (), source_path: str | None = None,
                 lang: Language | str | None = None) -> None:
        if isinstance(reference_paths, str | Path):
            reference_paths = (str(reference_paths),)
        self.lang: Language = as_language(lang)  # tokeniser and edit extractor (default en)
        #: whether missing k-th references reuse the sentence's others (see :attr:`references`)
        self.cycle_references = False
        self.reference_paths: tuple[str, ...] = tuple(str(p) for p in reference_paths)
        self.source_path = str(source_path) if source_path is not None else None
        #: the references' sentence ids (a parallel reference file's first column), by which
        #: parallel-format hypotheses are matched to them (the gate); ``None`` otherwise
        self.ids: tuple[str, ...] | None = None
        self.repeated_id: str | None = None  # an id the references give twice: by position
        #: the reference file as read (:func:`~gecscope.formats.references.read_references`)
        self.reference_file: ReferenceFile | None = None
        self._slots: dict[Slot[Any], Any] = {}
        self._derived = HypothesisStore(DERIVED_CACHE_SIZE)

    def __repr__(self) -> str:
        return f"EvalData({', '.join(self.reference_paths) or 'in memory'})"

    def __getstate__(self) -> dict[str, Any]:
        """What a worker process needs (pickling): the paths, the parsed references and the
        portable :class:`Slot` s (every system's extracted edits among them). Models, encoders
        and per-process memo tables stay behind (a worker builds its own)."""
        return {**self.__dict__, "_slots": {k: v for k, v in self._slots.items() if k.portable}}

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
            assert data.m2 is not None
            check_m2_sources(src, data.m2)
            data.__dict__["hypothesis_sources"] = src  # text hypotheses were made from these
            return data
        data = cls((), None, language_)
        data.__dict__["sources"] = src
        if references is None:
            data.__dict__["references"] = []
            return data
        sets = reference_sets(references, len(src), _FILES_LOADER)
        refs = [tokenise_texts(r, tokenise, f"references[{k}]", _FILES_LOADER)
                for k, r in enumerate(sets)]
        data.__dict__["references"] = refs
        data.reference_paths = tuple(f"<reference {k}>" for k in range(len(refs)))
        return data

    @cached_property
    def m2(self) -> Corpus | None:
        """The gold M2 corpus, if the references are a single M2 file or I-measure gold XML
        (converted to M2 with every alternative of every annotator; the parsed XML stays in
        :attr:`reference_file`)."""
        if len(self.reference_paths) != 1 or self.reference_paths[0].startswith("<"):
            return None
        path = self.reference_paths[0]
        ref = self.reference_file = read_references(path, parallel=self.source_path is None)
        self.cycle_references = ref.cycle
        if ref.rows is not None:
            ids = tuple(r.id for r in ref.rows)
            self.ids = ids if len(set(ids)) == len(ids) else None  # duplicates: by position
            self.repeated_id = next((k for k, n in Counter(ids).items() if n > 1), None)
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
    def hypothesis_sources(self) -> list[Tokens]:
        """The sources text hypotheses' edits are found against: the ``-s`` file beside an M2
        (its S lines up to Unicode compatibility forms: ChERRANT's demo M2 has ':' where its
        source and the system have '：'; :func:`~gecscope.formats.references.check_m2_sources`),
        else :attr:`sources`. So one hypothesis gives one number whatever carries it."""
        if self.m2 is None or self.source_path is None or self.reference_file is None \
                or self.reference_file.rows is not None:
            return self.sources
        given = read_tokens(self.source_path, tokenise=self.lang.tokeniser())
        check_m2_sources(given, self.m2, self.source_path)
        return given

    @cached_property
    def references(self) -> list[list[Tokens]]:
        """References as ``[reference][sentence]`` token lists, length-checked (from an M2:
        :func:`~gecscope.formats.references.corpus_references`)."""
        if self.m2 is not None:
            return corpus_references(self.m2, self.cycle_references)
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
        """The gold edits: the reference M2, or plain-text references annotated by the
        language's extractor (annotator ``k`` = reference ``k``), computed once."""
        if self.m2 is not None:
            return self.m2
        if not self.references:
            raise ConfigError("this metric needs references (none were given)")
        return self.slot(REFERENCE_EDITS, lambda: self.lang.annotator().annotate_corpus(
            self.sources, self.references))

    def subset(self, start: int, stop: int) -> EvalData:
        """Sentences ``start`` to ``stop - 1`` (scoring in ranges): the whole's sources,
        reference sets, file and :class:`Slot` s with a ``cut``, cut, so every per-sentence
        statistic is the whole's; other slots start empty."""
        n = len(self)
        if not 0 <= start <= stop <= n:
            raise ConfigError(f"sentence range {start}:{stop} is outside the {n} sentences")
        part = EvalData(self.reference_paths, self.source_path, self.lang)
        part.cycle_references = self.cycle_references
        m2 = self.m2
        part.ids = self.ids[start:stop] if self.ids is not None else None
        part.__dict__["m2"] = m2.subset(start, stop) if m2 is not None else None
        part.__dict__["sources"] = self.sources[start:stop]
        part.__dict__["hypothesis_sources"] = self.hypothesis_sources[start:stop]
        part.__dict__["references"] = ([r[start:stop] for r in self.references]
                                       if self.has_references else [])
        if self.reference_file is not None:
            part.reference_file = self.reference_file.subset(start, stop)
        part._slots = {k: k.cut(v, start, stop) for k, v in self._slots.items() if k.cut}
        return part

    # -- derived data: reference slots, and hypothesis data by content ---------------------

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

    def derived(self, hyp: Hypothesis, key: Any, compute: Callable[[], T]) -> T:
        """``compute()`` for ``hyp`` under ``key``, cached by the hypothesis' content."""
        return self._derived.get(hyp, key, compute)

    def hypothesis_m2(self, hyp: Hypothesis) -> Corpus:
        """The hypothesis' edits: its M2's, or found by the language's extractor (by content;
        every distinct sentence is parsed once per process, whichever system wrote it)."""
        if hyp.m2 is not None:
            return hyp.m2
        return self.derived(hyp, HYPOTHESIS_EDITS, lambda: self.lang.annotator().annotate_corpus(
            self.hypothesis_sources, [hyp.tokens], progress=tick))

    def known_hypothesis_m2(self, hyp: Hypothesis) -> Corpus | None:
        """The edits of ``hyp`` if they are at hand (its M2, or extracted before), else None."""
        return hyp.m2 if hyp.m2 is not None else self._derived.peek(hyp, HYPOTHESIS_EDITS)

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
        if other is not self and other.lang == self.lang \
                and other.hypothesis_sources == self.hypothesis_sources:
            self._derived.adopt(other._derived, HYPOTHESIS_EDITS)

"""A system's output (:class:`Hypothesis`): its corrected sentences as token tuples, and its
edits when an M2 gave them; read from plain text, M2 or ChERRANT's parallel format.

Immutable and keyed by content (:attr:`Hypothesis.key`), so what an
:class:`~gecscope.data.EvalData` derives from it is never another output's.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from gecscope.errors import FormatError, LengthMismatchError
from gecscope.formats.m2 import format_sentence, parse_m2
from gecscope.formats.parallel import parse_parallel
from gecscope.formats.plain import split_tokens
from gecscope.formats.references import read_hypothesis_text
from gecscope.languages import (
    Language,
    Tokeniser,
    annotate_rows,
    as_language,
    check_token_lists,
    tokenise_texts,
)
from gecscope.types import Corpus, Slot, Tokens

T = TypeVar("T")


class Hypothesis:
    """One system's output: its corrected sentences (token tuples), and its edits when known.

    Read from ChERRANT's parallel format, it also keeps the file's ``sources`` column and its
    ``ids``: the gate (:func:`gecscope.gate.admit`) matches the rows to the references' by id (when those
    have ids) and checks every source against the references' before anything is scored.

    Immutable: :attr:`key` digests the content once, so caches keyed by it stay valid.
    """

    name: str
    tokens: tuple[Tokens, ...]
    m2: Corpus | None
    path: str | None
    sources: tuple[Tokens, ...] | None
    ids: tuple[str, ...] | None
    #: What was done to the file's text before scoring (``"re-tokenised (nltk)"``, ``"cut
    #: from 263 paragraph lines"``): reports keep it beside the system's numbers
    notes: tuple[str, ...]

    def __init__(self, name: str, tokens: Sequence[Sequence[str]], m2: Corpus | None = None,
                 path: str | None = None, *, sources: Sequence[Sequence[str]] | None = None,
                 ids: Sequence[str] | None = None, notes: Sequence[str] = ()) -> None:
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
        object.__setattr__(self, "notes", tuple(notes))

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
                          ids=pick(self.ids), notes=self.notes)

    def prepared(self, tokens: Sequence[Sequence[str]], note: str) -> Hypothesis:
        """The same output with its sentences replaced by ``tokens`` (no edits: they are
        found again), ``note`` saying how (added to :attr:`notes`, which a report shows)."""
        return Hypothesis(self.name, tokens, None, self.path, sources=self.sources,
                          ids=self.ids, notes=(*self.notes, note))

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
        :func:`gecscope.gate.admit`), which matches its rows to the references' by id and checks
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
            if language_.edit_extractor.raw_text:
                # as parallel_to_m2.py: the edits are found against the file's own sources
                corpus = Corpus(annotate_rows(language_, [(r.source, r.targets) for r in rows]),
                                str(p))
                return cls(label, corpus.hypotheses(), corpus, str(p), sources=corpus.sources,
                           ids=ids)
            return cls(label, [fn(r.targets[0]) for r in rows], None, str(p),
                       sources=[fn(r.source) for r in rows], ids=ids)
        toks = split_tokens(text, p, expected=expected, expected_from=expected_from, tokenise=fn)
        return cls(label, toks, None, str(p))


#: Hypotheses whose derived data an :class:`~gecscope.data.EvalData` keeps.
DERIVED_CACHE_SIZE = 16


class HypothesisStore:
    """A bounded store of hypothesis-derived data, keyed by content (:attr:`Hypothesis.key`;
    least recently used dropped first): what :class:`~gecscope.data.EvalData` derives from
    each system's output."""

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

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (to a worker process): only the values under portable
        :class:`~gecscope.types.Slot` s, every one of them (the store grows to hold them)."""
        hyps = OrderedDict((h, kept) for h, e in self._hyps.items() if (kept := {
            k: v for k, v in e.items() if isinstance(k, Slot) and k.portable}))
        return {"size": max(self.size, len(hyps)), "_hyps": hyps}

    def peek_key(self, hyp_key: str, key: Any) -> Any:
        return self._hyps.get(hyp_key, {}).get(key)

    def adopt(self, other: HypothesisStore, key: Any) -> None:
        """Take ``other``'s values under ``key`` for the hypotheses that have none here."""
        for hyp_key, value in other.entries(key).items():
            if value is not None and self.peek_key(hyp_key, key) is None:
                self.put(hyp_key, key, value)

    def entries(self, key: Any) -> dict[str, Any]:
        """``{hypothesis key: value}`` of every hypothesis that has ``key``."""
        return {h: e[key] for h, e in self._hyps.items() if key in e}

    def clear(self) -> None:
        self._hyps.clear()


def system_names(paths: Sequence[str | Path]) -> list[str]:
    """Row names for hypothesis files: the file stem, or the whole file name where two stems
    collide (``AMU`` and ``AMU.detok`` would both be "AMU"), or the path where those collide
    too; ``-`` is "stdin"."""
    def stem(p: str | Path) -> str:
        return "stdin" if str(p) == "-" else Path(p).stem

    stems = [stem(p) for p in paths]
    names = [Path(p).name if stems.count(s) > 1 and str(p) != "-" else s
             for p, s in zip(paths, stems, strict=True)]
    return [str(p) if names.count(n) > 1 else n for p, n in zip(paths, names, strict=True)]

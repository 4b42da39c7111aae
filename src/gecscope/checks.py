"""Input checks that cannot be errors but often mean a wrong number: warnings for the CLI.

Each function returns a message (or None); the caller decides where it goes (the CLI prints
``gecscope: warning: ...`` on stderr; :func:`gecscope.evaluate` warns with
:class:`~gecscope.errors.InputWarning`). :func:`input_warnings` is the one place they are
gathered for an evaluation's inputs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from gecscope.data import EvalData, Hypothesis, Slot
from gecscope.types import Tokens

# a word with sentence punctuation glued on ("apple.", "However,"), or a clitic not split off
_GLUED = re.compile(r"^(?:\w+[.,;:!?]+|\w+n't|\w+'(?:s|re|ve|ll|d|m))$", re.IGNORECASE)


def glued_share(sentences: Sequence[Tokens]) -> float:
    """Share of tokens that carry punctuation or a clitic a tokeniser would split off."""
    total = glued = 0
    for toks in sentences:
        total += len(toks)
        glued += sum(1 for t in toks if _GLUED.match(t))
    return glued / total if total else 0.0


def tokenisation_warning(name: str, hypothesis: Sequence[Tokens],
                         reference_share: float) -> str | None:
    """A warning when the hypothesis looks detokenised while the references are tokenised
    (every glued token is an edit no reference contains: M2 on a detokenised CoNLL-2014 AMU
    falls from 35.01 to 16.37). ``reference_share``: :func:`glued_share` of the references,
    computed once for all hypotheses."""
    hyp, ref = glued_share(hypothesis), reference_share
    if hyp >= 0.02 and hyp > 5 * ref:
        return (f"{name}: {100 * hyp:.1f}% of its tokens carry punctuation or a clitic "
                f"(\"apple.\", \"don't\") against {100 * ref:.1f}% in the references: it looks "
                "detokenised while the references are tokenised; tokenise it the way the "
                "references are (e.g. with spaCy) or the score will be far too low")
    return None


def m2_role_warning(name: str, hypothesis_annotators: Sequence[int],
                    reference_annotators: Sequence[int]) -> str | None:
    """A warning when a hypothesis M2 has several annotators (a reference file, or --ref and
    --hyp swapped)."""
    if len(hypothesis_annotators) > 1:
        swapped = " (--ref and --hyp swapped?)" if len(reference_annotators) <= 1 else ""
        return (f"{name}: this hypothesis M2 has {len(hypothesis_annotators)} annotators "
                f"({', '.join(map(str, hypothesis_annotators))}), like a reference file"
                f"{swapped}; a system M2 has one, and only annotator "
                f"{hypothesis_annotators[0]}'s edits are scored")
    return None


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


_ERRANT_TYPE = re.compile(r"^(?:[MRU]:[A-Z]+(?::[A-Z]+)?|UNK)$")


def errant_typed(types: Sequence[str]) -> bool:
    """Whether most of these edit types are ERRANT's (``R:NOUN:NUM``, ``M:DET``, ``UNK``)."""
    types = [t for t in types if t and t != "noop"]
    return bool(types) and sum(1 for t in types if _ERRANT_TYPE.match(t)) >= len(types) / 2


#: zero-width characters: invisible, yet each one makes a token differ from the source's
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


def _plain_form(tokens: Sequence[str]) -> tuple[str, ...]:
    return tuple(unicodedata.normalize("NFC", " ".join(tokens)).translate(ZERO_WIDTH).split())


def unicode_form_warning(name: str, hypothesis: Sequence[Tokens], sources: Sequence[Tokens],
                         path: str | None = None) -> str | None:
    """A warning when hypothesis lines differ from their source by Unicode form alone
    (composed vs decomposed characters, NFC/NFD) or by zero-width characters: each such
    difference is an edit to every metric, though no reader sees one. Numbers are not
    changed; the message says how many lines, and the first."""
    only = other = 0
    first: int | None = None
    for i, (h, s) in enumerate(zip(hypothesis, sources, strict=False)):
        if h == s:
            continue
        if _plain_form(h) == _plain_form(s):
            only += 1
        elif _plain_form(s) == tuple(s) and any(_plain_form((t,)) != (t,) for t in h):
            other += 1  # a correction written in another form than the source's
        else:
            continue
        first = i + 1 if first is None else first
    if not only and not other:
        return None
    return (f"{name}{f' ({path})' if path else ''}: {only + other} line(s) differ from the "
            "source by Unicode normalisation (NFC/NFD forms) or zero-width characters "
            f"({only} only by that, {other} beside their corrections; first: line {first}); "
            "every such difference counts as an edit; normalise the file (e.g. to NFC, "
            "without zero-width characters) if that is not meant")


#: :func:`glued_share` of the first reference set.
GLUED_SHARE: Slot[float] = Slot(__name__, "GLUED_SHARE")


def input_warnings(data: EvalData, hyps: Sequence[Hypothesis]) -> list[str]:
    """What looks wrong in inputs that can still be scored, one message each: a detokenised
    hypothesis against tokenised references, a hypothesis M2 with several annotators, lines
    that differ from the source by Unicode form only. The one place these are detected:
    :func:`gecscope.evaluate` emits them as :class:`InputWarning`, the CLI prints them."""
    ref_annotators = data.m2.annotators if data.m2 is not None else ()
    ref_share = None
    if data.has_references and data.references:  # once per EvalData, not per call
        ref_share = data.slot(GLUED_SHARE, lambda: glued_share(data.references[0]))
    out: list[str] = []
    for h in hyps:
        found = []
        if h.m2 is not None:
            found.append(m2_role_warning(h.name, h.m2.annotators, ref_annotators))
        if ref_share is not None:
            found.append(tokenisation_warning(h.name, h.tokens, ref_share))
        found.append(unicode_form_warning(h.name, h.tokens, data.sources, h.path))
        out.extend(w for w in found if w)
    return out

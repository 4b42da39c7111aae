"""Input checks that cannot be errors but often mean a wrong number: a detokenised
hypothesis, running-text references, an M2 with several annotators given as a hypothesis,
differences of Unicode form only.

Each check returns a message (or None); :func:`input_warnings` is the one place they are
gathered for an evaluation's inputs, as :class:`~gecscope.gate.findings.Finding` s: the CLI
prints them (``gecscope: warning: ...``), :func:`gecscope.evaluate` warns with
:class:`~gecscope.errors.InputWarning`, ``gecscope check`` lists them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from gecscope.data import EvalData
from gecscope.gate.findings import WARNING, Finding, finding
from gecscope.hypothesis import Hypothesis
from gecscope.types import Slot, Tokens

# a word with sentence punctuation glued on ("apple.", "However,"), or a clitic not split off
_GLUED = re.compile(r"^(?:\w+[.,;:!?]+|\w+n't|\w+'(?:s|re|ve|ll|d|m))$", re.IGNORECASE)


def glued_share(sentences: Sequence[Tokens]) -> float:
    """Share of tokens that carry punctuation or a clitic a tokeniser would split off."""
    total = glued = 0
    for toks in sentences:
        total += len(toks)
        glued += sum(1 for t in toks if _GLUED.match(t))
    return glued / total if total else 0.0


#: A hypothesis looks detokenised when this share of its tokens is glued (and five times the
#: references' share) ...
DETOK_TOKEN_SHARE = 0.02
#: ... or when this share of its non-empty lines (and at least :data:`DETOK_MIN_LINES` of
#: them) carry a glued token while its glued share is five times the references': a file
#: detokenised in part (some lines written by an LLM, two runs concatenated), whose glued
#: share over the whole file stays under 2% (10% of CoNLL-2014 AMU's lines detokenised: 0.9%,
#: M2 F0.5 0.3501 -> 0.3121) while tokenised files have such tokens ("etc.") on under 1% of lines
DETOK_LINE_SHARE = 0.02
DETOK_MIN_LINES = 3


def detokenised_evidence(hypothesis: Sequence[Tokens], reference_share: float) -> str | None:
    """Why ``hypothesis`` looks detokenised against references whose :func:`glued_share` is
    ``reference_share`` (one phrase, with the figures), or ``None``: the test behind the
    warning and ``--hyp-tokenise auto``. Either its share of glued tokens, or its share of
    lines with one (a file detokenised in part), is high where the references' is not."""
    hyp = glued_share(hypothesis)
    if hyp <= 5 * reference_share or hyp == 0:
        return None
    tokens = (f"{100 * hyp:.1f}% of its tokens carry punctuation or a clitic "
              f"(\"apple.\", \"don't\") against {100 * reference_share:.1f}% in the "
              "references")
    if hyp >= DETOK_TOKEN_SHARE:
        return tokens
    lines = [toks for toks in hypothesis if toks]
    glued = [i for i, toks in enumerate(hypothesis, 1) if any(_GLUED.match(t) for t in toks)]
    if len(glued) >= DETOK_MIN_LINES and len(glued) >= DETOK_LINE_SHARE * len(lines):
        first = ", ".join(map(str, glued[:5])) + (", ..." if len(glued) > 5 else "")
        return (f"{len(glued)} of its {len(lines)} lines ({100 * len(glued) / len(lines):.1f}%: "
                f"{first}) carry punctuation or a clitic glued to a word (\"apple.\", "
                f"\"don't\"), {100 * hyp:.1f}% of its tokens against "
                f"{100 * reference_share:.1f}% in the references (detokenised in part)")
    return None


def tokenisation_warning(name: str, hypothesis: Sequence[Tokens],
                         reference_share: float) -> str | None:
    """A warning when the hypothesis looks detokenised while the references are tokenised
    (:func:`detokenised_evidence`; every glued token is an edit no reference contains: M2 on
    a detokenised CoNLL-2014 AMU falls from 35.01 to 16.37). ``reference_share``:
    :func:`glued_share` of the references, computed once for all hypotheses."""
    evidence = detokenised_evidence(hypothesis, reference_share)
    if evidence is None:
        return None
    return (f"{name}: {evidence}: it looks detokenised while the references are tokenised; "
            "re-tokenise it the way the references are (--hyp-tokenise auto; "
            "hyp_tokenise='auto' in gecscope.evaluate) or the score will be far too low")


def running_text_references_warning(name: str, hypothesis: Sequence[Tokens],
                                     reference_share: float) -> str | None:
    """A warning for the other way round: plain-text references that are running text
    (``However, it isn't.``) against a tokenised hypothesis (``However , it is n't .``).
    Every split comma is then an edit too (JFLEG dev, references detokenised, its tokenised
    reference 1 as the hypothesis: GLEU 0.3853 instead of 0.5563), and ``--hyp-tokenise``
    cannot help: all inputs must be tokenised alike."""
    hyp = glued_share(hypothesis)
    if reference_share >= DETOK_TOKEN_SHARE and hyp * 5 < reference_share:
        return (f"{name}: {100 * reference_share:.1f}% of the references' tokens carry "
                f"punctuation or a clitic (\"apple.\", \"don't\") against {100 * hyp:.1f}% "
                "of its own: the references look like running text while the hypothesis is "
                "tokenised; tokenise every input alike (--tokenise nltk, or --tokenise spacy: "
                "source, references and hypotheses) or the score will be far too low")
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


#: zero-width characters: invisible, yet each one makes a token differ from the source's
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))


def _plain_form(tokens: Sequence[str]) -> tuple[str, ...]:
    text = " ".join(tokens)
    if not text.isascii():  # ASCII is its own NFC form and has no zero-width characters
        text = unicodedata.normalize("NFC", text).translate(ZERO_WIDTH)
    return tuple(text.split())


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


#: the fix and the summary words of each warning's finding
_WARNINGS = {
    "detokenised": (
        ("score with --hyp-tokenise auto (retokenises it the way the references were made), or "
        "tokenise the file first"), "detokenised hypothesis"),
    "running-text-references": (
        ("score with --tokenise nltk (or spacy), which tokenises the source, references and "
        "hypotheses alike"), "references are running text"),
    "m2-role": ("give the system's M2 (one annotator) as --hyp and the references as -r",
                "M2 with several annotators"),
    "unicode-form": ("normalise the file to NFC without zero-width characters",
                     "Unicode normal form"),
}


def warning_finding(code: str, message: str | None, name: str,
                    path: str | None) -> Finding | None:
    """The finding of one of the checks above (``None`` for no message)."""
    if not message:
        return None
    fix, short = _WARNINGS.get(code, ("", code))
    return finding(code, WARNING, message, fix, file=path, system=name,
                   short=f"{name}: {short}")


def reference_share(data: EvalData) -> float | None:
    """:func:`glued_share` of the first reference set, once per data (``None`` without
    references)."""
    if data.has_references and data.references:
        return data.slot(GLUED_SHARE, lambda: glued_share(data.references[0]))
    return None


def hypothesis_warnings(name: str, path: str | None, tokens: Sequence[Tokens],
                        sources: Sequence[Tokens], ref_share: float | None,
                        hyp_annotators: Sequence[int] | None,
                        ref_annotators: Sequence[int], unicode: bool = True) -> list[Finding]:
    """The checks above for one hypothesis, as findings (``unicode``: also the Unicode-form
    check, the costly one)."""
    said: list[Finding | None] = []
    if hyp_annotators is not None:
        said.append(warning_finding("m2-role", m2_role_warning(name, hyp_annotators,
                                                               ref_annotators), name, path))
    if ref_share is not None:
        said.append(warning_finding("detokenised", tokenisation_warning(name, tokens, ref_share),
                                    name, path))
        said.append(warning_finding("running-text-references", running_text_references_warning(
            name, tokens, ref_share), name, path))
    if unicode:
        said.append(warning_finding("unicode-form", unicode_form_warning(name, tokens, sources,
                                                                          path), name, path))
    return [f for f in said if f is not None]


def input_warnings(data: EvalData, hyps: Sequence[Hypothesis]) -> list[Finding]:
    """What looks wrong in inputs that can still be scored, one finding each: a detokenised
    hypothesis against tokenised references (or the other way round), a hypothesis M2 with
    several annotators, lines that differ from the source by Unicode form only. The one
    place these are detected (:func:`gecscope.gate.admit` runs it)."""
    ref_annotators = data.m2.annotators if data.m2 is not None else ()
    ref_share = reference_share(data)
    out: list[Finding] = []
    for h in hyps:
        out += hypothesis_warnings(h.name, h.path, h.tokens, data.sources, ref_share,
                                   h.m2.annotators if h.m2 is not None else None,
                                   ref_annotators)
    return out

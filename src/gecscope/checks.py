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
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError, FormatError, LengthMismatchError
from gecscope.languages import path_hint
from gecscope.types import Corpus, Slot, Tokens

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData, Hypothesis

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
    hypothesis against tokenised references (or the other way round), a hypothesis M2 with several annotators, lines
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
            found.append(running_text_references_warning(h.name, h.tokens, ref_share))
        found.append(unicode_form_warning(h.name, h.tokens, data.sources, h.path))
        out.extend(w for w in found if w)
    return out


def align_hypothesis(data: EvalData, hyp: Hypothesis) -> Hypothesis:
    """``hyp`` with its sentences in the references' order, checked (:func:`check_hypothesis`).

    A parallel-format hypothesis (with ids) is matched by id when the references have ids
    (a parallel reference file whose ids are unique): rows in another order are put in
    the references' order; a duplicate, unknown or missing id is a :class:`FormatError`
    naming the file, line and id. Otherwise sentences are matched by position, and a
    hypothesis that carries its sources (M2 or parallel) must have the references' source
    on every line. Every input path (the CLI, :func:`gecscope.evaluate`) goes through here,
    whatever the language."""
    len(data)  # reads the references (and their ids)
    if hyp.ids is not None and data.ids is not None and hyp.ids != data.ids:
        known = frozenset(data.ids)
        where = data.reference_paths[0] if data.reference_paths else "the references"
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
        missing = [k for k in data.ids if k not in position]
        if missing:
            raise FormatError(f"has no line for id {missing[0]!r} of the references ({where}"
                              f"; {len(missing)} id(s) missing)", hyp.path or hyp.name)
        hyp = hyp.reordered([position[k] for k in data.ids])
    check_hypothesis(data, hyp)
    return hyp

def check_hypothesis(data: EvalData, hyp: Hypothesis) -> None:
    """The hypothesis has one sentence per reference sentence, in the references' order:
    its ids (parallel format) are the references' and its sources (M2 or parallel format)
    are the references' sources, on every line (see :func:`align_hypothesis`, which reorders by id)."""
    if len(hyp) != len(data):
        origin = data.reference_paths[0] if data.m2 is not None else data.source_path
        raise LengthMismatchError(len(data), len(hyp), hyp.path or hyp.name, "sentences",
                                  origin)
    if hyp.ids is not None and data.ids is not None and hyp.ids != data.ids:
        i = next(i for i, (a, b) in enumerate(zip(hyp.ids, data.ids, strict=True)) if a != b)
        raise FormatError(
            f"has id {hyp.ids[i]!r} where the references' sentence {i + 1} has id "
            f"{data.ids[i]!r}: its lines are in another order; gecscope.evaluate() and "
            "`gecscope evaluate`/`compare` match them by id (EvalData.align)", hyp.path, i + 1)
    sources = hyp.m2.sources if hyp.m2 is not None else hyp.sources
    if sources is not None and list(sources) != list(data.sources):
        parallel = hyp.sources is not None
        for i, (a, b) in enumerate(zip(sources, data.sources, strict=True)):
            # equal up to Unicode compatibility forms is the same source: ChERRANT's
            # demo references have ':' where its hypothesis M2 has the full-width '：'
            if a != b and unicodedata.normalize("NFKC", " ".join(a)) != \
                    unicodedata.normalize("NFKC", " ".join(b)):
                what = ("its source column differs from the references' source"
                        if parallel else "source differs from the reference source")
                fix = ("a parallel file's source column must be the references' source, "
                       "line by line" if parallel else
                       "hypothesis and reference M2 must share their S lines")
                j = next((j for j, ref in enumerate(data.sources) if ref == a), None)
                if j is not None:
                    why = ("a parallel reference file with unique ids; these references give "
                           f"id {data.repeated_id!r} twice" if data.repeated_id is not None
                           else "references with ids, a parallel reference file")
                    fix = (f"it is the source of the references' sentence {j + 1}: lines "
                           f"in another order? (matching by id needs {why})")
                raise FormatError(
                    f"sentence {i + 1}: {what} ({' '.join(a)[:50]!r} vs "
                    f"{' '.join(b)[:50]!r}); {fix}", hyp.path, i + 1 if parallel else None)


def reference_sets(references: Any, n: int, loader: str) -> list[list[str]]:
    """In-memory references as ``[reference][sentence]`` lists of ``n`` strings each: a file
    path (pointed at ``loader``), a single reference not wrapped in a list and
    ``[sentence][reference]`` lists are refused with a message saying how to fix them."""
    hint = path_hint(references, loader)
    if hint:
        raise TypeError(f"references: {hint}")
    if isinstance(references, str | bytes) or (
            len(references) and all(isinstance(r, str) for r in references)):
        raise TypeError("references must be a list of reference sets ([reference][sentence]); "
                        "got a list of strings: for one reference write references=[refs]")
    sets = [list(r) for r in references]
    if sets and all(len(r) != n for r in sets) and len(sets) == n:
        raise ConfigError(
            f"references look like [sentence][reference] ({len(sets)} lists of "
            f"{len(sets[0])}); give them as [reference][sentence]: "
            "references=[list(r) for r in zip(*references)]")
    for k, r in enumerate(sets):
        if len(r) != n:
            raise LengthMismatchError(n, len(r), f"references[{k}]", "sentences", "sources")
    return sets


def check_m2_sources(sources: Sequence[Tokens], gold: Corpus,
                     path: str | None = None) -> None:
    """The sources given with a gold M2 (read from ``path``, or from memory) are its S lines,
    sentence by sentence, token for token up to Unicode compatibility forms (NFKC: ChERRANT's
    demo M2 has ':' where its source file has the full-width '：')."""
    if len(gold) != len(sources):
        raise LengthMismatchError(len(sources), len(gold), gold.path, "sentences",
                                  path or "sources")
    for i, (a, b) in enumerate(zip(sources, gold.sources, strict=True)):
        if a != b and (len(a) != len(b) or any(
                x != y and unicodedata.normalize("NFKC", x) != unicodedata.normalize("NFKC", y)
                for x, y in zip(a, b, strict=True))):
            what = (f"the source differs from the M2's S line ({' '.join(a)[:40]!r} vs "
                    f"{' '.join(b)[:40]!r}; {gold.path or 'the M2'})")
            if path is not None:
                raise FormatError(f"{what}: give the source the M2 was made from, or no source",
                                  path, i + 1)
            raise ConfigError(f"sentence {i + 1}: {what}")

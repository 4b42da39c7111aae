"""Input checks that cannot be errors but often mean a wrong number: warnings for the CLI.

Each function returns a message (or None); the caller decides where it goes (the CLI prints
``gecscope: warning: ...`` on stderr). Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

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


def type_set_warning(system: str, reference_types: Sequence[str],
                     hypothesis_types: Sequence[str]) -> str | None:
    """A warning when the references and the hypothesis are typed in different schemes
    (NUCLE's ``ArtOrDet``, ``Nn`` in the official CoNLL-2014 M2 against ERRANT's
    ``R:NOUN:NUM`` of an ERRANT-annotated hypothesis): hits and misses then fall into the
    references' types, false positives into the hypothesis', and no row means anything."""
    if not reference_types or not hypothesis_types:
        return None
    ref, hyp = errant_typed(reference_types), errant_typed(hypothesis_types)
    if ref == hyp:
        return None
    def scheme(types: Sequence[str], errant: bool) -> str:
        if errant:
            return "ERRANT's types"
        return "types such as " + ", ".join(sorted({t for t in types if t and t != "noop"})[:3])

    return (f"{system}: the references use {scheme(reference_types, ref)}, the hypothesis "
            f"{scheme(hypothesis_types, hyp)}, so the per-type "
            "table is meaningless; re-annotate the references with ERRANT first: "
            "gecscope annotate --retype REF.m2 --output REF.errant.m2 (errant_m2 -auto)")

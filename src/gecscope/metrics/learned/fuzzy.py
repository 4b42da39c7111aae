"""String-similarity ratios Scribendi uses, without fuzzywuzzy or python-Levenshtein.

Two ratios decide whether a correction stays close enough to its source:

* :func:`levenshtein_ratio`: ``1 - d / (len(a) + len(b))`` over characters, where ``d`` is
  the Levenshtein distance with substitutions costing 2 (a substitution is then never cheaper
  than a deletion plus an insertion, so ``d`` is the insertion/deletion distance,
  ``len(a) + len(b) - 2 * LCS(a, b)``). This is python-Levenshtein's ``ratio`` and the ratio
  gec-metrics computes with its own dynamic programme.
* :func:`token_sort_ratio`: fuzzywuzzy 0.18's ``fuzz.token_sort_ratio`` with its defaults
  (``force_ascii=True``, ``full_process=True``) and python-Levenshtein installed, as
  gec-metrics requires: both strings are cleaned (:func:`full_process`), their whitespace
  tokens sorted and re-joined with single spaces, and the two results compared with the ratio
  above, as a whole percentage (Python's ``round``, which rounds halves to even). Equal
  cleaned strings score 100 (even when both are empty); an empty one against a non-empty one
  scores 0.

The longest common subsequence is computed bit-parallel (Allison and Dix 1986; Hyyrö 2004)
with Python integers as bit vectors: one pass over the second string, a few integer
operations per character, so a 200-character pair takes microseconds.
"""

from __future__ import annotations

import re

__all__ = ["full_process", "indel_distance", "lcs_length", "levenshtein_ratio",
           "token_sort_ratio"]

#: fuzzywuzzy's ``force_ascii`` removes only the Latin-1 supplement (U+0080 to U+00FF);
#: characters beyond it stay (and most become spaces as non-word characters).
_LATIN1_SUPPLEMENT = {c: None for c in range(0x80, 0x100)}
#: One space per character that is not a Unicode word character (letters, digits, ``_``).
_NON_WORD = re.compile(r"\W")


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of the characters of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full  # bit i is 0 where the LCS grows at position i of ``a``
    for ch in b:
        u = v & masks.get(ch, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def indel_distance(a: str, b: str) -> int:
    """Character edit distance with insertions and deletions only (a substitution costs 2)."""
    return len(a) + len(b) - 2 * lcs_length(a, b)


def levenshtein_ratio(a: str, b: str) -> float:
    """``1 - d / (len(a) + len(b))`` with ``d`` the :func:`indel_distance`; 1.0 for two empty
    strings (python-Levenshtein's convention; gec-metrics never asks, equal strings score 0
    before any ratio)."""
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    return 1 - indel_distance(a, b) / total


def full_process(text: str, force_ascii: bool = True) -> str:
    """fuzzywuzzy's cleaning: drop U+0080..U+00FF (``force_ascii``), turn every non-word
    character into a space, lower-case, strip surrounding whitespace."""
    if force_ascii:
        text = text.translate(_LATIN1_SUPPLEMENT)
    return _NON_WORD.sub(" ", text).lower().strip()


def _sorted_tokens(text: str, force_ascii: bool) -> str:
    return " ".join(sorted(full_process(text, force_ascii).split()))


def token_sort_ratio(a: str, b: str, force_ascii: bool = True) -> int:
    """fuzzywuzzy's ``token_sort_ratio(a, b)``: the whole-percent ratio (0 to 100) of the two
    cleaned strings with their tokens sorted."""
    sa, sb = _sorted_tokens(a, force_ascii), _sorted_tokens(b, force_ascii)
    if sa == sb:
        return 100
    if not sa or not sb:
        return 0
    return round(100 * levenshtein_ratio(sa, sb))  # round half to even, as fuzzywuzzy

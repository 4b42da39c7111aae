"""ERRANT's linguistic alignment (errant 3.0.2 ``Alignment``), with a compiled programme.

ERRANT aligns an original and a corrected sentence by a Damerau-Levenshtein programme whose
substitution cost mixes lemma, part of speech and character similarity, and transpositions of
any length. errant runs it in Python over spaCy tokens; on CoNLL-2014 that was half of the
edit extraction's time (most of it attribute look-ups on spaCy's ``Doc`` in the inner loop).
Here the substitution costs of all token pairs are computed at once (rapidfuzz's ``cdist``
for the character part) and the programme runs compiled with numba (``gecscope[fast]``); the
costs, the tie order (transposition, substitution, insertion, deletion: the first cheapest)
and the backtrace are errant's, so the alignment is the same (a test compares both on the
CoNLL-2014 systems). Without numba, errant's own ``Alignment`` is used.
"""

from __future__ import annotations

from typing import Any

from gecscope._jit import HAVE_NUMBA, jit, np

OPEN_POS_COST = 0.25  # both parts of speech open-class (ADJ, ADV, NOUN, VERB)
OTHER_POS_COST = 0.5
LEMMA_COST = 0.499

# op codes of the programme; a transposition of k+1 tokens is TRANSPOSE + k + 1
MATCH, SUB, INS, DEL, TRANSPOSE = 1, 2, 3, 4, 10


class Alignment:
    """The parts of errant's ``Alignment`` that merging reads: ``orig``, ``cor`` and
    ``align_seq`` (``(op, o_start, o_end, c_start, c_end)``, ops ``M S I D T<k>``)."""

    __slots__ = ("align_seq", "cor", "orig")

    def __init__(self, orig: Any, cor: Any, align_seq: list[tuple[str, int, int, int, int]]
                 ) -> None:
        self.orig = orig
        self.cor = cor
        self.align_seq = align_seq


@jit
def _programme(o_orth: Any, c_orth: Any, o_low: Any, c_low: Any, sub: Any, lev: bool,
               cost: Any, op: Any, scratch_o: Any, scratch_c: Any) -> None:
    """Fill ``cost`` and ``op`` ((n+1) x (m+1)) as errant's ``Alignment.align`` does."""
    n = len(o_orth)
    m = len(c_orth)
    for i in range(1, n + 1):
        cost[i, 0] = cost[i - 1, 0] + 1
        op[i, 0] = DEL
    for j in range(1, m + 1):
        cost[0, j] = cost[0, j - 1] + 1
        op[0, j] = INS
    for i in range(n):
        for j in range(m):
            if o_orth[i] == c_orth[j]:
                cost[i + 1, j + 1] = cost[i, j]
                op[i + 1, j + 1] = MATCH
                continue
            del_cost = cost[i, j + 1] + 1
            ins_cost = cost[i + 1, j] + 1
            trans_cost = np.inf
            k = 1
            if lev:
                sub_cost = cost[i, j] + 1
            else:
                sub_cost = cost[i, j] + sub[i, j]
                # transpositions: along the diagonal while it is not a match
                while i - k >= 0 and j - k >= 0 and cost[i - k + 1, j - k + 1] != cost[i - k, j - k]:
                    for t in range(k + 1):
                        scratch_o[t] = o_low[i - k + t]
                        scratch_c[t] = c_low[j - k + t]
                    a = np.sort(scratch_o[:k + 1])
                    b = np.sort(scratch_c[:k + 1])
                    same = True
                    for t in range(k + 1):
                        if a[t] != b[t]:
                            same = False
                            break
                    if same:
                        trans_cost = cost[i - k, j - k] + k
                        break
                    k += 1
            # the first cheapest of (transposition, substitution, insertion, deletion)
            best = trans_cost
            code = TRANSPOSE + k + 1
            if sub_cost < best:
                best = sub_cost
                code = SUB
            if ins_cost < best:
                best = ins_cost
                code = INS
            if del_cost < best:
                best = del_cost
                code = DEL
            cost[i + 1, j + 1] = best
            op[i + 1, j + 1] = code


def _attributes(doc: Any) -> tuple[Any, list[str]]:
    """``(ORTH, LOWER, LEMMA, POS)`` of every token (uint64, one call into spaCy) and the
    token texts."""
    from spacy.attrs import LEMMA, LOWER, ORTH, POS

    return doc.to_array([ORTH, LOWER, LEMMA, POS]).reshape(-1, 4), [t.text for t in doc]


def _sub_costs(o: Any, c: Any, o_text: list[str], c_text: list[str]) -> Any:
    """errant's ``get_sub_cost`` of every token pair (``o``, ``c``: :func:`_attributes`): 0 for
    a difference of case only, else lemma (0 or 0.499) + part of speech (0, 0.25 or 0.5) +
    Indel distance of the texts, summed in that order."""
    import spacy.parts_of_speech as pos
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cdist

    open_pos = np.array([pos.ADJ, pos.ADV, pos.NOUN, pos.VERB], dtype=np.uint64)
    o_open = np.isin(o[:, 3], open_pos)
    c_open = np.isin(c[:, 3], open_pos)
    lemma = np.where(o[:, 2, None] == c[None, :, 2], 0.0, LEMMA_COST)
    pos_cost = np.where(o[:, 3, None] == c[None, :, 3], 0.0,
                        np.where(o_open[:, None] & c_open[None, :], OPEN_POS_COST,
                                 OTHER_POS_COST))
    char = cdist(o_text, c_text, scorer=Indel.normalized_distance, dtype=np.float64)
    sub = (lemma + pos_cost) + char
    sub[o[:, 1, None] == c[None, :, 1]] = 0.0
    return sub


def align(orig: Any, cor: Any, lev: bool = False, errant: Any = None) -> Any:
    """The cheapest alignment of two spaCy docs, as errant's ``Alignment(orig, cor, lev)``
    (``errant``: an errant ``Annotator``, used instead when numba is not installed)."""
    if not HAVE_NUMBA:
        if errant is None:  # pragma: no cover - callers pass the annotator
            from errant.alignment import Alignment as ErrantAlignment

            return ErrantAlignment(orig, cor, lev)
        return errant.align(orig, cor, lev)
    n, m = len(orig), len(cor)
    o, o_text = _attributes(orig)
    c, c_text = _attributes(cor)
    # ORTH and LOWER ids renumbered densely over both sentences (the hashes are uint64)
    _, orth = np.unique(np.concatenate([o[:, 0], c[:, 0]]), return_inverse=True)
    _, low = np.unique(np.concatenate([o[:, 1], c[:, 1]]), return_inverse=True)
    orth = orth.astype(np.int64)
    low = low.astype(np.int64)
    sub = (_sub_costs(o, c, o_text, c_text) if (n and m and not lev)
           else np.zeros((n, m)))
    cost = np.zeros((n + 1, m + 1), dtype=np.float64)
    op = np.zeros((n + 1, m + 1), dtype=np.int64)
    size = min(n, m) + 1
    _programme(orth[:n], orth[n:], low[:n], low[n:], sub, lev, cost, op,
               np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64))
    return Alignment(orig, cor, _backtrace(op.tolist()))


def _backtrace(op: list[list[int]]) -> list[tuple[str, int, int, int, int]]:
    """errant's ``get_cheapest_align_seq`` over the op codes."""
    i = len(op) - 1
    j = len(op[0]) - 1
    seq: list[tuple[str, int, int, int, int]] = []
    while i + j != 0:
        code = op[i][j]
        if code == MATCH or code == SUB:
            seq.append(("M" if code == MATCH else "S", i - 1, i, j - 1, j))
            i -= 1
            j -= 1
        elif code == DEL:
            seq.append(("D", i - 1, i, j, j))
            i -= 1
        elif code == INS:
            seq.append(("I", i, i, j - 1, j))
            j -= 1
        else:
            k = code - TRANSPOSE
            seq.append((f"T{k}", i - k, i, j - k, j))
            i -= k
            j -= k
    seq.reverse()
    return seq

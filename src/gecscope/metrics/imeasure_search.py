"""Search over candidate references: exhaustive, and decomposed into independent regions.

Both functions return the *distinct* count vectors that some candidate reference produces,
each with its first witness (the candidate that comes first in the canonical order: the
cartesian product of the errors' options, errors in canonical order, options in document order
with "leave uncorrected" first). Choosing the best reference only needs these vectors: among
vectors with the best key the one with the earliest witness wins, exactly as a first-wins scan
over all candidates would choose.

The decomposed search cuts a sentence where the source, the hypothesis and every candidate
reference share ``window`` consecutive tokens (no correction touches them, the hypothesis keeps
them, and they are locally unique), aligns each region separately for each of its local
options, and sums count vectors region by region (a dynamic programme over distinct sums). See
docs/imeasure.md for what is proven about this: it is exact whenever no optimal alignment puts
a token left of a cut's shared run and one right of it in the same column, which is not checked;
constructed counterexamples with long swapped or shifted corrections exist (the ``guards`` of
:func:`find_cuts` exclude those families, heuristically). Exhaustive search is the reference.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.formats.imeasure_xml import Error, GoldSentence
from gecscope.metrics.imeasure_align import (
    align,
    pairwise_backtrace,
    pairwise_table,
)
from gecscope.metrics.imeasure_batch import threeway_counts
from gecscope.metrics.imeasure_core import (
    Counts,
    apply_corrections,
    candidate_references,
    compatible,
    count_columns,
    error_options,
)
from gecscope.types import Tokens

Witness = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Option:
    """A distinct outcome for one sentence: its counts and the first reference producing them."""

    counts: Counts
    witness: Witness
    reference: Tokens


def canonical_errors(sentence: GoldSentence) -> list[Error]:
    """Errors ordered by the leftmost token they touch (stable: document order breaks ties)."""
    def key(e: Error) -> int:
        starts = [c.start for a in e.alternatives for c in a.corrections]
        return min(starts) if starts else -1
    return sorted(sentence.errors, key=key)


def exhaustive_options(sentence: GoldSentence, hyp: Sequence[str], mix: bool = True
                       ) -> list[Option]:
    """Align the hypothesis with every candidate reference (the reference tool's method)."""
    src = sentence.tokens
    if not mix:
        out: dict[Counts, Option] = {}
        for i, ref in enumerate(candidate_references(sentence, mix=False)):
            c = count_columns(align(src, hyp, ref))
            out.setdefault(c, Option(c, (i,), ref))
        return list(out.values())
    errors = canonical_errors(sentence)
    options = [error_options(e) for e in errors]
    seen: set[Tokens] = set()
    found: dict[Counts, Option] = {}
    for idx in itertools.product(*(range(len(o)) for o in options)):
        edits = [c for e, i in enumerate(idx) for c in options[e][i]]
        if edits and not compatible(edits):
            continue
        ref = apply_corrections(src, edits) if edits else src
        if ref in seen:
            continue
        seen.add(ref)
        c = count_columns(align(src, hyp, ref))
        found.setdefault(c, Option(c, tuple(idx), ref))
    return list(found.values())


def n_candidates_upper(sentence: GoldSentence) -> int:
    """Size of the cartesian product of the errors' options (before duplicates are removed)."""
    n = 1
    for e in sentence.errors:
        n *= max(1, len(error_options(e)))
    return n


# ----------------------------------------------------------------------------------------------
# Decomposition


def _hyp_sync(src: Sequence[str], hyp: Sequence[str]) -> list[int | None]:
    """For each source token, the hypothesis token matched with it by the pairwise alignment."""
    a, b = pairwise_backtrace(pairwise_table(src, hyp), src, hyp)
    out: list[int | None] = [None] * len(src)
    i = j = 0
    for x, y in zip(a, b, strict=True):
        if x and y:
            if x == y:
                out[i] = j
            i += 1
            j += 1
        elif x:
            i += 1
        else:
            j += 1
    return out


def find_cuts(src: Sequence[str], hyp: Sequence[str], touched: Sequence[bool],
              window: int, banned: frozenset[str] = frozenset(), radius: int = 8,
              errors: Sequence[tuple[int, int, frozenset[str], int, int]] = (),
              max_shift: int | None = None) -> list[tuple[int, int]]:
    """Cut points ``(x, y)``: source/hypothesis positions inside a shared, untouched window.

    ``touched[i]`` is True when some correction covers source token ``i`` or inserts next to
    it. With ``left = ceil(window/2)`` and ``right = window - left``, a cut at ``x`` needs source
    tokens ``x-left .. x+right-1`` untouched, matched in order and without gaps to hypothesis
    tokens ``y-left .. y+right-1`` by the pairwise alignment, occurring once within ``radius``
    tokens in the source and in the hypothesis, and absent from ``banned`` (correction texts).

    ``errors`` lists ``(start, end, tokens, min_shift, max_shift)`` per error (source span,
    tokens of all its correction texts, least and greatest length change of its options). With
    it, two guards against the known failures of the rule (docs/imeasure.md) are applied:
    (e) no correction token of an error on one side of the cut occurs within ``radius`` tokens
    on the other side (source, hypothesis, or another error's corrections), and (f) the length
    offsets of hypothesis and candidates against the source must not spread by more than
    ``max_shift`` (default ``2 * window``) on both sides of the cut at once.
    """
    sync = _hyp_sync(src, hyp) if list(src) != list(hyp) else list(range(len(src)))
    cuts: list[tuple[int, int]] = []
    n = len(src)
    left = (window + 1) // 2
    right = window - left
    for x in range(left, n - right + 1):
        y0 = sync[x - left]
        if y0 is None:
            continue
        ok = True
        near_s = Counter(src[max(0, x - left - radius):x + right + radius])
        yc = y0 + left
        near_h = Counter(hyp[max(0, yc - left - radius):yc + right + radius])
        for t in range(window):
            i = x - left + t
            tok = src[i]
            if (touched[i] or sync[i] != y0 + t or near_s[tok] != 1 or near_h[tok] != 1
                    or tok in banned):
                ok = False
                break
        if ok and errors and not _guards_ok(src, hyp, x, y0 + left, errors, radius,
                                            2 * window if max_shift is None else max_shift):
            ok = False
        if ok:
            cuts.append((x, y0 + left))
    return cuts


def _guards_ok(src: Sequence[str], hyp: Sequence[str], x: int, y: int,
               errors: Sequence[tuple[int, int, frozenset[str], int, int]], radius: int,
               max_shift: int) -> bool:
    """Guards (e) and (f) of :func:`find_cuts` for the cut ``(x, y)``."""
    left = [e for e in errors if e[1] <= x and not (e[0] == e[1] == x)]
    right = [e for e in errors if e[0] >= x and e not in left]
    near_l = set(src[max(0, x - radius):x]) | set(hyp[max(0, y - radius):y])
    near_r = set(src[x:x + radius]) | set(hyp[y:y + radius])
    for e in left:
        if e[1] >= x - radius:
            near_l |= e[2]
    for e in right:
        if e[0] <= x + radius:
            near_r |= e[2]
    for e in left:
        if e[1] >= x - radius and e[2] & near_r:
            return False
    for e in right:
        if e[0] <= x + radius and e[2] & near_l:
            return False
    # (f) spread of length offsets against the source, left and right of the cut
    near_left = [e for e in left if e[1] >= x - radius]
    near_right = [e for e in right if e[0] <= x + radius]
    spread_l = (max(0, sum(e[4] for e in near_left))
                - min(0, sum(e[3] for e in near_left)))
    spread_r = (max(0, sum(e[4] for e in near_right))
                - min(0, sum(e[3] for e in near_right)))
    return min(spread_l, spread_r) <= max_shift


def _touched(n: int, options: Sequence[Sequence[tuple[tuple[int, int, str], ...]]]) -> list[bool]:
    touched = [False] * n
    for opts in options:
        for opt in opts:
            for a, b, _ in opt:
                if a == b:
                    for i in (a - 1, a):
                        if 0 <= i < n:
                            touched[i] = True
                for i in range(a, b):
                    touched[i] = True
    return touched


def _error_span(opts: Sequence[tuple[tuple[int, int, str], ...]]) -> tuple[int, int] | None:
    spans = [(a, b) for opt in opts for a, b, _ in opt]
    if not spans:
        return None
    return min(a for a, _ in spans), max(b for _, b in spans)


def _error_guards(options: Sequence[Sequence[tuple[tuple[int, int, str], ...]]]
                  ) -> list[tuple[int, int, frozenset[str], int, int]]:
    """Per error with corrections: span, correction tokens, least and greatest length change."""
    out = []
    for opts in options:
        span = _error_span(opts)
        if span is None:
            continue
        toks = frozenset(tok for opt in opts for _, _, text in opt for tok in text.split())
        shifts = [sum(len(text.split()) - (b - a) for a, b, text in opt) for opt in opts]
        out.append((span[0], span[1], toks, min(shifts), max(shifts)))
    return out


def decomposed_options(sentence: GoldSentence, hyp: Sequence[str], window: int = 2,
                       max_local: int = 1 << 16,
                       cache: dict[tuple[int, int, Tokens, bool], object] | None = None,
                       guards: bool = False) -> list[Option] | None:
    """The same result as :func:`exhaustive_options` (mixing), computed region by region.

    Returns None when the sentence cannot be decomposed safely (a region with more than
    ``max_local`` local combinations, or a non-trivial combination that rebuilds the source);
    the caller then falls back to the exhaustive search. ``cache`` (one dict per sentence,
    shared by every system scored on it) keeps each region's table for a given hypothesis piece.
    """
    src = list(sentence.tokens)
    hyp = list(hyp)
    n = len(src)
    errors = canonical_errors(sentence)
    options = [error_options(e) for e in errors]
    if not errors:
        return [Option(c := count_columns(align(src, hyp, src)), (), tuple(src))]
    same_sh = src == hyp
    banned = frozenset(tok for opts in options for opt in opts for _, _, text in opt
                       for tok in text.split())
    cuts = find_cuts(src, hyp, _touched(n, options), window, banned,
                     errors=_error_guards(options) if guards else ())
    # Assign errors to regions delimited by cuts (errors are left of or right of every cut).
    bounds = [(0, 0), *cuts, (n, len(hyp))]
    regions: list[list[int]] = [[] for _ in range(len(bounds) - 1)]
    for ei, opts in enumerate(options):
        span = _error_span(opts)
        if span is None:
            regions[0].append(ei)
            continue
        for t in range(len(bounds) - 1):
            lo, hi = bounds[t][0], bounds[t + 1][0]
            if lo <= span[0] and span[1] <= hi:
                regions[t].append(ei)
                break
        else:  # pragma: no cover - cuts never fall inside a correction's span
            return None
    # Merge empty regions into their neighbours: keep only cuts that separate errors.
    merged: list[tuple[int, int, int, int, list[int]]] = []
    start = bounds[0]
    pending: list[int] = []
    for t in range(len(regions)):
        pending += regions[t]
        end = bounds[t + 1]
        nxt_has = any(regions[u] for u in range(t + 1, len(regions)))
        if (pending and nxt_has) or t == len(regions) - 1:
            merged.append((start[0], end[0], start[1], end[1], pending))
            start, pending = end, []
    # Errors must be contiguous in canonical order across regions (they are: cuts are sorted).
    flat = [e for *_, es in merged for e in es]
    if flat != sorted(flat):
        return None
    # Per region: distinct (counts, is_source_piece) with min local witness.
    region_tables: list[dict[tuple[Counts, bool], tuple[Witness, Tokens]]] = []
    region_pieces: list[set[tuple[Tokens, bool]]] = []
    for x0, x1, y0, y1, es in merged:
        s_piece = src[x0:x1]
        h_piece = hyp[y0:y1]
        ckey = (x0, x1, tuple(h_piece), same_sh)
        if cache is not None and ckey in cache:
            hit = cache[ckey]
            if hit is None:
                return None
            region_tables.append(hit[0])  # type: ignore[index]
            region_pieces.append(hit[1])  # type: ignore[index]
            continue
        local_opts = [options[e] for e in es]
        total = 1
        for o in local_opts:
            total *= len(o)
        if total > max_local:
            if cache is not None:
                cache[ckey] = None
            return None
        pieces: set[tuple[Tokens, bool]] = set()
        combos: list[tuple[Witness, Tokens]] = []
        for idx in itertools.product(*(range(len(o)) for o in local_opts)):
            edits = [(a - x0, b - x0, t) for k, i in enumerate(idx) for a, b, t in local_opts[k][i]]
            if edits and not compatible(edits):
                continue
            combos.append((tuple(idx), apply_corrections(s_piece, edits) if edits
                           else tuple(s_piece)))
        distinct = list(dict.fromkeys(p for _, p in combos))
        if same_sh:
            counted = []
            for piece in distinct:
                a, b = pairwise_backtrace(pairwise_table(h_piece, piece), h_piece, piece)
                counted.append(count_columns(zip(a, a, b, strict=True)))
        else:
            counted = threeway_counts(s_piece, h_piece, distinct)
        piece_counts = dict(zip(distinct, counted, strict=True))
        table: dict[tuple[Counts, bool], tuple[Witness, Tokens]] = {}
        for idx, piece in combos:
            key = (piece_counts[piece], list(piece) == s_piece)
            pieces.add((piece, key[1]))
            if key not in table:
                table[key] = (idx, piece)
        region_tables.append(table)
        region_pieces.append(pieces)
        if cache is not None:
            cache[ckey] = (table, pieces)
    # A non-trivial combination must not rebuild the source (it would need the pairwise mode).
    if not same_sh and _rebuilds_source(src, region_pieces):
        return None
    # Dynamic programme over regions: state (sum of counts, all pieces are source) -> witness.
    states: dict[tuple[Counts, bool], tuple[Witness, tuple[Tokens, ...]]] = {
        (Counts(), True): ((), ())}
    for table in region_tables:
        nxt: dict[tuple[Counts, bool], tuple[Witness, tuple[Tokens, ...]]] = {}
        for (c0, f0), (w0, p0) in states.items():
            for (c1, f1), (w1, p1) in table.items():
                key = (c0 + c1, f0 and f1)
                cand = (w0 + w1, (*p0, p1))
                old = nxt.get(key)
                if old is None or cand[0] < old[0]:
                    nxt[key] = cand
        states = nxt
    found: dict[Counts, Option] = {}
    ordered = sorted(states.items(), key=lambda kv: kv[1][0])
    for (c, all_src), (w, parts) in ordered:
        ref = tuple(t for p in parts for t in p)
        if all_src and not same_sh:
            c = count_columns(align(src, hyp, src))
        if c not in found:
            found[c] = Option(c, w, ref)
    return sorted(found.values(), key=lambda o: o.witness)


def _rebuilds_source(src: list[str], pieces: list[set[tuple[Tokens, bool]]]) -> bool:
    """True if some combination with a non-source piece concatenates to the source."""
    # state: position in src -> whether a non-source piece was used on some path
    states: dict[int, bool] = {0: False}
    for ps in pieces:
        nxt: dict[int, bool] = {}
        for pos, used in states.items():
            for p, is_src in ps:
                if tuple(src[pos:pos + len(p)]) == p:
                    q = pos + len(p)
                    nxt[q] = nxt.get(q, False) or used or not is_src
        states = nxt
    return states.get(len(src), False)

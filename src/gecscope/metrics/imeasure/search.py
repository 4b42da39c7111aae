"""Search over candidate references: exhaustive, and decomposed into independent regions.

Both functions return the *distinct* count vectors that some candidate reference produces,
each with its first witness (the candidate that comes first in the canonical order: the
cartesian product of the errors' options, errors in canonical order, options in document order
with "leave uncorrected" first). Choosing the best reference only needs these vectors: among
vectors with the best key the one with the earliest witness wins, exactly as a first-wins scan
over all candidates would choose.

The decomposed search cuts a sentence where the source, the hypothesis and every candidate
reference share ``window`` consecutive tokens (one token, where ``window`` tokens leave a region
of more than :data:`FINER_ABOVE` combinations), aligns each region separately for each of its
local options, and sums count vectors region by region (a dynamic programme over distinct
sums). A cut is kept only if the certificate of :mod:`gecscope.metrics.imeasure.certify`
proves, for all candidates at once, that every minimum-cost alignment passes it; then the
tool's backtrace is the concatenation of the regions' backtraces (docs/imeasure.md, proof 1)
and the result equals the exhaustive search. Cuts that fail are dropped.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from gecscope.formats.imeasure_xml import Error, GoldSentence
from gecscope.metrics.imeasure.align import align
from gecscope.metrics.imeasure.batch import (
    pairwise_counts,
    pairwise_sync,
    source_reference_counts,
    threeway_counts_costs,
)
from gecscope.metrics.imeasure.certify import margin
from gecscope.metrics.imeasure.core import (
    IMeasureCounts,
    apply_corrections,
    apply_in_order,
    candidate_references,
    count_columns,
    error_options,
    option_combinations,
)
from gecscope.metrics.imeasure.core import Option as Option_
from gecscope.metrics.imeasure.outcomes import Option, Outcomes, Witness
from gecscope.types import Tokens

__all__ = ["Option", "Outcomes", "Witness", "decomposed_options", "decomposed_outcomes",
           "exhaustive_options"]


def canonical_errors(sentence: GoldSentence) -> list[Error]:
    """Errors ordered by the leftmost token they touch (stable: document order breaks ties)."""
    def key(e: Error) -> int:
        starts = [c.start for a in e.alternatives for c in a.corrections]
        return min(starts) if starts else -1
    return sorted(sentence.errors, key=key)


def counts_for(src: Sequence[str], hyp: Sequence[str], ref: Sequence[str],
               baseline: str = "separate") -> IMeasureCounts:
    """Counts of one candidate: the system's alignment, and the baseline either aligned
    separately (``separate``) or re-counted on the system's alignment (``recount``)."""
    c = count_columns(align(src, hyp, ref))
    if baseline == "separate":
        # the tool's Alignment(src, src, ref): the pairwise alignment of source and reference
        tn_b, fn_b, _ = pairwise_counts(src, ref) if list(src) != list(ref) else (len(src), 0, 0)
        c = c.with_baseline(tn_b, fn_b)
    return c


def exhaustive_options(sentence: GoldSentence, hyp: Sequence[str], mix: bool = True,
                       baseline: str = "separate") -> list[Option]:
    """Align the hypothesis with every candidate reference (the reference tool's method)."""
    src = sentence.tokens
    if not mix:
        out: dict[IMeasureCounts, Option] = {}
        for i, ref in enumerate(candidate_references(sentence, mix=False)):
            c = counts_for(src, hyp, ref, baseline)
            out.setdefault(c, Option(c, (i,), (ref,)))
        return list(out.values())
    errors = canonical_errors(sentence)
    options = [error_options(e) for e in errors]
    seen: set[Tokens] = set()
    found: dict[IMeasureCounts, Option] = {}
    for idx, edits in option_combinations(options):
        ref = apply_corrections(src, edits) if edits else src
        if ref in seen:
            continue
        seen.add(ref)
        c = counts_for(src, hyp, ref, baseline)
        found.setdefault(c, Option(c, tuple(idx), (ref,)))
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
    return pairwise_sync(src, hyp)


def find_cuts(src: Sequence[str], hyp: Sequence[str], touched: Sequence[bool],
              window: int, banned: frozenset[str] = frozenset(), radius: int = 8
              ) -> list[tuple[int, int]]:
    """Proposed cut points ``(x, y)``: source/hypothesis positions inside a shared window.

    ``touched[i]`` is True when some correction covers source token ``i`` or inserts next to
    it. With ``left = ceil(window/2)`` and ``right = window - left``, a cut at ``x`` needs source
    tokens ``x-left .. x+right-1`` untouched, matched in order and without gaps to hypothesis
    tokens ``y-left .. y+right-1`` by the pairwise alignment, occurring once within ``radius``
    tokens in the source and in the hypothesis, and absent from ``banned`` (correction texts).
    These conditions make a cut likely to hold; whether it holds is decided by the certificate
    (:mod:`gecscope.metrics.imeasure.certify`).
    """
    sync = _hyp_sync(src, hyp) if list(src) != list(hyp) else list(range(len(src)))
    cuts: list[tuple[int, int]] = []
    n = len(src)
    left = (window + 1) // 2
    right = window - left
    at_s: dict[str, list[int]] | None = None
    at_h: dict[str, list[int]] = {}
    for x in range(left, n - right + 1):
        y0 = sync[x - left]
        if y0 is None:
            continue
        # the cheap conditions first; the counts only for windows that pass them
        if any(touched[i] or sync[i] != y0 + i - (x - left) or src[i] in banned
               for i in range(x - left, x + right)):
            continue
        if at_s is None:  # each token's positions, to count it in a span by bisection
            at_s = _positions(src)
            at_h = _positions(hyp)
        lo_s, hi_s = max(0, x - left - radius), x + right + radius
        yc = y0 + left
        lo_h, hi_h = max(0, yc - left - radius), yc + right + radius
        if all(_count_in(at_s[src[i]], lo_s, hi_s) == 1
               and _count_in(at_h.get(src[i], []), lo_h, hi_h) == 1
               for i in range(x - left, x + right)):
            cuts.append((x, y0 + left))
    return cuts


#: a region with more local combinations than this at ``window``-token cuts is cut at
#: one-token windows instead (proposals only: which cuts hold is the certificate's decision)
FINER_ABOVE = 16


def _largest_region(merged: Sequence[tuple[int, int, int, int, list[int]]],
                    options: Sequence[Sequence[Option_]]) -> int:
    """The most local combinations of one of the regions ``merged`` (:func:`_merge_regions`)."""
    largest = 0
    for *_, es in merged:
        total = 1
        for e in es:
            total *= len(options[e])
        largest = max(largest, total)
    return largest


def _positions(tokens: Sequence[str]) -> dict[str, list[int]]:
    """Each token's positions in ``tokens``, ascending."""
    at: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        at.setdefault(t, []).append(i)
    return at


def _count_in(positions: list[int], lo: int, hi: int) -> int:
    """How many of the ascending ``positions`` lie in ``[lo, hi)``."""
    return bisect_left(positions, hi) - bisect_left(positions, lo)


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


def _merge_regions(cuts: Sequence[tuple[int, int]], options: Sequence[Sequence[Option_]],
                   n: int, m: int) -> list[tuple[int, int, int, int, list[int]]] | None:
    """Regions ``(x0, x1, y0, y1, errors)`` between the cuts that separate errors."""
    bounds = [(0, 0), *cuts, (n, m)]
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
    return merged if flat == sorted(flat) else None


RegionTable = tuple[dict[tuple[IMeasureCounts, bool], tuple[Witness, Tokens]],
                    set[tuple[Tokens, bool]], dict[Tokens, int], bool, dict[Tokens, int]]


def _region_pieces(s_piece: list[str], x0: int, local_opts: Sequence[Sequence[Option_]]
                   ) -> tuple[list[Witness], list[Tokens], bool]:
    """A region's distinct pieces in order of first appearance among its combinations, the
    first combination (local witness) of each, and whether some combination empties the
    piece."""
    firsts: dict[Tokens, Witness] = {}
    can_empty = False
    for idx, edits in option_combinations(local_opts):
        # The tool skips a correction that would empty the *sentence*; a piece may become
        # empty (while a region's corrections are applied, the regions to its left still hold
        # their source tokens, so the sentence can only become empty if every region can).
        piece, emptied = apply_in_order(s_piece, [(a - x0, b - x0, t) for a, b, t in edits])
        can_empty = can_empty or emptied
        if piece not in firsts:
            firsts[piece] = idx
    return list(firsts.values()), list(firsts), can_empty


def _region_table(src: list[str], hyp: list[str], x0: int, x1: int, y0: int, y1: int,
                  local_opts: Sequence[Sequence[Option_]], same_sh: bool, max_local: int,
                  baseline: str = "separate", base_cache: dict[Any, Any] | None = None
                  ) -> RegionTable | None:
    """Distinct ``(counts, piece is the source)`` of a region with their first local witness,
    the set of its pieces, each distinct piece's optimal alignment cost, and (for a separate
    baseline) each piece's optimal cost against the source alone (the baseline alignment)."""
    s_piece = src[x0:x1]
    h_piece = hyp[y0:y1]
    total = 1
    for o in local_opts:
        total *= len(o)
    if total > max_local:
        return None
    if base_cache is None:
        base_cache = {}
    pkey = ("pieces", x0, x1)
    if pkey not in base_cache:  # the region's pieces do not depend on the hypothesis
        base_cache[pkey] = _region_pieces(s_piece, x0, local_opts)
    firsts, distinct, can_empty = base_cache[pkey]
    if same_sh:
        counted = []
        for piece in distinct:
            tn, fn, cost = pairwise_counts(h_piece, piece)
            counted.append((IMeasureCounts(tn=tn, fn_d=fn, tn_b=tn, fn_b=fn), cost))
    else:
        ekey = ("encoded", x0, x1)  # the pieces' encoding, shared by every hypothesis
        counted = threeway_counts_costs(s_piece, h_piece, distinct,
                                        prepared=base_cache.setdefault(ekey, {}))
    base_costs: dict[Tokens, int] = {}
    if baseline == "separate" and not same_sh:
        # The baseline is the pairwise alignment of the source piece with each piece (for
        # same_sh the system's alignment is that alignment already).
        # It does not depend on the hypothesis: ``base_cache`` shares it between systems.
        with_base = []
        for piece, (c, cost) in zip(distinct, counted, strict=True):
            bkey = ("baseline", x0, x1, piece)
            if bkey not in base_cache:
                base_cache[bkey] = pairwise_counts(s_piece, piece)
            tn_b, fn_b, base_costs[piece] = base_cache[bkey]
            with_base.append((c.with_baseline(tn_b, fn_b), cost))
        counted = with_base
    piece_counts = dict(zip(distinct, counted, strict=True))
    table: dict[tuple[IMeasureCounts, bool], tuple[Witness, Tokens]] = {}
    pieces: set[tuple[Tokens, bool]] = set()
    # distinct pieces in the order of their first combination: the first combination of a
    # key is the first witness of the first of its pieces
    for idx, piece in zip(firsts, distinct, strict=True):
        key = (piece_counts[piece][0], list(piece) == s_piece)
        pieces.add((piece, key[1]))
        if key not in table:
            table[key] = (idx, piece)
    return table, pieces, {p: c for p, (_, c) in piece_counts.items()}, can_empty, base_costs


def decomposed_options(sentence: GoldSentence, hyp: Sequence[str], window: int = 2,
                       max_local: int = 1 << 16,
                       cache: dict[Any, Any] | None = None,
                       baseline: str = "separate") -> list[Option] | None:
    """The same result as :func:`exhaustive_options` (mixing), computed region by region:
    :func:`decomposed_outcomes` with every outcome built as an :class:`Option`."""
    found = decomposed_outcomes(sentence, hyp, window, max_local, cache, baseline)
    return None if found is None else list(found)


def decomposed_outcomes(sentence: GoldSentence, hyp: Sequence[str], window: int = 2,
                        max_local: int = 1 << 16,
                        cache: dict[Any, Any] | None = None,
                        baseline: str = "separate") -> Sequence[Option] | None:
    """The same result as :func:`exhaustive_options` (mixing), computed region by region,
    as :class:`Outcomes` (arrays; an :class:`Option` is built when one is asked for) when
    numpy is installed.

    Cuts proposed by :func:`find_cuts` are kept only when
    :func:`gecscope.metrics.imeasure.certify.margin` proves, for every candidate at once, that
    every minimum-cost alignment passes them (cuts that fail are dropped and the check is
    repeated on the coarser regions), so the result is exact. Returns None when the sentence
    cannot be decomposed (a region with more than ``max_local`` local combinations, a
    sentence that some combination could empty, or a non-trivial combination that rebuilds
    the source);
    the caller then falls back to the exhaustive search. ``cache`` (one dict per sentence,
    shared by every system scored on it) keeps each region's table for a given hypothesis
    piece and each certificate. With a separate baseline (``baseline="separate"``), a cut
    must also be certified for the baseline alignment (source, source, reference), and each
    region's outcomes carry the baseline of its piece.
    """
    src = list(sentence.tokens)
    hyp = list(hyp)
    n = len(src)
    if not sentence.errors:
        c = source_reference_counts(src, hyp)
        if baseline == "separate":
            c = c.with_baseline(n, 0)
        return [Option(c, (), (tuple(src),))]
    tables = certified_regions(sentence, hyp, window, max_local, cache, baseline)
    if tables is None:
        return None
    same_sh = src == hyp
    region_tables = [t for t, *_ in tables]

    def source_counts() -> IMeasureCounts:
        # every piece is the source's: the tool aligns the hypothesis with the source itself
        c = source_reference_counts(src, hyp)
        return c.with_baseline(n, 0) if baseline == "separate" else c

    numpy = _numpy_or_none()
    if numpy is not None:
        return _outcomes_numpy(numpy, region_tables, None if same_sh else source_counts)
    found: dict[IMeasureCounts, Option] = {}
    for c, all_src, w, parts in combine_regions(region_tables):
        if all_src and not same_sh:
            c = source_counts()
        if c not in found:
            found[c] = Option(c, w, parts)
    return sorted(found.values(), key=lambda o: o.witness)


def certified_regions(sentence: GoldSentence, hyp: Sequence[str], window: int = 2,
                      max_local: int = 1 << 16, cache: dict[Any, Any] | None = None,
                      baseline: str = "separate") -> list[RegionTable] | None:
    """The region tables of :func:`decomposed_outcomes` at certified cuts, or None when the
    sentence cannot be decomposed (the reasons listed there). Deciding this is the cheap part
    of the search: what is left is summing the regions' outcomes, so a caller that only has
    to know whether a sentence will be scored (an early refusal check) stops here; the tables
    stay in ``cache`` for the scoring itself. A sentence needs at least one error."""
    src = list(sentence.tokens)
    hyp = list(hyp)
    n = len(src)
    errors = canonical_errors(sentence)
    options = [error_options(e) for e in errors]
    same_sh = src == hyp
    banned = frozenset(tok for opts in options for opt in opts for _, _, text in opt
                       for tok in text.split())
    touched = _touched(n, options)
    merged = _merge_regions(find_cuts(src, hyp, touched, window, banned), options, n, len(hyp))
    if window > 1 and merged is not None and _largest_region(merged, options) > FINER_ABOVE:
        # errors too dense for a shared run of `window` tokens between them: one-token cuts
        # split the large region (each is certified like any other)
        merged = _merge_regions(find_cuts(src, hyp, touched, 1, banned), options, n, len(hyp))
    if cache is None:
        cache = {}
    while True:
        if merged is None:
            return None
        tables: list[RegionTable] = []
        for x0, x1, y0, y1, es in merged:
            ckey = (x0, x1, tuple(hyp[y0:y1]), same_sh, baseline)
            if ckey not in cache:
                cache[ckey] = _region_table(src, hyp, x0, x1, y0, y1,
                                            [options[e] for e in es], same_sh, max_local,
                                            baseline, cache)
            hit = cache[ckey]
            if hit is None:
                return None
            tables.append(hit)
        bad = _uncertified_cuts(src, hyp, merged, tables, same_sh, cache)
        if baseline == "separate" and not same_sh:
            # the baseline's own alignment must pass the same cuts (a hypothesis-free check,
            # cached per sentence and shared by all systems)
            bad |= _uncertified_cuts(src, src, [(x0, x1, x0, x1, es) for x0, x1, _, _, es in merged],
                                     [(t[0], t[1], t[4], t[3], t[4]) for t in tables], True,
                                     cache)
        if not bad:
            break
        cuts = [(x1, y1) for j, (_x0, x1, _y0, y1, _) in enumerate(merged[:-1]) if j not in bad]
        merged = _merge_regions(cuts, options, n, len(hyp))
    if all(t[3] for t in tables):
        return None  # the sentence might become empty: the tool's workaround would apply
    region_pieces = [p for _, p, *_ in tables]
    # A non-trivial combination must not rebuild the source (it would need the pairwise mode).
    if not same_sh and _rebuilds_source(src, region_pieces):
        return None
    return tables


def _outcomes_numpy(np: Any, tables: Sequence[dict[tuple[IMeasureCounts, bool],
                                                    tuple[Witness, Tokens]]],
                    source_counts: Any) -> Outcomes:
    """The distinct counts of :func:`combine_regions`'s outcomes as :class:`Outcomes`, in
    witness order, each with its first witness. ``source_counts`` (None when the hypothesis
    is the source) gives the counts of the outcome whose pieces are all the source's, which
    replace the summed ones; then the only outcome whose counts can repeat another's is that
    one (the others are distinct sums), and the later of the two is dropped."""
    keys, witnesses, choice, pieces = _combine_arrays(np, tables)
    counts = keys[:, :7]
    flagged = np.flatnonzero(keys[:, 7])
    if len(flagged):
        t = int(flagged[0])
        if source_counts is not None:
            counts[t] = source_counts().as_tuple()
        same = np.flatnonzero((counts == counts[t]).all(axis=1))
        if len(same) > 1:
            keep = np.ones(len(counts), dtype=bool)
            keep[int(same.max())] = False
            counts, witnesses, choice = counts[keep], witnesses[keep], choice[:, keep]
    return Outcomes(np.ascontiguousarray(counts), witnesses, choice, pieces)


Outcome = tuple[IMeasureCounts, bool, Witness, tuple[Tokens, ...]]


def combine_regions(tables: Sequence[dict[tuple[IMeasureCounts, bool], tuple[Witness, Tokens]]]
                    ) -> list[Outcome]:
    """Every distinct ``(sum of counts, all pieces are the source)`` over one outcome per
    region, with its first witness (the concatenated local witnesses, compared
    lexicographically) and its pieces, in witness order: a dynamic programme over regions.

    With numpy the states are arrays: kept in witness order, the combinations of a state with
    a region's outcomes (in local witness order) are in witness order too, so the first
    occurrence of a key is its first witness; without numpy, the same with dicts.
    """
    numpy = _numpy_or_none()
    if numpy is not None and len(tables) > 1:
        return _combine_numpy(numpy, tables)
    return _combine_python(tables)


def _numpy_or_none() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy comes with most extras
        return None
    return numpy


def _combine_python(tables: Sequence[dict[tuple[IMeasureCounts, bool], tuple[Witness, Tokens]]]
                    ) -> list[Outcome]:
    # state (packed sum of counts, all pieces are source) -> first witness and its pieces (a
    # chain (earlier, piece)); packed sums are field-wise sums (fields never go negative)
    states: dict[tuple[int, bool], tuple[Witness, Any]] = {(0, True): ((), None)}
    for table in tables:
        packed = [(_pack(c1), f1, w1, p1) for (c1, f1), (w1, p1) in table.items()]
        nxt: dict[tuple[int, bool], tuple[Witness, Any]] = {}
        get = nxt.get
        for (c0, f0), (w0, p0) in states.items():
            for c1, f1, w1, p1 in packed:
                key = (c0 + c1, f0 and f1)
                w = w0 + w1
                old = get(key)
                if old is None or w < old[0]:
                    nxt[key] = (w, (p0, p1))
        states = nxt
    out: list[Outcome] = []
    for (packed_c, all_src), (w, chain) in sorted(states.items(), key=lambda kv: kv[1][0]):
        parts: list[Tokens] = []
        while chain is not None:
            chain, piece = chain
            parts.append(piece)
        out.append((_unpack(packed_c), all_src, w, tuple(reversed(parts))))
    return out


def _combine_numpy(np: Any, tables: Sequence[dict[tuple[IMeasureCounts, bool],
                                                   tuple[Witness, Tokens]]]) -> list[Outcome]:
    keys, witnesses, choice, pieces = _combine_arrays(np, tables)
    piece_cols = [[ps[o] for o in row] for ps, row in zip(pieces, choice.tolist(), strict=True)]
    return [(IMeasureCounts(*row[:7]), bool(row[7]), tuple(w), ps)
            for row, w, ps in zip(keys.tolist(), witnesses.tolist(), zip(*piece_cols),
                                  strict=True)]


def _combine_arrays(np: Any, tables: Sequence[dict[tuple[IMeasureCounts, bool],
                                                   tuple[Witness, Tokens]]]
                    ) -> tuple[Any, Any, Any, list[list[Tokens]]]:
    """:func:`combine_regions` as arrays: the final states ``(n, 8)`` (seven counts and the
    all-source flag), their witnesses ``(n, width)``, each state's outcome in every region
    ``(regions, n)``, and each region's pieces (indexed by those outcomes)."""
    # Each region's witnesses have the same length (one index per error of the region), so
    # comparing concatenations is comparing region by region.
    levels = []
    for table in tables:
        items = sorted(table.items(), key=lambda kv: kv[1][0])
        rows = np.array([(*c.as_tuple(), int(f)) for (c, f), _ in items], dtype=np.int64)
        levels.append((rows, [v for _, v in items]))
    # A state is one integer when the fields' largest sums fit in 62 bits (the flag in the
    # lowest bit, a field's sum never exceeds the sum of its regions' maxima), else a row.
    widths = [int(sum(int(rows[:, f].max()) for rows, _ in levels)).bit_length()
              for f in range(7)]
    if sum(widths) <= 62:
        shift = np.zeros(8, dtype=np.int64)
        for f in range(7):
            shift[f] = 1 + sum(widths[:f])
        levels = [((rows[:, :7] << shift[:7]).sum(axis=1) | rows[:, 7], vals)
                  for rows, vals in levels]
        keys = np.ones(1, dtype=np.int64)
    else:
        keys = np.zeros((1, 8), dtype=np.int64)
        keys[0, 7] = 1
        shift = None
    links = []  # per region: (state it extends, outcome of the region) of each new state
    for rows, _ in levels:
        m = len(rows)
        if shift is not None:
            # the counts add, the flags (lowest bit) AND
            comb = (keys & ~1)[:, None] + (rows & ~1)[None, :]
            comb |= keys[:, None] & rows[None, :] & 1
            comb = comb.reshape(-1)
            _, first = np.unique(comb, return_index=True)
        else:
            comb = keys[:, None, :] + rows[None, :, :]
            comb[:, :, 7] = keys[:, None, 7] & rows[None, :, 7]
            comb = comb.reshape(-1, 8)
            _, first = np.unique(comb, axis=0, return_index=True)
        first.sort()  # back to witness order
        keys = comb[first]
        links.append((first // m, first % m))
    if shift is not None:
        keys = np.column_stack([(keys >> shift[f]) & ((1 << widths[f]) - 1) for f in range(7)]
                               + [keys & 1])
    # walk the links back to each final state's outcome in every region
    n_final = len(keys)
    choice = np.empty((len(levels), n_final), dtype=np.int64)
    at = np.arange(n_final)
    for r in range(len(levels) - 1, -1, -1):
        parent, outcome = links[r]
        choice[r] = outcome[at]
        at = parent[at]
    # each final state's witness: the regions' witnesses side by side (within a region they
    # have one length), gathered region by region rather than state by state
    witness_cols = []
    for r, (_, vals) in enumerate(levels):
        width = len(vals[0][0])
        local = np.array([w for w, _ in vals], dtype=np.int64).reshape(len(vals), width)
        witness_cols.append(local[choice[r]])
    witnesses = np.concatenate(witness_cols, axis=1) if witness_cols else \
        np.zeros((n_final, 0), dtype=np.int64)
    return keys, witnesses, choice, [[p for _, p in vals] for _, vals in levels]


_BITS = 32
_MASK = (1 << _BITS) - 1


def _pack(c: IMeasureCounts) -> int:
    """The seven counts as one integer, 32 bits each (a sentence has far fewer columns)."""
    v = 0
    for i, x in enumerate(c.as_tuple()):
        v |= x << (_BITS * i)
    return v


def _unpack(v: int) -> IMeasureCounts:
    return IMeasureCounts(*((v >> (_BITS * i)) & _MASK for i in range(7)))


def _uncertified_cuts(src: list[str], hyp: list[str],
                      merged: Sequence[tuple[int, int, int, int, list[int]]],
                      tables: Sequence[RegionTable], same_sh: bool,
                      cache: dict[Any, Any]) -> set[int]:
    """Indices of the cuts (between ``merged[j]`` and ``merged[j+1]``) that some minimum-cost
    alignment of some candidate may avoid; empty when the decomposition is exact."""
    if len(merged) < 2:
        return set()
    spec = [(x0, x1, y0, y1, sorted(t[2].items())) for (x0, x1, y0, y1, _), t
            in zip(merged, tables, strict=True)]
    key = ("certificate", tuple(hyp), tuple((x1, y1) for _x0, x1, _y0, y1, _ in merged[:-1]))
    if key not in cache:
        value = margin(src, hyp, spec, same_sh, decide=True)
        bad: set[int] = set()
        if value is not None and value <= 0:
            n_cuts = len(merged) - 1
            for j in range(n_cuts):
                mj = margin(src, hyp, spec, same_sh, [k == j for k in range(n_cuts)],
                            decide=True)
                if mj is not None and mj <= 0:
                    bad.add(j)
        cache[key] = bad
    return set(cache[key])


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

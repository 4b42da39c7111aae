"""The MaxMatch edit lattice and its gold-guided best path, in time linear in the lattice size.

Clean-room re-specification of the M2 scorer's search (Dahlmeier & Ng 2012), written from the
paper and the behaviour of m2scorer 3.2, not from its code.

**Lattice.** Source and hypothesis tokens are aligned by Levenshtein distance twice, once with
substitution cost 1 and once with substitution cost 2 (insertion and deletion cost 1, a match
0). Every cell on some minimal-cost path of either matrix is a node ``(i, j)`` (``i`` source
tokens and ``j`` hypothesis tokens consumed); every minimal step between two such cells is a
lattice step: a *match* (an unchanged token), a substitution, a deletion or an insertion. The
union of both lattices is a DAG whose nodes are topologically ordered by ``(i, j)``.

**Arcs (the scorer's "transitive edges").** Any lattice path from ``u`` to ``w`` crossing at most
``max_unchanged_words`` matches can be taken as one edit (a single lattice step always can). Its
label depends on the end points only: source tokens ``[u.i, w.i)`` become hypothesis tokens
``[u.j, w.j)``. An arc made of matches only is no edit (a *noop* arc).

**Weights.** An arc whose label equals a gold edit of the annotator (same start, end and a
correction among the alternatives) is worth ``BIG`` (more than any path can cost); every other
arc costs its length in lattice steps (the fewest over the paths it stands for), plus a small
epsilon if it changes something. Pure insertions at one source position are matched to the gold
insertions at that position by the scorer's two-pointer scan (:func:`_insertion_events`), so a
gold insertion cannot be matched twice by consecutive hypothesis insertions; the few insertion
arcs the scan skips keep their cost without epsilon.

**Search.** The scorer materialises all arcs (cubic) and runs Bellman-Ford. Here the best path is
a dynamic programme over the lattice in topological order whose state is the node plus the open
arc (matches used so far, whether it changes anything, whether it consumed a source token):
``O((V + E) * max_unchanged_words)``. Only gold arcs and skipped insertion arcs (both few) are
enumerated explicitly. The unit tests check the programme against a brute force over the
materialised arcs.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# Outgoing lattice steps of a cell, as bits: diagonal (match or substitution), down (deletion of
# a source token), right (insertion of a hypothesis token).
DIAG, DOWN, RIGHT = 1, 2, 4

# Path costs are integers: one lattice step costs STEP, a changed non-gold arc adds EPS (the
# scorer's 0.001), a gold arc is worth BIG (more than any path can cost).
STEP = 1000
EPS = 1
BIG = 1 << 60
_NEG = -(1 << 62)


@dataclass(frozen=True, slots=True)
class Lattice:
    """The edit lattice on the dense grid of cells ``v = i * (n + 1) + j``.

    ``out[v]`` holds the bits of the lattice steps leaving cell ``v``; ``member[v]`` is 1 for the
    cells on a minimal path. Increasing ``v`` is a topological order.
    """

    src: tuple[str, ...]
    hyp: tuple[str, ...]
    out: bytearray
    member: bytearray
    nodes: tuple[int, ...]  # member cells, increasing

    @property
    def width(self) -> int:
        return len(self.hyp) + 1

    @property
    def n_steps(self) -> int:
        return sum(b.bit_count() for b in self.out)


def build_lattice(src: Sequence[str], hyp: Sequence[str]) -> Lattice:
    """The union of the minimal-path lattices with substitution cost 1 and 2.

    ``src`` and ``hyp`` are the tokens as compared (already lower-cased if casing is ignored).
    """
    src_t, hyp_t = tuple(src), tuple(hyp)
    m, n = len(src_t), len(hyp_t)
    w = n + 1
    size = (m + 1) * w
    d1 = list(range(w)) + [0] * (size - w)
    d2 = d1[:]
    for i in range(1, m + 1):
        base = i * w
        pb = base - w
        d1[base] = d2[base] = i
        s = src_t[i - 1]
        for j in range(1, n + 1):
            v = base + j
            if s == hyp_t[j - 1]:
                a1 = d1[pb + j - 1]
                a2 = d2[pb + j - 1]
            else:
                a1 = d1[pb + j - 1] + 1
                a2 = d2[pb + j - 1] + 2
            # explicit comparisons: about twice as fast as min() in this hot loop
            b1 = d1[pb + j] + 1
            c1 = d1[v - 1] + 1
            if b1 < a1:  # noqa: PLR1730
                a1 = b1
            if c1 < a1:  # noqa: PLR1730
                a1 = c1
            d1[v] = a1
            b2 = d2[pb + j] + 1
            c2 = d2[v - 1] + 1
            if b2 < a2:  # noqa: PLR1730
                a2 = b2
            if c2 < a2:  # noqa: PLR1730
                a2 = c2
            d2[v] = a2
    out = bytearray(size)
    member = bytearray(size)
    mark1 = bytearray(size)
    mark2 = bytearray(size)
    mark1[size - 1] = mark2[size - 1] = 1
    nodes: list[int] = []
    for v in range(size - 1, -1, -1):
        m1, m2 = mark1[v], mark2[v]
        if not (m1 or m2):
            continue
        member[v] = 1
        nodes.append(v)
        i, j = divmod(v, w)
        same = i > 0 and j > 0 and src_t[i - 1] == hyp_t[j - 1]
        for mk, dist, sub in ((m1, d1, 1), (m2, d2, 2)):
            if not mk:
                continue
            mark = mark1 if sub == 1 else mark2
            d = dist[v]
            if i and j and dist[v - w - 1] + (0 if same else sub) == d:
                out[v - w - 1] |= DIAG
                mark[v - w - 1] = 1
            if i and dist[v - w] + 1 == d:
                out[v - w] |= DOWN
                mark[v - w] = 1
            if j and dist[v - 1] + 1 == d:
                out[v - 1] |= RIGHT
                mark[v - 1] = 1
    nodes.reverse()
    return Lattice(src_t, hyp_t, out, member, tuple(nodes))


@dataclass(frozen=True, slots=True)
class GoldEdit:
    """A gold edit as the search needs it: span and the correction strings, as compared."""

    start: int
    end: int
    corrections: frozenset[str]
    max_tokens: int  # upper bound on the hypothesis tokens a matching correction can span


@dataclass(frozen=True, slots=True)
class PathArc:
    """One arc of the chosen path: source ``[start, end)`` -> hypothesis ``[hstart, hend)``."""

    start: int
    end: int
    hstart: int
    hend: int
    changed: bool
    gold: bool


def _reach(lat: Lattice, u: int, i_max: int, j_max: int, max_unchanged: int) -> dict[int, int]:
    """Cells reachable from ``u`` within ``i <= i_max, j <= j_max``: fewest matches crossed.

    A single step is always an arc, so with ``max_unchanged`` 0 the cell one match away is
    reachable too (but not extended).
    """
    w = lat.width
    out, src, hyp = lat.out, lat.src, lat.hyp
    best = {u: 0}
    ui, uj = divmod(u, w)
    for i in range(ui, i_max + 1):
        for j in range(uj, j_max + 1):
            v = i * w + j
            c = best.get(v)
            if c is None or c > max_unchanged:
                continue
            limit = max(max_unchanged, 1) if v == u else max_unchanged
            o = out[v]
            targets = []
            if o & DIAG and i < i_max and j < j_max:
                targets.append((v + w + 1, c + (src[i] == hyp[j])))
            if o & DOWN and i < i_max:
                targets.append((v + w, c))
            if o & RIGHT and j < j_max:
                targets.append((v + 1, c))
            for t, nc in targets:
                if nc <= limit and nc < best.get(t, limit + 1):
                    best[t] = nc
    return best


class _InsertionArcs:
    """The insertion arcs of one source position in sorted order, without materialising them.

    ``chain_end[j]`` is the furthest cell reachable from ``j`` by insertion steps; the arcs
    from ``j`` are ``(j, j + 1) .. (j, chain_end[j])`` and occupy consecutive positions.
    """

    def __init__(self, chain_end: list[int]) -> None:
        self.starts: list[int] = []
        self.offsets: list[int] = []
        self.chain_end = chain_end
        total = 0
        for j, end in enumerate(chain_end):
            if end > j:
                self.starts.append(j)
                self.offsets.append(total)
                total += end - j
        self.total = total

    def position(self, j0: int, j1: int) -> int:
        return self.offsets[bisect_right(self.starts, j0) - 1] + (j1 - j0 - 1)

    def arc(self, pos: int) -> tuple[int, int]:
        k = bisect_right(self.offsets, pos) - 1
        j0 = self.starts[k]
        return j0, j0 + 1 + pos - self.offsets[k]


def _insertion_events(arcs: _InsertionArcs, golds: list[GoldEdit],
                      candidates: list[tuple[int, str]]) -> tuple[list[int], list[int]]:
    """Which insertion arcs at one source position match a gold insertion, as the scorer
    decides it.

    The scorer visits the arcs (pairs of hypothesis offsets ``(j0, j1)``, sorted) alternately
    from the left and from the right end; gold insertions (in file order) are searched from the
    same end and consumed. After a match from the left, the arcs that start where the matched
    arc ends are skipped (after a match from the right, those ending where it starts), so
    consecutive insertions do not both match one gold insertion. Visited arcs that match
    nothing get the epsilon; skipped arcs keep the plain weight.

    Walking that scan is quadratic in a long run of insertions. Here only ``candidates`` (the
    sorted ``(position, label)`` of arcs whose label equals some gold correction) are looked
    at: between two matches the scan alternates regularly, so the step of the next match is
    computed. Returns the positions of the gold arcs and of the skipped arcs.
    """
    gold_pos: list[int] = []
    skipped: list[int] = []
    lo, hi = 0, arcs.total - 1
    g_lo, g_hi = 0, len(golds) - 1
    from_left = True

    def matches(label: str) -> bool:
        return any(label in golds[g].corrections for g in range(g_lo, g_hi + 1))

    while lo <= hi and g_lo <= g_hi:
        remaining = hi - lo + 1
        left = next((c for c in candidates if lo <= c[0] <= hi and matches(c[1])), None)
        right = next((c for c in reversed(candidates) if lo <= c[0] <= hi and matches(c[1])),
                     None)
        # the k-th visit from the left (right) happens at step 2k (2k + 1) when the left side
        # moves first, at 2k + 1 (2k) otherwise; a visit happens only at steps < remaining
        lfirst = 0 if from_left else 1
        t_left = 2 * (left[0] - lo) + lfirst if left else remaining
        t_right = 2 * (hi - right[0]) + 1 - lfirst if right else remaining
        if min(t_left, t_right) >= remaining:
            break
        if left is not None and t_left < t_right:
            pos, label = left
            g = next(k for k in range(g_lo, g_hi + 1) if label in golds[k].corrections)
            g_lo = g + 1
            hi -= (pos - lo) + lfirst  # right visits made before this step
            gold_pos.append(pos)
            lo = pos + 1
            end = arcs.arc(pos)[1]
            while lo < arcs.total and arcs.arc(lo)[0] == end:
                if lo <= hi:
                    skipped.append(lo)
                lo += 1
            from_left = False
        elif right is not None:
            pos, label = right
            g = next(k for k in range(g_hi, g_lo - 1, -1) if label in golds[k].corrections)
            g_hi = g - 1
            lo += (hi - pos) + (1 - lfirst)  # left visits made before this step
            gold_pos.append(pos)
            hi = pos - 1
            begin = arcs.arc(pos)[0]
            while hi >= 0 and arcs.arc(hi)[1] == begin:
                if hi >= lo:
                    skipped.append(hi)
                hi -= 1
            from_left = True
    return gold_pos, skipped


class _Bits:
    """Set bits of a mask (computed on demand, for many states)."""

    def __init__(self, n_states: int, first: int) -> None:
        self.n_states, self.first = n_states, first

    def __getitem__(self, mask: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.first, self.n_states) if mask >> s & 1)


@lru_cache(maxsize=8)
def _mask_tables(n_states: int) -> tuple[Any, Any]:
    """For every bit mask of states: its states, and its states other than the fresh one
    (tabulated when there are few states, i.e. ``max_unchanged_words`` up to 4)."""
    if n_states > 12:
        return _Bits(n_states, 0), _Bits(n_states, 1)
    bits = [tuple(s for s in range(n_states) if mask >> s & 1) for mask in range(1 << n_states)]
    return bits, [tuple(s for s in b if s >= 1) for b in bits]


@lru_cache(maxsize=8)
def _state_tables(max_unchanged: int) -> tuple[int, list[int], list[int], list[int], list[int],
                                                 list[int]]:
    """States of an open arc and their transitions.

    State 0: fresh (nothing taken); 1: insertions only; ``2 + 2k + c``: ``k`` matches taken,
    ``c`` = 1 if anything changed, at least one source token consumed. A state with
    ``k > max_unchanged`` (only possible as a single match when ``max_unchanged`` is 0: every
    lattice step is an arc of its own) can be closed but not extended.
    """
    kmax = max(max_unchanged, 1)
    n_states = 2 + 2 * (kmax + 1)

    def st(k: int, changed: int) -> int:
        return 2 + 2 * k + changed

    tr_match = [-1] * n_states
    tr_change = [-1] * n_states  # substitution or deletion
    tr_ins = [-1] * n_states
    tr_match[0] = st(1, 0)
    tr_match[1] = st(1, 1) if max_unchanged >= 1 else -1
    tr_change[0] = tr_change[1] = st(0, 1)
    tr_ins[0] = tr_ins[1] = 1
    for k in range(kmax + 1):
        for c in (0, 1):
            s = st(k, c)
            if k > max_unchanged:
                continue
            if k + 1 <= max_unchanged:
                tr_match[s] = st(k + 1, c)
            tr_change[s] = st(k, 1)
            tr_ins[s] = st(k, 1)
    tr_change[st(0, 0)] = tr_ins[st(0, 0)] = tr_match[st(0, 0)] = -1  # unreachable state
    close_cost = [EPS] * n_states
    for k in range(kmax + 1):
        close_cost[st(k, 0)] = 0
    return n_states, tr_match, tr_change, tr_ins, close_cost, [0, 1] + [
        c for _ in range(kmax + 1) for c in (0, 1)]


def best_path(lat: Lattice, golds: Sequence[GoldEdit], max_unchanged: int,
              join: str = " ") -> list[PathArc]:
    """The minimal-weight arc sequence from the first cell to the last.

    ``golds`` are one annotator's edits in file order; hypothesis tokens are joined with
    ``join`` before comparison with their corrections.
    """
    return search(lat, golds, max_unchanged, join)[0]


def search(lat: Lattice, golds: Sequence[GoldEdit], max_unchanged: int,
           join: str = " ") -> tuple[list[PathArc], int]:
    """:func:`best_path` and its score: ``BIG`` per gold arc minus the costs of the others."""
    src, hyp, out, member = lat.src, lat.hyp, lat.out, lat.member
    w = lat.width
    size = len(out)
    # --- explicit arcs: gold arcs, and the insertion arcs the scorer leaves without epsilon.
    # Entries: (target cell, score delta, kind) with kind 2 = gold, 3 = insertion.
    explicit: dict[int, list[tuple[int, int, int]]] = {}
    gold_ins: dict[int, list[GoldEdit]] = {}
    for g in golds:
        if g.start == g.end:
            gold_ins.setdefault(g.start, []).append(g)
            continue
        if g.end > len(src):
            continue
        for uj in range(len(hyp) + 1):
            u = g.start * w + uj
            if not member[u]:
                continue
            jmax = min(len(hyp), uj + g.max_tokens)
            for v in _reach(lat, u, g.end, jmax, max_unchanged):
                vi, vj = divmod(v, w)
                if vi == g.end and join.join(hyp[uj:vj]) in g.corrections:
                    explicit.setdefault(u, []).append((v, BIG, 2))
    for s, gl in gold_ins.items():
        if s > len(src):
            continue
        row = s * w
        chain_end = list(range(len(hyp) + 1))
        for j in range(len(hyp) - 1, -1, -1):
            if member[row + j] and out[row + j] & RIGHT:
                chain_end[j] = chain_end[j + 1]
        arcs = _InsertionArcs(chain_end)
        wanted = frozenset().union(*(g.corrections for g in gl))
        maxtok = max(g.max_tokens for g in gl)
        candidates = []
        for j0 in arcs.starts:
            for j1 in range(j0 + 1, min(chain_end[j0], j0 + maxtok) + 1):
                label = join.join(hyp[j0:j1])
                if label in wanted:
                    candidates.append((arcs.position(j0, j1), label))
        candidates.sort()
        gold_pos, skipped = _insertion_events(arcs, gl, candidates)
        for pos in gold_pos:
            a, b = arcs.arc(pos)
            explicit.setdefault(row + a, []).append((row + b, BIG, 2))
        for pos in skipped:  # cheaper by epsilon than the generic insertion arc
            a, b = arcs.arc(pos)
            explicit.setdefault(row + a, []).append((row + b, -(b - a) * STEP, 3))
    # --- dynamic programme over cells in topological order
    n_states, tr_match, tr_change, tr_ins, close_cost, changed_of = _state_tables(max_unchanged)
    score = [_NEG] * (size * n_states)
    start = [0] * (size * n_states)
    closed = [_NEG] * size
    back_from = [-1] * size
    back_kind = [0] * size  # 0 plain arc unchanged, 1 plain arc changed, 2 gold, 3 insertion
    closed[0] = 0
    active = [0] * size  # bit s set when open-arc state s of the cell is reachable
    bits, closable = _mask_tables(n_states)
    for v in lat.nodes:
        b = v * n_states
        i, j = divmod(v, w)
        cl = closed[v]
        mask = active[v]
        if mask:
            for s in closable[mask]:
                t = score[b + s] - close_cost[s]
                if t > cl:
                    cl = t
                    back_from[v] = start[b + s]
                    back_kind[v] = changed_of[s]
            closed[v] = cl
        if cl == _NEG:
            continue
        for t, delta, kind in explicit.get(v, ()):
            total = cl + delta
            if total > closed[t]:
                closed[t] = total
                back_from[t] = v
                back_kind[t] = kind
        score[b] = cl
        start[b] = v
        o = out[v]
        if not o:
            continue
        here = bits[mask | 1]
        for bit, delta in ((DIAG, w + 1), (DOWN, w), (RIGHT, 1)):
            if not o & bit:
                continue
            if bit == DIAG:
                tr = tr_match if src[i] == hyp[j] else tr_change
            else:
                tr = tr_change if bit == DOWN else tr_ins
            tv = v + delta
            tb = tv * n_states
            tmask = active[tv]
            for s in here:
                ns = tr[s]
                if ns < 0:
                    continue
                sc = score[b + s] - STEP
                if sc > score[tb + ns]:
                    score[tb + ns] = sc
                    start[tb + ns] = start[b + s]
                    tmask |= 1 << ns
            active[tv] = tmask
    # --- backtrack
    arcs_out: list[PathArc] = []
    v = size - 1
    while v != 0:
        u = back_from[v]
        if u < 0:  # pragma: no cover - the last cell is always reachable
            raise RuntimeError("M2 lattice: no path to the final cell")
        kind = back_kind[v]
        (ui, uj), (vi, vj) = divmod(u, w), divmod(v, w)
        changed = kind in (1, 3) or (kind == 2 and src[ui:vi] != hyp[uj:vj])
        arcs_out.append(PathArc(ui, vi, uj, vj, changed, kind == 2))
        v = u
    arcs_out.reverse()
    return arcs_out, closed[size - 1]

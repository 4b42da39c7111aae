"""Certificate that a decomposition of the I-measure search is exact, for all candidates at once.

The decomposed search (:mod:`gecscope.metrics.imeasure.search`) aligns the regions between
cut points separately. That gives the reference tool's alignment whenever **every minimum-cost
alignment of the whole sentence passes every cut cell** (docs/imeasure.md, proof 1): the tool's
backtrace is then the concatenation of the regions' backtraces. This module decides that
condition for every candidate reference of a sentence in one dynamic programme, instead of
assuming it.

For a candidate ``r`` (one piece per region), let ``T(r)`` be the sum of the regions' optimal
costs: the least cost of an alignment passing all cuts. The condition holds for ``r`` iff every
alignment that avoids some cut costs more than ``T(r)``. The programme runs over the product
of the source/hypothesis grid with the lattice of candidate references (regions in sequence,
each a bundle of its distinct pieces, entering a piece adds ``-cost(piece)``), with a flag that
records whether the path has avoided a cut cell; its value is

    min over candidates r and alignments avoiding a cut of  cost(alignment) - T(r),

and the decomposition is exact iff that value is positive. No assumption about the tokens is
needed; the cut rule only proposes cuts, this check accepts them. Treating two cut layers that
coincide (an empty piece between them) as distinct can only add avoiding paths, so the check
is conservative there.

Costs are the tool's: sums over pairs of 0 (equal tokens or two gaps), 3 (different tokens),
2 (token against gap); in the pairwise mode (hypothesis = source) only the hypothesis/reference
pair counts. The kernels are compiled with numba when it is installed (``gecscope[fast]``);
otherwise the same code runs in pure Python, exactly but slowly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscope._jit import HAVE_NUMBA, jit, np
from gecscope.metrics.imeasure.batch import pair_cost
from gecscope.types import Tokens

INF = 1 << 40


@jit
def _closure(E: Any, V: Any, csh: Any, ns: int, nh: int, use_s: bool, bx: int, by: int,
             lo: Any, hi: Any) -> None:
    """``V`` := least cost of reaching each cell from the entries ``E`` without consuming a
    reference token; the cell ``(bx, by)`` is blocked when ``bx >= 0``. ``csh`` holds the
    source/hypothesis pair costs. Columns: (s,-,-) 4; (-,h,-) 4, or 2 in the pairwise mode;
    (s,h,-) c(s,h) + 4. Only the cells ``lo[i] <= j <= hi[i]`` of each row are computed (the
    band; the others stay infinite in every plane)."""
    W = nh + 1
    g_h = 4 if use_s else 2
    for i in range(ns + 1):
        for j in range(lo[i], hi[i] + 1):
            idx = i * W + j
            if i == bx and j == by:
                V[idx] = INF
                continue
            v = E[idx]
            if i > 0:
                c = V[idx - W] + 4
                v = min(v, c)
                if j > 0:
                    c = V[idx - W - 1] + csh[idx] + 4
                    v = min(v, c)
            if j > 0:
                c = V[idx - 1] + g_h
                v = min(v, c)
            V[idx] = v


@jit
def _step(P: Any, Q: Any, csh: Any, cs: Any, ch: Any, ns: int, nh: int, use_s: bool,
          lo: Any, hi: Any) -> None:
    """``Q`` := entries of the next layer after consuming one reference token ``t`` (``cs[i]``,
    ``ch[j]``: its pair costs with source token ``i-1`` and hypothesis token ``j-1``).
    Columns: (-,-,t) 4 (2 pairwise); (s,-,t) c(s,t) + 4; (-,h,t) c(h,t) + 4 (+0 pairwise);
    (s,h,t) c(s,h) + c(s,t) + c(h,t). Band as in :func:`_closure`."""
    W = nh + 1
    g_r = 4 if use_s else 2
    g_hr = 4 if use_s else 0
    for i in range(ns + 1):
        for j in range(lo[i], hi[i] + 1):
            idx = i * W + j
            v = P[idx] + g_r
            if i > 0:
                c = P[idx - W] + cs[i] + 4
                v = min(v, c)
                if j > 0:
                    c = P[idx - W - 1] + csh[idx] + cs[i] + ch[j]
                    v = min(v, c)
            if j > 0:
                c = P[idx - 1] + ch[j] + g_hr
                v = min(v, c)
            Q[idx] = v


@jit
def _fill(X: Any, v: int) -> None:
    for k in range(len(X)):
        X[k] = v


@jit
def _min_into(X: Any, Y: Any, w: int, W: int, lo: Any, hi: Any) -> None:
    """``X := min(X, Y + w)`` on the band."""
    for i in range(len(lo)):
        for j in range(lo[i], hi[i] + 1):
            k = i * W + j
            c = Y[k] + w
            X[k] = min(X[k], c)


@jit
def _copy(X: Any, Y: Any) -> None:
    for k in range(len(X)):
        X[k] = Y[k]


@jit
def _region_pass(V: Any, E: Any, S: Any, H: Any, csh: Any, tok: Any, off: Any, cost: Any,
                 lcp: Any, save: Any, p0: int, p1: int, stack: Any, depth: Any, A: Any, B: Any,
                 cs: Any, ch: Any, use_s: bool, lo: Any, hi: Any) -> None:
    """``E := min(E, exits of every piece p0..p1-1 entered from the closed plane V, plus
    -cost[p])``. Pieces come sorted, ``lcp[p]`` tokens shared with the piece before: the closed
    planes of a shared prefix are computed once (a trie walked depth first), those that a
    later piece starts from (``save[k]``: after token ``k``) kept on ``stack``. The cost is
    added at the exit, not at the entry: a constant commutes with every min-plus step."""
    ns = len(S)
    nh = len(H)
    W = nh + 1
    sp = 0
    for p in range(p0, p1):
        a = off[p]
        b = off[p + 1]
        w = -cost[p]
        L = lcp[p]
        while sp > 0 and depth[sp - 1] > L:
            sp -= 1
        if a == b:
            _min_into(E, V, w, W, lo, hi)
            continue
        cur = V if sp == 0 else stack[sp - 1]
        for k in range(a + L, b):
            t = tok[k]
            for i in range(1, ns + 1):
                cs[i] = pair_cost(S[i - 1], t)
            for jj in range(1, nh + 1):
                ch[jj] = pair_cost(H[jj - 1], t)
            _step(cur, A, csh, cs, ch, ns, nh, use_s, lo, hi)
            if k == b - 1:
                _min_into(E, A, w, W, lo, hi)
            if save[k]:
                _closure(A, stack[sp], csh, ns, nh, use_s, -1, -1, lo, hi)
                cur = stack[sp]
                depth[sp] = k - a + 1
                sp += 1
            elif k < b - 1:
                _closure(A, B, csh, ns, nh, use_s, -1, -1, lo, hi)
                cur = B


@jit
def _kernel(S: Any, H: Any, use_s: bool, tok: Any, off: Any, cost: Any, reg: Any,
            cut_x: Any, cut_y: Any, lcp: Any, save: Any, lo: Any, hi: Any, buf: Any,
            stack: Any, depth: Any, vec: Any) -> int:
    """The product programme; see the module docstring. ``buf`` holds 9 planes, ``stack``
    two stacks (one per flag) of saved prefix planes, ``vec`` 2 vectors of length
    ``max(len(S), len(H)) + 1``. Flag-0 planes are dropped after the last checked cut and
    flag-1 planes are empty before the first one, so neither is computed there. Cells outside
    the band ``lo``/``hi`` are infinite throughout (the caller fills ``buf`` and ``stack``
    with ``INF``).
    """
    ns = len(S)
    nh = len(H)
    W = nh + 1
    V0, V1, E0, E1, A0, A1, B0, B1, csh = (buf[0], buf[1], buf[2], buf[3], buf[4], buf[5],
                                          buf[6], buf[7], buf[8])
    cs = vec[0]
    ch = vec[1]
    for i in range(1, ns + 1):
        for j in range(1, nh + 1):
            csh[i * W + j] = pair_cost(S[i - 1], H[j - 1])
    n_reg = len(reg) - 1
    first_cut = n_reg
    last_cut = -1
    for j in range(n_reg - 1):
        if cut_x[j] >= 0:
            if first_cut == n_reg:
                first_cut = j
            last_cut = j
    _fill(E0, INF)
    if lo[0] == 0:
        E0[0] = 0
    _closure(E0, V0, csh, ns, nh, use_s, -1, -1, lo, hi)
    for j in range(n_reg):
        do0 = j <= last_cut  # flag-0 paths still matter (a checked cut lies ahead)
        do1 = j > first_cut  # flag-1 paths exist (a checked cut lies behind)
        if do0:
            _fill(E0, INF)
            _region_pass(V0, E0, S, H, csh, tok, off, cost, lcp, save, reg[j], reg[j + 1],
                         stack[0], depth, A0, B0, cs, ch, use_s, lo, hi)
            _closure(E0, V0, csh, ns, nh, use_s, -1, -1, lo, hi)
        if do1:
            _fill(E1, INF)
            _region_pass(V1, E1, S, H, csh, tok, off, cost, lcp, save, reg[j], reg[j + 1],
                         stack[1], depth, A1, B1, cs, ch, use_s, lo, hi)
            _closure(E1, V1, csh, ns, nh, use_s, -1, -1, lo, hi)
        if j < n_reg - 1 and cut_x[j] >= 0:
            x = cut_x[j]
            y = cut_y[j]
            # flag-0 paths that do not visit the cut cell in this layer now carry flag 1
            _closure(E0, A0, csh, ns, nh, use_s, x, y, lo, hi)
            _min_into(V1, A0, 0, W, lo, hi)
            # flag-0 paths continue only from the cut cell
            _fill(B0, INF)
            B0[x * W + y] = V0[x * W + y]
            _closure(B0, A0, csh, ns, nh, use_s, -1, -1, lo, hi)
            _copy(V0, A0)
    return V1[ns * W + nh]


@jit
def _pair_opt(X: Any, x0: int, x1: int, tok: Any, a: int, b: int, col: Any) -> int:
    """Optimal pairwise cost (gap 2, mismatch 3) of ``X[x0:x1]`` and ``tok[a:b]``."""
    n = x1 - x0
    for i in range(n + 1):
        col[i] = 2 * i
    for k in range(a, b):
        diag = col[0]
        col[0] = diag + 2
        for i in range(1, n + 1):
            up = col[i]
            v = diag + (0 if X[x0 + i - 1] == tok[k] else 3)
            v = min(v, up + 2)
            v = min(v, col[i - 1] + 2)
            diag = up
            col[i] = v
    return col[n]


@jit
def _lattice_pair(X: Any, tok: Any, off: Any, reg: Any, own: Any, V: Any, E: Any, P: Any
                  ) -> int:
    """Least ``pairwise cost(X, r) - sum of own[p] over r's pieces`` over the candidates ``r``
    (one piece per region): a programme over the lattice of pieces, one vector per layer."""
    n = len(X)
    for i in range(n + 1):
        V[i] = 2 * i
    for q in range(len(reg) - 1):
        for i in range(n + 1):
            E[i] = INF
        for p in range(reg[q], reg[q + 1]):
            for i in range(n + 1):
                P[i] = V[i]
            for k in range(off[p], off[p + 1]):
                diag = P[0]
                P[0] = diag + 2
                for i in range(1, n + 1):
                    up = P[i]
                    v = diag + (0 if X[i - 1] == tok[k] else 3)
                    v = min(v, up + 2)
                    v = min(v, P[i - 1] + 2)
                    diag = up
                    P[i] = v
            for i in range(n + 1):
                E[i] = min(E[i], P[i] - own[p])
        for i in range(n + 1):
            V[i] = E[i]
    return V[n]


@jit
def _band_bound(S: Any, H: Any, tok: Any, off: Any, cost: Any, reg: Any, rx: Any, ry: Any,
                through: Any, back: Any, bs: Any, bh: Any, col: Any, V: Any, E: Any, P: Any
                ) -> int:
    """The constant of the band's bound (see :func:`band`): ``G_s + G_h - A`` with
    ``A = sum over regions of max over pieces (cost - b - d)``, ``b``/``d`` a piece's pairwise
    optimum against the region's source/hypothesis tokens; ``through`` receives, per cell, the
    least pairwise source/hypothesis cost of an alignment through it (``back``, ``bs``, ``bh``,
    ``col``, ``V``, ``E``, ``P``: work space)."""
    ns = len(S)
    nh = len(H)
    W = nh + 1
    amax = 0
    for q in range(len(reg) - 1):
        best = -INF
        for p in range(reg[q], reg[q + 1]):
            bs[p] = _pair_opt(S, rx[2 * q], rx[2 * q + 1], tok, off[p], off[p + 1], col)
            bh[p] = _pair_opt(H, ry[2 * q], ry[2 * q + 1], tok, off[p], off[p + 1], col)
            best = max(best, cost[p] - bs[p] - bh[p])
        amax += best
    g_s = _lattice_pair(S, tok, off, reg, bs, V, E, P)
    g_h = _lattice_pair(H, tok, off, reg, bh, V, E, P)
    # forward and backward pairwise tables of S and H, summed per cell
    for i in range(ns + 1):
        for j in range(nh + 1):
            idx = i * W + j
            if i == 0 and j == 0:
                through[idx] = 0
                continue
            v = INF
            if i > 0:
                v = min(v, through[idx - W] + 2)
                if j > 0:
                    v = min(v, through[idx - W - 1] + (0 if S[i - 1] == H[j - 1] else 3))
            if j > 0:
                v = min(v, through[idx - 1] + 2)
            through[idx] = v
    for i in range(ns, -1, -1):
        for j in range(nh, -1, -1):
            idx = i * W + j
            if i == ns and j == nh:
                back[idx] = 0
                continue
            v = INF
            if i < ns:
                v = min(v, back[idx + W] + 2)
                if j < nh:
                    v = min(v, back[idx + W + 1] + (0 if S[i] == H[j] else 3))
            if j < nh:
                v = min(v, back[idx + 1] + 2)
            back[idx] = v
    for idx in range((ns + 1) * W):
        through[idx] += back[idx]
    return g_s + g_h - amax


def margin(src: Sequence[str], hyp: Sequence[str],
           regions: Sequence[tuple[int, int, int, int, Sequence[tuple[Tokens, int]]]],
           pairwise: bool, check: Sequence[bool] | None = None, decide: bool = False
           ) -> int | None:
    """Least ``cost(alignment) - T(r)`` over candidates and alignments avoiding a checked cut.

    ``regions`` are ``(x0, x1, y0, y1, pieces)`` in order, ``pieces`` the region's distinct
    reference pieces with their optimal region cost; the cut after region ``j`` is the cell
    ``(x1, y1)`` at the end of its pieces. ``check[j]`` selects the cuts tested (default all).
    ``pairwise`` uses the hypothesis/reference costs only (hypothesis = source). Returns None
    when no alignment avoids a checked cut (no cut, or none checked); the decomposition is
    exact iff the result is None or positive.

    ``decide=True`` answers only that question, faster: cells of the source/hypothesis grid
    through which no alignment can reach a value of 0 or less (:func:`band`) are left out, so
    a result of 0 or less is the exact margin, and a positive one (or None) only says that the
    margin is positive.
    """
    n_cuts = len(regions) - 1
    if check is None:
        check = [True] * n_cuts
    if n_cuts <= 0 or not any(check):
        return None
    vocab: dict[str, int] = {}

    def ids(tokens: Sequence[str]) -> tuple[int, ...]:
        return tuple([vocab.setdefault(t, len(vocab)) for t in tokens])

    S = [] if pairwise else list(ids(src))
    H = list(ids(hyp))
    tok: list[int] = []
    off = [0]
    cost: list[int] = []
    reg = [0]
    lcp: list[int] = []
    save: list[bool] = []
    cut_x: list[int] = []
    cut_y: list[int] = []
    cap = 1
    for j, (_x0, x1, _y0, y1, pieces) in enumerate(regions):
        # sorted, so that pieces sharing a prefix are neighbours (see _region_pass)
        coded = sorted((ids(piece), c) for piece, c in pieces)
        lcp_j = [0] * len(coded)
        for q in range(1, len(coded)):
            a, b = coded[q - 1][0], coded[q][0]
            n = 0
            while n < len(a) and n < len(b) and a[n] == b[n]:
                n += 1
            lcp_j[q] = n
        save_j = [[False] * len(piece) for piece, _ in coded]
        mono = [0]  # the piece that computes the prefix a later piece starts from
        for q in range(1, len(coded)):
            if lcp_j[q]:  # the latest piece before q with a shorter shared prefix
                while lcp_j[mono[-1]] >= lcp_j[q]:
                    mono.pop()
                save_j[mono[-1]][lcp_j[q] - 1] = True
                mono.append(q)
            else:
                mono = [q]
        depths: list[int] = []  # the kernel's stack, to size it
        for q, (piece, _) in enumerate(coded):
            while depths and depths[-1] > lcp_j[q]:
                depths.pop()
            if lcp_j[q] and not (depths and depths[-1] == lcp_j[q]):  # pragma: no cover
                raise AssertionError("certify: a shared prefix's plane was not kept")
            depths += [k + 1 for k in range(lcp_j[q], len(piece)) if save_j[q][k]]
            cap = max(cap, len(depths))
        for q, (piece, c) in enumerate(coded):
            tok.extend(piece)
            off.append(len(tok))
            cost.append(c)
            lcp.append(lcp_j[q])
            save.extend(save_j[q])
        reg.append(len(cost))
        if j < n_cuts:
            on = check[j]
            cut_x.append((0 if pairwise else x1) if on else -1)
            cut_y.append(y1 if on else -1)
    ns, nh = len(S), len(H)
    plane = (ns + 1) * (nh + 1)
    lo = [0] * (ns + 1)
    hi = [nh] * (ns + 1)
    if HAVE_NUMBA:
        arr = np.asarray
        i64 = np.int64
        S_, H_, tok_, off_, cost_, reg_ = (arr(x, dtype=i64) for x in (S, H, tok, off, cost, reg))
        if decide and not pairwise:
            lo, hi = band(S_, H_, tok_, off_, cost_, reg_, regions)
        buf = np.full((9, plane), INF, dtype=i64)
        stack = np.full((2, cap, plane), INF, dtype=i64)
        vec = np.zeros((2, max(ns, nh) + 1), dtype=i64)
        value = int(_kernel(S_, H_, not pairwise, tok_, off_, cost_, reg_,
                            arr(cut_x, dtype=i64), arr(cut_y, dtype=i64), arr(lcp, dtype=i64),
                            arr(save, dtype=np.bool_), arr(lo, dtype=i64), arr(hi, dtype=i64),
                            buf, stack, np.zeros(cap, dtype=i64), vec))
    else:  # pragma: no cover - pure-Python fallback (same kernels, uncompiled)
        if decide and not pairwise:
            lo, hi = band(S, H, tok, off, cost, reg, regions)
        value = _kernel(S, H, not pairwise, tok, off, cost, reg, cut_x, cut_y, lcp, save,
                        lo, hi, [[INF] * plane for _ in range(9)],
                        [[[INF] * plane for _ in range(cap)] for _ in range(2)], [0] * cap,
                        [[0] * (max(ns, nh) + 1) for _ in range(2)])
    return None if value >= INF // 2 else value


def band(S: Any, H: Any, tok: Any, off: Any, cost: Any, reg: Any,
         regions: Sequence[tuple[int, int, int, int, Any]]) -> tuple[list[int], list[int]]:
    """Per row ``i`` of the source/hypothesis grid, the columns ``lo[i]..hi[i]`` outside which
    no alignment has ``cost - T(r)`` of 0 or less (an empty range when ``lo > hi``).

    A three-way cost is the sum of its three pairwise projections, so for any alignment
    through cell ``(i, j)`` and any candidate ``r``, splitting each piece's cost ``c`` into its
    pairwise optima ``b`` (against the region's source tokens) and ``d`` (hypothesis tokens)
    and the rest ``c - b - d``::

        cost - T(r) >= through(i, j) - A + G_s + G_h

    with ``through`` the least source/hypothesis pairwise cost of an alignment through the
    cell, ``A`` the sum over regions of the largest ``c - b - d``, and ``G_s`` (``G_h``) the
    least ``pairwise cost(source, r) - sum of b`` over all candidates (a programme over the
    lattice). A cell where the right-hand side is positive is left out.
    """
    ns, nh = len(S), len(H)
    W = nh + 1
    rx = [v for x0, x1, *_ in regions for v in (x0, x1)]
    ry = [v for _x0, _x1, y0, y1, _ in regions for v in (y0, y1)]
    n_vec = max(ns, nh) + 1
    longest = max((off[p + 1] - off[p] for p in range(len(cost))), default=0)
    if HAVE_NUMBA:
        i64 = np.int64
        through = np.zeros((ns + 1) * W, dtype=i64)
        const = int(_band_bound(S, H, tok, off, cost, reg, np.asarray(rx, dtype=i64),
                                np.asarray(ry, dtype=i64), through,
                                np.zeros((ns + 1) * W, dtype=i64), np.zeros(len(cost), dtype=i64),
                                np.zeros(len(cost), dtype=i64),
                                np.zeros(max(n_vec, longest + 1), dtype=i64),
                                np.zeros(n_vec, dtype=i64), np.zeros(n_vec, dtype=i64),
                                np.zeros(n_vec, dtype=i64)))
        alive = (through.reshape(ns + 1, W) + const) <= 0
        any_ = alive.any(axis=1)
        lo_a = np.where(any_, alive.argmax(axis=1), 1)
        hi_a = np.where(any_, nh - alive[:, ::-1].argmax(axis=1), 0)
        return lo_a.tolist(), hi_a.tolist()
    through_l = [0] * ((ns + 1) * W)  # pragma: no cover - pure-Python fallback
    const = _band_bound(S, H, tok, off, cost, reg, rx, ry, through_l, [0] * ((ns + 1) * W),
                        [0] * len(cost), [0] * len(cost), [0] * max(n_vec, longest + 1),
                        [0] * n_vec, [0] * n_vec, [0] * n_vec)
    lo, hi = [], []
    for i in range(ns + 1):
        cols = [j for j in range(W) if through_l[i * W + j] + const <= 0]
        lo.append(cols[0] if cols else 1)
        hi.append(cols[-1] if cols else 0)
    return lo, hi

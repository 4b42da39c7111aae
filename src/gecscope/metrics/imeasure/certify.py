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
def _closure(E: Any, V: Any, csh: Any, ns: int, nh: int, use_s: bool, bx: int, by: int
             ) -> None:
    """``V`` := least cost of reaching each cell from the entries ``E`` without consuming a
    reference token; the cell ``(bx, by)`` is blocked when ``bx >= 0``. ``csh`` holds the
    source/hypothesis pair costs. Columns: (s,-,-) 4; (-,h,-) 4, or 2 in the pairwise mode;
    (s,h,-) c(s,h) + 4."""
    W = nh + 1
    g_h = 4 if use_s else 2
    for i in range(ns + 1):
        for j in range(nh + 1):
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
def _step(P: Any, Q: Any, csh: Any, cs: Any, ch: Any, ns: int, nh: int, w: int, use_s: bool
          ) -> None:
    """``Q`` := entries of the next layer after consuming one reference token ``t`` (``cs[i]``,
    ``ch[j]``: its pair costs with source token ``i-1`` and hypothesis token ``j-1``), plus ``w``.
    Columns: (-,-,t) 4 (2 pairwise); (s,-,t) c(s,t) + 4; (-,h,t) c(h,t) + 4 (+0 pairwise);
    (s,h,t) c(s,h) + c(s,t) + c(h,t)."""
    W = nh + 1
    g_r = 4 if use_s else 2
    g_hr = 4 if use_s else 0
    for i in range(ns + 1):
        for j in range(nh + 1):
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
            Q[idx] = v + w


@jit
def _fill(X: Any, v: int) -> None:
    for k in range(len(X)):
        X[k] = v


@jit
def _min_into(X: Any, Y: Any, w: int) -> None:
    """``X := min(X, Y + w)`` elementwise."""
    for k in range(len(X)):
        c = Y[k] + w
        X[k] = min(X[k], c)


@jit
def _copy(X: Any, Y: Any) -> None:
    for k in range(len(X)):
        X[k] = Y[k]


@jit
def _kernel(S: Any, H: Any, use_s: bool, tok: Any, off: Any, cost: Any, reg: Any,
            cut_x: Any, cut_y: Any, buf: Any, vec: Any) -> int:
    """The product programme; see the module docstring. ``buf`` holds 9 planes, ``vec`` 2
    vectors of length ``max(len(S), len(H)) + 1``. Flag-0 planes are dropped after the last
    checked cut and flag-1 planes are empty before the first one, so neither is computed there.
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
    E0[0] = 0
    _closure(E0, V0, csh, ns, nh, use_s, -1, -1)
    _fill(V1, INF)
    for j in range(n_reg):
        do0 = j <= last_cut  # flag-0 paths still matter (a checked cut lies ahead)
        do1 = j > first_cut  # flag-1 paths exist (a checked cut lies behind)
        if do0:
            _fill(E0, INF)
        if do1:
            _fill(E1, INF)
        for p in range(reg[j], reg[j + 1]):
            a = off[p]
            b = off[p + 1]
            w = -cost[p]
            if a == b:
                if do0:
                    _min_into(E0, V0, w)
                if do1:
                    _min_into(E1, V1, w)
                continue
            for k in range(a, b):
                t = tok[k]
                for i in range(1, ns + 1):
                    cs[i] = pair_cost(S[i - 1], t)
                for jj in range(1, nh + 1):
                    ch[jj] = pair_cost(H[jj - 1], t)
                wk = w if k == a else 0
                if do0:
                    _step(V0 if k == a else B0, A0, csh, cs, ch, ns, nh, wk, use_s)
                if do1:
                    _step(V1 if k == a else B1, A1, csh, cs, ch, ns, nh, wk, use_s)
                if k < b - 1:
                    if do0:
                        _closure(A0, B0, csh, ns, nh, use_s, -1, -1)
                    if do1:
                        _closure(A1, B1, csh, ns, nh, use_s, -1, -1)
                else:
                    if do0:
                        _min_into(E0, A0, 0)
                    if do1:
                        _min_into(E1, A1, 0)
        if do0:
            _closure(E0, V0, csh, ns, nh, use_s, -1, -1)
        if do1:
            _closure(E1, V1, csh, ns, nh, use_s, -1, -1)
        if j < n_reg - 1 and cut_x[j] >= 0:
            x = cut_x[j]
            y = cut_y[j]
            # flag-0 paths that do not visit the cut cell in this layer now carry flag 1
            _closure(E0, A0, csh, ns, nh, use_s, x, y)
            _min_into(V1, A0, 0)
            # flag-0 paths continue only from the cut cell
            _fill(B0, INF)
            B0[x * W + y] = V0[x * W + y]
            _closure(B0, A0, csh, ns, nh, use_s, -1, -1)
            _copy(V0, A0)
    return V1[ns * W + nh]


def margin(src: Sequence[str], hyp: Sequence[str],
           regions: Sequence[tuple[int, int, int, int, Sequence[tuple[Tokens, int]]]],
           pairwise: bool, check: Sequence[bool] | None = None) -> int | None:
    """Least ``cost(alignment) - T(r)`` over candidates and alignments avoiding a checked cut.

    ``regions`` are ``(x0, x1, y0, y1, pieces)`` in order, ``pieces`` the region's distinct
    reference pieces with their optimal region cost; the cut after region ``j`` is the cell
    ``(x1, y1)`` at the end of its pieces. ``check[j]`` selects the cuts tested (default all).
    ``pairwise`` uses the hypothesis/reference costs only (hypothesis = source). Returns None
    when no alignment avoids a checked cut (no cut, or none checked); the decomposition is
    exact iff the result is None or positive.
    """
    n_cuts = len(regions) - 1
    if check is None:
        check = [True] * n_cuts
    if n_cuts <= 0 or not any(check):
        return None
    vocab: dict[str, int] = {}

    def ids(tokens: Sequence[str]) -> list[int]:
        return [vocab.setdefault(t, len(vocab)) for t in tokens]

    S = [] if pairwise else ids(src)
    H = ids(hyp)
    tok: list[int] = []
    off = [0]
    cost: list[int] = []
    reg = [0]
    cut_x: list[int] = []
    cut_y: list[int] = []
    for j, (_x0, x1, _y0, y1, pieces) in enumerate(regions):
        for piece, c in pieces:
            tok.extend(ids(piece))
            off.append(len(tok))
            cost.append(c)
        reg.append(len(cost))
        if j < n_cuts:
            on = check[j]
            cut_x.append((0 if pairwise else x1) if on else -1)
            cut_y.append(y1 if on else -1)
    plane = (len(S) + 1) * (len(H) + 1)
    if HAVE_NUMBA:
        arr = np.asarray
        i64 = np.int64
        buf = np.zeros((9, plane), dtype=i64)
        vec = np.zeros((2, max(len(S), len(H)) + 1), dtype=i64)
        value = int(_kernel(arr(S, dtype=i64), arr(H, dtype=i64), not pairwise,
                            arr(tok, dtype=i64), arr(off, dtype=i64), arr(cost, dtype=i64),
                            arr(reg, dtype=i64), arr(cut_x, dtype=i64), arr(cut_y, dtype=i64),
                            buf, vec))
    else:  # pragma: no cover - pure-Python fallback (same kernels, uncompiled)
        value = _kernel(S, H, not pairwise, tok, off, cost, reg, cut_x, cut_y,
                        [[0] * plane for _ in range(9)],
                        [[0] * (max(len(S), len(H)) + 1) for _ in range(2)])
    return None if value >= INF // 2 else value

"""Many references against one source/hypothesis pair: the three-way alignment, fast.

The recurrence and the backtrace are exactly those of
:func:`gecscope.metrics.imeasure.align.threeway_dp` (integer costs, same tie order). Three
engines compute them: a kernel compiled by numba (``gecscope[fast]``; about 100 times faster
than pure Python), a numpy batch over all references at once (references padded to a common
length with a token that matches nothing, which does not change any cell
``k <= len(reference)``: a cell only depends on the reference's first ``k`` tokens), and the
pure-Python programme. All three are tested equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscope._jit import HAVE_NUMBA, jit, np
from gecscope.metrics.imeasure.align import (
    GAP,
    MISMATCH,
    backtrace_with,
    pairwise_backtrace,
    pairwise_table,
    threeway_backtrace,
    threeway_table,
)
from gecscope.metrics.imeasure.core import IMeasureCounts, count_columns


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is installed with most extras
        return None
    return numpy


def threeway_counts_costs(s: Sequence[str], h: Sequence[str], refs: Sequence[Sequence[str]],
                          chunk: int = 512, engine: str = "auto") -> list[tuple[IMeasureCounts, int]]:
    """IMeasureCounts and optimal cost of the three-way alignment of ``(s, h, r)`` for each ``r``.

    ``engine``: ``auto`` (compiled kernel with numba, else the numpy batch for three or more
    references, else pure Python), or one of ``numba``, ``numpy``, ``python`` (for tests).
    """
    numpy = _numpy()
    if engine == "auto":
        engine = "numba" if HAVE_NUMBA else "numpy" if numpy is not None and len(refs) >= 3 \
            else "python"
    if engine == "numba":
        return _compiled(s, h, refs)
    if engine == "python" or numpy is None:
        out = []
        for r in refs:
            D = threeway_table(s, h, r)
            out.append((count_columns(threeway_backtrace(D, s, h, r)),
                        D[len(s)][len(h)][len(r)]))
        return out
    res: list[tuple[IMeasureCounts, int]] = []
    for start in range(0, len(refs), chunk):
        res.extend(_batch(numpy, list(s), list(h), [list(r) for r in refs[start:start + chunk]]))
    return res


def _batch(np: Any, s: list[str], h: list[str], refs: list[list[str]]
           ) -> list[tuple[IMeasureCounts, int]]:
    vocab: dict[str, int] = {}
    for tok in (*s, *h, *(t for r in refs for t in r)):
        vocab.setdefault(tok, len(vocab))
    n1, n2, B = len(s), len(h), len(refs)
    K = max((len(r) for r in refs), default=0)
    R = np.full((B, K), -1, dtype=np.int32)
    for b, r in enumerate(refs):
        if r:
            R[b, : len(r)] = [vocab[t] for t in r]
    dt = np.int32
    # mismatch cost of source token i / hypothesis token j against reference token k: (n, B, K)
    MS = np.where(R[None] == np.array([vocab[t] for t in s], dtype=np.int32)[:, None, None],
                  0, MISMATCH).astype(dt)
    MH = np.where(R[None] == np.array([vocab[t] for t in h], dtype=np.int32)[:, None, None],
                  0, MISMATCH).astype(dt)
    g2 = 2 * GAP
    D = np.empty((B, n1 + 1, n2 + 1, K + 1), dtype=dt)
    t_sh = pairwise_table(s, h)
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            D[:, i, j, 0] = t_sh[i][j] + (i + j) * GAP
    kk = np.arange(K + 1, dtype=dt)[None, :]

    def scan(X: Any, step: int) -> Any:
        """``out[:, k] = min over k' <= k of X[:, k'] + step * (k - k')``."""
        return np.minimum.accumulate(X - step * kk, axis=1) + step * kk

    def face(n: int, M: Any, which: str) -> None:
        T = np.empty((n + 1, B, K + 1), dtype=dt)
        T[0] = kk * GAP
        X = np.empty((B, K + 1), dtype=dt)
        for x in range(1, n + 1):
            X[:, 0] = x * GAP
            X[:, 1:] = np.minimum(T[x - 1, :, :-1] + M[x - 1], T[x - 1, :, 1:] + GAP)
            T[x] = scan(X, GAP)
        for x in range(n + 1):
            if which == "s":
                D[:, x, 0] = T[x] + x * GAP + kk * GAP
            else:
                D[:, 0, x] = T[x] + x * GAP + kk * GAP

    face(n1, MS, "s")
    face(n2, MH, "h")
    X = np.empty((B, K + 1), dtype=dt)
    for i in range(1, n1 + 1):
        si = s[i - 1]
        ms = MS[i - 1]
        for j in range(1, n2 + 1):
            c_ij = 0 if si == h[j - 1] else MISMATCH
            Dpp, Dp0, D0p = D[:, i - 1, j - 1], D[:, i - 1, j], D[:, i, j - 1]
            mh = MH[j - 1]
            # every move except the one along the reference, for k = 1..K at once
            A = Dpp[:, :-1] + ms + mh + c_ij
            np.minimum(A, Dpp[:, 1:] + (c_ij + g2), out=A)
            np.minimum(A, Dp0[:, :-1] + ms + g2, out=A)
            np.minimum(A, D0p[:, :-1] + mh + g2, out=A)
            np.minimum(A, Dp0[:, 1:] + g2, out=A)
            np.minimum(A, D0p[:, 1:] + g2, out=A)
            X[:, 0] = D[:, i, j, 0]
            X[:, 1:] = A
            D[:, i, j] = scan(X, g2)
    out = []
    for b, r in enumerate(refs):
        out.append((count_columns(backtrace_with(D[b].item, s, h, r)),
                    int(D[b, n1, n2, len(r)])))
    return out


def _compiled(s: Sequence[str], h: Sequence[str], refs: Sequence[Sequence[str]]
              ) -> list[tuple[IMeasureCounts, int]]:
    vocab: dict[str, int] = {}

    def ids(tokens: Sequence[str]) -> Any:
        return np.array([vocab.setdefault(t, len(vocab)) for t in tokens], dtype=np.int64)

    S, H = ids(s), ids(h)
    out = np.zeros(7, dtype=np.int64)
    res = []
    for r in refs:
        cost = int(_kernel(S, H, ids(r), out))
        res.append((IMeasureCounts(*(int(v) for v in out)), cost))
    return res


@jit
def pair_cost(a: int, b: int) -> int:
    """The tool's cost of two aligned tokens given as ids (``-1`` is a gap): 0 for two gaps or
    equal tokens, 2 for a token against a gap, 3 for different tokens."""
    if a < 0:
        return 0 if b < 0 else 2
    if b < 0:
        return 2
    return 0 if a == b else 3


@jit
def _kernel(S: Any, H: Any, R: Any, out: Any) -> int:
    """The three-way table, the tool's backtrace and the column counts of ``count_columns``
    (``out``: tp_d, tp_c, tn, fp_d, fn_d, tn_b, fn_b); returns the optimal cost.

    The faces need no special case: the general recurrence restricted to a face gives the
    pairwise table plus 2 per token, which is how the tool fills them."""
    n1 = len(S)
    n2 = len(H)
    n3 = len(R)
    A = n2 + 1
    B = n3 + 1
    D = np.empty((n1 + 1) * A * B, dtype=np.int64)
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            for k in range(n3 + 1):
                idx = (i * A + j) * B + k
                if i == 0 and j == 0 and k == 0:
                    D[idx] = 0
                    continue
                best = 1 << 40
                if i and j and k:
                    v = D[idx - A * B - B - 1] + pair_cost(S[i - 1], H[j - 1]) + pair_cost(S[i - 1], R[k - 1]) \
                        + pair_cost(H[j - 1], R[k - 1])
                    best = min(best, v)
                if i and j:
                    v = D[idx - A * B - B] + pair_cost(S[i - 1], H[j - 1]) + 4
                    best = min(best, v)
                if i and k:
                    v = D[idx - A * B - 1] + pair_cost(S[i - 1], R[k - 1]) + 4
                    best = min(best, v)
                if j and k:
                    v = D[idx - B - 1] + pair_cost(H[j - 1], R[k - 1]) + 4
                    best = min(best, v)
                if i:
                    v = D[idx - A * B] + 4
                    best = min(best, v)
                if j:
                    v = D[idx - B] + 4
                    best = min(best, v)
                if k:
                    v = D[idx - 1] + 4
                    best = min(best, v)
                D[idx] = best
    for q in range(7):
        out[q] = 0
    i, j, k = n1, n2, n3
    while i or j or k:
        idx = (i * A + j) * B + k
        cur = D[idx]
        s = S[i - 1] if i else -1
        h = H[j - 1] if j else -1
        r = R[k - 1] if k else -1
        if i and j and k and cur == D[idx - A * B - B - 1] + pair_cost(s, h) + pair_cost(s, r) + pair_cost(h, r):
            i -= 1
            j -= 1
            k -= 1
        elif i and j and cur == D[idx - A * B - B] + pair_cost(s, h) + 4:
            r = -1
            i -= 1
            j -= 1
        elif i and k and cur == D[idx - A * B - 1] + pair_cost(s, r) + 4:
            h = -1
            i -= 1
            k -= 1
        elif j and k and cur == D[idx - B - 1] + pair_cost(h, r) + 4:
            s = -1
            j -= 1
            k -= 1
        elif i and cur == D[idx - A * B] + 4:
            h = -1
            r = -1
            i -= 1
        elif j and cur == D[idx - B] + 4:
            s = -1
            r = -1
            j -= 1
        else:
            s = -1
            h = -1
            k -= 1
        # count_columns (gaps are -1, equal to each other)
        if s == r:
            out[5] += 1
        else:
            out[6] += 1
        if s == h:
            if h == r:
                out[2] += 1
            elif s == r:  # unreachable, as in count_columns
                out[3] += 1
            else:
                out[4] += 1
        elif s == r:
            out[3] += 1
        else:
            out[0] += 1
            if h == r:
                out[1] += 1
    return D[(n1 * A + n2) * B + n3]


@jit
def _pairwise_kernel(A: Any, B: Any) -> Any:
    """Pairwise table (gap 2, mismatch 3) and the backtrace of
    :func:`gecscope.metrics.imeasure.align.pairwise_backtrace` (diagonal, then a gap in ``B``,
    then a gap in ``A``); returns ``(matched columns, all columns, optimal cost)``."""
    n = len(A)
    m = len(B)
    W = m + 1
    T = np.empty((n + 1) * W, dtype=np.int64)
    for j in range(m + 1):
        T[j] = 2 * j
    for i in range(1, n + 1):
        T[i * W] = 2 * i
        for j in range(1, m + 1):
            diag = T[(i - 1) * W + j - 1] + (0 if A[i - 1] == B[j - 1] else 3)
            up = T[(i - 1) * W + j] + 2
            left = T[i * W + j - 1] + 2
            best = min(up, diag)
            best = min(best, left)
            T[i * W + j] = best
    i = n
    j = m
    cols = 0
    same = 0
    while i > 0 or j > 0:
        cur = T[i * W + j]
        cols += 1
        if i > 0 and j > 0 and cur == T[(i - 1) * W + j - 1] + (0 if A[i - 1] == B[j - 1] else 3):
            if A[i - 1] == B[j - 1]:
                same += 1
            i -= 1
            j -= 1
        elif i > 0 and cur == T[(i - 1) * W + j] + 2:
            i -= 1
        else:
            j -= 1
    return same, cols, T[n * W + m]


def pairwise_counts(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, int]:
    """``(TN, FN, cost)`` of the tool's pairwise alignment of ``a`` and ``b``: columns where the
    two agree, the other columns, and the optimal cost (the baseline of a reference ``b`` for
    the source ``a``). Compiled with numba when installed, else pure Python."""
    if not HAVE_NUMBA:
        tab = pairwise_table(a, b)
        x, y = pairwise_backtrace(tab, a, b)
        tn = sum(1 for p, q in zip(x, y, strict=True) if p == q)
        return tn, len(x) - tn, tab[-1][-1]
    vocab: dict[str, int] = {}
    A = np.array([vocab.setdefault(t, len(vocab)) for t in a], dtype=np.int64)
    B = np.array([vocab.setdefault(t, len(vocab)) for t in b], dtype=np.int64)
    same, cols, cost = _pairwise_kernel(A, B)
    return int(same), int(cols - same), int(cost)

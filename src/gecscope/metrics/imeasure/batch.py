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
                          chunk: int = 512, engine: str = "auto",
                          prepared: dict[str, Any] | None = None
                          ) -> list[tuple[IMeasureCounts, int]]:
    """IMeasureCounts and optimal cost of the three-way alignment of ``(s, h, r)`` for each ``r``.

    ``engine``: ``auto`` (compiled kernel with numba, else the numpy batch for three or more
    references, else pure Python), or one of ``numba``, ``numpy``, ``python`` (for tests).
    ``prepared``: a dict kept by the caller for one ``(s, refs)`` (any hypothesis), where the
    compiled engine keeps the references' encoding (:func:`prepare_references`).
    """
    numpy = _numpy()
    if engine == "auto":
        engine = "numba" if HAVE_NUMBA else "numpy" if numpy is not None and len(refs) >= 3 \
            else "python"
    if engine == "numba":
        if prepared is None:
            return _compiled(s, h, refs)
        if "compiled" not in prepared:
            prepared["compiled"] = prepare_references(s, refs)
        return _compiled(s, h, refs, prepared["compiled"])
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


def prepare_references(s: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[Any, ...]:
    """The references of :func:`_compiled` encoded once, for every hypothesis aligned with
    them (the region's pieces do not depend on the hypothesis): token ids (the source's
    first, then the references'), the references' ids end to end with their offsets, and
    the sorted visiting order. Ids only need to be equal for equal tokens."""
    vocab: dict[str, int] = {}
    for t in s:
        vocab.setdefault(t, len(vocab))
    rids = [[vocab.setdefault(t, len(vocab)) for t in r] for r in refs]
    offs = np.zeros(len(rids) + 1, dtype=np.int64)
    offs[1:] = np.cumsum([len(r) for r in rids], dtype=np.int64)
    flat = np.array([t for r in rids for t in r], dtype=np.int64)
    order = np.array(sorted(range(len(rids)), key=rids.__getitem__), dtype=np.int64)
    S = np.array([vocab[t] for t in s], dtype=np.int64)
    return vocab, S, flat, offs, order


def _compiled(s: Sequence[str], h: Sequence[str], refs: Sequence[Sequence[str]],
              prepared: tuple[Any, ...] | None = None) -> list[tuple[IMeasureCounts, int]]:
    """All references in one compiled call, in sorted order so that each reuses the table
    slabs of the reference prefix it shares with the one before (:func:`_kernel_shared`).
    ``prepared``: :func:`prepare_references` of ``(s, refs)``, reused across hypotheses (the
    visiting order only decides which slabs are shared, not their cells)."""
    vocab, S, flat, offs, order = prepared if prepared is not None else \
        prepare_references(s, refs)
    extra: dict[str, int] = {}  # hypothesis tokens in no reference nor the source
    H = np.array([vocab[t] if t in vocab else extra.setdefault(t, len(vocab) + len(extra))
                  for t in h], dtype=np.int64)
    n = len(offs) - 1
    counts = np.zeros((n, 7), dtype=np.int64)
    costs = np.zeros(n, dtype=np.int64)
    if n:
        _kernel_shared(S, H, flat, offs, order, counts, costs)
    return [(IMeasureCounts(*row), c)
            for row, c in zip(counts.tolist(), costs.tolist(), strict=True)]


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
def _kernel_shared(S: Any, H: Any, flat: Any, offs: Any, order: Any, counts: Any, costs: Any
                   ) -> None:
    """The three-way table, the tool's backtrace and the column counts of ``count_columns``
    (tp_d, tp_c, tn, fp_d, fn_d, tn_b, fn_b) for many references: reference ``b`` is
    ``flat[offs[b]:offs[b+1]]``; its counts go to ``counts[b]``, its optimal cost to
    ``costs[b]``. The faces need no special case: the general recurrence restricted to a face
    gives the pairwise table plus 2 per token, which is how the tool fills them.

    The table is stored slab by slab along the reference (slab ``k`` holds every cell with
    ``k`` reference tokens consumed), and a slab depends only on the reference's first ``k``
    tokens. References are visited in ``order`` (sorted), so each one recomputes only the
    slabs beyond the prefix it shares with the previous one; the cells, and therefore the
    backtrace with its tie order, are those of the one-reference table."""
    n1 = len(S)
    n2 = len(H)
    A = n2 + 1
    P = (n1 + 1) * A
    n_max = 0
    for b in range(len(offs) - 1):
        n_max = max(n_max, offs[b + 1] - offs[b])
    D = np.empty((n_max + 1) * P, dtype=np.int64)
    for i in range(n1 + 1):  # slab 0: no reference token consumed
        for j in range(n2 + 1):
            idx = i * A + j
            if i == 0 and j == 0:
                D[idx] = 0
                continue
            best = 1 << 40
            if i and j:
                best = min(best, D[idx - A - 1] + pair_cost(S[i - 1], H[j - 1]) + 4)
            if i:
                best = min(best, D[idx - A] + 4)
            if j:
                best = min(best, D[idx - 1] + 4)
            D[idx] = best
    prev = -1
    for q in range(len(order)):
        b = order[q]
        a0 = offs[b]
        n3 = offs[b + 1] - a0
        shared = 0
        if prev >= 0:
            pa = offs[prev]
            plen = offs[prev + 1] - pa
            while shared < n3 and shared < plen and flat[a0 + shared] == flat[pa + shared]:
                shared += 1
        prev = b
        for k in range(shared + 1, n3 + 1):
            t = flat[a0 + k - 1]
            base = k * P
            for i in range(n1 + 1):
                for j in range(n2 + 1):
                    idx = base + i * A + j
                    best = D[idx - P] + 4
                    if i and j:
                        v = D[idx - P - A - 1] + pair_cost(S[i - 1], H[j - 1]) \
                            + pair_cost(S[i - 1], t) + pair_cost(H[j - 1], t)
                        best = min(best, v)
                        v = D[idx - A - 1] + pair_cost(S[i - 1], H[j - 1]) + 4
                        best = min(best, v)
                    if i:
                        v = D[idx - P - A] + pair_cost(S[i - 1], t) + 4
                        best = min(best, v)
                    if j:
                        v = D[idx - P - 1] + pair_cost(H[j - 1], t) + 4
                        best = min(best, v)
                    if i:
                        v = D[idx - A] + 4
                        best = min(best, v)
                    if j:
                        v = D[idx - 1] + 4
                        best = min(best, v)
                    D[idx] = best
        # the tool's backtrace: diagonal first, then (s,h), (s,r), (h,r), s, h, r
        for x in range(7):
            counts[b, x] = 0
        i, j, k = n1, n2, n3
        while i or j or k:
            idx = k * P + i * A + j
            cur = D[idx]
            s = S[i - 1] if i else -1
            h = H[j - 1] if j else -1
            r = flat[a0 + k - 1] if k else -1
            if i and j and k and cur == D[idx - P - A - 1] + pair_cost(s, h) + pair_cost(s, r) \
                    + pair_cost(h, r):
                i -= 1
                j -= 1
                k -= 1
            elif i and j and cur == D[idx - A - 1] + pair_cost(s, h) + 4:
                r = -1
                i -= 1
                j -= 1
            elif i and k and cur == D[idx - P - A] + pair_cost(s, r) + 4:
                h = -1
                i -= 1
                k -= 1
            elif j and k and cur == D[idx - P - 1] + pair_cost(h, r) + 4:
                s = -1
                j -= 1
                k -= 1
            elif i and cur == D[idx - A] + 4:
                h = -1
                r = -1
                i -= 1
            elif j and cur == D[idx - 1] + 4:
                s = -1
                r = -1
                j -= 1
            else:
                s = -1
                h = -1
                k -= 1
            if s == r:
                counts[b, 5] += 1
            else:
                counts[b, 6] += 1
            if s == h:
                if h == r:
                    counts[b, 2] += 1
                elif s == r:  # unreachable, as in count_columns
                    counts[b, 3] += 1
                else:
                    counts[b, 4] += 1
            elif s == r:
                counts[b, 3] += 1
            else:
                counts[b, 0] += 1
                if h == r:
                    counts[b, 1] += 1
        costs[b] = D[n3 * P + n1 * A + n2]


@jit
def _pairwise_table(A: Any, B: Any) -> Any:
    """The pairwise cost table (gap 2, mismatch 3) of ``A`` against ``B``, row-major with
    ``len(B) + 1`` columns: what :func:`_pairwise_kernel` backtraces."""
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
    return T


@jit
def _pairwise_kernel(A: Any, B: Any, out: Any) -> Any:
    """Pairwise table (gap 2, mismatch 3) and the backtrace of
    :func:`gecscope.metrics.imeasure.align.pairwise_backtrace` (diagonal, then a gap in ``B``,
    then a gap in ``A``): ``out[i]`` := the index of the token of ``B`` it pairs with ``A[i]``
    when the two are equal, else -1; returns ``(matched columns, all columns, optimal
    cost)``."""
    n = len(A)
    m = len(B)
    W = m + 1
    T = _pairwise_table(A, B)
    for i in range(n):
        out[i] = -1
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
                out[i - 1] = j - 1
            i -= 1
            j -= 1
        elif i > 0 and cur == T[(i - 1) * W + j] + 2:
            i -= 1
        else:
            j -= 1
    return same, cols, T[n * W + m]


def _encoded(a: Sequence[str], b: Sequence[str]) -> tuple[Any, Any]:
    """``a`` and ``b`` as integer arrays over one vocabulary (for the compiled kernels)."""
    vocab: dict[str, int] = {}
    A = np.array([vocab.setdefault(t, len(vocab)) for t in a], dtype=np.int64)
    B = np.array([vocab.setdefault(t, len(vocab)) for t in b], dtype=np.int64)
    return A, B


def pairwise_counts(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, int]:
    """``(TN, FN, cost)`` of the tool's pairwise alignment of ``a`` and ``b``: columns where the
    two agree, the other columns, and the optimal cost (the baseline of a reference ``b`` for
    the source ``a``). Compiled with numba when installed, else pure Python."""
    if not HAVE_NUMBA:
        tab = pairwise_table(a, b)
        x, y = pairwise_backtrace(tab, a, b)
        tn = sum(1 for p, q in zip(x, y, strict=True) if p == q)
        return tn, len(x) - tn, tab[-1][-1]
    A, B = _encoded(a, b)
    same, cols, cost = _pairwise_kernel(A, B, np.empty(len(A), dtype=np.int64))
    return int(same), int(cols - same), int(cost)


def source_reference_counts(s: Sequence[str], h: Sequence[str]) -> IMeasureCounts:
    """``count_columns(align(s, h, s))``: the counts of a hypothesis against the source as
    its reference, which the tool aligns pairwise (source with hypothesis). Every column has
    its source equal to its reference, so it is a TN where the hypothesis agrees and an FP
    where not, and a TN of the baseline; the pairwise kernel's matched and total columns are
    all that is needed. Tokens are never empty (the columns' gap), as in every split text."""
    if not HAVE_NUMBA or not s or not h:
        from gecscope.metrics.imeasure.align import align

        return count_columns(align(s, h, s))
    A, B = _encoded(s, h)
    same, cols, _ = _pairwise_kernel(A, B, np.empty(len(A), dtype=np.int64))
    return IMeasureCounts(tn=int(same), fp_d=int(cols - same), tn_b=int(cols))


def pairwise_sync(a: Sequence[str], b: Sequence[str]) -> list[int | None]:
    """For each token of ``a``, the index of the equal token of ``b`` that the tool's pairwise
    alignment (:func:`gecscope.metrics.imeasure.align.pairwise_backtrace`) pairs with it, or
    None. Compiled with numba when installed, else the pure-Python table."""
    if not HAVE_NUMBA:
        x, y = pairwise_backtrace(pairwise_table(a, b), a, b)
        out: list[int | None] = [None] * len(a)
        i = j = 0
        for p, q in zip(x, y, strict=True):
            if p and q:
                if p == q:
                    out[i] = j
                i += 1
                j += 1
            elif p:
                i += 1
            else:
                j += 1
        return out
    A, B = _encoded(a, b)
    res = np.empty(len(a), dtype=np.int64)
    _pairwise_kernel(A, B, res)
    return [None if v < 0 else v for v in res.tolist()]

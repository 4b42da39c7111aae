"""Many references against one source/hypothesis pair: the three-way table in a numpy batch.

The recurrence and the backtrace are exactly those of
:func:`gecscope.metrics.imeasure_align.threeway_dp` (integer costs, same tie order), computed
for a batch of references at once: references are padded to a common length with a token that
matches nothing, which does not change any cell ``k <= len(reference)`` (a cell only depends on
the reference's first ``k`` tokens). Used when a region has many candidate references; numpy is
optional (without it the pure-Python programme runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscope.metrics.imeasure_align import (
    GAP,
    MISMATCH,
    backtrace_with,
    pairwise_table,
    threeway_dp,
)
from gecscope.metrics.imeasure_core import Counts, count_columns


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is installed with most extras
        return None
    return numpy


def threeway_counts(s: Sequence[str], h: Sequence[str], refs: Sequence[Sequence[str]],
                    chunk: int = 512) -> list[Counts]:
    """Counts of the three-way alignment of ``(s, h, r)`` for every ``r`` in ``refs``."""
    np = _numpy()
    if np is None or len(refs) < 3:
        return [count_columns(threeway_dp(s, h, r)) for r in refs]
    out: list[Counts] = []
    for start in range(0, len(refs), chunk):
        out.extend(_batch(np, list(s), list(h), [list(r) for r in refs[start:start + chunk]]))
    return out


def _batch(np: Any, s: list[str], h: list[str], refs: list[list[str]]) -> list[Counts]:
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
        out.append(count_columns(backtrace_with(D[b].item, s, h, r)))
    return out

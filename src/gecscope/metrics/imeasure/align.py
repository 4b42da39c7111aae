"""Three-way token alignment of source, hypothesis and reference, as the I-measure tool does it.

Costs are sums of pairs: for two tokens 0 when equal and 3 otherwise, 2 for a token against a
gap, 0 for two gaps. A column therefore costs ``c(s,h) + c(s,r) + c(h,r)``, one gap adds
``c(pair) + 4`` and two gaps ``4``. The dynamic programme's faces are filled from pairwise tables
and the backtrace, from the end, takes the first move whose cost accounts for the cell in the
order: no gap; a gap in the reference, the hypothesis, the source; then two gaps (only source,
only hypothesis, only reference moving).

Shortcuts of the reference tool, reproduced because they decide ties: when all three sequences
are equal the alignment is the identity; when the source equals the hypothesis, or the source
equals the reference, a pairwise alignment is computed (of hypothesis against reference, or of
reference against hypothesis) and the equal sequence copied. When only the hypothesis equals
the reference, the tool falls through to the full three-way programme, and so do we.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

GAP = 2
MISMATCH = 3
GAP_TOKEN = ""

Column = tuple[str, str, str]


def pairwise_table(a: Sequence[str], b: Sequence[str]) -> list[list[int]]:
    """Edit-distance table with gap 2 and mismatch 3."""
    n, m = len(a), len(b)
    prev = [j * GAP for j in range(m + 1)]
    table = [prev]
    for i in range(1, n + 1):
        ai = a[i - 1]
        row = [i * GAP] * (m + 1)
        left = row[0]
        for j in range(1, m + 1):
            diag = prev[j - 1] + (0 if ai == b[j - 1] else MISMATCH)
            up = prev[j] + GAP
            lf = left + GAP
            best = diag if diag < up else up  # noqa: FURB136 - hot loop, min() is slower
            if lf < best:  # noqa: PLR1730
                best = lf
            row[j] = best
            left = best
        table.append(row)
        prev = row
    return table


def pairwise_backtrace(table: list[list[int]], a: Sequence[str],
                       b: Sequence[str]) -> tuple[list[str], list[str]]:
    """Backtrace preferring a diagonal move, then a gap in ``b``, then a gap in ``a``."""
    la: list[str] = []
    lb: list[str] = []
    i, j = len(a), len(b)
    while i or j:
        cur = table[i][j]
        if i and j and cur == table[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else MISMATCH):
            la.append(a[i - 1])
            lb.append(b[j - 1])
            i -= 1
            j -= 1
        elif i and cur == table[i - 1][j] + GAP:
            la.append(a[i - 1])
            lb.append(GAP_TOKEN)
            i -= 1
        else:
            la.append(GAP_TOKEN)
            lb.append(b[j - 1])
            j -= 1
    la.reverse()
    lb.reverse()
    return la, lb


def threeway_table(s: Sequence[str], h: Sequence[str], r: Sequence[str]) -> list[list[list[int]]]:
    """The full sum-of-pairs table ``D[i][j][k]`` (faces from the pairwise tables)."""
    n1, n2, n3 = len(s), len(h), len(r)
    t_sh = pairwise_table(s, h)
    t_sr = pairwise_table(s, r)
    t_hr = pairwise_table(h, r)
    g2 = 2 * GAP
    D = [[[0] * (n3 + 1) for _ in range(n2 + 1)] for _ in range(n1 + 1)]
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            D[i][j][0] = t_sh[i][j] + (i + j) * GAP
        for k in range(n3 + 1):
            D[i][0][k] = t_sr[i][k] + (i + k) * GAP
    for j in range(n2 + 1):
        for k in range(n3 + 1):
            D[0][j][k] = t_hr[j][k] + (j + k) * GAP
    for i in range(1, n1 + 1):
        si = s[i - 1]
        Dp = D[i - 1]
        Di = D[i]
        for j in range(1, n2 + 1):
            hj = h[j - 1]
            c_ij = 0 if si == hj else MISMATCH
            Dpp = Dp[j - 1]
            Dp0 = Dp[j]
            D0p = Di[j - 1]
            row = Di[j]
            prev_k = row[0]
            for k in range(1, n3 + 1):
                rk = r[k - 1]
                c_ik = 0 if si == rk else MISMATCH
                c_jk = 0 if hj == rk else MISMATCH
                best = Dpp[k - 1] + c_ij + c_ik + c_jk
                v = Dpp[k] + c_ij + g2
                if v < best:  # noqa: PLR1730
                    best = v
                v = Dp0[k - 1] + c_ik + g2
                if v < best:  # noqa: PLR1730
                    best = v
                v = D0p[k - 1] + c_jk + g2
                if v < best:  # noqa: PLR1730
                    best = v
                v = Dp0[k] + g2
                if v < best:  # noqa: PLR1730
                    best = v
                v = D0p[k] + g2
                if v < best:  # noqa: PLR1730
                    best = v
                v = prev_k + g2
                if v < best:  # noqa: PLR1730
                    best = v
                row[k] = best
                prev_k = best
    return D


def threeway_backtrace(D: list[list[list[int]]], s: Sequence[str], h: Sequence[str],
                       r: Sequence[str], end: tuple[int, int, int] | None = None
                       ) -> list[Column]:
    """Columns of the alignment, following the tool's preference order from ``end`` to the origin."""
    return backtrace_with(lambda i, j, k: D[i][j][k], s, h, r, end)


def backtrace_with(get: Callable[[int, int, int], int], s: Sequence[str], h: Sequence[str],
                   r: Sequence[str], end: tuple[int, int, int] | None = None) -> list[Column]:
    """:func:`threeway_backtrace` over any table accessor ``get(i, j, k)``."""
    g2 = 2 * GAP
    i, j, k = end if end is not None else (len(s), len(h), len(r))
    out: list[Column] = []
    while i or j or k:
        cur = get(i, j, k)
        c_ij = (0 if s[i - 1] == h[j - 1] else MISMATCH) if i and j else 0
        c_ik = (0 if s[i - 1] == r[k - 1] else MISMATCH) if i and k else 0
        c_jk = (0 if h[j - 1] == r[k - 1] else MISMATCH) if j and k else 0
        if i and j and k and cur == get(i - 1, j - 1, k - 1) + c_ij + c_ik + c_jk:
            out.append((s[i - 1], h[j - 1], r[k - 1]))
            i, j, k = i - 1, j - 1, k - 1
        elif i and j and cur == get(i - 1, j - 1, k) + c_ij + g2:
            out.append((s[i - 1], h[j - 1], GAP_TOKEN))
            i, j = i - 1, j - 1
        elif i and k and cur == get(i - 1, j, k - 1) + c_ik + g2:
            out.append((s[i - 1], GAP_TOKEN, r[k - 1]))
            i, k = i - 1, k - 1
        elif j and k and cur == get(i, j - 1, k - 1) + c_jk + g2:
            out.append((GAP_TOKEN, h[j - 1], r[k - 1]))
            j, k = j - 1, k - 1
        elif i and cur == get(i - 1, j, k) + g2:
            out.append((s[i - 1], GAP_TOKEN, GAP_TOKEN))
            i -= 1
        elif j and cur == get(i, j - 1, k) + g2:
            out.append((GAP_TOKEN, h[j - 1], GAP_TOKEN))
            j -= 1
        else:
            out.append((GAP_TOKEN, GAP_TOKEN, r[k - 1]))
            k -= 1
    out.reverse()
    return out


def threeway_dp(s: Sequence[str], h: Sequence[str], r: Sequence[str]) -> list[Column]:
    """The three-way programme without the tool's shortcuts (used on sub-problems)."""
    return threeway_backtrace(threeway_table(s, h, r), s, h, r)


def align(s: Sequence[str], h: Sequence[str], r: Sequence[str]) -> list[Column]:
    """The reference tool's alignment of source ``s``, hypothesis ``h`` and reference ``r``."""
    s, h, r = list(s), list(h), list(r)
    if s == h == r:
        return list(zip(s, h, r, strict=True))
    if s == h:
        a, b = pairwise_backtrace(pairwise_table(h, r), h, r)
        return list(zip(a, a, b, strict=True))
    if s == r:
        a, b = pairwise_backtrace(pairwise_table(r, h), r, h)
        return list(zip(a, b, a, strict=True))
    return threeway_dp(s, h, r)

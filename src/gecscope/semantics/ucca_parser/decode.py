"""CKY decoding of the best span tree from per-span label log-probabilities.

A tree's score is the log-probability of all span decisions: units in the tree, the empty
label (0) everywhere else; binarisation nodes carry the empty label and are dropped. Every single token is a span, and
the whole sentence is the root. Ties are broken by the lowest split point and label index,
so decoding is deterministic.
"""

from __future__ import annotations

from typing import Any


def cky(logp: Any, unit_first: bool = True) -> dict[tuple[int, int], int]:
    """Best tree of ``logp`` (numpy, (n+1, n+1, labels)): ``{(i, j): label}`` for non-empty labels.

    A tree is scored over *all* spans: its unit spans by their label's log-probability and
    every other span (binarisation nodes and spans left out of the tree) by the empty label's.
    Up to a constant that is the sum over the tree's spans of ``max(0, log p(unit) -
    log p(empty))``, which CKY maximises. With ``unit_first`` (the default) a span is a unit
    when the probability of *some* label beats the empty one (the labels do not split the
    vote) and then takes its best label; otherwise it takes its single most probable label.
    """
    import numpy as np

    n = logp.shape[0] - 1
    if n <= 0:
        return {}
    lp = logp.astype(np.float64)
    empty = lp[..., 0]
    if unit_first:
        log_unit = np.log(np.clip(1.0 - np.exp(empty), 1e-300, None))
    else:
        log_unit = lp[..., 1:].max(-1)
    is_unit = log_unit > empty
    best_lab = np.where(is_unit, lp[..., 1:].argmax(-1) + 1, 0)
    best = np.maximum(log_unit - empty, 0.0)
    chart = np.full((n + 1, n + 1), -np.inf)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    idx = np.arange(n)
    chart[idx, idx + 1] = best[idx, idx + 1]
    for length in range(2, n + 1):
        starts = np.arange(n - length + 1)
        ends = starts + length
        mids = starts[:, None] + np.arange(1, length)[None, :]          # (m, length-1)
        tot = chart[starts[:, None], mids] + chart[mids, ends[:, None]]
        k = tot.argmax(1)
        chart[starts, ends] = tot[np.arange(len(starts)), k] + best[starts, ends]
        split[starts, ends] = mids[np.arange(len(starts)), k]
    out: dict[tuple[int, int], int] = {}
    stack = [(0, n)]
    while stack:
        i, j = stack.pop()
        lab = int(best_lab[i, j])
        if lab:
            out[(i, j)] = lab
        if j - i > 1:
            m = int(split[i, j])
            stack.append((i, m))
            stack.append((m, j))
    return out

"""GLEU's resampling fast path: the corpus GLEU of many resamples at once, equal to
:meth:`GLEUMetric.aggregate` on each resample.

A resample of ``n`` sentences is scored as ``aggregate`` scores any list of ``n`` sentences:
in iteration ``j`` the sentence at position ``i`` takes reference ``draw_references(n, R, j)[i]``.
The statistics are integers, so their sums (done here as float64 matrix products, exact below
2**53) equal the slow path's; each iteration's GLEU uses the same ``math.log``/``math.exp``
(compiled with numba when installed) and the mean, std and interval the same ``math.fsum``.
Imported only when resampling (numpy).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gecscope._jit import jit
from gecscope.metrics.gleu import draw_references, mean_std_ci


@jit
def _iteration_gleu(totals: Any, out: Any) -> None:  # pragma: no cover - compiled
    """``out[b, j]`` = :func:`gleu_from_stats` of ``totals[b, j, :]`` (unsmoothed)."""
    n_b, n_j, width = totals.shape
    n_orders = (width - 2) // 2
    for b in range(n_b):
        for j in range(n_j):
            positive = True
            for c in range(width):
                if totals[b, j, c] <= 0:
                    positive = False
                    break
            if not positive:
                out[b, j] = 0.0
                continue
            c_len = totals[b, j, 0]
            r_len = totals[b, j, 1]
            log_prec = 0.0
            for k in range(n_orders):
                log_prec += math.log(totals[b, j, 2 + 2 * k] / totals[b, j, 3 + 2 * k])
            log_prec = log_prec / n_orders
            out[b, j] = math.exp(min(0.0, 1.0 - r_len / c_len) + log_prec)


class GLEURows:
    """Resampling path of :class:`~gecscope.metrics.gleu.GLEUMetric` (rows of sentence
    indices in, Score fields per row out)."""

    def __init__(self, iterations: int, draw: str) -> None:
        self.iterations = iterations
        self.draw = draw

    def rows_scorer(self, stats: Sequence[Any]) -> Callable[[Any], dict[str, Any]]:
        """A function scoring ``(B, n)`` index rows into ``stats``: ``{field: (B,) array}``."""
        table = np.asarray([s.refs for s in stats], dtype=np.float64)  # (N, R, W)
        n_refs = table.shape[1]
        iterations = self.iterations if n_refs > 1 else 1
        picks: dict[int, Any] = {}

        def score(rows: Any) -> dict[str, Any]:
            rows = np.atleast_2d(rows)
            n = rows.shape[1]
            if n not in picks:
                picks[n] = np.asarray([draw_references(n, n_refs, j, self.draw)
                                       for j in range(iterations)])  # (J, n)
            draws = picks[n]
            masks = [(draws == k).astype(np.float64).T for k in range(n_refs)]  # (n, J)
            width = table.shape[2]
            fields: dict[str, list[float]] = {"GLEU": [], "std": [], "ci_low": [], "ci_high": []}
            step = max(1, 4_000_000 // max(1, n * width))
            for lo in range(0, rows.shape[0], step):
                block = rows[lo:lo + step]
                totals = np.zeros((len(block) * width, iterations))
                for k in range(n_refs):
                    # (b, n, W) -> (b * W, n) @ (n, J): each iteration's sums, one matrix product
                    part = np.transpose(table[block, k, :], (0, 2, 1)).reshape(-1, n)
                    totals += part @ masks[k]
                totals = np.ascontiguousarray(
                    np.transpose(totals.reshape(len(block), width, iterations), (0, 2, 1)))
                values = np.empty(totals.shape[:2])
                _iteration_gleu(totals, values)
                for row in values:
                    mean, std, lo_ci, hi_ci = mean_std_ci(row.tolist())
                    fields["GLEU"].append(mean)
                    fields["std"].append(std)
                    fields["ci_low"].append(lo_ci)
                    fields["ci_high"].append(hi_ci)
            return {k: np.asarray(v) for k, v in fields.items()}

        return score

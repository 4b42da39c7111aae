"""Precision, recall and F-beta from edit counts, with the conventions GEC scorers share.

Standard library only, below every module that scores (alignment, semantics, metrics, reports,
rtt); :func:`gecscope.stats.fastpath.prf_arrays` is its vectorised twin for resampling.
"""

from __future__ import annotations


def prf(tp: float, fp: float, fn: float, beta: float = 0.5, ndigits: int | None = None
        ) -> tuple[float, float, float]:
    """P, R, F_beta: P = 1 when nothing was proposed, R = 1 when nothing was to be found,
    F = 0 when P + R = 0 (the convention of ERRANT and the M2 scorer). ``ndigits`` rounds all
    three, as errant_compare and the CLEME code do before comparing them."""
    p = tp / (tp + fp) if fp else 1.0
    r = tp / (tp + fn) if fn else 1.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if p + r else 0.0
    if ndigits is not None:
        return round(p, ndigits), round(r, ndigits), round(f, ndigits)
    return p, r, f

"""Vectorised count paths for metrics that do not (yet) define them themselves.

:mod:`gecscope.stats.resample` uses a metric's own ``resample_counts``/``score_counts`` when it
has them; otherwise :func:`adapter_for` may return an adapter for a known statistics type, and
failing that resampling calls ``aggregate``. Every adapter reproduces its metric's ``aggregate``
exactly (same float operations, same tie-breaking); the tests compare the two on CoNLL-2014.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscope.stats.resample import _np


def prf_arrays(tp: Any, fp: Any, fn: Any, beta: float) -> tuple[Any, Any, Any]:
    """Vectorised :func:`gecscope.metrics.counts.prf` with bit-identical results: P = 1 when
    FP = 0, R = 1 when FN = 0, F = 0 when P + R = 0."""
    np = _np()
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    fn = np.asarray(fn, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(fp != 0, tp / (tp + fp), 1.0)
        r = np.where(fn != 0, tp / (tp + fn), 1.0)
        b2 = beta * beta
        f = np.where(p + r != 0, (1 + b2) * p * r / (b2 * p + r), 0.0)
    return p, r, f


def round_like_python(x: Any, digits: int) -> Any:
    """``round(v, digits)`` for every element, exactly as Python rounds floats.

    numpy's ``round`` scales by 10**digits first and can differ from Python's correctly
    rounded result near a half; those few values are recomputed with Python's ``round``.
    """
    np = _np()
    x = np.asarray(x, dtype=np.float64)
    out = np.round(x, digits)
    scaled = x * 10.0 ** digits
    frac = np.abs(scaled - np.floor(scaled) - 0.5)
    near = np.flatnonzero(frac.reshape(-1) < 1e-6)
    if near.size:
        flat_x = x.reshape(-1)
        flat_out = out.reshape(-1)
        for i in near:
            flat_out[i] = round(float(flat_x[i]), digits)
        out = flat_out.reshape(x.shape)
    return out


def candidate_counts(stats: Sequence[Any]) -> Any:
    """``(n, C, 3)`` TP/FP/FN per sentence and candidate (``stats[i].candidates``), NaN-padded."""
    np = _np()
    width = max((len(s.candidates) for s in stats), default=1)
    out = np.full((len(stats), width, 3), np.nan)
    for i, s in enumerate(stats):
        for j, c in enumerate(s.candidates):
            out[i, j] = (c.tp, c.fp, c.fn)
    return out


class ErrantCounts:
    """Fast path of :class:`gecscope.metrics.errant.ErrantMetric` (candidates of TP/FP/FN;
    greedy choice on F rounded to ``selection_rounding``, ties to more TP, fewer FP, FN)."""

    resample_tiebreak = ((0, 1.0), (1, -1.0), (2, -1.0))
    # F (rounded or not) never decreases with TP and never increases with FP or FN
    resample_monotone = resample_tiebreak

    def __init__(self, beta: float, rounding: int | None) -> None:
        self.beta = beta
        self.rounding = rounding
        self.fname = f"F{beta:g}"

    def resample_counts(self, stats: Sequence[Any]) -> Any:
        return candidate_counts(stats)

    def score_counts(self, totals: Any) -> dict[str, Any]:
        np = _np()
        t = np.asarray(totals, dtype=np.float64)
        p, r, f = prf_arrays(t[..., 0], t[..., 1], t[..., 2], self.beta)
        return {"TP": t[..., 0], "FP": t[..., 1], "FN": t[..., 2], "P": p, "R": r,
                self.fname: f}

    def select_counts(self, totals: Any) -> Any:
        np = _np()
        t = np.asarray(totals, dtype=np.float64)
        f = prf_arrays(t[..., 0], t[..., 1], t[..., 2], self.beta)[2]
        return f if self.rounding is None else round_like_python(f, self.rounding)


class M2Counts:
    """Fast path of :class:`gecscope.metrics.m2.M2Metric`: rows of (correct, proposed, gold);
    greedy choice on cumulative F, ties to more correct, then to the smaller
    ``proposed + beta**2 * gold`` (m2scorer's order), kept as a fourth column."""

    resample_tiebreak = ((0, 1.0), (3, -1.0))
    # F grows with correct, falls with proposed and gold (and so with the fourth column)
    resample_monotone = ((0, 1.0), (1, -1.0), (2, -1.0), (3, -1.0))

    def __init__(self, beta: float) -> None:
        self.beta = beta
        self.fname = f"F{beta:g}"

    def resample_counts(self, stats: Sequence[Any]) -> Any:
        np = _np()
        b2 = self.beta * self.beta
        width = max((len(s.rows) for s in stats), default=1) or 1
        out = np.full((len(stats), width, 4), np.nan)
        for i, s in enumerate(stats):
            if not s.rows:  # aggregate counts such a sentence as (0, 0, 0)
                out[i, 0] = (0, 0, 0, 0)
            for j, r in enumerate(s.rows):
                out[i, j] = (r.correct, r.proposed, r.gold, r.proposed + b2 * r.gold)
        return out

    def _prf(self, t: Any) -> tuple[Any, Any, Any]:
        c, p, g = t[..., 0], t[..., 1], t[..., 2]
        return prf_arrays(c, p - c, g - c, self.beta)

    def score_counts(self, totals: Any) -> dict[str, Any]:
        t = _np().asarray(totals, dtype=float)
        prec, rec, f = self._prf(t)
        return {"TP": t[..., 0], "FP": t[..., 1] - t[..., 0], "FN": t[..., 2] - t[..., 0],
                "P": prec, "R": rec, self.fname: f}

    def select_counts(self, totals: Any) -> Any:
        return self._prf(_np().asarray(totals, dtype=float))[2]


class Cleme2Counts:
    """Fast path of corpus-level, unweighted :class:`gecscope.metrics.cleme.CLEME2Metric`:
    candidates (one per reference) of TP, FP, FN, TN, FP_ne, FP_un chunk counts; greedy choice
    on the comprehensive score of the running totals, ties to more TP, fewer FP, fewer FN,
    more TN. (Length and model weights are left to ``aggregate``: the length weights depend
    on the resampled corpus, model weights are not integers.)"""

    resample_tiebreak = ((0, 1.0), (1, -1.0), (2, -1.0), (3, 1.0))

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self.factors = metric.config.factors()

    def resample_counts(self, stats: Sequence[Any]) -> Any:
        np = _np()
        weigher = self.metric._weigher(stats)
        width = max((len(s.refs) for s in stats), default=1) or 1
        out = np.full((len(stats), width, 6), np.nan)
        for i, s in enumerate(stats):
            if not s.refs:  # aggregate adds nothing for a sentence without references
                out[i, 0] = 0.0
            for j, r in enumerate(s.refs):
                c = weigher.counts(r)
                out[i, j] = (c.tp, c.fp, c.fn, c.tn, c.fp_ne, c.fp_un)
        return out

    def score_counts(self, totals: Any) -> dict[str, Any]:
        np = _np()
        t = np.asarray(totals, dtype=np.float64)
        tp, fp, fn, tn, fp_ne, fp_un = (t[..., k] for k in range(6))
        ne = tp + fp_ne + fn
        hyp = tp + fp_ne + fp_un
        with np.errstate(divide="ignore", invalid="ignore"):
            hit = np.where(ne != 0, tp / ne, 0.0)
            wrong = np.where(ne != 0, fp_ne / ne, 0.0)
            under = np.where(ne != 0, fn / ne, 0.0)
            over = np.where(hyp != 0, fp_un / hyp, 0.0)
        a, b, cc, d = self.factors
        score = a * hit + b * (1 - wrong) + cc * (1 - under) + d * (1 - over)
        return {"Score": score, "Hit": hit, "Wrong": wrong, "Under": under, "Over": over,
                "TP": tp, "FP": fp, "FP_ne": fp_ne, "FP_un": fp_un, "FN": fn, "TN": tn}


def adapter_for(metric: Any) -> Any:
    """An adapter giving ``metric`` a vectorised path, or ``None``."""
    from gecscope.metrics.cleme import CLEME2Metric
    from gecscope.metrics.errant import ErrantMetric
    from gecscope.metrics.m2 import M2Metric

    if type(metric) is ErrantMetric:
        cfg = metric.config
        return ErrantCounts(float(cfg.beta), cfg.selection_rounding)
    if type(metric) is M2Metric:
        return M2Counts(float(metric.config.beta))
    if (type(metric) is CLEME2Metric and metric.config.level == "corpus"
            and metric.config.weighting == "none"):
        return Cleme2Counts(metric)
    return None

"""The resampling fast path: what a metric implements so bootstrap and significance tests run
vectorised, and the numpy helpers such implementations share.

A metric returns an object implementing :class:`ResamplingCounts` from
:meth:`gecscope.metrics.base.Metric.resampling` (``None`` = resample through ``aggregate``).
Each implementation must reproduce its metric's ``aggregate`` exactly (same float operations,
same tie-breaking); the tests compare the two on CoNLL-2014. This module imports no metric.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable


def _np() -> Any:
    from gecscope._optional import require

    return require("numpy", "stats", "bootstrap resampling")


@runtime_checkable
class ResamplingCounts(Protocol):
    """Per-sentence statistics as count vectors, and the corpus score as array arithmetic.

    ``resample_counts(stats)`` gives an ``(n_sentences, n_candidates, n_columns)`` float array
    (a sentence with fewer candidates pads with NaN); one candidate is one reference choice, in
    the order ``aggregate`` considers them. ``score_counts(totals)`` turns summed counts
    ``(..., n_columns)`` into the Score fields (at least the headline). ``select_counts(totals)``
    is the value the reference choice maximises, or ``None`` when it is the headline itself.
    ``tiebreak`` lists ``(column, sign)`` pairs that break ties after it (e.g. more TP, fewer
    FP); ``monotone`` optionally promises that the choice only depends on these columns and
    never gets worse as ``sign * column`` grows, so dominated candidates can be dropped.
    """

    @property
    def tiebreak(self) -> tuple[tuple[int, float], ...]: ...

    @property
    def monotone(self) -> tuple[tuple[int, float], ...]: ...

    def resample_counts(self, stats: Sequence[Any]) -> Any: ...

    def score_counts(self, totals: Any) -> dict[str, Any]: ...

    def select_counts(self, totals: Any) -> Any | None: ...


class CountsPath(ABC):
    """Convenience base for :class:`ResamplingCounts` implementations (no tie-break, no
    monotonicity promise, selection on the headline score)."""

    tiebreak: tuple[tuple[int, float], ...] = ()
    monotone: tuple[tuple[int, float], ...] = ()

    @abstractmethod
    def resample_counts(self, stats: Sequence[Any]) -> Any:
        """Per-sentence count rows (one array) that resampling sums."""

    @abstractmethod
    def score_counts(self, totals: Any) -> dict[str, Any]:
        """The score fields of summed count rows."""

    def select_counts(self, totals: Any) -> Any | None:
        return None


class MeanColumns(CountsPath):
    """The one fast path (and corpus fields) of a metric whose corpus score is the mean, or
    with ``total=True`` the sum, of per-sentence columns.

    ``rows(stats)`` gives each sentence's values, in the order of ``names``. :meth:`fields` is
    what ``aggregate`` reports (Python sums in corpus order, the count as ``count_type``);
    resampling sums the same rows plus a count of 1 per sentence and divides by the count, so
    both derive from the one column list.
    """

    def __init__(self, names: Sequence[str],
                 rows: Callable[[Sequence[Any]], Sequence[Sequence[float]]], *,
                 total: bool = False, count: str = "sentences",
                 count_type: Callable[[int], Any] = float) -> None:
        self.names = tuple(names)
        self.rows = rows
        self.total = total
        self.count = count
        self.count_type = count_type

    def fields(self, stats: Sequence[Any]) -> dict[str, Any]:
        """The corpus fields: each column's mean (0 on an empty corpus) or sum, and the count."""
        rows = self.rows(stats)
        n = len(rows)
        out: dict[str, Any] = {}
        for k, name in enumerate(self.names):
            s = sum((row[k] for row in rows), 0.0)
            out[name] = s if self.total else (s / n if n else 0.0)
        out[self.count] = self.count_type(n)
        return out

    def resample_counts(self, stats: Sequence[Any]) -> Any:
        np = _np()
        width = len(self.names) + 1
        rows = [[*row, 1.0] for row in self.rows(stats)]
        return np.array(rows, dtype=float).reshape(len(stats), 1, width)

    def score_counts(self, totals: Any) -> dict[str, Any]:
        np = _np()
        t = np.asarray(totals, dtype=float)
        n = t[..., len(self.names)]
        out: dict[str, Any] = {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for k, name in enumerate(self.names):
                out[name] = t[..., k] if self.total else np.where(n > 0, t[..., k] / n, 0.0)
        out[self.count] = n
        return out


def prf_arrays(tp: Any, fp: Any, fn: Any, beta: float) -> tuple[Any, Any, Any]:
    """Vectorised :func:`gecscope.stats.prf.prf` with bit-identical results: P = 1 when
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



"""The best-reference count family: ERRANT, M2, PT-ERRANT, PT-M2 (and ChERRANT, which is ERRANT).

Each sentence has candidates (one per reference, or per hypothesis x reference annotator pair),
each a vector of three counts. The corpus score picks one candidate per sentence, greedily in
corpus order, maximising the F of the running totals plus the candidate, then a tie-break;
P, R and F of the summed counts are the score. One :class:`CountSpec` states how: which
F convention the counts follow, the rounding and exactness of the choice, and the tie-break.
``aggregate`` (:meth:`CountSpec.select`, :meth:`CountSpec.fields`) and the resampling fast path
(:meth:`CountSpec.resampling`) both derive from it, so they cannot drift apart.

F conventions (each a Python function and its bit-identical numpy twin):

* ``errant``: counts are (TP, FP, FN); :func:`gecscope.stats.prf.prf`.
* ``m2``: counts are m2scorer's (correct, proposed, gold); ``prf(c, p - c, g - c)``.
* ``m2-weighted``: the same counts as weight sums (PT-M2): ``P = c / p``, ``R = c / g``.

* ``cleme2``: CLEME2.0's chunk counts (TP, FP, FN, TN, FP_ne, FP_un) and its comprehensive
  score of Hit, Wrong, Under and Over (:func:`heuo`) with the spec's ``factors``; ties prefer
  more TP, fewer FP, fewer FN, more TN.

With ``accuracy=True`` (GoToScorer) a candidate has a fourth count, TN, and the fields add
``Acc = (TP + TN) / (TP + FP + FN + TN)`` (0 when all four are 0).

Tie-breaks: ``errant`` conventions prefer more TP, then fewer FP, then fewer FN; ``m2`` ones
more correct, then a smaller ``proposed + beta^2 * gold`` (m2scorer's order). With
``exact=True`` (m2scorer) F values are compared as exact fractions. ``cumulative_ties``
compares the tie-break columns of the running totals plus the candidate (gec-metrics' PT-ERRANT
and PT-M2) instead of the candidate's own (errant_compare, m2scorer); the fast path breaks
ties on the candidate's columns, which orders the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from gecscope.metrics.selection import corpus_greedy, per_sentence
from gecscope.stats.fastpath import CountsPath, _np, prf_arrays, round_like_python
from gecscope.stats.prf import prf

CONVENTIONS = ("errant", "m2", "m2-weighted", "cleme2")

Counts = tuple[Any, ...]


class HasCounts(Protocol):
    """A candidate: its three counts in the spec's convention."""

    @property
    def counts(self) -> Counts: ...


C = TypeVar("C", bound=HasCounts)


def m2_weighted_prf(correct: float, proposed: float, gold: float, beta: float
                    ) -> tuple[float, float, float]:
    """P = correct/proposed (1 when nothing was proposed), R = correct/gold (1 when there was
    nothing to find), F_beta (0 when P and R are 0), as the PT-M2 code computes them."""
    p = correct / proposed if proposed else 1.0
    r = correct / gold if gold else 1.0
    b2 = beta * beta
    f = (1.0 + b2) * p * r / (b2 * p + r) if b2 * p + r else 0.0
    return p, r, f


def m2_weighted_prf_arrays(c: Any, p: Any, g: Any, beta: float) -> tuple[Any, Any, Any]:
    """Vectorised :func:`m2_weighted_prf` (same float operations)."""
    np = _np()
    b2 = beta * beta
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(p != 0, c / p, 1.0)
        rec = np.where(g != 0, c / g, 1.0)
        f = np.where(b2 * prec + rec != 0, (1.0 + b2) * prec * rec / (b2 * prec + rec), 0.0)
    return prec, rec, f


def heuo(t: Counts, factors: Sequence[float]) -> tuple[float, float, float, float, float]:
    """CLEME2.0's (Hit, Wrong, Under, Over, Score) of (TP, FP, FN, TN, FP_ne, FP_un) counts; a
    ratio with an empty denominator is 0."""
    tp, fn, fp_ne, fp_un = t[0], t[2], t[4], t[5]
    ne = tp + fp_ne + fn
    hyp = tp + fp_ne + fp_un
    hit = tp / ne if ne else 0.0
    wrong = fp_ne / ne if ne else 0.0
    under = fn / ne if ne else 0.0
    over = fp_un / hyp if hyp else 0.0
    a, b, cc, d = factors
    return hit, wrong, under, over, a * hit + b * (1 - wrong) + cc * (1 - under) + d * (1 - over)


def heuo_arrays(t: Any, factors: Sequence[float]) -> tuple[Any, Any, Any, Any, Any]:
    """Vectorised :func:`heuo` over ``(..., 6)`` totals (same float operations)."""
    np = _np()
    tp, fn, fp_ne, fp_un = t[..., 0], t[..., 2], t[..., 4], t[..., 5]
    ne = tp + fp_ne + fn
    hyp = tp + fp_ne + fp_un
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(ne != 0, tp / ne, 0.0)
        wrong = np.where(ne != 0, fp_ne / ne, 0.0)
        under = np.where(ne != 0, fn / ne, 0.0)
        over = np.where(hyp != 0, fp_un / hyp, 0.0)
    a, b, cc, d = factors
    return hit, wrong, under, over, a * hit + b * (1 - wrong) + cc * (1 - under) + d * (1 - over)


def exact_f(correct: int, proposed: int, gold: int, beta: Fraction) -> Fraction:
    """F_beta of m2scorer counts as an exact fraction (same conventions as :func:`prf`).

    With ``correct > 0``, F = (1 + b2) c / (p + b2 g); with ``correct = 0`` it is 1 when nothing
    was proposed and nothing was to be found, else 0.
    """
    if correct == 0:
        return Fraction(1) if proposed == 0 and gold == 0 else Fraction(0)
    b2 = beta * beta
    a, d = b2.numerator, b2.denominator
    return Fraction((d + a) * correct, d * proposed + a * gold)


@dataclass(frozen=True)
class CountSpec:
    """How a best-reference count metric chooses and scores (see the module docstring).

    ``fields_order`` is the order of the Score fields; ``F`` stands for ``F{beta:g}``.
    """

    convention: str
    beta: float
    rounding: int | None = None
    exact: bool = False
    cumulative_ties: bool = False
    fields_order: tuple[str, ...] = ("TP", "FP", "FN", "P", "R", "F")
    zero: tuple[Any, ...] = (0, 0, 0)  # the empty totals ((0.0, 0.0, 0.0) for weight sums)
    accuracy: bool = False
    factors: tuple[float, ...] = ()  # cleme2's trade-off factors (Hit, Wrong, Under, Over)

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ValueError(f"unknown count convention {self.convention!r}")
        if self.accuracy and self.convention != "errant":
            raise ValueError("accuracy (a TN count) goes with the errant convention")
        if (self.convention == "cleme2") != (len(self.factors) == 4):
            raise ValueError("the cleme2 convention, and only it, takes four factors")

    @property
    def m2(self) -> bool:
        return self.convention in ("m2", "m2-weighted")

    @property
    def width(self) -> int:
        """Columns of a fast-path candidate row: the counts (plus the m2 tie-break column)."""
        return {"m2": 4, "m2-weighted": 4, "cleme2": 6}.get(self.convention,
                                                           4 if self.accuracy else 3)

    @property
    def fname(self) -> str:
        return f"F{self.beta:g}"

    # -- Python: aggregate --------------------------------------------------------------------

    def prf(self, t: Counts) -> tuple[float, float, float]:
        """P, R, F of summed counts."""
        if self.convention == "errant":
            return prf(t[0], t[1], t[2], self.beta)
        if self.convention == "m2":
            return prf(t[0], t[1] - t[0], t[2] - t[0], self.beta)
        return m2_weighted_prf(t[0], t[1], t[2], self.beta)

    def tp_fp_fn(self, t: Counts) -> Counts:
        return (t[0], t[1] - t[0], t[2] - t[0]) if self.m2 else t[:3]

    def add(self, t: Counts, c: HasCounts) -> Counts:
        x = c.counts
        if len(x) == 3:
            return (t[0] + x[0], t[1] + x[1], t[2] + x[2])
        return tuple(a + b for a, b in zip(t, x, strict=True))

    def key(self, rounding: int | None = None) -> Callable[[Counts, HasCounts], tuple[Any, ...]]:
        """What the choice maximises, ``key(totals, candidate)``: F of the totals plus the
        candidate (rounded to ``rounding`` digits), then the tie-break."""
        beta, cumulative = self.beta, self.cumulative_ties
        if self.exact:
            fb = Fraction(beta)
            b2 = fb * fb
            a, d = b2.numerator, b2.denominator  # proposed + b2 * gold, scaled by d

            def exact(t: Counts, c: HasCounts) -> tuple[Any, ...]:
                x = c.counts
                s = (t[0] + x[0], t[1] + x[1], t[2] + x[2])
                ties = s if cumulative else x
                return (exact_f(s[0], s[1], s[2], fb), ties[0], -(d * ties[1] + a * ties[2]))

            return exact
        if self.convention == "cleme2":
            factors = self.factors

            def cleme2(t: Counts, c: HasCounts) -> tuple[Any, ...]:
                x = c.counts
                s = tuple(a + b for a, b in zip(t, x, strict=True))
                return (heuo(s, factors)[4], x[0], -x[1], -x[2], x[3])

            return cleme2
        if self.convention == "errant":
            def errant(t: Counts, c: HasCounts) -> tuple[Any, ...]:
                x = c.counts
                s = (t[0] + x[0], t[1] + x[1], t[2] + x[2])
                ties = s if cumulative else x
                return (prf(s[0], s[1], s[2], beta, rounding)[2], ties[0], -ties[1], -ties[2])

            return errant
        score = self.prf

        def m2(t: Counts, c: HasCounts) -> tuple[Any, ...]:
            x = c.counts
            s = (t[0] + x[0], t[1] + x[1], t[2] + x[2])
            ties = s if cumulative else x
            return (score(s)[2], ties[0], -(ties[1] + beta * beta * ties[2]))

        return m2

    def select(self, cands: Sequence[Sequence[C]]) -> list[int | None]:
        """Per sentence, the candidate chosen greedily in corpus order (``None``: none)."""
        return corpus_greedy(cands, self.key(self.rounding), self.add, self.zero)

    def best(self, cands: Sequence[Sequence[C]]) -> list[int | None]:
        """Per sentence, the candidate best for that sentence alone (F unrounded)."""
        zero, key = self.zero, self.key()
        return per_sentence(cands, lambda c: key(zero, c))

    def total(self, chosen: Sequence[HasCounts]) -> Counts:
        """The counts of the chosen candidates, summed in corpus order."""
        t = self.zero
        for c in chosen:
            t = self.add(t, c)
        return t

    def fields(self, t: Counts) -> dict[str, Any]:
        """The Score fields of summed counts, in ``fields_order``."""
        if self.convention == "cleme2":
            return self._order(self._cleme2_values(t, heuo(t, self.factors)))
        p, r, f = self.prf(t)
        tp, fp, fn = self.tp_fp_fn(t)
        values = {"TP": tp, "FP": fp, "FN": fn, "P": p, "R": r, "F": f}
        if self.accuracy:
            tn = t[3]
            total = tp + fp + fn + tn
            values.update({"TN": tn, "Acc": (tp + tn) / total if total else 0.0})
        return self._order(values)

    def _order(self, values: dict[str, Any]) -> dict[str, Any]:
        return {(self.fname if k == "F" else k): values[k] for k in self.fields_order}

    @staticmethod
    def _cleme2_values(t: Any, h: tuple[Any, ...]) -> dict[str, Any]:
        return {"Score": h[4], "Hit": h[0], "Wrong": h[1], "Under": h[2], "Over": h[3],
                "TP": t[0], "FP": t[1], "FN": t[2], "TN": t[3], "FP_ne": t[4], "FP_un": t[5]}

    # -- numpy: resampling --------------------------------------------------------------------

    def prf_arrays(self, t: Any) -> tuple[Any, Any, Any]:
        """Vectorised :meth:`prf` over ``(..., columns)`` totals."""
        a, b, c = t[..., 0], t[..., 1], t[..., 2]
        if self.convention == "errant":
            return prf_arrays(a, b, c, self.beta)
        if self.convention == "m2":
            return prf_arrays(a, b - a, c - a, self.beta)
        return m2_weighted_prf_arrays(a, b, c, self.beta)

    def resampling(self, candidates: Any) -> CandidateCounts:
        """The fast path; ``candidates(stats)`` gives each sentence's candidates."""
        return CandidateCounts(self, candidates)


class CandidateCounts(CountsPath):
    """Resampling fast path of a :class:`CountSpec`: candidate rows of the three counts (plus
    ``proposed + beta^2 gold`` for the m2 tie-break), greedy choice on the spec's F (rounded
    as it says), ties as it says."""

    def __init__(self, spec: CountSpec, candidates: Any) -> None:
        self.spec = spec
        self.candidates = candidates
        if spec.convention == "cleme2":
            self.tiebreak = ((0, 1.0), (1, -1.0), (2, -1.0), (3, 1.0))
            self.monotone = ()
        elif spec.m2:
            self.tiebreak = ((0, 1.0), (3, -1.0))
            # F grows with correct, falls with proposed and gold (and so with the fourth column)
            self.monotone = ((0, 1.0), (1, -1.0), (2, -1.0), (3, -1.0))
        else:
            self.tiebreak = ((0, 1.0), (1, -1.0), (2, -1.0))
            # F (rounded or not) never decreases with TP and never increases with FP or FN
            self.monotone = () if spec.accuracy else self.tiebreak

    def resample_counts(self, stats: Sequence[Any]) -> Any:
        np = _np()
        b2 = self.spec.beta * self.spec.beta
        rows = self.candidates(stats)
        width = max((len(r) for r in rows), default=1) or 1
        out = np.full((len(stats), width, self.spec.width), np.nan)
        for i, cands in enumerate(rows):
            if not cands:  # aggregate counts such a sentence as nothing
                out[i, 0] = 0.0
            for j, c in enumerate(cands):
                x = c.counts
                out[i, j] = (*x, x[1] + b2 * x[2]) if self.spec.m2 else x
        return out

    def score_counts(self, totals: Any) -> dict[str, Any]:
        t = _np().asarray(totals, dtype=float)
        if self.spec.convention == "cleme2":
            values = self.spec._cleme2_values(
                tuple(t[..., k] for k in range(6)), heuo_arrays(t, self.spec.factors))
            return self.spec._order(values)
        p, r, f = self.spec.prf_arrays(t)
        a, b, c = t[..., 0], t[..., 1], t[..., 2]
        tp, fp, fn = (a, b - a, c - a) if self.spec.m2 else (a, b, c)
        values = {"TP": tp, "FP": fp, "FN": fn, "P": p, "R": r, "F": f}
        if self.spec.accuracy:
            np = _np()
            tn = t[..., 3]
            total = tp + fp + fn + tn
            with np.errstate(divide="ignore", invalid="ignore"):
                values.update({"TN": tn, "Acc": np.where(total != 0, (tp + tn) / total, 0.0)})
        return {(self.spec.fname if k == "F" else k): values[k] for k in self.spec.fields_order}

    def select_counts(self, totals: Any) -> Any:
        t = _np().asarray(totals, dtype=float)
        if self.spec.convention == "cleme2":
            return heuo_arrays(t, self.spec.factors)[4]
        f = self.spec.prf_arrays(t)[2]
        rounding = self.spec.rounding
        return f if rounding is None else round_like_python(f, rounding)

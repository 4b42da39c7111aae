"""I-measure building blocks: candidate references, per-column counts, scores, reference choice.

Everything here follows the reference tool (mfelice/imeasure, ``ieval.py``/``candgen.py``),
re-specified from its behaviour (see docs/imeasure.md). Floating-point expressions are written
in the tool's order, because exact equality of scores decides ties between references.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.formats.imeasure_xml import Correction, Error, GoldSentence
from gecscope.metrics.imeasure.align import GAP_TOKEN, Column
from gecscope.types import Tokens

#: metric names accepted for the maximised metric (with a ``d``/``c`` aspect prefix)
METRICS = ("tp", "tn", "fp", "fn", "p", "r", "f", "acc", "wacc", "i")

# ----------------------------------------------------------------------------------------------
# Candidate references

Option = tuple[tuple[int, int, str], ...]


def _merge_same_span(corrections: Iterable[Correction]) -> Option:
    """Corrections of one alternative on the same span are joined (the tool's ``_mergeCorrections``)."""
    merged: dict[tuple[int, int], str] = {}
    for c in corrections:
        key = (c.start, c.end)
        merged[key] = f"{merged[key]} {c.text}" if key in merged else c.text
    return tuple(sorted((a, b, t) for (a, b), t in merged.items()))


def error_options(error: Error, annotator: str | None = None) -> list[Option]:
    """The mutually exclusive corrections of an error, duplicates removed, in document order.

    With ``annotator=None`` (mixing) an error that is not required also offers the empty option
    (leave it uncorrected), listed first. With an annotator, only that annotator's alternatives.
    """
    opts: list[Option] = []
    if annotator is None and not error.required:
        opts.append(())
    for alt in error.alternatives:
        if annotator is not None and alt.annotator != annotator:
            continue
        o = _merge_same_span(alt.corrections)
        if o not in opts:
            opts.append(o)
    return opts


def apply_corrections(source: Sequence[str], edits: Iterable[tuple[int, int, str]]) -> Tokens:
    """Apply corrections right to left as the tool does (``correct_sentence``).

    Corrections are applied in descending ``(start, end)`` order to the progressively edited
    token list, so overlapping corrections interact as in the tool. A correction that would
    leave the sentence empty is skipped, and an empty result falls back to the source (the
    tool's NUCLE workarounds).
    """
    cur, _ = apply_in_order(source, edits, skip_emptying=True)
    return cur if cur else tuple(source)


def apply_in_order(source: Sequence[str], edits: Iterable[tuple[int, int, str]],
                   skip_emptying: bool = False) -> tuple[Tokens, bool]:
    """Corrections applied right to left (descending ``(start, end)``), and whether the token
    list was empty after some correction. With ``skip_emptying`` such a correction is skipped
    instead (the tool's rule for a whole sentence; a part of a sentence may become empty)."""
    cur = list(source)
    emptied = False
    for a, b, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        before = cur[:] if skip_emptying else cur
        cur[a:b] = text.split()
        if not cur:
            emptied = True
            if skip_emptying:
                cur = before
    return tuple(cur), emptied


def compatible(edits: Sequence[tuple[int, int, str]]) -> bool:
    """No two corrections on the same ``(start, end)`` span (the tool's only compatibility test)."""
    spans = [(a, b) for a, b, _ in edits]
    return len(spans) == len(set(spans))


def option_combinations(options: Sequence[Sequence[Option]]
                        ) -> Iterator[tuple[tuple[int, ...], list[tuple[int, int, str]]]]:
    """One option per error, in lexicographic order of the option indices, with the chosen
    corrections; combinations that fail :func:`compatible` are skipped (the tool's mixing)."""
    for idx in itertools.product(*(range(len(o)) for o in options)):
        edits = [c for k, i in enumerate(idx) for c in options[k][i]]
        if edits and not compatible(edits):
            continue
        yield idx, edits


def candidate_references(sentence: GoldSentence, mix: bool = True) -> list[Tokens]:
    """Every distinct reference the gold allows, in a fixed order (see docs for the order).

    Mixing: the cartesian product of the errors' options, skipping combinations with two
    corrections on one span. No mixing: one reference per annotator with an alternative, plus
    the source when fewer annotators have alternatives than ``numann`` (or ``numann`` is 0).
    Duplicated sentences are kept once (first occurrence).
    """
    src = sentence.tokens
    out: dict[Tokens, None] = {}
    if mix:
        if not sentence.errors:
            return [src]
        for _, edits in option_combinations([error_options(e) for e in sentence.errors]):
            out.setdefault(apply_corrections(src, edits) if edits else src, None)
        return list(out)
    if sentence.numann <= 0:
        return [src]
    annotators = sentence.annotators
    if len(annotators) < sentence.numann:
        out[src] = None
    for ann in annotators:
        edits = [c for e in sentence.errors for opt in error_options(e, ann) for c in opt]
        out.setdefault(apply_corrections(src, edits) if edits else src, None)
    return list(out)


# ----------------------------------------------------------------------------------------------
# Counts


@dataclass(frozen=True, slots=True)
class IMeasureCounts:
    """Per-column counts of one alignment: system (detection and correction) and baseline.

    Detection and correction share TN; correction moves ``tp_d - tp_c`` columns (wrong
    corrections of detected errors) into FP, FN and FPN. The baseline (hypothesis := source)
    has only TN and FN columns, the same for both aspects; :func:`count_columns` re-counts it on
    the system's alignment;
    :func:`gecscope.metrics.imeasure.batch.pairwise_counts` aligns it separately (the default).
    """

    tp_d: int = 0
    tp_c: int = 0
    tn: int = 0
    fp_d: int = 0
    fn_d: int = 0
    tn_b: int = 0
    fn_b: int = 0

    def __add__(self, o: IMeasureCounts) -> IMeasureCounts:
        return IMeasureCounts(self.tp_d + o.tp_d, self.tp_c + o.tp_c, self.tn + o.tn, self.fp_d + o.fp_d,
                      self.fn_d + o.fn_d, self.tn_b + o.tn_b, self.fn_b + o.fn_b)

    def aspect(self, a: str) -> tuple[int, int, int, int, int]:
        """``(TP, TN, FP, FN, FPN)`` of aspect ``"d"`` or ``"c"``."""
        if a == "d":
            return self.tp_d, self.tn, self.fp_d, self.fn_d, 0
        x = self.tp_d - self.tp_c
        return self.tp_c, self.tn, self.fp_d + x, self.fn_d + x, x

    def baseline(self) -> tuple[int, int, int, int, int]:
        return 0, self.tn_b, 0, self.fn_b, 0

    def as_tuple(self) -> tuple[int, ...]:
        return (self.tp_d, self.tp_c, self.tn, self.fp_d, self.fn_d, self.tn_b, self.fn_b)

    def with_baseline(self, tn_b: int, fn_b: int) -> IMeasureCounts:
        """The same system counts with another baseline."""
        return IMeasureCounts(self.tp_d, self.tp_c, self.tn, self.fp_d, self.fn_d, tn_b, fn_b)


ZERO = IMeasureCounts()


def count_columns(columns: Iterable[Column]) -> IMeasureCounts:
    """Classify aligned columns (gaps are empty strings, equal to each other)."""
    tp_d = tp_c = tn = fp = fn = tn_b = fn_b = 0
    for s, h, r in columns:
        if s == r:
            tn_b += 1
        else:
            fn_b += 1
        if s == h:
            if h == r:
                tn += 1
            elif s == r:  # unreachable (s == h != r), kept for the tool's case analysis
                fp += 1
            else:
                fn += 1
        elif s == r:
            fp += 1
        else:
            tp_d += 1
            if h == r:
                tp_c += 1
    return IMeasureCounts(tp_d, tp_c, tn, fp, fn, tn_b, fn_b)


#: how the baseline (the source as hypothesis) is counted
BASELINES = ("separate", "recount")


# ----------------------------------------------------------------------------------------------
# Scores


def _p(tp: int, fp: int) -> float:
    return float(tp) / (tp + fp) if (tp + fp) > 0 else 1.0


def _f(p: float, r: float, beta: float) -> float:
    try:
        return (1 + beta ** 2) * ((p * r) / ((beta ** 2) * p + r))
    except ZeroDivisionError:
        return 0.0


def _acc(tp: int, tn: int, fp: int, fn: int, fpn: int) -> float:
    den = tp + tn + fp + fn - fpn
    return float(tp + tn) / den if den else 1.0


def _wacc(tp: int, tn: int, fp: int, fn: int, fpn: int, w: float) -> float:
    den = w * (tp + fp) + tn + fn - (w + 1) * (float(fpn) / 2)
    return float(w * tp + tn) / den if den else 1.0


def improvement(wacc_sys: float, wacc_base: float, tie: str = "zero") -> float:
    """I: ``(sys-base)/(1-base)`` above the baseline, ``sys/base - 1`` below it.

    On a tie we return 0 (no improvement); ``tie="floor"`` reproduces the tool's
    ``floor(WAcc)``, which is 1 when system and baseline are both perfect.
    """
    if wacc_sys == wacc_base:
        return float(math.floor(wacc_sys)) if tie == "floor" else 0.0
    if wacc_sys > wacc_base:
        return (wacc_sys - wacc_base) / (1.0 - wacc_base)
    return wacc_sys / wacc_base - 1.0


@dataclass(frozen=True, slots=True)
class AspectScores:
    tp: int
    tn: int
    fp: int
    fn: int
    fpn: int
    p: float
    r: float
    f: float
    acc: float
    acc_b: float
    wacc: float
    wacc_b: float
    i: float

    def get(self, name: str) -> float:
        return float(getattr(self, name))


def aspect_scores(c: IMeasureCounts, a: str, beta: float, w: float, tie: str = "zero") -> AspectScores:
    tp, tn, fp, fn, fpn = c.aspect(a)
    p = _p(tp, fp)
    r = _p(tp, fn)
    base = c.baseline()
    wacc = _wacc(tp, tn, fp, fn, fpn, w)
    wacc_b = _wacc(*base, w)
    return AspectScores(tp, tn, fp, fn, fpn, p, r, _f(p, r, beta), _acc(tp, tn, fp, fn, fpn),
                        _acc(*base), wacc, wacc_b, improvement(wacc, wacc_b, tie))


def selection_key(c: IMeasureCounts, aspect: str, metric: str, beta: float, w: float,
                  tie: str = "zero") -> tuple[float, ...]:
    """The tool's comparison: the metric, then I, WAcc, Acc of its aspect, then the same four of
    the other aspect; larger wins, and the earlier reference wins a full tie."""
    # the values of aspect_scores, computed directly: this runs for every candidate outcome of
    # every sentence (~500,000 times for the 13 CoNLL-2014 systems)
    wacc_b = _wacc(0, c.tn_b, 0, c.fn_b, 0, w)
    other = "d" if aspect == "c" else "c"
    return (_aspect_key(c, aspect, metric, beta, w, tie, wacc_b)
            + _aspect_key(c, other, metric, beta, w, tie, wacc_b))


def _aspect_key(c: IMeasureCounts, a: str, metric: str, beta: float, w: float, tie: str,
                wacc_b: float) -> tuple[float, float, float, float]:
    """``(metric, I, WAcc, Acc)`` of one aspect, equal to the fields of :func:`aspect_scores`."""
    tp, tn, fp, fn, fpn = c.aspect(a)
    wacc = _wacc(tp, tn, fp, fn, fpn, w)
    i = improvement(wacc, wacc_b, tie)
    acc = _acc(tp, tn, fp, fn, fpn)
    if metric == "wacc":
        value = wacc
    elif metric == "i":
        value = i
    elif metric == "acc":
        value = acc
    elif metric in ("p", "r", "f"):
        p, r = _p(tp, fp), _p(tp, fn)
        value = p if metric == "p" else r if metric == "r" else _f(p, r, beta)
    else:  # a count: tp, tn, fp, fn
        value = float({"tp": tp, "tn": tn, "fp": fp, "fn": fn}[metric])
    return (value, i, wacc, acc)


def best_option(counts: Sequence[IMeasureCounts] | Any, aspect: str, metric: str, beta: float,
                w: float, tie: str = "zero") -> int:
    """Index of the largest :func:`selection_key` among ``counts`` (the first on ties), as a
    first-wins scan computes it; long lists are scored as float64 arrays with the same
    operations in the same order (so the same values), short ones and any list whose keys
    are not all finite (where the scan could raise) by the scan itself. ``counts`` may also
    be an ``(n, 7)`` integer array of the fields in order
    (:attr:`gecscope.metrics.imeasure.outcomes.Outcomes.counts`)."""
    table: Any
    if hasattr(counts, "shape"):
        table = counts
        if len(table) < _VECTOR_MIN:
            return _scan([IMeasureCounts(*row) for row in table.tolist()], aspect, metric, beta,
                         w, tie)
    elif len(counts) < _VECTOR_MIN:
        return _scan(counts, aspect, metric, beta, w, tie)
    else:
        table = None
    import numpy as np

    if table is None:
        table = np.asarray([c.as_tuple() for c in counts], dtype=np.int64)
    else:
        table = np.asarray(table, dtype=np.int64)
    tp_d, tp_c, tn, fp_d, fn_d, tn_b, fn_b = table.T
    zero = np.zeros_like(tn_b)
    wacc_b = _wacc_array(np, zero, tn_b, zero, fn_b, zero, w)
    other = "d" if aspect == "c" else "c"
    cols = []
    with np.errstate(all="ignore"):
        for a in (aspect, other):
            if a == "d":
                tp, fp, fn, fpn = tp_d, fp_d, fn_d, zero
            else:
                x = tp_d - tp_c
                tp, fp, fn, fpn = tp_c, fp_d + x, fn_d + x, x
            wacc = _wacc_array(np, tp, tn, fp, fn, fpn, w)
            if tie == "floor":
                on_tie = np.floor(wacc)
            else:
                on_tie = np.zeros_like(wacc)
            up = (wacc - wacc_b) / (1.0 - wacc_b)
            down = wacc / wacc_b - 1.0
            i = np.where(wacc == wacc_b, on_tie, np.where(wacc > wacc_b, up, down))
            den = tp + tn + fp + fn - fpn
            acc = np.where(den != 0, (tp + tn).astype(np.float64) / den, 1.0)
            if metric == "wacc":
                value = wacc
            elif metric == "i":
                value = i
            elif metric == "acc":
                value = acc
            elif metric in ("p", "r", "f"):
                pp = np.where(tp + fp > 0, tp.astype(np.float64) / (tp + fp), 1.0)
                rr = np.where(tp + fn > 0, tp.astype(np.float64) / (tp + fn), 1.0)
                b2 = beta ** 2
                ff = np.where(b2 * pp + rr != 0,
                              (1 + b2) * ((pp * rr) / (b2 * pp + rr)), 0.0)
                value = pp if metric == "p" else rr if metric == "r" else ff
            else:
                value = {"tp": tp, "tn": tn, "fp": fp, "fn": fn}[metric].astype(np.float64)
            cols += [value, i, wacc, acc]
    keys = np.stack(cols, axis=1)
    if not np.isfinite(keys).all():
        if hasattr(counts, "shape"):
            counts = [IMeasureCounts(*row) for row in table.tolist()]
        return _scan(counts, aspect, metric, beta, w, tie)
    alive = np.ones(len(keys), dtype=bool)
    for j in range(keys.shape[1]):  # lexicographic maximum, as tuples compare
        col = np.where(alive, keys[:, j], -np.inf)
        alive &= col == col.max()
    return int(np.argmax(alive))


#: lists shorter than this are scanned in Python (arrays cost more than they save)
_VECTOR_MIN = 64


def _scan(counts: Sequence[IMeasureCounts], aspect: str, metric: str, beta: float, w: float,
          tie: str) -> int:
    best = 0
    best_key: tuple[float, ...] | None = None
    for k, c in enumerate(counts):
        key = selection_key(c, aspect, metric, beta, w, tie)
        if best_key is None or key > best_key:
            best, best_key = k, key
    return best


def _wacc_array(np: Any, tp: Any, tn: Any, fp: Any, fn: Any, fpn: Any, w: float) -> Any:
    """:func:`_wacc` of integer arrays, operation for operation (float64)."""
    f = np.float64
    den = w * (tp + fp).astype(f) + tn.astype(f) + fn.astype(f) - (w + 1) * (fpn.astype(f) / 2)
    num = w * tp.astype(f) + tn.astype(f)
    with np.errstate(all="ignore"):
        return np.where(den != 0, num / den, 1.0)


def gap_free(columns: Iterable[Column]) -> list[tuple[str, str, str]]:
    """Columns with gaps shown as ``-`` (for display)."""
    return [tuple(t if t != GAP_TOKEN else "-" for t in col) for col in columns]  # type: ignore[misc]

"""CLEME's and CLEME2.0's vectorised resampling path: every Score field of many resamples at
once, equal to ``aggregate`` on each resampled list of sentence statistics.

Length weights depend on the corpus (their bias is the mean length of the corpus's corrected
reference chunks), so a resample's candidate counts are not fixed rows that
:class:`~gecscope.metrics.candidates.CandidateCounts` could sum. Here, per resample, exactly as
``aggregate`` computes them:

* the bias is the resample's summed reference-chunk lengths over their number (integer sums,
  then the one division ``aggregate`` makes);
* each distinct bias gets its weights from :func:`~gecscope.metrics.cleme.weights.length_weight`
  itself, and a candidate's weighted counts are its chunk weights summed in chunk order the
  way the builtin ``sum`` adds them (left to right before Python 3.12, Neumaier's compensated
  sum from 3.12 on);
* the greedy corpus-level choice (or each sentence's best reference) is re-run with the same
  float operations (:func:`~gecscope.stats.fastpath.prf_arrays`, Python's rounding,
  :func:`~gecscope.metrics.candidates.heuo_arrays`) and tie-breaks, vectorised across resamples,
  the running totals added in the resample's order.

Counts that do not depend on the corpus (no weighting, a given ``length_bias``, similarity or
LLM weights) take the same loop with one table. Needs numpy (imported when used).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gecscope.metrics.candidates import heuo_arrays
from gecscope.metrics.cleme.weights import length_weight
from gecscope.stats.fastpath import _np, prf_arrays, round_like_python

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gecscope.metrics.cleme.metric import CLEMEStats, _CLEMEBase

#: columns of a candidate row, in :attr:`ChunkCounts.counts` order
TP, FP, FN, TN, FP_NE, FP_UN = range(6)
#: the length-weighted groups of a :class:`RefChunkStats`, their weight kind and column
_GROUPS = (("tp", "tp", TP), ("fp_ne", "fp", FP_NE), ("fp_un", "fp", FP_UN), ("fn", "fn", FN))
#: whether the builtin ``sum`` of floats is Neumaier-compensated (CPython 3.12 and later)
COMPENSATED_SUM = sys.version_info >= (3, 12)
#: the most float64 elements a block's candidate table holds (64 MB)
BLOCK_ELEMENTS = 4_000_000

CLEME_FIELDS = ("F", "P", "R", "Acc", "TP", "FP", "FN", "TN")
CLEME2_FIELDS = ("Score", "Hit", "Wrong", "Under", "Over", "TP", "FP", "FP_ne", "FP_un", "FN",
                 "TN")


class CLEMERows:
    """The resampling path of a ``cleme`` or ``cleme2`` metric (any level, assumption and
    weighting): rows of sentence indices in, every Score field per row out."""

    def __init__(self, metric: _CLEMEBase) -> None:
        self.metric = metric

    def rows_scorer(self, stats: Sequence[CLEMEStats]) -> Callable[[Any], dict[str, Any]]:
        """A function scoring ``(B, n)`` index rows into ``stats``: ``{field: (B,) array}``."""
        return RowsScorer(self.metric, stats)


def python_sums(first: np.ndarray, rest: Sequence[np.ndarray]) -> np.ndarray:
    """Elementwise ``sum([first, *rest])`` of floats as the builtin adds them (see the module
    docstring): ``rest[j]`` holds the ``j + 2``-th terms of the first ``len(rest[j])`` sums
    (sums are sorted by their number of terms, longest first)."""
    np = _np()
    acc = np.array(first, dtype=np.float64)
    if not COMPENSATED_SUM:
        for x in rest:
            view = acc[..., :x.shape[-1]]
            view += x
        return acc
    comp = np.zeros_like(acc)
    for x in rest:
        m = x.shape[-1]
        f = acc[..., :m]
        t = f + x
        comp[..., :m] += np.where(np.abs(f) >= np.abs(x), (f - t) + x, (x - t) + f)
        acc[..., :m] = t
    use = (comp != 0) & np.isfinite(comp)
    return np.where(use, acc + comp, acc)  # type: ignore[no-any-return]


def first_max(ok: np.ndarray, keys: Sequence[np.ndarray]) -> np.ndarray:
    """Per row (last axis = candidates), the first valid candidate with the largest key tuple,
    compared element by element (``max`` of tuples, first one on a full tie); 0 when none is
    valid."""
    np = _np()
    m = ok.copy()
    for key in keys:
        k = np.where(m, key, -np.inf)
        m &= k == k.max(axis=-1, keepdims=True)
    return m.argmax(axis=-1)  # type: ignore[no-any-return]


class RowsScorer:
    """:meth:`CLEMERows.rows_scorer` for one list of statistics (built once, called per batch
    of rows)."""

    def __init__(self, metric: _CLEMEBase, stats: Sequence[CLEMEStats]) -> None:
        np = _np()
        cfg = metric.config
        self.metric = metric
        self.cleme2 = metric.name == "cleme2"
        self.names = CLEME2_FIELDS if self.cleme2 else CLEME_FIELDS
        self.corpus = cfg.level == "corpus"
        self.per_bias = cfg.weighting == "length" and cfg.length_bias is None
        n = len(stats)
        width = max((len(s.refs) for s in stats), default=1) or 1
        # a later candidate equal to an earlier one never wins (the first wins every tie)
        self.valid = np.zeros((n, width), dtype=bool)
        for i, s in enumerate(stats):
            for k, r in enumerate(s.refs):
                self.valid[i, k] = r not in s.refs[:k]
        self.width = width
        if not self.per_bias:
            weigher = metric._weigher(stats)
            self.fixed = np.zeros((n, width, 6))
            for i, s in enumerate(stats):
                for k, r in enumerate(s.refs):
                    self.fixed[i, k] = weigher.counts(r).counts
            return
        self.params = cfg.length_params()
        self.ref_sum = np.array([sum(s.ref_lengths) for s in stats], dtype=np.int64)
        self.ref_n = np.array([len(s.ref_lengths) for s in stats], dtype=np.int64)
        self.tn = np.zeros((n, width))
        # each (sentence, candidate, group)'s chunk lengths: counts, offsets into one flat list
        # of weight codes (a code per distinct (kind, length))
        self.n_terms = np.zeros((n, width, 4), dtype=np.int64)
        self.offset = np.zeros((n, width, 4), dtype=np.int64)
        codes: dict[tuple[str, int], int] = {}
        flat: list[int] = []
        for i, s in enumerate(stats):
            for k, r in enumerate(s.refs):
                self.tn[i, k] = r.tn
                for g, (attr, kind, _) in enumerate(_GROUPS):
                    lengths = getattr(r, attr)
                    self.n_terms[i, k, g] = len(lengths)
                    self.offset[i, k, g] = len(flat)
                    flat.extend(codes.setdefault((kind, n_), len(codes)) for n_ in lengths)
        self.codes = list(codes)
        self.flat = np.array(flat, dtype=np.int64)

    # -- per block of rows --------------------------------------------------------------------

    def __call__(self, rows: Any) -> dict[str, Any]:
        np = _np()
        n_stats = self.valid.shape[0]
        # indices as a list takes them (negative ones from the end; out of range: IndexError)
        rows = np.arange(n_stats)[np.atleast_2d(np.asarray(rows, dtype=np.int64))]
        n_rows, length = rows.shape
        if n_rows == 0:
            return {name: np.zeros(0) for name in self.names}
        # the sentences the rows use, and the rows as indices into them
        seen = np.bincount(rows.reshape(-1), minlength=n_stats) > 0
        used = np.flatnonzero(seen)
        position = np.cumsum(seen) - 1
        local = position[rows]
        per_row = len(used) * self.width * 6
        if not self.corpus:
            per_row = max(per_row, length * 11)
        step = max(1, BLOCK_ELEMENTS // max(1, per_row)) if self.per_bias or not self.corpus \
            else n_rows
        parts = [self._block(rows[lo:lo + step], local[lo:lo + step], used)
                 for lo in range(0, n_rows, step)]
        return {name: np.concatenate([p[name] for p in parts]) for name in self.names}

    def _block(self, rows: np.ndarray, local: np.ndarray, used: np.ndarray) -> dict[str, Any]:
        """The fields of a block of rows (``local``: the rows as indices into ``used``)."""
        np = _np()
        if self.per_bias:
            bias = self._bias(rows)
            unique, group = np.unique(bias, return_inverse=True)
            table = self._length_counts(unique, used)
            group = group.reshape(-1)
        else:
            table = self.fixed[used][None]
            group = np.zeros(len(rows), dtype=np.int64)
        valid = self.valid[used]
        if self.corpus:
            return self._corpus(table, group, local, valid)
        return self._sentence(table, group, local, valid)

    def _bias(self, rows: np.ndarray) -> np.ndarray:
        """Each row's length bias: its reference-chunk lengths' sum over their number (0 when
        there are none), the integers summed exactly, then divided once, as ``aggregate``."""
        np = _np()
        total = self.ref_sum[rows].sum(axis=1)
        count = self.ref_n[rows].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), 0.0)  # type: ignore[no-any-return]

    def _length_counts(self, biases: np.ndarray, used: np.ndarray) -> np.ndarray:
        """``(biases, used sentences, candidates, 6)`` length-weighted counts."""
        np = _np()
        p = self.params
        clip = {"tp": (p.tp_min, p.tp_max), "fp": (p.fp_min, p.fp_max),
                "fn": (p.fn_min, p.fn_max)}
        weights = np.array([[length_weight(n, p.alpha, b, *clip[kind], reverse=kind == "fp")
                             for kind, n in self.codes] for b in biases.tolist()],
                           dtype=np.float64).reshape(len(biases), len(self.codes))
        n_terms = self.n_terms[used].reshape(-1)
        offset = self.offset[used].reshape(-1)
        order = np.argsort(-n_terms, kind="stable")  # longest sums first
        sorted_terms = n_terms[order]
        longest = int(sorted_terms[0]) if len(sorted_terms) else 0
        first = np.zeros((len(biases), len(order)))
        rest = []
        for j in range(longest):
            m = int(np.count_nonzero(sorted_terms > j))
            x = weights[:, self.flat[offset[order[:m]] + j]]
            if j == 0:
                first[:, :m] = x  # the builtin sum adds the first weight to 0 exactly
            else:
                rest.append(x)
        sums = np.empty_like(first)
        sums[:, order] = python_sums(first, rest)
        groups = sums.reshape(len(biases), len(used), self.width, 4)
        out = np.empty((len(biases), len(used), self.width, 6))
        for g, (_, _, col) in enumerate(_GROUPS):
            out[..., col] = groups[..., g]
        out[..., FP] = out[..., FP_NE] + out[..., FP_UN]
        out[..., TN] = self.tn[used]
        return out

    # -- corpus level -------------------------------------------------------------------------

    def _corpus(self, table: np.ndarray, group: np.ndarray, local: np.ndarray,
                valid: np.ndarray) -> dict[str, Any]:
        """The greedy choice in each row's order: per position, the candidate maximising the
        score of the running totals plus it, ties to more TP, fewer FP, fewer FN, more TN."""
        np = _np()
        cfg = self.metric.config
        multi = valid.sum(axis=1) > 1
        has = np.asarray(valid.any(axis=1))
        n_rows = len(local)
        every = np.arange(n_rows)
        nd = None if self.cleme2 or cfg.fix_rounding else 4
        total = np.zeros((n_rows, 6))
        for i in range(local.shape[1]):
            s = local[:, i]
            cand = table[group, s]  # (rows, candidates, 6)
            if self.width > 1 and multi[s].any():
                cum = total[:, None, :] + cand
                if self.cleme2:
                    primary = heuo_arrays(cum, cfg.factors())[4]
                else:
                    primary = prf_arrays(cum[..., TP], cum[..., FP], cum[..., FN], cfg.beta)[2]
                    if nd is not None:
                        primary = round_like_python(primary, nd)
                pick = first_max(valid[s], (primary, cand[..., TP], -cand[..., FP],
                                            -cand[..., FN], cand[..., TN]))
            else:
                pick = np.zeros(n_rows, dtype=np.int64)
            chosen = cand[every, pick]
            total = np.where(has[s][:, None], total + chosen, total)
        return self._fields(total)

    def _fields(self, total: np.ndarray) -> dict[str, Any]:
        """The corpus fields of summed counts (the final ``prf``/``accuracy``/``heuo``)."""
        tp, fp, fn, tn = total[:, TP], total[:, FP], total[:, FN], total[:, TN]
        if self.cleme2:
            hit, wrong, under, over, score = heuo_arrays(total, self.metric.config.factors())
            return {"Score": score, "Hit": hit, "Wrong": wrong, "Under": under, "Over": over,
                    "TP": tp, "FP": fp, "FP_ne": total[:, FP_NE], "FP_un": total[:, FP_UN],
                    "FN": fn, "TN": tn}
        p, r, f = prf_arrays(tp, fp, fn, self.metric.config.beta)
        return {"F": f, "P": p, "R": r, "Acc": _accuracy(total), "TP": tp, "FP": fp, "FN": fn,
                "TN": tn}

    # -- sentence level -----------------------------------------------------------------------

    def _sentence(self, table: np.ndarray, group: np.ndarray, local: np.ndarray,
                  valid: np.ndarray) -> dict[str, Any]:
        """Each sentence's best reference on its own key; the mean of the keys' values and the
        sum of the chosen counts, both added in the row's order."""
        np = _np()
        keys, values = self._sentence_keys(table)
        n_groups, n_used = table.shape[:2]
        pick = first_max(np.broadcast_to(valid, keys[0].shape), keys)  # (groups, used)
        gi, si = np.ogrid[:n_groups, :n_used]
        best = np.concatenate([table[gi, si, pick], values[gi, si, pick]], axis=-1)
        best[:, ~valid.any(axis=1)] = 0.0  # a sentence without references adds nothing
        length = local.shape[1]
        if length:
            sums = np.cumsum(best[group[:, None], local], axis=1)[:, -1]
        else:
            sums = np.zeros((len(local), best.shape[-1]))
        total, means = sums[:, :6], sums[:, 6:] / (length or 1)
        out = {"TP": total[:, TP], "FP": total[:, FP], "FN": total[:, FN], "TN": total[:, TN]}
        if self.cleme2:
            out.update({"FP_ne": total[:, FP_NE], "FP_un": total[:, FP_UN]})
        for k, name in enumerate(self.names[:values.shape[-1]]):
            out[name] = means[:, k]
        return {name: out[name] for name in self.names}

    def _sentence_keys(self, c: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The sentence-level comparison key of every candidate (``metric._key``), and the
        values ``aggregate`` averages (in field order)."""
        np = _np()
        cfg = self.metric.config
        if self.cleme2:
            hit, wrong, under, over, score = heuo_arrays(c, cfg.factors())
            return [score, hit, -wrong, -under, -over], np.stack([score, hit, wrong, under,
                                                                  over], axis=-1)
        nd = None if cfg.fix_rounding else 4
        p, r, f = prf_arrays(c[..., TP], c[..., FP], c[..., FN],
                             cfg.beta if cfg.fix_sentence_beta else 0.5)
        acc = _accuracy(c)
        if nd is not None:
            f, p, r, acc = (round_like_python(x, nd) for x in (f, p, r, acc))
        return [f, p, r, acc], np.stack([f, p, r, acc], axis=-1)


def _accuracy(c: np.ndarray) -> np.ndarray:
    """``(TP + TN) / (TP + FP + FN + TN)``, 0 when all four are 0 (:func:`accuracy`)."""
    np = _np()
    total = c[..., TP] + c[..., FP] + c[..., FN] + c[..., TN]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total != 0, (c[..., TP] + c[..., TN]) / total, 0.0)  # type: ignore[no-any-return]

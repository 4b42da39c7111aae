"""Small real metrics used by the stats and reports tests, and checks of their fast paths.

``EditF`` is an edit-level F0.5 with one candidate per reference annotator and the greedy,
order-dependent best-reference choice of errant_compare (unrounded); ``EditFFast`` adds the
vectorised count path; ``ExactMatch`` is sentence accuracy (fraction of hypotheses equal to
some reference). Other test modules import them from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="resampling needs the stats extra")

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.stats.fastpath import CountsPath, prf_arrays
from gecscope.stats.prf import prf
from gecscope.types import NOOP_TYPE, UNK_TYPE, Annotation, Corpus, Edit, Sentence


@dataclass(frozen=True)
class Cand:
    tp: int
    fp: int
    fn: int


@dataclass(frozen=True)
class Cands:
    candidates: tuple[Cand, ...]


def _keys(edits: Sequence[Edit]) -> set[tuple[int, int, tuple[str, ...]]]:
    return {(e.start, e.end, e.correction) for e in edits if e.type not in (NOOP_TYPE, UNK_TYPE)}


class EditF(Metric):
    name = "toy-editf"

    @dataclass(frozen=True)
    class Config:
        beta: float = 0.5

        def __post_init__(self) -> None:
            if self.beta <= 0:
                raise ConfigError("beta must be positive")

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[Cands]:
        ref = data.require_m2(self.name)
        out = []
        for h, r in zip(data.hypothesis_m2(hyp), ref, strict=True):
            hk = _keys([e for a in h.annotations[:1] for e in a.edits])
            cands = []
            for ann in r.annotations or (Annotation(0),):
                rk = _keys(ann.edits)
                tp = len(hk & rk)
                cands.append(Cand(tp, len(hk) - tp, len(rk) - tp))
            out.append(Cands(tuple(cands)))
        return out

    def aggregate(self, stats: Sequence[Cands]) -> Score:
        tp = fp = fn = 0
        beta = self.config.beta
        for s in stats:
            best = None
            for c in s.candidates:
                key = (prf(tp + c.tp, fp + c.fp, fn + c.fn, beta)[2], c.tp, -c.fp, -c.fn)
                if best is None or key > best[0]:
                    best = (key, c)
            assert best is not None
            tp, fp, fn = tp + best[1].tp, fp + best[1].fp, fn + best[1].fn
        p, r, f = prf(tp, fp, fn, beta)
        return Score(self.name, f, {"TP": tp, "FP": fp, "FN": fn, "P": p, "R": r, "F0.5": f},
                     main="F0.5")


class EditFFast(EditF, CountsPath):
    """Declares its own vectorised resampling path (the metric is its own ResamplingCounts)."""

    tiebreak = ((0, 1.0), (1, -1.0), (2, -1.0))

    def resampling(self) -> EditFFast:
        return self

    def resample_counts(self, stats: Sequence[Cands]) -> np.ndarray:
        width = max(len(s.candidates) for s in stats)
        out = np.full((len(stats), width, 3), np.nan)
        for i, s in enumerate(stats):
            for j, c in enumerate(s.candidates):
                out[i, j] = (c.tp, c.fp, c.fn)
        return out

    def score_counts(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        p, r, f = prf_arrays(totals[..., 0], totals[..., 1], totals[..., 2], self.config.beta)
        return {"TP": totals[..., 0], "FP": totals[..., 1], "FN": totals[..., 2], "P": p,
                "R": r, "F0.5": f}


class EditFMonotone(EditFFast):
    """Declares that F is monotone in TP/FP/FN, so dominated candidates are pruned."""

    monotone = EditFFast.tiebreak


class ExactMatch(Metric):
    """Fraction of hypotheses identical to at least one reference (per-sentence 0/1)."""

    name = "toy-exact"

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[int]:
        refs = data.references
        return [int(any(h == r[i] for r in refs)) for i, h in enumerate(hyp.tokens)]

    def aggregate(self, stats: Sequence[Any]) -> Score:
        acc = sum(stats) / len(stats) if stats else 0.0
        return Score(self.name, acc, {"correct": sum(stats), "accuracy": acc}, main="accuracy")

    def sentence_values(self, stats: Sequence[Any]) -> list[float]:
        return [float(s) for s in stats]


class Disentangled(Metric, CountsPath):
    """CLEME2.0-style Hit/Wrong/Under/Over from the report's edit outcomes (single candidate:
    the best reference per sentence), with the corpus weights 0.45/0.35/0.15/0.05."""

    name = "toy-disentangled"

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[tuple[int, ...]]:
        from gecscope.reports.outcomes import best_reference, count

        ref = data.require_m2(self.name)
        return [count(best_reference(h, r)[1])
                for h, r in zip(data.hypothesis_m2(hyp), ref, strict=True)]

    @staticmethod
    def _fields(tp: Any, ne: Any, un: Any, fn: Any) -> dict[str, Any]:
        need = tp + ne + fn
        made = tp + ne + un
        with np.errstate(divide="ignore", invalid="ignore"):
            hit = np.where(need > 0, tp / np.maximum(need, 1), 0.0)
            wrong = np.where(need > 0, ne / np.maximum(need, 1), 0.0)
            under = np.where(need > 0, fn / np.maximum(need, 1), 0.0)
            over = np.where(made > 0, un / np.maximum(made, 1), 0.0)
        score = 0.45 * hit + 0.35 * (1 - wrong) + 0.15 * (1 - under) + 0.05 * (1 - over)
        return {"score": score, "Hit": hit, "Wrong": wrong, "Under": under, "Over": over}

    def aggregate(self, stats: Sequence[Any]) -> Score:
        tp, ne, un, fn = (sum(s[k] for s in stats) for k in range(4))
        f = {k: float(v) for k, v in self._fields(np.float64(tp), np.float64(ne),
                                                    np.float64(un), np.float64(fn)).items()}
        return Score(self.name, f["score"], f, main="score")

    def resampling(self) -> Disentangled:
        return self

    def resample_counts(self, stats: Sequence[Any]) -> np.ndarray:
        return np.asarray(stats, dtype=np.float64)[:, None, :]

    def score_counts(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        return self._fields(totals[..., 0], totals[..., 1], totals[..., 2], totals[..., 3])


def toy_corpus() -> tuple[EvalData, list[Hypothesis]]:
    """Five sentences, two annotators, three systems (edits given as M2)."""
    src = [("He", "go", "to", "school", "."), ("She", "like", "apple", "."),
           ("I", "has", "a", "dogs", "."), ("This", "is", "fine", "."),
           ("They", "was", "in", "home", ".")]
    r0 = [[Edit(1, 2, ("goes",), "R:VERB:SVA")], [Edit(1, 2, ("likes",), "R:VERB:SVA"),
          Edit(2, 3, ("apples",), "R:NOUN:NUM")], [Edit(1, 2, ("have",), "R:VERB:SVA"),
          Edit(3, 4, ("dog",), "R:NOUN:NUM")], [], [Edit(1, 2, ("were",), "R:VERB:SVA"),
          Edit(2, 3, (), "U:PREP")]]
    r1 = [[Edit(1, 2, ("went",), "R:VERB:TENSE")], [Edit(1, 2, ("likes",), "R:VERB:SVA"),
          Edit(3, 3, ("s",), "M:OTHER")], [Edit(1, 2, ("have",), "R:VERB:SVA"),
          Edit(2, 3, ("two",), "R:DET")], [], [Edit(1, 2, ("were",), "R:VERB:SVA"),
          Edit(3, 4, ("at",), "R:PREP")]]
    ref = Corpus(tuple(Sentence(s, (Annotation(0, tuple(a)), Annotation(1, tuple(b))))
                       for s, a, b in zip(src, r0, r1, strict=True)))
    systems = {
        "good": [[Edit(1, 2, ("goes",), "R:VERB:SVA")], [Edit(1, 2, ("likes",), "R:VERB:SVA")],
                 [Edit(1, 2, ("have",), "R:VERB:SVA"), Edit(3, 4, ("dog",), "R:NOUN:NUM")],
                 [], [Edit(1, 2, ("were",), "R:VERB:SVA")]],
        "over": [[Edit(1, 2, ("goes",), "R:VERB:SVA"), Edit(3, 4, ("the", "school"), "M:DET")],
                 [Edit(1, 2, ("liked",), "R:VERB:TENSE")], [Edit(3, 4, ("dog",), "R:NOUN:NUM")],
                 [Edit(2, 3, ("good",), "R:ADJ")], [Edit(3, 4, ("at",), "R:PREP")]],
        "copy": [[], [], [], [], []],
    }
    hyps = []
    for name, edits in systems.items():
        corpus = Corpus(tuple(Sentence(s, (Annotation(0, tuple(e)),))
                              for s, e in zip(src, edits, strict=True)))
        hyps.append(Hypothesis(name, corpus.hypotheses(), corpus, f"{name}.m2"))
    return EvalData.from_m2(ref), hyps


def test_toy_scores_by_hand() -> None:
    data, hyps = toy_corpus()
    # good: sentence 1: ref0 gives TP1 (F=1 vs ref1 FP1 FN1); s2: ref0 TP1 FN1, ref1 TP1 FN1
    # (tie -> first); s3: ref0 TP2; s4: TP0 FP0 FN0; s5: ref0 TP1 FN1 (ref1 TP1 FN1, tie).
    # Totals TP 5, FP 0, FN 2 -> P 1, R 5/7, F0.5 = 1.25*5/7/(0.25+5/7).
    score = EditF().score(data, hyps[0])
    assert score.fields == pytest.approx({"TP": 5, "FP": 0, "FN": 2, "P": 1.0, "R": 5 / 7,
                                          "F0.5": 1.25 * (5 / 7) / (0.25 + 5 / 7)})
    assert ExactMatch().score(data, hyps[2]).value == pytest.approx(0.2)


def test_disentangled_toy_metric_by_hand() -> None:
    data, hyps = toy_corpus()
    # "over" against the best reference per sentence: s1 (annotator 0) goes TP, the school
    # FP_un; s2 (0; tie with 1) liked FP_ne, likes and apples FN; s3 (0) dog TP, have FN;
    # s4 good FP_un; s5 (annotator 1) at TP, were FN -> TP 3, FP_ne 1, FP_un 2, FN 4
    score = Disentangled().score(data, hyps[1])
    assert score.fields == pytest.approx({
        "Hit": 3 / 8, "Wrong": 1 / 8, "Under": 4 / 8, "Over": 2 / 6,
        "score": 0.45 * 3 / 8 + 0.35 * 7 / 8 + 0.15 * 4 / 8 + 0.05 * 4 / 6})


def test_fast_path_equals_aggregate_on_every_resample() -> None:
    from gecscope.stats.resample import bootstrap_samples

    data, hyps = toy_corpus()
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 5, size=(300, 5))
    for hyp in hyps:
        stats = EditF().sentence_stats(data, hyp)
        slow = bootstrap_samples(EditF(), stats, indices=idx, fields=True, fast=True)
        fast = bootstrap_samples(EditFFast(), stats, indices=idx, fields=True)
        mono = bootstrap_samples(EditFMonotone(), stats, indices=idx, fields=True)
        brute = [EditF().aggregate([stats[i] for i in row]) for row in idx]
        assert fast["value"].tolist() == [s.value for s in brute]
        assert mono["value"].tolist() == [s.value for s in brute]
        assert slow["value"].tolist() == [s.value for s in brute]
        assert fast["TP"].tolist() == [s.fields["TP"] for s in brute]

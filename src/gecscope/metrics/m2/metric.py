"""MaxMatch (M2): the CoNLL shared-task scorer (Dahlmeier & Ng 2012), clean-room and fast.

For each sentence and each gold annotator, the hypothesis edits are the path through the edit
lattice that matches the most gold edits, then uses the fewest lattice steps and the fewest
edits (:mod:`gecscope.metrics.m2.lattice`). An edit is correct when its span equals a gold edit's
and its correction is one of that edit's alternatives. Per sentence, the annotator is chosen
that maximises the F-score of the counts accumulated so far (the corpus is read in order), as
m2scorer 3.2 does; F values are compared exactly, and ties prefer more correct edits, then a
smaller ``proposed + beta^2 * gold``. A sentence without any ``A`` line counts as one annotator with no
edits. Precision is 1 when nothing is proposed, recall 1 when there is nothing to find.

Reproduces m2scorer 3.2 to four decimals on the 13 CoNLL-2014 submissions (see docs/m2.md),
in seconds instead of hours: the lattice search is linear in the lattice size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.candidates import CandidateCounts, CountSpec
from gecscope.metrics.m2.lattice import GoldEdit, PathArc, best_path, build_lattice
from gecscope.stats.prf import prf
from gecscope.types import Edit, Sentence, Tokens

# An edit as the M2 scorer reports it: (start, end, original text, correction text).
SpanEdit = tuple[int, int, str, str]


@dataclass(frozen=True, slots=True)
class M2Row:
    """Counts of one (sentence, annotator) pair, with the edits behind them."""

    annotator: int
    correct: int
    proposed: int
    gold: int
    proposed_edits: tuple[SpanEdit, ...] = field(default=(), compare=False)
    gold_edits: tuple[SpanEdit, ...] = field(default=(), compare=False)
    correct_edits: tuple[SpanEdit, ...] = field(default=(), compare=False)

    @property
    def counts(self) -> tuple[int, int, int]:
        return (self.correct, self.proposed, self.gold)


@dataclass(frozen=True, slots=True)
class M2SentenceStats:
    """One row per gold annotator (ascending id); the corpus choice among them is order-dependent,
    so it is made in :meth:`M2Metric.aggregate`, never here."""

    rows: tuple[M2Row, ...]


@dataclass(frozen=True, slots=True)
class M2SentenceDetail:
    """What ``m2scorer -v`` prints for a sentence: the chosen annotator and the edits."""

    index: int
    annotator: int
    proposed: tuple[SpanEdit, ...]
    gold: tuple[SpanEdit, ...]
    correct: tuple[SpanEdit, ...]
    counts: tuple[int, int, int]  # correct, proposed, gold


def m2_prf(correct: int, proposed: int, gold: int, beta: float) -> tuple[float, float, float]:
    """P, R, F_beta from the M2 scorer's (correct, proposed, gold) counts (same conventions as
    :func:`gecscope.stats.prf.prf`, which it calls)."""
    return prf(correct, proposed - correct, gold - correct, beta)


def m2_spec(beta: float) -> CountSpec:
    """m2scorer's choice: exact F of the running totals plus the annotator's counts, then
    more correct edits, then the smaller ``proposed + beta^2 * gold`` (the annotator's own)."""
    return CountSpec("m2", float(beta), exact=True)


def select_rows(stats: Sequence[M2SentenceStats], beta: float) -> list[M2Row]:
    """The annotator row m2scorer picks for each sentence: the one maximising cumulative F.

    F values are compared exactly (rational arithmetic): two annotators whose cumulative F are
    mathematically equal tie even when floating-point rounding would order them. Ties prefer
    more correct edits, then a smaller ``proposed + beta^2 * gold``, then the lower annotator id.
    Comparing rounded floats instead changes POST's CoNLL-2014 P/R (34.53/21.70 instead of the
    published 34.51/21.73), and dropping the last criterion changes UFC's and IITB's F.
    """
    rows = [s.rows for s in stats]
    chosen = m2_spec(beta).select(rows)
    # a sentence with no row (never produced by sentence_stats) counts as nothing
    return [r[i] if i is not None else M2Row(-1, 0, 0, 0)
            for r, i in zip(rows, chosen, strict=True)]


class M2Metric(Metric[M2SentenceStats]):
    """MaxMatch precision, recall and F_beta against an M2 gold standard (m2scorer 3.2)."""

    name = "m2"
    relative_cost = 5.0  # CPU time per system relative to errant's (CoNLL-2014)
    sentence_ranges = True
    description = "MaxMatch (M2) F-score, m2scorer 3.2 compatible"
    requires = frozenset({"m2"})

    @dataclass(frozen=True)
    class Config:
        """``beta``: F weight; ``max_unchanged_words``: unchanged tokens one edit may span;
        ``ignore_whitespace_casing``: compare tokens case-insensitively and corrections without
        spaces; ``verbose``: put per-sentence details in ``Score.details["sentences"]``."""

        beta: float = 0.5
        max_unchanged_words: int = 2
        ignore_whitespace_casing: bool = False
        verbose: bool = False

        def __post_init__(self) -> None:
            if not self.beta > 0:
                raise ConfigError(f"m2: beta must be positive, not {self.beta}")
            if not isinstance(self.max_unchanged_words, int) or self.max_unchanged_words < 0:
                raise ConfigError("m2: max_unchanged_words must be a non-negative integer, not "
                                  f"{self.max_unchanged_words!r}")

    # -- per sentence -------------------------------------------------------------------------

    def _norm_tok(self, tokens: Sequence[str]) -> tuple[str, ...]:
        if self.config.ignore_whitespace_casing:
            return tuple(t.lower() for t in tokens)
        return tuple(tokens)

    def _norm_text(self, tokens: Sequence[str]) -> str:
        if self.config.ignore_whitespace_casing:
            return "".join(tokens).lower()
        return " ".join(tokens)

    def _gold(self, edit: Edit) -> GoldEdit:
        cors = frozenset(self._norm_text(c) for c in edit.corrections)
        if self.config.ignore_whitespace_casing:
            longest = max(len(c) for c in cors)
        else:
            longest = max(len(c) for c in edit.corrections)
        return GoldEdit(edit.start, edit.end, cors, longest)

    def score_sentence(self, source: Tokens, hyp: Tokens, sentence: Sentence) -> M2SentenceStats:
        """Counts and edits of one hypothesis sentence against every annotator of ``sentence``."""
        annotations = sorted(((a.annotator, a.edits) for a in sentence.annotations),
                             key=lambda x: x[0]) or [(0, ())]
        golds_text = {k: tuple((e.start, e.end, " ".join(source[e.start:e.end]),
                                "||".join(" ".join(c) for c in e.corrections)) for e in edits)
                      for k, edits in annotations}
        if tuple(hyp) == tuple(source):
            return M2SentenceStats(tuple(M2Row(k, 0, 0, len(edits), (), golds_text[k], ())
                                         for k, edits in annotations))
        src_k, hyp_k = self._norm_tok(source), self._norm_tok(hyp)
        lattice = build_lattice(src_k, hyp_k)
        join = "" if self.config.ignore_whitespace_casing else " "
        rows = []
        for k, edits in annotations:
            golds = [self._gold(e) for e in edits]
            path = best_path(lattice, golds, self.config.max_unchanged_words, join)
            proposed = [a for a in path if a.changed]
            correct = self._match(proposed, golds, hyp_k, join)
            rows.append(M2Row(
                k, len(correct), len(proposed), len(golds),
                tuple(self._span(a, source, hyp) for a in proposed), golds_text[k],
                tuple(self._span(a, source, hyp) for a in correct)))
        return M2SentenceStats(tuple(rows))

    @staticmethod
    def _span(arc: PathArc, source: Sequence[str], hyp: Sequence[str]) -> SpanEdit:
        return (arc.start, arc.end, " ".join(source[arc.start:arc.end]),
                " ".join(hyp[arc.hstart:arc.hend]))

    @staticmethod
    def _match(proposed: list[PathArc], golds: list[GoldEdit], hyp_k: Sequence[str],
               join: str) -> list[PathArc]:
        """Proposed edits that equal a gold edit; each gold edit is matched at most once."""
        used = [False] * len(golds)
        out = []
        for arc in proposed:
            text = join.join(hyp_k[arc.hstart:arc.hend])
            for gi, g in enumerate(golds):
                if not used[gi] and g.start == arc.start and g.end == arc.end and \
                        text in g.corrections:
                    used[gi] = True
                    out.append(arc)
                    break
        return out

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[M2SentenceStats]:
        from gecscope.progress import tick

        gold = data.reference_edits()
        # Systems scored against the same references often write the same sentence (the
        # source, a common correction): its statistics are computed once per content (the
        # gold sentence, the hypothesis and this metric's options), and are immutable.
        memo = self._memo_for(gold)
        out = []
        for i, (sent, h) in enumerate(zip(gold.sentences, hyp.tokens, strict=True)):
            key = (i, tuple(h))
            stats = memo.get(key)
            if stats is None:
                stats = memo[key] = self.score_sentence(sent.source, h, sent)
            out.append(stats)
            tick()
        return out

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the memo (a worker builds its own)."""
        state = self.__dict__.copy()
        state.pop("_memo", None)
        return state

    def _memo_for(self, gold: Any) -> dict[tuple[int, tuple[str, ...]], M2SentenceStats]:
        """The sentence statistics already computed against ``gold`` (one references object
        at a time: another one starts a new memo, so an index always means its sentence)."""
        memo: tuple[Any, dict[tuple[int, tuple[str, ...]], M2SentenceStats]] | None = \
            getattr(self, "_memo", None)
        if memo is None or memo[0] is not gold:
            memo = (gold, {})
            self._memo = memo
        return memo[1]

    # -- corpus -------------------------------------------------------------------------------

    def details(self, stats: Sequence[M2SentenceStats]) -> list[M2SentenceDetail]:
        """Per sentence: the annotator chosen in corpus order and its edits (``m2scorer -v``)."""
        return [M2SentenceDetail(i, r.annotator, r.proposed_edits, r.gold_edits, r.correct_edits,
                                 (r.correct, r.proposed, r.gold))
                for i, r in enumerate(select_rows(stats, self.config.beta))]

    def aggregate(self, stats: Sequence[M2SentenceStats]) -> Score:
        spec = m2_spec(self.config.beta)
        c, p, g = spec.total(select_rows(stats, spec.beta))
        fields = spec.fields((c, p, g))
        details: dict[str, Any] = {"correct": c, "proposed": p, "gold": g}
        if self.config.verbose:
            details["sentences"] = self.details(stats)
        return Score(self.name, fields[spec.fname], fields, main=spec.fname, details=details,
                     display=tuple(fields))  # every column is a main one (TP ... F)

    def sentence_values(self, stats: Sequence[M2SentenceStats]) -> list[float]:
        """F_beta of each sentence with the annotator best for that sentence alone."""
        return [m2_prf(r.correct, r.proposed, r.gold, self.config.beta)[2]
                for s in stats for r in select_rows([s], self.config.beta)]

    def resampling(self) -> CandidateCounts:
        return m2_spec(self.config.beta).resampling(lambda stats: [s.rows for s in stats])

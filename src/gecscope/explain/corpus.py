"""The corpus view of edit attribution: which sentences, edits and error types cost a system
most, or earned it most, under one metric.

:func:`corpus_costs` ranks

- **sentences** by their *change*: with ``rank_by="corpus"`` (the default) the corpus score
  minus the corpus score with that one sentence's hypothesis replaced by its source
  (leave-one-out: what the sentence's edits added to the number the system is ranked by);
  with ``rank_by="sentence"`` the sentence score change ``delta = M(S, H) - M(S, S)``.
  Leave-one-out is computed from the metric's per-sentence statistics: the sentence's
  statistics are swapped for those of its source and the corpus aggregated again
  (:meth:`~gecscope.metrics.base.Metric.aggregate`), so it is exactly the score a scoring of
  the reverted corpus gives, whatever the metric sums (counts, for M2 and ERRANT, with their
  order-dependent reference choice; n-grams, for GLEU) or averages (for SOME, IMPARA, the LLM
  judges the change is ``delta / n``);
- **edits** by their attribution: with ``rank_by="corpus"`` their Shapley value (or the
  ``add``/``sub`` share) of the corpus score, ``v(A)`` = the corpus score with this sentence's
  hypothesis replaced by the source plus the edits ``A``, every other sentence as the system
  wrote it (:func:`~gecscope.explain.attribute` with ``level="corpus"``; each variant's
  statistics swapped into the corpus, :mod:`gecscope.explain.swap`), so a sentence's shares
  sum to its leave-one-out change; with ``rank_by="sentence"`` their share of the sentence's
  ``delta``;
- **error types** by the sum of their edits' attributions (the extractor's full type, e.g.
  ERRANT's ``R:VERB:FORM``).

Negative is a cost, positive a gain; each ranking keeps the ``top`` largest of either sign.
Ties are ordered by sentence index, then by the edit's position in its sentence (types: by
name), so the result is deterministic. A sentence whose change or attribution is undefined
(NaN) is left out of the rankings and counted (:attr:`CorpusCosts.undefined`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.explain.attribution import (
    MAX_EXACT,
    SAMPLES,
    SentenceAttribution,
    attribute_both,
    check_options,
    hypothesis_edits,
    variant_stats,
)
from gecscope.explain.swap import corpus_swap
from gecscope.types import Annotation, Sentence

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import Metric

__all__ = ["RANK_BY", "CorpusCosts", "EditCost", "EditShare", "SentenceCost", "TypeCost",
           "corpus_costs", "excerpt"]

#: What a sentence's change is measured on: the corpus score (leave-one-out) or its own
#: sentence score.
RANK_BY = ("corpus", "sentence")


@dataclass(frozen=True)
class EditShare:
    """One hypothesis edit (span in source tokens, end exclusive; the source and corrected
    text; its error type) and its attribution: its share of its sentence's score change.
    The edit of an attributed sentence (the reports' attribution) and, with its sentence,
    of a corpus ranking (:class:`EditCost`)."""

    start: int
    end: int
    original: str
    correction: str
    type: str
    value: float

    def as_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "original": self.original,
                "correction": self.correction, "type": self.type, "value": self.value}


@dataclass(frozen=True)
class EditCost(EditShare):
    """An :class:`EditShare` of sentence ``index`` (0-based), as a corpus ranking lists it."""

    index: int

    def as_dict(self) -> dict[str, Any]:
        """JSON form (sentence numbered from 1, first)."""
        return {"sentence": self.index + 1, **super().as_dict()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> EditCost:
        return cls(start=int(d["start"]), end=int(d["end"]), original=str(d["original"]),
                   correction=str(d["correction"]), type=str(d["type"]),
                   value=float(d["value"]), index=int(d["sentence"]) - 1)


@dataclass(frozen=True)
class SentenceCost:
    """One sentence (``index`` 0-based): its ranked ``change`` (see :func:`corpus_costs`),
    its sentence scores ``base`` = M(S, S) and ``full`` = M(S, H), its text and its edits
    with their attributions, in source order."""

    index: int
    change: float
    base: float
    full: float
    source: str
    hypothesis: str
    edits: tuple[EditCost, ...]

    @property
    def delta(self) -> float:
        """The sentence score change: ``full - base``."""
        return self.full - self.base

    def as_dict(self) -> dict[str, Any]:
        return {"sentence": self.index + 1, "change": self.change, "base": self.base,
                "full": self.full, "delta": self.delta, "source": self.source,
                "hypothesis": self.hypothesis, "edits": [e.as_dict() for e in self.edits]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SentenceCost:
        return cls(int(d["sentence"]) - 1, float(d["change"]), float(d["base"]),
                   float(d["full"]), str(d["source"]), str(d["hypothesis"]),
                   tuple(EditCost.from_dict(e) for e in d["edits"]))


@dataclass(frozen=True)
class TypeCost:
    """An error type: how many edits of it were attributed and the sum of their values."""

    type: str
    edits: int
    total: float

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "edits": self.edits, "sum": self.total}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TypeCost:
        return cls(str(d["type"]), int(d["edits"]), float(d["sum"]))


@dataclass(frozen=True)
class CorpusCosts:
    """What :func:`corpus_costs` found for one system under one metric.

    ``score`` is the system's corpus score; ``sentences`` the corpus' size, ``edited`` how many
    sentences the hypothesis edits (the only ones that can cost or earn anything), ``sampled``
    how many of them had Shapley values sampled (more than ``max_exact`` edits), ``undefined``
    how many were left out for an undefined (NaN) change or attribution; ``max_exact`` the
    number of edits up to which Shapley values were exact. Each ranking holds at most ``top``
    entries: ``*_cost`` the most negative first, ``*_gain`` the most positive first.
    """

    system: str
    metric: str
    score: float
    rank_by: str
    method: str
    top: int
    sentences: int
    edited: int
    sampled: int
    undefined: int
    sentence_cost: tuple[SentenceCost, ...]
    sentence_gain: tuple[SentenceCost, ...]
    edit_cost: tuple[EditCost, ...]
    edit_gain: tuple[EditCost, ...]
    type_cost: tuple[TypeCost, ...]
    type_gain: tuple[TypeCost, ...]
    max_exact: int = MAX_EXACT

    def head(self, top: int) -> CorpusCosts:
        """The same result with each ranking cut to its first ``top`` entries (compute once
        with a large ``top``, show several)."""
        check_top(top)
        n = min(top, self.top)
        return replace(self, top=n, sentence_cost=self.sentence_cost[:n],
                       sentence_gain=self.sentence_gain[:n], edit_cost=self.edit_cost[:n],
                       edit_gain=self.edit_gain[:n], type_cost=self.type_cost[:n],
                       type_gain=self.type_gain[:n])

    def as_dict(self) -> dict[str, Any]:
        """JSON form (docs/explain.md, "The corpus view"): ranks from 1, sentences from 1."""
        def ranked(items: Sequence[Any]) -> list[dict[str, Any]]:
            return [{"rank": k, **x.as_dict()} for k, x in enumerate(items, 1)]

        return {"system": self.system, "metric": self.metric, "score": self.score,
                "rank_by": self.rank_by, "method": self.method, "top": self.top,
                "max_exact": self.max_exact,
                "corpus_sentences": self.sentences, "edited_sentences": self.edited,
                "sampled_sentences": self.sampled, "undefined_sentences": self.undefined,
                "sentences": {"cost": ranked(self.sentence_cost),
                              "gain": ranked(self.sentence_gain)},
                "edits": {"cost": ranked(self.edit_cost), "gain": ranked(self.edit_gain)},
                "types": {"cost": ranked(self.type_cost), "gain": ranked(self.type_gain)}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CorpusCosts:
        """The result again from :meth:`as_dict`'s form (other keys ignored)."""
        try:
            return cls(
                str(d["system"]), str(d["metric"]), float(d["score"]), str(d["rank_by"]),
                str(d["method"]), int(d["top"]), int(d["corpus_sentences"]),
                int(d["edited_sentences"]), int(d["sampled_sentences"]),
                int(d["undefined_sentences"]),
                tuple(SentenceCost.from_dict(x) for x in d["sentences"]["cost"]),
                tuple(SentenceCost.from_dict(x) for x in d["sentences"]["gain"]),
                tuple(EditCost.from_dict(x) for x in d["edits"]["cost"]),
                tuple(EditCost.from_dict(x) for x in d["edits"]["gain"]),
                tuple(TypeCost.from_dict(x) for x in d["types"]["cost"]),
                tuple(TypeCost.from_dict(x) for x in d["types"]["gain"]),
                int(d.get("max_exact", MAX_EXACT)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"not a corpus-costs result (as_dict's form): {exc!r}") from None


# -- ranking --------------------------------------------------------------------------------


def _ranked(items: Sequence[tuple[float, tuple[Any, ...], Any]], top: int
            ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The ``top`` most negative and ``top`` most positive of ``(value, tie key, item)``;
    ties in the order of the key."""
    cost = sorted((x for x in items if x[0] < 0), key=lambda x: (x[0], x[1]))
    gain = sorted((x for x in items if x[0] > 0), key=lambda x: (-x[0], x[1]))
    return tuple(x[2] for x in cost[:top]), tuple(x[2] for x in gain[:top])


def check_top(top: int) -> None:
    """Refuse a ``top`` that is not a whole number of at least 1."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ConfigError(f"top must be a whole number of at least 1, not {top!r}")


def check_sentence_scores(metric: Metric[Any]) -> None:
    """Refuse a metric without a sentence-level score (its edits cannot be attributed)."""
    from gecscope.metrics.base import Metric as _Metric

    if type(metric).sentence_values is _Metric.sentence_values:
        raise ConfigError(f"metric {metric.name!r} defines no sentence-level score, so its "
                          "edits cannot be attributed (the corpus view needs one)")


def leave_one_out(metric: Metric[Any], data: EvalData, hyp: Hypothesis,
                  indices: Sequence[int]) -> tuple[float, dict[int, float]]:
    """The corpus score of ``hyp`` and, for each sentence of ``indices`` (0-based), that
    score minus the corpus score with the sentence's hypothesis replaced by its source.

    The corpus is aggregated from per-sentence statistics; the reverted corpus' statistics
    are ``hyp``'s with the one sentence's swapped for its source's (scored as a hypothesis of
    that sentence; with no edits when ``hyp`` came as M2), which is what scoring the reverted
    corpus computes, so the reverted score is exactly that scoring's."""
    stats = list(metric.sentence_stats(data, hyp))
    score = float(metric.aggregate(stats).value)
    sources = data.sources
    rows = list(indices)
    edits = None
    if hyp.m2 is not None:
        edits = [Sentence(sources[i], (Annotation(0, ()),)) for i in rows]
    reverted = variant_stats(metric, data, rows, [sources[i] for i in rows], edits)
    out: dict[int, float] = {}
    for i, s in zip(rows, reverted, strict=True):
        swapped = list(stats)
        swapped[i] = s
        out[i] = score - float(metric.aggregate(swapped).value)
    return score, out


def _finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


def corpus_costs(metric: Metric[Any], data: EvalData, hyp: Hypothesis, top: int = 10,
                 method: str = "shapley", *, rank_by: str = "corpus",
                 max_exact: int = MAX_EXACT, samples: int = SAMPLES, seed: int = 0,
                 jobs: int = 1, progress: Callable[[int], None] | None = None) -> CorpusCosts:
    """The ``top`` sentences, edits and error types that cost ``hyp`` most and that earned it
    most under ``metric`` (module docstring: what a sentence's change is, for ``rank_by``
    ``corpus`` or ``sentence``).

    Edits are attributed with :func:`~gecscope.explain.attribute` (``method``, ``max_exact``,
    ``samples``, ``seed``, ``jobs``, ``progress`` as there) in every sentence the hypothesis
    edits. ``hyp`` is taken as given (pass it through :func:`gecscope.gate.admit` first, as
    :func:`gecscope.evaluate` does); a metric whose scoring depends on the set of systems is
    used as prepared by the caller. A metric without sentence scores, a ``top`` below 1 or an
    unknown ``rank_by`` raise :class:`~gecscope.errors.ConfigError` before anything is scored.
    """
    check_top(top)
    check_options(method, max_exact, samples)
    if rank_by not in RANK_BY:
        raise ConfigError(f"rank_by must be one of {', '.join(RANK_BY)}, not {rank_by!r}")
    check_sentence_scores(metric)
    metric.check_inputs(data)
    metric.check_hypothesis(data, hyp)
    edits = hypothesis_edits(data, hyp)
    indices = [i for i, e in enumerate(edits) if e]
    swap = corpus_swap(metric, metric.sentence_stats(data, hyp))
    both = attribute_both(metric, data, hyp, method, max_exact=max_exact, samples=samples,
                          seed=seed, jobs=jobs, progress=progress, sentences=indices,
                          corpus=swap if rank_by == "corpus" else None)
    found = [f.sentence for f in both]
    if rank_by == "corpus":
        at_corpus = {f.corpus.index: f.corpus for f in both if f.corpus is not None}
        changes = {i: a.delta for i, a in at_corpus.items()}
        return _rank(metric.name, hyp, data, found, changes, swap.score, rank_by, method, top,
                     shares=at_corpus, max_exact=max_exact)
    changes = {a.index: a.delta for a in found}
    return _rank(metric.name, hyp, data, found, changes, swap.score, rank_by, method, top,
                 max_exact=max_exact)


def _rank(metric: str, hyp: Hypothesis, data: EvalData, found: Sequence[SentenceAttribution],
          changes: Mapping[int, float], score: float, rank_by: str, method: str,
          top: int, shares: Mapping[int, SentenceAttribution] | None = None,
          max_exact: int = MAX_EXACT) -> CorpusCosts:
    """Rank what :func:`corpus_costs` computed: the sentences of ``found`` (their sentence
    scores) by ``changes``, their edits by the shares of ``shares`` (by sentence index; the
    edits of ``found`` when None)."""
    sources = data.sources
    sentence_items: list[tuple[float, tuple[Any, ...], SentenceCost]] = []
    edit_items: list[tuple[float, tuple[Any, ...], EditCost]] = []
    types: dict[str, list[Any]] = {}
    undefined = 0
    for a in found:
        source = sources[a.index]
        shared = a if shares is None else shares[a.index]
        costs = tuple(EditCost(start=e.edit.start, end=e.edit.end,
                               original=" ".join(source[e.edit.start:e.edit.end]),
                               correction=e.edit.correction_str, type=e.edit.type,
                               value=e.value, index=a.index)
                      for e in shared.edits)
        change = changes[a.index]
        if not _finite(change, a.base, a.full, *(e.value for e in costs)):
            undefined += 1
            continue
        sentence_items.append((change, (a.index,), SentenceCost(
            a.index, change, a.base, a.full, " ".join(source), " ".join(hyp.tokens[a.index]),
            costs)))
        for k, e in enumerate(costs):
            edit_items.append((e.value, (a.index, k), e))
            entry = types.setdefault(e.type, [0, 0.0])
            entry[0] += 1
            entry[1] += e.value
    type_items = [(total, (name,), TypeCost(name, n, total))
                  for name, (n, total) in types.items()]
    s_cost, s_gain = _ranked(sentence_items, top)
    e_cost, e_gain = _ranked(edit_items, top)
    t_cost, t_gain = _ranked(type_items, top)
    sampled = sum(1 for a in found if a.method == "shapley_sampling" and method == "shapley")
    return CorpusCosts(hyp.name, metric, score, rank_by, method, top, len(hyp), len(found),
                       sampled, undefined, s_cost, s_gain, e_cost, e_gain, t_cost, t_gain,
                       max_exact)


# -- showing a sentence ---------------------------------------------------------------------


def excerpt(source: str, edits: Sequence[EditCost], context: int = 3
            ) -> list[tuple[str, str, str]]:
    """``source`` (space-separated tokens) with its ``edits`` marked, for a table cell: a list
    of ``("text", tokens, "")``, ``("edit", original, correction)`` and ``("gap", "", "")``
    (unchanged tokens left out), keeping ``context`` unchanged tokens on either side of each
    edit. Edits that overlap an earlier one are skipped, as when they are applied."""
    tokens = source.split(" ") if source else []
    out: list[tuple[str, str, str]] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos:
            continue
        before = tokens[pos:e.start]
        first = not out
        if not first and len(before) > 2 * context:
            head, tail = before[:context], before[len(before) - context:]
            out += [("text", " ".join(head), ""), ("gap", "", ""), ("text", " ".join(tail), "")]
        elif first and len(before) > context:
            out += [("gap", "", ""), ("text", " ".join(before[len(before) - context:]), "")]
        elif before:
            out.append(("text", " ".join(before), ""))
        out.append(("edit", e.original, e.correction))
        pos = e.end
    rest = tokens[pos:]
    if len(rest) > context:
        out += [("text", " ".join(rest[:context]), ""), ("gap", "", "")]
    elif rest:
        out.append(("text", " ".join(rest), ""))
    return [seg for seg in out if seg[0] != "text" or seg[1]]

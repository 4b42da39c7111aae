"""Edit attributions in reports: which of a system's edits earned its sentence scores, per edit
and summed by error type, for any metric with sentence scores.

:func:`gecscope.explain.attribute` shares each sentence's score change, delta M = M(S, H) -
M(S, S) (the hypothesis' sentence score minus the source's), among the hypothesis' edits
(ERRANT's for English). This module runs it for the metrics and systems of a report
(:func:`attribution_tables`), keeps each sentence's shares (for the HTML sentence browser and
the JSON report) and sums them by the edits' full error type; :func:`type_shares` folds those
sums to ``--cat``'s level 1 or 2 with the level mapping of the per-type counts
(:func:`~gecscope.reports.schemes.type_at_level`), so the two kinds of table have the same
rows. With Shapley values the sums over all types equal the sum over sentences of delta M.

A metric without sentence scores (a corpus-level score only) gets no table but a note
(:attr:`AttributionTable.note`) saying why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError, GecscopeError
from gecscope.explain.corpus import EditShare
from gecscope.reports.schemes import type_at_level

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData, Hypothesis
    from gecscope.explain import SentenceAttribution
    from gecscope.metrics.base import Metric, SystemResult

#: The sentence score an attribution starts from must be the scoring's (within this). Model
#: metrics (SOME, IMPARA, ... in float32) score a sentence a few units in the last place
#: differently when it is batched with other sentences (up to 6e-8 with a 4-layer BERT, where
#: the scoring ran on workers or in another process); a real mismatch (other edits, another
#: corpus context) is of the order of 1e-3.
FULL_TOLERANCE = 1e-6
#: The limits :func:`gecscope.explain.attribute` sets on ``max_exact`` (2^n variants per
#: sentence) and ``samples``.
MAX_EXACT_LIMIT = 20
SAMPLES_LIMIT = 100_000


@dataclass(frozen=True)
class AttributionRequest:
    """Which attributions a report computes: ``method`` (one of
    :data:`gecscope.explain.METHODS`), for ``metrics`` (``None``: every metric of the run with
    sentence scores), with :func:`gecscope.explain.attribute`'s ``max_exact``, ``samples`` and
    ``seed`` (``None``: its defaults) on ``jobs`` processes; ``progress(n)`` is told of every
    ``n`` sentences attributed (a progress bar)."""

    method: str = "shapley"
    metrics: frozenset[str] | None = None
    max_exact: int | None = None
    samples: int | None = None
    seed: int = 0
    jobs: int = 1
    progress: Callable[[int], None] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Refuse what :func:`gecscope.explain.attribute` would refuse for every system (a
        refusal there becomes a per-system note), with the same limits."""
        from gecscope.explain import METHODS

        if self.method not in METHODS:
            raise ConfigError(f"unknown attribution method {self.method!r} (choose from "
                              f"{', '.join(METHODS)})")
        for name, value, low, high in (("max_exact", self.max_exact, 0, MAX_EXACT_LIMIT),
                                       ("samples", self.samples, 1, SAMPLES_LIMIT)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not low <= value <= high):
                raise ConfigError(f"attribution {name} must be a whole number from {low} to "
                                  f"{high}, not {value!r}")

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`gecscope.explain.attribute` this request sets."""
        out: dict[str, Any] = {"seed": self.seed, "jobs": self.jobs,
                               "progress": self.progress}
        if self.max_exact is not None:
            out["max_exact"] = self.max_exact
        if self.samples is not None:
            out["samples"] = self.samples
        return out


@dataclass(frozen=True)
class SentenceShares:
    """One sentence's attribution: ``base`` = M(S, S), ``full`` = M(S, H), the edits' shares
    and the method used (``shapley_sampling`` where exact Shapley had too many edits; then
    ``samples`` permutations)."""

    base: float
    full: float
    method: str
    edits: tuple[EditShare, ...]
    samples: int = 0

    @property
    def delta(self) -> float:
        return self.full - self.base

    def as_dict(self) -> dict[str, Any]:
        return {"base": self.base, "full": self.full, "method": self.method,
                "samples": self.samples, "edits": [e.as_dict() for e in self.edits]}


@dataclass(frozen=True)
class TypeShare:
    """The sum of the shares of a system's ``edits`` edits of one error type."""

    type: str
    value: float
    edits: int


@dataclass
class AttributionTable:
    """One metric's attributions in a report.

    ``rows``: system -> sums by full error type; ``delta``: system -> the sum over sentences
    of delta M; ``shares``: system -> each sentence's :class:`SentenceShares`; ``sampled``:
    system -> sentences whose Shapley values were sampled (more edits than ``max_exact``);
    ``undefined``: system -> sentences left out of ``rows`` and ``delta`` because a score or
    share is undefined (NaN: the metric gives some sentence no number; their shares are kept);
    ``note``: why the metric has no attributions (then everything else is empty)."""

    metric: str
    method: str
    rows: dict[str, list[TypeShare]] = field(default_factory=dict)
    delta: dict[str, float] = field(default_factory=dict)
    shares: dict[str, list[SentenceShares]] = field(default_factory=dict)
    sampled: dict[str, int] = field(default_factory=dict)
    undefined: dict[str, int] = field(default_factory=dict)
    max_exact: int | None = None
    note: str | None = None

    def describe(self) -> str:
        """What the numbers are, for table titles: ``attribution (shapley): sum of edit shares
        of delta GLEU`` (with how many sentences were sampled, if any)."""
        text = (f"attribution ({self.method}): sum of edit shares of delta {self.metric} "
                "(M(S, H) - M(S, S), per sentence)")
        sampled = sum(self.sampled.values())
        if sampled:
            text += (f"; Shapley values sampled for {sampled} sentence"
                     f"{'s' if sampled != 1 else ''} with more than {self.max_exact} edits")
        undefined = sum(self.undefined.values())
        if undefined:
            text += (f"; {undefined} sentence{'s' if undefined != 1 else ''} left out of the "
                     f"sums: {self.metric} gives no number (NaN) for the sentence or a variant")
        return text


def type_shares(rows: Sequence[TypeShare], level: int) -> list[TypeShare]:
    """``rows`` (by full type) summed at ``--cat`` level 1 (operation), 2 (main type) or 3
    (full type), sorted by name: the rows of the per-type count tables
    (:func:`~gecscope.reports.schemes.type_at_level`)."""
    values: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for r in rows:
        name = type_at_level(r.type, level)
        values.setdefault(name, []).append(r.value)
        counts[name] = counts.get(name, 0) + r.edits
    return [TypeShare(name, math.fsum(v), counts[name]) for name, v in sorted(values.items())]


def _shares(source: Sequence[str], a: SentenceAttribution) -> SentenceShares:
    return SentenceShares(
        float(a.base), float(a.full), a.method,
        tuple(EditShare(e.edit.start, e.edit.end, " ".join(source[e.edit.start:e.edit.end]),
                        " ".join(e.edit.correction), e.edit.type, float(e.value))
              for e in a.edits), int(getattr(a, "samples", 0) or 0))


def _by_type(shares: Sequence[SentenceShares]) -> list[TypeShare]:
    values: dict[str, list[float]] = {}
    for s in shares:
        for e in s.edits:
            values.setdefault(e.type, []).append(e.value)
    return [TypeShare(t, math.fsum(v), len(v)) for t, v in sorted(values.items())]


def _defined(s: SentenceShares) -> bool:
    """Whether every number of ``s`` is a number (a NaN score makes its shares NaN)."""
    return (math.isfinite(s.base) and math.isfinite(s.full)
            and all(math.isfinite(e.value) for e in s.edits))


def _mismatch(got: Sequence[SentenceAttribution], scores: Sequence[float]) -> str | None:
    """Where attributions fail to match the scoring: one per sentence, in order, each
    starting from the scoring's sentence score (``full``, within :data:`FULL_TOLERANCE`; two
    NaN match); ``None`` when they all do."""
    if [a.index for a in got] != list(range(len(scores))):
        return f"{len(got)} sentences, not sentences 1 to {len(scores)} in order"
    for a, score in zip(got, scores, strict=True):
        full, want = float(a.full), float(score)
        if not (math.isclose(full, want, rel_tol=FULL_TOLERANCE, abs_tol=FULL_TOLERANCE)
                or (math.isnan(full) and math.isnan(want))):
            return f"sentence {a.index + 1}: {full!r}, the scoring's {want!r}"
    return None


def attribution_tables(data: EvalData, hyps: Sequence[Hypothesis],
                       results: Sequence[SystemResult], metrics: Sequence[Metric],
                       request: AttributionRequest, *, notes: list[str],
                       progress: Callable[[str], None] | None = None
                       ) -> dict[str, AttributionTable]:
    """The attributions of every metric ``request`` names (each system of ``results``):
    :func:`gecscope.explain.attribute` per system, its shares kept and summed by type.

    A metric without sentence scores gets a table with only a ``note``. A system whose
    attributions cannot be computed (no spaCy to extract its edits, a metric that refuses)
    is left out with the reason in ``notes``; so is one whose attributions start from sentence
    scores other than the scoring's (a wrong table is worse than none)."""
    from gecscope.explain import MAX_EXACT, attribute

    objs = {m.name: m for m in metrics}
    by_name = {h.name: h for h in hyps}
    sources = data.sources
    out: dict[str, AttributionTable] = {}
    for name in dict.fromkeys(r.metric for r in results):
        if request.metrics is not None and name not in request.metrics:
            continue
        rs = [r for r in results if r.metric == name]
        table = AttributionTable(name, request.method,
                                 max_exact=request.max_exact if request.max_exact is not None
                                 else MAX_EXACT)
        out[name] = table
        if any(r.sentence_scores is None for r in rs):
            table.note = (f"{name} scores the corpus only (no sentence scores), so its score "
                          "cannot be attributed to edits: no per-type attribution table")
            continue
        for r in rs:
            h = by_name.get(r.system)
            if h is None or name not in objs:
                notes.append(f"no {name} attributions for {r.system}: its output is not at "
                             "hand")
                continue
            if progress is not None and request.progress is None:  # else a bar says it
                progress(f"attributing {name} to the edits of {r.system} ({request.method}, "
                         f"{len(data)} sentences)")
            try:
                got = attribute(objs[name], data, h, request.method, **request.options())
            except (GecscopeError, ImportError) as exc:
                notes.append(f"no {name} attributions for {r.system}: {exc}")
                continue
            where = _mismatch(got, r.sentence_scores or [])
            if where is not None:
                notes.append(f"no {name} attributions for {r.system}: they start from sentence "
                             f"scores other than the scoring's ({where})")
                continue
            shares = [_shares(sources[a.index], a) for a in got]
            table.shares[r.system] = shares
            defined = [s for s in shares if _defined(s)]  # one NaN would make every sum NaN
            table.undefined[r.system] = len(shares) - len(defined)
            table.rows[r.system] = _by_type(defined)
            table.delta[r.system] = math.fsum(s.delta for s in defined)
            table.sampled[r.system] = sum(1 for s in shares if s.method != request.method
                                          and s.method == "shapley_sampling")
    return out

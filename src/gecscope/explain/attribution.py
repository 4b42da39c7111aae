"""Edit attribution: each hypothesis edit's share of a sentence's score change.

For a source ``S`` with hypothesis ``H`` made of edits ``e_1 .. e_n`` (the language's extractor:
ERRANT for English), ``v(A) = M(S, S + A) - M(S, S)`` is the score change of the source with
only the edits ``A`` applied, and ``delta = M(S, H) - M(S, S)``. The methods (those of
gec-metrics' attributors, Goto et al., ACL 2025 SRW) give edit ``i``:

- ``add``: ``v({i})``, rescaled so the values sum to ``delta`` (0 when the raw values sum to 0);
- ``sub``: ``delta - v(all but i)``, rescaled the same way;
- ``shapley``: its Shapley value, the average over every order of adding the edits of the
  change it makes when added (exact: every subset of edits scored once; sums to ``delta``);
- ``shapley_sampling``: the same average over ``samples`` random orders (every order when
  there are no more than ``samples``), drawn with ``seed``.

A sentence's variants (the source with some of its edits) are scored once each, through the
metric's own sentence path (:meth:`~gecscope.metrics.base.Metric.sentence_stats` and
:meth:`~gecscope.metrics.base.Metric.sentence_values`) in batches of many variants, on the
workers of ``jobs`` when the work is worth them.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecscope.data import REFERENCE_EDITS, EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.types import (
    NOOP_TYPE,
    UNK_TYPE,
    Annotation,
    Corpus,
    Edit,
    Sentence,
    Tokens,
    apply_edits,
)

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.explain.swap import CorpusSwap
    from gecscope.metrics.base import Metric

__all__ = ["LEVELS", "MAX_EXACT", "METHODS", "SAMPLES", "EditAttribution", "SentenceAttribution",
           "attribute", "check_options", "hypothesis_edits"]

#: The attribution methods (as gec-metrics names its attributors).
METHODS = ("add", "sub", "shapley", "shapley_sampling")
#: What is attributed: the sentence's own score, or the corpus score (:func:`attribute`).
LEVELS = ("sentence", "corpus")
#: Exact Shapley values up to this many edits in a sentence (2^n variants scored); beyond it
#: ``shapley`` samples edit orders. Chosen from benchmarks/attribution_conll14.py
#: (docs/explain.md): up to 9 edits :data:`SAMPLES` sampled orders score at least half as many
#: sentences as exact values need (so sampling saves little and loses exactness); from 10 on
#: every edit doubles the exact cost (1,024 sentences at 10: about 0.7 s of GLEU, 3.5 min of
#: a BERT-base-size model on CPU) while sampling adds ~80; 0.2% of CoNLL-2014's sentences
#: with edits have more than 10.
MAX_EXACT = 10
#: Edit orders sampled by ``shapley_sampling`` (and by ``shapley`` beyond ``max_exact``).
SAMPLES = 64
#: Edit types that change no text (M2's noop; UNK, which marks an error without correcting it).
SILENT = frozenset({NOOP_TYPE, UNK_TYPE})
#: Variants scored per metric call (a batch of the metric's sentence path).
BATCH_VARIANTS = 2048


@dataclass(frozen=True)
class EditAttribution:
    """One hypothesis edit (source-token span, correction and the extractor's error type)
    and its share of the sentence's score change."""

    edit: Edit
    value: float


@dataclass(frozen=True)
class SentenceAttribution:
    """The attribution of one sentence: ``base`` = M(S, S), ``full`` = M(S, H), and each
    edit's share of ``delta = full - base``, in source order. ``method`` is the method used
    (``shapley`` becomes ``shapley_sampling`` for a sentence with more than ``max_exact``
    edits); ``samples`` is the number of edit orders averaged (0 unless sampled)."""

    index: int
    base: float
    full: float
    edits: tuple[EditAttribution, ...]
    method: str
    samples: int = 0

    @property
    def delta(self) -> float:
        """The score change the edits made: ``full - base``."""
        return self.full - self.base


# -- edits and variants --------------------------------------------------------------------


def hypothesis_edits(data: EvalData, hyp: Hypothesis) -> list[tuple[Edit, ...]]:
    """Per sentence, the hypothesis' edits (its M2's system annotator, or those the language's
    extractor finds), in source order; noop and UNK edits, which change no text, left out."""
    corpus = data.hypothesis_m2(hyp)
    annotator = corpus.system_annotator
    return [tuple(sorted((e for e in sentence.edits(annotator) if e.type not in SILENT),
                         key=lambda e: (e.start, e.end)))
            for sentence in corpus.sentences]


def applied(source: Tokens, edits: Sequence[Edit], mask: int) -> Tokens:
    """``source`` with the edits whose bit is set in ``mask`` applied (edit ``i`` is bit
    ``i``); every edit type counts, as the extractor found it."""
    return apply_edits(source, [e for i, e in enumerate(edits) if mask >> i & 1],
                       skip_types=frozenset())


@dataclass(frozen=True)
class _Job:
    """One sentence to attribute: what a worker needs besides the metric and data."""

    index: int
    source: Tokens
    hypothesis: Tokens
    edits: tuple[Edit, ...]
    method: str
    orders: tuple[tuple[int, ...], ...]  # sampled orders; () unless sampling
    masks: tuple[int, ...]               # the subsets of edits scored
    m2: Sentence | None = None           # the hypothesis' own M2 sentence, when it came as M2


def _orders(n: int, samples: int, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """Every order of ``n`` edits when there are at most ``samples``, else ``samples``
    distinct orders drawn with ``rng``."""
    if math.factorial(n) <= samples:
        return tuple(itertools.permutations(range(n)))
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, ...]] = []
    order = list(range(n))
    while len(out) < samples:
        rng.shuffle(order)
        t = tuple(order)
        if t not in seen:
            seen.add(t)
            out.append(t)
    return tuple(out)


def _plan(index: int, source: Tokens, hypothesis: Tokens, edits: tuple[Edit, ...],
          method: str, max_exact: int, samples: int, seed: int,
          m2: Sentence | None = None) -> _Job:
    """The variants sentence ``index`` needs under ``method`` (as bit masks of its edits)."""
    n = len(edits)
    full = (1 << n) - 1
    orders: tuple[tuple[int, ...], ...] = ()
    if n == 0:
        masks: list[int] = []
    elif method == "add":
        masks = [1 << i for i in range(n)]
    elif method == "sub":
        masks = [full & ~(1 << i) for i in range(n)]
    elif method == "shapley" and n <= max_exact:
        masks = list(range(1 << n))
    else:
        method = "shapley_sampling"
        orders = _orders(n, samples, random.Random(f"{seed}:{index}"))
        found = set()
        for order in orders:
            mask = 0
            for i in order:
                mask |= 1 << i
                found.add(mask)
        masks = sorted(found)
    return _Job(index, source, hypothesis, edits, method, orders, tuple(masks), m2)


def _values(job: _Job, v: dict[int, float], delta: float) -> list[float]:
    """The edits' values from ``v`` (mask -> score change from the source's score)."""
    n = len(job.edits)
    full = (1 << n) - 1
    if job.method in ("add", "sub"):
        raw = ([v[1 << i] for i in range(n)] if job.method == "add"
               else [delta - v[full & ~(1 << i)] for i in range(n)])
        total = sum(raw)
        weight = 0.0 if total == 0 else delta / total
        return [weight * r for r in raw]
    phi = [0.0] * n
    if job.orders:
        for order in job.orders:
            mask, before = 0, 0.0
            for i in order:
                mask |= 1 << i
                phi[i] += v[mask] - before
                before = v[mask]
        return [p / len(job.orders) for p in phi]
    fact = [math.factorial(k) for k in range(n + 1)]
    weights = [fact[s] * fact[n - s - 1] / fact[n] for s in range(n)]
    for mask in range(1 << n):
        w = weights[mask.bit_count()] if mask != full else 0.0
        for i in range(n):
            if not mask >> i & 1:
                phi[i] += w * (v[mask | 1 << i] - v[mask])
    return phi


# -- scoring -------------------------------------------------------------------------------


def _rows(data: EvalData, rows: Sequence[int]) -> EvalData:
    """The references of sentences ``rows`` (repeats allowed), in that order: sources,
    reference sets, the M2 and the extracted reference edits picked row by row."""
    part = EvalData(data.reference_paths, data.source_path, data.lang)
    part.cycle_references = data.cycle_references
    m2 = data.m2
    part.__dict__["m2"] = (Corpus(tuple(m2.sentences[i] for i in rows), m2.path)
                           if m2 is not None else None)
    sources = data.sources
    part.__dict__["sources"] = [sources[i] for i in rows]
    part.__dict__["references"] = ([[r[i] for i in rows] for r in data.references]
                                   if data.has_references else [])
    edits = data.peek(REFERENCE_EDITS)
    if edits is not None:
        part.put(REFERENCE_EDITS, Corpus(tuple(edits.sentences[i] for i in rows), edits.path))
    return part


def _batchable(metric: Metric[Any], data: EvalData) -> bool:
    """Whether variants of different sentences can be scored in one call on repeated rows:
    not when the metric's statistics depend on the sentence's place in the corpus (it
    overrides ``range_stats``), nor against I-measure gold XML (read from the file)."""
    from gecscope.metrics.base import Metric

    if type(metric).range_stats is not Metric.range_stats:
        return False
    return data.reference_file is None or data.reference_file.gold is None


def variant_stats(metric: Metric[Any], data: EvalData, rows: Sequence[int],
                  variants: Sequence[Tokens],
                  edits: Sequence[Sentence] | None = None) -> list[Any]:
    """The metric's statistics of each variant, variant ``k`` scored as a hypothesis of
    sentence ``rows[k]`` (with the edits ``edits[k]`` when given, as from a hypothesis M2):
    in one call of the metric's sentence path when the metric allows, else one sentence range
    at a time (:meth:`~gecscope.metrics.base.Metric.range_stats`, each in its corpus place)."""
    if not variants:
        return []
    if _batchable(metric, data):
        m2 = Corpus(tuple(edits)) if edits is not None else None
        hyp = Hypothesis("attribution", variants, m2)
        stats = list(metric.sentence_stats(_rows(data, rows), hyp))
    else:
        stats = []
        for k, (i, tokens) in enumerate(zip(rows, variants, strict=True)):
            part = data.subset(i, i + 1)
            one = Corpus((edits[k],)) if edits is not None else None
            stats.extend(metric.range_stats(data, part,
                                            Hypothesis("attribution", [tokens], one), i))
    if len(stats) != len(variants):
        raise ConfigError(f"metric {metric.name!r} gave {len(stats)} statistics for "
                          f"{len(variants)} sentences")
    return stats


def score_variants(metric: Metric[Any], data: EvalData, rows: Sequence[int],
                   variants: Sequence[Tokens],
                   edits: Sequence[Sentence] | None = None) -> list[float]:
    """The metric's sentence score of each variant, variant ``k`` scored as a hypothesis of
    sentence ``rows[k]`` (with the edits ``edits[k]`` when given, as from a hypothesis M2):
    in one call of the metric's sentence path when the metric allows, else one sentence range
    at a time."""
    if not variants:
        return []
    return _sentence_values(metric, data, variant_stats(metric, data, rows, variants, edits))


def _sentence_values(metric: Metric[Any], data: EvalData, stats: Sequence[Any]) -> list[float]:
    """The sentence scores of variants' statistics (:func:`variant_stats`)."""
    if not stats:
        return []
    if _batchable(metric, data):
        values = metric.sentence_values(stats)
    else:
        values = []
        for one in stats:
            values.extend(metric.sentence_values([one]) or [])
    if values is None or len(values) != len(stats):
        raise ConfigError(f"metric {metric.name!r} gave no sentence score for every variant")
    return [float(x) for x in values]


def _attribute_jobs(metric: Metric[Any], data: EvalData, jobs: Sequence[_Job],
                    corpus: CorpusSwap | None = None) -> list[_Found]:
    """Score every distinct variant of ``jobs`` once (the source, the hypothesis, the subsets
    of edits) in one batch and compute the attributions: of the sentence score, and with
    ``corpus`` also of the corpus score (each variant's statistics swapped into the corpus)."""
    keys: dict[tuple[int, Tokens, tuple[Edit, ...] | None], int] = {}
    rows: list[int] = []
    variants: list[Tokens] = []
    given = [job.m2 is not None for job in jobs]
    if any(given) and not all(given):
        raise ValueError("a batch mixes sentences with and without their M2 edits")
    sentences: list[Sentence] | None = [] if all(given) and jobs else None

    def need(job: _Job, tokens: Tokens, mask: int | None) -> int:
        """The row of the variant ``tokens``; with M2 edits, made by the edits of ``mask``
        (``None``: the hypothesis itself, with its own M2 sentence)."""
        subset = None
        if sentences is not None:
            subset = (None if mask is None else
                      tuple(e for i, e in enumerate(job.edits) if mask >> i & 1))
        key = (job.index, tokens, subset)
        k = keys.get(key)
        if k is None:
            k = keys[key] = len(variants)
            rows.append(job.index)
            variants.append(tokens)
            if sentences is not None:
                assert job.m2 is not None
                sentences.append(job.m2 if subset is None else
                                 Sentence(job.source, (Annotation(0, subset),)))
        return k

    wanted = []
    for job in jobs:
        base_k = need(job, job.source, 0)
        full_k = need(job, job.hypothesis, None)
        every = (1 << len(job.edits)) - 1  # all the edits: the hypothesis itself
        masks = {m: full_k if m == every else need(job, applied(job.source, job.edits, m), m)
                 for m in job.masks}
        wanted.append((base_k, full_k, masks))
    stats = variant_stats(metric, data, rows, variants, sentences)
    scores = _sentence_values(metric, data, stats)
    out = []
    for job, (base_k, full_k, masks) in zip(jobs, wanted, strict=True):
        base, full = scores[base_k], scores[full_k]
        v = {m: scores[k] - base for m, k in masks.items()}
        v[0] = 0.0
        one = _attribution(job, base, full, v)
        at_corpus = None
        if corpus is not None:
            # the corpus with the sentence as the system wrote it is the system's corpus
            swapped = {k: corpus.value(job.index, stats[k]) for k in {base_k, *masks.values()}
                       if k != full_k}
            swapped[full_k] = corpus.score
            corpus_base = swapped[base_k]
            cv = {m: swapped[k] - corpus_base for m, k in masks.items()}
            cv[0] = 0.0
            at_corpus = _attribution(job, corpus_base, corpus.score, cv)
        out.append(_Found(one, at_corpus))
    return out


def _attribution(job: _Job, base: float, full: float, v: dict[int, float]
                 ) -> SentenceAttribution:
    values = _values(job, v, full - base) if job.edits else []
    return SentenceAttribution(
        job.index, base, full,
        tuple(EditAttribution(e, x) for e, x in zip(job.edits, values, strict=True)),
        job.method, len(job.orders))


@dataclass(frozen=True)
class _Found:
    """One sentence's attribution of its sentence score and, when asked, of the corpus
    score."""

    sentence: SentenceAttribution
    corpus: SentenceAttribution | None


def _batches(jobs: Sequence[_Job]) -> list[list[_Job]]:
    """Consecutive sentences grouped into batches of about :data:`BATCH_VARIANTS` variants."""
    out: list[list[_Job]] = []
    size = BATCH_VARIANTS
    for job in jobs:
        cost = len(job.masks) + 2
        if size + cost > BATCH_VARIANTS and (not out or out[-1]):
            out.append([])
            size = 0
        out[-1].append(job)
        size += cost
    return [b for b in out if b]


_STATE: dict[str, Any] = {}


def _init_worker(metric: Metric[Any], data: EvalData, corpus: CorpusSwap | None = None) -> None:
    _STATE.update(metric=metric, data=data, corpus=corpus)


def _worker_batch(batch: list[_Job]) -> list[_Found]:
    return _attribute_jobs(_STATE["metric"], _STATE["data"], batch, _STATE["corpus"])


# -- the entry point -----------------------------------------------------------------------


def check_options(method: str, max_exact: int = MAX_EXACT, samples: int = SAMPLES) -> None:
    """Refuse what :func:`attribute` cannot do (a :class:`~gecscope.errors.ConfigError`
    naming the option): a method not in :data:`METHODS`, ``max_exact`` outside 0..20
    (2^n sentences per sentence) or ``samples`` outside 1..100,000."""
    if method not in METHODS:
        raise ConfigError(f"unknown attribution method {method!r} (choose from "
                          f"{', '.join(METHODS)})")
    if isinstance(max_exact, bool) or not isinstance(max_exact, int) or not 0 <= max_exact <= 20:
        raise ConfigError(f"max_exact must be a whole number from 0 to 20 (2^n variants "
                          f"per sentence), not {max_exact!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 100_000:
        raise ConfigError(f"samples must be a whole number from 1 to 100000, not {samples!r}")


def _check_sentence_values(metric: Metric[Any]) -> None:
    from gecscope.metrics.base import Metric

    if type(metric).sentence_values is Metric.sentence_values:
        raise ConfigError(f"metric {metric.name!r} defines no sentence-level score, so its "
                          "score cannot be attributed to edits")


def attribute(metric: Metric[Any], data: EvalData, hyp: Hypothesis, method: str = "shapley", *,
              max_exact: int = MAX_EXACT, samples: int = SAMPLES, seed: int = 0,
              jobs: int = 1, progress: Callable[[int], None] | None = None,
              sentences: Sequence[int] | None = None,
              level: str = "sentence") -> list[SentenceAttribution]:
    """Each hypothesis edit's share of its sentence's score change under ``metric``.

    One :class:`SentenceAttribution` per sentence of ``hyp`` (or per index, 0-based, of
    ``sentences``, in that order). ``method`` is one of :data:`METHODS`; ``shapley`` is exact
    for sentences with up to ``max_exact`` edits and samples ``samples`` edit orders (with
    ``seed``) beyond; ``jobs`` > 1 scores on worker processes when the work is worth them;
    ``progress(n)`` is told of every ``n`` sentences done. Any metric with a sentence-level
    score works; the others raise :class:`~gecscope.errors.ConfigError`.

    ``level="corpus"`` attributes the corpus score instead: ``v(A)`` is the corpus score with
    this one sentence's hypothesis replaced by the source plus the edits ``A`` (every other
    sentence as the system wrote it), so ``base`` is the corpus score with the sentence left
    as its source, ``full`` the system's corpus score and the edits share the sentence's
    leave-one-out change (:mod:`gecscope.explain.corpus`).
    """
    if level not in LEVELS:
        raise ConfigError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    swap = None
    if level == "corpus":
        from gecscope.explain.swap import corpus_swap

        check_options(method, max_exact, samples)
        _check_sentence_values(metric)
        metric.check_inputs(data)
        metric.check_hypothesis(data, hyp)
        swap = corpus_swap(metric, metric.sentence_stats(data, hyp))
    found = attribute_both(metric, data, hyp, method, max_exact=max_exact, samples=samples,
                           seed=seed, jobs=jobs, progress=progress, sentences=sentences,
                           corpus=swap)
    if level == "sentence":
        return [f.sentence for f in found]
    return [f.corpus for f in found if f.corpus is not None]


def attribute_both(metric: Metric[Any], data: EvalData, hyp: Hypothesis,
                   method: str = "shapley", *, max_exact: int = MAX_EXACT,
                   samples: int = SAMPLES, seed: int = 0, jobs: int = 1,
                   progress: Callable[[int], None] | None = None,
                   sentences: Sequence[int] | None = None,
                   corpus: CorpusSwap | None = None) -> list[_Found]:
    """:func:`attribute` at the sentence level and, with ``corpus`` (the system's statistics,
    :func:`~gecscope.explain.swap.corpus_swap`), at the corpus level too, from the one
    scoring of the variants (``.sentence``, ``.corpus`` of each result)."""
    check_options(method, max_exact, samples)
    _check_sentence_values(metric)
    metric.check_inputs(data)
    metric.check_hypothesis(data, hyp)
    n = len(hyp)
    if sentences is None:
        indices = list(range(n))
    else:
        indices = list(dict.fromkeys(int(i) for i in sentences))
        bad = [i for i in indices if not 0 <= i < n]
        if bad:
            raise ConfigError(f"sentence {bad[0] + 1} is out of range (the hypothesis has {n} "
                              "sentences)")
    if jobs > 1 and data.known_hypothesis_m2(hyp) is None:
        from gecscope.execution.plan import extract_edits

        extract_edits(data, [hyp], jobs)
    swap = corpus
    # the variants are scored in batches of their own: keep the scores of hyp's corpus
    metric = metric.sentence_scorer(data, hyp)
    edits = hypothesis_edits(data, hyp)
    sources = data.sources
    # a hypothesis given as M2 is scored with its edits: so are its variants (their subsets)
    given = hyp.m2.sentences if hyp.m2 is not None else None
    planned = [_plan(i, sources[i], hyp.tokens[i], edits[i], method, max_exact, samples, seed,
                     given[i] if given is not None else None)
               for i in indices]
    batches = _batches(planned)
    results: list[_Found] = []

    def collect(done: list[_Found]) -> None:
        results.extend(done)
        if progress is not None:
            progress(len(done))

    from gecscope.execution.executors import Pool, worth_parallel

    variants = sum(len(j.masks) + 2 for j in planned)
    if len(batches) > 1 and worth_parallel(jobs, variants * metric.relative_cost):
        from gecscope.execution.pool import process_pool

        with process_pool(jobs, len(batches), _init_worker, (metric, data, swap)) as pool:
            if pool is not None:
                for done in Pool(pool).map(_worker_batch, batches):
                    collect(done)
    for batch in batches[_done_batches(batches, results):]:  # no workers, or they broke
        collect(_attribute_jobs(metric, data, batch, swap))
    return results


def _done_batches(batches: Sequence[Sequence[_Job]], results: Sequence[_Found]) -> int:
    """How many leading batches ``results`` covers (the workers' results come in order)."""
    done = len(results)
    k = 0
    while k < len(batches) and done >= len(batches[k]):
        done -= len(batches[k])
        k += 1
    return k

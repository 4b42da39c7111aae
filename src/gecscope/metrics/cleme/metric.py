"""CLEME (Ye et al. 2023) and CLEME2.0 (Ye et al. 2025): chunk-level GEC evaluation.

Both metrics partition source, hypothesis and references into the same chunks
(:mod:`gecscope.metrics.cleme.chunks`) and label each hypothesis chunk TP, FP_ne (a wrong
correction where the reference also corrects), FP_un (an unnecessary correction), FN or TN, under
the correction-*dependent* assumption (each reference on its own, best one chosen) or the
*independent* one (a chunk is right if any reference has it).

* ``cleme``: P, R, F_beta and accuracy from (weighted) TP/FP/FN/TN.
* ``cleme2``: Hit = TP/NE, Wrong = FP_ne/NE, Under = FN/NE with NE = TP + FP_ne + FN, Over =
  FP_un/(TP + FP), and Score = a*Hit + b*(1-Wrong) + c*(1-Under) + d*(1-Over). Weighted variants
  replace every count by the sum of its chunks' weights (paper eq. 6).

Corpus level: for each sentence (in order) the reference whose counts maximise the score of the
*cumulative* counts is chosen (ties: more TP, fewer FP, fewer FN, more TN); sentence level: the
best reference per sentence on its own scores, then the mean over sentences. Per-sentence
statistics keep every reference, so bootstrap resampling re-runs the choice (vectorised, with
each resample's own length bias: :mod:`gecscope.metrics.cleme.resampling`).

Numbers reproduce THUKElab/CLEME v1.1 on the M2 files it ships (see docs/cleme.md), bugs
included by default; each correction is a ``fix_*`` option (``fix_sentence_weights``,
``fix_rounding``, ``fix_sentence_beta``, ``fix_zero_weights``; ``fix_sentence_weights`` for
CLEME2.0 too). ``compat`` is their former spelling (``compat=False`` switched all of them on).
CLEME2.0's sentence level uses the paper's sentence factors, as the tool's ``main.py --metric
cleme2 --level sentence`` does (``fix_sentence_factors``, which took them, is a no-op now).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis, Slot
from gecscope.errors import ConfigError
from gecscope.gate.consistency import check_hypothesis
from gecscope.metrics import candidates
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.candidates import CountSpec
from gecscope.metrics.cleme.chunks import (
    ASSUMPTIONS,
    FN,
    FP_NE,
    FP_UN,
    TN,
    TP,
    ChunkPartition,
    classify,
    partition,
)
from gecscope.metrics.cleme.resampling import CLEMERows
from gecscope.metrics.cleme.weights import (
    LENGTH_CORPUS,
    LENGTH_SENTENCE,
    LengthParams,
    length_weight,
)
from gecscope.metrics.selection import best_index, corpus_greedy
from gecscope.stats.prf import prf

LEVELS = ("corpus", "sentence")
WEIGHTINGS = ("none", "length", "similarity", "llm")
CORPUS_FACTORS = (0.45, 0.35, 0.15, 0.05)
SENTENCE_FACTORS = (0.35, 0.25, 0.20, 0.20)


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True, slots=True)
class RefChunkStats:
    """A hypothesis against one reference: the edit length of every TP/FP_ne/FP_un/FN chunk.

    ``weights`` (similarity or LLM weighting) holds one weight per chunk of ``tp``, ``fp_ne``,
    ``fp_un`` and ``fn``, in the same order. TN chunks always weigh 1, so only their number is kept.
    """

    tp: tuple[int, ...] = ()
    fp_ne: tuple[int, ...] = ()
    fp_un: tuple[int, ...] = ()
    fn: tuple[int, ...] = ()
    tn: int = 0
    weights: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]] | None \
        = None


@dataclass(frozen=True, slots=True)
class CLEMEStats:
    """Per-sentence statistics: one :class:`RefChunkStats` per (kept) reference.

    ``ref_lengths`` are the edit lengths of every corrected/dummy reference chunk; their corpus
    mean is the bias of the length weigher.
    """

    refs: tuple[RefChunkStats, ...]
    ref_lengths: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ChunkCounts:
    """(Weighted) chunk counts."""

    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    tn: float = 0.0
    fp_ne: float = 0.0
    fp_un: float = 0.0

    @property
    def counts(self) -> tuple[float, float, float, float, float, float]:
        """TP, FP, FN, TN, FP_ne, FP_un (the cleme2 convention of :class:`CountSpec`)."""
        return (self.tp, self.fp, self.fn, self.tn, self.fp_ne, self.fp_un)

    def __add__(self, o: ChunkCounts) -> ChunkCounts:
        return ChunkCounts(self.tp + o.tp, self.fp + o.fp, self.fn + o.fn, self.tn + o.tn,
                      self.fp_ne + o.fp_ne, self.fp_un + o.fp_un)


def accuracy(c: ChunkCounts, ndigits: int | None = None) -> float:
    total = c.tp + c.fp + c.fn + c.tn
    acc = (c.tp + c.tn) / total if total else 0.0
    return round(acc, ndigits) if ndigits is not None else acc


def heuo(c: ChunkCounts, factors: Sequence[float]) -> tuple[float, float, float, float, float]:
    """CLEME2.0 (Hit, Wrong, Under, Over, Score); a ratio with an empty denominator is 0."""
    return candidates.heuo(c.counts, factors)


# --------------------------------------------------------------------------- configuration


def _check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ConfigError(f"{name}={value!r} is not valid; expected one of {', '.join(choices)}")


@dataclass(frozen=True)
class CLEMECommonConfig:
    """Options shared by ``cleme`` and ``cleme2`` (see docs/cleme.md).

    ``level``: corpus | sentence. ``assumption``: dependent | independent. ``weighting``: none |
    length | similarity | llm. Length weigher: ``length_alpha`` and the per-class clip ranges
    default to the reference settings of the level (corpus: alpha 2, [0.75, 1.25]; sentence:
    alpha 10, TP [1, 10] dependent / [2.5, 10] independent, FP [0.25, 1], FN [1, 1]);
    ``length_bias`` defaults to the mean length of the corrected reference chunks.
    ``fix_sentence_weights``: sentence-level length weights use the sentence settings
    (THUKElab/CLEME v1.1 silently uses the corpus ones); ``compat``: former spelling of the
    ``fix_*`` options (true: all off, the default now; false: all on). Similarity: ``sim_model`` (a local HF model
    directory; empty = bundled all-MiniLM-L6-v2), ``sim_layer``, ``sim_device``,
    ``sim_batch_size``, ``sim_threads`` (torch threads, default 1). LLM: ``llm_url``
    (OpenAI-compatible base URL), ``llm_model``, ``llm_temperature``, ``llm_timeout``.
    """

    level: str = "corpus"
    assumption: str = "dependent"
    weighting: str = "none"
    merge_distance: int = 0
    length_alpha: float | None = None
    length_bias: float | None = None
    length_tp_min: float | None = None
    length_tp_max: float | None = None
    length_fp_min: float | None = None
    length_fp_max: float | None = None
    length_fn_min: float | None = None
    length_fn_max: float | None = None
    fix_sentence_weights: bool = False
    #: former spelling of the ``fix_*`` options: true = all off, false = all on
    compat: bool | None = None
    sim_model: str = ""
    sim_layer: int | None = None
    sim_device: str = "cpu"
    sim_batch_size: int = 64
    sim_threads: int = 1
    llm_url: str = ""
    llm_model: str = ""
    llm_temperature: float = 0.1
    llm_timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.compat is not None:
            for f in fields(self):
                if f.name.startswith("fix_"):
                    object.__setattr__(self, f.name, not self.compat)
            object.__setattr__(self, "compat", None)
        _check_choice("level", self.level, LEVELS)
        _check_choice("assumption", self.assumption, ASSUMPTIONS)
        _check_choice("weighting", self.weighting, WEIGHTINGS)
        if self.merge_distance < 0:
            raise ConfigError(f"merge_distance must be >= 0, got {self.merge_distance}")
        if self.length_alpha is not None and self.length_alpha <= 0:
            raise ConfigError(f"length_alpha must be > 0, got {self.length_alpha}")
        for kind in ("tp", "fp", "fn"):
            lo = getattr(self, f"length_{kind}_min")
            hi = getattr(self, f"length_{kind}_max")
            for name, v in ((f"length_{kind}_min", lo), (f"length_{kind}_max", hi)):
                if v is not None and v < 0:
                    raise ConfigError(f"{name} must be >= 0 (a chunk weight), got {v}")
            if lo is not None and hi is not None and lo > hi:
                raise ConfigError(f"length_{kind}_min ({lo}) is larger than length_{kind}_max ({hi})")
        if self.sim_threads < 1:
            raise ConfigError(f"sim_threads must be >= 1, got {self.sim_threads}")
        if self.sim_batch_size < 1:
            raise ConfigError(f"sim_batch_size must be >= 1, got {self.sim_batch_size}")
        if self.weighting == "llm" and not self.llm_url:
            raise ConfigError("weighting=llm needs the endpoint: --option llm_url=http://HOST:PORT/v1")

    def length_params(self) -> LengthParams:
        """The length weigher's parameters for this level (user values override)."""
        if self.level == "sentence" and self.fix_sentence_weights:
            base = LENGTH_SENTENCE[self.assumption]
        else:
            # THUKElab/CLEME v1.1 silently uses the corpus defaults at sentence level too
            base = LENGTH_CORPUS

        def pick(v: float | None, default: float) -> float:
            return default if v is None else float(v)

        return LengthParams(
            pick(self.length_alpha, base.alpha),
            pick(self.length_tp_min, base.tp_min), pick(self.length_tp_max, base.tp_max),
            pick(self.length_fp_min, base.fp_min), pick(self.length_fp_max, base.fp_max),
            pick(self.length_fn_min, base.fn_min), pick(self.length_fn_max, base.fn_max))


# --------------------------------------------------------------------------- partition helpers

#: Per hypothesis (:meth:`EvalData.derived`): chunk partitions, by merge distance.
CHUNKS: Slot[list[ChunkPartition]] = Slot(__name__, "CHUNKS")
#: Per hypothesis: chunk statistics, by (merge distance, assumption, model weighting).
STATS: Slot[list[Any]] = Slot(__name__, "STATS")
#: The similarity encoders and LLM clients of an evaluation, loaded once (this process only).
MODELS: Slot[dict[str, Any]] = Slot(__name__, "MODELS")


def partitions(data: EvalData, hyp: Hypothesis, merge_distance: int = 0) -> list[ChunkPartition]:
    """Chunk partitions of every sentence (cached by the hypothesis' content)."""
    return data.derived(hyp, (CHUNKS, merge_distance),
                        lambda: _partitions(data, hyp, merge_distance))


def _partitions(data: EvalData, hyp: Hypothesis, merge_distance: int) -> list[ChunkPartition]:
    refs = data.reference_edits()
    hm = data.hypothesis_m2(hyp)  # ERRANT-extracted when the hypothesis is text
    hyp_ann = hm.system_annotator
    # plain-text references: every file is a reference of every sentence (ERRANT writes no
    # annotation for a correction that only differs in spacing: it is an unchanged reference)
    fixed = None if data.m2 is not None else list(range(len(data.reference_paths)))
    out = []
    for ref_sent, hyp_sent in zip(refs.sentences, hm.sentences, strict=True):
        ref_ids = fixed if fixed is not None else [a.annotator for a in ref_sent.annotations]
        out.append(partition(ref_sent.source, hyp_sent.edits(hyp_ann),
                             [ref_sent.edits(k) for k in ref_ids], ref_ids, merge_distance))
    return out


# --------------------------------------------------------------------------- weighting


def similarity_scorer(cfg: CLEMECommonConfig, cache: dict[str, Any] | None = None) -> Any:
    """The BERTScore encoder of ``cfg`` (loaded once per ``cache``, e.g. the :data:`MODELS`
    slot of an ``EvalData``)."""
    from gecscope.metrics.cleme.weights import BERTScoreF1

    key = f"cleme:sim:{cfg.sim_model}:{cfg.sim_layer}:{cfg.sim_device}"
    scorer = cache.get(key) if cache is not None else None
    if scorer is None:
        scorer = BERTScoreF1(cfg.sim_model, cfg.sim_layer, cfg.sim_device, cfg.sim_batch_size,
                             cfg.sim_threads)
        if cache is not None:
            cache[key] = scorer
    scorer.threads = cfg.sim_threads
    return scorer


def _model_weights(cfg: CLEMECommonConfig, parts: Sequence[ChunkPartition],
                   labels: Sequence[tuple[tuple[str, ...], ...]], cache: dict[str, Any] | None = None
                   ) -> list[list[dict[int, float]]]:
    """Similarity or LLM weights: ``[sentence][ref] -> {chunk index: weight}`` for non-TN chunks."""
    if cfg.weighting == "similarity":
        from gecscope.metrics.cleme.weights import similarity_weights

        scorer = similarity_scorer(cfg, cache)
        jobs = []
        where = []
        for s, (part, lab) in enumerate(zip(parts, labels, strict=True)):
            for k, ref_labels in enumerate(lab):
                ref = part.reference_sentence(k)
                for i, label in enumerate(ref_labels):
                    if label == TN:
                        continue
                    applied = part.applied(i, ref=k if label == FN else None)
                    jobs.append((part.source, applied, ref))
                    where.append((s, k, i))
        weights = similarity_weights(scorer, jobs)
        scorer.clear()
    elif cfg.weighting == "llm":
        from gecscope.metrics.cleme.weights import LLMWeigher

        lkey = f"cleme:llm:{cfg.llm_url}:{cfg.llm_model}:{cfg.llm_temperature}"
        llm = cache.get(lkey) if cache is not None else None
        if llm is None:
            llm = LLMWeigher(cfg.llm_url, cfg.llm_model, cfg.llm_temperature, cfg.llm_timeout)
            if cache is not None:
                cache[lkey] = llm
        weights, where = [], []
        for s, (part, lab) in enumerate(zip(parts, labels, strict=True)):
            for k, ref_labels in enumerate(lab):
                for i, label in enumerate(ref_labels):
                    if label == TN:
                        continue
                    tgt = part.refs[k][i] if label == FN else part.hyp[i]
                    weights.append(float(llm.rate(part.source, part.source_chunk(i), tgt)))
                    where.append((s, k, i))
    else:
        raise ConfigError(f"weighting {cfg.weighting!r} has no model weights")
    out: list[list[dict[int, float]]] = [[{} for _ in lab] for lab in labels]
    for (s, k, i), w in zip(where, weights, strict=True):
        out[s][k][i] = w
    return out


def build_stats(part: ChunkPartition, labels: tuple[tuple[str, ...], ...],
                weights: list[dict[int, float]] | None = None) -> CLEMEStats:
    """Per-sentence statistics from a partition and its labels (and model weights)."""
    refs = []
    lengths = [max(b - a, len(h)) for (a, b), h in zip(part.spans, part.hyp, strict=True)]
    for k, ref_labels in enumerate(labels):
        groups: dict[str, list[int]] = {TP: [], FP_NE: [], FP_UN: [], FN: []}
        wgroups: dict[str, list[float]] = {TP: [], FP_NE: [], FP_UN: [], FN: []}
        tn = 0
        for i, label in enumerate(ref_labels):
            if label == TN:
                tn += 1
                continue
            groups[label].append(lengths[i])
            if weights is not None:
                wgroups[label].append(weights[k][i])
        w = None
        if weights is not None:
            w = (tuple(wgroups[TP]), tuple(wgroups[FP_NE]), tuple(wgroups[FP_UN]),
                 tuple(wgroups[FN]))
        refs.append(RefChunkStats(tuple(groups[TP]), tuple(groups[FP_NE]), tuple(groups[FP_UN]),
                                  tuple(groups[FN]), tn, w))
    ref_lengths = tuple(part.edit_length(i, ref=k)
                        for k, changed in enumerate(part.refs_changed)
                        for i, c in enumerate(changed) if c)
    return CLEMEStats(tuple(refs), ref_lengths)


class _Weigher:
    """Turns :class:`RefChunkStats` into weighted :class:`ChunkCounts` for one configuration."""

    def __init__(self, cfg: CLEMECommonConfig, stats: Sequence[CLEMEStats],
                 zero_as_one: bool = False) -> None:
        self.mode = cfg.weighting
        self.zero_as_one = zero_as_one
        self.bias: float | None = None
        if self.mode == "length":
            self.params = cfg.length_params()
            if cfg.length_bias is not None:
                self.bias = float(cfg.length_bias)
            else:
                n = sum(len(s.ref_lengths) for s in stats)
                self.bias = sum(sum(s.ref_lengths) for s in stats) / n if n else 0.0
            self._cache: dict[tuple[str, int], float] = {}

    def _lw(self, kind: str, length: int) -> float:
        key = (kind, length)
        w = self._cache.get(key)
        if w is None:
            p = self.params
            assert self.bias is not None
            lo, hi = {"tp": (p.tp_min, p.tp_max), "fp": (p.fp_min, p.fp_max),
                      "fn": (p.fn_min, p.fn_max)}[kind]
            w = length_weight(length, p.alpha, self.bias, lo, hi, reverse=kind == "fp")
            self._cache[key] = w
        return w

    def counts(self, r: RefChunkStats) -> ChunkCounts:
        if self.mode == "none":
            n_ne, n_un = len(r.fp_ne), len(r.fp_un)
            return ChunkCounts(len(r.tp), n_ne + n_un, len(r.fn), r.tn, n_ne, n_un)
        if self.mode == "length":
            lw = self._lw
            tp = sum(lw("tp", n) for n in r.tp)
            fp_ne = sum(lw("fp", n) for n in r.fp_ne)
            fp_un = sum(lw("fp", n) for n in r.fp_un)
            fn = sum(lw("fn", n) for n in r.fn)
            return ChunkCounts(tp, fp_ne + fp_un, fn, r.tn, fp_ne, fp_un)
        if r.weights is None:
            raise ConfigError(f"weighting={self.mode!r} needs statistics computed with the same "
                              "weighting (these carry no model weights)")
        groups: Sequence[Sequence[float]] = r.weights
        if self.zero_as_one:
            groups = [[w or 1.0 for w in group] for group in groups]
        tp, fp_ne, fp_un, fn = (float(sum(g)) for g in groups)
        return ChunkCounts(tp, fp_ne + fp_un, fn, r.tn, fp_ne, fp_un)


# --------------------------------------------------------------------------- metrics


class _CLEMEBase(Metric[CLEMEStats]):
    """Shared machinery: partition, labelling, weighting and best-reference selection."""

    requires = frozenset({"m2", "hypothesis-edits"})
    sentence_ranges = True

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        # model weighting sends chunks through an encoder in batches (or to an endpoint):
        # such a system is scored whole, never split into sentence ranges
        self.sentence_ranges = self.config.weighting not in ("similarity", "llm")

    def labels(self, part: ChunkPartition) -> tuple[tuple[str, ...], ...]:
        return classify(part, self.config.assumption)

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[CLEMEStats]:
        """Chunk statistics per sentence; shared (cached) by every metric with the same
        assumption and model weighting, since levels and length weighting only differ later."""
        cfg = self.config
        model = cfg.weighting in ("similarity", "llm")
        wkey = (f"{cfg.weighting}:{cfg.sim_model}:{cfg.sim_layer}:{cfg.llm_url}:{cfg.llm_model}:"
                f"{cfg.llm_temperature}" if model else "")
        key = (STATS, cfg.merge_distance, cfg.assumption, wkey)
        return data.derived(hyp, key, lambda: self._stats(data, hyp, model))

    def _stats(self, data: EvalData, hyp: Hypothesis, model: bool) -> list[CLEMEStats]:
        cfg = self.config
        parts = partitions(data, hyp, cfg.merge_distance)
        labels = [self.labels(p) for p in parts]
        if model:
            weights = _model_weights(cfg, parts, labels, data.slot(MODELS, dict))
            out = [build_stats(p, lab, w) for p, lab, w in zip(parts, labels, weights, strict=True)]
        else:
            out = [build_stats(p, lab) for p, lab in zip(parts, labels, strict=True)]
        return out

    def _weigher(self, stats: Sequence[CLEMEStats]) -> _Weigher:
        return _Weigher(self.config, stats)

    @abstractmethod
    def _key(self, c: ChunkCounts) -> tuple[float, ...]:
        """Sentence-level comparison key of one reference's counts; its first element is the
        sentence score."""

    def _best(self, cands: Sequence[ChunkCounts]) -> tuple[ChunkCounts | None, tuple[float, ...] | None]:
        """The candidate with the largest sentence key (the first on a tie) and its key."""
        i = best_index(cands, self._key)
        return (None, None) if i is None else (cands[i], self._key(cands[i]))

    def official_score(self, data: EvalData, hyp: Hypothesis,
                       stats: Sequence[CLEMEStats]) -> Score | None:
        """THUKElab/CLEME v1.1's score: every fix acts in :meth:`aggregate` (the statistics
        keep chunk lengths and model weights, not length weights), so the same statistics
        aggregated without the fixes."""
        return self.without_fixes().aggregate(stats)

    def sentence_scorer(self, data: EvalData, hyp: Hypothesis) -> _CLEMEBase:
        """Length weights depend on the corpus (the mean reference chunk length, unless
        ``length_bias`` is given): this metric with ``hyp``'s bias fixed."""
        if self.config.weighting != "length" or self.config.length_bias is not None:
            return self
        bias = self._weigher(self.sentence_stats(data, hyp)).bias
        return type(self)(replace(self.config, length_bias=bias))

    def sentence_values(self, stats: Sequence[CLEMEStats]) -> list[float]:
        weigher = self._weigher(stats)
        out = []
        for s in stats:
            keys = [self._key(weigher.counts(r)) for r in s.refs]
            out.append(max(keys)[0] if keys else 0.0)
        return out

    @staticmethod
    def _select_corpus(cands_per_sentence: Sequence[Sequence[ChunkCounts]],
                       chosen: Sequence[int | None]) -> tuple[ChunkCounts, list[int]]:
        """The totals of the candidates chosen greedily in corpus order, and their indices
        (index 0 is reported for a sentence without candidates, which adds nothing)."""
        total = ChunkCounts()
        for cands, i in zip(cands_per_sentence, chosen, strict=True):
            if i is not None:
                total = total + cands[i]
        return total, [i or 0 for i in chosen]


class CLEMEMetric(_CLEMEBase):
    """CLEME: chunk-level P/R/F_beta and accuracy (Ye et al. 2023)."""

    name: ClassVar[str] = "cleme"
    description: ClassVar[str] = ("CLEME chunk-level P/R/F0.5 (dependent or independent "
                                  "multi-reference assumption; length weighting by default)")
    official: ClassVar[str] = "THUKElab/CLEME v1.1 (e90abea)"
    fixes: ClassVar[Mapping[str, str]] = {
        "fix_sentence_weights": "sentence-level length weights use the sentence settings",
        "fix_rounding": "P, R, F compared and averaged unrounded",
        "fix_sentence_beta": "the sentence-level scorer uses beta",
        "fix_zero_weights": "a chunk weight of 0 stays 0"}
    former_options: ClassVar[frozenset[str]] = frozenset({"compat"})

    @dataclass(frozen=True)
    class Config(CLEMECommonConfig):
        """CLEME options: ``beta`` of F_beta, plus the common ones."""

        weighting: str = "length"
        beta: float = 0.5
        #: exact comparisons (the tool rounds P, R, F to 4 decimals when choosing and averaging)
        fix_rounding: bool = False
        #: the sentence-level scorer uses ``beta`` (the tool's always uses 0.5)
        fix_sentence_beta: bool = False
        #: a chunk weight of 0 stays 0 (the tool's P/R/F scorer counts it as 1)
        fix_zero_weights: bool = False

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.beta <= 0:
                raise ConfigError(f"beta must be > 0, got {self.beta}")

    def _key(self, c: ChunkCounts) -> tuple[float, float, float, float]:
        cfg = self.config
        # the reference's sentence scorer ignores beta and rounds to 4 dp
        nd = None if cfg.fix_rounding else 4
        p, r, f = prf(c.tp, c.fp, c.fn, cfg.beta if cfg.fix_sentence_beta else 0.5, nd)
        return f, p, r, accuracy(c, nd)

    def _weigher(self, stats: Sequence[CLEMEStats]) -> _Weigher:
        return _Weigher(self.config, stats, zero_as_one=not self.config.fix_zero_weights)

    def resampling(self) -> Any:
        """Vectorised resampling equal to :meth:`aggregate` on every resample, the length
        weights recomputed from each resample's own bias (:class:`CLEMERows`, a rows scorer
        like GLEU's: not a count table)."""
        return CLEMERows(self)

    def aggregate(self, stats: Sequence[CLEMEStats]) -> Score:
        cfg = self.config
        weigher = self._weigher(stats)
        cands = [[weigher.counts(r) for r in s.refs] for s in stats]
        details: dict[str, Any] = {"level": cfg.level, "assumption": cfg.assumption,
                                   "weighting": cfg.weighting, "sentences": len(stats)}
        if weigher.bias is not None:
            details["length_bias"] = weigher.bias
        if cfg.level == "corpus":
            # the reference code compares F rounded to 4 dp (a tie then falls to TP, FP, ...)
            nd = None if cfg.fix_rounding else 4

            def key(total: ChunkCounts, c: ChunkCounts) -> tuple[float, ...]:
                f = prf(total.tp + c.tp, total.fp + c.fp, total.fn + c.fn, cfg.beta, nd)[2]
                return (f, c.tp, -c.fp, -c.fn, c.tn)

            picks = corpus_greedy(cands, key, lambda t, c: t + c, ChunkCounts())
            total, chosen = self._select_corpus(cands, picks)
            p, r, f = prf(total.tp, total.fp, total.fn, cfg.beta)
            acc = accuracy(total)
            details["chosen_refs"] = chosen
        else:
            total = ChunkCounts()
            sums = [0.0, 0.0, 0.0, 0.0]
            for cs in cands:
                best, best_key = self._best(cs)
                if best is None or best_key is None:
                    continue
                total = total + best
                for j in range(4):
                    sums[j] += best_key[j]
            n = len(cands) or 1
            f, p, r, acc = (x / n for x in sums)
        fields = {"F": f, "P": p, "R": r, "Acc": acc, "TP": total.tp, "FP": total.fp,
                  "FN": total.fn, "TN": total.tn}
        return Score(self.name, f, fields, "F", details)


class CLEME2Metric(_CLEMEBase):
    """CLEME2.0: Hit, Wrong, Under, Over and their weighted combination (Ye et al. 2025)."""

    name: ClassVar[str] = "cleme2"
    description: ClassVar[str] = ("CLEME2.0 disentangled hit/wrong/under/over-correction scores "
                                  "and their comprehensive score")
    official: ClassVar[str] = "THUKElab/CLEME v1.1 (e90abea)"
    fixes: ClassVar[Mapping[str, str]] = {
        "fix_sentence_weights": "sentence-level length weights use the sentence settings"}
    former_options: ClassVar[frozenset[str]] = frozenset({"compat", "fix_sentence_factors"})

    @dataclass(frozen=True)
    class Config(CLEMECommonConfig):
        """CLEME2.0 options: trade-off factors (default: the paper's values for the level, which
        THUKElab/CLEME's ``main.py --level corpus|sentence`` passes to its scorer)."""

        factor_hit: float | None = None
        factor_wrong: float | None = None
        factor_under: float | None = None
        factor_over: float | None = None
        #: former option, no effect: the sentence level always takes the sentence factors, as
        #: the tool's ``--level sentence`` does (it was believed to use the corpus ones)
        fix_sentence_factors: bool = False

        def __post_init__(self) -> None:
            super().__post_init__()
            given = [self.factor_hit, self.factor_wrong, self.factor_under, self.factor_over]
            if any(v is not None for v in given):
                if any(v is None for v in given):
                    raise ConfigError("give all four CLEME2.0 factors (factor_hit, factor_wrong, "
                                      "factor_under, factor_over) or none of them")
                values = [float(v) for v in given if v is not None]
                if any(v < 0 or v > 1 for v in values):
                    raise ConfigError(f"CLEME2.0 factors must lie in [0, 1], got {values}")
                if abs(sum(values) - 1.0) > 1e-6:
                    raise ConfigError(f"CLEME2.0 factors must sum to 1, got {values} "
                                      f"(sum {sum(values):.6g})")

        def factors(self) -> tuple[float, float, float, float]:
            if self.factor_hit is None:
                return SENTENCE_FACTORS if self.level == "sentence" else CORPUS_FACTORS
            return (float(self.factor_hit), float(self.factor_wrong or 0.0),
                    float(self.factor_under or 0.0), float(self.factor_over or 0.0))

    def _key(self, c: ChunkCounts) -> tuple[float, ...]:
        hit, wrong, under, over, score = heuo(c, self.config.factors())
        return (score, hit, -wrong, -under, -over)

    def spec(self) -> CountSpec:
        """The corpus-level choice: the comprehensive score of the running totals plus the
        reference's counts, ties to more TP, fewer FP, fewer FN, more TN."""
        # beta only names an F field, which the cleme2 convention has not
        return CountSpec("cleme2", 0.5, factors=self.config.factors(), zero=(0.0,) * 6,
                         fields_order=("Score", "Hit", "Wrong", "Under", "Over", "TP", "FP",
                                       "FP_ne", "FP_un", "FN", "TN"))

    def resampling(self) -> Any:
        """Vectorised resampling: unweighted corpus-level scores sum whole counts
        (:class:`CandidateCounts`, stacked across systems); every other setting re-runs the
        reference choice on each resample with its own length weights (:class:`CLEMERows`)."""
        if self.config.level == "corpus" and self.config.weighting == "none":
            return self.spec().resampling(self._candidates)
        return CLEMERows(self)

    def _candidates(self, stats: Sequence[CLEMEStats]) -> list[list[ChunkCounts]]:
        weigher = self._weigher(stats)
        return [[weigher.counts(r) for r in s.refs] for s in stats]

    def aggregate(self, stats: Sequence[CLEMEStats]) -> Score:
        cfg = self.config
        factors = cfg.factors()
        weigher = self._weigher(stats)
        cands = [[weigher.counts(r) for r in s.refs] for s in stats]
        details: dict[str, Any] = {"level": cfg.level, "assumption": cfg.assumption,
                                   "weighting": cfg.weighting, "factors": list(factors),
                                   "sentences": len(stats)}
        if weigher.bias is not None:
            details["length_bias"] = weigher.bias
        if cfg.level == "corpus":
            total, chosen = self._select_corpus(cands, self.spec().select(cands))
            hit, wrong, under, over, score = heuo(total, factors)
            details["chosen_refs"] = chosen
        else:
            total = ChunkCounts()
            sums = [0.0] * 5
            for cs in cands:
                best, best_key = self._best(cs)
                if best is None or best_key is None:
                    continue
                total = total + best
                sc, h, w, u, o = best_key
                for j, v in enumerate((sc, h, -w, -u, -o)):
                    sums[j] += v
            n = len(cands) or 1
            score, hit, wrong, under, over = (x / n for x in sums)
        fields = {"Score": score, "Hit": hit, "Wrong": wrong, "Under": under, "Over": over,
                  "TP": total.tp, "FP": total.fp, "FP_ne": total.fp_ne, "FP_un": total.fp_un,
                  "FN": total.fn, "TN": total.tn}
        # the comprehensive score and its four parts by default; the counts in --all-fields
        return Score(self.name, score, fields, "Score", details,
                     display=("Score", "Hit", "Wrong", "Under", "Over"))


def _per_ref_scores(metric: Metric, c: ChunkCounts) -> dict[str, float]:
    if isinstance(metric, CLEME2Metric):
        hit, wrong, under, over, score = heuo(c, metric.config.factors())
        return {"Score": score, "Hit": hit, "Wrong": wrong, "Under": under, "Over": over,
                "TP": c.tp, "FP_ne": c.fp_ne, "FP_un": c.fp_un, "FN": c.fn, "TN": c.tn}
    assert isinstance(metric, CLEMEMetric)
    f, p, r, acc = metric._key(c)
    return {"F": f, "P": p, "R": r, "Acc": acc, "TP": c.tp, "FP": c.fp, "FN": c.fn, "TN": c.tn}


def explain(metric: Metric, data: EvalData, hyp: Hypothesis, indices: Sequence[int]
            ) -> list[dict[str, Any]]:
    """Chunk tables of the sentences ``indices`` (0-based), as JSON-ready dicts.

    Each chunk carries its source span and tokens, every reference's and the hypothesis'
    tokens, and per reference its label (TP, FP_ne, FP_un, FN, TN) and weight under the
    metric's weighting. Per reference the sentence-level scores are given, with the reference
    a sentence-level evaluation would choose. Model weights are computed for these sentences
    only; the length-weight bias is the corpus one.
    """
    if not isinstance(metric, (CLEMEMetric, CLEME2Metric)):
        raise ConfigError(f"explain supports the metrics cleme and cleme2, not {metric.name!r}")
    cfg = metric.config
    check_hypothesis(data, hyp)
    n = len(data)
    for i in indices:
        if not 0 <= i < n:
            raise ConfigError(f"sentence {i + 1} does not exist: the corpus has {n} sentences "
                              f"(numbered 1..{n})")
    parts = partitions(data, hyp, cfg.merge_distance)
    length_weigher = None
    if cfg.weighting == "length":  # the corpus length bias
        length_weigher = _Weigher(cfg, metric.sentence_stats(data, hyp))
    out = []
    for i in indices:
        part = parts[i]
        labels = metric.labels(part)
        model_w = (_model_weights(cfg, [part], [labels], data.slot(MODELS, dict))[0]
                   if cfg.weighting in ("similarity", "llm") else None)
        stats = build_stats(part, labels, model_w)
        if length_weigher is not None:
            weigher = length_weigher
        else:
            weigher = metric._weigher([stats])
        chunk_rows = []
        for j in range(len(part)):
            a, b = part.spans[j]
            kind = "unchanged" if not part.is_interval(j) else ("dummy" if a == b else "corrected")
            row_labels = []
            for k, ref_labels in enumerate(labels):
                label = ref_labels[j]
                if label == TN or cfg.weighting == "none":
                    w = 1.0
                elif model_w is not None:
                    w = model_w[k][j]
                else:
                    kind_w = {TP: "tp", FP_NE: "fp", FP_UN: "fp", FN: "fn"}[label]
                    w = weigher._lw(kind_w, part.edit_length(j))
                row_labels.append({"reference": part.ref_ids[k], "label": label, "weight": w})
            chunk_rows.append({
                "index": j, "span": [a, b], "kind": kind,
                "source": " ".join(part.source[a:b]),
                "references": [" ".join(r[j]) for r in part.refs],
                "hypothesis": " ".join(part.hyp[j]),
                "hypothesis_changed": part.hyp_changed[j],
                "labels": row_labels})
        per_ref = [_per_ref_scores(metric, weigher.counts(r)) for r in stats.refs]
        keys = [metric._key(weigher.counts(r)) for r in stats.refs]
        best = max(range(len(keys)), key=lambda x: (keys[x], -x)) if keys else 0
        out.append({
            "sentence": i + 1, "metric": metric.name, "level": cfg.level,
            "assumption": cfg.assumption, "weighting": cfg.weighting,
            "source": " ".join(part.source),
            "references": [{"annotator": rid, "text": " ".join(part.reference_sentence(k))}
                           for k, rid in enumerate(part.ref_ids)],
            "hypothesis": " ".join(part.hypothesis_sentence()),
            "chunks": chunk_rows,
            "scores": [{"reference": rid, **sc} for rid, sc in zip(part.ref_ids, per_ref,
                                                                   strict=True)],
            "best_reference": part.ref_ids[best],
            "length_bias": length_weigher.bias if length_weigher is not None else None,
        })
    return out


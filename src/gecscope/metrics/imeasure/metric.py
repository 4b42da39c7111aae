"""The I-measure (Felice & Briscoe 2015): weighted accuracy and improvement over the source.

Each hypothesis is aligned token by token with its source and a gold reference (three-way
alignment); every aligned column is a TP, TN, FP, FN (and FPN, a wrong correction) for
detection and for correction. From the counts come P, R, F_beta, accuracy, weighted accuracy
WAcc (true and false positives weighted by ``w``) and the same for the do-nothing baseline
(the source as hypothesis, aligned with the same reference); the Improvement I places the
system's WAcc between the baseline and the bounds (positive: the text improved).

The gold standard may allow many references (every combination of the annotators'
corrections); per sentence the reference that maximises a chosen metric is used. References are
read from I-measure gold XML (``--ref gold.xml``) or converted on the fly from an M2 file.

Reproduces mfelice/imeasure (``ieval.py``), including its I on a tie with the baseline
(``floor(WAcc)``, i.e. 1 for a perfect tie); ``fix_tie_i=True`` makes that I 0 (no
improvement; the former ``tie_i="zero"``). The search over references is decomposed, with a
certificate that makes it exact, so that it finishes (``search="exhaustive"`` runs the tool's
enumeration).
See docs/imeasure.md.
"""

from __future__ import annotations

import warnings
from array import array
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar

from gecscope import _jit
from gecscope.data import EvalData, Hypothesis, Slot
from gecscope.errors import ConfigError
from gecscope.formats.imeasure_xml import GoldSentence, IMeasureGold, m2_to_gold
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.imeasure.core import (
    BASELINES,
    METRICS,
    ZERO,
    AspectScores,
    IMeasureCounts,
    aspect_scores,
    best_option,
    selection_key,
)
from gecscope.metrics.imeasure.outcomes import Outcomes, counts_of
from gecscope.metrics.imeasure.search import (
    Option,
    Witness,
    certified_regions,
    decomposed_outcomes,
    exhaustive_options,
    n_candidates_upper,
)
from gecscope.metrics.selection import corpus_greedy
from gecscope.types import Tokens

#: largest candidate set enumerated when a sentence cannot be decomposed
MAX_ENUMERATION = 1 << 16

COLUMNS = ("tp", "tn", "fp", "fn", "fpn", "p", "r", "f", "acc", "acc_b", "wacc", "wacc_b", "i")
#: the columns a terminal table shows by default (of the headline's aspect)
DISPLAY_COLUMNS = ("p", "r", "f", "wacc", "wacc_b", "i")


#: The fields of :class:`IMeasureCounts` in order, and a getter of their values (pickling).
_COUNT_FIELDS = tuple(IMeasureCounts.__dataclass_fields__)
_COUNTS = attrgetter(*_COUNT_FIELDS)


@dataclass(frozen=True, slots=True)
class IMeasureSentence:
    """Per-sentence statistics: every distinct outcome (counts) in first-witness order, and the
    one chosen when optimising per sentence. Corpus optimisation re-runs the choice in order.
    ``options`` is a tuple of :class:`Option`, or :class:`Outcomes` (arrays, each
    :class:`Option` built when asked for) for a decomposed sentence."""

    options: Sequence[Option]
    best: int

    @property
    def counts(self) -> IMeasureCounts:
        return self.options[self.best].counts

    @property
    def reference(self) -> Tokens:
        return self.options[self.best].reference

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """A compact pickle (statistics travel from workers and Ray actors to the driver): the
        options' counts as one array of machine integers, their witnesses and pieces as plain
        tuples. A sentence can have 10^5 options; field-by-field pickling of the dataclasses
        took four times as long to write and nearly twice as long to read. :class:`Outcomes`
        pickle as their arrays."""
        if isinstance(self.options, Outcomes):
            return (IMeasureSentence, (self.options, self.best))
        flat = array("q")
        for o in self.options:
            flat.extend(_COUNTS(o.counts))
        return (_unpickle_sentence, (self.best, flat.tobytes(),
                                     tuple(o.witness for o in self.options),
                                     tuple(o.pieces for o in self.options)))


def _unpickle_sentence(best: int, counts: bytes, witnesses: tuple[Witness, ...],
                       pieces: tuple[tuple[Tokens, ...], ...]) -> IMeasureSentence:
    """The inverse of :meth:`IMeasureSentence.__reduce__`."""
    flat = array("q")
    flat.frombytes(counts)
    cells = len(_COUNT_FIELDS)
    options = tuple(Option(IMeasureCounts(*flat[k * cells:(k + 1) * cells]), w, p)
                    for k, (w, p) in enumerate(zip(witnesses, pieces, strict=True)))
    return IMeasureSentence(options, best)


def _too_large(sentence: GoldSentence, n: int) -> ConfigError:
    """The refusal of a sentence that has ``n`` (more than :data:`MAX_ENUMERATION`) candidate
    references and does not decompose."""
    return ConfigError(
        f"imeasure: sentence {sentence.id} has up to {n} candidate references and cannot be "
        "split into independent regions; enumerating them would not finish. Use --option "
        "mix=false (one reference per annotator).")


def warn_without_kernel() -> None:
    """Warn (once per process) that the alignment and certificate kernels run as plain Python:
    identical numbers, but about 35 times slower (CoNLL-2014: an hour instead of a minute)."""
    global _WARNED
    if _jit.HAVE_NUMBA or _WARNED:
        return
    _WARNED = True
    warnings.warn("imeasure: numba is not installed, so the alignment kernels run as plain "
                  "Python (same numbers, about 35x slower); install it with "
                  "pip install 'gecscope[fast]'", RuntimeWarning, stacklevel=3)


_WARNED = False


def load_gold(data: EvalData) -> IMeasureGold:
    """The gold of ``data``: its I-measure XML reference, or its reference edits (an M2 file,
    or plain-text references annotated with ERRANT) converted (cached)."""
    def build() -> IMeasureGold:
        corpus = data.m2  # reading it parses gold XML as well as M2
        if data.reference_file is not None and data.reference_file.gold is not None:
            return data.reference_file.gold
        if corpus is None:
            if not data.has_references:
                raise ConfigError("imeasure needs references: I-measure gold XML, an M2 file "
                                  "or plain-text references")
            corpus = data.reference_edits()
        return m2_to_gold(corpus)

    return data.slot(GOLD, build)


#: The gold of an evaluation (:func:`load_gold`): costly to build, so it travels to workers.
GOLD: Slot[IMeasureGold] = Slot(__name__, "GOLD", portable=True,
                                cut=lambda gold, start, stop: gold.subset(start, stop))
#: Per gold sentence, the best region scores found so far (this process only); sentences with
#: the same content (:func:`gold_key`) share one dict.
REGION_CACHE: Slot[list[dict[Any, Any]]] = Slot(__name__, "REGION_CACHE")
#: Sentence statistics by (metric class, config, gold content, hypothesis), newest last (this
#: process only).
_SENTENCES: OrderedDict[tuple[Any, ...], IMeasureSentence] = OrderedDict()
#: Entries of :data:`_SENTENCES` kept, and their outcomes in all (a sentence of MAEGE's
#: lattice can have 10^5): the oldest are dropped first when either is exceeded.
MAX_CACHED_SENTENCES = 100_000
MAX_CACHED_OPTIONS = 1_000_000
_CACHED = {"options": 0}


def gold_key(sentence: GoldSentence) -> tuple[Any, ...]:
    """Everything of a gold sentence that its statistics depend on: the text, ``numann`` and
    the errors' types, ``required`` flags and alternatives (annotators and corrections), not
    the ids, so that the same sentence read twice (CoNLL-2014 rows in GJG15 and SEEDA, MAEGE
    nodes with the same references) is recognised."""
    return (sentence.text, sentence.numann,
            tuple((e.type, e.required, e.alternatives) for e in sentence.errors))


def region_caches(gold: IMeasureGold) -> list[dict[Any, Any]]:
    """One region cache per gold sentence, shared by sentences with the same :func:`gold_key`
    (the cache's entries are functions of the sentence's content only)."""
    by_key: dict[tuple[Any, ...], dict[Any, Any]] = {}
    return [by_key.setdefault(gold_key(s), {}) for s in gold.sentences]


class IMeasureMetric(Metric[IMeasureSentence]):
    """I-measure: three-way alignment counts, weighted accuracy and Improvement over the source."""

    name = "imeasure"
    relative_cost = 100.0  # CPU time per system relative to errant's (CoNLL-2014)
    sentence_ranges = True
    description = "I-measure (Felice & Briscoe 2015): WAcc and Improvement over the source"
    requires = frozenset({"m2"})
    official = "ieval.py (mfelice/imeasure fc79fdf)"
    fixes: ClassVar[Mapping[str, str]] = {"fix_tie_i": "I is 0, not floor(WAcc), when the system ties with the baseline"}
    former_options = frozenset({"tie_i"})

    @dataclass(frozen=True)
    class Config:
        """Options (names follow the tool: ``-nomix``, ``-max:``, ``-opt:``, ``-b:``, ``-w:``).

        ``maximise`` is an aspect letter (d detection, c correction) followed by a metric
        (tp tn fp fn p r f acc wacc i). ``search``: ``auto`` decomposes each sentence into
        regions at proposed cuts (``window`` consecutive tokens shared by source, hypothesis and
        every candidate) and keeps a cut only when a certificate proves that every optimal
        alignment of every candidate passes it, so the result equals the enumeration
        (docs/imeasure.md); ``exhaustive`` enumerates every candidate as the tool does
        (exponential). ``fix_tie_i``: I = 0 when the system ties with the baseline (default:
        the tool's floor(WAcc); ``tie_i`` zero/floor is its former spelling). ``baseline``:
        ``separate`` aligns the source with each candidate reference on its own (ieval since
        commit ceb6c74, including its released HEAD fc79fdf) and uses the baseline of the
        reference chosen for the hypothesis; ``recount`` re-counts the system's own alignment
        with the hypothesis replaced by the source. ``main``: the headline column, e.g.
        ``c_i``.
        """

        mix: bool = True
        maximise: str = "cwacc"
        optimise: str = "sent"
        beta: float = 1.0
        w: float = 2.0
        fix_tie_i: bool = False
        baseline: str = "separate"
        search: str = "auto"
        window: int = 2
        main: str = "c_i"
        #: former spelling of ``fix_tie_i``: ``zero`` = true, ``floor`` = false
        tie_i: str | None = None

        @property
        def tie_rule(self) -> str:
            """``zero`` (``fix_tie_i``) or ``floor`` (the tool), for the scoring functions."""
            return "zero" if self.fix_tie_i else "floor"

        def __post_init__(self) -> None:
            if self.tie_i is not None:
                if self.tie_i not in ("zero", "floor"):
                    raise ConfigError(f"imeasure: tie_i={self.tie_i!r} (now fix_tie_i): "
                                      "expected zero or floor")
                object.__setattr__(self, "fix_tie_i", self.tie_i == "zero")
                object.__setattr__(self, "tie_i", None)
            m = self.maximise.lower()
            if len(m) < 2 or m[0] not in "dc" or m[1:] not in METRICS:
                raise ConfigError(f"imeasure: maximise={self.maximise!r}: expected d or c followed "
                                  f"by one of {', '.join(METRICS)} (e.g. cwacc, di, cf)")
            if self.optimise not in ("sent", "corpus"):
                raise ConfigError(f"imeasure: optimise={self.optimise!r}: expected sent or corpus")
            if self.beta <= 0:
                raise ConfigError(f"imeasure: beta={self.beta} must be positive")
            if self.w <= 0:
                raise ConfigError(f"imeasure: w={self.w} must be positive")
            if self.baseline not in BASELINES:
                raise ConfigError(f"imeasure: baseline={self.baseline!r}: expected separate or "
                                  "recount")
            if self.search not in ("auto", "exhaustive"):
                raise ConfigError(f"imeasure: search={self.search!r}: expected auto or "
                                  "exhaustive")
            if self.window < 1:
                raise ConfigError(f"imeasure: window={self.window} must be at least 1")
            aspect, _, col = self.main.partition("_")
            if aspect not in ("d", "c") or col not in COLUMNS:
                raise ConfigError(f"imeasure: main={self.main!r}: expected d_ or c_ followed by "
                                  f"one of {', '.join(COLUMNS)}")

    # -- statistics ------------------------------------------------------------------------

    def _key(self, c: IMeasureCounts) -> tuple[float, ...]:
        cfg = self.config
        m = cfg.maximise.lower()
        return selection_key(c, m[0], m[1:], cfg.beta, cfg.w, cfg.tie_rule)

    def sentence_options(self, sentence: GoldSentence, hyp: Sequence[str],
                         cache: dict[Any, Any] | None = None) -> Sequence[Option]:
        """Distinct outcomes of one sentence (see :mod:`gecscope.metrics.imeasure.search`):
        :class:`Outcomes` for a decomposed sentence, else a list of :class:`Option`."""
        cfg = self.config
        if cfg.mix and cfg.search == "auto":
            opts = decomposed_outcomes(sentence, hyp, cfg.window, cache=cache,
                                      baseline=cfg.baseline)
            if opts is not None:
                return opts
            n = n_candidates_upper(sentence)
            if n > MAX_ENUMERATION:
                raise _too_large(sentence, n)
        return exhaustive_options(sentence, hyp, cfg.mix, cfg.baseline)

    def sentence_stats_gold(self, gold: IMeasureGold, hyps: Sequence[Sequence[str]],
                            caches: list[dict[Any, Any]] | None = None) -> list[IMeasureSentence]:
        """Per-sentence statistics against an already loaded gold."""
        from gecscope.progress import tick

        warn_without_kernel()
        out = []
        cfg = self.config
        for i, (sent, hyp) in enumerate(zip(gold.sentences, hyps, strict=True)):
            # the same (gold, hypothesis) recurs: most systems leave most sentences unchanged,
            # benchmarks share CoNLL-2014 rows, MAEGE corpora repeat chain nodes
            key = (type(self), cfg, gold_key(sent), tuple(hyp))
            stats = _SENTENCES.get(key)
            if stats is None:
                opts = self.sentence_options(sent, hyp,
                                             caches[i] if caches is not None else None)
                m = cfg.maximise.lower()
                best = best_option(counts_of(opts), m[0], m[1:], cfg.beta, cfg.w,
                                   cfg.tie_rule)
                kept = opts if isinstance(opts, Outcomes) else tuple(opts)
                stats = _SENTENCES[key] = IMeasureSentence(kept, best)
                _CACHED["options"] += len(opts)
                while _SENTENCES and (len(_SENTENCES) > MAX_CACHED_SENTENCES
                                      or _CACHED["options"] > MAX_CACHED_OPTIONS):
                    _CACHED["options"] -= len(_SENTENCES.popitem(last=False)[1].options)
            else:
                _SENTENCES.move_to_end(key)
            out.append(stats)
            tick()
        return out

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[IMeasureSentence]:
        gold = load_gold(data)
        caches = data.slot(REGION_CACHE, lambda: region_caches(gold))
        if len(hyp.tokens) != len(gold):
            from gecscope.errors import LengthMismatchError

            raise LengthMismatchError(len(gold), len(hyp.tokens), hyp.path, "sentences",
                                      gold.path)
        return self.sentence_stats_gold(gold, hyp.tokens, caches)

    def check_inputs(self, data: EvalData) -> None:
        """The gold is read (or converted from the reference edits) here, before any metric
        scores: a run with I-measure beside slower metrics stops at once on references it
        cannot use, not after the others have run."""
        super().check_inputs(data)
        load_gold(data)

    def check_hypothesis(self, data: EvalData, hyp: Hypothesis) -> None:
        """The length against the gold itself (an XML reference works without a source file),
        before any metric scores."""
        gold = load_gold(data)
        if len(hyp.tokens) != len(gold):
            from gecscope.errors import LengthMismatchError

            raise LengthMismatchError(len(gold), len(hyp.tokens), hyp.path, "sentences",
                                      gold.path)
        cfg = self.config
        if cfg.mix and cfg.search == "auto":  # a sentence too large to search refuses now
            caches = data.slot(REGION_CACHE, lambda: region_caches(gold))
            for i, sent in enumerate(gold.sentences):
                n = n_candidates_upper(sent)
                # whether it decomposes, without summing its regions' outcomes (the region
                # tables and certificates stay cached for the scoring in this process)
                if n > MAX_ENUMERATION and certified_regions(
                        sent, hyp.tokens[i], cfg.window, cache=caches[i],
                        baseline=cfg.baseline) is None:
                    raise _too_large(sent, n)

    # -- aggregation ---------------------------------------------------------------------

    def choose(self, stats: Sequence[IMeasureSentence]) -> list[IMeasureCounts]:
        """The counts used for each sentence: its own best, or the corpus-greedy choice."""
        if self.config.optimise == "sent":
            return [s.counts for s in stats]
        cands = [s.options.counts_list() if isinstance(s.options, Outcomes)
                 else [o.counts for o in s.options] for s in stats]
        chosen = corpus_greedy(cands, lambda t, c: self._key(t + c), lambda t, c: t + c, ZERO)
        return [c[i or 0] for c, i in zip(cands, chosen, strict=True)]

    def scores(self, c: IMeasureCounts) -> dict[str, AspectScores]:
        cfg = self.config
        return {a: aspect_scores(c, a, cfg.beta, cfg.w, cfg.tie_rule) for a in ("d", "c")}

    def fields(self, total: IMeasureCounts) -> dict[str, Any]:
        """The corpus fields (``d_tp`` ... ``c_i``) of summed counts."""
        sc = self.scores(total)
        return {f"{a}_{col}": getattr(sc[a], col) for a in ("d", "c") for col in COLUMNS}

    def aggregate(self, stats: Sequence[IMeasureSentence]) -> Score:
        total = ZERO
        for c in self.choose(stats):
            total = total + c
        fields = self.fields(total)
        main = self.config.main
        # The terminal table shows the headline's aspect, and of it what I is made of: P, R
        # and F of its edits, WAcc of the output and of the source left as it is (WAcc_b),
        # and I; the counts and Acc are in --all-fields and the JSON.
        aspect = main.partition("_")[0]
        display = tuple(f"{aspect}_{col}" for col in DISPLAY_COLUMNS)
        if main not in display:  # a headline outside them (main=c_acc) is shown too
            display = (main, *display)
        return Score(self.name, float(fields[main]), fields, main,
                     details={"options": self.options(), "sentences": len(stats)},
                     display=display)

    def resampling(self) -> Any:
        """With per-sentence optimisation the corpus counts are the sum of each sentence's
        chosen counts, so a resample is scored from summed integer rows
        (:class:`IMeasureRows`); corpus optimisation re-runs its order-dependent choice
        through :meth:`aggregate`."""
        return IMeasureRows(self) if self.config.optimise == "sent" else None

    def sentence_values(self, stats: Sequence[IMeasureSentence]) -> list[float]:
        aspect, _, col = self.config.main.partition("_")
        return [self.scores(c)[aspect].get(col) for c in self.choose(stats)]

    def sentence_rows(self, stats: Sequence[IMeasureSentence]) -> list[dict[str, Any]]:
        """Per-sentence table rows (the tool's ``-per-sent``): counts and scores per aspect."""
        rows = []
        for i, c in enumerate(self.choose(stats), start=1):
            sc = self.scores(c)
            row: dict[str, Any] = {"sentence": i}
            for a in ("d", "c"):
                for col in COLUMNS:
                    row[f"{a}_{col}"] = sc[a].get(col)
            rows.append(row)
        return rows


class IMeasureRows:
    """The I-measure's resampling fast path (``optimise="sent"``): each sentence's chosen
    counts as one row of integers; a resample's corpus counts are the sum of its rows (integer
    sums, so equal to :meth:`IMeasureMetric.aggregate`'s), scored by
    :meth:`IMeasureMetric.fields`, the function ``aggregate`` uses. MAEGE's corpus bootstrap
    and the significance tests go through it instead of re-summing the dataclasses."""

    def __init__(self, metric: IMeasureMetric) -> None:
        self.metric = metric

    def rows_scorer(self, stats: Sequence[IMeasureSentence]) -> Any:
        """A function scoring ``(B, n)`` index rows into ``stats``: ``{field: (B,) array}``."""
        import numpy as np

        table = np.asarray([_COUNTS(c) for c in self.metric.choose(stats)],
                           dtype=np.int64).reshape(len(stats), len(_COUNT_FIELDS))

        def score(rows: Any) -> dict[str, Any]:
            rows = np.atleast_2d(rows)
            step = max(1, 4_000_000 // max(1, rows.shape[1] * table.shape[1]))
            cols: dict[str, list[float]] = {}
            for lo in range(0, rows.shape[0], step):
                for total in table[rows[lo:lo + step]].sum(axis=1).tolist():
                    for name, v in self.metric.fields(IMeasureCounts(*total)).items():
                        cols.setdefault(name, []).append(float(v))
            if not cols:  # no rows
                return {name: np.zeros(0) for name in self.metric.fields(ZERO)}
            return {name: np.asarray(v, dtype=np.float64) for name, v in cols.items()}

        return score

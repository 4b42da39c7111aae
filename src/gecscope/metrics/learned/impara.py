"""IMPARA: an impact-based, reference-free GEC metric learnt from parallel data.

Maeda, Kaneko and Okazaki (2022, COLING). A quality estimator (QE: BERT with a one-output
classification head, fine-tuned on pairs of corrections ranked by the impact of their edits,
which are derived from a parallel corpus) rates the hypothesis alone; its rating is
``sigmoid(logit)``. A similarity estimator guards meaning: the source and the hypothesis are
encoded by a plain BERT encoder, each mean-pooled over its word pieces (special tokens
included, padding excluded), and when the cosine similarity of the two vectors is below a
threshold (0.9) the sentence scores 0. The corpus score is the mean of the sentence scores.
Inputs longer than ``max_length`` word pieces are truncated (128, as gec-metrics).

Bring your own checkpoint: ``model_qe`` (e.g. the unofficial ``gotutiyan/IMPARA-QE`` that
gec-metrics uses, saved locally) and ``model_se`` (e.g. ``bert-base-cased``) are local
Hugging Face directories; nothing is downloaded.

Numbers: equal to gec-metrics 0.1.1's ``IMPARA`` (to 1e-6) with the same checkpoints;
checked on tiny random BERT checkpoints (the published weights could not be downloaded
here), see ``docs/learned-metrics.md``. Needs torch and transformers (extra ``sim``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.learned import models as lm
from gecscope.stats.fastpath import MeanColumns

MODEL_OPTIONS = ("model_qe", "model_se")


@dataclass(frozen=True, slots=True)
class IMPARAStats:
    """One sentence: the quality estimate (0-1) of the hypothesis and the cosine similarity
    of the source's and the hypothesis's embeddings."""

    qe: float
    sim: float


class IMPARAMetric(Metric[IMPARAStats]):
    """IMPARA (Maeda et al. 2022): a quality estimate of the hypothesis, zeroed when it drifts
    too far from the source; reference-free."""

    name = "impara"
    description = "IMPARA learned reference-free metric (Maeda et al. 2022; gec-metrics 0.1.1)"
    requires: ClassVar[frozenset[str]] = frozenset({"sources"})
    relative_cost = 150.0  # one classifier pass and two encoder passes per sentence on CPU

    @dataclass(frozen=True)
    class Config:
        """``model_qe``: local quality-estimation model directory (sequence classification,
        one output); ``model_se``: local encoder directory for the similarity; ``threshold``:
        similarity below which a sentence scores 0; ``max_length``: word pieces per input
        (longer inputs are truncated); ``batch_size``: sentences per model call; ``threads``:
        torch threads; ``device``: torch device."""

        model_qe: str = ""
        model_se: str = ""
        threshold: float = 0.9
        max_length: int = 128
        batch_size: int = 32
        threads: int = 1
        device: str = "cpu"

        def __post_init__(self) -> None:
            t = self.threshold
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not -1.0 <= t <= 1.0:
                raise ConfigError(f"impara: threshold must be a cosine similarity from -1 to 1, "
                                  f"not {t!r}")
            for opt, lo in (("max_length", 2), ("batch_size", 1), ("threads", 1)):
                v = getattr(self, opt)
                if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                    raise ConfigError(f"impara: {opt} must be an integer >= {lo}, not {v!r}")
            if not self.device:
                raise ConfigError("impara: device must name a torch device (cpu, cuda, ...)")

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        missing = [o for o in MODEL_OPTIONS if not getattr(self.config, o)]
        if missing:
            raise ConfigError(
                "impara: needs local Hugging Face model directories: "
                + " ".join(f"-o {o}=DIR" for o in missing)
                + " (model_qe: the quality estimator, e.g. gotutiyan/IMPARA-QE saved locally; "
                "model_se: the similarity encoder, e.g. bert-base-cased; nothing is downloaded)")
        for o in MODEL_OPTIONS:
            lm.check_model_dir(getattr(self.config, o), "impara", o)
        self._models: dict[str, lm.LoadedModel] = {}
        self._qe_cache: dict[str, float] = {}
        self._emb_cache: dict[str, Any] = {}
        self._sim_cache: dict[tuple[str, str], float] = {}

    def __getstate__(self) -> dict[str, Any]:
        # workers load their own models (spawned processes); caches stay behind
        return {**self.__dict__, "_models": {}, "_qe_cache": {}, "_emb_cache": {},
                "_sim_cache": {}}

    def _load(self, option: str) -> lm.LoadedModel:
        if option not in self._models:
            load = lm.load_sequence_classifier if option == "model_qe" else lm.load_encoder
            self._models[option] = load(getattr(self.config, option), metric="impara",
                                        option=option, device=self.config.device)
        return self._models[option]

    def _encode(self, tokenizer: Any, texts: Sequence[str], device: Any) -> dict[str, Any]:
        enc = tokenizer(list(texts), padding=True, truncation=True,
                        max_length=self.config.max_length, return_tensors="pt")
        return {k: v.to(device) for k, v in enc.items()}

    def _quality(self, texts: Sequence[str]) -> None:
        """sigmoid(QE logit) of each text, into the cache."""
        tokenizer, model = self._load("model_qe")
        for idx in lm.batches(lm.by_length(texts), self.config.batch_size):
            enc = self._encode(tokenizer, [texts[i] for i in idx], model.device)
            logits = model(input_ids=enc["input_ids"],
                           attention_mask=enc["attention_mask"]).logits
            if logits.shape[-1] != 1:
                raise ConfigError("impara: model_qe must have one output (num_labels=1), this "
                                  f"one has {logits.shape[-1]}")
            for i, x in zip(idx, logits.view(-1).sigmoid().tolist(), strict=True):
                self._qe_cache[texts[i]] = float(x)

    def _embed(self, texts: Sequence[str]) -> None:
        """Mean-pooled last hidden states of each text (padding excluded), into the cache."""
        tokenizer, model = self._load("model_se")
        for idx in lm.batches(lm.by_length(texts), self.config.batch_size):
            enc = self._encode(tokenizer, [texts[i] for i in idx], model.device)
            mask = enc["attention_mask"]
            states = model(input_ids=enc["input_ids"], attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * m).sum(dim=1) / m.sum(dim=1)
            for j, i in enumerate(idx):
                self._emb_cache[texts[i]] = pooled[j]

    def score_texts(self, sources: Sequence[str], hypotheses: Sequence[str]
                    ) -> list[IMPARAStats]:
        """Quality estimate and similarity of each (source, hypothesis) pair of raw strings."""
        pairs = [p for p in dict.fromkeys(zip(sources, hypotheses, strict=True))
                 if p not in self._sim_cache]
        qe_todo = [h for h in dict.fromkeys(hypotheses) if h not in self._qe_cache]
        if pairs or qe_todo:
            torch = lm.torch()
            with lm.inference(self.config.threads):
                if qe_todo:
                    self._quality(qe_todo)
                emb_todo = [t for t in dict.fromkeys(x for p in pairs for x in p)
                            if t not in self._emb_cache]
                if emb_todo:
                    self._embed(emb_todo)
                for batch in lm.batches(pairs, max(self.config.batch_size, 256)):
                    a = torch.stack([self._emb_cache[s] for s, _ in batch])
                    b = torch.stack([self._emb_cache[h] for _, h in batch])
                    sims = torch.nn.functional.cosine_similarity(a, b, dim=-1).tolist()
                    self._sim_cache.update(zip(batch, map(float, sims), strict=True))
        return [IMPARAStats(self._qe_cache[h], self._sim_cache[s, h])
                for s, h in zip(sources, hypotheses, strict=True)]

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[IMPARAStats]:
        return self.score_texts([" ".join(t) for t in data.sources],
                                [" ".join(t) for t in hyp.tokens])

    def gated(self, s: IMPARAStats) -> bool:
        """Whether the similarity is below the threshold (the sentence then scores 0)."""
        return s.sim < self.config.threshold or math.isnan(s.sim)

    def sentence_score(self, s: IMPARAStats) -> float:
        return 0.0 if self.gated(s) else s.qe

    def columns(self) -> MeanColumns:
        """The corpus score is a mean: the sentence score, the quality estimate, the
        similarity and whether the sentence was gated, per sentence."""
        return MeanColumns(("IMPARA", "QE", "similarity", "gated"), lambda stats: [
            (self.sentence_score(s), s.qe, s.sim, float(self.gated(s))) for s in stats])

    def aggregate(self, stats: Sequence[IMPARAStats]) -> Score:
        fields = self.columns().fields(stats)
        return Score(self.name, fields["IMPARA"], fields, main="IMPARA",
                     display=("IMPARA", "QE", "similarity", "gated"))

    def sentence_values(self, stats: Sequence[IMPARAStats]) -> list[float]:
        return [self.sentence_score(s) for s in stats]

    def resampling(self) -> MeanColumns:
        return self.columns()

    def signature_extras(self) -> dict[str, str]:
        return {**lm.weight_hashes(self.config, MODEL_OPTIONS), **lm.library_versions()}

"""SOME: reference-less sub-metrics optimised for manual evaluations of GEC.

Yoshimura, Kaneko, Kajiwara and Komachi (2020, COLING). Three BERT regressors, fine-tuned on
the TMU-GFM data set of human judgements, each rate a correction on the annotators' 1-4 scale:
grammaticality and fluency read the hypothesis alone, meaning preservation reads the
(source, hypothesis) pair. Each rating ``x`` is min-max normalised from that scale,
``(x - 1) / 3`` (not clipped: a regressor may leave the scale), and the sentence score is
``w_g * g + w_f * f + w_m * m`` with the weights tuned in the paper (0.55, 0.43, 0.02, the
defaults of gec-metrics and of the authors' wrapper). The corpus score is the mean of the
sentence scores. Inputs longer than ``max_length`` word pieces are truncated (128, as
gec-metrics; a pair is truncated longest-first).

Bring your own checkpoint: ``model_g``, ``model_f``, ``model_m`` are local Hugging Face
directories (the authors' ``gfm-models/grammer``, ``fluency``, ``meaning``); nothing is
downloaded. Each model reads with the tokenizer saved beside it, unless ``tokenizer`` names
one directory for all three (the authors' script always uses bert-base-cased's; gec-metrics
uses the fluency model's for all three).

Numbers: equal to gec-metrics 0.1.1's ``SOME`` (to 1e-6) with the same checkpoints; checked on
tiny random BERT checkpoints (the official weights could not be downloaded here), see
``docs/learned-metrics.md``. Needs torch and transformers (extra ``sim``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.learned import models as lm
from gecscope.stats.fastpath import MeanColumns

#: The annotators' rating scale, which the regressors were trained on.
SCALE_MIN, SCALE_MAX = 1.0, 4.0
MODEL_OPTIONS = ("model_g", "model_f", "model_m")


def normalise(x: float) -> float:
    """A 1-4 rating mapped onto 0-1 (not clipped)."""
    return (x - SCALE_MIN) / (SCALE_MAX - SCALE_MIN)


@dataclass(frozen=True, slots=True)
class SOMEStats:
    """One sentence's normalised sub-scores: grammaticality, fluency, meaning preservation."""

    g: float
    f: float
    m: float


class SOMEMetric(Metric[SOMEStats]):
    """SOME (Yoshimura et al. 2020): weighted BERT ratings of grammaticality, fluency and
    meaning preservation; reference-free."""

    name = "some"
    description = "SOME learned reference-free sub-metrics (Yoshimura et al. 2020; gec-metrics 0.1.1)"
    requires: ClassVar[frozenset[str]] = frozenset({"sources"})
    relative_cost = 200.0  # three BERT passes per sentence on CPU

    @dataclass(frozen=True)
    class Config:
        """``model_g``/``model_f``/``model_m``: local model directories (grammaticality,
        fluency, meaning); ``weight_g``/``weight_f``/``weight_m``: the sub-score weights;
        ``tokenizer``: a tokenizer directory for all three (default: each model's own);
        ``max_length``: word pieces per input (longer inputs are truncated); ``batch_size``:
        sentences per model call; ``threads``: torch threads; ``device``: torch device."""

        model_g: str = ""
        model_f: str = ""
        model_m: str = ""
        weight_g: float = 0.55
        weight_f: float = 0.43
        weight_m: float = 0.02
        tokenizer: str = ""
        max_length: int = 128
        batch_size: int = 32
        threads: int = 1
        device: str = "cpu"

        def __post_init__(self) -> None:
            for opt in ("weight_g", "weight_f", "weight_m"):
                v = getattr(self, opt)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ConfigError(f"some: {opt} must be a number, not {v!r}")
            for opt, lo in (("max_length", 2), ("batch_size", 1), ("threads", 1)):
                v = getattr(self, opt)
                if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                    raise ConfigError(f"some: {opt} must be an integer >= {lo}, not {v!r}")
            if not self.device:
                raise ConfigError("some: device must name a torch device (cpu, cuda, ...)")

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        missing = [o for o in MODEL_OPTIONS if not getattr(self.config, o)]
        if missing:
            raise ConfigError(
                "some: needs the three SOME checkpoints as local Hugging Face directories: "
                + " ".join(f"-o {o}=DIR" for o in missing)
                + " (the authors' gfm-models/grammer, gfm-models/fluency, gfm-models/meaning "
                "from github.com/kokeman/SOME; nothing is downloaded)")
        for o in MODEL_OPTIONS:
            lm.check_model_dir(getattr(self.config, o), "some", o)
        if self.config.tokenizer and not Path(self.config.tokenizer).expanduser().is_dir():
            raise ConfigError(f"some: tokenizer={self.config.tokenizer!r} is not a directory; "
                              "give a local Hugging Face tokenizer directory (or leave it "
                              "out: each model then reads with its own tokenizer)")
        self._models: dict[str, lm.LoadedModel] = {}
        self._tokenizer: Any = None
        self._hyp_cache: dict[str, tuple[float, float]] = {}
        self._pair_cache: dict[tuple[str, str], float] = {}

    def __getstate__(self) -> dict[str, Any]:
        # workers load their own models (spawned processes); caches stay behind
        return {**self.__dict__, "_models": {}, "_tokenizer": None, "_hyp_cache": {},
                "_pair_cache": {}}

    def _model(self, option: str) -> lm.LoadedModel:
        if option not in self._models:
            loaded = lm.load_sequence_classifier(
                getattr(self.config, option), metric="some", option=option,
                device=self.config.device)
            if self.config.tokenizer:
                if self._tokenizer is None:
                    self._tokenizer = lm.load_tokenizer(self.config.tokenizer, metric="some",
                                                        option="tokenizer")
                loaded = lm.LoadedModel(self._tokenizer, loaded.model)
            self._models[option] = loaded
        return self._models[option]

    def _ratings(self, option: str, first: Sequence[str],
                 second: Sequence[str] | None = None) -> list[float]:
        """The normalised rating of each input (or input pair) by one regressor, in batches of
        similar length."""
        tokenizer, model = self._model(option)
        cfg = self.config
        order = lm.by_length([a + (second[i] if second else "") for i, a in enumerate(first)])
        out = [0.0] * len(first)
        for idx in lm.batches(order, cfg.batch_size):
            a = [first[i] for i in idx]
            b = [second[i] for i in idx] if second is not None else None
            enc = tokenizer(a, b, padding=True, truncation=True, max_length=cfg.max_length,
                            return_tensors="pt")
            enc = {k: v.to(model.device) for k, v in enc.items()}
            logits = model(**enc).logits
            if logits.shape[-1] != 1:
                raise ConfigError(f"some: {option} must be a regressor with one output "
                                  f"(num_labels=1), this one has {logits.shape[-1]}")
            for i, x in zip(idx, logits.view(-1).tolist(), strict=True):
                out[i] = normalise(float(x))
        return out

    def score_texts(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[SOMEStats]:
        """Sub-scores of each (source, hypothesis) pair of raw strings."""
        hyps = [h for h in dict.fromkeys(hypotheses) if h not in self._hyp_cache]
        pairs = [p for p in dict.fromkeys(zip(sources, hypotheses, strict=True))
                 if p not in self._pair_cache]
        if hyps or pairs:
            with lm.inference(self.config.threads):
                if hyps:
                    g = self._ratings("model_g", hyps)
                    f = self._ratings("model_f", hyps)
                    self._hyp_cache.update(zip(hyps, zip(g, f, strict=True), strict=True))
                if pairs:
                    m = self._ratings("model_m", [s for s, _ in pairs], [h for _, h in pairs])
                    self._pair_cache.update(zip(pairs, m, strict=True))
        return [SOMEStats(*self._hyp_cache[h], self._pair_cache[s, h])
                for s, h in zip(sources, hypotheses, strict=True)]

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[SOMEStats]:
        return self.score_texts([" ".join(t) for t in data.sources],
                                [" ".join(t) for t in hyp.tokens])

    def combine(self, s: SOMEStats) -> float:
        """The sentence score: the weighted sum of the sub-scores."""
        c = self.config
        return c.weight_f * s.f + c.weight_g * s.g + c.weight_m * s.m

    def columns(self) -> MeanColumns:
        """The corpus score is a mean: the sentence score and the three sub-scores."""
        return MeanColumns(("SOME", "grammaticality", "fluency", "meaning"), lambda stats: [
            (self.combine(s), s.g, s.f, s.m) for s in stats])

    def aggregate(self, stats: Sequence[SOMEStats]) -> Score:
        fields = self.columns().fields(stats)
        return Score(self.name, fields["SOME"], fields, main="SOME",
                     display=("SOME", "grammaticality", "fluency", "meaning"))

    def sentence_values(self, stats: Sequence[SOMEStats]) -> list[float]:
        return [self.combine(s) for s in stats]

    def resampling(self) -> MeanColumns:
        return self.columns()

    def signature_extras(self) -> dict[str, str]:
        return {**lm.weight_hashes(self.config, MODEL_OPTIONS), **lm.library_versions()}

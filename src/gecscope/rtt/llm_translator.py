"""Round trips through a large language model behind an OpenAI-compatible chat-completions
endpoint (``--backend llm:URL --llm-model NAME``): a local llama.cpp, vLLM, Ollama or LiteLLM
server, or a hosted API.

Each sentence is one request per direction: "translate this English sentence into Spanish",
then "translate this Spanish sentence into English" (two requests per sentence and pivot, as
the other backends make two passes). Requests go through :class:`gecscope.llm_client.ChatClient`
(one deadline per request, retries on HTTP 429/5xx, a size cap, the API key from an
environment variable, never stored) and its answer cache (``llm-answers.sqlite``), so a run
that stops half way keeps every answer it received; :class:`~gecscope.rtt.translator.
CachedTranslator` caches the finished round trips as for every backend.

An answer is used only when it looks like a translation of one sentence: not empty, one line,
not a refusal or a comment on the task, not much longer than the sentence, and the endpoint
gave exactly one choice. Anything else is asked again (``max_retries`` times) and then stops
the run with :class:`LLMTranslationError` (exit 69) naming the sentence and the answer: a
wrong translation is never passed on silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gecscope.errors import ConfigError
from gecscope.llm_client import (
    AnswerCache,
    ChatClient,
    LLMResponseError,
    MalformedAnswer,
    public_url,
)
from gecscope.rtt.backend import CACHE_HINT, BaseTranslator, TranslationError, batched, clean_text

#: Language codes the prompt can name: canonical code -> English name. Two-letter (ISO 639-1)
#: codes are accepted through :data:`LANGUAGE_ALIASES`.
LANGUAGES: dict[str, str] = {
    "ara": "Arabic", "cat": "Catalan", "ces": "Czech", "deu": "German", "ell": "Greek",
    "epo": "Esperanto", "fin": "Finnish", "fra": "French", "glg": "Galician",
    "hbs": "Serbo-Croatian", "heb": "Hebrew", "hin": "Hindi", "ita": "Italian",
    "jpn": "Japanese", "kor": "Korean", "nld": "Dutch", "pol": "Polish", "por": "Portuguese",
    "rus": "Russian", "spa": "Spanish", "swe": "Swedish", "tur": "Turkish", "ukr": "Ukrainian",
    "zho": "Chinese",
}
LANGUAGE_ALIASES = {
    "ar": "ara", "ca": "cat", "cs": "ces", "de": "deu", "el": "ell", "eo": "epo", "fi": "fin",
    "fr": "fra", "gl": "glg", "sh": "hbs", "sr": "hbs", "hr": "hbs", "bs": "hbs", "he": "heb",
    "hi": "hin", "it": "ita", "ja": "jpn", "ko": "kor", "nl": "nld", "pl": "pol", "pt": "por",
    "ru": "rus", "es": "spa", "sv": "swe", "tr": "tur", "uk": "ukr", "zh": "zho",
}
#: The eight pivots of Madnani et al. (2012): the default of this backend.
PAPER_PIVOTS = ("ara", "zho", "spa", "fra", "ita", "deu", "swe", "rus")

SYSTEM_PROMPT = ("You are a translation engine. Translate the text the user sends from "
                 "{source} into {target}. Reply with the translation only, on one line: no "
                 "quotes, no notes, no explanations, no transliteration.")
TEMPERATURE = 0
#: Identifies the prompt and sampling settings in the round-trip cache key, so a change to
#: either never reuses round trips made with the old ones.
PROMPT_ID = hashlib.sha256(json.dumps([SYSTEM_PROMPT, TEMPERATURE]).encode()).hexdigest()[:12]

_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_QUOTES = (('"', '"'), ("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u300c", "\u300d"))
#: Phrases of an answer that talks about the task instead of doing it (refusals, comments).
_META = re.compile(
    r"\bas an ai\b|\b(?:cannot|can ?not|can't|unable to|won't) (?:translate|comply|provide "
    r"(?:a|the) translation)|\bhere(?:'s| is) (?:the|your|a|my) translation|^\W*sure[,!.]? "
    r"here\b|^\W*(?:the )?translation\s*(?:is\b|:)", re.IGNORECASE)


class LLMTranslationError(TranslationError):
    """The LLM endpoint failed or gave no usable translation (exit 69, as the LLM judges:
    the service the run needs is missing or not doing its job). ``answer`` is the last answer
    received, when there was one."""

    exit_code = 69

    def __init__(self, message: str, answer: str | None = None) -> None:
        super().__init__(message)
        self.answer = answer


class _TranslationAnswers(AnswerCache):
    """The LLM answer cache, with the options of ``gecscope correct`` in its error hint."""

    HINT = CACHE_HINT


class _OneChoiceClient(ChatClient):
    """A :class:`ChatClient` that refuses an answer with more than one choice (one was asked:
    which of several is the translation cannot be known)."""

    def post(self, body: Mapping[str, Any]) -> Any:
        payload = super().post(body)
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if isinstance(choices, list) and len(choices) > 1:
            raise LLMResponseError(f"LLM endpoint {self.shown_url}: answered {len(choices)} "
                                   "choices to a request for one (n=1); the server does not "
                                   "follow the chat-completions protocol")
        return payload


def clean_answer(answer: str, original: str, language: str = "") -> str:
    """The translation in ``answer``, or :class:`MalformedAnswer` saying why there is none.

    ``original`` is the English sentence the round trip started from (the checks compare with
    it). A reasoning block (``<think>...</think>``) is dropped, and so are a leading label
    naming the target ``language`` ("Spanish: ...") and quotes wrapped around the whole
    answer when the original has none. Then the answer must be one non-empty line, must not
    read like a refusal or a comment on the task ("I cannot translate", "Here is the
    translation") unless the original does, and must be at most ``3 * len(original) + 60``
    characters.
    """
    text = _THINK.sub("", answer).strip()
    if not text:
        raise MalformedAnswer("the answer is empty")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        raise MalformedAnswer(f"the answer has {len(lines)} lines for one sentence")
    text = " ".join(text.split())
    label = f"{language}:"
    if language and text.lower().startswith(label.lower()) and not original.lower(
            ).startswith(label.lower()):
        text = text[len(label):].strip()
    for left, right in _QUOTES:
        if (len(text) > 2 and text.startswith(left) and text.endswith(right)
                and not original.lstrip().startswith(left)):
            text = text[len(left):-len(right)].strip()
            break
    if not text:
        raise MalformedAnswer("the answer is empty")
    if _META.search(text) and not _META.search(original):
        raise MalformedAnswer("the answer reads like a refusal or a comment on the task, "
                              "not a translation")
    limit = 3 * len(original) + 60
    if len(text) > limit:
        raise MalformedAnswer(f"the answer has {len(text)} characters, more than the "
                              f"{limit} a translation of this sentence may have (a note or an "
                              "explanation?)")
    return text


def canonical_language(code: str) -> str:
    """The canonical code of a pivot (``es`` -> ``spa``); ConfigError naming the known ones."""
    key = code.strip().lower()
    key = LANGUAGE_ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ConfigError(f"llm: unknown pivot language {code!r}; known: "
                          f"{', '.join(sorted(LANGUAGES))} (or their two-letter codes)")
    return key


class LLMTranslator(BaseTranslator):
    """Translation by an LLM through an OpenAI-compatible chat-completions endpoint.

    ``base_url``: the API base (``http://127.0.0.1:8080/v1``) or the full
    ``.../chat/completions`` URL. ``model``: the model name sent with every request (part of
    the cache key). ``api_key_env``: the environment variable holding the API key (read at
    request time, sent as a bearer token, never stored; empty: none sent). ``timeout``:
    seconds per request, its retries included. ``max_retries``: extra attempts after a
    transient HTTP failure, and times an unusable answer is asked again. ``concurrency``:
    requests in flight at once. ``cache_dir``/``cache``: the LLM answer cache
    (``llm-answers.sqlite``; default directory as every gecscope cache).
    """

    default_pivots = PAPER_PIVOTS

    def __init__(self, base_url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 120.0, max_retries: int = 2, concurrency: int = 1,
                 cache_dir: str | os.PathLike[str] | None = None, cache: bool = True,
                 batch_size: int = 64):
        if not model or model != model.strip():
            raise ConfigError("the llm backend needs a model name (--llm-model NAME; the name "
                              f"the server serves), got {model!r}")
        if not timeout > 0:
            raise ConfigError(f"llm timeout must be > 0 seconds, got {timeout!r}")
        if max_retries < 0:
            raise ConfigError(f"llm max_retries must be >= 0, got {max_retries!r}")
        if concurrency < 1:
            raise ConfigError(f"llm concurrency must be >= 1, got {concurrency!r}")
        self.model = model
        self.concurrency = concurrency
        self.batch_size = batch_size
        answers = _TranslationAnswers(cache_dir) if cache else None
        self.client = _OneChoiceClient(base_url, api_key_env=api_key_env, timeout=timeout,
                                       max_retries=max_retries, cache=answers,
                                       url_option="--backend llm:URL")
        self.name = f"llm:{public_url(self.client.url)}:model={model}:prompt={PROMPT_ID}"

    def available_pivots(self) -> tuple[str, ...]:
        return tuple(sorted(LANGUAGES))

    def check_pivot(self, pivot: str) -> str:
        return canonical_language(pivot)

    def _body(self, text: str, source: str, target: str) -> dict[str, Any]:
        return {"model": self.model, "stream": False, "n": 1, "temperature": TEMPERATURE,
                "messages": [{"role": "system", "content": SYSTEM_PROMPT.format(
                                 source=LANGUAGES.get(source, "English"),
                                 target=LANGUAGES.get(target, "English"))},
                             {"role": "user", "content": text}]}

    def _translate(self, texts: Sequence[str], source: str, target: str,
                   originals: Sequence[str]) -> list[str]:
        """Translate ``texts``, checking each answer against the English sentence it comes
        from (``originals``, aligned with ``texts``)."""
        # batched() hands over the non-empty texts, cleaned, in order and in consecutive
        # chunks: each answer is checked against the original of its own position (two
        # sentences whose pivot texts are alike keep their own originals)
        queue = [" ".join(o.split()) for t, o in zip(texts, originals, strict=True)
                 if clean_text(t)]
        done = 0
        language = LANGUAGES.get(target, "English")

        def batch(chunk: list[str]) -> list[str]:
            nonlocal done
            bodies = [self._body(t, source, target) for t in chunk]
            refs = queue[done:done + len(chunk)]
            done += len(chunk)
            what = [f"{source}->{target} translation of {t[:80]!r}" for t in chunk]
            try:
                return self.client.ask_many(
                    bodies, lambda i, c: clean_answer(c, refs[i], language), what,
                    concurrency=self.concurrency)
            except LLMResponseError as exc:
                raise LLMTranslationError(f"llm backend ({self.model}): {exc}",
                                          exc.answer) from None

        return batched(texts, self.batch_size, batch)

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        source = "en" if source == "en" else canonical_language(source)
        target = "en" if target == "en" else canonical_language(target)
        return self._translate(texts, source, target, texts)

    def round_trip(self, sentences: Sequence[str], pivot: str) -> list[str]:
        pivot = self.check_pivot(pivot)
        forward = self._translate(sentences, self.source, pivot, sentences)
        return self._translate(forward, pivot, self.source, sentences)

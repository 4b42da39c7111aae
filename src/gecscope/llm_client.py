"""Chat completions through any OpenAI-compatible endpoint, with an on-disk cache of answers.

The LLM judges (:mod:`gecscope.metrics.llm_judge`) ask one question per sentence; a corpus is
thousands of paid, slow requests that a re-run, a bootstrap or a second report should not
repeat. This module holds what any LLM-backed metric needs for that (CLEME2.0's LLM weighting
can use it too):

* :func:`chat_url`: the endpoint, from a base URL (``http://127.0.0.1:8080/v1``) or the full
  ``.../chat/completions`` URL (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM, ...).
* :class:`ChatClient`: POSTs request bodies through :func:`gecscope._http.request_json` (one
  deadline per request, retries with backoff on HTTP 429/5xx and dropped connections, a size
  cap, typed errors). The API key is read at request time from the environment variable the
  caller names and sent as a bearer token; it is never part of a cache key, a signature or an
  error message. An answer the caller's parser rejects (:class:`MalformedAnswer`) is asked
  again, up to ``max_retries`` more times, then raised as :class:`LLMResponseError` with the
  reason and the answer.
* :class:`AnswerCache`: answers stored in SQLite (``llm-answers.sqlite`` in the gecscope cache
  directory: ``$GECSCOPE_CACHE``, else ``$XDG_CACHE_HOME/gecscope``, else
  ``~/.cache/gecscope``), keyed by the SHA-256 of the endpoint URL and the *whole* request body
  (model, messages, sampling parameters, response format) as canonical JSON. A re-run makes no
  request; any change to the prompt, the model or a parameter misses. Only answers the parser
  accepted are stored, so a malformed answer is never replayed. Each row carries a digest
  over its key, request and answer; a row that fails it (or whose request is not the one
  asked) is never used: it is asked again and replaced, with a warning (the cache only saves
  requests, so asking again gives the right answer and keeps every other row).
  The cache is proven writable before any request is made (exit 73 naming the path); a cache
  locked by another process is waited on, then an error (exit 75), never "repaired".

Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from gecscope._sqlite_cache import SQLiteCache
from gecscope._sqlite_cache import row_digest as _row_digest
from gecscope.errors import ConfigError, GecscopeError

T = TypeVar("T")

CACHE_FILE = "llm-answers.sqlite"
ROW_FORMAT = "gecscope-llm-answer/1"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class LLMResponseError(GecscopeError):
    """The LLM endpoint failed, or answered without what was asked (after the retries).
    ``what`` names the request (the sentence, the edit), ``answer`` is the last answer
    received when there was one."""

    exit_code = 69

    def __init__(self, message: str, *, what: str = "", answer: str | None = None) -> None:
        super().__init__(message)
        self.what = what
        self.answer = answer


class MalformedAnswer(ValueError):
    """Raised by an answer parser: the answer does not hold what was asked (says why)."""


def chat_url(base_url: str) -> str:
    """The chat-completions URL of an API base URL (or of the full URL itself)."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"the LLM endpoint must be an http:// or https:// URL (the API base, "
                          f"e.g. http://127.0.0.1:8080/v1), not {public_url(base_url)!r}")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def public_url(url: str) -> str:
    """``url`` without a user name and password, safe to print, sign and cache."""
    try:
        parts = urlsplit(url)
        if parts.username is None and parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:  # e.g. a port that is not a number
        return re.sub(r"//[^/@]*@", "//", url)
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def check_env_name(name: str, option: str = "api_key_env") -> None:
    """``name`` must be the name of an environment variable (or empty), not a key."""
    if name and not ENV_NAME.fullmatch(name):
        raise ConfigError(f"{option} names the environment variable that holds the API key "
                          "(e.g. OPENAI_API_KEY), not the key itself; got a value that is not a "
                          "variable name")


def canonical_request(url: str, body: Mapping[str, Any]) -> str:
    """The request as canonical JSON (sorted keys): what the cache key digests and stores."""
    return json.dumps({"url": public_url(url), "body": body}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))


def request_key(url: str, body: Mapping[str, Any]) -> str:
    """SHA-256 of the endpoint and the whole request body (never the headers)."""
    return key_of(canonical_request(url, body))


def key_of(request: str) -> str:
    """The cache key of a :func:`canonical_request`: its SHA-256."""
    return hashlib.sha256(request.encode("utf-8")).hexdigest()


def default_cache_dir() -> Path:
    """The gecscope cache directory (shared with the round-trip-translation cache)."""
    from gecscope._sqlite_cache import default_cache_dir as cache_dir

    return cache_dir()


def row_digest(key: str, request: str, answer: str) -> str:
    """SHA-256 over a cache row's key, request and answer, stored in the row: a row whose
    answer, request or key was changed after it was written no longer matches it
    (:func:`gecscope._sqlite_cache.row_digest`, as the round-trip cache's rows)."""
    return _row_digest(ROW_FORMAT, key, request, answer)


class AnswerCache(SQLiteCache):
    """LLM answers in SQLite, keyed by :func:`request_key`; the request is kept beside each
    answer, with :func:`row_digest` over key, request and answer.

    :meth:`get` uses a row only if its request is the one asked now and its digest matches;
    any other row (changed by hand or by another program, or written by a version without
    digests) is counted in ``rejected`` and reads as a miss, so the caller asks the endpoint
    again and :meth:`put` replaces the row. (The digest detects changes; it is no secret, so
    it cannot stop a deliberate forgery by someone who can write the cache, who could also
    change the installed code.)

    Opening proves the cache writable (a read-only directory or file fails then, exit 73,
    before any request); a cache another process keeps locked is waited on for ``timeout``
    seconds, then :class:`~gecscope.errors.CacheBusyError` (exit 75).
    """

    WHAT = "LLM answer cache"
    FILE = CACHE_FILE
    TABLE = "answer"
    SCHEMA = ("CREATE TABLE IF NOT EXISTS answer (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
              "answer TEXT NOT NULL, digest TEXT)")
    HINT = "make it writable, set cache_dir or $GECSCOPE_CACHE to a writable directory, or " \
           "run without the cache (cache=false)"
    rejected: list[str]

    def get(self, key: str, request: str) -> str | None:
        """The stored answer to ``request`` (whose key is ``key``), or None: not stored, or
        a row that fails verification (then ``key`` is added to ``rejected``)."""
        with self._guard():
            row = self._db.execute("SELECT request, answer, digest FROM answer WHERE key=?",
                                   (key,)).fetchone()
        if row is None:
            return None
        stored, answer, digest = row
        if not (isinstance(stored, str) and isinstance(answer, str) and stored == request
                and digest == row_digest(key, stored, answer)):
            self.rejected.append(key)
            return None
        return answer

    def put(self, key: str, request: str, answer: str) -> None:
        with self._guard():
            self._db.execute("INSERT OR REPLACE INTO answer VALUES (?, ?, ?, ?)",
                             (key, request, answer, row_digest(key, request, answer)))
            self._db.commit()


def message_content(payload: Any) -> str:
    """``choices[0].message.content`` of a chat-completions answer."""
    try:
        message = payload["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise MalformedAnswer(f"no choices[0].message in the answer {str(payload)[:200]!r}"
                              ) from None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        refusal = message.get("refusal") if isinstance(message, dict) else None
        if refusal:
            raise MalformedAnswer(f"the model refused: {str(refusal)[:200]!r}")
        raise MalformedAnswer(f"no message content in the answer {str(payload)[:200]!r}")
    return content


class ChatClient:
    """Asks an OpenAI-compatible ``/chat/completions`` endpoint, through an optional cache.

    ``timeout`` bounds each request in seconds (its transient retries included);
    ``max_retries`` is both the number of extra attempts after a transient HTTP failure and
    the number of times a malformed answer is asked again. ``url_option`` is the caller's name
    for the endpoint option, named in the error when the server cannot be reached;
    ``bad_request_hint`` is added to the error when the server refuses a request (HTTP 400).
    ``requests`` counts the HTTP requests made, ``cache_hits`` the answers read from the cache.
    """

    def __init__(self, base_url: str, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 120.0, max_retries: int = 2, cache: AnswerCache | None = None,
                 backoff: float = 0.5, url_option: str = "base_url",
                 bad_request_hint: str = "") -> None:
        check_env_name(api_key_env)
        self.url = chat_url(base_url)
        self.shown_url = public_url(self.url)
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.cache = cache
        self.backoff = backoff
        self.url_option = url_option
        self.bad_request_hint = bad_request_hint
        self.requests = 0
        self.cache_hits = 0
        self._lock = threading.Lock()

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def post(self, body: Mapping[str, Any]) -> Any:
        """One request (with its transient retries); the decoded JSON answer."""
        from gecscope._http import request_json

        def failure(message: str) -> LLMResponseError:
            message = message.replace(self.url, self.shown_url)
            if "cannot connect" in message:
                message += (f"; start the OpenAI-compatible server or fix the {self.url_option} "
                            "option")
            elif "HTTP 401" in message or "HTTP 403" in message:
                where = f"${self.api_key_env}" if self.api_key_env else "no variable"
                unset = "" if self._headers() else " (it is not set)"
                message += f"; the API key is read from {where}{unset} (option api_key_env)"
            elif "HTTP 400" in message and self.bad_request_hint:
                message += f"; {self.bad_request_hint}"
            return LLMResponseError(f"LLM endpoint {message}")

        with self._lock:
            self.requests += 1
        return request_json(self.url, dict(body), headers=self._headers(),
                            deadline=self.timeout, retries=self.max_retries, error=failure,
                            backoff=self.backoff)

    def _fresh(self, body: Mapping[str, Any], parse: Callable[[str], T],
               what: str) -> tuple[str, T]:
        """Ask until the answer parses (at most ``max_retries + 1`` times)."""
        reason, last = "", ""
        attempts = self.max_retries + 1
        for _ in range(attempts):
            payload = self.post(body)
            try:
                last = message_content(payload)
                return last, parse(last)
            except MalformedAnswer as exc:
                reason = str(exc)
        shown = f"; its last answer was {last[:300]!r}" if last else ""
        raise LLMResponseError(f"{what}: the LLM gave no usable answer in {attempts} "
                               f"attempt(s): {reason}{shown} (raise max_retries, or use a model "
                               "or server that follows the requested output format)",
                               what=what, answer=last)

    def ask(self, body: Mapping[str, Any], parse: Callable[[str], T], what: str = "request"
            ) -> T:
        """The parsed answer to one request (cached)."""
        return self.ask_many([body], lambda _, c: parse(c), [what])[0]

    def ask_many(self, bodies: Sequence[Mapping[str, Any]], parse: Callable[[int, str], T],
                 what: Sequence[str] | None = None, *, concurrency: int = 1,
                 done: Callable[[int], None] | None = None) -> list[T]:
        """The parsed answers to ``bodies`` (``parse(i, answer)`` for body ``i``).

        Cached answers are read first; identical bodies are asked once; the rest go to the
        endpoint, ``concurrency`` at a time, each stored as soon as it parses (an error later
        loses nothing already answered). ``done(k)`` reports ``k`` more bodies answered.
        """
        names = list(what) if what is not None else [f"request {i + 1}" for i in
                                                      range(len(bodies))]
        requests = [canonical_request(self.url, b) for b in bodies]
        keys = [key_of(r) for r in requests]
        multiplicity: dict[str, int] = {}
        first: dict[str, int] = {}
        for i, k in enumerate(keys):
            multiplicity[k] = multiplicity.get(k, 0) + 1
            first.setdefault(k, i)
        results: dict[str, T] = {}
        todo: list[str] = []
        rejected = len(self.cache.rejected) if self.cache is not None else 0
        for k, i in first.items():
            cached = self.cache.get(k, requests[i]) if self.cache is not None else None
            if cached is not None:
                try:
                    results[k] = parse(i, cached)
                except MalformedAnswer:  # the parser changed since: ask again
                    todo.append(k)
                    continue
                self.cache_hits += 1
                if done is not None:
                    done(multiplicity[k])
            else:
                todo.append(k)
        if self.cache is not None and len(self.cache.rejected) > rejected:
            import warnings

            warnings.warn(f"{len(self.cache.rejected) - rejected} row(s) of the LLM answer cache "
                          f"{self.cache.path} do not match their request or their digest (changed "
                          "after they were written, or written by an older gecscope); not used: "
                          "asked again, and replaced", RuntimeWarning, stacklevel=2)

        def store(k: str, content: str, value: T) -> None:
            results[k] = value
            if self.cache is not None:
                self.cache.put(k, requests[first[k]], content)
            if done is not None:
                done(multiplicity[k])

        def work(k: str) -> tuple[str, T]:
            i = first[k]
            return self._fresh(bodies[i], lambda c: parse(i, c), names[i])

        if concurrency <= 1 or len(todo) <= 1:
            for k in todo:
                store(k, *work(k))
        else:
            from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

            pool = ThreadPoolExecutor(min(concurrency, len(todo)))
            pending: dict[Future[tuple[str, T]], str] = {}
            error: BaseException | None = None
            try:
                pending = {pool.submit(work, k): k for k in todo}
                while pending and error is None:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        k = pending.pop(fut)
                        exc = fut.exception()
                        if exc is None:
                            store(k, *fut.result())
                        elif error is None:
                            error = exc
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
            for fut, k in pending.items():  # answered while the pool was shutting down
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    store(k, *fut.result())
            if error is not None:
                raise error
        return [results[k] for k in keys]

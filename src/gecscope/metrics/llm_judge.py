"""LLM-as-judge: a large language model scores each correction from 1 to 5.

Kobayashi, Mita and Komachi (2024), "Large Language Models Are State-of-the-Art Evaluator for
Grammatical Error Correction" (BEA). The model reads the source and one or more corrections
("targets") and assigns each a score from 1 (worst) to 5 (best) for its quality. Two
presentations of the targets:

* ``llm_sent`` (LLM-S): each target is the corrected sentence;
* ``llm_edit`` (LLM-E): each target is the correction's edits, ERRANT-extracted against the
  source and written ``orig→corr`` separated by spaces (``go→goes →the``; an empty string when
  the correction changes nothing, which the prompt says earns 5 if the source is correct, else 1).

The prompts, the system message, the request (``seed`` 777, a strict JSON-schema response
format asking for ``target_score1``...) and the answer format are those of gec-metrics 0.1.1
(``LLMKobayashi24OpenAISent`` / ``LLMKobayashi24OpenAIEdit``), byte for byte: the test suite
builds the same inputs with gec-metrics and compares the request bodies its OpenAI client
sends with ours, and the pairwise system comparisons both compute from the same answers.

As a gecscope metric, each system is judged on its own: one request per sentence, with that
sentence's correction as the only target; the sentence score is the model's score and the
corpus score the mean over sentences. The paper (and gec-metrics, which offers only
system rankings) judges up to five systems' distinct corrections of a source in one prompt;
:meth:`LLMJudgeMetric.judge_systems` does that, as gec-metrics' ``score_pairwise`` does.

Requests go to any OpenAI-compatible chat-completions endpoint through
:class:`gecscope.llm_client.ChatClient` (retries, time-outs, an on-disk answer cache keyed by
the whole request). docs/llm-judge.md describes the options, the cost and the deviations from
gec-metrics (answers it would crash on are parsed or asked again; the sentence-level
``criteria`` line, which gec-metrics never inserts, is inserted).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.gate.consistency import check_hypothesis
from gecscope.llm_client import (
    AnswerCache,
    ChatClient,
    MalformedAnswer,
    check_env_name,
    public_url,
)
from gecscope.metrics.base import Metric, Score
from gecscope.stats.fastpath import MeanColumns
from gecscope.types import Edit, Tokens

# --------------------------------------------------------------------------- the prompts

SYSTEM_MESSAGE = "You are a helpful assistant."
_INTRO = (
    "The goal of this task is to rank the presented targets based on the quality of the "
    "sentences.\n"
    "After reading the source sentence and target sentences, please assign a score from a "
    "minimum of 1 point to a maximum of 5 points to each target based on the quality of the "
    "sentence (note that you can assign the same score multiple times).\n"
)
_SCHEMA = (
    "```json\n{\n"
    '"target1_score": int // assigned score for target 1\n...\n'
    '"targetN_score": int // assigned score for target N\n'
    "}\n```\n"
)
#: LLM-S: the targets are corrected sentences, one a line.
SENT_TEMPLATE = (
    _INTRO
    + "\n# source\n[SOURCE]\n\n# targets\n[CORRECTION]\n\n# output format\n"
    "The output should be a markdown code snippet formatted in the following schema, including "
    'the leading and trailing "```json" and "```":\n'
    + _SCHEMA
)
#: LLM-E: the targets are edit sequences, one a line.
EDIT_TEMPLATE = (
    _INTRO
    + "For targets without any edits, if the sentence is correct, they will be awarded 5 points; "
    "if there is an error, they will receive 1 point.\n"
    "The edits in each target are indicated as follows:\n"
    'Insert "the": [\u2192the]\n'
    'Delete "the": [the\u2192]\n'
    'Replace "the" with "a": [the\u2192a]\n'
    "\n# context\n[SOURCE]\n\n# targets\n[CORRECTION]\n\n# output format\n"
    "The output should be a markdown code snippet formatted in the\n"
    'following schema, including the leading and trailing "```json" and "```":\n'
    + _SCHEMA
)
SENT_CRITERIA = {
    "grammaticality": "Please evaluate each target with a focus on the grammaticality of the "
                      "sentence.",
    "fluency": "Please evaluate each target with a focus on the fluency of the sentence.",
    "meaning": "Please evaluate each target with a focus on preserving the meaning between "
               "each target and the source, which is the middle sentence in the context.",
}
EDIT_CRITERIA = {
    "difficulty": "Please evaluate each edit in the target with a focus on the difficulty of "
                  "corrections.",
    "impact": "Please evaluate each edit in the target with a focus on its impact on the "
              "sentence.",
}
ARROW = "\u2192"
#: at most this many distinct corrections share a prompt in :meth:`judge_systems`
MAX_TARGETS = 5
SCORE_RANGE = (1, 5)


def build_prompt(template: str, source: str, targets: Sequence[str]) -> str:
    """The user message: ``[SOURCE]`` then ``[CORRECTION]`` (the targets, one a line)
    substituted in that order, as gec-metrics does."""
    return template.replace("[SOURCE]", source).replace("[CORRECTION]", "\n".join(targets))


def with_criteria(template: str, heading: str, line: str) -> str:
    """``line`` inserted on its own line before the ``heading`` section (no-op when empty)."""
    if not line:
        return template
    anchor = f"\n\n# {heading}"
    if anchor not in template:
        raise ConfigError(f"the prompt has no '# {heading}' section to put the criteria before")
    return template.replace(anchor, f"\n{line}{anchor}")


def response_format(n: int) -> dict[str, Any]:
    """The strict JSON-schema response format asking for ``target_score1..n`` (integers), as
    the OpenAI client renders gec-metrics' pydantic output classes."""
    name = f"LLMSentOutputFormat{n}"
    props = {f"target_score{k}": {"title": f"Target Score{k}", "type": "integer"}
             for k in range(1, n + 1)}
    return {"type": "json_schema",
            "json_schema": {"schema": {"properties": props, "required": list(props),
                                       "title": name, "type": "object",
                                       "additionalProperties": False},
                            "name": name, "strict": True}}


def edit_target(source: Tokens, edits: Sequence[Edit]) -> str:
    """``orig→corr`` per edit, separated by spaces (empty when there is no edit)."""
    return " ".join(f"{' '.join(source[e.start:e.end])}{ARROW}{' '.join(e.correction)}"
                    for e in edits if e.type != "noop")


_OBJECT = re.compile(r'\{\s*"')
#: an answer longer than this is no judgement (the schema asks for a few short fields)
MAX_ANSWER_CHARS = 100_000


def json_objects(text: str) -> tuple[list[tuple[int, int, dict[str, Any]]], str]:
    """The outermost JSON objects written in ``text``, left to right, as ``(start, end,
    value)``; and why the last object-like text that could not be read failed (or "")."""
    decoder = json.JSONDecoder()
    found: list[tuple[int, int, dict[str, Any]]] = []
    problem = ""
    pos = 0
    while (m := _OBJECT.search(text, pos)) is not None:
        try:
            value, end = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            pos = m.start() + 1
            continue
        except (ValueError, RecursionError) as exc:  # a too-long integer, too deep
            problem = str(exc)[:120]
            pos = m.start() + 1
            continue
        found.append((m.start(), end, value))
        pos = end
    return found, problem


def _squeezed(text: str) -> str:
    return "".join(text.split())


def parse_scores(answer: str, n: int, prompt: str = "") -> tuple[int, ...]:
    """The ``n`` scores of an answer: a JSON object with ``target_score1``.. (the requested
    schema) or ``target1_score``.. (the prompt's wording), possibly inside a markdown code
    fence or surrounded by text; each a whole number from 1 to 5. Raises MalformedAnswer.

    The answer's *last* JSON object holding a score is read, never one copied from
    ``prompt`` (the user message, holding the source and the targets): an object whose text
    (spaces aside) occurs in the prompt is skipped, so a target that contains a score object
    cannot score itself through a server that echoes the prompt, and an answer that only
    repeats the prompt is refused.
    """
    if len(answer) > MAX_ANSWER_CHARS:
        raise MalformedAnswer(f"the answer is {len(answer):,} characters long; a judgement "
                              "is a short JSON object")
    found, problem = json_objects(answer)
    quoted = _squeezed(prompt)
    own = [obj for start, end, obj in found
           if not (quoted and _squeezed(answer[start:end]) in quoted)]
    if not own:
        if found:
            raise MalformedAnswer("the answer's only JSON is copied from the prompt (a target "
                                  "or the source): it repeats the prompt, it does not judge")
        why = f" ({problem})" if problem else ""
        raise MalformedAnswer(f"the answer holds no JSON object{why}")
    keys = {f"target_score{k}" for k in range(1, n + 1)} | {
        f"target{k}_score" for k in range(1, n + 1)}
    scored = [obj for obj in own if keys & set(obj)]  # objects: they start with '{"'
    obj = scored[-1] if scored else own[-1]
    low, high = SCORE_RANGE
    out = []
    for k in range(1, n + 1):
        given = [obj[key] for key in (f"target_score{k}", f"target{k}_score") if key in obj]
        if not given:
            raise MalformedAnswer(f"the answer has no target_score{k}")
        if len(given) == 2 and given[0] != given[1]:
            raise MalformedAnswer(f"the answer gives target {k} two scores (target_score{k}: "
                                  f"{given[0]!r}, target{k}_score: {given[1]!r})")
        value = given[0]
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not value.is_integer()) or not low <= value <= high:
            raise MalformedAnswer(f"target_score{k} is {value!r}, not a whole number from "
                                  f"{low} to {high}")
        out.append(int(value))
    return tuple(out)


def choose_targets(outputs: Sequence[str], limit: int = MAX_TARGETS) -> list[str]:
    """The distinct corrections that share a prompt, sorted: all of them when there are at
    most ``limit``, else the ``limit`` most frequent (ties: first seen first)."""
    counts = Counter(outputs)  # insertion-ordered: first seen first
    chosen = list(counts)
    if len(chosen) > limit:
        chosen = [h for h, _ in sorted(counts.items(), key=lambda kv: -kv[1])[:limit]]
    return sorted(chosen)


# --------------------------------------------------------------------------- the metrics


@dataclass(frozen=True)
class JudgeConfig:
    """Options shared by ``llm_sent`` and ``llm_edit`` (docs/llm-judge.md).

    ``base_url``: the OpenAI-compatible API base (``https://api.openai.com/v1``,
    ``http://127.0.0.1:8000/v1``...; required). ``model``: the model name sent with every
    request (required; gec-metrics' default is gpt-4o-mini-2024-07-18). ``api_key_env``: the
    environment variable holding the API key (read at request time; empty or unset: no key
    sent). ``temperature``: sent when given (gec-metrics sends none: the server's default).
    ``llm_seed``: the ``seed`` sent with each request (gec-metrics' 777; none: not sent),
    except to models whose name contains "gemini" (as gec-metrics); named apart from the
    bootstrap's ``--seed``. ``structured``: ask for the strict JSON schema (off for servers
    without structured outputs; the prompt still describes the format). ``criteria``: an
    evaluation focus added to the prompt. ``max_retries``: extra attempts after an HTTP
    429/5xx or a malformed answer. ``timeout``: seconds per request, its retries included.
    ``concurrency``: requests in flight at once. ``cache``, ``cache_dir``: the on-disk answer
    cache (default directory: ``$GECSCOPE_CACHE``, else ``$XDG_CACHE_HOME/gecscope``, else
    ``~/.cache/gecscope``).
    """

    CRITERIA: ClassVar[dict[str, str]] = {}
    METRIC: ClassVar[str] = "llm"

    base_url: str = ""
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None
    llm_seed: int | None = 777
    structured: bool = True
    criteria: str = ""
    max_retries: int = 2
    timeout: float = 120.0
    concurrency: int = 1
    cache: bool = True
    cache_dir: str = ""

    def __post_init__(self) -> None:
        m = self.METRIC
        if self.base_url and not self.base_url.strip().startswith(("http://", "https://")):
            raise ConfigError(f"{m}: base_url must be an http:// or https:// URL (the API "
                              f"base, e.g. http://127.0.0.1:8000/v1), not "
                              f"{public_url(self.base_url)!r}")
        if self.model != self.model.strip():
            raise ConfigError(f"{m}: model {self.model!r} has spaces around it")
        check_env_name(self.api_key_env)
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ConfigError(f"{m}: temperature must be from 0 to 2, not {self.temperature!r}")
        if self.criteria and self.criteria not in self.CRITERIA:
            raise ConfigError(f"{m}: criteria must be one of {', '.join(self.CRITERIA)} (or "
                              f"empty), not {self.criteria!r}")
        if not isinstance(self.max_retries, int) or not 0 <= self.max_retries <= 20:
            raise ConfigError(f"{m}: max_retries must be a whole number from 0 to 20, not "
                              f"{self.max_retries!r}")
        if not 0 < self.timeout <= 86400:
            raise ConfigError(f"{m}: timeout must be a positive number of seconds, not "
                              f"{self.timeout!r}")
        if not isinstance(self.concurrency, int) or not 1 <= self.concurrency <= 256:
            raise ConfigError(f"{m}: concurrency must be a whole number from 1 to 256, not "
                              f"{self.concurrency!r}")


@dataclass(frozen=True)
class JointJudgement:
    """Scores of several systems judged together (:meth:`LLMJudgeMetric.judge_systems`):
    ``scores[sentence][system]``, ``None`` where that system's correction was not among the
    corrections put in the prompt."""

    systems: tuple[str, ...]
    scores: tuple[tuple[int | None, ...], ...]

    def pairwise(self) -> list[list[list[int | None]]]:
        """``[sentence][i][j]``: 1 if system i scored higher than j, -1 if lower, 0 on a tie
        (systems with the same correction tie), None if either was not judged; the layout
        of gec-metrics' ``score_pairwise``."""
        def sign(a: int | None, b: int | None) -> int | None:
            if a is None or b is None:
                return None
            return (a > b) - (a < b)

        return [[[sign(a, b) for b in row] for a in row] for row in self.scores]


def mean_columns() -> MeanColumns:
    """The corpus score is the mean of the sentence scores (one column, and the count)."""
    return MeanColumns(("score",), lambda stats: [(float(s),) for s in stats], count_type=int)


class LLMJudgeMetric(Metric[int]):
    """Shared machinery of ``llm_sent`` and ``llm_edit``: one request per sentence, the
    model's 1-5 score as the sentence score, their mean as the corpus score."""

    requires: ClassVar[frozenset[str]] = frozenset({"sources"})
    relative_cost: ClassVar[float] = 100.0  # a network round trip per sentence
    runtime_options: ClassVar[frozenset[str]] = frozenset({"concurrency", "cache_dir"})
    TEMPLATE: ClassVar[str] = SENT_TEMPLATE
    CRITERIA_HEADING: ClassVar[str] = "source"

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        missing = [k for k in ("base_url", "model") if not getattr(self.config, k)]
        if missing:
            raise ConfigError(f"{self.name} needs an OpenAI-compatible endpoint and a model "
                              f"({' and '.join(missing)} not given): e.g. -o "
                              "base_url=https://api.openai.com/v1 -o model=gpt-4o-mini-2024-07-18 "
                              "(gec-metrics' default model), or a local server's "
                              "http://127.0.0.1:PORT/v1; an API key, if the endpoint needs one, "
                              f"is read from ${self.config.api_key_env or 'OPENAI_API_KEY'}")

    # -- prompts and requests ---------------------------------------------------------------

    def template(self) -> str:
        """The prompt template with the criteria line (if any)."""
        line = self.config.CRITERIA.get(self.config.criteria, "")
        return with_criteria(self.TEMPLATE, self.CRITERIA_HEADING, line)

    def prompt(self, source: str, targets: Sequence[str]) -> str:
        """The user message for ``source`` and its targets."""
        return build_prompt(self.template(), source, targets)

    def request_body(self, source: str, targets: Sequence[str]) -> dict[str, Any]:
        """The chat-completions request body (what the cache key digests)."""
        cfg = self.config
        body: dict[str, Any] = {
            "model": cfg.model, "stream": False,
            "messages": [{"role": "system", "content": SYSTEM_MESSAGE},
                         {"role": "user", "content": self.prompt(source, targets)}]}
        if cfg.structured:
            body["response_format"] = response_format(len(targets))
        if cfg.llm_seed is not None and "gemini" not in cfg.model:
            body["seed"] = cfg.llm_seed
        if cfg.temperature is not None:
            body["temperature"] = cfg.temperature
        return body

    def targets(self, data: EvalData, hyp: Hypothesis) -> list[str]:
        """One target per sentence: the corrected sentence (LLM-S)."""
        return [" ".join(toks) for toks in hyp.tokens]

    def client(self) -> ChatClient:
        """A client for the configured endpoint, with the answer cache unless it is off."""
        cfg = self.config
        cache = AnswerCache(cfg.cache_dir or None) if cfg.cache else None
        return ChatClient(cfg.base_url, api_key_env=cfg.api_key_env, timeout=cfg.timeout,
                          max_retries=cfg.max_retries, cache=cache,
                          bad_request_hint=(
                              "if the server does not support structured outputs or a seed, "
                              "set the options structured=false and llm_seed=none"))

    def _ask(self, requests: Sequence[tuple[str, Sequence[str]]], what: Sequence[str]
             ) -> list[tuple[int, ...]]:
        from gecscope.progress import tick

        bodies = [self.request_body(src, tg) for src, tg in requests]
        counts = [len(tg) for _, tg in requests]
        client = self.client()
        prompts = [body["messages"][-1]["content"] for body in bodies]
        try:
            return client.ask_many(
                bodies, lambda i, answer: parse_scores(answer, counts[i], prompts[i]), what,
                concurrency=self.config.concurrency, done=tick)
        finally:
            if client.cache is not None:
                client.cache.close()

    # -- the metric -------------------------------------------------------------------------

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[int]:
        targets = self.targets(data, hyp)
        requests = [(" ".join(src), [t]) for src, t in zip(data.sources, targets, strict=True)]
        what = [f"{self.name}, {hyp.name}, sentence {i + 1}" for i in range(len(requests))]
        return [scores[0] for scores in self._ask(requests, what)]

    def aggregate(self, stats: Sequence[int]) -> Score:
        fields = mean_columns().fields(stats)
        return Score(self.name, fields["score"], fields, main="score",
                     title=f"mean LLM score (1-5), {self.config.model}")

    def sentence_values(self, stats: Sequence[int]) -> list[float]:
        return [float(s) for s in stats]

    def resampling(self) -> MeanColumns:
        return mean_columns()

    def options(self) -> dict[str, Any]:
        out = super().options()
        out["base_url"] = public_url(out["base_url"])
        return out

    def prompt_digest(self) -> str:
        """SHA-256 (12 hex digits) of what defines the question: the system message, the
        template (with its criteria line) and the response-format scheme."""
        text = json.dumps([SYSTEM_MESSAGE, self.template(), response_format(1)],
                          ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def signature_extras(self) -> dict[str, str]:
        return {"prompt": self.prompt_digest(), "judge": "kobayashi24/gec-metrics-0.1.1"}

    # -- several systems in one prompt (the paper's protocol) ---------------------------------

    def judge_systems(self, data: EvalData, hyps: Sequence[Hypothesis]) -> JointJudgement:
        """Judge several systems together, as the paper and gec-metrics' ``score_pairwise``
        do: per source, one request whose targets are the systems' distinct corrections
        (sorted; the five most frequent when there are more), each score copied to every
        system with that correction. One request per sentence for all systems."""
        if not hyps:
            raise ConfigError(f"{self.name}: judge_systems needs at least one system")
        for h in hyps:
            check_hypothesis(data, h)
        per_system = [self.targets(data, h) for h in hyps]
        texts = [[" ".join(t) for t in h.tokens] for h in hyps]
        requests, chosen_all = [], []
        for i, src in enumerate(data.sources):
            outputs = [t[i] for t in texts]
            chosen = choose_targets(outputs)
            form: dict[str, str] = {}
            for s, out in enumerate(outputs):
                form.setdefault(out, per_system[s][i])
            requests.append((" ".join(src), [form[h] for h in chosen]))
            chosen_all.append(chosen)
        what = [f"{self.name}, sentence {i + 1}" for i in range(len(requests))]
        answers = self._ask(requests, what)
        rows = []
        for i, (chosen, scores) in enumerate(zip(chosen_all, answers, strict=True)):
            by_text = dict(zip(chosen, scores, strict=True))
            rows.append(tuple(by_text.get(t[i]) for t in texts))
        return JointJudgement(tuple(h.name for h in hyps), tuple(rows))


class LLMSentMetric(LLMJudgeMetric):
    """LLM-S: the model scores the corrected sentence (Kobayashi et al. 2024)."""

    name = "llm_sent"
    description = "LLM judge of corrected sentences, 1-5 (Kobayashi et al. 2024; gec-metrics)"

    @dataclass(frozen=True)
    class Config(JudgeConfig):
        __doc__ = JudgeConfig.__doc__
        CRITERIA: ClassVar[dict[str, str]] = SENT_CRITERIA
        METRIC: ClassVar[str] = "llm_sent"


class LLMEditMetric(LLMJudgeMetric):
    """LLM-E: the model scores the correction's ERRANT edits (Kobayashi et al. 2024)."""

    name = "llm_edit"
    description = "LLM judge of ERRANT edits, 1-5 (Kobayashi et al. 2024; gec-metrics)"
    requires = frozenset({"sources", "hypothesis-edits"})
    TEMPLATE = EDIT_TEMPLATE
    CRITERIA_HEADING = "context"

    @dataclass(frozen=True)
    class Config(JudgeConfig):
        __doc__ = JudgeConfig.__doc__
        CRITERIA: ClassVar[dict[str, str]] = EDIT_CRITERIA
        METRIC: ClassVar[str] = "llm_edit"

    def targets(self, data: EvalData, hyp: Hypothesis) -> list[str]:
        """One target per sentence: the hypothesis' edits (ERRANT-extracted from plain text,
        or read from its M2) as ``orig→corr`` separated by spaces."""
        corpus = data.hypothesis_m2(hyp)
        out = []
        for src, sent in zip(data.sources, corpus, strict=True):
            edits = sent.annotations[0].edits if sent.annotations else ()
            out.append(edit_target(src, edits))
        return out


__all__ = ["EDIT_TEMPLATE", "SENT_TEMPLATE", "JointJudgement", "LLMEditMetric",
           "LLMJudgeMetric", "LLMSentMetric", "build_prompt", "choose_targets", "parse_scores",
           "response_format"]


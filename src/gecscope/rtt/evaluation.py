"""Automatic version of the paper's evaluation (Madnani et al., 2012, section 5).

The paper asked two annotators, for each correction, whether it is more grammatical than the
original (better / same / worse) and whether it keeps the meaning; a method *succeeds* on an
errorful sentence when the correction is better and keeps the meaning, *draws* when it keeps the
meaning and sounds the same, and *fails* otherwise (Table 2). For sentences that were already
grammatical (Table 4) there are no draws: keeping the meaning without getting worse is a success.
The oracle takes, per sentence, the best outcome over the methods and falls back to the original
(a draw) when none is adequate.

Here both judgments are automatic proxies, documented in docs/rtt.md:

* grammaticality (``grammar_proxy="lm"``): the language model's log10 probability per token
  (words plus ``</s>``); better if the correction's exceeds the original's by more than
  ``delta``, worse if it is lower by more than ``delta``, the same otherwise (and whenever the
  two sentences are identical apart from case). This judge shares its model with the LM methods
  (B, L, P, C), which therefore optimise what it measures; ``grammar_proxy="reference"`` is the
  independent check when references exist: better / same / worse when the word edit distance
  to the closest reference goes down / stays / goes up;
* meaning: a ``meaning_fn`` given by the caller (``scripts/rtt_jfleg.py`` passes USIM with
  gecscope's trained UCCA parser, threshold ``--usim-threshold``), else the token-overlap F1
  (bag of lower-cased tokens, punctuation included) between correction and original must be
  at least ``faithfulness_threshold``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gecscope.errors import ConfigError
from gecscope.rtt.lm import LanguageModel
from gecscope.rtt.methods import METHOD_CODES
from gecscope.stats.prf import prf
from gecscope.types import Tokens

SUCCESS, DRAW, FAILURE = "success", "draw", "failure"
BETTER, SAME, WORSE = "better", "same", "worse"


@dataclass(frozen=True)
class EvalConfig:
    """Thresholds of the automatic judgments."""

    delta: float = 0.05
    faithfulness_threshold: float = 0.6
    grammar_proxy: str = "lm"

    def __post_init__(self) -> None:
        if self.grammar_proxy not in ("lm", "reference"):
            raise ConfigError("grammar_proxy must be 'lm' or 'reference'")
        if self.delta < 0:
            raise ConfigError("delta must be >= 0")
        if not 0 <= self.faithfulness_threshold <= 1:
            raise ConfigError("faithfulness_threshold must be in [0, 1]")


def token_overlap_f1(a: Sequence[str], b: Sequence[str]) -> float:
    """F1 of the multiset overlap of lower-cased tokens (1.0 for two empty sentences)."""
    ca = Counter(w.lower() for w in a)
    cb = Counter(w.lower() for w in b)
    common = sum((ca & cb).values())
    return prf(common, sum(cb.values()) - common, sum(ca.values()) - common, 1.0)[2]


def grammaticality(original: Sequence[str], correction: Sequence[str], lm: LanguageModel,
                   delta: float) -> str:
    """``better``, ``same`` or ``worse`` by per-token LM log-probability (see module doc)."""
    if [w.lower() for w in original] == [w.lower() for w in correction]:
        return SAME
    diff = lm.score_per_word(correction) - lm.score_per_word(original)
    if diff > delta:
        return BETTER
    if diff < -delta:
        return WORSE
    return SAME


def word_edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two token sequences (case-insensitive)."""
    x = [w.lower() for w in a]
    y = [w.lower() for w in b]
    prev = list(range(len(y) + 1))
    for i, wa in enumerate(x, 1):
        cur = [i] + [0] * len(y)
        for j, wb in enumerate(y, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wa != wb))
        prev = cur
    return prev[-1]


def reference_grammaticality(original: Sequence[str], correction: Sequence[str],
                             references: Sequence[Sequence[str]]) -> str:
    """``better`` / ``same`` / ``worse`` as the distance to the closest reference falls / stays /
    rises."""
    d_o = min(word_edit_distance(r, original) for r in references)
    d_c = min(word_edit_distance(r, correction) for r in references)
    return BETTER if d_c < d_o else WORSE if d_c > d_o else SAME


def outcome(gram: str, meaning: bool, errorful: bool) -> str:
    """Tables 2 and 4 of the paper."""
    if not meaning:
        return FAILURE
    if errorful:
        return {BETTER: SUCCESS, SAME: DRAW, WORSE: FAILURE}[gram]
    return FAILURE if gram == WORSE else SUCCESS


@dataclass
class MethodResult:
    counts: dict[str, int] = field(default_factory=lambda: {SUCCESS: 0, DRAW: 0, FAILURE: 0})
    outcomes: list[str] = field(default_factory=list)
    changed: int = 0

    def rate(self, key: str) -> float:
        n = sum(self.counts.values())
        return self.counts[key] / n if n else 0.0


@dataclass
class RttEvaluation:
    """Per-method success/draw/failure on errorful and grammatical sentences, plus the oracle."""

    errorful: dict[str, MethodResult]
    grammatical: dict[str, MethodResult]
    n_errorful: int
    n_grammatical: int
    meaning_proxy: str
    config: EvalConfig
    gleu: dict[str, float] = field(default_factory=dict)

    def to_markdown(self) -> str:
        def pct(r: MethodResult, k: str) -> str:
            return f"{100 * r.rate(k):.0f}% ({r.counts[k]})"

        lines = [f"Errorful sentences (n = {self.n_errorful}):", "",
                 "| Method | Success | Draw | Failure | changed |", "|---|---|---|---|---|"]
        for m, r in self.errorful.items():
            label = "Oracle" if m == "oracle" else f"{m} ({METHOD_CODES.get(m, '')})"
            fail = "-" if m == "oracle" else pct(r, FAILURE)
            changed = "-" if m == "oracle" else str(r.changed)
            lines.append(f"| {label} | {pct(r, SUCCESS)} | {pct(r, DRAW)} | {fail} | "
                         f"{changed} |")
        lines += ["", f"Grammatical sentences (n = {self.n_grammatical}):", "",
                  "| Method | Success | Failure | changed |", "|---|---|---|---|"]
        for m, r in self.grammatical.items():
            lines.append(f"| {m} ({METHOD_CODES.get(m, '')}) | {pct(r, SUCCESS)} | "
                         f"{pct(r, FAILURE)} | {r.changed} |")
        if self.gleu:
            lines += ["", "| System | GLEU |", "|---|---|"]
            lines += [f"| {m} | {100 * v:.2f} |" for m, v in self.gleu.items()]
        return "\n".join(lines) + "\n"


def evaluate_methods(originals: Sequence[Tokens], corrections: Mapping[str, Sequence[Tokens]],
                     lm: LanguageModel, errorful: Sequence[bool],
                     config: EvalConfig | None = None,
                     meaning_fn: object | None = None,
                     references: Sequence[Sequence[Tokens]] | None = None,
                     meaning_label: str = "custom") -> RttEvaluation:
    """Judge every method's corrections against the originals.

    ``errorful[i]`` says whether sentence ``i`` needs correcting (e.g. no reference equals the
    source). ``meaning_fn(original, correction) -> bool`` overrides the token-overlap check.
    ``references`` (``[reference][sentence]``) are needed by ``grammar_proxy="reference"``.
    """
    cfg = config or EvalConfig()
    n = len(originals)
    for m, corr in corrections.items():
        if len(corr) != n:
            raise ConfigError(f"method {m}: {len(corr)} corrections for {n} sentences")
    if len(errorful) != n:
        raise ConfigError(f"errorful flags: {len(errorful)} for {n} sentences")
    if cfg.grammar_proxy == "reference" and (not references
                                             or any(len(r) != n for r in references)):
        raise ConfigError("grammar_proxy='reference' needs references, one per sentence")

    def judge(i: int, o: Tokens, c: Tokens) -> str:
        if cfg.grammar_proxy == "reference":
            return reference_grammaticality(o, c, [r[i] for r in references or ()])
        return grammaticality(o, c, lm, cfg.delta)

    def keeps_meaning(o: Tokens, c: Tokens) -> bool:
        if meaning_fn is not None:
            return bool(meaning_fn(o, c))  # type: ignore[operator]
        return token_overlap_f1(o, c) >= cfg.faithfulness_threshold

    err: dict[str, MethodResult] = {m: MethodResult() for m in corrections}
    gram: dict[str, MethodResult] = {m: MethodResult() for m in corrections}
    oracle = MethodResult()
    rank = {SUCCESS: 2, DRAW: 1, FAILURE: 0}
    for i, o in enumerate(originals):
        best = FAILURE
        for m, corr in corrections.items():
            c = corr[i]
            res = outcome(judge(i, o, c), keeps_meaning(o, c), errorful[i])
            target = err[m] if errorful[i] else gram[m]
            target.counts[res] += 1
            target.outcomes.append(res)
            target.changed += [w.lower() for w in c] != [w.lower() for w in o]
            if rank[res] > rank[best]:
                best = res
        if errorful[i]:
            best = best if best == SUCCESS else DRAW  # the oracle falls back to the original
            oracle.counts[best] += 1
            oracle.outcomes.append(best)
    err["oracle"] = oracle
    return RttEvaluation(err, gram, sum(errorful), n - sum(errorful),
                         "token-overlap F1" if meaning_fn is None else meaning_label, cfg)

"""N-gram language models behind one interface: ARPA files (own reader) and the CMU English
trigram model shipped in the ``pocketsphinx`` wheel (the offline default).

Scores are log10 probabilities. Before scoring, surface tokens are mapped to the model's
vocabulary (:meth:`LanguageModel.lm_tokens`): lower-cased, clitics spelled out token by token (``n't`` ->
``not``, ``'re`` -> ``are``...; one token at a time so the lattice search can score node by
node) and tokens without a letter or digit dropped (the CMU model has no punctuation). A word the model does not know costs ``oov_log10``.
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

from gecscope._optional import require
from gecscope.errors import ConfigError, FormatError

BOS = "<s>"
EOS = "</s>"
_CLITICS = {"n't": "not", "'re": "are", "'ve": "have", "'ll": "will", "'d": "would", "'m": "am"}
DEFAULT_OOV_LOG10 = -7.0


class LanguageModel(ABC):
    """An n-gram model: ``log10_prob(word, history)`` with history oldest-first."""

    order: int = 3
    oov_log10: float = DEFAULT_OOV_LOG10
    name: str = "lm"

    @abstractmethod
    def log10_prob(self, word: str, history: Sequence[str]) -> float:
        """log10 P(word | history), backing off as the model defines; history oldest-first."""

    def lm_tokens(self, tokens: Sequence[str]) -> list[str]:
        """Map surface tokens to the model's vocabulary (see the module docstring)."""
        out: list[str] = []
        for tok in tokens:
            t = tok.lower()
            t = _CLITICS.get(t, t)
            if any(ch.isalnum() for ch in t):
                out.append(t)
        return out

    def state(self, history: Sequence[str]) -> tuple[str, ...]:
        """The part of the history the model can use (its last ``order - 1`` words)."""
        k = self.order - 1
        return tuple(history[-k:]) if k > 0 else ()

    def score(self, tokens: Sequence[str]) -> float:
        """Total log10 probability of a sentence, with ``<s>`` and ``</s>``."""
        hist: tuple[str, ...] = (BOS,)
        total = 0.0
        for w in self.lm_tokens(tokens):
            total += self.log10_prob(w, hist)
            hist = self.state(hist + (w,))
        return total + self.log10_prob(EOS, hist)

    def score_per_word(self, tokens: Sequence[str]) -> float:
        """:meth:`score` divided by the number of predicted tokens (words plus ``</s>``)."""
        return self.score(tokens) / (len(self.lm_tokens(tokens)) + 1)


class ArpaLM(LanguageModel):
    """A back-off n-gram model read from an ARPA file (e.g. one built with KenLM's lmplz)."""

    def __init__(self, path: str | os.PathLike[str], oov_log10: float = DEFAULT_OOV_LOG10):
        self.path = Path(path)
        self.name = f"arpa:{self.path}"
        self.oov_log10 = oov_log10
        self.prob: dict[tuple[str, ...], float] = {}
        self.backoff: dict[tuple[str, ...], float] = {}
        self._read()

    def _read(self) -> None:
        import gzip

        opener = gzip.open if self.path.suffix == ".gz" else open
        try:
            fh = opener(self.path, "rt", encoding="utf-8")  # type: ignore[operator]
        except FileNotFoundError:
            raise FormatError("ARPA language model not found", self.path) from None
        counts: dict[int, int] = {}
        section = None
        order = 0
        with fh:
            for no, raw in enumerate(fh, 1):
                line = raw.strip()
                if not line:
                    continue
                if line == "\\data\\":
                    section = "data"
                    continue
                if line == "\\end\\":
                    break
                if line.startswith("\\") and line.endswith("-grams:"):
                    try:
                        order = int(line[1:].split("-")[0])
                    except ValueError:
                        raise FormatError(f"bad section header {line!r}", self.path, no) from None
                    section = "grams"
                    continue
                if section == "data":
                    if line.startswith("ngram "):
                        k, _, v = line[6:].partition("=")
                        counts[int(k)] = int(v)
                    continue
                if section != "grams":
                    continue
                f = line.split()
                if len(f) < order + 1:
                    raise FormatError(f"expected a log10 probability and {order} words",
                                      self.path, no)
                try:
                    p = float(f[0])
                    words = tuple(f[1:order + 1])
                    if len(f) > order + 1:
                        self.backoff[words] = float(f[order + 1])
                except ValueError:
                    raise FormatError("expected numbers in an ARPA n-gram line",
                                      self.path, no) from None
                self.prob[words] = p
        if not counts or not self.prob:
            raise FormatError("not an ARPA file (no \\data\\ section or no n-grams)", self.path)
        self.order = max(counts)

    def log10_prob(self, word: str, history: Sequence[str]) -> float:
        hist = tuple(history[-(self.order - 1):]) if self.order > 1 else ()
        penalty = 0.0
        while True:
            p = self.prob.get(hist + (word,))
            if p is not None:
                return penalty + p
            if not hist:
                return penalty + self.oov_log10
            penalty += self.backoff.get(hist, 0.0)
            hist = hist[1:]


class PocketSphinxLM(LanguageModel):
    """The CMU US English trigram model (``en-us.lm.bin``) shipped in the pocketsphinx wheel."""

    _LOGZERO = -5e8

    def __init__(self, path: str | os.PathLike[str] | None = None,
                 oov_log10: float = DEFAULT_OOV_LOG10):
        ps = require("pocketsphinx", "rtt", "the default round-trip language model")
        if path is None:
            path = os.path.join(ps.get_model_path(), "en-us", "en-us.lm.bin")
        if not os.path.isfile(path):
            raise FormatError("pocketsphinx language model not found", path)
        self.path = str(path)
        self.name = "pocketsphinx:en-us"
        self.oov_log10 = oov_log10
        self._lm = ps.NGramModel.readfile(self.path)
        self.order = int(self._lm.size())
        self._to_log10 = math.log10(1.0001)  # pocketsphinx's LogMath base
        self._cache: dict[tuple[str, ...], float] = {}

    def log10_prob(self, word: str, history: Sequence[str]) -> float:
        key = (*history[-(self.order - 1):], word)
        p = self._cache.get(key)
        if p is None:
            raw = self._lm.prob(list(reversed(key)))  # pocketsphinx wants the newest word first
            p = self.oov_log10 if raw <= self._LOGZERO else raw * self._to_log10
            if len(self._cache) < 2_000_000:
                self._cache[key] = p
        return p


def load_lm(spec: str | None = None, oov_log10: float = DEFAULT_OOV_LOG10) -> LanguageModel:
    """``None``/``"pocketsphinx"`` -> the CMU model; anything else is an ARPA file path
    (``arpa:PATH`` also accepted; ``.gz`` files are read compressed)."""
    if spec in (None, "", "pocketsphinx", "cmu"):
        return PocketSphinxLM(oov_log10=oov_log10)
    if spec.startswith("pocketsphinx:"):
        return PocketSphinxLM(spec.split(":", 1)[1], oov_log10=oov_log10)
    path = os.path.expanduser(spec.removeprefix("arpa:"))
    if not os.path.exists(path):
        raise ConfigError(f"language model {spec!r}: no such file (give an ARPA file, or "
                          "'pocketsphinx' for the CMU model in the pocketsphinx wheel)")
    return ArpaLM(path, oov_log10=oov_log10)

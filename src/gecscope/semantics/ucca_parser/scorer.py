"""Inference of the span scorer (:class:`~.model.SpanScorer`) in numpy.

Training needs torch (:mod:`.model`); parsing does not: this is the same computation in
evaluation mode (no dropout) over the saved weights, a BiLSTM over token features and an MLP over
fence-post differences, in float32. Parsing thus starts without importing torch (issue #20).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gecscope.semantics.ucca_parser.encoder import layer_norm


class NumpySpanScorer:
    """Label log-probabilities of every span of a sentence, from a :class:`SpanScorer`'s weights.

    ``state`` maps the torch parameter names (``proj.weight``, ``lstm.weight_ih_l0``, ...) to
    arrays; ``config`` is the scorer's configuration (``empty_bias`` is read from it).
    """

    def __init__(self, state: Mapping[str, Any], config: Mapping[str, Any]) -> None:
        import numpy as np

        self.w = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in state.items()}
        self.empty_bias = np.float32(config.get("empty_bias", 0.0))
        self.layers = 1 + max(int(k.split("_l")[1].split("_")[0])
                              for k in self.w if k.startswith("lstm.weight_ih_l"))
        # the MLP: Linear, LayerNorm, ReLU, Dropout, Linear (indices 0, 1, 4)
        self.hidden = self.w["lstm.weight_hh_l0"].shape[1]

    # --- token states --------------------------------------------------------------------
    def _inputs(self, batch: Mapping[str, Any]) -> Any:
        import numpy as np

        w = self.w
        mix = np.exp(w["mix"] - w["mix"].max())
        mix /= mix.sum()
        vec = (batch["vectors"] * mix[None, None, :, None]).sum(2)
        return np.concatenate([vec @ w["proj.weight"].T + w["proj.bias"],
                               w["tag.weight"][batch["tag"]], w["dep.weight"][batch["dep"]],
                               w["dist.weight"][batch["dist"]], w["ent.weight"][batch["ent"]],
                               w["punct.weight"][batch["punct"]]], axis=-1).astype(np.float32)

    def _direction(self, x: Any, lengths: Any, suffix: str) -> Any:
        """One LSTM direction over a padded batch; the backward one reads each sentence from
        its own last token (as torch's packed sequences do)."""
        import numpy as np

        w = self.w
        b, t, _ = x.shape
        reverse = suffix.endswith("_reverse")
        if reverse:  # reverse each sentence within its length; padding stays at the end
            pos = np.arange(t)[None, :]
            idx = np.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)
            x = np.take_along_axis(x, idx[:, :, None], axis=1)
        gates_in = x @ w["lstm.weight_ih_" + suffix].T + (w["lstm.bias_ih_" + suffix]
                                                          + w["lstm.bias_hh_" + suffix])
        w_hh = w["lstm.weight_hh_" + suffix].T
        hdim = self.hidden
        from scipy.special import expit

        h = np.zeros((b, hdim), dtype=np.float32)
        c = np.zeros((b, hdim), dtype=np.float32)
        out = np.zeros((b, t, hdim), dtype=np.float32)
        for step in range(t):
            # g = gates_in[:, step] + h @ w_hh (gates i, f, g, o: torch's order) and
            # c = f * c + i * tanh(g), computed in place: the same operations on the same
            # values (one rounding each), without the temporaries
            g = h @ w_hh
            g += gates_in[:, step]
            s = expit(g)  # one call for the three sigmoid gates (and the unused g part)
            c *= s[:, hdim:2 * hdim]
            c += s[:, :hdim] * np.tanh(g[:, 2 * hdim:3 * hdim])
            h = s[:, 3 * hdim:] * np.tanh(c)
            out[:, step] = h
        if reverse:
            out = np.take_along_axis(out, idx[:, :, None], axis=1)
        out[np.arange(t)[None, :] >= lengths[:, None]] = 0.0
        return out

    def token_states(self, batch: Mapping[str, Any]) -> Any:
        """BiLSTM states (B, n, 2*hidden) of a padded batch (see :func:`pad_arrays`)."""
        import numpy as np

        x = self._inputs(batch)
        lengths = batch["lengths"]
        for layer in range(self.layers):
            x = np.concatenate([self._direction(x, lengths, f"l{layer}"),
                                self._direction(x, lengths, f"l{layer}_reverse")], axis=-1)
        return x

    # --- spans ---------------------------------------------------------------------------
    def span_logprobs(self, states: Any, n: int) -> Any:
        """Log-probabilities (n+1, n+1, labels) of one sentence's spans (i < j filled in)."""
        import numpy as np

        w = self.w
        h = states[:n]
        half = h.shape[-1] // 2
        fw = np.concatenate([w["start"][None, :half], h[:, :half]], 0)
        bw = np.concatenate([h[:, half:], w["end"][None, half:]], 0)
        first = w["mlp.0.weight"]
        pf = fw @ first[:, :half].T
        pb = bw @ first[:, half:].T
        i, j = np.triu_indices(n + 1, k=1)
        hidden = (pf[j] - pf[i]) + (pb[i] - pb[j]) + w["mlp.0.bias"]
        hidden = layer_norm(hidden, w["mlp.1.weight"], w["mlp.1.bias"], 1e-5)  # torch's default
        hidden = np.maximum(hidden, 0)
        flat = hidden @ w["mlp.4.weight"].T + w["mlp.4.bias"]
        if self.empty_bias:
            flat[:, 0] += self.empty_bias
        flat = flat - flat.max(-1, keepdims=True)
        flat = flat - np.log(np.exp(flat).sum(-1, keepdims=True))
        out = np.zeros((n + 1, n + 1, flat.shape[-1]), dtype=np.float32)
        out[i, j] = flat
        return out


def pad_arrays(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Stack per-sentence feature arrays into a padded numpy batch (with ``lengths``)."""
    import numpy as np

    n = max(len(it["tag"]) for it in items)
    b = len(items)
    layers, hidden = items[0]["vectors"].shape[1:]
    vectors = np.zeros((b, n, layers, hidden), dtype=np.float32)
    ids = {k: np.zeros((b, n), dtype=np.int64) for k in ("tag", "dep", "dist", "ent", "punct")}
    for r, it in enumerate(items):
        m = len(it["tag"])
        vectors[r, :m] = it["vectors"]
        for k, arr in ids.items():
            arr[r, :m] = it[k]
    return {"vectors": vectors, "lengths": np.array([len(it["tag"]) for it in items]), **ids}

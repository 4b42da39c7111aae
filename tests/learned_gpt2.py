"""A tiny, randomly initialised GPT-2 checkpoint built offline, for the Scribendi tests.

Scribendi needs a causal language model; the tests must not download one, and gecscope must
agree with gec-metrics whatever the model is. So a test builds its own: a byte-level BPE
tokenizer trained with the ``tokenizers`` package on the test's sentences (byte-level, so any
text can be encoded), wrapped as transformers' ``GPT2Tokenizer`` (``<|endoftext|>`` as BOS,
EOS and unknown token, as in GPT-2), and a ``GPT2LMHeadModel`` with tiny sizes and weights
drawn from a fixed torch seed, written with ``save_pretrained`` into a directory both gecscope
and gec-metrics load. The weights are initialised with a larger spread than GPT-2's (0.02), so
the random model's perplexities differ clearly between sentences.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

BOS = "<|endoftext|>"


def build_tiny_gpt2(path: Path, texts: Sequence[str], *, seed: int = 0, vocab_size: int = 400,
                    n_embd: int = 32, n_layer: int = 2, n_head: int = 2,
                    n_positions: int = 1024, initializer_range: float = 0.3) -> Path:
    """Write a tiny random GPT-2 (tokenizer trained on ``texts``) into ``path``; returns it."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # save_pretrained's "Writing model shards" bar
    path.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(list(texts), vocab_size=vocab_size, min_frequency=2,
                            special_tokens=[BOS], show_progress=False)
    raw = path / "bpe"
    raw.mkdir(exist_ok=True)
    bpe.save_model(str(raw))
    vocab = json.loads((raw / "vocab.json").read_text(encoding="utf-8"))
    merges = [tuple(line.split(" ")) for line in
              (raw / "merges.txt").read_text(encoding="utf-8").splitlines()
              if line and not line.startswith("#")]
    # merges as pairs: accepted at run time, narrower in the type hints
    tokenizer = GPT2Tokenizer(vocab=vocab, merges=merges)  # type: ignore[arg-type]
    tokenizer.save_pretrained(str(path))
    for f in raw.iterdir():
        f.unlink()
    raw.rmdir()

    config = GPT2Config(vocab_size=len(tokenizer), n_positions=n_positions, n_embd=n_embd,
                        n_layer=n_layer, n_head=n_head, initializer_range=initializer_range,
                        bos_token_id=tokenizer.bos_token_id,
                        eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(seed)
    GPT2LMHeadModel(config).save_pretrained(str(path))
    return path

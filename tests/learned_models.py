"""Tiny randomly initialised Hugging Face checkpoints for testing the learned metrics.

Official checkpoints (SOME's gfm-models, IMPARA-QE, bert-base-cased) cannot be downloaded
here, so the tests build small BERT models with a fixed seed, save them with
``save_pretrained`` into a temporary directory, and let gecscope and the reference tool load
the same directories. The WordPiece vocabulary is built from the test sentences (their words,
lower-cased, plus every character alone and as a ``##`` continuation), so every test
sentence tokenises into real word pieces and nothing needs a download.

Test modules share one set of checkpoints per session: :func:`session_checkpoints` builds
SOME's three and IMPARA's two models once per process (over the vocabulary of
:func:`session_text`: the demo texts and, when the shared data is there, a CoNLL-2014 sample)
and hands every later caller the same directories.

The same pattern (a seed, a small config, ``save_pretrained``, a tokenizer written beside it)
serves other model families; see ``build_bert`` for the shape.
"""

from __future__ import annotations

import string
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

DEMO = Path(__file__).resolve().parents[1] / "src" / "gecscope" / "data" / "demo"
#: CoNLL-2014 lines (sources and AMU's corrections) that the tests score and the vocabulary covers
N_CONLL = 50

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_vocab(sentences: Iterable[str], max_words: int = 2000) -> list[str]:
    """A WordPiece vocabulary: special tokens, the most frequent lower-cased words of
    ``sentences`` (split like BERT's basic tokenizer: spaces and punctuation), and every ASCII
    printable character alone and as ``##c``."""
    words: Counter[str] = Counter()
    for s in sentences:
        word = ""
        for ch in s.lower():
            if ch.isspace() or ch in string.punctuation:
                if word:
                    words[word] += 1
                word = ""
            else:
                word += ch
        if word:
            words[word] += 1
    chars = sorted(set(string.printable.lower()) - set(string.whitespace))
    vocab = list(SPECIAL)
    seen = set(vocab)
    for tok in [*chars, *("##" + c for c in chars), *(w for w, _ in words.most_common(max_words))]:
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    return vocab


def write_tokenizer(path: Path, vocab: list[str]) -> Any:
    """A lower-casing BERT WordPiece tokenizer over ``vocab``, saved into ``path``."""
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]  # lazy export

    path.mkdir(parents=True, exist_ok=True)
    vocab_file = path / "vocab.txt"
    vocab_file.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # from a directory holding only vocab.txt: works with transformers 4 and 5 alike
    tok = BertTokenizerFast.from_pretrained(str(path), do_lower_case=True)
    tok.save_pretrained(str(path))
    return tok


def build_bert(path: Path, vocab: list[str], seed: int, kind: str = "classifier",
               init_range: float = 0.2, num_labels: int = 1) -> Path:
    """Save a tiny BERT (hidden 32, 2 layers, 2 heads) with its tokenizer into ``path``.

    ``kind``: ``classifier`` (sequence classification with ``num_labels`` outputs; 1 is a
    regressor, as SOME's and IMPARA's quality models) or ``encoder`` (the bare model, IMPARA's
    similarity encoder).
    A larger ``init_range`` than BERT's 0.02 spreads the random outputs, so the scores of
    different sentences differ visibly.
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # save_pretrained's "Writing model shards" bar
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=256,
                        num_labels=num_labels,  # type: ignore[call-arg]  # a **kwargs field
                        initializer_range=init_range)
    model: Any
    if kind == "classifier":
        model = BertForSequenceClassification(config)
    elif kind == "encoder":
        model = BertModel(config)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    model.eval()
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(path))
    write_tokenizer(path, vocab)
    return path


def build_some_models(root: Path, sentences: Iterable[str], seed: int = 0) -> dict[str, str]:
    """Three tiny regressors for SOME: ``{"model_g": dir, "model_f": dir, "model_m": dir}``."""
    vocab = build_vocab(sentences)
    return {name: str(build_bert(root / name, vocab, seed + k))
            for k, name in enumerate(("model_g", "model_f", "model_m"))}


def build_impara_models(root: Path, sentences: Iterable[str], seed: int = 10) -> dict[str, str]:
    """A tiny quality estimator and similarity encoder for IMPARA:
    ``{"model_qe": dir, "model_se": dir}``."""
    vocab = build_vocab(sentences)
    return {"model_qe": str(build_bert(root / "model_qe", vocab, seed)),
            "model_se": str(build_bert(root / "model_se", vocab, seed + 1, kind="encoder"))}


def split_threshold(sims: Sequence[float]) -> float:
    """An IMPARA threshold between two neighbouring similarities near the middle, far
    (> 1e-4) from both, so float noise between implementations cannot move a sentence across
    it (random encoders give similarities near 1, where the default 0.9 gates nothing)."""
    values = sorted(set(sims))
    mid = len(values) // 2
    for k in sorted(range(1, len(values)), key=lambda k: abs(k - mid)):
        if values[k] - values[k - 1] > 2e-4:
            return (values[k] + values[k - 1]) / 2
    raise ValueError("no usable gap between the similarities")


def conll_sample(request: pytest.FixtureRequest) -> tuple[list[str], list[str]] | None:
    """The first :data:`N_CONLL` CoNLL-2014 sources and AMU's corrections (raw lines), or
    None when the shared data is absent."""
    try:
        conll14: Path = request.getfixturevalue("conll14")
    except pytest.skip.Exception:
        return None
    sub = conll14 / "submissions"
    src = (sub / "INPUT").read_text(encoding="utf-8").splitlines()[:N_CONLL]
    hyp = (sub / "AMU").read_text(encoding="utf-8").splitlines()[:N_CONLL]
    return src, hyp


def session_text(request: pytest.FixtureRequest) -> list[str]:
    """The sentences the session's vocabulary is built from: the demo texts, plus the CoNLL
    sample when the data is there (the same in every module, so the models are shared)."""
    text = [line for f in sorted(DEMO.glob("*.txt"))
            for line in f.read_text(encoding="utf-8").splitlines()]
    sample = conll_sample(request)
    if sample is not None:
        text += sample[0] + sample[1]
    return text


#: Checkpoints built in this process, by vocabulary, and the temporary directories holding
#: them (removed when the process exits).
_BUILT: dict[tuple[str, ...], dict[str, str]] = {}
_ROOTS: list[tempfile.TemporaryDirectory[str]] = []


def session_checkpoints(sentences: Sequence[str]) -> dict[str, str]:
    """SOME's and IMPARA's tiny checkpoints (``model_g``, ``model_f``, ``model_m``,
    ``model_qe``, ``model_se``) over the vocabulary of ``sentences``, built once per process:
    later calls with the same vocabulary get the same directories (treat them as read-only)."""
    key = tuple(build_vocab(sentences))
    if key not in _BUILT:
        tmp = tempfile.TemporaryDirectory(prefix="gecscope-learned-")
        _ROOTS.append(tmp)
        root = Path(tmp.name)
        _BUILT[key] = {**build_some_models(root, sentences),
                       **build_impara_models(root, sentences)}
    return dict(_BUILT[key])

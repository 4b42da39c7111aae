"""BERTScore (Zhang et al. 2020) with a local Hugging Face encoder, computed as bert-score 0.3.13.

Each sentence is encoded once (``[CLS] tokens [SEP]``, truncated to the model's maximum
length) and the hidden state of one layer is taken per token, L2-normalised. For a candidate
``c`` and a reference ``r``, every candidate token is matched to its most similar reference
token (cosine), and the other way round:

* P = mean over the candidate's tokens of their best similarity in the reference,
* R = mean over the reference's tokens of their best similarity in the candidate,
* F = 2PR / (P + R) (0 when P + R = 0).

As in bert-score without idf, the special tokens weigh nothing in the means (their idf weight
is 0) but can still be the best match of a word on the other side. A sentence with no token
besides the special ones (empty) scores P = R = F = 0. Rescaling with a baseline ``b`` (one
value per component, measured by the bert-score authors on Common Crawl sentence pairs per
model and layer) maps ``x`` to ``(x - b) / (1 - b)``.

The layer is bert-score's choice for the models it knows (``bert-base-uncased``: 9), the
last layer otherwise. Baselines: :data:`BASELINES` holds bert-score 0.3.13's table for
``bert-base-uncased`` (``bert_score/rescale_baseline/en/bert-base-uncased.tsv``, MIT licence);
any other baseline can be given as a file in bert-score's format (``LAYER,P,R,F`` rows).
bert-score itself is not needed. Embeddings are computed in batches of equal-length sentences
(no padding) of a fixed size, so a sentence's embedding does not depend on which others share
its batch (:meth:`Encoder.embed`), and two texts with the same tokens (e.g. differing only in
case, for an uncased model) get the same scores exactly. That makes the caches of
:class:`Encoder` (shared by every scorer of a process) exact. A BERT encoder's forward is run
as transformers' operations called directly (:meth:`Encoder.hidden`, the same bits, checked
at the first encode), ~10% less CPU per sentence than through its modules.

CLEME2.0's similarity weighting (:class:`gecscope.metrics.cleme.weights.BERTScoreF1`) is a
different variant: it drops the special tokens from the matching altogether and pads its
batches. The two are kept apart because each is checked against its own reference tool
(bert-score for PT-ERRANT here, CLEME's code there); merging them would move one set of
numbers.

Needs the ``sim`` extra (torch, transformers; all-MiniLM-L6-v2 as the default encoder).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gecscope.errors import ConfigError

#: bert-score 0.3.13's default layer (``model2layers``) for the English models people use.
DEFAULT_LAYERS: dict[str, int] = {
    "bert-base-uncased": 9, "bert-large-uncased": 18, "roberta-base": 10, "roberta-large": 17,
    "distilbert-base-uncased": 5, "distilroberta-base": 5, "xlnet-base-cased": 5,
    "microsoft/deberta-base": 9, "microsoft/deberta-large": 16,
    "microsoft/deberta-xlarge-mnli": 40,
}

#: Rescaling baselines (P, R, F) per layer, from bert-score 0.3.13
#: ``bert_score/rescale_baseline/en/<model>.tsv`` (MIT licence), row = layer.
BASELINES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "bert-base-uncased": (
        (0.3231512, 0.32322776, 0.31853873), (0.32517454, 0.32522815, 0.32197207),
        (0.3708038, 0.37080705, 0.36834884), (0.36287847, 0.36286885, 0.36059204),
        (0.3786389, 0.37860426, 0.3767926), (0.4018232, 0.401791, 0.40032896),
        (0.38439456, 0.38434005, 0.38282546), (0.37114623, 0.3710986, 0.36949417),
        (0.37231025, 0.37226102, 0.37049443), (0.35375935, 0.3537393, 0.35219112),
        (0.38161838, 0.3816211, 0.37991408), (0.4421448, 0.4421776, 0.44040316),
        (0.40192786, 0.40191513, 0.40038353),
    ),
}

DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: Most tokenised texts an :class:`Encoder` keeps (about 1 KB each with the dict overhead:
#: ~200 MB), whatever ``max_cached_pairs``; the cache is cleared when full.
MAX_CACHED_TEXTS = 200_000
COMPONENTS = {"p": 0, "r": 1, "f": 2}
Score3 = tuple[float, float, float]
TokenIds = tuple[int, ...]


def known_model_name(model: str) -> str | None:
    """The Hub name of a local model directory when its path tells it: the directory's name
    (``.../bert-base-uncased``) or a Hub cache folder (``.../models--bert-base-uncased/...``,
    ``models--google-bert--bert-base-uncased``). ``None`` for an unknown model."""
    known = set(DEFAULT_LAYERS) | set(BASELINES)
    parts = Path(os.path.normpath(model)).parts
    for part in reversed(parts):
        name = part
        if name.startswith("models--"):
            name = name[len("models--"):].replace("--", "/")
        for cand in (name, name.split("/", 1)[-1], f"microsoft/{name}"):
            if cand in known:
                return cand
    return None


def read_baseline(path: str, layer: int) -> Score3:
    """The (P, R, F) baseline of ``layer`` from a bert-score baseline file (CSV with a
    ``LAYER,P,R,F`` header, one row per layer from 0)."""
    try:
        lines = [ln.strip() for ln in Path(path).read_text(encoding="utf-8").splitlines()
                 if ln.strip()]
    except OSError as exc:
        raise ConfigError(f"cannot read the BERTScore baseline file {path!r}: {exc}") from None
    rows = lines[1:]
    if not lines or not lines[0].upper().startswith("LAYER") or layer >= len(rows):
        raise ConfigError(f"{path}: expected a bert-score baseline file (header LAYER,P,R,F and "
                          f"one row per layer) with a row for layer {layer}")
    cells = rows[layer].split(",")
    try:
        p, r, f = (float(c) for c in cells[1:4])
    except ValueError:
        raise ConfigError(f"{path}: row {layer + 2} is not LAYER,P,R,F numbers") from None
    return (p, r, f)


def resolve_baseline(spec: str, name: str | None, layer: int) -> tuple[Score3 | None, str]:
    """The baseline a ``baseline`` option selects and a label for the signature.

    ``none``: no rescaling. ``auto``: the stored baseline of a recognised model (``name``), else
    none. A stored model name (``bert-base-uncased``) uses that model's table; anything else
    is read as a bert-score baseline file."""
    if spec == "none":
        return None, "none"
    if spec == "auto":
        if name is not None and name in BASELINES:
            table = BASELINES[name]
            if layer < len(table):
                return table[layer], f"{name} layer {layer} (bert-score 0.3.13)"
        return None, "none (no baseline known for this encoder)"
    if spec in BASELINES:
        table = BASELINES[spec]
        if layer >= len(table):
            raise ConfigError(f"baseline {spec!r} has layers 0..{len(table) - 1}, not {layer}")
        return table[layer], f"{spec} layer {layer} (bert-score 0.3.13)"
    return read_baseline(spec, layer), f"{spec} layer {layer}"


def _default_model_path() -> str:
    from gecscope.metrics.cleme.weights import default_model_path

    return default_model_path()


def _fingerprint(path: str) -> tuple[tuple[str, int, int], ...]:
    """Name, size and modification time of the files of a model directory: a model replaced
    at the same path gets a new :class:`Encoder`, never the old one's cached embeddings."""
    try:
        entries = sorted((e for e in os.scandir(path) if e.is_file()), key=lambda e: e.name)
        return tuple((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in entries)
    except OSError:
        return ()


class Encoder:
    """A loaded encoder (tokenizer and model cut at the layer used) with the caches of what
    depends on nothing else: token ids per text, embeddings of reference texts, and the raw
    (not rescaled) P, R, F of each pair of token ids.

    One per process for each model directory (and its files), layer, device and cache limits
    (:func:`encoder`; the embedding and pair caches are keyed by the torch thread count too,
    see :meth:`raw_scores`), shared by every :class:`BERTScorer` on it: PT-ERRANT and PT-M2, every
    system of a benchmark, GJG15 and SEEDA (the same CoNLL-2014 references), the MAEGE
    lattice. Caching is exact: embeddings are computed in equal-length batches without padding,
    so an embedding does not depend on its batch, and a pair's P, R, F depend only on the two
    embeddings. Only the reference side's embeddings are kept across calls (a candidate recurs
    with the pair cache instead: the same edit of the same sentence against the same
    reference); each cache is cleared when it would exceed its limit.
    """

    def __init__(self, path: str, layer: int | None, device: str, *, batch_size: int,
                 max_cached_pairs: int, max_cached_bytes: int) -> None:
        from gecscope._optional import require

        self.torch = require("torch", "sim", "BERTScore")
        transformers = require("transformers", "sim", "BERTScore")
        self.path = path
        from gecscope._hf import offline

        with offline(transformers, self.path):
            try:
                # bert-score loads the slow (Python) tokenizer; transformers 5 has only one kind
                self.tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, use_fast=False)
                self.model = transformers.AutoModel.from_pretrained(self.path)
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"cannot load the BERTScore encoder {self.path!r}: {exc}. Give a local Hugging "
                    "Face model directory with -o model=PATH (nothing is downloaded), or leave it "
                    "empty for the bundled all-MiniLM-L6-v2") from None
        self.model.eval()
        n_layers = int(getattr(self.model.config, "num_hidden_layers", 0) or 0)
        self.known = known_model_name(self.path)
        self.layer = layer if layer is not None else DEFAULT_LAYERS.get(self.known or "", n_layers)
        if n_layers and not 0 <= self.layer <= n_layers:
            raise ConfigError(f"layer={self.layer} is out of range: the encoder has {n_layers} "
                              f"layers (0 = embeddings .. {n_layers})")
        self._truncate(n_layers)
        self.device = device
        self.model.to(device)
        self.batch_size = batch_size
        limit = getattr(self.tokenizer, "model_max_length", None) or 512
        if limit > 100_000:  # tokenizers without a configured limit say 1e30
            limit = int(getattr(self.model.config, "max_position_embeddings", 512))
        self.max_length = int(limit)
        self._prefix_space = type(self.tokenizer).__name__.startswith(("Roberta", "GPT2"))
        self.special = {i for i in (self.tokenizer.cls_token_id, self.tokenizer.sep_token_id)
                        if i is not None}
        self.max_cached_pairs = max_cached_pairs
        self.max_cached_bytes = max_cached_bytes
        self.ids: dict[str, TokenIds] = {}
        #: by (torch threads, token ids) and (torch threads, candidate ids, reference ids)
        self.embeddings: dict[tuple[int, TokenIds], Any] = {}
        self.embedded_bytes = 0
        self.raw: dict[tuple[int, TokenIds, TokenIds], Score3] = {}
        #: whether :meth:`hidden` runs BERT's operations directly (decided at the first encode)
        self._direct: bool | None = None

    def _truncate(self, n_layers: int) -> None:
        """Drop the layers above the one used (as bert-score does): same states, less work."""
        encoder = getattr(self.model, "encoder", None)
        layers = getattr(encoder, "layer", None)
        if layers is not None and n_layers and self.layer < len(layers):
            encoder.layer = layers[:self.layer]  # type: ignore[union-attr]

    def clear(self) -> None:
        """Forget every cached tokenisation, embedding and pair score."""
        self.ids.clear()
        self.embeddings.clear()
        self.embedded_bytes = 0
        self.raw.clear()

    # -- encoding -----------------------------------------------------------------------------

    def token_ids(self, sentence: str) -> TokenIds:
        """The ids bert-score encodes: special tokens around the (stripped) sentence."""
        ids = self.ids.get(sentence)
        if ids is None:
            kwargs: dict[str, Any] = {"add_special_tokens": True, "truncation": True,
                                      "max_length": self.max_length}
            if self._prefix_space:
                kwargs["add_prefix_space"] = True
            ids = tuple(int(i) for i in self.tokenizer.encode(sentence.strip(), **kwargs))
            if len(self.ids) >= min(4 * self.max_cached_pairs, MAX_CACHED_TEXTS):
                self.ids.clear()
            self.ids[sentence] = ids
        return ids

    def embed(self, todo: Sequence[TokenIds]) -> dict[TokenIds, Any]:
        """Normalised embeddings of the chosen layer, in batches of equal length (no padding)
        of exactly ``batch_size`` sentences (the last one of a length filled up with repeats
        of its first sentence); the caller sets the torch threads and ``inference_mode``.

        With ``batch_size`` 1 (the default) each sentence is encoded alone, so its embedding
        is a function of that sentence by construction, within one process, torch build and
        thread count: a cached embedding is the one a fresh run computes. A larger batch is
        faster but only fixes the shape: a row's place among the others of the batch can move
        its last bits on some CPUs (the UCCA parser's MiniLM did on an AMD EPYC with MKL,
        issue #42), so a cache or another ``--jobs`` split may then differ in the last bits
        from a fresh run in one process (never seen in a printed figure)."""
        torch = self.torch
        size = self.batch_size
        by_len: dict[int, list[TokenIds]] = {}
        for ids in todo:
            by_len.setdefault(len(ids), []).append(ids)
        out: dict[TokenIds, Any] = {}
        for length in sorted(by_len):
            group = by_len[length]
            for i in range(0, len(group), size):
                real = group[i:i + size]
                x = torch.tensor(real + [real[0]] * (size - len(real)), dtype=torch.long,
                                 device=self.device)
                hidden = self.hidden(x).float()
                hidden = hidden / hidden.norm(dim=-1, keepdim=True)
                for ids, emb in zip(real, hidden.cpu()[:len(real)], strict=True):
                    out[ids] = emb
        return out

    def hidden(self, x: Any) -> Any:
        """The hidden state of the chosen layer for a batch of token ids ``x`` (no padding).

        For a BERT encoder (the default all-MiniLM-L6-v2, bert-base-uncased) this runs the same
        torch operations as transformers' ``BertModel`` (sdpa attention, no mask), on the same
        tensors in the same order, directly (:meth:`_bert_hidden`): transformers' module calls
        around the products were ~10% of an encode of a CoNLL-2014 sentence (measured, one
        thread); the products are the rest, and they must stay as they are to keep the bits.
        The first call checks the result against the model's own forward, bit for bit, and
        keeps the model's forward for this encoder if they differ (another transformers
        version may change its graph)."""
        if self._direct is None:
            self._direct = _direct_bert(self.model)
            if self._direct:
                self._direct = bool(self._bert_hidden(x).cpu().numpy().tobytes()
                                    == self._model_hidden(x).cpu().numpy().tobytes())
        return self._bert_hidden(x) if self._direct else self._model_hidden(x)

    def _model_hidden(self, x: Any) -> Any:
        """The chosen layer's state by the model's own forward."""
        mask = self.torch.ones_like(x)
        states = self.model(x, attention_mask=mask, output_hidden_states=True)
        return states.hidden_states[self.layer]

    def _bert_hidden(self, x: Any) -> Any:
        """``BertModel``'s computation of the chosen layer's state, without its module calls:
        embeddings (word + token type 0 + position, LayerNorm), then per layer self-attention
        (sdpa, no mask), output dense + residual + LayerNorm, intermediate dense + exact GELU,
        output dense + residual + LayerNorm; dropout is the identity in eval mode."""
        fn = self.torch.nn.functional
        emb = self.model.embeddings
        b, t = x.shape
        h = fn.embedding(x, emb.word_embeddings.weight)
        h = h + fn.embedding(self.torch.zeros_like(x), emb.token_type_embeddings.weight)
        h = h + fn.embedding(emb.position_ids[:, :t], emb.position_embeddings.weight)
        ln = emb.LayerNorm
        h = fn.layer_norm(h, ln.normalized_shape, ln.weight, ln.bias, ln.eps)
        for block in self.model.encoder.layer[:self.layer]:
            att = block.attention.self
            heads, size = att.num_attention_heads, att.attention_head_size

            def split(y: Any, heads: int = heads, size: int = size) -> Any:
                return y.view(b, t, heads, size).transpose(1, 2)

            q = split(fn.linear(h, att.query.weight, att.query.bias))
            k = split(fn.linear(h, att.key.weight, att.key.bias))
            v = split(fn.linear(h, att.value.weight, att.value.bias))
            a = fn.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                                scale=att.scaling, is_causal=False)
            a = a.transpose(1, 2).contiguous().reshape(b, t, -1).contiguous()
            out = block.attention.output
            a = fn.linear(a, out.dense.weight, out.dense.bias)
            a = fn.layer_norm(a + h, out.LayerNorm.normalized_shape, out.LayerNorm.weight,
                              out.LayerNorm.bias, out.LayerNorm.eps)
            y = fn.gelu(fn.linear(a, block.intermediate.dense.weight,
                                  block.intermediate.dense.bias))
            out = block.output
            y = fn.linear(y, out.dense.weight, out.dense.bias)
            h = fn.layer_norm(y + a, out.LayerNorm.normalized_shape, out.LayerNorm.weight,
                              out.LayerNorm.bias, out.LayerNorm.eps)
        return h

    def _keep(self, threads: int, embs: dict[TokenIds, Any], keys: Sequence[TokenIds]) -> None:
        """Cache the embeddings of ``keys`` made with ``threads`` torch threads (copies, not
        views of their batch), clearing the cache first when they would not fit under
        ``max_cached_bytes``."""
        new = [k for k in keys if k in embs and (threads, k) not in self.embeddings]
        size = sum(embs[k].numel() * embs[k].element_size() for k in new)
        if self.embedded_bytes + size > self.max_cached_bytes:
            self.embeddings.clear()
            self.embedded_bytes = 0
        if size <= self.max_cached_bytes:
            for k in new:
                self.embeddings[(threads, k)] = embs[k].clone()
            self.embedded_bytes += size

    def weights(self, ids: TokenIds) -> Any:
        """bert-score's idf-free token weights: 1 per token, 0 for [CLS]/[SEP], normalised;
        ``None`` when every token is special (an empty sentence)."""
        torch = self.torch
        if all(i in self.special for i in ids):
            return None
        w = torch.tensor([0.0 if i in self.special else 1.0 for i in ids], dtype=torch.float32)
        return w / w.sum()

    # -- scoring ------------------------------------------------------------------------------

    def raw_scores(self, keyed: Sequence[tuple[TokenIds, TokenIds]],
                   threads: int | None) -> list[Score3]:
        """Not rescaled (P, R, F) of each (candidate ids, reference ids) pair.

        The caches are keyed by the torch thread count actually used (``threads``, or torch's
        own setting for ``None``): the encoder's matrix products round differently with
        another count (measured: 28 of 35 embeddings differ in the last bits between 1 and 2
        threads), so entries made with one count are never served to another."""
        from gecscope._optional import torch_threads

        torch = self.torch
        # inference mode: no autograd bookkeeping (version counters, views' grad state);
        # the same kernels on the same inputs, so the same bits as under no_grad
        with torch_threads(threads), torch.inference_mode():
            n = int(torch.get_num_threads())
            found = {k: self.raw[(n, *k)] for k in dict.fromkeys(keyed) if (n, *k) in self.raw}
            missing = [k for k in dict.fromkeys(keyed) if k not in found]
            if not missing:
                return [found[k] for k in keyed]
            refs = list(dict.fromkeys(r for _, r in missing))
            new: dict[tuple[TokenIds, TokenIds], Score3] = {}
            needed = dict.fromkeys(i for k in missing for i in k)
            embs = {i: self.embeddings[(n, i)] for i in needed if (n, i) in self.embeddings}
            embs.update(self.embed([i for i in needed if i not in embs]))
            self._keep(n, embs, refs)  # may clear the cache: look up in embs only from here
            weights: dict[TokenIds, Any] = {}
            for cand, ref in missing:
                for ids in (cand, ref):
                    if ids not in weights:
                        weights[ids] = self.weights(ids)
                wc, wr = weights[cand], weights[ref]
                if wc is None or wr is None:
                    new[(cand, ref)] = (0.0, 0.0, 0.0)  # an empty side: bert-score's zero
                    continue
                new[(cand, ref)] = self._greedy(embs[cand], embs[ref], wc, wr)
        if len(self.raw) + len(new) > self.max_cached_pairs:
            self.raw.clear()  # may drop entries in ``found``: answer from the local dicts only
        if len(new) <= self.max_cached_pairs:
            self.raw.update(((n, *k), v) for k, v in new.items())
        return [new[k] if k in new else found[k] for k in keyed]

    def _greedy(self, ec: Any, er: Any, wc: Any, wr: Any) -> Score3:
        torch = self.torch
        sim = ec @ er.T
        p = (sim.max(dim=1).values * wc).sum()
        r = (sim.max(dim=0).values * wr).sum()
        f = 2 * p * r / (p + r)
        if bool(torch.isnan(f)):
            f = torch.tensor(0.0)
        pv, rv, fv = (float(v) for v in torch.stack([p, r, f]).float().tolist())
        return (pv, rv, fv)


def _direct_bert(model: Any) -> bool:
    """Whether :meth:`Encoder._bert_hidden` computes what ``model`` does: a transformers
    ``BertModel`` encoder in eval mode with sdpa attention, exact GELU, absolute positions and
    no feed-forward chunking (anything else keeps the model's own forward)."""
    config = getattr(model, "config", None)
    encoder = getattr(model, "encoder", None)
    return (type(model).__name__ == "BertModel" and config is not None and not model.training
            and getattr(config, "_attn_implementation", "") == "sdpa"
            and getattr(config, "hidden_act", "") == "gelu"
            and getattr(config, "position_embedding_type", "absolute") == "absolute"
            and not getattr(config, "is_decoder", False)
            and not getattr(config, "add_cross_attention", False)
            and not getattr(config, "chunk_size_feed_forward", 0)
            and hasattr(getattr(model, "embeddings", None), "position_ids")
            and encoder is not None and all(
                type(getattr(block, "intermediate", None)).__name__ == "BertIntermediate"
                and type(getattr(getattr(block, "attention", None), "self", None)).__name__
                == "BertSelfAttention" for block in encoder.layer))


#: The encoders of this process by (model path, its files, layer, device, cache limits); the
#: oldest is dropped when there are more than :data:`MAX_ENCODERS` (its scorers keep it).
_ENCODERS: dict[tuple[Any, ...], Encoder] = {}
MAX_ENCODERS = 4
#: Every encoder still alive (held by :data:`_ENCODERS` or by a scorer), so that one dropped
#: from :data:`_ENCODERS` while a scorer still uses it is found again, not loaded a second time.
_LIVE: weakref.WeakValueDictionary[tuple[Any, ...], Encoder] = weakref.WeakValueDictionary()


def encoder(path: str, layer: int | None, device: str, *, batch_size: int,
            max_cached_pairs: int, max_cached_bytes: int) -> Encoder:
    """The process's :class:`Encoder` for these settings, loaded on first use."""
    key = (os.path.realpath(path), _fingerprint(path), layer, device, batch_size,
           max_cached_pairs, max_cached_bytes)
    enc = _ENCODERS.get(key)
    if enc is None:
        enc = _LIVE.get(key)
        if enc is None:
            enc = Encoder(path, layer, device, batch_size=batch_size,
                          max_cached_pairs=max_cached_pairs, max_cached_bytes=max_cached_bytes)
            _LIVE[key] = enc
        while len(_ENCODERS) >= MAX_ENCODERS:
            del _ENCODERS[next(iter(_ENCODERS))]
        _ENCODERS[key] = enc
    return enc


class BERTScorer:
    """BERTScore P, R and F of (candidate, reference) pairs with a local encoder.

    ``model``: a local Hugging Face model directory (empty: the bundled all-MiniLM-L6-v2);
    nothing is downloaded. ``layer``: the hidden state used (0 = embeddings); default
    bert-score's choice for a recognised model, else the last layer. ``baseline``: ``none``,
    ``auto``, a stored model name or a baseline file (see :func:`resolve_baseline`).
    ``threads``: torch threads while encoding and matching (``None`` keeps torch's setting).
    The encoder and its caches (token ids, reference embeddings, scores of pairs already seen,
    by token ids) are shared by the scorers of the process with the same model, layer, device
    and limits (:class:`Encoder`): ``max_cached_pairs`` pair scores (and four times as many
    tokenised texts, at most :data:`MAX_CACHED_TEXTS`), ``max_cached_bytes`` of embeddings; a cache is cleared when full.
    """

    def __init__(self, model: str = "", layer: int | None = None, *, device: str = "cpu",
                 batch_size: int = 1, threads: int | None = 1, baseline: str = "none",
                 max_cached_pairs: int = 500_000, max_cached_bytes: int = 1 << 30) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be >= 1, got {threads}")
        from gecscope._optional import require

        require("torch", "sim", "BERTScore")  # also when the encoder is already loaded
        require("transformers", "sim", "BERTScore")
        path = model if model and model != DEFAULT_MODEL else _default_model_path()
        self.encoder = encoder(path, layer, device, batch_size=batch_size,
                               max_cached_pairs=max_cached_pairs,
                               max_cached_bytes=max_cached_bytes)
        enc = self.encoder
        self.torch = enc.torch
        self.path = enc.path
        self.name = enc.known or os.path.basename(os.path.normpath(model or DEFAULT_MODEL))
        self.tokenizer, self.model, self.layer = enc.tokenizer, enc.model, enc.layer
        self.device, self.max_length, self.special = device, enc.max_length, enc.special
        self.batch_size = batch_size  # fixed: part of the encoder's key (see Encoder.embed)
        self.threads = threads
        self.baseline, self.baseline_label = resolve_baseline(baseline, enc.known, self.layer)

    def token_ids(self, sentence: str) -> TokenIds:
        """The ids bert-score encodes: special tokens around the (stripped) sentence."""
        return self.encoder.token_ids(sentence)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Score3]:
        """(P, R, F) of each ``(candidate, reference)`` pair, rescaled when a baseline is set."""
        enc = self.encoder
        keyed = [(enc.token_ids(c), enc.token_ids(r)) for c, r in pairs]
        raw = enc.raw_scores(keyed, self.threads)
        if self.baseline is None or not raw:
            return raw
        torch = self.torch
        b = torch.tensor(self.baseline, dtype=torch.float32)
        vals = (torch.tensor(raw, dtype=torch.float32) - b) / (1 - b)
        return [(p, r, f) for p, r, f in vals.tolist()]

    def clear(self) -> None:
        """Forget cached tokenisations, embeddings and pair scores (of the shared encoder)."""
        self.encoder.clear()

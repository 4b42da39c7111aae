"""The trained UCCA parser shipped with gecscope (backend ``ucca`` of the USIM parsers).

Input is tokenised text; each input is cut into sentences after sentence-final punctuation,
each sentence is featurised (:mod:`.features`), scored (:mod:`.model`) and decoded with CKY
(:mod:`.decode`), and the labelled spans become the units and primary edges of a
:class:`~gecscope.semantics.ucca.Passage` (:func:`.tree.spans_to_passage`). Remote edges and
implicit units are not predicted. Inference runs in numpy (:mod:`.encoder`, :mod:`.scorer`;
torch is needed only to train), with a fixed number of BLAS threads per call (``threads``,
default 1: one per worker process, restored afterwards); ties are broken by index, so the
output is deterministic. With ``batch_size`` 1 a sentence's parse depends on that sentence
alone, so each distinct sentence is parsed once per parser (:meth:`UccaParser._parse_chunks`):
an attack output that adds a sentence to one parsed before parses only the new one.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gecscope._optional import blas_threads, require
from gecscope.errors import ConfigError, FormatError
from gecscope.semantics.ucca import Passage
from gecscope.semantics.ucca_parser.data import inference_chunks
from gecscope.semantics.ucca_parser.tree import spans_to_passage

MODEL_DIR = Path(__file__).resolve().parent / "model"
WEIGHTS = "ucca_parser.safetensors"
META = "ucca_parser.json"
#: Parsed chunks (sentences of an input, see :func:`.data.inference_chunks`) a parser keeps,
#: oldest dropped first: a CoNLL-2014 sentence's key, spans and flags take ~5 KB (measured,
#: 25 tokens on average), so ~150 MB at most; the attack audit of GJG15 and SEEDA parses
#: 18,317 distinct chunks.
MAX_CACHED_CHUNKS = 30_000
#: A parsed chunk: its labelled spans and which of its tokens are punctuation.
ChunkParse = tuple[dict[tuple[int, int], str], tuple[bool, ...]]


class UccaParser:
    """A UCCA foundational-layer parser (primary edges with labels), trained on UCCA EWT.

    ``model_dir`` holds ``ucca_parser.safetensors`` and ``ucca_parser.json`` (default: the
    model shipped in the package). ``batch_size`` is the number of sentences scored together
    (all of one length, topped up with repeats; 1, the default, was the fastest here, and only
    1 makes a parse independent of the sentences beside it on every CPU, see
    :attr:`per_sentence`);
    ``threads`` the BLAS threads a parse uses (default 1, the fastest here whenever another
    process wants the CPU; ``None`` keeps the library's own setting, one per core).
    """

    name = "ucca"
    approximate = False

    @property
    def per_sentence(self) -> bool:
        """Whether a sentence's passage is computed from that sentence alone, so that USIM may
        reuse it across evaluations of this process (with the same thread count): true by
        construction when every step runs one sentence at a time (the featurizer always does;
        the scorer when ``batch_size`` is 1). In a shared batch a row's place in a matrix
        product can change its last bits on some CPUs, so a passage computed there is not
        reused."""
        return self.batch_size == 1

    def __init__(self, model_dir: str | Path | None = None, batch_size: int = 1,
                 featurizer: Any = None, threads: int | None = 1) -> None:
        safetensors_numpy = require("safetensors.numpy", "parser", "the UCCA parser")

        from gecscope.semantics.ucca_parser.scorer import NumpySpanScorer

        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        meta_path = self.model_dir / META
        if not meta_path.is_file() or not (self.model_dir / WEIGHTS).is_file():
            raise FormatError(f"no trained UCCA parser here (expected {WEIGHTS} and {META}); "
                              "train one with scripts/train_ucca_parser.py", self.model_dir)
        self.meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        self.labels: list[str] = self.meta["labels"]
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be >= 1 (or None for the BLAS default), got {threads}")
        self.threads = threads
        self.model = NumpySpanScorer(safetensors_numpy.load_file(str(self.model_dir / WEIGHTS)),
                                     self.meta["model"])
        if featurizer is None:
            from gecscope.semantics.ucca_parser.features import Featurizer

            featurizer = Featurizer(layers=self.meta.get("layers", (2, 4)))
        self.featurizer = featurizer
        #: chunk parses by (BLAS threads, chunk tokens), when :attr:`per_sentence` holds
        self.chunks: OrderedDict[tuple[int | None, tuple[str, ...]], ChunkParse] = OrderedDict()

    # --- scoring ------------------------------------------------------------------------
    def predict_spans(self, features: Sequence[Any]) -> list[dict[tuple[int, int], str]]:
        """Labelled spans of each featurised sentence (see :mod:`.tree` for the labels)."""
        with blas_threads(self.threads):
            return predict_spans(self.model, features, self.labels, self.batch_size)

    def parse_tokens(self, sentences: Sequence[Sequence[str]],
                     ids: Sequence[str] | None = None,
                     punct: Sequence[Sequence[bool]] | None = None) -> list[Passage]:
        """Parse token sequences into passages (``punct`` flags tokens that are punctuation)."""
        names = list(ids) if ids is not None else [str(i) for i in range(1, len(sentences) + 1)]
        if len(names) != len(sentences):
            raise ConfigError(f"{len(names)} ids for {len(sentences)} sentences")
        chunks: list[tuple[int, int, list[str]]] = []
        for k, toks in enumerate(sentences):
            for off, part in inference_chunks(list(toks)):
                chunks.append((k, off, part))
        parsed = self._parse_chunks([c[2] for c in chunks])
        parts: list[list[tuple[int, dict[tuple[int, int], str]]]] = [[] for _ in sentences]
        spunct: list[list[bool]] = [[] for _ in sentences]
        for (k, off, _toks), (sp, chunk_punct) in zip(chunks, parsed, strict=True):
            parts[k].append((off, sp))
            spunct[k].extend(chunk_punct)
        out = []
        for k, toks in enumerate(sentences):
            flags = list(punct[k]) if punct is not None else spunct[k]
            p = Passage.from_tokens(names[k], list(toks), flags)
            p.attrib = {"parser": "gecscope-ucca", "model": self.meta.get("version", "")}
            out.append(spans_to_passage(p, parts[k], punct=flags))
        return out

    def _parse_chunks(self, chunks: Sequence[list[str]]) -> list[ChunkParse]:
        """Spans and punctuation flags of each chunk. With :attr:`per_sentence` a chunk's parse
        is a function of its tokens (and the thread count), so each distinct chunk is parsed
        once per parser: a chunk recurs across inputs (a system output that appends a sentence
        to one parsed before, the same sentence in two test sets) and within one call."""
        if not self.per_sentence:
            return self._compute_chunks(chunks)
        keys = [(self.threads, tuple(c)) for c in chunks]
        todo = list(dict.fromkeys(k for k in keys if k not in self.chunks))
        found = {k: self.chunks[k] for k in dict.fromkeys(keys) if k in self.chunks}
        for k in found:
            self.chunks.move_to_end(k)
        new = dict(zip(todo, self._compute_chunks([list(k[1]) for k in todo]), strict=True))
        self.chunks.update(new)
        while len(self.chunks) > MAX_CACHED_CHUNKS:
            self.chunks.popitem(last=False)
        return [new[k] if k in new else found[k] for k in keys]

    def _compute_chunks(self, chunks: Sequence[list[str]]) -> list[ChunkParse]:
        """Featurise, score and decode ``chunks`` (no cache)."""
        if not chunks:
            return []
        with blas_threads(self.threads):
            feats = self.featurizer(list(chunks))
            spans = self.predict_spans(feats)
        return [(sp, tuple(bool(x) for x in f.punct)) for sp, f in zip(spans, feats, strict=True)]

    def parse(self, sentences: Sequence[Sequence[str]],
              ids: Sequence[str] | None = None) -> list[Passage]:
        """One passage per token sequence (the :class:`SemanticParser` interface)."""
        return self.parse_tokens(sentences, ids)


def as_dict(f: Any) -> dict[str, Any]:
    """The arrays of a :class:`~.features.TokenFeatures` as a dict for :func:`pad_batch`."""
    return {"vectors": f.vectors, "tag": f.tag, "dep": f.dep, "dist": f.dist, "ent": f.ent,
            "punct": f.punct}


def predict_spans(model: Any, features: Sequence[Any], labels: Sequence[str],
                  batch_size: int = 32) -> list[dict[tuple[int, int], str]]:
    """Labelled spans of each featurised sentence by a :class:`~.scorer.NumpySpanScorer`
    (batches of ``batch_size`` sentences of one length, CKY decoding); shared by the parser and
    its training."""
    from gecscope.semantics.ucca_parser.decode import cky
    from gecscope.semantics.ucca_parser.scorer import pad_arrays

    out: list[dict[tuple[int, int], str]] = [{} for _ in features]
    by_len: dict[int, list[int]] = {}
    for i, f in enumerate(features):
        if len(f.tag):
            by_len.setdefault(len(f.tag), []).append(i)
    for length in sorted(by_len):
        group = by_len[length]
        for b0 in range(0, len(group), batch_size):
            idx = group[b0:b0 + batch_size]
            # one length, exactly batch_size rows (topped up with repeats): a fixed shape; with
            # batch_size 1 a sentence's scores depend on that sentence only (on every CPU)
            rows = idx + [idx[0]] * (batch_size - len(idx))
            states = model.token_states(pad_arrays([as_dict(features[i]) for i in rows]))
            for r, i in enumerate(idx):
                logp = model.span_logprobs(states[r], length)
                out[i] = {span: labels[lab] for span, lab in cky(logp).items()}
    return out

"""UCCA corpora for training and evaluating the parser: the standard EWT split, sentence chunks.

The English-Web-Treebank split files (``train.txt``, ``dev.txt``, ``test.txt``) list sentence
ids ``PASSAGE-NNNN``; every passage's sentences fall in one split, so the split is a split of
passages. The parser works sentence by sentence: a passage is cut after sentence-final
punctuation (:func:`~gecscope.semantics.ucca_parser.tree.sentence_cuts`); for training only
cuts that no top-level unit crosses are used, so each chunk carries its own gold tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from gecscope.errors import FormatError
from gecscope.semantics.ucca import Passage, read_passage
from gecscope.semantics.ucca_parser.tree import encode_passage, sentence_cuts

SPLITS = ("train", "dev", "test")


@dataclass
class Chunk:
    """A sentence of a passage: its tokens, offset and gold labelled spans (sentence-relative)."""

    passage_id: str
    offset: int
    tokens: list[str]
    spans: dict[tuple[int, int], str]


def ewt_split(directory: str | Path) -> dict[str, list[str]]:
    """Passage ids of each split, in the order of the split files."""
    d = Path(directory)
    out: dict[str, list[str]] = {}
    for split in SPLITS:
        path = d / f"{split}.txt"
        if not path.is_file():
            raise FormatError(f"missing split file {split}.txt of the UCCA EWT corpus", path)
        ids: list[str] = []
        for line in path.read_text(encoding="utf-8").split():
            pid = line.rsplit("-", 1)[0]
            if pid not in ids:
                ids.append(pid)
        out[split] = ids
    return out


def load_passages(directory: str | Path, ids: list[str] | None = None) -> list[Passage]:
    """The passages of ``directory`` (``<id>.xml``), those of ``ids`` in that order."""
    d = Path(directory)
    if ids is None:
        return [read_passage(p) for p in sorted(d.glob("*.xml"))]
    return [read_passage(d / f"{i}.xml") for i in ids]


def gold_chunks(passage: Passage) -> list[Chunk]:
    """Training chunks: the passage cut at sentence ends that no top-level unit crosses."""
    tokens = list(passage.tokens)
    spans = encode_passage(passage)
    n = len(tokens)
    if n == 0:
        return []
    # top-level spans: those not inside another span
    top = [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]
    starts = [c for c in sentence_cuts(tokens)
              if c == 0 or not any(a < c < b for a, b in top)]
    bounds = [*starts, n]
    out = []
    for a, b in pairwise(bounds):
        sub = {(x - a, y - a): lab for (x, y), lab in spans.items() if a <= x and y <= b}
        out.append(Chunk(passage.id, a, tokens[a:b], sub))
    return out


MAX_CHUNK = 128  # tokens parsed as one tree; span scoring is quadratic and CKY cubic in it


def inference_chunks(tokens: list[str] | tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """``(offset, tokens)`` of each sentence of a token list, cut as the parser cuts it; a
    "sentence" longer than :data:`MAX_CHUNK` tokens (a runaway system output; no sentence of
    UCCA EWT or JFLEG is that long, only unpunctuated stretches of the learner essays) is
    parsed in pieces of at most that many tokens, which bounds time and memory (2,000 tokens
    had taken 54 s and 8.5 GB)."""
    starts = sentence_cuts(tokens)
    bounds = [*starts, len(tokens)]
    out = []
    for a, b in pairwise(bounds):
        for lo in range(a, b, MAX_CHUNK):
            out.append((lo, list(tokens[lo:min(b, lo + MAX_CHUNK)])))
    return out

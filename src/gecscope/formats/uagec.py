"""The UA-GEC corpus (Ukrainian) as shipped in the ``ua-gec`` package, as aligned sentences.

The package stores each document's source sentences once and each annotator's corrected
sentences beside them, one per line and 1:1 with the source (Syvokon & Nahorna 2021, CC BY
4.0). Here they become a source list with ``[annotator][sentence]`` references, ready for
:meth:`gecscope.EvalData.from_texts` with ``lang="uk"``. Needs the ``uk`` extra.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscope._optional import require
from gecscope.errors import ConfigError

PARTITIONS = ("train", "test", "all")
LAYERS = ("gec-only", "gec-fluency")


@dataclass(frozen=True)
class UAGECData:
    """Aligned UA-GEC sentences, sorted by document id then sentence index.

    ``references`` is ``[annotator][sentence]`` in the order of ``annotators``;
    ``skipped_docs`` lists documents left out (not annotated by every annotator, or with
    sentence files of different lengths) and ``skipped_sentences`` counts sentences whose
    source differed between annotators beyond whitespace.
    """

    sources: list[str]
    references: list[list[str]]
    doc_ids: list[str]
    sentence_index: list[int]
    annotators: tuple[int, ...]
    partition: str
    layer: str
    version: str
    skipped_docs: tuple[str, ...] = ()
    skipped_sentences: int = 0

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def documents(self) -> list[str]:
        """The distinct document ids, in order."""
        return list(dict.fromkeys(self.doc_ids))


def load_uagec(partition: str = "test", layer: str = "gec-only", *,
               annotators: Sequence[int] | None = None) -> UAGECData:
    """UA-GEC's ``partition`` (train, test or all) in annotation ``layer`` (``gec-only``, or
    ``gec-fluency`` with fluency edits too) as sentence-aligned texts.

    Only documents annotated by every one of ``annotators`` (default: every annotator found in
    the partition, 1 and 2 for test; in train only 43 documents have both) are kept. Sentences
    are paired 1:1 as the package gives them; a sentence whose source differs between the
    annotators' documents (beyond whitespace) is skipped and counted.
    """
    if partition not in PARTITIONS:
        raise ConfigError(f"UA-GEC partition must be one of {', '.join(PARTITIONS)}, "
                          f"not {partition!r}")
    if layer not in LAYERS:
        raise ConfigError(f"UA-GEC layer must be one of {', '.join(LAYERS)}, not {layer!r}")
    ua_gec = require("ua_gec", "uk", "the UA-GEC corpus")
    docs: dict[str, dict[int, Any]] = defaultdict(dict)
    for doc in ua_gec.Corpus(partition=partition, annotation_layer=layer):
        docs[str(doc.doc_id)][int(doc.meta.annotator_id)] = doc
    found = sorted({a for by in docs.values() for a in by})
    wanted = tuple(sorted(set(annotators))) if annotators is not None else tuple(found)
    if not wanted or any(a not in found for a in wanted):
        raise ConfigError(f"UA-GEC {partition}: annotators {list(wanted)} requested, the "
                          f"partition has {found}")
    sources: list[str] = []
    references: list[list[str]] = [[] for _ in wanted]
    doc_ids: list[str] = []
    index: list[int] = []
    skipped_docs: list[str] = []
    skipped = 0
    for doc_id in sorted(docs):
        by = docs[doc_id]
        if any(a not in by for a in wanted):
            skipped_docs.append(doc_id)
            continue
        src = [by[a].source_sentences for a in wanted]
        tgt = [by[a].target_sentences for a in wanted]
        n = len(src[0])
        if any(len(s) != n for s in src) or any(len(t) != n for t in tgt):
            skipped_docs.append(doc_id)
            continue
        for i in range(n):
            if len({" ".join(s[i].split()) for s in src}) > 1:
                skipped += 1
                continue
            sources.append(src[0][i])
            for out, t in zip(references, tgt, strict=True):
                out.append(t[i])
            doc_ids.append(doc_id)
            index.append(i)
    return UAGECData(sources, references, doc_ids, index, wanted, partition, layer,
                     str(getattr(ua_gec, "__version__", "?")), tuple(skipped_docs), skipped)

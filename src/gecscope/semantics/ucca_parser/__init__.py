"""A trained UCCA parser for automatic USIM (foundational layer, primary edges with labels).

``UccaParser`` (backend ``ucca`` of :mod:`gecscope.semantics.parser`) parses tokenised
sentences into :class:`~gecscope.semantics.ucca.Passage` objects with the model shipped in
``model/``. Modules: :mod:`.tree` (span encoding of UCCA and back), :mod:`.data` (corpora,
EWT split), :mod:`.features` (MiniLM + spaCy features), :mod:`.encoder` (MiniLM in numpy),
:mod:`.model` (the span scorer in torch, for training), :mod:`.scorer` (the same in numpy, for
parsing), :mod:`.decode` (CKY), :mod:`.backend` (the parser). Parsing never imports torch;
spaCy and the encoder are loaded only when a parser is built.
"""

from __future__ import annotations

from typing import Any

__all__ = ["UccaParser"]


def __getattr__(name: str) -> Any:
    if name == "UccaParser":
        from gecscope.semantics.ucca_parser.backend import UccaParser

        return UccaParser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Light tokenisation and detokenisation for round trips (stdlib only).

Translators return running text ("important about life."), the lattice works on tokens. The
tokeniser splits punctuation and English clitics the way the GEC corpora (CoNLL, JFLEG) are
tokenised ("do n't", "John 's", "life ."); :func:`detokenize` undoes it before text is sent to a
translator, so the MT system sees ordinary text.
"""

from __future__ import annotations

import re

from gecscope.types import Tokens

_CLITIC = re.compile(r"(?i)^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$")
_TOKEN = re.compile(r"(?i)n't\b|'(?:s|re|ve|ll|d|m)\b|\w+(?:[-'’.]\w+)*|[^\w\s]", re.UNICODE)
_ABBREV = re.compile(r"^(?:[A-Za-z]\.){2,}$")


def tokenize(text: str) -> Tokens:
    """Split ``text`` into words, punctuation marks and clitics (``don't`` -> ``do n't``)."""
    out: list[str] = []
    for chunk in text.split():
        if _ABBREV.match(chunk):
            out.append(chunk)
            continue
        for tok in _TOKEN.findall(chunk):
            tok = tok.replace("’", "'")
            m = _CLITIC.match(tok)
            if m and m.group(1).isalpha():
                out.extend((m.group(1), m.group(2)))  # PTB style: "ca n't", "do n't"
            else:
                out.append(tok)
    return tuple(out)


_NO_SPACE_BEFORE = frozenset(".,;:!?%)]}'")
_NO_SPACE_AFTER = frozenset("([{$")


def detokenize(tokens: Tokens | list[str]) -> str:
    """Join tokens into running text: no space before punctuation and clitics, none after ``(``."""
    parts: list[str] = []
    quote_open = False
    for i, tok in enumerate(tokens):
        if i == 0:
            parts.append(tok)
            if tok == '"':
                quote_open = True
            continue
        prev = tokens[i - 1]
        glue = False
        if tok == '"':
            glue = quote_open
            quote_open = not quote_open
        elif tok[0] in _NO_SPACE_BEFORE and (len(tok) == 1 or tok.startswith("'")) or tok.lower() == "n't" or tok in {"...", "''"}:
            glue = True
        if prev in _NO_SPACE_AFTER or (prev == '"' and quote_open):
            glue = True
        parts.append(tok if glue else " " + tok)
    return "".join(parts)

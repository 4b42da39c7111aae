"""Language-agnostic edit extraction by token-level Levenshtein alignment.

For when spaCy is unwanted (other languages, speed). Tokens are aligned with insertion and
deletion cost 1 and substitution cost 1.5 (case-only changes are substitutions): a
substitution is still cheaper than a deletion plus an insertion, but an alignment that keeps
a matching token is preferred to one that substitutes twice around it. Adjacent
non-matching operations are merged into one edit (ERRANT's ``all-merge`` strategy), or kept
apart with ``merge=False``. Edit types are the operation, ``R`` (replacement), ``M``
(missing: insertion), ``U`` (unnecessary: deletion), followed by ``:ORTH`` (a replacement
that changes case only), ``:WO`` (the same tokens in another order), the tokens' shared
universal POS tag when a spaCy pipeline tagged them (:class:`LevenshteinAnnotator`), or
``:OTHER``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gecscope.types import Annotation, Corpus, Edit, Sentence, Tokens

#: universal POS tags of the source and of the target tokens
PosTags = tuple[Sequence[str], Sequence[str]]


def distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Plain Levenshtein distance (unit costs) between two strings or token sequences."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def align(source: Sequence[str], target: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """Minimal-cost alignment as ``(op, s_start, s_end, t_start, t_end)`` steps; op in M/S/I/D.

    Costs are doubled to stay integral (match 0, insertion/deletion 2, substitution 3). Ties
    prefer the diagonal, then deletion, then insertion, so the output is deterministic.
    """
    n, m = len(source), len(target)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = 2 * i
    for j in range(1, m + 1):
        cost[0][j] = 2 * j
    for i in range(1, n + 1):
        row, prev = cost[i], cost[i - 1]
        si = source[i - 1]
        for j in range(1, m + 1):
            sub = prev[j - 1] + (0 if si == target[j - 1] else 3)
            row[j] = min(sub, prev[j] + 2, row[j - 1] + 2)
    ops: list[tuple[str, int, int, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and cost[i][j] == cost[i - 1][j - 1] + (
                0 if source[i - 1] == target[j - 1] else 3):
            op = "M" if source[i - 1] == target[j - 1] else "S"
            ops.append((op, i - 1, i, j - 1, j))
            i, j = i - 1, j - 1
        elif i > 0 and cost[i][j] == cost[i - 1][j] + 2:
            ops.append(("D", i - 1, i, j, j))
            i -= 1
        else:
            ops.append(("I", i, i, j - 1, j))
            j -= 1
    ops.reverse()
    return ops


def _edit(source: Sequence[str], source_span: tuple[int, int], target: Sequence[str],
          t_span: tuple[int, int], pos: PosTags | None = None) -> Edit:
    s0, s1 = source_span
    t0, t1 = t_span
    src, cor = tuple(source[s0:s1]), tuple(target[t0:t1])
    op = "M" if s0 == s1 else "U" if t0 == t1 else "R"
    kind = "OTHER"
    if op == "R" and [t.lower() for t in src] == [t.lower() for t in cor]:
        kind = "ORTH"  # case only
    elif op == "R" and len(src) > 1 and sorted(t.lower() for t in src) == sorted(
            t.lower() for t in cor):
        kind = "WO"  # the same tokens in another order
    elif pos is not None:
        tags = set(pos[0][s0:s1]) | set(pos[1][t0:t1])
        if len(tags) == 1:
            kind = tags.pop()
    return Edit(s0, s1, cor, f"{op}:{kind}")


def extract_edits(source: Sequence[str], target: Sequence[str], merge: bool = True,
                  pos: PosTags | None = None) -> tuple[Edit, ...]:
    """Edits turning ``source`` into ``target``; ``pos`` (the universal POS tags of both)
    types them ``R:NOUN`` etc. when every token of an edit has the same tag. With ``merge``,
    a deletion and an insertion of the same tokens around unchanged ones (``a b c`` -> ``b c
    a``) become one word-order edit ``R:WO``, as ERRANT's transpositions do."""
    spans: list[tuple[int, int, int, int]] = []
    run: list[tuple[str, int, int, int, int]] = []

    def flush() -> None:
        if run:
            spans.append((run[0][1], run[-1][2], run[0][3], run[-1][4]))
            run.clear()

    for step in align(source, target):
        if step[0] == "M":
            flush()
        elif merge:
            run.append(step)
        else:
            spans.append(step[1:])
    flush()
    if merge:
        spans = _word_order(spans, source, target)
    return tuple(_edit(source, (s0, s1), target, (t0, t1), pos) for s0, s1, t0, t1 in spans)


def _word_order(spans: list[tuple[int, int, int, int]], source: Sequence[str],
                target: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """Join a pure deletion and the next pure insertion (or the reverse) that move the same
    tokens (case-insensitively) into one span."""
    out: list[tuple[int, int, int, int]] = []
    i = 0
    while i < len(spans):
        if i + 1 < len(spans):
            (a0, a1, b0, b1), (c0, c1, d0, d1) = spans[i], spans[i + 1]
            moved = None
            if b0 == b1 and c0 == c1:  # deletion, then insertion
                moved = (source[a0:a1], target[d0:d1])
            elif a0 == a1 and d0 == d1:  # insertion, then deletion
                moved = (target[b0:b1], source[c0:c1])
            if moved and sorted(t.lower() for t in moved[0]) == sorted(
                    t.lower() for t in moved[1]):
                out.append((a0, c1, b0, d1))
                i += 2
                continue
        out.append(spans[i])
        i += 1
    return out


def annotate_corpus(sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]],
                    merge: bool = True) -> Corpus:
    """An M2 corpus with one annotation per correction file (``noop`` where unchanged)."""
    out = []
    for i, src in enumerate(sources):
        anns = []
        for k, cor in enumerate(corrections):
            edits = extract_edits(src, cor[i], merge) if tuple(cor[i]) != tuple(src) else ()
            anns.append(Annotation(k, edits))
        out.append(Sentence(tuple(src), tuple(anns)))
    return Corpus(tuple(out))


class LevenshteinAnnotator:
    """The language-agnostic extractor behind ``--lang`` codes other than en and zh.

    With a spaCy pipeline (``nlp``) the tokens are tagged (on the given tokens, not
    re-tokenised) and an edit whose tokens share one universal POS tag is typed with it, as
    ERRANT's ``R:NOUN``; otherwise ``:OTHER`` (``:ORTH`` for case, ``:WO`` for word order)."""

    name = "levenshtein"

    def __init__(self, nlp: Any = None, merge: bool = True) -> None:
        self.nlp = nlp
        self.merge = merge
        self._tags: dict[Tokens, tuple[str, ...]] = {}

    def _pos(self, tokens: Tokens) -> tuple[str, ...]:
        got = self._tags.get(tokens)
        if got is None:
            from spacy.tokens import Doc

            doc = Doc(self.nlp.vocab, words=list(tokens))
            for _, proc in self.nlp.pipeline:
                doc = proc(doc)
            got = tuple(t.pos_ or "X" for t in doc)
            if len(self._tags) > 50_000:
                self._tags.clear()
            self._tags[tokens] = got
        return got

    def annotate_corpus(self, sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]],
                        progress: Callable[[int], None] | None = None) -> Corpus:
        out = []
        for i, src in enumerate(sources):
            anns = []
            for k, cor in enumerate(corrections):
                c = tuple(cor[i])
                edits: tuple[Edit, ...] = ()
                if c != tuple(src):
                    pos = (self._pos(tuple(src)), self._pos(c)) if self.nlp and src and c else None
                    edits = extract_edits(src, c, self.merge, pos)
                anns.append(Annotation(k, edits))
            out.append(Sentence(tuple(src), tuple(anns)))
            if progress is not None:
                progress(1)
        return Corpus(tuple(out))

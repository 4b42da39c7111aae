"""Language-agnostic edit extraction by token-level Levenshtein alignment.

For when spaCy is unwanted (other languages, speed). Tokens are aligned with insertion and
deletion cost 1 and substitution cost 1.5 (case-only changes are substitutions): a
substitution is still cheaper than a deletion plus an insertion, but an alignment that keeps
a matching token is preferred to one that substitutes twice around it. Adjacent
non-matching operations are merged into one edit (ERRANT's ``all-merge`` strategy), or kept
apart with ``merge=False``. Edit types are the operation only: ``R`` (replacement),
``M`` (missing: insertion), ``U`` (unnecessary: deletion), followed by ``:OTHER``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gecscope.types import Annotation, Corpus, Edit, Sentence, Tokens


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


def _edit(source_span: tuple[int, int], target: Sequence[str], t_span: tuple[int, int]) -> Edit:
    s0, s1 = source_span
    t0, t1 = t_span
    if s0 == s1:
        op = "M"
    elif t0 == t1:
        op = "U"
    else:
        op = "R"
    return Edit(s0, s1, tuple(target[t0:t1]), f"{op}:OTHER")


def extract_edits(source: Sequence[str], target: Sequence[str], merge: bool = True) -> tuple[
        Edit, ...]:
    """Edits turning ``source`` into ``target``."""
    edits: list[Edit] = []
    run: list[tuple[str, int, int, int, int]] = []

    def flush() -> None:
        if run:
            edits.append(_edit((run[0][1], run[-1][2]), target, (run[0][3], run[-1][4])))
            run.clear()

    for step in align(source, target):
        if step[0] == "M":
            flush()
        elif merge:
            run.append(step)
        else:
            edits.append(_edit((step[1], step[2]), target, (step[3], step[4])))
    flush()
    return tuple(edits)


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

"""CLEME chunk partition and chunk classification (Ye et al. 2023, 2025).

The source, the hypothesis and every reference of a sentence are cut into the *same number* of
chunks. A chunk is either unchanged (no target edits any of its tokens), corrected (some target
edits it) or dummy (a corrected chunk of zero source tokens: an insertion). The cut points are the
union of every target's edit spans: spans that overlap or touch (start <= previous end +
``merge_distance``) are merged into one shared interval, so an edit of one target and a
different, overlapping edit of another target end up in the same chunk.

Re-specified from THUKElab/CLEME v1.1 (``chunk_partition``) as described in
``shared/specs/reference-algorithms.md`` section 3; behaviour, not code, carries over:

* every edit of an annotator counts, whatever its type (``noop`` lines carry no edit);
* a target's chunk is *changed* when one of its edits lies in the interval, even if the
  resulting tokens equal the source;
* a reference whose corrected sentence is empty is dropped (all of them empty: the first is
  kept), as the reference code does to avoid a degenerate partition;
* chunk equality = same position and same target tokens (edit types are ignored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.types import Edit, Tokens, apply_edits

TP, FP_NE, FP_UN, FN, TN = "TP", "FP_ne", "FP_un", "FN", "TN"
LABELS: tuple[str, ...] = (TP, FP_NE, FP_UN, FN, TN)
ASSUMPTIONS: tuple[str, ...] = ("dependent", "independent")


@dataclass(frozen=True, slots=True)
class ChunkPartition:
    """One sentence cut into chunks shared by the source, the hypothesis and the references.

    ``spans[i]`` is the source interval of chunk ``i``; ``hyp[i]`` / ``refs[k][i]`` its tokens in
    the hypothesis / reference ``k``; ``*_changed[i]`` whether that target edited the chunk.
    ``ref_ids`` are the annotator ids of the references kept (empty references are dropped).
    """

    source: Tokens
    spans: tuple[tuple[int, int], ...]
    hyp: tuple[Tokens, ...]
    hyp_changed: tuple[bool, ...]
    refs: tuple[tuple[Tokens, ...], ...]
    refs_changed: tuple[tuple[bool, ...], ...]
    ref_ids: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.spans)

    def source_chunk(self, i: int) -> Tokens:
        a, b = self.spans[i]
        return self.source[a:b]

    def is_interval(self, i: int) -> bool:
        """True for corrected/dummy chunks (some target edits them), False for unchanged ones."""
        return self.hyp_changed[i] or any(ch[i] for ch in self.refs_changed)

    def edit_length(self, i: int, ref: int | None = None) -> int:
        """``max(|source chunk|, |target chunk|)`` of the hypothesis (or reference ``ref``) chunk."""
        a, b = self.spans[i]
        toks = self.hyp[i] if ref is None else self.refs[ref][i]
        return max(b - a, len(toks))

    def applied(self, i: int, ref: int | None = None) -> Tokens:
        """The source with only chunk ``i`` of the hypothesis (or of reference ``ref``) applied."""
        a, b = self.spans[i]
        toks = self.hyp[i] if ref is None else self.refs[ref][i]
        return self.source[:a] + toks + self.source[b:]

    def reference_sentence(self, ref: int) -> Tokens:
        return tuple(t for chunk in self.refs[ref] for t in chunk)

    def hypothesis_sentence(self) -> Tokens:
        return tuple(t for chunk in self.hyp for t in chunk)


def shared_intervals(edit_lists: Sequence[Sequence[Edit]], merge_distance: int = 0
                     ) -> list[tuple[int, int]]:
    """The union of all targets' edit spans, merged when they overlap or touch.

    Spans are taken in order of their start; a span starting at most ``merge_distance``
    tokens after the end of the current interval extends it (so with the default 0, an edit
    ending where another starts, or an insertion at the end of a span, joins the interval).
    """
    spans = sorted((e.start, e.end) for edits in edit_lists for e in edits)
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1] + merge_distance:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def chunk_spans(n_tokens: int, intervals: Sequence[tuple[int, int]]) -> list[tuple[tuple[int, int], bool]]:
    """Cut ``[0, n_tokens)`` into chunks: ``((start, end), is_interval)`` in source order.

    Unchanged chunks are the maximal runs of tokens between intervals; a zero-length interval
    gives a dummy chunk at its position.
    """
    out: list[tuple[tuple[int, int], bool]] = []
    pos = 0
    for a, b in intervals:
        if a > pos:
            out.append(((pos, a), False))
        out.append(((a, b), True))
        pos = max(pos, b)
    if pos < n_tokens:
        out.append(((pos, n_tokens), False))
    return out


def _target_chunks(source: Tokens, edits: Sequence[Edit], chunks: Sequence[tuple[tuple[int, int], bool]]
                   ) -> tuple[tuple[Tokens, ...], tuple[bool, ...]]:
    """Tokens and changed-flags of one target over the shared chunks."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    toks: list[Tokens] = []
    changed: list[bool] = []
    k = 0
    for (a, b), interval in chunks:
        if not interval:
            toks.append(source[a:b])
            changed.append(False)
            continue
        inside: list[Edit] = []
        while k < len(ordered) and ordered[k].start >= a and ordered[k].end <= b:
            inside.append(ordered[k])
            k += 1
        if not inside:
            toks.append(source[a:b])
            changed.append(False)
            continue
        local = [Edit(e.start - a, e.end - a, e.correction, e.type) for e in inside]
        toks.append(apply_edits(source[a:b], local, frozenset()))
        changed.append(True)
    return tuple(toks), tuple(changed)


def partition(source: Tokens, hyp_edits: Sequence[Edit], ref_edits: Sequence[Sequence[Edit]],
              ref_ids: Sequence[int] | None = None, merge_distance: int = 0) -> ChunkPartition:
    """Partition one sentence (source, hypothesis edits, each reference's edits) into chunks.

    References whose corrected sentence is empty are dropped first (the first one is kept if
    all are empty), as THUKElab/CLEME does.
    """
    ids = list(ref_ids) if ref_ids is not None else list(range(len(ref_edits)))
    refs = [list(r) for r in ref_edits]
    if not refs:
        refs, ids = [[]], [0]
    keep = [i for i, r in enumerate(refs) if apply_edits(source, r, frozenset())]
    if len(keep) != len(refs):
        keep = keep or [0]
        refs = [refs[i] for i in keep]
        ids = [ids[i] for i in keep]
    intervals = shared_intervals([hyp_edits, *refs], merge_distance)
    chunks = chunk_spans(len(source), intervals)
    hyp_toks, hyp_changed = _target_chunks(source, hyp_edits, chunks)
    ref_toks: list[tuple[Tokens, ...]] = []
    ref_changed: list[tuple[bool, ...]] = []
    for r in refs:
        t, c = _target_chunks(source, r, chunks)
        ref_toks.append(t)
        ref_changed.append(c)
    return ChunkPartition(source, tuple(span for span, _ in chunks), hyp_toks, hyp_changed,
                          tuple(ref_toks), tuple(ref_changed), tuple(ids))


def classify(part: ChunkPartition, assumption: str = "dependent") -> tuple[tuple[str, ...], ...]:
    """Label every hypothesis chunk against every reference: TP, FP_ne, FP_un, FN or TN.

    *Dependent*: each reference separately. A changed hypothesis chunk is TP when its tokens
    equal the reference chunk's, else FP (FP_ne if the reference changed that chunk too, FP_un
    otherwise); an unchanged hypothesis chunk is FN when the reference chunk's tokens differ,
    else TN.
    *Independent*: one labelling for all references (returned once per reference). TP if the
    chunk equals *any* reference chunk, FP_ne if any reference changed it, FP_un otherwise; an
    unchanged chunk is FN only if *all* references changed it, else TN.
    """
    n = len(part)
    hyp, hch = part.hyp, part.hyp_changed
    if assumption == "dependent":
        out = []
        for rt, rc in zip(part.refs, part.refs_changed, strict=True):
            labels = []
            for i in range(n):
                if hch[i]:
                    labels.append(TP if hyp[i] == rt[i] else (FP_NE if rc[i] else FP_UN))
                else:
                    labels.append(FN if hyp[i] != rt[i] else TN)
            out.append(tuple(labels))
        return tuple(out)
    if assumption == "independent":
        labels = []
        for i in range(n):
            if hch[i]:
                if any(hyp[i] == rt[i] for rt in part.refs):
                    labels.append(TP)
                elif any(rc[i] for rc in part.refs_changed):
                    labels.append(FP_NE)
                else:
                    labels.append(FP_UN)
            else:
                labels.append(FN if all(rc[i] for rc in part.refs_changed) else TN)
        return (tuple(labels),) * len(part.refs)
    raise ValueError(f"unknown assumption {assumption!r}; expected one of {ASSUMPTIONS}")

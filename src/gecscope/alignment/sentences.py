"""Sentence alignment of re-segmented output: hypothesis lines that are paragraphs, essays, or
sentences merged or split by a system, matched to the source's sentences.

:func:`align_sentences` cuts the hypothesis text into one piece per source sentence by a
monotone alignment in the manner of Gale and Church (1993), but over character content rather
than lengths alone:

1. Every hypothesis line is split into candidate segments after sentence-final punctuation
   (:func:`split_sentences`); line ends are always segment ends.
2. A dynamic programme over (source sentences, segments) takes moves 1-1, 1-2, 2-1, 1-3, 3-1,
   longer 1-b and a-1 as far as the lengths allow (a source "sentence" that is a paragraph;
   a paragraph written without inner sentence ends), 1-0 (a source sentence with no output)
   and 0-1 (output with no source sentence). A move
   costs the characters it leaves unmatched, estimated from the Dice overlap of character
   trigram sets, plus a small penalty for every move other than 1-1. Text is compared with
   whitespace removed, NFKC-normalised and case-folded, so the alignment does not depend on
   tokenisation (``do n't`` and ``don't`` are the same characters). The programme runs in a
   band around a centre line drawn through *anchors* (segments that match one source sentence
   clearly, found through a rare-trigram index, :class:`SentenceIndex`, and kept when they
   form the longest chain in order) or, where there are none, the diagonal of cumulative
   character counts; the band is widened and the programme run again when the best path
   touches its edge, up to :data:`MAX_BAND` segments either side. Time is linear in the
   text; a path that still touches the edge of the widest band leaves the alignment
   *incomplete* (:attr:`SentenceAlignment.complete`), which is never certain.
3. A segment that covers several source sentences (2-1, 3-1, ...) is cut where a character
   alignment (:class:`difflib.SequenceMatcher`) puts the source's sentence boundaries,
   moved to the nearest whitespace of the hypothesis text. Quotes and brackets at a cut
   between two pieces of a line go to the side where they match the sources best (MuCGEC
   puts a closing ``”`` at the start of the next sentence).

**Confidence rule.** A source sentence is aligned with low confidence when the character
similarity (``SequenceMatcher.ratio`` of the whitespace-free, case-folded texts) between it and
its piece is below :data:`MIN_SIMILARITY` (0.5); when less than :data:`MIN_COVERAGE` (60%)
of the piece's characters are matched in the sentence and more than 12 are not (it carries
text from elsewhere); for a piece that a cut made (a segment covering several sentences),
when less than 60% of the *sentence's* characters are matched in the piece and more than
:data:`_SOURCE_SLACK` are not (a fragment: a cut that gave a dropped sentence a word or two
of the next sentence's output); or when its piece
overlaps a neighbouring source sentence more than its own (character trigram Dice): a dropped
sentence (empty piece), a shifted or shuffled stretch, or a rewrite too free to place. A
sentence of at most :data:`_SOURCE_SLACK` characters whose piece leaves at most as many
unmatched (a lone quote deleted) is confident. On the 12 CoNLL-2014 systems lined up with their sources, 6 of 15,744 sentence pairs
are below 0.5 similarity and 7 below 60% matched (all in NTHU's shifted lines and near them;
elsewhere at least 0.58 and 73%), while a sentence paired with the next one's output scores
0.53 at the 99th percentile. Hypothesis text aligned to no source sentence is reported too.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from gecscope.errors import FormatError
from gecscope.formats.multigec import AlignedEssays

#: below this character similarity a sentence's piece is reported as low confidence
MIN_SIMILARITY = 0.5
#: below this share of a piece's characters matched in its sentence, the piece carries text
#: that belongs elsewhere (a neighbour's, or text aligned to no sentence) and is reported
MIN_COVERAGE = 0.6
#: ... unless those unmatched characters are this few (a word or two: "cat, and" of a merge)
_SLACK = 12
#: a segment (a hypothesis sentence) at the edge of several aligned to one source sentence,
#: longer than :data:`_SLACK`, with fewer of its character trigrams in that sentence than
#: this, is text of no source sentence (an LLM's "Here is the corrected text:" or "Let me
#: know if you need anything else."): kept out of the piece and reported. Such chatter shares
#: 4-10% of its trigrams with the sentence it was glued to; the sentences AMU's CoNLL-2014
#: output split in two share 50% or more with their source sentence
FOREIGN_SEGMENT = 0.25
#: the share of source sentences that may be low-confidence before a file is refused
MAX_LOW_SHARE = 0.05
#: unmatched characters of the *source* sentence a piece may leave (a word or two edited
#: away) before its source coverage counts; also what makes a tiny sentence (a lone quote)
#: confident when its piece is as small
_SOURCE_SLACK = 3
#: the widest band (segments either side of the centre line) the programme is run in: a path
#: that still touches its edge is not an alignment to trust (:attr:`SentenceAlignment.complete`)
MAX_BAND = 96
#: a segment is an anchor when its nearest source sentence shares this trigram Dice or more
#: with it, and this margin more than the next nearest (:func:`anchors`)
ANCHOR_DICE = 0.6
ANCHOR_MARGIN = 0.1
#: segments shorter than this (whitespace-free characters) are no evidence of where they go
MIN_EVIDENCE = 10

#: penalty (in unmatched characters) of each move (source sentences, segments) but 1-1
_PENALTY = {(1, 1): 0.0, (1, 0): 3.0, (0, 1): 3.0, (2, 1): 2.0, (1, 2): 2.0, (3, 1): 3.0,
            (1, 3): 3.0}
_MOVES = tuple(_PENALTY)
_FIRST_BAND = 6

#: a sentence end: final punctuation and closing quotes/brackets, with any stray final
#: punctuation tokens after it ("second . ."), then whitespace (CJK final punctuation needs
#: none)
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?:\s+[.!?…]+(?=\s|$))*(?=\s|$)"
                           r"|[。！？．｡]+[”’」』）]*")


@dataclass(frozen=True)
class Piece:
    """The hypothesis text aligned to one source sentence."""

    #: the text (original characters; pieces from two lines joined by a space)
    text: str
    #: hypothesis lines it comes from, 0-based (empty when the sentence got no text)
    lines: tuple[int, ...]
    #: source sentences : segments of the move that produced it ("1-1", "2-1", "1-0", ...)
    move: str
    #: character similarity to the source sentence (1.0 when both are empty)
    similarity: float
    #: share of the piece's characters matched in the source sentence (1.0 when empty)
    coverage: float
    #: whether it passed the confidence rule (see the module docstring)
    confident: bool
    #: share of the source sentence's characters matched in the piece (1.0 when empty)
    source_coverage: float = 1.0
    #: the unmatched characters of the piece and of the source sentence
    unmatched: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class SentenceAlignment:
    """One :class:`Piece` per source sentence, plus hypothesis text aligned to none."""

    pieces: tuple[Piece, ...]
    #: ``(line, text)`` of hypothesis segments aligned to no source sentence (0-based lines)
    extra: tuple[tuple[int, str], ...]
    #: ``False`` when the best path still touched the edge of the widest band
    #: (:data:`MAX_BAND`): the text is too far from where its length and anchors put it
    complete: bool = True

    @property
    def texts(self) -> list[str]:
        return [p.text for p in self.pieces]

    @property
    def low(self) -> list[int]:
        """0-based source sentence numbers aligned with low confidence."""
        return [i for i, p in enumerate(self.pieces) if not p.confident]

    @property
    def exact_moves(self) -> int:
        """How many sentences were aligned 1-1."""
        return sum(p.move == "1-1" for p in self.pieces)

    def moves(self) -> dict[str, int]:
        """Sentences per move kind, e.g. ``{"1-1": 1300, "2-1": 12}``."""
        out: dict[str, int] = {}
        for p in self.pieces:
            out[p.move] = out.get(p.move, 0) + 1
        return out

    def problems(self, limit: int = 5) -> str:
        """The low-confidence sentences and unaligned text, by line (1-based), for messages."""
        items = []
        for i in self.low:
            p = self.pieces[i]
            where = (f"hypothesis line {'+'.join(str(k + 1) for k in p.lines)}" if p.lines
                     else "no hypothesis text")
            items.append(f"source sentence {i + 1} ({where}, similarity {p.similarity:.2f}"
                         + (f", {p.coverage:.0%} of it matched" if p.coverage < MIN_COVERAGE
                            and p.text else "")
                         + (f", {p.source_coverage:.0%} of the sentence in it"
                            if p.source_coverage < MIN_COVERAGE and p.text else "") + ")")
        items.extend(f"hypothesis line {k + 1}: text aligned to no source sentence "
                     f"({_clip(t)!r})" for k, t in self.extra)
        more = f" and {len(items) - limit} more" if len(items) > limit else ""
        return "; ".join(items[:limit]) + more

    @property
    def failures(self) -> int:
        """Low-confidence sentences plus unaligned stretches of hypothesis text (and one
        for an incomplete alignment)."""
        return len(self.low) + len(self.extra) + (not self.complete)

    @property
    def certain(self) -> bool:
        """Every sentence confident, no text left over, the path inside the band."""
        return self.failures == 0


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text`` (whitespace trimmed): cut
    after final punctuation followed by whitespace (``.``, ``!``, ``?``, ``…``, with closing
    quotes or brackets) or after CJK final punctuation, and at every line break."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        start = pos
        cuts = [m.end() for m in _SENTENCE_END.finditer(line)]
        for end in [*cuts, len(line)]:
            piece = line[start - pos:end]
            stripped = piece.strip()
            if stripped:
                lead = len(piece) - len(piece.lstrip())
                spans.append((start + lead, start + lead + len(stripped)))
            start = pos + end
        pos += len(line) + 1
    return spans


def _normalise(text: str, start: int = 0, end: int | None = None) -> tuple[str, list[int]]:
    """``text[start:end]`` without whitespace, NFKC-normalised and case-folded, and the
    offset in ``text`` of every character of the result."""
    out: list[str] = []
    offsets: list[int] = []
    stop = len(text) if end is None else end
    for p in range(start, stop):
        c = text[p]
        if c.isspace():
            continue
        n = c.lower() if c.isascii() else unicodedata.normalize("NFKC", c).casefold()
        for ch in n:
            if not ch.isspace():
                out.append(ch)
                offsets.append(p)
    return "".join(out), offsets


@functools.lru_cache(maxsize=1 << 16)
def _grams(key: str) -> frozenset[str]:
    """The character trigrams of ``key`` (cached: the gate looks at the lines of every system,
    and most systems leave most lines as the source has them)."""
    if len(key) < 3:
        return frozenset((key,)) if key else frozenset()
    return frozenset(key[i:i + 3] for i in range(len(key) - 2))


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def similarity(a: str, b: str) -> tuple[float, float]:
    """Character similarity of two normalised texts (``SequenceMatcher.ratio``, 1.0 when
    both are empty), and the share of ``b``'s characters matched in ``a`` (1.0 when ``b`` is
    empty)."""
    ratio, _, covered = _matched(a, b)
    return ratio, covered


def _matched(a: str, b: str) -> tuple[float, float, float]:
    """``SequenceMatcher.ratio`` of ``a`` and ``b`` and the shares of ``a``'s and of
    ``b``'s characters matched (each 1.0 for an empty text)."""
    if not a and not b:
        return 1.0, 1.0, 1.0
    matched = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False)
                  .get_matching_blocks())
    return (2 * matched / (len(a) + len(b)), matched / len(a) if a else 1.0,
            matched / len(b) if b else 1.0)


class SentenceIndex:
    """The source sentences by their rarest character trigrams: the sentences most like a
    text are found in time linear in the text (not in the number of sentences), so a line can
    be looked for anywhere in the source (a line moved from sentence 100 to 900, a file of
    another test set).

    Each sentence is listed under its :data:`RARE` rarest trigrams; a text votes for the
    sentences listed under its trigrams, and the few with most votes are compared exactly
    (trigram Dice)."""

    #: trigrams per sentence in the index
    RARE = 12

    def __init__(self, keys: Sequence[str]) -> None:
        #: the normalised sentences (:func:`normalised`) and their trigram sets
        self.keys = list(keys)
        self.grams = [_grams(k) for k in self.keys]
        df: dict[str, int] = {}
        for gs in self.grams:
            for g in gs:
                df[g] = df.get(g, 0) + 1
        self._postings: dict[str, list[int]] = {}
        for i, gs in enumerate(self.grams):
            for g in sorted(gs, key=lambda g: (df[g], g))[:self.RARE]:
                self._postings.setdefault(g, []).append(i)

    @classmethod
    def of(cls, sentences: Sequence[str]) -> SentenceIndex:
        """The index of raw sentences (normalised here)."""
        return cls([normalised(s) for s in sentences])

    def __len__(self) -> int:
        return len(self.keys)

    def nearest(self, grams: frozenset[str], k: int = 3) -> list[tuple[int, float]]:
        """Up to ``k`` sentences most like a text (its trigram set), ``(index, Dice)``, most
        alike first (ties by index)."""
        votes: dict[int, int] = {}
        for g in grams:
            for i in self._postings.get(g, ()):
                votes[i] = votes.get(i, 0) + 1
        if not votes:
            return []
        top = sorted(votes, key=lambda i: (-votes[i], i))[:max(k, 5)]
        scored = sorted(((i, _dice(grams, self.grams[i])) for i in top),
                        key=lambda t: (-t[1], t[0]))
        return scored[:k]


def normalised(text: str) -> str:
    """``text`` as it is compared here: without whitespace, NFKC-normalised, case-folded
    (ASCII text, most of it, without the per-character walk: the same string)."""
    if text.isascii():
        return "".join(text.split()).lower()
    return _normalise(text)[0]


def grams(key: str) -> frozenset[str]:
    """The character trigrams of a normalised text (:func:`normalised`)."""
    return _grams(key)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice coefficient of two trigram sets (0.0 when either is empty)."""
    return _dice(a, b)


def anchors(index: SentenceIndex, texts: Sequence[frozenset[str]],
            sizes: Sequence[int]) -> list[tuple[int, int]]:
    """``(sentence, text)`` pairs, both increasing, where a text (a segment's trigrams,
    ``sizes`` its characters) clearly matches one source sentence (:data:`ANCHOR_DICE`, by
    :data:`ANCHOR_MARGIN` over the next nearest): the longest such chain in order (a longest
    increasing subsequence), so a stray match far away does not bend the centre line."""
    found: list[tuple[int, int]] = []
    for j, (g, size) in enumerate(zip(texts, sizes, strict=True)):
        if size < MIN_EVIDENCE:
            continue
        near = index.nearest(g, 2)
        if near and near[0][1] >= ANCHOR_DICE and \
                (len(near) == 1 or near[0][1] >= near[1][1] + ANCHOR_MARGIN):
            found.append((near[0][0], j))
    return _longest_chain(found)


def _longest_chain(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (given in increasing second element) whose first
    elements strictly increase (patience sorting, O(n log n))."""
    tails: list[int] = []  # smallest first element ending a chain of each length
    ends: list[int] = []  # index in pairs of that chain's end
    back: list[int] = [-1] * len(pairs)
    for k, (i, _) in enumerate(pairs):
        pos = bisect_left(tails, i)
        if pos == len(tails):
            tails.append(i)
            ends.append(k)
        else:
            tails[pos] = i
            ends[pos] = k
        back[k] = ends[pos - 1] if pos else -1
    out: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out


@dataclass
class _Segment:
    line: int
    start: int
    end: int
    key: str
    offsets: list[int]
    grams: frozenset[str]


def align_sentences(sources: Sequence[str], lines: Sequence[str], *,
                    min_similarity: float = MIN_SIMILARITY) -> SentenceAlignment:
    """Cut the hypothesis ``lines`` (paragraphs, essays, re-segmented sentences; empty lines
    allowed) into one piece per source sentence (see the module docstring)."""
    return align_to_index(SentenceIndex.of(sources), lines, min_similarity=min_similarity)


def align_to_index(index: SentenceIndex, lines: Sequence[str], *,
                   min_similarity: float = MIN_SIMILARITY) -> SentenceAlignment:
    """:func:`align_sentences` with the sources given as their :class:`SentenceIndex`
    (built once for many hypotheses)."""
    src_keys = index.keys
    src_grams = index.grams
    segs: list[_Segment] = []
    for k, line in enumerate(lines):
        for start, end in split_sentences(line):
            key, offsets = _normalise(line, start, end)
            if key:
                segs.append(_Segment(k, start, end, key, offsets, _grams(key)))
    chain = anchors(index, [s.grams for s in segs], [len(s.key) for s in segs])
    moves, complete = _best_path(src_keys, src_grams, segs, chain)
    pieces: list[Piece] = []
    spans: list[tuple[int, int, int] | None] = []  # (line, start, end) of one-line pieces
    extra: list[tuple[int, str]] = []
    for i0, i1, j0, j1 in moves:
        a, b = i1 - i0, j1 - j0
        label = f"{a}-{b}"
        if a == 0:
            extra.extend((s.line, lines[s.line][s.start:s.end]) for s in segs[j0:j1])
        elif b == 0:
            pieces.extend(_piece("", (), label, src_keys[i]) for i in range(i0, i1))
            spans.extend([None] * a)
        elif a == 1:
            part = segs[j0:j1]
            while len(part) > 1 and _foreign(part[0], src_grams[i0]):
                extra.append((part[0].line, lines[part[0].line][part[0].start:part[0].end]))
                part = part[1:]
            while len(part) > 1 and _foreign(part[-1], src_grams[i0]):
                extra.append((part[-1].line, lines[part[-1].line][part[-1].start:part[-1].end]))
                part = part[:-1]
            one_line = len({s.line for s in part}) == 1
            pieces.append(_piece(_join_segments(lines, part),
                                 tuple(sorted({s.line for s in part})), label, src_keys[i0]))
            spans.append((part[0].line, part[0].start, part[-1].end) if one_line else None)
        else:
            seg = segs[j0]
            for i, (start, end) in enumerate(_cut(lines[seg.line], seg, src_keys[i0:i1])):
                pieces.append(_piece(lines[seg.line][start:end].strip(), (seg.line,), label,
                                     src_keys[i0 + i]))
                spans.append((seg.line, start, end))
    _move_quotes(lines, pieces, spans, src_keys)
    checked = [_neighbour_check(pieces, src_grams, i, min_similarity) for i in range(len(pieces))]
    return SentenceAlignment(tuple(checked), tuple(extra), complete)


def _foreign(seg: _Segment, source: frozenset[str]) -> bool:
    """Whether ``seg`` is text of no source sentence beside the one ``source`` (its
    trigrams) belongs to: :data:`FOREIGN_SEGMENT`."""
    return (len(seg.key) > _SLACK and bool(seg.grams)
            and len(seg.grams & source) < FOREIGN_SEGMENT * len(seg.grams))


#: characters that may belong to either side of a sentence boundary (a closing quote after
#: the period, or one that the source puts at the start of the next sentence)
_MOVABLE = frozenset("\"'“”‘’„«»「」『』()（）[]")


def _move_quotes(lines: Sequence[str], pieces: list[Piece],
                 spans: list[tuple[int, int, int] | None], src_keys: Sequence[str]) -> None:
    """Move quotes and brackets across the cut between two neighbouring pieces of a line
    when the sources put them on the other side (``投缘！”`` | ``这样`` where the next source
    sentence starts with ``”``), keeping the cut that matches both sentences best."""
    for i in range(len(pieces) - 1):
        left, right = spans[i], spans[i + 1]
        if left is None or right is None or left[0] != right[0]:
            continue
        line = lines[left[0]]
        if line[left[2]:right[1]].strip():
            continue  # not neighbours
        cuts = {left[2]}
        p = left[2]  # back over the left piece's closing quotes...
        while p > left[1] + 1 and (line[p - 1] in _MOVABLE or line[p - 1].isspace()):
            p -= 1
            cuts.add(p)
        p = right[1]  # ... or on over the right piece's opening ones
        while p < right[2] - 1 and (line[p] in _MOVABLE or line[p].isspace()):
            p += 1
            cuts.add(p)
        if len(cuts) == 1:
            continue

        def fit(cut: int, start: int = left[1], end: int = right[2], text: str = line,
                first: str = src_keys[i], second: str = src_keys[i + 1]) -> float:
            return (similarity(first, normalised(text[start:cut]))[0]
                    + similarity(second, normalised(text[cut:end]))[0])

        now = fit(left[2])
        best = max(sorted(cuts), key=fit)
        if fit(best) <= now:
            continue
        spans[i], spans[i + 1] = (left[0], left[1], best), (left[0], best, right[2])
        for k, (_, a, b) in ((i, spans[i]), (i + 1, spans[i + 1])):  # type: ignore[misc]
            old = pieces[k]
            pieces[k] = _piece(line[a:b].strip(), old.lines, old.move, src_keys[k])


def _piece(text: str, lines: tuple[int, ...], move: str, src_key: str) -> Piece:
    key = normalised(text)
    ratio, src_cov, cov = _matched(src_key, key)
    unmatched = (round((1 - cov) * len(key)), round((1 - src_cov) * len(src_key)))
    return Piece(text, lines, move, ratio, cov, True, src_cov, unmatched)


def _neighbour_check(pieces: list[Piece], src_grams: Sequence[frozenset[str]], i: int,
                     min_similarity: float) -> Piece:
    """The piece of sentence ``i``, marked low-confidence when it fails the rule of the
    module docstring."""
    p = pieces[i]
    stray, lost = p.unmatched  # characters of the piece, and of the sentence, not matched
    if stray <= _SOURCE_SLACK and lost <= _SOURCE_SLACK:
        ok = True  # at most a few characters either way (a lone quote deleted)
    else:
        a, _, b = p.move.partition("-")
        cut = b == "1" and a != "1"  # a piece whose ends the cut made, not sentence ends
        ok = (p.similarity >= min_similarity
              and (p.coverage >= MIN_COVERAGE or stray <= _SLACK)
              and (not cut or p.source_coverage >= MIN_COVERAGE or lost <= _SOURCE_SLACK))
    if ok and p.text:
        g = _grams(normalised(p.text))
        own = _dice(g, src_grams[i])
        ok = all(_dice(g, src_grams[k]) <= own for k in (i - 1, i + 1) if 0 <= k < len(pieces))
    return p if ok else dataclasses.replace(p, confident=False)


def _join_segments(lines: Sequence[str], part: Sequence[_Segment]) -> str:
    """The text of consecutive segments: as written when they share a line, else joined by
    a space."""
    if len({s.line for s in part}) == 1:
        return lines[part[0].line][part[0].start:part[-1].end]
    return " ".join(lines[s.line][s.start:s.end] for s in part)


def _cut(line: str, seg: _Segment, src_keys: Sequence[str]) -> list[tuple[int, int]]:
    """Cut one segment into ``len(src_keys)`` pieces where a character alignment puts the
    sources' boundaries, each cut moved to the nearest whitespace; ``(start, end)`` spans."""
    joined = "".join(src_keys)
    blocks = difflib.SequenceMatcher(None, joined, seg.key, autojunk=False).get_matching_blocks()
    bounds: list[int] = []
    total = 0
    for k in src_keys[:-1]:
        total += len(k)
        bounds.append(_map_offset(total, blocks, len(joined), len(seg.key)))
    raw_cuts = [seg.start]
    for y in bounds:
        raw = seg.offsets[y] if y < len(seg.offsets) else seg.end
        raw_cuts.append(max(raw_cuts[-1], _snap(line, raw, seg.start, seg.end)))
    raw_cuts.append(seg.end)
    return list(pairwise(raw_cuts))


def _map_offset(x: int, blocks: Sequence[difflib.Match], n: int, m: int) -> int:
    """Where offset ``x`` of the first text falls in the second, by the matching blocks
    (interpolated across unmatched stretches)."""
    prev_a, prev_b = 0, 0
    for a, b, size in blocks:
        if x < a:  # in the gap before this block
            span_a, span_b = a - prev_a, b - prev_b
            return prev_b + (round((x - prev_a) * span_b / span_a) if span_a else 0)
        if x < a + size:
            return b + (x - a)
        prev_a, prev_b = a + size, b + size
    return min(m, prev_b + (x - prev_a))


def _snap(line: str, pos: int, lo: int, hi: int, reach: int = 12) -> int:
    """The whitespace position of ``line`` nearest to ``pos`` (within ``reach`` characters
    and ``lo..hi``), else ``pos``: cuts fall between words when they can."""
    for d in range(reach + 1):
        for q in (pos - d, pos + d):
            if lo < q < hi and line[q].isspace():
                return q
    return pos


def _centre(cum_s: Sequence[int], cum_h: Sequence[int],
            chain: Sequence[tuple[int, int]]) -> list[int]:
    """For every source boundary ``i`` (0..n), the segment boundary the band is centred on:
    through the anchors (anchor ``(a, b)`` puts boundary ``a`` at ``b`` and ``a + 1`` at
    ``b + 1``), and between and beyond them along the cumulative character counts, scaled
    to the stretch's own lengths."""
    n, m = len(cum_s) - 1, len(cum_h) - 1
    points = [(0, 0)]
    for a, b in chain:  # strictly increasing in both, so the points are too
        points += [p for p in ((a, b), (a + 1, b + 1)) if p[0] > points[-1][0]]
    if points[-1][0] == n:
        points.pop()
    points.append((n, m))
    centre = [0] * (n + 1)
    for (i0, j0), (i1, j1) in pairwise(points):
        span_s = cum_s[i1] - cum_s[i0]
        span_h = cum_h[j1] - cum_h[j0]
        for i in range(i0, i1 + 1):
            if span_s:
                target = cum_h[j0] + (cum_s[i] - cum_s[i0]) * span_h / span_s
                j = min(j1, max(j0, bisect_left(cum_h, target, j0, j1 + 1)))
            else:
                j = j0 + (j1 - j0) * (i - i0) // max(1, i1 - i0)
            centre[i] = j
    centre[0] = 0 if n else m
    return centre


def _best_path(src_keys: Sequence[str], src_grams: Sequence[frozenset[str]],
               segs: list[_Segment], chain: Sequence[tuple[int, int]] = ()
               ) -> tuple[list[tuple[int, int, int, int]], bool]:
    """The cheapest monotone sequence of moves ``(i0, i1, j0, j1)`` (see the module
    docstring), in a band around the anchors' centre line (:func:`_centre`), widened until
    the path stays inside or the band is :data:`MAX_BAND` wide; and whether it stayed
    inside."""
    n, m = len(src_keys), len(segs)
    cum_s = [0]
    for k in src_keys:
        cum_s.append(cum_s[-1] + len(k))
    cum_h = [0]
    for s in segs:
        cum_h.append(cum_h[-1] + len(s.key))
    centre = _centre(cum_s, cum_h, chain)
    for i in range(n + 1):  # the band must reach the corner whatever the lengths say
        centre[i] = max(centre[i], m - 3 * (n - i)) if n else m
    union: dict[tuple[str, int, int], frozenset[str]] = {}

    def grams(side: str, lo: int, hi: int) -> frozenset[str]:
        if hi - lo == 1:
            return src_grams[lo] if side == "s" else segs[lo].grams
        key = (side, lo, hi)
        if key not in union:
            parts = src_grams[lo:hi] if side == "s" else [s.grams for s in segs[lo:hi]]
            union[key] = frozenset().union(*parts)
        return union[key]

    def cost(i: int, j: int, a: int, b: int) -> float:
        ls = cum_s[i] - cum_s[i - a]
        lh = cum_h[j] - cum_h[j - b]
        penalty = _PENALTY.get((a, b), float(a + b - 1))
        if a == 0 or b == 0:
            return (ls + lh) / 2 + penalty
        d = _dice(grams("s", i - a, i), grams("h", j - b, j))
        return (1 - d) * (ls + lh) / 2 + penalty

    def moves(i: int, j: int) -> list[tuple[int, int]]:
        """The fixed moves, 1-b for every b up to the segments that the sentence's length
        can take (a source "sentence" that is a whole paragraph, as CoNLL-2014's sentence
        333 of 227 tokens, comes back as many segments), and a-1 likewise."""
        out = list(_MOVES)
        if i:
            limit = 1.5 * (cum_s[i] - cum_s[i - 1]) + 20
            b = 4
            while b <= j and cum_h[j] - cum_h[j - b + 1] <= limit:
                out.append((1, b))
                b += 1
        if j:  # and a-1 for a segment without inner sentence ends (commas for periods)
            limit = 1.5 * (cum_h[j] - cum_h[j - 1]) + 20
            a = 4
            while a <= i and cum_s[i] - cum_s[i - a + 1] <= limit:
                out.append((a, 1))
                a += 1
        return out

    width = _FIRST_BAND
    while True:
        lo = [max(0, c - width) for c in centre]
        hi = [min(m, c + width) for c in centre]
        lo[0], hi[n] = 0, m
        best: dict[tuple[int, int], float] = {(0, 0): 0.0}
        back: dict[tuple[int, int], tuple[int, int]] = {}
        for i in range(n + 1):
            for j in range(lo[i], hi[i] + 1):
                if i == 0 and j == 0:
                    continue
                top = float("inf")
                arg = None
                for a, b in moves(i, j):
                    if a > i or b > j:
                        continue
                    prev = best.get((i - a, j - b))
                    if prev is None:
                        continue
                    c = prev + cost(i, j, a, b)
                    if c < top:
                        top, arg = c, (a, b)
                if arg is not None:
                    best[(i, j)] = top
                    back[(i, j)] = arg
        whole = width >= m + 3 * n  # the band is the whole table: nothing is outside
        if (n, m) not in best:
            if whole or width >= MAX_BAND:  # not even a path to the corner
                return _fallback_path(n, m), False
            width = min(width * 4, MAX_BAND)
            continue
        path: list[tuple[int, int, int, int]] = []
        i, j = n, m
        edge = False
        while (i, j) != (0, 0):
            a, b = back[(i, j)]
            path.append((i - a, i, j - b, j))
            i, j = i - a, j - b
            edge = edge or (j == lo[i] and lo[i] > 0) or (j == hi[i] and hi[i] < m)
        if not edge or whole or width >= MAX_BAND:
            path.reverse()
            return path, not edge or whole
        width = min(width * 4, MAX_BAND)


def _fallback_path(n: int, m: int) -> list[tuple[int, int, int, int]]:
    """A path of 1-1 moves and then 1-0 or 0-1 to the corner, for an alignment that could
    not be made (it is reported incomplete; its pieces are never trusted)."""
    k = min(n, m)
    path = [(i, i + 1, i, i + 1) for i in range(k)]
    path += [(i, i + 1, m, m) for i in range(k, n)] + [(n, n, j, j + 1) for j in range(k, m)]
    return path



def looks_line_aligned(sources: Sequence[str], lines: Sequence[str], sample: int = 400) -> bool:
    """Whether lines paired with the sources by position are mostly alike: at most half of
    them (of up to ``sample`` evenly spaced pairs, so the check costs the same on any corpus)
    share less than a quarter of their character trigrams (Dice) with their source line,
    empty lines counting as alike. A
    re-segmented file of the same length fails it; a file shifted by a few lines, such as
    NTHU's CoNLL-2014 output, passes."""
    n = len(lines)
    if len(sources) != n:
        return False
    picked = sorted({k * n // sample for k in range(sample)}) if n > sample else range(n)
    unlike = sum(1 for i in picked if lines[i].strip()  # an empty output is no evidence
                 and _dice(_grams(normalised(sources[i])),
                           _grams(normalised(lines[i]))) < 0.25)
    return unlike <= len(picked) / 2


def essay_sentences(texts: AlignedEssays, names: Sequence[str] | None = None, *,
                    min_similarity: float = MIN_SIMILARITY) -> tuple[AlignedEssays, list[str]]:
    """Sentence units of MultiGEC-2025 essays (:mod:`gecscope.formats.multigec`), the third
    choice beside :func:`~gecscope.formats.multigec.to_units`' ``"essay"`` and
    ``"paragraph"``: every source essay is split into sentences (:func:`split_sentences`),
    and every other file's essay (references and hypotheses alike) is cut into the same
    sentences by :func:`align_sentences`, so essay-level outputs score per sentence. Unit ids
    are ``<ID>#<k>``.

    Returns the units and one message per file with low-confidence sentences (by essay and
    sentence number); a file where more than :data:`MAX_LOW_SHARE` of the sentences are
    low-confidence is a :class:`FormatError` naming it (``names`` label the other files)."""
    labels = list(names) if names is not None else [f"file {k + 1}"
                                                    for k in range(len(texts.others))]
    ids: list[str] = []
    source: list[str] = []
    split: list[list[str]] = []
    for essay_id, text in zip(texts.ids, texts.source, strict=True):
        sentences = [text[a:b] for a, b in split_sentences(text)]
        split.append(sentences)
        ids.extend(f"{essay_id}#{k}" for k in range(1, len(sentences) + 1))
        source.extend(sentences)
    others: list[list[str]] = []
    messages: list[str] = []
    for label, essays in zip(labels, texts.others, strict=True):
        out: list[str] = []
        low: list[str] = []
        for essay_id, sentences, text in zip(texts.ids, split, essays, strict=True):
            found = align_sentences(sentences, text.split("\n"),
                                    min_similarity=min_similarity)
            out.extend(found.texts)
            low.extend(f"essay {essay_id!r} sentence {i + 1} (similarity "
                       f"{found.pieces[i].similarity:.2f})" for i in found.low)
            low.extend(f"essay {essay_id!r}: text aligned to no source sentence "
                       f"({_clip(t)!r})" for _, t in found.extra)
        if len(low) > MAX_LOW_SHARE * len(source):
            raise FormatError(f"{len(low)} of {len(source)} sentences could not be aligned "
                              f"to the source essays' sentences confidently (more than "
                              f"{MAX_LOW_SHARE:.0%}): {'; '.join(low[:5])}; score it per "
                              "essay (to_units(level='essay'))", label)
        if low:
            messages.append(f"{label}: {len(low)} sentence(s) aligned with low confidence: "
                            + "; ".join(low[:20]))
        others.append(out)
    return AlignedEssays(ids, source, others), messages

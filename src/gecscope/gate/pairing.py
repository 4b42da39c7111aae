"""How a plain-text hypothesis' lines pair with the source sentences *as given*, before
anything is realigned: lines that are the output of another source sentence (swapped, shifted
or moved, at any distance), lines like no source sentence, where a file with lines lost or
added first diverges, and whether the file is the output for another test set altogether.

Lines are compared as :mod:`gecscope.alignment.sentences` compares text: whitespace removed,
NFKC-normalised, case-folded, by the Dice coefficient of their character trigram sets, so
tokenisation does not matter. A line is looked for among all source sentences through a
:class:`~gecscope.alignment.sentences.SentenceIndex` (rare trigrams), so the cost is linear
in the text whatever the distance a line moved.

Thresholds, measured on real data (the 13 CoNLL-2014 submissions, the 15 SEEDA systems
including GPT-3.5 and the fluency reference REF-F, JFLEG's four references against its
source): a system's line shares a Dice of 0.44 or more with its own source sentence in 99% of
lines and 0.49 in 99.9% (the fluency rewrites of REF-F and JFLEG reach down to 0.11 and 0.28
on a few lines); a line of JFLEG's source is at most 0.42 like any CoNLL-2014 sentence (0.23
median); two neighbouring CoNLL-2014 sentences reach 0.85 (near-duplicates).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.alignment.sentences import (
    MIN_EVIDENCE,
    SentenceIndex,
    dice,
    grams,
    normalised,
    split_sentences,
)

#: a segment is like a source sentence, for the other-test-set check, at this Dice or more
FOREIGN_DICE = 0.3
#: a file is another test set's output when more than this share of its evidence (its
#: segments of :data:`MIN_EVIDENCE` characters or more, counted one each, so that one runaway
#: line cannot outweigh the rest) is like no source sentence ...
FOREIGN_SHARE = 0.5
#: ... and it has at least this many such segments (a handful of lines is no evidence)
MIN_FOREIGN_SEGMENTS = 10
#: a line is the output of another source sentence when it shares this Dice or more with
#: it ...
MISPLACED_DICE = 0.5
#: ... and this much more than with its own
MISPLACED_MARGIN = 0.2
#: a line this like its own source sentence is in place (no search elsewhere)
IN_PLACE_DICE = 0.8


@dataclass(frozen=True)
class Misplaced:
    """A hypothesis line that is the output of another source sentence (0-based both)."""

    line: int
    source: int
    dice: float
    #: its Dice with the source sentence at its own position (0.0 when there is none)
    own: float


@dataclass(frozen=True)
class Pairing:
    """The lines of a hypothesis against the source sentences, as given."""

    n_sources: int
    n_lines: int
    #: lines that are another source sentence's output, by line
    misplaced: tuple[Misplaced, ...]
    #: non-empty lines (of :data:`MIN_EVIDENCE` characters or more) like no source sentence,
    #: neither their own nor any other (0-based)
    unlike: tuple[int, ...]
    #: share of the evidence segments like no source sentence
    foreign_share: float
    #: how many segments were evidence
    evidence: int
    #: lines with evidence that are like their own source sentence (Dice >= MISPLACED_DICE)
    in_place: int
    #: lines with evidence
    lines_with_evidence: int

    @property
    def foreign(self) -> bool:
        """Most of the text is like no source sentence: the output for another test set."""
        return self.evidence >= MIN_FOREIGN_SEGMENTS and self.foreign_share > FOREIGN_SHARE

    @property
    def sentence_file(self) -> bool:
        """Most lines are single source sentences' outputs (in place or misplaced)."""
        whole = self.in_place + len(self.misplaced)
        return self.lines_with_evidence > 0 and whole >= 0.9 * self.lines_with_evidence

    def groups(self) -> list[tuple[str, list[Misplaced]]]:
        """The misplaced lines grouped as ``("swap", [a, b])`` (each the other's source's
        output), ``("shift", run)`` (consecutive lines with the same offset) and
        ``("move", [one])``."""
        by_line = {m.line: m for m in self.misplaced}
        done: set[int] = set()
        out: list[tuple[str, list[Misplaced]]] = []
        for m in self.misplaced:
            if m.line in done:
                continue
            other = by_line.get(m.source)
            if other is not None and other.source == m.line and other.line not in done:
                out.append(("swap", [m, other]))
                done.update((m.line, other.line))
                continue
            run = [m]
            k = m.source - m.line
            while True:  # a run goes on over up to 2 lines that are no evidence either way
                nxt = next((by_line[q] for q in range(run[-1].line + 1, run[-1].line + 4)
                            if q in by_line), None)
                if nxt is None or nxt.source - nxt.line != k or nxt.line in done:
                    break
                run.append(nxt)
            done.update(r.line for r in run)
            out.append(("shift" if len(run) > 1 else "move", run))
        return out

    def describe(self, limit: int = 5) -> str:
        """The misplaced lines in words, 1-based ("lines 3 and 4 are swapped (...)")."""
        items = []
        for kind, ms in self.groups():
            if kind == "swap":
                a, b = ms
                items.append(f"lines {a.line + 1} and {b.line + 1} are swapped (line "
                             f"{a.line + 1} is the output of source sentence {a.source + 1}, "
                             f"line {b.line + 1} of {b.source + 1})")
            elif kind == "shift":
                k = ms[0].source - ms[0].line
                items.append(f"lines {ms[0].line + 1}-{ms[-1].line + 1} ({len(ms)} lines) "
                             f"are each the output of the source sentence {abs(k)} "
                             f"{'after' if k > 0 else 'before'} their own (line "
                             f"{ms[0].line + 1} is source sentence {ms[0].source + 1}'s)")
            else:
                m = ms[0]
                items.append(f"line {m.line + 1} is the output of source sentence "
                             f"{m.source + 1} (trigram similarity {m.dice:.2f}, "
                             f"{m.own:.2f} to its own)")
        more = f"; and {len(items) - limit} more" if len(items) > limit else ""
        return "; ".join(items[:limit]) + more

    def first_divergence(self) -> str | None:
        """Where a sentence-per-line file with lines lost or added first goes astray, in
        words: the first misplaced line and what it means; ``None`` when no line is."""
        if not self.misplaced:
            return None
        m = self.misplaced[0]
        k = m.source - m.line
        what = (f"{k} line(s) lost before it (source sentence"
                f"{'s' if k > 1 else ''} {_span(m.line, m.source)} "
                f"{'have' if k > 1 else 'has'} no line)" if k > 0
                else f"{-k} line(s) added before it")
        return (f"the lines first diverge at hypothesis line {m.line + 1}, the output of "
                f"source sentence {m.source + 1}: {what}")


def _span(first: int, stop: int) -> str:
    """1-based ``first+1``..``stop`` in words."""
    return f"{first + 1}" if stop - first == 1 else f"{first + 1}-{stop}"


def pair_lines(index: SentenceIndex, lines: Sequence[str]) -> Pairing:
    """The :class:`Pairing` of hypothesis ``lines`` with the source sentences of ``index``."""
    n, m = len(index), len(lines)
    misplaced: list[Misplaced] = []
    unlike: list[int] = []
    like = evidence = in_place = with_evidence = 0
    for j, line in enumerate(lines):
        key = normalised(line)
        if not key:
            continue
        g = grams(key)
        own = dice(g, index.grams[j]) if j < n else 0.0
        long_enough = len(key) >= MIN_EVIDENCE
        if long_enough:
            with_evidence += 1
        best, best_i = own, j
        if own < IN_PLACE_DICE and long_enough:
            for i, d in index.nearest(g, 3):
                if i != j and d > best:
                    best, best_i = d, i
            if best_i != j and best >= MISPLACED_DICE and best >= own + MISPLACED_MARGIN:
                misplaced.append(Misplaced(j, best_i, best, own))
            elif own >= MISPLACED_DICE:
                in_place += 1
        elif long_enough:
            in_place += 1
        # the other-test-set evidence: segments (a paragraph line is several sentences)
        if best >= FOREIGN_DICE:
            if len(key) >= MIN_EVIDENCE:  # as many segments as it has sentences
                k = max(1, sum(1 for a, b in split_sentences(line)
                               if len(normalised(line[a:b])) >= MIN_EVIDENCE))
                like += k
                evidence += k
            continue
        any_like = False
        for start, end in split_sentences(line):
            seg = normalised(line[start:end])
            if len(seg) < MIN_EVIDENCE:
                continue
            evidence += 1
            near = index.nearest(grams(seg), 1)
            if near and near[0][1] >= FOREIGN_DICE:
                like += 1
                any_like = True
        if long_enough and not any_like:
            unlike.append(j)
    share = 1 - like / evidence if evidence else 0.0
    return Pairing(n, m, tuple(misplaced), tuple(unlike), share, evidence, in_place,
                   with_evidence)

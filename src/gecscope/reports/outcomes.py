"""Edit outcomes of one hypothesis sentence against its references (for the sentence browser).

Computed from M2 edits, independently of any metric: the hypothesis edits are compared with
the edits of the best reference for this sentence (the annotator that maximises the sentence's
F0.5, then TP, then fewer FP and FN; the first annotator on ties). An edit matches when span
and correction are equal (any of the reference's alternative corrections counts).

* ``tp``: a hypothesis edit that matches a reference edit;
* ``fp_ne`` (FP, necessary): an unmatched hypothesis edit whose span overlaps a span the
  reference also changed (the right place, the wrong correction; CLEME2.0's wrong-correction);
* ``fp_un`` (FP, unnecessary): an unmatched hypothesis edit where the reference changed nothing
  (over-correction);
* ``fn``: a reference edit no hypothesis edit matches.

Spans overlap when they share a token; an insertion (empty span at position p) overlaps a span
``[s, e)`` when ``s <= p <= e``, and another insertion at the same p. ``noop`` and ``UNK`` edits
are ignored, as ERRANT does in correction mode. The choice of reference is per sentence, so it
can differ from ERRANT's corpus-level greedy choice; it serves display, not scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.stats.prf import prf
from gecscope.types import NOOP_TYPE, UNK_TYPE, Edit, Sentence

OUTCOMES = ("tp", "fp_ne", "fp_un", "fn")
OUTCOME_LABELS = {"tp": "TP", "fp_ne": "FP necessary", "fp_un": "FP unnecessary", "fn": "FN"}


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """One edit with its outcome; ``fn`` edits are the reference's, the others the system's."""

    start: int
    end: int
    original: str
    correction: str
    type: str
    outcome: str

    def as_dict(self) -> dict[str, object]:
        return {"start": self.start, "end": self.end, "original": self.original,
                "correction": self.correction, "type": self.type, "outcome": self.outcome}


def _usable(edits: Sequence[Edit]) -> list[Edit]:
    return [e for e in edits if e.type not in (NOOP_TYPE, UNK_TYPE)]


def spans_overlap(a: Edit, b: Edit) -> bool:
    """True when two edits touch the same source tokens (see the module docstring)."""
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    if a.start == a.end:
        return b.start <= a.start <= b.end
    if b.start == b.end:
        return a.start <= b.start <= a.end
    return a.start < b.end and b.start < a.end


def _matches(h: Edit, r: Edit) -> bool:
    return h.start == r.start and h.end == r.end and h.correction in r.corrections


def classify(source: Sequence[str], hyp_edits: Sequence[Edit],
             ref_edits: Sequence[Edit]) -> list[EditOutcome]:
    """Outcomes of ``hyp_edits`` against one reference, FN reference edits included, by position."""
    hyp = _usable(hyp_edits)
    ref = _usable(ref_edits)
    matched: set[int] = set()
    out: list[EditOutcome] = []
    for h in hyp:
        hit = next((j for j, r in enumerate(ref) if j not in matched and _matches(h, r)), None)
        if hit is not None:
            matched.add(hit)
            outcome = "tp"
        elif any(spans_overlap(h, r) for r in ref):
            outcome = "fp_ne"
        else:
            outcome = "fp_un"
        out.append(EditOutcome(h.start, h.end, " ".join(source[h.start:h.end]),
                               " ".join(h.correction), h.type, outcome))
    for j, r in enumerate(ref):
        if j not in matched:
            out.append(EditOutcome(r.start, r.end, " ".join(source[r.start:r.end]),
                                   " ".join(r.correction), r.type, "fn"))
    out.sort(key=lambda e: (e.start, e.end, e.outcome == "fn"))
    return out


def count(outcomes: Sequence[EditOutcome]) -> tuple[int, int, int, int]:
    """TP, FP necessary, FP unnecessary, FN."""
    c = dict.fromkeys(OUTCOMES, 0)
    for o in outcomes:
        c[o.outcome] += 1
    return c["tp"], c["fp_ne"], c["fp_un"], c["fn"]


def best_reference(hyp_sentence: Sentence | None, ref_sentence: Sentence,
                   beta: float = 0.5) -> tuple[int | None, list[EditOutcome]]:
    """The chosen reference annotator (``None`` when there is none) and the edit outcomes."""
    hyp_edits: tuple[Edit, ...] = ()
    if hyp_sentence is not None and hyp_sentence.annotations:
        hyp_edits = hyp_sentence.annotations[0].edits
    source = ref_sentence.source
    if not ref_sentence.annotations:
        return None, classify(source, hyp_edits, ())
    best: tuple[tuple[float, int, int, int], int, list[EditOutcome]] | None = None
    for ann in ref_sentence.annotations:
        outs = classify(source, hyp_edits, ann.edits)
        tp, fp_ne, fp_un, fn = count(outs)
        key = (prf(tp, fp_ne + fp_un, fn, beta)[2], tp, -(fp_ne + fp_un), -fn)
        if best is None or key > best[0]:
            best = (key, ann.annotator, outs)
    assert best is not None
    return best[1], best[2]

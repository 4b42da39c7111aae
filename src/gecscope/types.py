"""The data model shared by every format and metric.

A :class:`Corpus` is a sequence of :class:`Sentence` objects. Each sentence holds its source
tokens and, per annotator, an :class:`Annotation` with that annotator's :class:`Edit` list.
An annotator who saw the sentence and changed nothing has an annotation with no edits (an M2
``noop`` line). Hypotheses are either token sequences or a corpus whose single annotator holds
the system's edits (an M2 file written by ERRANT).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Tokens = tuple[str, ...]

NOOP_TYPE = "noop"
NA_TYPE = "NA"  # ChERRANT: the annotator could not correct the sentence (无法标注)
UNK_TYPE = "UNK"


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace source tokens ``[start, end)`` by ``correction``.

    ``alternatives`` holds further corrections an annotator accepts for the same span (M2 ``||``);
    ``type`` is the error type (ERRANT's ``R:NOUN:NUM``, NUCLE's ``Nn``...).
    """

    start: int
    end: int
    correction: Tokens = ()
    type: str = ""
    alternatives: tuple[Tokens, ...] = ()
    required: bool = True
    comment: str = "-NONE-"

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid edit span [{self.start}, {self.end})")

    @property
    def corrections(self) -> tuple[Tokens, ...]:
        """The main correction followed by its alternatives."""
        return (self.correction, *self.alternatives)

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end

    @property
    def is_deletion(self) -> bool:
        return not self.correction

    @property
    def correction_str(self) -> str:
        return " ".join(self.correction)


@dataclass(frozen=True, slots=True)
class Annotation:
    """One annotator's edits of one sentence (empty when the annotator made no change).

    ``not_annotatable`` marks ChERRANT's ``NA`` line (the annotator could not correct the
    sentence): no edits, and a sentence annotated only so is left out of edit scoring.
    ``alternatives`` holds further edit sets that reach the same correction by another
    cheapest alignment (ChERRANT's ``T<k>-A1``, ``-A2``...): the corrected text and every
    metric use ``edits``; ChERRANT-style scoring reads the union (:attr:`all_edits`)."""

    annotator: int
    edits: tuple[Edit, ...] = ()
    not_annotatable: bool = False
    alternatives: tuple[tuple[Edit, ...], ...] = ()

    @property
    def all_edits(self) -> tuple[Edit, ...]:
        """``edits`` followed by the edits of every alternative alignment."""
        if not self.alternatives:
            return self.edits
        return self.edits + tuple(e for alt in self.alternatives for e in alt)


def apply_edits(source: Sequence[str], edits: Iterable[Edit], skip_types: frozenset[str] =
                frozenset({NOOP_TYPE, UNK_TYPE})) -> Tokens:
    """Apply non-overlapping edits to ``source``; edits of ``skip_types`` leave the text alone.

    Edits are applied in order of position. When two edits overlap, the later one (in start
    order) is skipped: M2 annotations of a single annotator never overlap in practice, and
    this keeps the derived sentence well defined when they do.
    """
    out: list[str] = []
    pos = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.type in skip_types:
            continue
        if edit.start < pos:
            continue
        out.extend(source[pos:edit.start])
        out.extend(edit.correction)
        pos = edit.end
    out.extend(source[pos:])
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A source sentence and every annotator's edits of it."""

    source: Tokens
    annotations: tuple[Annotation, ...] = ()

    @property
    def annotators(self) -> tuple[int, ...]:
        return tuple(a.annotator for a in self.annotations)

    def edits(self, annotator: int) -> tuple[Edit, ...]:
        """Edits of ``annotator`` (empty if that annotator has none or did not annotate)."""
        for ann in self.annotations:
            if ann.annotator == annotator:
                return ann.edits
        return ()

    def reference(self, annotator: int) -> Tokens:
        """The corrected sentence of ``annotator``; the source if it has no annotation."""
        return apply_edits(self.source, self.edits(annotator))

    def references(self) -> dict[int, Tokens]:
        return {a.annotator: apply_edits(self.source, a.edits) for a in self.annotations}


@dataclass(frozen=True, slots=True)
class Corpus:
    """An annotated corpus (the content of an M2 file)."""

    sentences: tuple[Sentence, ...]
    path: str | None = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.sentences)

    def __iter__(self) -> Iterator[Sentence]:
        return iter(self.sentences)

    def __getitem__(self, i: int) -> Sentence:
        return self.sentences[i]

    def subset(self, start: int, stop: int) -> Corpus:
        """Sentences ``start`` to ``stop - 1``, under the same path."""
        return Corpus(self.sentences[start:stop], self.path)

    @property
    def sources(self) -> list[Tokens]:
        return [s.source for s in self.sentences]

    @property
    def annotators(self) -> tuple[int, ...]:
        """Every annotator id that occurs in the corpus, ascending."""
        return tuple(sorted({a for s in self.sentences for a in s.annotators}))

    def references(self, annotator: int) -> list[Tokens]:
        """One corrected sentence per source for ``annotator`` (source where it did not annotate)."""
        return [s.reference(annotator) for s in self.sentences]

    @property
    def system_annotator(self) -> int:
        """The annotator whose edits are a system's in a system M2: id 0, or the only one."""
        ids = self.annotators
        return 0 if 0 in ids or not ids else ids[0]

    def hypotheses(self) -> list[Tokens]:
        """For a system M2 (one annotator, id 0 or the only one): the corrected sentences."""
        return self.references(self.system_annotator)


T = TypeVar("T")


class Slot(Generic[T]):
    """A piece of reference-level derived data of an :class:`EvalData`, declared (as a
    module-level constant) by the component that fills it, saying whether it travels to
    worker processes (``portable``: plain data that is costly to rebuild) and how a sentence
    range cuts it (``cut(value, start, stop)``; without one, :meth:`EvalData.subset` starts
    without it). A slot is pickled by reference (its module and name), so a worker finds the
    same slot object."""

    def __init__(self, module: str, name: str, *, portable: bool = False,
                 cut: Callable[[T, int, int], T] | None = None) -> None:
        self.module, self.name, self.portable, self.cut = module, name, portable, cut

    def __repr__(self) -> str:
        return f"Slot({self.module}.{self.name})"

    def __reduce__(self) -> tuple[Callable[[str, str], Slot[Any]], tuple[str, str]]:
        return _declared_slot, (self.module, self.name)


def _declared_slot(module: str, name: str) -> Slot[Any]:
    import importlib

    slot = getattr(importlib.import_module(module), name)
    assert isinstance(slot, Slot), (module, name)
    return slot

"""A sentence's distinct outcomes: each one's counts, first witness and reference pieces.

:class:`Option` is one outcome. :class:`Outcomes` holds all of a decomposed sentence's
outcomes as arrays (counts, witnesses, and which piece of each region), so that choosing the
best reference, which needs only the counts, builds no Python object per outcome (CoNLL-2014:
446,723 outcomes for 13 systems); an :class:`Option` is made when one is asked for (the chosen
one, explain, verbose output, corpus optimisation), equal to the one the search would have
built.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from gecscope.metrics.imeasure.core import IMeasureCounts
from gecscope.types import Tokens

Witness = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Option:
    """A distinct outcome for one sentence: its counts and the first reference producing them
    (kept as its pieces, joined on demand: most outcomes' references are never looked at)."""

    counts: IMeasureCounts
    witness: Witness
    pieces: tuple[Tokens, ...]

    @property
    def reference(self) -> Tokens:
        if len(self.pieces) == 1:
            return self.pieces[0]
        return tuple(t for p in self.pieces for t in p)


class Outcomes(Sequence[Option]):
    """Outcomes in first-witness order, stored as arrays.

    ``counts`` is ``(n, 7)`` int64 (the fields of :class:`IMeasureCounts` in order),
    ``witnesses`` ``(n, width)`` int64, ``choice`` ``(regions, n)``: outcome ``i`` takes piece
    ``pieces[r][choice[r, i]]`` in region ``r``. Indexing and iteration build :class:`Option`
    objects; :attr:`counts` is what the choice of the best outcome reads."""

    __slots__ = ("_choice", "_pieces", "_witnesses", "counts")

    def __init__(self, counts: Any, witnesses: Any, choice: Any,
                 pieces: Sequence[Sequence[Tokens]]) -> None:
        self.counts = counts
        self._witnesses = witnesses
        self._choice = choice
        self._pieces = [list(p) for p in pieces]

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def _option(self, i: int) -> Option:
        row = self.counts[i].tolist()
        return Option(IMeasureCounts(*row), tuple(self._witnesses[i].tolist()),
                      tuple(ps[c] for ps, c in zip(self._pieces, self._choice[:, i].tolist(),
                                                   strict=True)))

    @overload
    def __getitem__(self, i: int) -> Option: ...

    @overload
    def __getitem__(self, i: slice) -> list[Option]: ...

    def __getitem__(self, i: int | slice) -> Option | list[Option]:
        if isinstance(i, slice):
            return [self._option(k) for k in range(len(self))[i]]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self._option(i % n)

    def __iter__(self) -> Iterator[Option]:
        counts = self.counts.tolist()
        witnesses = self._witnesses.tolist()
        cols = [[ps[c] for c in row] for ps, row in zip(self._pieces, self._choice.tolist(),
                                                         strict=True)]
        for row, w, ps in zip(counts, witnesses, zip(*cols) if cols else
                              ((),) * len(counts), strict=True):
            yield Option(IMeasureCounts(*row), tuple(w), tuple(ps))

    def counts_list(self) -> list[IMeasureCounts]:
        """Every outcome's counts as :class:`IMeasureCounts` (corpus optimisation)."""
        return [IMeasureCounts(*row) for row in self.counts.tolist()]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other,
                                                                          strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Outcomes({len(self)} outcomes)"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (Outcomes, (self.counts, self._witnesses, self._choice, self._pieces))


def counts_of(options: Sequence[Option]) -> Any:
    """The counts of ``options`` for :func:`gecscope.metrics.imeasure.core.best_option`: the
    array of :class:`Outcomes`, else a list of :class:`IMeasureCounts`."""
    if isinstance(options, Outcomes):
        return options.counts
    return [o.counts for o in options]

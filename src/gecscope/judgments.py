"""Human judgments: ranking items of several system outputs, and the pairwise comparisons in them.

A judge sees one source sentence and up to five outputs and ranks them (1 = best; equal ranks
are ties). Systems whose outputs were identical are shown once and share that rank (Appraise
writes them as one ``<translation system="A B C">``). Every pair of systems in an item is one
comparison; :meth:`RankingItem.comparisons` expands the collapsed groups the way GJG15's scripts
and SEEDA's do (each member of a group is compared with everything else; members of one group
tie with each other).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

WIN = 1
TIE = 0
LOSS = -1


@dataclass(frozen=True, slots=True)
class RankedOutput:
    """One ranked output: the (possibly several, identical-output) systems and their rank."""

    systems: tuple[str, ...]
    rank: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """Outcome of ``a`` against ``b`` in one ranking item: ``WIN`` (a better), ``TIE`` or ``LOSS``."""

    a: str
    b: str
    outcome: int
    sentence: int = -1
    judge: str = ""


@dataclass(frozen=True, slots=True)
class RankingItem:
    """One judge's ranking of the outputs for one source sentence.

    ``sentence`` is the 0-based position of the sentence in the test set (the reader converts
    the file's ``src-id``, which is 0-based in GJG15 and 1-based in SEEDA); ``line`` is the
    1-based line of the ``<ranking-item>`` element in its file, for messages.
    """

    sentence: int
    judge: str
    outputs: tuple[RankedOutput, ...]
    item_id: str = ""
    doc_id: str = ""
    duration: str = ""
    line: int = 0

    @property
    def ranks(self) -> dict[str, int]:
        """System -> rank, with collapsed groups expanded (in document order)."""
        return {s: out.rank for out in self.outputs for s in out.systems}

    def comparisons(self, systems: Iterable[str] | None = None) -> Iterator[Comparison]:
        """Every pair of systems of this item (both in ``systems`` when given), in document order.

        The pair is oriented as it appears in the item (earlier system first).
        """
        keep = None if systems is None else frozenset(systems)
        ranked = [(s, r) for s, r in self.ranks.items() if keep is None or s in keep]
        for i, (a, ra) in enumerate(ranked):
            for b, rb in ranked[i + 1:]:
                outcome = WIN if ra < rb else LOSS if ra > rb else TIE
                yield Comparison(a, b, outcome, self.sentence, self.judge)


@dataclass(frozen=True)
class Judgments:
    """All ranking items of one file (one granularity, e.g. SEEDA's sentence-level rankings)."""

    items: tuple[RankingItem, ...]
    path: str | None = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[RankingItem]:
        return iter(self.items)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system that occurs, sorted by code point (SEEDA's "alphabetical" order)."""
        return tuple(sorted({s for it in self.items for s in it.ranks}))

    @property
    def judges(self) -> tuple[str, ...]:
        return tuple(sorted({it.judge for it in self.items}))

    @property
    def sentences(self) -> tuple[int, ...]:
        """The judged sentences (0-based test-set positions), ascending, each once."""
        return tuple(sorted({it.sentence for it in self.items}))

    def comparisons(self, systems: Iterable[str] | None = None) -> list[Comparison]:
        """All pairwise comparisons of all items, in file order."""
        keep = None if systems is None else frozenset(systems)
        return [c for it in self.items for c in it.comparisons(keep)]

    def filter(self, *, judges: Sequence[str] | None = None,
               exclude_judges: Sequence[str] = ()) -> Judgments:
        """The items of some judges only (or of all but some)."""
        items = tuple(it for it in self.items
                      if (judges is None or it.judge in judges) and it.judge not in exclude_judges)
        return Judgments(items, self.path)

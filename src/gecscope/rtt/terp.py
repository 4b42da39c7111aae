"""TERp-style alignment of a round trip to the original sentence.

TER (Snover et al., 2006) is the least number of edits (insertions, deletions, substitutions and
block *shifts* of hypothesis phrases) turning a hypothesis into the reference, normalised by the
reference length; shifts are searched greedily (apply the shift that lowers the edit distance
most, repeat while one does), a shifted phrase must match the reference words at its new place,
must contain an error and be moved onto reference words that contain one. TERp (Snover et al.,
2009) adds matches by Porter stem, by WordNet synonymy and by paraphrase, each with its own cost,
and lets shifts use them too. Here the *reference* is the original sentence (the lattice
backbone) and the *hypothesis* a round trip, as in Madnani et al. (2012, Figure 2).

Costs are the documented defaults of :class:`TerpConfig` (TERp's own are tuned per task):
match 0, stem 0.2, synonym 0.2, paraphrase 0.2 per phrase pair, substitution, insertion,
deletion and shift 1.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gecscope.errors import ConfigError, FormatError
from gecscope.rtt.porter import stem as porter_stem
from gecscope.types import Tokens

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.rtt.wordnet import WordNet

MATCH = "match"
SUBSTITUTION = "substitution"
INSERTION = "insertion"
DELETION = "deletion"
STEM = "stem"
SYNONYM = "synonym"
PARAPHRASE = "paraphrase"
SHIFT = "shift"
OPS = (MATCH, SUBSTITUTION, INSERTION, DELETION, STEM, SYNONYM, PARAPHRASE)
#: One-letter codes of the operations, as in Figure 2 of Madnani et al. (2012).
OP_CODES = {MATCH: "M", SUBSTITUTION: "S", INSERTION: "I", DELETION: "D", STEM: "T",
            SYNONYM: "Y", PARAPHRASE: "P"}
_EQUIVALENT = frozenset({MATCH, STEM, SYNONYM, PARAPHRASE})


@dataclass(frozen=True)
class TerpConfig:
    """Edit costs and search limits of the aligner (TERCOM's limits: phrases of at most 10
    words shifted by at most 50 positions)."""

    match: float = 0.0
    stem: float = 0.2
    synonym: float = 0.2
    paraphrase: float = 0.2
    substitution: float = 1.0
    insertion: float = 1.0
    deletion: float = 1.0
    shift: float = 1.0
    max_shift_size: int = 10
    max_shift_distance: int = 50
    use_stems: bool = True
    use_synonyms: bool = True
    case_sensitive: bool = False
    wordnet_dir: str | None = None

    def __post_init__(self) -> None:
        for name in ("match", "stem", "synonym", "paraphrase", "substitution", "insertion",
                     "deletion", "shift"):
            if getattr(self, name) < 0:
                raise ConfigError(f"TERp cost {name} must be >= 0, got {getattr(self, name)}")
        if not self.match <= min(self.stem, self.synonym) <= max(self.stem, self.synonym) \
                <= self.substitution:
            raise ConfigError("TERp costs must satisfy match <= stem/synonym <= substitution")
        if self.max_shift_size < 0 or self.max_shift_distance < 0:
            raise ConfigError("max_shift_size and max_shift_distance must be >= 0")


class ParaphraseTable:
    """Phrase pairs that count as paraphrases (symmetric, compared lower-cased)."""

    def __init__(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]] = ()):
        self._table: dict[Tokens, set[Tokens]] = {}
        for a, b in pairs:
            self.add(a, b)

    def add(self, a: Sequence[str], b: Sequence[str]) -> None:
        ta = tuple(w.lower() for w in a)
        tb = tuple(w.lower() for w in b)
        if not ta or not tb or ta == tb:
            return
        self._table.setdefault(ta, set()).add(tb)
        self._table.setdefault(tb, set()).add(ta)

    def __len__(self) -> int:
        return sum(len(v) for v in self._table.values()) // 2

    def get(self, phrase: Tokens) -> set[Tokens]:
        return self._table.get(phrase, set())

    @property
    def max_len(self) -> int:
        return max((len(k) for k in self._table), default=0)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ParaphraseTable:
        """Read ``phrase<TAB>paraphrase[<TAB>score]`` lines (tokens separated by spaces; ``#``
        starts a comment line)."""
        from gecscope.formats.base import read_text, split_lines

        table = cls()
        for no, line in enumerate(split_lines(read_text(path)), 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 2 or not cols[0].split() or not cols[1].split():
                raise FormatError("expected 'phrase<TAB>paraphrase[<TAB>score]'", path, no)
            table.add(cols[0].split(), cols[1].split())
        return table


@dataclass(frozen=True)
class AlignOp:
    """One alignment link: original tokens ``[ref_start, ref_end)`` against round-trip tokens
    ``hyp`` (empty for a deletion; the span is empty for an insertion). ``shifted`` marks round
    trip words TERp moved before aligning them (the asterisk of Figure 2)."""

    op: str
    ref_start: int
    ref_end: int
    ref: Tokens
    hyp: Tokens
    hyp_positions: tuple[int, ...] = ()
    shifted: bool = False

    @property
    def code(self) -> str:
        return OP_CODES[self.op]


@dataclass(frozen=True)
class Alignment:
    """The TERp alignment of a round trip (hypothesis) to the original (reference)."""

    reference: Tokens
    hypothesis: Tokens
    shifted_hypothesis: Tokens
    ops: tuple[AlignOp, ...]
    cost: float
    shifts: int

    @property
    def ter(self) -> float:
        """Edit cost (including shifts) per original token."""
        return self.cost / max(len(self.reference), 1)

    def counts(self) -> dict[str, int]:
        out = {op: 0 for op in (*OPS, SHIFT)}
        for o in self.ops:
            out[o.op] += 1
        out[SHIFT] = self.shifts
        return out

    def table(self) -> str:
        """Two columns and the operation codes, as in Figure 2 of the paper."""
        rows = []
        for o in self.ops:
            left = " ".join(o.ref)
            right = " ".join(o.hyp)
            rows.append((left, right, f"[{o.code}]" + (" [*]" if o.shifted else "")))
        w = max((len(r[0]) for r in rows), default=0)
        w2 = max((len(r[1]) for r in rows), default=0)
        return "\n".join(f"{a:<{w}} -- {b:<{w2}}  {c}" for a, b, c in rows)


@dataclass
class _Path:
    cost: float
    steps: list[tuple[str, int, int, int, int]] = field(default_factory=list)


class TerpAligner:
    """Aligns round trips to an original with TER shifts plus stem, synonym and paraphrase
    matches. WordNet is loaded on first use when ``config.use_synonyms`` is set."""

    def __init__(self, config: TerpConfig | None = None,
                 paraphrases: ParaphraseTable | None = None):
        self.config = config or TerpConfig()
        self.paraphrases = paraphrases if paraphrases is not None and len(paraphrases) else None
        self._kind_cache: dict[tuple[str, str], str] = {}
        self._wordnet: WordNet | None = None
        c = self.config
        self._op_cost = {MATCH: c.match, STEM: c.stem, SYNONYM: c.synonym,
                         SUBSTITUTION: c.substitution}

    def _norm(self, w: str) -> str:
        return w if self.config.case_sensitive else w.lower()

    def word_relation(self, ref_word: str, hyp_word: str) -> str:
        """``match``, ``stem``, ``synonym`` or ``substitution`` for two words."""
        a, b = self._norm(ref_word), self._norm(hyp_word)
        if a == b:
            return MATCH
        key = (a, b)
        kind = self._kind_cache.get(key)
        if kind is None:
            kind = SUBSTITUTION
            if self.config.use_stems and a.isalpha() and b.isalpha() and \
                    porter_stem(a) == porter_stem(b):
                kind = STEM
            elif self.config.use_synonyms and a.isalpha() and b.isalpha():
                if self._wordnet is None:
                    from gecscope.rtt.wordnet import load_wordnet

                    self._wordnet = load_wordnet(self.config.wordnet_dir)
                if self._wordnet.are_synonyms(a, b):
                    kind = SYNONYM
            self._kind_cache[key] = kind
        return kind

    def _kinds(self, ref: Tokens, hyp: Tokens) -> list[list[str]]:
        """Relation of every (original word, round-trip word) pair, memoised by word pair."""
        cache = self._kind_cache
        rl = [self._norm(w) for w in ref]
        hl = [self._norm(w) for w in hyp]
        out = []
        for r in rl:
            row = []
            for h in hl:
                if r == h:
                    row.append(MATCH)
                else:
                    k = cache.get((r, h))
                    row.append(k if k is not None else self.word_relation(r, h))
            out.append(row)
        return out

    # -- edit distance -------------------------------------------------------------------------
    def _distance(self, ref: Tokens, hyp: list[str], kinds: list[list[str]], perm: list[int],
                  para: dict[int, list[tuple[int, set[Tokens]]]] | None,
                  want_path: bool) -> _Path:
        """Weighted Levenshtein between ``ref`` and the permuted hypothesis ``hyp`` (O(n*m),
        plus paraphrase spans)."""
        c = self.config
        opc = self._op_cost
        n, m = len(ref), len(hyp)
        ins, dele = c.insertion, c.deletion
        prev = [j * ins for j in range(m + 1)]
        rows = [prev]
        back: list[list[tuple[str, int, int]]] = [[(INSERTION, 0, j - 1) for j in range(m + 1)]]
        hyp_low = [w.lower() for w in hyp] if para else []
        for i in range(1, n + 1):
            ki = kinds[i - 1]
            cur = [i * dele] + [0.0] * m
            brow: list[tuple[str, int, int]] = [(DELETION, i - 1, 0)] + [("", 0, 0)] * m
            for j in range(1, m + 1):
                kd = ki[perm[j - 1]]
                best = prev[j - 1] + opc[kd]
                bk: tuple[str, int, int] = (kd, i - 1, j - 1)
                d = prev[j] + dele
                if d < best:
                    best, bk = d, (DELETION, i - 1, j)
                t = cur[j - 1] + ins
                if t < best:
                    best, bk = t, (INSERTION, i, j - 1)
                if para and i in para:
                    for i0, phrases in para[i]:
                        for ph in phrases:
                            b = len(ph)
                            if b <= j and tuple(hyp_low[j - b:j]) == ph:
                                p = rows[i0][j - b] + c.paraphrase
                                if p < best:
                                    best, bk = p, (PARAPHRASE, i0, j - b)
                cur[j] = best
                brow[j] = bk
            rows.append(cur)
            back.append(brow)
            prev = cur
        path = _Path(prev[m])
        if want_path:
            i, j = n, m
            steps = []
            while i > 0 or j > 0:
                kind, a, b = back[i][j]
                if kind == INSERTION:
                    steps.append((INSERTION, i, i, j - 1, j))
                    j -= 1
                elif kind == DELETION:
                    steps.append((DELETION, i - 1, i, j, j))
                    i -= 1
                elif kind == PARAPHRASE:
                    steps.append((PARAPHRASE, a, i, b, j))
                    i, j = a, b
                else:
                    steps.append((kind, i - 1, i, j - 1, j))
                    i -= 1
                    j -= 1
            steps.reverse()
            path.steps = steps
        return path

    def _paraphrase_spans(self, ref: Tokens) -> dict[int, list[tuple[int, set[Tokens]]]] | None:
        if self.paraphrases is None:
            return None
        out: dict[int, list[tuple[int, set[Tokens]]]] = {}
        low = [w.lower() for w in ref]
        for i0 in range(len(ref)):
            for i1 in range(i0 + 1, min(len(ref), i0 + self.paraphrases.max_len) + 1):
                phrases = self.paraphrases.get(tuple(low[i0:i1]))
                if phrases:
                    out.setdefault(i1, []).append((i0, phrases))
        return out or None

    # -- shifts --------------------------------------------------------------------------------
    def _candidate_shifts(self, n: int, perm: list[int], kinds: list[list[str]],
                          path: _Path) -> list[tuple[list[int], list[int]]]:
        m = len(perm)
        hyp_ok = [False] * m
        ref_ok = [False] * n
        hyp_at_ref = [0] * (n + 1)  # hyp position where the alignment of ref word t starts
        for kind, i0, i1, j0, j1 in path.steps:
            for t in range(i0, i1):
                hyp_at_ref[t] = j0
            if kind in _EQUIVALENT:
                for t in range(i0, i1):
                    ref_ok[t] = True
                for j in range(j0, j1):
                    hyp_ok[j] = True
        hyp_at_ref[n] = m
        c = self.config
        seen: set[tuple[int, ...]] = set()
        out: list[tuple[list[int], list[int]]] = []
        for s in range(m):
            for t in range(n):
                # grow the phrase while hyp[s:s+L] keeps matching ref[t:t+L] word by word
                hyp_err = ref_err = False
                h = hyp_at_ref[t]
                if abs(h - s) > c.max_shift_distance:
                    continue
                for length in range(1, min(c.max_shift_size, m - s, n - t) + 1):
                    k = length - 1
                    if kinds[t + k][perm[s + k]] == SUBSTITUTION:
                        break
                    hyp_err = hyp_err or not hyp_ok[s + k]
                    ref_err = ref_err or not ref_ok[t + k]
                    if not (hyp_err and ref_err):
                        continue
                    span = perm[s:s + length]
                    rest = perm[:s] + perm[s + length:]
                    for target in (h, h + 1):
                        p = target - length if target > s else target
                        if p < 0 or p > len(rest):
                            continue
                        new = rest[:p] + span + rest[p:]
                        key = tuple(new)
                        if new != perm and key not in seen:
                            seen.add(key)
                            out.append((new, span))
        return out

    def align(self, original: Sequence[str], round_trip: Sequence[str]) -> Alignment:
        """Align ``round_trip`` (hypothesis) to ``original`` (reference, the backbone)."""
        ref = tuple(original)
        hyp = tuple(round_trip)
        kinds = self._kinds(ref, hyp)
        para = self._paraphrase_spans(ref)
        perm = list(range(len(hyp)))
        shifted: set[int] = set()
        shifts = 0
        path = self._distance(ref, [hyp[k] for k in perm], kinds, perm, para, True)
        total = path.cost
        while True:
            best_cost = total
            best: tuple[list[int], list[int]] | None = None
            for cand, span in self._candidate_shifts(len(ref), perm, kinds, path):
                cost = self._distance(ref, [hyp[k] for k in cand], kinds, cand, para,
                                      False).cost + (shifts + 1) * self.config.shift
                if cost < best_cost - 1e-9:
                    best_cost, best = cost, (cand, span)
            if best is None:
                break
            perm = best[0]
            shifted.update(best[1])
            shifts += 1
            path = self._distance(ref, [hyp[k] for k in perm], kinds, perm, para, True)
            total = path.cost + shifts * self.config.shift
        ops = []
        for kind, i0, i1, j0, j1 in path.steps:
            positions = tuple(perm[j] for j in range(j0, j1))
            ops.append(AlignOp(kind, i0, i1, ref[i0:i1], tuple(hyp[k] for k in positions),
                               positions, any(k in shifted for k in positions)))
        return Alignment(ref, hyp, tuple(hyp[k] for k in perm), tuple(ops), total, shifts)

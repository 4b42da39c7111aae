"""ERRANT's rule-based merging of alignment operations, with constant work per span.

errant 3.0.2 (``errant/en/merger.py``) decides how to merge a run of adjacent D/I/S operations
by trying every (start, end) pair of the run, longest first, and for each one slicing the
tokens, joining their strings and collecting their parts of speech: cubic in the run length,
so one runaway hypothesis line (500 tokens of ``the a ,``) takes seconds to minutes. This
module applies the same rules in the same order and returns the same spans, but answers each
pair's questions from tables built once per call: prefix counts (is there a substitution),
sparse tables of OR-ed part-of-speech bits (one tag, all verbal, any content word), and
prefix hashes of the lower-cased, ``'``/``-``-stripped strings (equal strings, checked exactly
when the hashes agree). Quadratic in the run length with a small constant; the output is
checked identical to errant's on CoNLL-2014 (``benchmarks/annotate_conll14.py``) and by tests.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import groupby
from string import punctuation
from typing import Any

Op = tuple[str, int, int, int, int]  # (operation, orig start, orig end, cor start, cor end)

_STRIP = re.compile("['-]")
_MOD = (1 << 61) - 1
_BASE = 1_000_003


class _Side:
    """Per-token tables of one side (original or corrected) of an alignment."""

    def __init__(self, doc: Any, pos_bit: dict[int, int], punct_pos: int) -> None:
        toks = list(doc)
        self.toks = toks
        self.tag_pos = [t.tag_ == "POS" for t in toks]
        self.lower = [t.lower for t in toks]
        self.upper0 = [bool(t.text) and t.text[0].isupper() for t in toks]
        # errant's is_punct: a PUNCT tag, or text that is a substring of string.punctuation
        self.punct = [t.pos == punct_pos or t.text in punctuation for t in toks]
        self.pos = [int(t.pos) for t in toks]
        bits = []
        for p in self.pos:
            if p not in pos_bit:
                pos_bit[p] = 1 << len(pos_bit)
            bits.append(pos_bit[p])
        self.bits = bits
        self._table = _or_table(bits)
        # prefix hashes of the concatenated stripped lower-case strings
        stripped = [_STRIP.sub("", t.lower_) for t in toks]
        self.stripped = stripped
        offsets = [0]
        hashes = [0]
        powers = [1]
        h = 0
        for s in stripped:
            for ch in s:
                h = (h * _BASE + ord(ch)) % _MOD
                powers.append(powers[-1] * _BASE % _MOD)
            hashes.append(h)
            offsets.append(offsets[-1] + len(s))
        self.offsets, self.hashes, self.powers = offsets, hashes, powers

    def bits_of(self, a: int, b: int) -> int:
        """OR of the part-of-speech bits of tokens ``[a, b)`` (0 when empty)."""
        if b <= a:
            return 0
        k = (b - a).bit_length() - 1
        row = self._table[k]
        return row[a] | row[b - (1 << k)]

    def string_key(self, a: int, b: int) -> tuple[int, int]:
        """(length, hash) of the joined stripped lower-case strings of tokens ``[a, b)``."""
        n = self.offsets[b] - self.offsets[a]
        h = (self.hashes[b] - self.hashes[a] * self.powers[n]) % _MOD
        return n, h

    def joined(self, a: int, b: int) -> str:
        return "".join(self.stripped[a:b])


def _or_table(bits: list[int]) -> list[list[int]]:
    table = [bits]
    k = 1
    while (1 << k) <= len(bits):
        prev, half = table[-1], 1 << (k - 1)
        table.append([prev[i] | prev[i + half] for i in range(len(bits) - (1 << k) + 1)])
        k += 1
    return table


def merge_ops(seq: Sequence[Op]) -> list[Op]:
    """One operation spanning ``seq`` (errant's ``merge_edits``)."""
    if not seq:
        return list(seq)
    return [("X", seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])]


class RuleMerger:
    """errant's rule-based merging for one alignment (its ``orig``/``cor`` docs)."""

    def __init__(self, alignment: Any) -> None:
        import spacy.symbols as pos
        from rapidfuzz.distance import Indel

        self.alignment = alignment
        self._indel = Indel
        pos_bit: dict[int, int] = {}
        self.o = _Side(alignment.orig, pos_bit, int(pos.PUNCT))
        self.c = _Side(alignment.cor, pos_bit, int(pos.PUNCT))
        for p in (pos.ADJ, pos.AUX, pos.ADV, pos.NOUN, pos.VERB, pos.PART, pos.DET):
            pos_bit.setdefault(int(p), 1 << len(pos_bit))
        self.open_mask = sum(pos_bit[int(p)] for p in (pos.ADJ, pos.AUX, pos.ADV, pos.NOUN,
                                                        pos.VERB))
        self.verbal_mask = sum(pos_bit[int(p)] for p in (pos.AUX, pos.PART, pos.VERB))
        self.det = int(pos.DET)

    def edits(self) -> list[Op]:
        """The merged operations, as errant's ``get_rule_edits`` returns them (as spans)."""
        out: list[Op] = []
        for key, group in groupby(self.alignment.align_seq,
                                  lambda x: x[0][0] if x[0][0] in {"M", "T"} else False):
            ops = list(group)
            if key == "M":
                continue
            if key == "T":
                out.extend(ops)
            else:
                out.extend(self.process(ops))
        return out

    def process(self, seq: Sequence[Op]) -> list[Op]:
        """errant's ``process_seq``: the same rules, in the same order."""
        if len(seq) <= 1:
            return list(seq)
        ops = [s[0] for s in seq]
        kinds = set(ops)
        if kinds == {"D"} or kinds == {"I"}:
            return merge_ops(seq)
        o, c = self.o, self.c
        n = len(seq)
        s_before = [0]
        for op in ops:
            s_before.append(s_before[-1] + (op == "S"))
        content = False
        for span in range(n - 1, 0, -1):  # longest first; starts in increasing order
            for start in range(n - span):
                end = start + span
                if s_before[end + 1] == s_before[start]:  # no substitution in the range
                    continue
                oa, ob = seq[start][1], seq[end][2]
                ca, cb = seq[start][3], seq[end][4]
                len_o, len_c = ob - oa, cb - ca
                if start == 0 and (o.tag_pos[oa] or c.tag_pos[ca]):
                    return [seq[0], *self.process(seq[1:])]
                if o.tag_pos[ob - 1] or c.tag_pos[cb - 1]:
                    return (self.process(seq[:end - 1]) + merge_ops(seq[end - 1:end + 1])
                            + self.process(seq[end + 1:]))
                if o.lower[ob - 1] == c.lower[cb - 1]:
                    if start == 0 and ((len_o == 1 and c.upper0[ca])
                                       or (len_c == 1 and o.upper0[oa])):
                        return merge_ops(seq[start:end + 1]) + self.process(seq[end + 1:])
                    if (len_o > 1 and o.punct[ob - 2]) or (len_c > 1 and c.punct[cb - 2]):
                        return (self.process(seq[:end - 1]) + merge_ops(seq[end - 1:end + 1])
                                + self.process(seq[end + 1:]))
                if o.string_key(oa, ob) == c.string_key(ca, cb) and \
                        o.joined(oa, ob) == c.joined(ca, cb):
                    return (self.process(seq[:start]) + merge_ops(seq[start:end + 1])
                            + self.process(seq[end + 1:]))
                bits = o.bits_of(oa, ob) | c.bits_of(ca, cb)
                if len_o != len_c and ((bits & (bits - 1)) == 0
                                       or bits & ~self.verbal_mask == 0):
                    return (self.process(seq[:start]) + merge_ops(seq[start:end + 1])
                            + self.process(seq[end + 1:]))
                if span < 2:
                    if len_o == len_c == 2:
                        return self.process(seq[:start + 1]) + self.process(seq[start + 1:])
                    if (ops[start] == "S" and self._cost(o.toks[oa], c.toks[ca]) > 0.75) or \
                            (ops[end] == "S" and self._cost(o.toks[ob - 1], c.toks[cb - 1])
                             > 0.75):
                        return self.process(seq[:start + 1]) + self.process(seq[start + 1:])
                    if end == n - 1 and ((ops[-1] in {"D", "S"} and o.pos[ob - 1] == self.det)
                                         or (ops[-1] in {"I", "S"}
                                             and c.pos[cb - 1] == self.det)):
                        return [*self.process(seq[:-1]), seq[-1]]
                if bits & self.open_mask:
                    content = True
        return merge_ops(seq) if content else list(seq)

    def _cost(self, a: Any, b: Any) -> float:
        return float(1 - self._indel.normalized_distance(a.text, b.text))

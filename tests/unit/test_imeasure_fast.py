"""The I-measure's fast paths (issue #44) against the plain ones they replace.

* ``margin(decide=True)`` leaves out the grid cells through which no alignment can reach a
  margin of 0 or less (the band) and walks each region's pieces as a trie: its answer to
  "is the decomposition exact" must be the exact margin's, and a margin of 0 or less must be
  the exact number.
* ``pairwise_sync`` (compiled) must pair the tokens as the pure-Python backtrace does.
* On real CoNLL-2014 sentences, the search with the decided certificate must give every
  outcome, witness and reference of the search with the exact certificate.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from gecscope.metrics.imeasure import certify, search
from gecscope.metrics.imeasure.align import pairwise_backtrace, pairwise_table
from gecscope.metrics.imeasure.batch import pairwise_sync
from gecscope.metrics.imeasure.certify import margin

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_imeasure_certify import _best, _brute


def _regions(rng: random.Random, vocab: str, n_reg: int, width: int, pieces: int
             ) -> tuple[list[str], list[str], list[Any]]:
    """Source, hypothesis and regions whose pieces share prefixes (so the trie is used) and
    whose costs are the true region optima."""
    src: list[str] = []
    hyp: list[str] = []
    regions = []
    for _ in range(n_reg):
        s_piece = [rng.choice(vocab) for _ in range(rng.randint(1, width))]
        h_piece = [t if rng.random() < 0.7 else rng.choice(vocab) for t in s_piece]
        alts = {tuple(s_piece)}
        for _ in range(rng.randint(0, pieces)):
            cut = rng.randint(0, len(s_piece))
            alts.add(tuple(s_piece[:cut]) + tuple(rng.choice(vocab)
                                                 for _ in range(rng.randint(0, 3))))
        regions.append((len(src), len(src) + len(s_piece), len(hyp), len(hyp) + len(h_piece),
                        [(p, int(_best(s_piece, h_piece, list(p), False))) for p in sorted(alts)]))
        src += s_piece
        hyp += h_piece
    return src, hyp, regions


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_decided_margin_agrees_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    signs = set()
    for _ in range(25):
        src, hyp, regions = _regions(rng, "abcd", rng.randint(2, 3), 3, 3)
        exact = _brute(src, hyp, regions, False)
        assert margin(src, hyp, regions, False) == exact
        got = margin(src, hyp, regions, False, decide=True)
        if exact <= 0:
            assert got == exact
        else:
            assert got is None or got > 0
        signs.add(exact > 0)
    assert signs == {True, False}


def test_decided_margin_on_longer_sentences() -> None:
    # longer regions: the band leaves cells out, and the answer stays the exact one's
    rng = random.Random(7)
    pruned = 0
    for _ in range(40):
        src, hyp, regions = _regions(rng, "abcdefgh", rng.randint(3, 5), 6, 4)
        exact = margin(src, hyp, regions, False)
        got = margin(src, hyp, regions, False, decide=True)
        assert (exact is None or exact > 0) == (got is None or got > 0), (src, hyp, regions)
        if exact is not None and exact <= 0:
            assert got == exact
        for j in range(len(regions) - 1):
            check = [k == j for k in range(len(regions) - 1)]
            e = margin(src, hyp, regions, False, check)
            g = margin(src, hyp, regions, False, check, decide=True)
            assert (e is None or e > 0) == (g is None or g > 0)
        import numpy as np

        ids = {t: i for i, t in enumerate(sorted(set(src + hyp)
                                                 | {t for r in regions for p, _ in r[4]
                                                    for t in p}))}
        tok = [ids[t] for r in regions for p, _ in r[4] for t in p]
        off = [0]
        for r in regions:
            for p, _ in r[4]:
                off.append(off[-1] + len(p))
        reg = [0]
        for r in regions:
            reg.append(reg[-1] + len(r[4]))
        a = np.asarray
        lo, hi = certify.band(a([ids[t] for t in src]), a([ids[t] for t in hyp]), a(tok),
                              a(off), a([c for r in regions for _, c in r[4]]), a(reg), regions)
        pruned += sum(len(hyp) + 1 - max(0, h - lo_ + 1) for lo_, h in zip(lo, hi, strict=True))
    assert pruned > 0  # the band is not the whole grid, so the comparison tests it


def test_pairwise_sync_equals_the_backtrace() -> None:
    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        x, y = pairwise_backtrace(pairwise_table(a, b), a, b)
        want: list[int | None] = [None] * len(a)
        i = j = 0
        for p, q in zip(x, y, strict=True):
            if p and q:
                if p == q:
                    want[i] = j
                i += 1
                j += 1
            elif p:
                i += 1
            else:
                j += 1
        assert pairwise_sync(a, b) == want


@pytest.fixture(scope="module")
def gold(conll14: Path):  # type: ignore[no-untyped-def]
    from gecscope.formats.imeasure_xml import m2_to_gold
    from gecscope.formats.m2 import read_m2

    return m2_to_gold(read_m2(conll14 / "official-2014.combined.m2"))


def _outcomes(opts: Any) -> Any:
    return None if opts is None else [(o.counts, o.witness, o.pieces) for o in opts]


@pytest.mark.slow
def test_conll14_decided_certificate_equals_exact(conll14: Path, gold,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Sentences 300-419 (the longest, 333-335, among them) of three systems: the search with
    # the band and trie gives the outcomes of the search with the exact, unbanded certificate.
    from gecscope.formats.plain import read_tokens

    rows = range(300, 420)
    systems = {name: read_tokens(conll14 / "submissions" / name, expected=len(gold))
               for name in ("AMU", "CAMB", "POST")}
    fast = {name: [search.decomposed_options(gold.sentences[i], hyps[i]) for i in rows]
            for name, hyps in systems.items()}
    exact_margin = certify.margin

    def plain(*args: Any, decide: bool = False) -> Any:
        return exact_margin(*args)

    monkeypatch.setattr(search, "margin", plain)
    for name, hyps in systems.items():
        for k, i in enumerate(rows):
            slow = search.decomposed_options(gold.sentences[i], hyps[i])
            assert _outcomes(fast[name][k]) == _outcomes(slow), (name, i)

"""The exactness certificate of the decomposed I-measure search against brute force.

``margin`` runs one programme over the product of the source/hypothesis grid and the lattice of
all candidate references. Here every candidate is enumerated instead, the whole-sentence table
is computed with the cut cell removed, and the least ``cost - T(r)`` must be the same number.
"""

# ruff: noqa: SIM905
from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest

from gecscope.metrics.imeasure.certify import margin

INF = float("inf")


def _pc(a: str | None, b: str | None) -> int:
    if a is None:
        return 0 if b is None else 2
    if b is None:
        return 2
    return 0 if a == b else 3


def _best(s: list[str], h: list[str], r: list[str], pairwise: bool,
          blocked: tuple[int, int, int] | None = None) -> float:
    """Least alignment cost, optionally avoiding one cell, by the plain 3-D recurrence."""
    if pairwise:
        s = []
    ns, nh, nr = len(s), len(h), len(r)

    def col(a: str | None, b: str | None, c: str | None) -> int:
        cost = _pc(b, c)
        if not pairwise:
            cost += _pc(a, b) + _pc(a, c)
        return cost

    D = [[[INF] * (nr + 1) for _ in range(nh + 1)] for _ in range(ns + 1)]
    for i in range(ns + 1):
        for j in range(nh + 1):
            for k in range(nr + 1):
                if (i, j, k) == blocked:
                    continue
                if i == j == k == 0:
                    D[0][0][0] = 0
                    continue
                best = INF
                for di, dj, dk in itertools.product((0, 1), repeat=3):
                    if (di, dj, dk) == (0, 0, 0) or di > i or dj > j or dk > k:
                        continue
                    prev = D[i - di][j - dj][k - dk]
                    c = col(s[i - 1] if di else None, h[j - 1] if dj else None,
                            r[k - 1] if dk else None)
                    best = min(best, prev + c)
                D[i][j][k] = best
    return D[ns][nh][nr]


def _brute(src: list[str], hyp: list[str], regions: list, pairwise: bool) -> float:
    out = INF
    for choice in itertools.product(*(r[4] for r in regions)):
        ref: list[str] = []
        T = 0
        cells = []
        for (_x0, x1, _y0, y1, _), (piece, cost) in zip(regions, choice, strict=True):
            ref += list(piece)
            T += cost
            cells.append((0 if pairwise else x1, y1, len(ref)))
        for cell in cells[:-1]:
            out = min(out, _best(src, hyp, ref, pairwise, cell) - T)
    return out


def _random_regions(rng: random.Random, vocab: str
                    ) -> tuple[list[str], list[str], list, bool]:
    n_reg = rng.randint(2, 3)
    src: list[str] = []
    hyp: list[str] = []
    regions = []
    pairwise = rng.random() < 0.3
    for _ in range(n_reg):
        s_piece = [rng.choice(vocab) for _ in range(rng.randint(1, 4))]
        h_piece = list(s_piece) if pairwise else [rng.choice(vocab)
                                                  for _ in range(rng.randint(1, 4))]
        pieces = {tuple(s_piece)}
        for _ in range(rng.randint(0, 2)):
            pieces.add(tuple(rng.choice(vocab) for _ in range(rng.randint(1, 4))))
        with_cost = [(p, _best(s_piece, h_piece, list(p), pairwise)) for p in sorted(pieces)]
        regions.append((len(src), len(src) + len(s_piece), len(hyp), len(hyp) + len(h_piece),
                        [(p, int(c)) for p, c in with_cost]))
        src += s_piece
        hyp += h_piece
    return src, hyp, regions, pairwise


@pytest.mark.parametrize("seed,vocab", [(1, "ab"), (2, "abc"), (3, "abcdef")])
def test_margin_equals_brute_force(seed: int, vocab: str) -> None:
    rng = random.Random(seed)
    signs = set()
    for _ in range(40):
        src, hyp, regions, pairwise = _random_regions(rng, vocab)
        expected = _brute(src, hyp, regions, pairwise)
        assert margin(src, hyp, regions, pairwise) == expected, (src, hyp, regions, pairwise)
        signs.add(expected > 0)
    # both outcomes occur, so the comparison checks accepted and rejected cuts
    assert signs == {True, False}


def test_margin_checks_only_the_selected_cuts() -> None:
    rng = random.Random(11)
    for _ in range(20):
        src, hyp, regions, pairwise = _random_regions(rng, "abc")
        n_cuts = len(regions) - 1
        per_cut = [margin(src, hyp, regions, pairwise, [k == j for k in range(n_cuts)])
                   for j in range(n_cuts)]
        assert margin(src, hyp, regions, pairwise) == min(per_cut)
    assert margin(src, hyp, regions, pairwise, [False] * n_cuts) is None


def test_pure_python_fallback_gives_the_same_margin() -> None:
    # Without numba the same kernels run uncompiled; run them in a fresh interpreter.
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from gecscope.metrics.imeasure import certify as c\n"
        "assert not c.HAVE_NUMBA\n"
        "src = 'a b c d e f'.split(); hyp = 'a x c d e g'.split()\n"
        "regions = [(0, 3, 0, 3, [(('a', 'b', 'c'), 3), (('a', 'x', 'c'), 4)]),\n"
        "           (3, 6, 3, 6, [(('d', 'e', 'f'), 3), (('d', 'e', 'g'), 6)])]\n"
        "print(c.margin(src, hyp, regions, False))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    src = "a b c d e f".split()
    hyp = "a x c d e g".split()
    regions = [(0, 3, 0, 3, [(("a", "b", "c"), 3), (("a", "x", "c"), 4)]),
               (3, 6, 3, 6, [(("d", "e", "f"), 3), (("d", "e", "g"), 6)])]
    assert int(out) == margin(src, hyp, regions, False) == _brute(src, hyp, regions, False)

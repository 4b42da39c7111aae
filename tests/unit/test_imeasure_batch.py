"""The fast three-way aligners (numba kernel, numpy batch) give exactly the pure-Python
alignment's counts and optimal cost."""

from __future__ import annotations

import random

import pytest

from gecscope.metrics.imeasure.align import threeway_dp, threeway_table
from gecscope.metrics.imeasure.batch import threeway_counts_costs
from gecscope.metrics.imeasure.core import count_columns

pytest.importorskip("numpy")


@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_engines_equal_pure_python(seed: int, engine: str) -> None:
    if engine == "numba":
        pytest.importorskip("numba")
    rng = random.Random(seed)
    for _ in range(40):
        vocab = "abcde"[: rng.randint(2, 5)]
        s = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        h = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        refs = [[rng.choice(vocab) for _ in range(rng.randint(0, 9))]
                for _ in range(rng.randint(8, 20))]
        expected = [(count_columns(threeway_dp(s, h, r)), threeway_table(s, h, r)[-1][-1][-1])
                    for r in refs]
        assert threeway_counts_costs(s, h, refs, chunk=7, engine=engine) == expected


def test_compiled_pairwise_counts_equal_the_python_alignment() -> None:
    # The baseline's (source, source, reference) alignment: TN/FN and cost from the compiled
    # kernel equal the pure-Python table and backtrace (tie order included) on random pairs.
    import random

    from gecscope.metrics.imeasure.align import align, pairwise_table
    from gecscope.metrics.imeasure.batch import pairwise_counts

    rng = random.Random(11)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 9))]
        cols = align(a, a, b)
        tn = sum(1 for s, _, r in cols if s == r)
        assert pairwise_counts(a, b) == (tn, len(cols) - tn, pairwise_table(a, b)[-1][-1]), (a, b)


def test_compiled_references_sharing_prefixes_equal_pure_python() -> None:
    # The compiled engine reuses the table slabs of a shared reference prefix (references in
    # sorted order): candidates built like the I-measure's (every combination of corrections,
    # duplicates and empty references included) must each get their own table's result.
    pytest.importorskip("numba")
    import itertools

    rng = random.Random(5)
    for _ in range(20):
        s = [rng.choice("abcdef") for _ in range(rng.randint(1, 9))]
        h = [rng.choice("abcdef") for _ in range(rng.randint(0, 9))]
        slots = [[s[i:i + 1], [], [rng.choice("xyz")], [rng.choice("ab"), "c"]][: rng.randint(2, 4)]
                 for i in range(len(s))]
        refs = [[t for piece in combo for t in piece] for combo in itertools.product(*slots)]
        rng.shuffle(refs)
        refs = refs[:300] + [[], refs[0]]
        expected = [(count_columns(threeway_dp(s, h, r)), threeway_table(s, h, r)[-1][-1][-1])
                    for r in refs]
        assert threeway_counts_costs(s, h, refs, engine="numba") == expected


def test_source_as_reference_counts_equal_the_python_alignment() -> None:
    # A hypothesis against the source as its reference (the outcome whose pieces are all the
    # source's, and sentences without errors): the compiled pairwise counts equal counting
    # the tool's alignment column by column, on random pairs (empty sides and equal sides
    # among them).
    from gecscope.metrics.imeasure.align import align
    from gecscope.metrics.imeasure.batch import source_reference_counts

    rng = random.Random(12)
    for _ in range(400):
        s = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        h = list(s) if rng.random() < 0.1 else \
            [rng.choice("abcde") for _ in range(rng.randint(0, 9))]
        assert source_reference_counts(s, h) == count_columns(align(s, h, s)), (s, h)

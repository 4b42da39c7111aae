"""The numpy-batched three-way alignment gives exactly the pure-Python alignment's counts."""

from __future__ import annotations

import random

import pytest

from gecscope.metrics.imeasure_align import threeway_dp
from gecscope.metrics.imeasure_batch import threeway_counts
from gecscope.metrics.imeasure_core import count_columns

pytest.importorskip("numpy")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batch_equals_pure_python(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        vocab = "abcde"[: rng.randint(2, 5)]
        s = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        h = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        refs = [[rng.choice(vocab) for _ in range(rng.randint(0, 9))]
                for _ in range(rng.randint(8, 20))]
        expected = [count_columns(threeway_dp(s, h, r)) for r in refs]
        assert threeway_counts(s, h, refs, chunk=7) == expected

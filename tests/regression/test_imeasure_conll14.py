"""I-measure on CoNLL-2014 against the official two-annotator gold (converted by gecscope).

Published (Felice & Briscoe 2015, as quoted in issue #4), correction I x100: UFC 1.35,
INPUT 0.00, IITB -0.25, SJTU -1.16, CUUI -2.18, ... Our values with the default options
(mixing, maximise correction WAcc per sentence, w=2, beta=1, I=0 on ties) are pinned below;
docs/imeasure.md lists all 13 with the differences and what explains them, and ``python
benchmarks/imeasure_conll14.py`` prints them beside the published values; the reference tool
(``ieval.py``, mfelice/imeasure fc79fdf) is compared in test_imeasure_ieval.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.formats.imeasure_xml import m2_to_gold
from gecscope.formats.m2 import read_m2
from gecscope.formats.plain import read_tokens
from gecscope.metrics.imeasure import IMeasureMetric

# gecscope, benchmarks/imeasure_conll14.py (correction I x100, rounded to 2 dp) with the
# baseline aligned separately as ieval fc79fdf does (which the tool cannot finish on this
# gold: sentence 333 has 2^34 candidates; tests/regression/test_imeasure_ieval.py holds the
# tool's own numbers on the first 300 sentences). The five fastest systems keep the test short
# (all 13 are in docs/imeasure.md).
OURS = {"INPUT": 0.00, "UFC": 0.93, "IITB": -0.26, "IPN": -2.96, "UMC": -3.43}
PUBLISHED = {"INPUT": 0.00, "UFC": 1.35, "IITB": -0.25, "IPN": -3.04, "UMC": -2.84}


@pytest.fixture(scope="module")
def gold(conll14: Path):  # type: ignore[no-untyped-def]
    return m2_to_gold(read_m2(conll14 / "official-2014.combined.m2"))


@pytest.mark.slow
def test_conll14_improvement(conll14: Path, gold) -> None:  # type: ignore[no-untyped-def]
    metric = IMeasureMetric()
    caches: list[dict] = [{} for _ in range(len(gold))]
    got = {}
    for name in OURS:
        hyps = read_tokens(conll14 / "submissions" / name, expected=len(gold))
        fields = metric.aggregate(metric.sentence_stats_gold(gold, hyps, caches)).fields
        got[name] = round(100 * fields["c_i"], 2)
    assert got == pytest.approx(OURS, abs=1e-9)
    # within 0.7 points of the published figures (docs/imeasure.md discusses the gaps)
    assert got == pytest.approx(PUBLISHED, abs=0.7)


def test_conll14_gold_conversion(gold) -> None:  # type: ignore[no-untyped-def]
    assert len(gold) == 1312
    assert sum(len(s.errors) for s in gold.sentences) == 4145
    # sentences listing no annotator at all (no A line) have numann 0; 88 list only one
    counts = [sum(s.numann == k for s in gold.sentences) for k in (0, 1, 2)]
    assert counts == [136, 88, 1088]
    assert sum(e.required for s in gold.sentences for e in s.errors) == 1443


@pytest.mark.slow
def test_conll14_decomposed_search_equals_enumeration(conll14: Path, gold) -> None:  # type: ignore[no-untyped-def]
    # Real sentences with 2-16 candidate references, systems drawn at random: the certified
    # decomposition returns exactly the enumeration's outcomes and witnesses.
    import random

    from gecscope.metrics.imeasure.search import (
        decomposed_options,
        exhaustive_options,
        n_candidates_upper,
    )

    systems = {name: read_tokens(conll14 / "submissions" / name, expected=len(gold))
               for name in ("AMU", "CAMB", "CUUI", "POST", "RAC", "UMC")}
    pool = [(i, name) for i, s in enumerate(gold.sentences)
            if 1 < n_candidates_upper(s) <= 16 and len(s.tokens) <= 40 for name in systems]
    rng = random.Random(4)
    for i, name in rng.sample(pool, 30):
        sent, hyp = gold.sentences[i], systems[name][i]
        fast = decomposed_options(sent, hyp)
        assert fast is not None
        expected = [(o.counts, o.witness, o.reference) for o in exhaustive_options(sent, hyp)]
        actual = [(o.counts, o.witness, o.reference) for o in fast]
        assert actual == expected, (sent.id, name)

"""ChERRANT's char-level M2 (Chinese) scored as its ``compare_m2_for_evaluation.py`` does.

Expected numbers: ChERRANT (HillZhang1999/MuCGEC 3922193, scorers/ChERRANT) run here on its own
demo files, ``-hyp demo.hyp.m2.char -ref demo.ref.m2.char`` with each option below; the
default row is also the figure of ChERRANT's README and MuCGEC's official metric. The
tool, its commit and the figures: docs/languages.md ("Checked against ChERRANT"); ChERRANT's
extraction is rerun by ``python benchmarks/cherrant_mucgec.py --cherrant DIR --python PY``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.errant import ErrantMetric

# option -> (TP, FP, FN, P, R, F0.5) as compare_m2_for_evaluation.py printed them
CHERRANT_3922193 = {
    "cs": (8, 19, 35, 0.2963, 0.186, 0.2649),  # the default (-cs and -cse print the same)
    "cse": (8, 19, 35, 0.2963, 0.186, 0.2649),
    "ds": (13, 14, 31, 0.4815, 0.2955, 0.4276),
    "dt": (21, 14, 51, 0.6, 0.2917, 0.4953),
}
# -cat 1: type -> (TP, FP, FN)
CHERRANT_CAT1 = {"M": (3, 6, 8), "R": (0, 4, 6), "S": (5, 8, 17), "W": (0, 1, 4)}


@pytest.fixture(scope="module")
def demo(shared_data: Path) -> tuple[EvalData, Hypothesis]:
    d = shared_data / "mucgec" / "cherrant-samples"
    data = EvalData.from_m2(d / "demo.ref.m2.char")
    return data, Hypothesis.from_m2(read_m2(d / "demo.hyp.m2.char"), "demo")


@pytest.mark.parametrize("mode", sorted(CHERRANT_3922193))
def test_demo_equals_cherrant(demo: tuple[EvalData, Hypothesis], mode: str) -> None:
    data, hyp = demo
    f = ErrantMetric(mode=mode).score(data, hyp).fields
    tp, fp, fn, p, r, f05 = CHERRANT_3922193[mode]
    counts = (f["TP"], f["FP"], f["FN"])
    assert counts == (tp, fp, fn)
    printed = (round(f["P"], 4), round(f["R"], 4), round(f["F0.5"], 4))  # as ChERRANT prints
    assert printed == (p, r, f05)


def test_demo_types_equal_cherrant(demo: tuple[EvalData, Hypothesis]) -> None:
    data, hyp = demo
    cats = ErrantMetric().score(data, hyp).categories  # M/R/S/W: ChERRANT's level-1 types
    assert {k: tuple(v) for k, v in cats.items()} == CHERRANT_CAT1


def test_target_lines_are_read_and_checked(tmp_path: Path) -> None:
    from gecscope.errors import FormatError
    from gecscope.formats.m2 import parse_m2

    text = "S 他 去 了\nT0-A0 他 去 了 。\nA 3 3|||M|||。|||REQUIRED|||-NONE-|||0\n\nS 好\nT0 没有错误\n" \
           "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    corpus = parse_m2(text)
    assert len(corpus) == 2 and corpus[0].edits(0)[0].correction == ("。",)
    with pytest.raises(FormatError, match="T line before any S line"):
        parse_m2("T0-A0 x\n", tmp_path / "bad.m2")

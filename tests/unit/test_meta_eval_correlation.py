"""System-level correlations and window analysis on hand-checked numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gecscope.errors import ConfigError
from gecscope.meta_eval.correlation import correlate, plot_windows, window_analysis

pytest.importorskip("scipy")

HUMAN = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0, "E": 0.0}


def test_perfect_reversed_and_partial() -> None:
    same = correlate({"A": 10, "B": 8, "C": 6, "D": 4, "E": 2}, HUMAN)
    actual = (same.pearson, same.spearman, same.kendall)
    assert actual == pytest.approx((1.0, 1.0, 1.0))
    rev = correlate({"A": 0, "B": 1, "C": 2, "D": 3, "E": 4}, HUMAN)
    actual = (rev.pearson, rev.spearman, rev.kendall)
    assert actual == pytest.approx((-1.0, -1.0, -1.0))
    # metric 4,3,2,0,1: one swapped pair of 10 -> tau = (9-1)/10; rho = 1 - 6*2/(5*24)
    part = correlate({"A": 4, "B": 3, "C": 2, "D": 0, "E": 1}, HUMAN)
    actual = (part.spearman, part.kendall)
    assert actual == pytest.approx((0.9, 0.8))
    assert part.pearson == pytest.approx(0.9)
    assert part.systems == ("A", "B", "C", "D", "E")
    assert part.human == (4.0, 3.0, 2.0, 1.0, 0.0)


def test_subset_and_missing_systems() -> None:
    c = correlate({"A": 1, "B": 2, "C": 3, "X": 9}, HUMAN, ["A", "B", "C"])
    assert c.n == 3
    assert c.spearman == pytest.approx(-1.0)
    with pytest.raises(ConfigError, match="no score for system"):
        correlate({"A": 1}, HUMAN, ["A", "B"])


def test_undefined_correlations_are_nan() -> None:
    flat = correlate(dict.fromkeys(HUMAN, 1.0), HUMAN)
    assert math.isnan(flat.pearson) and math.isnan(flat.spearman) and math.isnan(flat.kendall)
    one = correlate({"A": 1.0}, HUMAN, ["A"])
    assert math.isnan(one.pearson)


def test_window_analysis_sorts_by_human_score() -> None:
    metric = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 0}
    human = {"E": 0.0, "D": 1.0, "C": 2.0, "B": 3.0, "A": 4.0}
    wins = window_analysis(metric, human, window=3)
    actual = [(w.start, w.end, w.systems) for w in wins]
    assert actual == [
        (0, 2, ("A", "B", "C")), (1, 3, ("B", "C", "D")), (2, 4, ("C", "D", "E"))]
    actual = [w.spearman for w in wins]
    assert actual == pytest.approx([-1.0, -1.0, 0.5])
    with pytest.raises(ConfigError):
        window_analysis(metric, human, window=6)
    with pytest.raises(ConfigError):
        window_analysis(metric, human, window=1)


def test_window_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    metric = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 0}
    out = tmp_path / "w.png"
    plot_windows({"EW": window_analysis(metric, HUMAN, window=3)}, out, "toy")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

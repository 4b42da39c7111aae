"""Every resample, permutation and corpus count has a cap, refused at once with the limit in
the message, on the command line (exit 64, before anything is read) and in Python
(:class:`~gecscope.errors.ConfigError`, before any draw is made)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gecscope.cli.main import main
from gecscope.errors import ConfigError
from gecscope.formats.m2 import read_m2
from gecscope.meta_eval.maege import MAX_LEVELS, MAX_PERMUTATIONS, build_lattice, sample_corpora
from gecscope.meta_eval.significance import mean_interval, pairwise_p_values, spa_interval
from gecscope.stats.resample import MAX_DRAWS, check_draws

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"


def test_check_draws_takes_whole_numbers_in_range() -> None:
    assert check_draws("n", 0) == 0
    assert check_draws("n", MAX_DRAWS) == MAX_DRAWS
    assert check_draws("n", np.int64(7)) == 7
    for bad in (MAX_DRAWS + 1, -1, 10**9):
        with pytest.raises(ConfigError, match=f"n must be between 0 and {MAX_DRAWS:,}"):
            check_draws("n", bad)
    for bad in (1.5, 1e9, "100", True, None):
        with pytest.raises(ConfigError, match="n must be a whole number"):
            check_draws("n", bad)


def test_statistics_refuse_huge_counts_before_drawing() -> None:
    p = np.full((3, 3), 0.5)
    with pytest.raises(ConfigError, match="resamples must be between 1 and 100,000, got "
                                          "1,000,000,000"):
        spa_interval(p, p, resamples=10**9)
    with pytest.raises(ConfigError, match="resamples must be between 1"):
        mean_interval([0.1, 0.2], resamples=10**9)
    with pytest.raises(ConfigError, match="permutations must be between 1"):
        pairwise_p_values(np.zeros((2, 4)), permutations=10**9)


def test_maege_bounds_its_orders_and_corpora(tmp_path: Path) -> None:
    corpus = read_m2(DEMO / "references.m2")
    with pytest.raises(ConfigError, match=f"max_permutations must be between 1 and "
                                          f"{MAX_PERMUTATIONS:,}"):
        build_lattice(corpus, max_permutations=10**7)
    with pytest.raises(ConfigError, match=f"levels must be between 2 and {MAX_LEVELS:,}"):
        sample_corpora(corpus, levels=10**6)
    # at the cap: one annotator's 7 edits have 7! = 5,040 orders, so the cap binds (exactly
    # MAX_PERMUTATIONS chains), while 4 edits keep all their 4! = 24
    path = tmp_path / "seven.m2"
    path.write_text("S a b c d e f g h .\n" + "".join(
        f"A {i} {i + 1}|||R:NOUN|||w{i}|||REQUIRED|||-NONE-|||0\n" for i in range(7))
        + "\nS a b c d .\n" + "".join(
        f"A {i} {i + 1}|||R:NOUN|||w{i}|||REQUIRED|||-NONE-|||0\n" for i in range(4)) + "\n",
        encoding="utf-8")
    lattice = build_lattice(read_m2(path), max_permutations=MAX_PERMUTATIONS, min_chains=1)
    per: dict[int, int] = {}
    for chain in lattice.chains:
        per[chain.sentence] = per.get(chain.sentence, 0) + 1
    assert MAX_PERMUTATIONS < 5040
    assert per == {0: MAX_PERMUTATIONS, 1: 24}


@pytest.mark.parametrize("argv, flag, limit", [
    (["meta-eval", "maege", "--max-permutations", "5000"], "--max-permutations", "1,000"),
    (["meta-eval", "maege", "--levels", "1000000"], "--levels", "1,000"),
    (["meta-eval", "maege", "--bootstrap", "1000000000"], "--bootstrap", "100,000"),
    (["meta-eval", "system", "--resamples", "1000000000"], "--resamples", "100,000"),
    (["meta-eval", "sentence", "--resamples", "-5"], "--resamples", "100,000"),
    (["meta-eval", "table", "--permutations", "1e9"], "--permutations", "whole number"),
    (["meta-eval", "human", "--bootstrap", "999999999"], "--bootstrap", "100,000"),
    (["evaluate", "--bootstrap", "1000001"], "--bootstrap", "100,000"),
])
def test_cli_counts_are_refused_while_parsing(argv: list[str], flag: str, limit: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 64
    assert f"argument {flag}:" in err and limit in err
    assert "Traceback" not in err

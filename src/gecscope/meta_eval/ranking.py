"""System rankings from pairwise comparisons: Expected Wins and TrueSkill.

Both take the comparisons of human ranking items (:class:`~gecscope.judgments.Judgments`)
or comparisons built from a metric's sentence scores (:func:`sentence_comparisons`). The latter
rank systems by a metric the way human rankings are made (Goto et al. 2025, "Rethinking
Evaluation Metrics for Grammatical Error Correction: Why Use a Different Evaluation Process
than Human?", ACL 2025; gec-metrics' ``rank_systems(..., aggregation="trueskill")``):
:func:`aggregate_sentence_scores`.

*Expected Wins* (Bojar et al. 2013; GJG15's ``EW.pl``): for every pair of systems,
``wins(i, j) / (wins(i, j) + wins(j, i))`` with ties ignored, averaged over i's opponents. A pair
that was never decided (no wins either way) has no defined win rate and is left out of the
average instead of being divided by zero; on GJG15 and SEEDA every pair is decided, so this is
exactly the published definition there.

*TrueSkill* (Herbrich et al. 2006; used for GEC by Sakaguchi et al. 2014): a Gaussian skill per
system updated after each comparison, ties as draws, score = posterior mean mu. The updates are
order dependent: :func:`trueskill_scores` plays the comparisons once, in the order given (file
order for human judgments), with a local ``trueskill.TrueSkill`` environment (no global state).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gecscope.errors import ConfigError
from gecscope.judgments import LOSS, TIE, WIN, Comparison, Judgments
from gecscope.stats.resample import check_draws

Source = Judgments | Iterable[Comparison]


def _comparisons(source: Source, systems: Iterable[str] | None) -> list[Comparison]:
    if isinstance(source, Judgments):
        return source.comparisons(systems)
    keep = None if systems is None else frozenset(systems)
    return [c for c in source if keep is None or (c.a in keep and c.b in keep)]


def _system_list(comps: Sequence[Comparison], systems: Iterable[str] | None) -> list[str]:
    if systems is not None:
        return list(dict.fromkeys(systems))
    return sorted({s for c in comps for s in (c.a, c.b)})


@dataclass(frozen=True)
class PairwiseCounts:
    """How often each system beat each other one, and how often they tied."""

    systems: tuple[str, ...]
    wins: Mapping[tuple[str, str], int]
    ties: Mapping[frozenset[str], int]

    def won(self, a: str, b: str) -> int:
        return self.wins.get((a, b), 0)

    def tied(self, a: str, b: str) -> int:
        return self.ties.get(frozenset((a, b)), 0)

    def win_rate(self, a: str, b: str) -> float | None:
        """``wins / (wins + losses)`` of ``a`` against ``b``; None when the pair was never decided."""
        w, lo = self.won(a, b), self.won(b, a)
        return None if w + lo == 0 else w / (w + lo)


def pairwise_counts(source: Source, systems: Iterable[str] | None = None) -> PairwiseCounts:
    """Win and tie counts of every pair (restricted to ``systems`` when given)."""
    comps = _comparisons(source, systems)
    wins: Counter[tuple[str, str]] = Counter()
    ties: Counter[frozenset[str]] = Counter()
    for c in comps:
        if c.outcome == WIN:
            wins[c.a, c.b] += 1
        elif c.outcome == LOSS:
            wins[c.b, c.a] += 1
        else:
            ties[frozenset((c.a, c.b))] += 1
    return PairwiseCounts(tuple(_system_list(comps, systems)), dict(wins), dict(ties))


def expected_wins(source: Source | PairwiseCounts,
                  systems: Iterable[str] | None = None) -> dict[str, float]:
    """Expected Wins of every system (see the module doc); 0.0 for a system never decided."""
    counts = source if isinstance(source, PairwiseCounts) else pairwise_counts(source, systems)
    names = counts.systems if systems is None else tuple(dict.fromkeys(systems))
    scores: dict[str, float] = {}
    for a in names:
        rates = [r for b in names if b != a and (r := counts.win_rate(a, b)) is not None]
        scores[a] = sum(rates) / len(rates) if rates else 0.0
    return scores


def expected_wins_bootstrap(source: Source, systems: Iterable[str] | None = None, *,
                            n_resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """Mean Expected Wins over bootstrap resamples of the comparisons (ties included).

    This is what the ``wmt-trueskill`` pipeline shipped with GJG15 (``EW.py`` + ``cluster.py``,
    which SEEDA's README points to) prints: each resample draws as many comparisons as there
    are, with replacement; within a resample a never-decided pair counts 0 and the sum is
    divided by ``|systems| - 1``. The resampling uses a local ``numpy.random.Generator``.
    """
    import numpy as np

    check_draws("n_resamples", n_resamples, minimum=1)
    comps = _comparisons(source, systems)
    names = _system_list(comps, systems)
    n = len(names)
    if n < 2 or not comps:
        return {s: 0.0 for s in names}
    index = {s: i for i, s in enumerate(names)}
    winner = np.array([index[c.a] if c.outcome != LOSS else index[c.b] for c in comps])
    loser = np.array([index[c.b] if c.outcome != LOSS else index[c.a] for c in comps])
    decisive = np.array([c.outcome != TIE for c in comps])
    cell = (winner * n + loser)[decisive]
    pos = np.flatnonzero(decisive)
    where = np.full(len(comps), -1)
    where[pos] = np.arange(len(pos))
    rng = np.random.default_rng(seed)
    total = np.zeros(n)
    for _ in range(n_resamples):
        draw = where[rng.integers(0, len(comps), len(comps))]
        w = np.bincount(cell[draw[draw >= 0]], minlength=n * n).reshape(n, n).astype(float)
        dec = w + w.T
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(dec > 0, w / np.where(dec > 0, dec, 1), 0.0)
        np.fill_diagonal(rate, 0.0)
        total += rate.sum(axis=1) / (n - 1)
    return {s: float(total[i] / n_resamples) for i, s in enumerate(names)}


@dataclass(frozen=True)
class TrueSkillParams:
    """TrueSkill environment. Defaults are those of gec-metrics' ``rank_systems`` and of the
    ``wmt-trueskill`` scripts used by GJG15/SEEDA (mu 0, sigma 0.5, tau 0, draws 25 %) with
    beta = sigma / 2 (the WMT scripts scale beta with the number of comparisons instead)."""

    mu: float = 0.0
    sigma: float = 0.5
    beta: float = 0.25
    tau: float = 0.0
    draw_probability: float = 0.25

    def __post_init__(self) -> None:
        if not (self.sigma > 0 and self.beta > 0 and self.tau >= 0):
            raise ConfigError("TrueSkill needs sigma > 0, beta > 0 and tau >= 0, got "
                              f"sigma={self.sigma}, beta={self.beta}, tau={self.tau}")
        if not 0 <= self.draw_probability < 1:
            raise ConfigError(f"draw_probability must be in [0, 1), got {self.draw_probability}")

    def environment(self) -> object:
        """A fresh, local ``trueskill.TrueSkill`` environment with these parameters."""
        from gecscope._optional import require

        ts = require("trueskill", "stats", "TrueSkill rankings")
        return ts.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                            draw_probability=self.draw_probability)


def trueskill_ratings(source: Source, systems: Iterable[str] | None = None,
                      params: TrueSkillParams | None = None) -> dict[str, tuple[float, float]]:
    """``(mu, sigma)`` of every system after playing the comparisons once, in order."""
    params = params or TrueSkillParams()
    env = params.environment()
    comps = _comparisons(source, systems)
    names = _system_list(comps, systems)
    ratings = {s: env.create_rating() for s in names}  # type: ignore[attr-defined]
    for c in comps:
        if c.outcome == LOSS:
            win, lose = c.b, c.a
        else:
            win, lose = c.a, c.b
        ratings[win], ratings[lose] = _play(env, ratings[win], ratings[lose], c.outcome == TIE)
    return {s: (float(r.mu), float(r.sigma)) for s, r in ratings.items()}


def _play(env: object, winner: object, loser: object, drawn: bool) -> tuple[object, object]:
    """One 1-vs-1 update in ``env`` (draw when ``drawn``)."""
    (w,), (lo,) = env.rate([(winner,), (loser,)],  # type: ignore[attr-defined]
                           ranks=[0, 0] if drawn else [0, 1])
    return w, lo


def trueskill_scores(source: Source, systems: Iterable[str] | None = None,
                     params: TrueSkillParams | None = None) -> dict[str, float]:
    """TrueSkill mu of every system (see :func:`trueskill_ratings`)."""
    return {s: mu for s, (mu, _) in trueskill_ratings(source, systems, params).items()}


def sentence_comparisons(sentence_scores: Mapping[str, Sequence[float]],
                         systems: Sequence[str] | None = None, *,
                         sentences: Iterable[int] | None = None,
                         higher_is_better: bool = True) -> list[Comparison]:
    """Pairwise comparisons implied by a metric's sentence scores (equal scores tie).

    Sentence by sentence (all, or those in ``sentences``), and within a sentence every pair
    ``(systems[i], systems[j])`` with ``i < j`` in the given order (default: sorted names):
    the order in which gec-metrics' ``rank_systems`` plays them. A pair where either score is
    NaN is left out (gec-metrics would count it as a tie). Used to rank systems with Expected
    Wins or TrueSkill over a metric (:func:`aggregate_sentence_scores`).
    """
    names = list(systems) if systems is not None else sorted(sentence_scores)
    if not names:
        return []
    lengths = {len(sentence_scores[s]) for s in names}
    if len(lengths) != 1:
        raise ConfigError(f"systems have different numbers of sentence scores: {sorted(lengths)}")
    rows = range(lengths.pop()) if sentences is None else sentences
    sign = 1 if higher_is_better else -1
    out: list[Comparison] = []
    for k in rows:
        vals = [sentence_scores[s][k] for s in names]
        for i, a in enumerate(names):
            for j in range(i + 1, len(names)):
                d = sign * (vals[i] - vals[j])
                if math.isnan(d):
                    continue
                out.append(Comparison(a, names[j], WIN if d > 0 else LOSS if d < 0 else TIE, k))
    return out


AGGREGATIONS = ("default", "trueskill", "expected_wins")
"""How a metric's system scores are formed: ``default`` (its corpus score, or the mean of its
sentence scores), or a rating over the pairwise comparisons implied by its sentence scores
(``trueskill``, ``expected_wins``; Goto et al. 2025, gec-metrics' ``rank_systems``)."""


def check_aggregation(aggregation: str) -> str:
    """``aggregation`` if it is one of :data:`AGGREGATIONS`, else a ConfigError."""
    if aggregation not in AGGREGATIONS:
        raise ConfigError(f"aggregation must be one of {', '.join(AGGREGATIONS)}, "
                          f"got {aggregation!r}")
    return aggregation


def aggregate_sentence_scores(sentence_scores: Mapping[str, Sequence[float]],
                              systems: Sequence[str] | None = None,
                              aggregation: str = "trueskill", *,
                              params: TrueSkillParams | None = None,
                              higher_is_better: bool = True) -> dict[str, float]:
    """System scores from sentence scores by rating the systems like human judges' rankings.

    Every sentence compares every pair of ``systems`` (:func:`sentence_comparisons`: higher
    score wins, equal scores draw), and the comparisons are rated with TrueSkill (played once,
    sentence by sentence and pair by pair in the order of ``systems``; ``params`` default to
    gec-metrics': mu 0, sigma 0.5, beta 0.25, tau 0, draw probability 0.25) or with Expected
    Wins. This is the aggregation of Goto et al. (2025), ``rank_systems(...,
    aggregation="trueskill")`` in gec-metrics. TrueSkill depends on the order: give
    ``systems`` in the order gec-metrics lists them to reproduce its numbers.
    """
    check_aggregation(aggregation)
    if aggregation == "default":
        raise ConfigError("aggregate_sentence_scores rates comparisons: use trueskill or "
                          "expected_wins (the default aggregation is the metric's own score)")
    names = list(dict.fromkeys(systems)) if systems is not None else sorted(sentence_scores)
    missing = [s for s in names if s not in sentence_scores]
    if missing:
        raise ConfigError(f"no sentence scores for system(s) {', '.join(missing)}")
    comps = sentence_comparisons(sentence_scores, names, higher_is_better=higher_is_better)
    if aggregation == "expected_wins":
        return expected_wins(comps, names)
    return trueskill_scores(comps, names, params)


def trueskill_wmt_scores(source: Source, systems: Iterable[str] | None = None, *,
                         n_runs: int = 10, seed: int = 0,
                         params: TrueSkillParams | None = None) -> dict[str, float]:
    """TrueSkill as the WMT/GJG15 scripts compute human rankings (Sakaguchi et al. 2014).

    Each run plays ``len(comparisons) + 1`` matches. Each match takes the system with the
    largest uncertainty (sigma; ties to the later name), draws its opponent with probability
    proportional to ``exp(-|mu_a - mu_b|)`` among the systems it has comparisons with, and
    replays one of their recorded comparisons picked at random. ``beta`` is
    ``sigma * matches / 40`` (the scripts' choice; ``params.beta`` is ignored). The score is
    mu averaged over ``n_runs`` runs. Random (a local ``random.Random(seed)``), so it only
    approximates published values, which are themselves means of such runs.
    """
    import random

    if n_runs < 1:
        raise ConfigError(f"n_runs must be at least 1, got {n_runs}")
    params = params or TrueSkillParams()
    comps = _comparisons(source, systems)
    names = _system_list(comps, systems)
    by_pair: dict[tuple[str, str], list[Comparison]] = {}
    for c in comps:
        by_pair.setdefault((min(c.a, c.b), max(c.a, c.b)), []).append(c)
    partners = {s: [t for t in names if t != s and (min(s, t), max(s, t)) in by_pair]
                for s in names}
    matches = len(comps) + 1
    env = TrueSkillParams(params.mu, params.sigma, params.sigma * matches / 40.0, params.tau,
                          params.draw_probability).environment()
    rng = random.Random(seed)
    total = dict.fromkeys(names, 0.0)
    for _ in range(n_runs):
        ratings = {s: env.create_rating() for s in names}  # type: ignore[attr-defined]
        for _ in range(matches):
            a = max(names, key=lambda s: (ratings[s].sigma, s))
            if not partners[a]:
                break
            weights = [math.exp(-abs(ratings[a].mu - ratings[b].mu)) for b in partners[a]]
            b = rng.choices(partners[a], weights)[0]
            c = rng.choice(by_pair[min(a, b), max(a, b)])
            win, lose = (c.b, c.a) if c.outcome == LOSS else (c.a, c.b)
            ratings[win], ratings[lose] = _play(env, ratings[win], ratings[lose],
                                                c.outcome == TIE)
        for s in names:
            total[s] += ratings[s].mu
    return {s: v / n_runs for s, v in total.items()}

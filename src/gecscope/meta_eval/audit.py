"""The attack audit: can a system score well under a metric without correcting well?

For one test set, :func:`run_audit` scores the real systems, the unchanged source and every
attack system (:mod:`~.attacks`) with each metric, and reports for each (metric, attack) the
attack's score, its rank among the real systems, and whether it beats, by a significant margin
(gecscope's paired bootstrap, :class:`~gecscope.stats.paired.PairedTest`, the same resamples
for every system), the metric's best real system, the human-preferred system (top of the
test set's human ranking) and the source. The rank ensemble of the metrics
(:mod:`~.ensemble`) gets the same row, its significance from the same resamples (each
resample ranked by every metric, the negative ranks averaged).

A metric may refuse one attack system (a gecscope error, e.g. the I-measure on a sentence
rewritten whole, whose candidate references cannot be enumerated): that (metric, attack) cell
is *refused*, with the metric's reason, and the other attacks are scored and tested as usual.
The rank ensemble's cell of an attack that one of its members refused is refused too (an
ensemble of the other members would be another ensemble, see :func:`_ensemble_cells`). A
refusal on a real system or on the source skips the metric, with the reason.

Every metric's scores are higher-is-better (as every gecscope metric's corpus score).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, GecscopeError
from gecscope.meta_eval.attacks import AttackContext, AttackOutput, build_attacks

if TYPE_CHECKING:
    import numpy as np

    from gecscope.meta_eval.benchmarks import Benchmark
    from gecscope.metrics.base import Metric, SystemResult

ENSEMBLE = "RankEns"
"""Metric column of the rank ensemble in the audit."""

TARGETS = ("best", "human", "source")
"""What an attack is tested against: the metric's best real system, the human-preferred
system, the unchanged source."""


@dataclass
class TestSet:
    """What an audit runs on: ``data`` (references and sources), the ``real`` systems (the
    source excluded), the ``source`` output, the ``human`` system scores of one ranking (may
    be empty), the test-set positions of the rows (``sentences``) and the test set's size
    (``total``, the line count of a whole-test-set attack file)."""

    __test__ = False  # not a pytest class

    name: str
    data: EvalData
    real: dict[str, Hypothesis]
    source: Hypothesis
    human: dict[str, float] = field(default_factory=dict)
    human_ranking: str = ""
    sentences: tuple[int, ...] = ()
    total: int = 0

    def __post_init__(self) -> None:
        if not self.real:
            raise ConfigError(f"{self.name}: no real systems to compare the attacks with")
        if not self.sentences:
            self.sentences = tuple(range(len(self.source)))
        if not self.total:
            self.total = len(self.sentences)

    @property
    def human_best(self) -> str | None:
        """The real system the humans rank first (None without a human ranking)."""
        ranked = [s for s in self.real if s in self.human]
        return max(ranked, key=lambda s: self.human[s]) if ranked else None


def benchmark_test_set(bench: Benchmark, system_set: str | None = None,
                            ranking: str | None = None, source: str = "INPUT") -> TestSet:
    """A :class:`TestSet` of a human-ranking benchmark: the systems of ``system_set`` except
    ``source`` are the real ones; the human scores are ``ranking``'s (default: the
    benchmark's first, GJG15's Expected Wins, SEEDA's sentence-level Expected Wins)."""
    if source not in bench.hypotheses:
        raise ConfigError(f"{bench.name} has no system {source!r} to use as the source")
    key = ranking or next(iter(bench.human), "")
    if key and key not in bench.human:
        raise ConfigError(f"unknown ranking {key!r}; {bench.name} has {', '.join(bench.human)}")
    systems = [s for s in bench.select(system_set) if s != source]
    from gecscope.meta_eval.benchmarks import CONLL14_SENTENCES

    return TestSet(bench.name, bench.data, {s: bench.hypotheses[s] for s in systems},
                   bench.hypotheses[source], dict(bench.human.get(key, {})), key,
                   tuple(bench.sentences), CONLL14_SENTENCES)


@dataclass(frozen=True)
class Versus:
    """An attack against one system under one metric: ``delta`` = attack - system, the
    paired bootstrap p-value (None for a rank ensemble without shared resamples), and
    whether the attack is significantly better (delta > 0 and p < alpha)."""

    system: str
    delta: float
    p_value: float | None
    significant: bool

    def as_dict(self) -> dict[str, Any]:
        return {"system": self.system, "delta": self.delta, "p_value": self.p_value,
                "significant": self.significant}


@dataclass(frozen=True)
class AttackCell:
    """One (metric, attack): score, place among the real systems and the attack (1 + the
    number of real systems scoring strictly more; ``of`` places = real systems + 1), whether
    no real system scores as much (``above_all``), and the tests against :data:`TARGETS`.
    A cell the metric refused to score has its reason in ``refused`` (score NaN, rank 0, no
    tests; made by :meth:`refusal`)."""

    metric: str
    attack: str
    score: float
    rank: int
    of: int
    above_all: bool
    versus: dict[str, Versus]
    refused: str = ""

    @classmethod
    def refusal(cls, metric: str, attack: str, of: int, reason: str) -> AttackCell:
        """The cell of an attack ``metric`` refused to score, for ``reason``."""
        return cls(metric, attack, math.nan, 0, of, False, {}, reason)

    @property
    def gamed(self) -> bool:
        """The attack beats the metric's best real system significantly."""
        v = self.versus.get("best")
        return bool(v and v.significant)

    def as_dict(self) -> dict[str, Any]:
        """JSON: a refused cell has ``"refused": reason`` and null score and rank."""
        if self.refused:
            return {"metric": self.metric, "attack": self.attack, "score": None,
                    "rank": None, "of": self.of, "above_all": False, "gamed": False,
                    "versus": {}, "refused": self.refused}
        return {"metric": self.metric, "attack": self.attack, "score": self.score,
                "rank": self.rank, "of": self.of, "above_all": self.above_all,
                "gamed": self.gamed, "versus": {k: v.as_dict() for k, v in self.versus.items()},
                "refused": None}


@dataclass
class AuditResult:
    """The audit of one test set (JSON: :meth:`as_dict`; Markdown: :func:`render_markdown`)."""

    test_set: str
    real: list[str]
    source: str
    best: str
    human_best: str | None
    human_ranking: str
    attacks: list[dict[str, Any]]
    skipped_attacks: dict[str, str]
    metrics: list[str]
    skipped_metrics: dict[str, str]
    scores: dict[str, dict[str, float]]
    cells: list[AttackCell]
    ensemble_members: list[str]
    settings: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    refused: dict[str, dict[str, str]] = field(default_factory=dict)
    """``{metric: {attack: reason}}``: the cells refused (the metric's own refusals, and the
    rank ensemble's of the attacks one of its members refused)."""
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    """CPU seconds per step (``seconds``: wall), this process and its worker processes: the
    figure to compare on a shared machine."""

    def cell(self, metric: str, attack: str) -> AttackCell | None:
        for c in self.cells:
            if c.metric == metric and c.attack == attack:
                return c
        return None

    def as_dict(self) -> dict[str, Any]:
        return {"test_set": self.test_set, "real_systems": self.real, "source": self.source,
                "best_system": self.best, "human_best": self.human_best,
                "human_ranking": self.human_ranking, "attacks": self.attacks,
                "skipped_attacks": self.skipped_attacks, "metrics": self.metrics,
                "skipped_metrics": self.skipped_metrics, "scores": self.scores,
                "cells": [c.as_dict() for c in self.cells],
                "ensemble_members": self.ensemble_members, "refused": self.refused,
                "settings": self.settings, "seconds": self.seconds,
                "cpu_seconds": self.cpu_seconds}


def run_audit(test: TestSet, metrics: Sequence[str], *,
              attacks: Sequence[str] = (), extra: Sequence[AttackOutput] = (),
              make_metric: Callable[[str], Metric] | None = None, best: str | None = None,
              ensemble: Sequence[str] | None = None, resamples: int = 1000, seed: int = 0,
              alpha: float = 0.05, jobs: int = 1,
              progress: Callable[[str], None] | None = None) -> AuditResult:
    """Build the ``attacks`` (names or ``module:Class``) from ``test``, add the ``extra``
    attack systems (e.g. :func:`~.attacks.read_attack_dir`), score everything with each of
    ``metrics`` and test each attack (see the module). ``best`` is the real system the attacks
    start from (default: the human-preferred one; needed without a human ranking).
    ``ensemble`` lists the rank ensemble's members (default: every metric that ran; empty:
    no ensemble). A metric named twice is scored once (two names of one metric, ``m2`` and
    ``M2``, are a :class:`~gecscope.errors.ConfigError`). A metric that cannot run (a
    :class:`~gecscope.errors.GecscopeError`: unknown, a missing dependency or model, or a
    refusal of a real system or the source) is skipped with the reason; one that refuses an
    attack gets a refused cell for it (:func:`score_systems`). Other exceptions propagate:
    a bug is not a refusal."""
    from gecscope.registry import get_metric
    from gecscope.stats.paired import PairedTest

    if resamples < 1:
        raise ConfigError(f"resamples must be at least 1, got {resamples}")
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha must be between 0 and 1, got {alpha}")
    chosen = best or test.human_best
    if chosen is None:
        raise ConfigError(f"{test.name} has no human ranking: name the best real system the "
                          "attacks start from (--best)")
    t0 = _clock()
    ctx = AttackContext(tuple(test.source.tokens), test.data.m2, test.real, chosen, test.data,
                        seed)
    if progress:
        progress(f"{test.name}: building attacks")
    outputs, skipped_attacks = build_attacks(ctx, attacks)
    names = [o.name for o in outputs]
    for o in extra:
        if len(o.hypothesis) != len(test.source):
            raise ConfigError(f"attack {o.name} has {len(o.hypothesis)} sentences, the test set "
                              f"{len(test.source)}")
        if o.name in names:
            raise ConfigError(f"two attacks are named {o.name!r}")
        outputs.append(o)
        names.append(o.name)
    clash = set(names) & {*test.real, test.source.name}
    if clash:
        raise ConfigError(f"attack names clash with systems: {', '.join(sorted(clash))}")
    hyps = admit_systems(test.data, [*test.real.values(), test.source],
                         [o.hypothesis for o in outputs])
    seconds: dict[str, float] = {}
    cpu: dict[str, float] = {}
    seconds["attacks"], cpu["attacks"] = _since(t0)
    factory = make_metric or (lambda name: get_metric(name)())
    ran: list[str] = []
    skipped: dict[str, str] = {}
    scores: dict[str, dict[str, float]] = {}
    refused: dict[str, dict[str, str]] = {}
    cells: list[AttackCell] = []
    tests: dict[str, PairedTest] = {}
    edits_attached = False
    base = len(test.real) + 1  # the real systems and the source come first in hyps
    for spec in dict.fromkeys(metrics):  # a metric named twice is scored once
        start = _clock()
        try:
            metric = factory(spec)
        except GecscopeError as exc:  # unknown, or cannot be made here: reported, not fatal
            skipped[spec] = _reason(exc)
            seconds[spec], cpu[spec] = _since(start)
            continue
        label = getattr(metric, "name", "") or spec
        if label in ran:  # e.g. "m2" and "M2": the ensemble would weigh it twice
            raise ConfigError(f"metric {spec!r} is {label}, named before: name each metric "
                              "once")
        try:
            if progress:
                progress(f"{test.name}: {label} on {len(hyps)} systems")
            if not edits_attached and "hypothesis-edits" in getattr(metric, "requires", ()) \
                    and test.data.m2 is not None:
                from gecscope.reports.model import with_edits

                hyps = with_edits(test.data, hyps, jobs=jobs)  # extracted once for all metrics
                edits_attached = True
            results, refusals = score_systems(metric, test.data, hyps, base, jobs=jobs)
        except GecscopeError as exc:  # cannot run here, or refused a real system: skipped
            skipped[spec] = _reason(exc)
            continue
        finally:
            seconds[spec], cpu[spec] = _since(start)
        by_name = {r.system: r for r in results}
        scores[label] = {s: float(r.score.value) for s, r in by_name.items()}
        if refusals:
            refused[label] = refusals
            if progress:
                progress(f"{test.name}: {label} refused {len(refusals)} attack(s): "
                         + ", ".join(refusals))
        paired = PairedTest(metric, results, n_samples=resamples, seed=seed)
        tests[label] = paired
        cells += _metric_cells(label, paired, by_name, test, names, alpha, refusals)
        ran.append(label)
        seconds[spec], cpu[spec] = _since(start)
    members = list(dict.fromkeys(ran if ensemble is None else ensemble))
    unknown = [m for m in members if m not in tests]
    if unknown:
        raise ConfigError(f"ensemble member(s) {', '.join(unknown)} did not run (metrics that "
                          f"ran: {', '.join(ran) or 'none'})")
    if members:
        start = _clock()
        if progress:
            progress(f"{test.name}: rank ensemble of {len(members)} metrics")
        ens_cells = _ensemble_cells(members, tests, scores, test, names, alpha, refused)
        cells += ens_cells
        if any(c.refused for c in ens_cells):
            refused[ENSEMBLE] = {c.attack: c.refused for c in ens_cells if c.refused}
        seconds[ENSEMBLE], cpu[ENSEMBLE] = _since(start)
    return AuditResult(
        test.name, list(test.real), test.source.name, chosen, test.human_best,
        test.human_ranking, [{**o.as_dict(), **_attack_info(o)} for o in outputs],
        skipped_attacks, ran, skipped, scores, cells, members,
        {"resamples": resamples, "seed": seed, "alpha": alpha, "test": "paired bootstrap",
         "sentences": len(test.source)}, seconds, refused, cpu)


ATTACK_GATE_ALLOW = frozenset({"misplaced-lines", "other-test-set", "uncertain-alignment"})
"""What the gate lets through for attack systems: their lines are scored as they are, even
when they look like other sentences' outputs (``other-reference``, the published attacks)."""


def admit_systems(data: EvalData, real: Sequence[Hypothesis], attacks: Sequence[Hypothesis]
                  ) -> list[Hypothesis]:
    """The systems through the gate (:func:`gecscope.gate.admit`): the real ones (and the
    source) as ``gecscope evaluate`` admits them, its warnings emitted; the attack systems
    line by line (``hyp_level="sentence"``, :data:`ATTACK_GATE_ALLOW`), since an attack's
    lines are meant to be wrong, without warnings."""
    from gecscope.gate import GateOptions, admit, emit

    first = admit(data, list(real))
    emit(first.findings)
    second = admit(data, list(attacks), GateOptions(hyp_level="sentence",
                                                    allow=ATTACK_GATE_ALLOW))
    return [*first.hypotheses, *second.hypotheses]


def _clock() -> tuple[float, float]:
    """Wall and CPU seconds now; the CPU of this process and of its finished children (the
    worker processes of ``jobs > 1``, joined at the end of each scoring)."""
    import os

    t = os.times()
    return time.perf_counter(), t.user + t.system + t.children_user + t.children_system


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def score_systems(metric: Metric, data: EvalData, hyps: Sequence[Hypothesis], base: int, *,
                  jobs: int = 1) -> tuple[list[SystemResult], dict[str, str]]:
    """``metric``'s results of ``hyps`` (the real systems and the source are the first
    ``base``, the attacks after them) and the attacks it refused, ``{name: reason}``.

    Everything is scored at once; only when that raises a gecscope error are the first
    ``base`` scored together (an error there propagates: the metric cannot be audited) and
    then each attack alone, an attack the metric refuses (a :class:`~gecscope.errors.
    GecscopeError`) left out with the reason. So a metric that refuses nothing costs one run.
    State a metric prepares from the set of systems (:meth:`~gecscope.metrics.base.Metric.
    prepare_systems`, GoToScorer's ``weight_systems=@scored``) is prepared once from all of
    ``hyps``, as in the one run. Any other exception (a bug) propagates."""
    from gecscope.evaluation import score_admitted
    from gecscope.execution.plan import make_plan, run

    try:
        return score_admitted([metric], data, hyps, jobs=jobs), {}
    except GecscopeError:
        if len(hyps) <= base:
            raise
    metric.check_inputs(data)
    metric.prepare_systems(data, list(hyps))
    results = run(make_plan([metric], data, list(hyps[:base]), jobs))
    refused: dict[str, str] = {}
    for hyp in hyps[base:]:
        try:
            results += run(make_plan([metric], data, [hyp], jobs))
        except GecscopeError as exc:
            refused[hyp.name] = _reason(exc)
    return results, refused


def _reason(exc: BaseException) -> str:
    """An error as one line: its type and message."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _attack_info(o: AttackOutput) -> dict[str, str]:
    if o.attack == "published":
        return {"source": "Goto et al. (2025), gotutiyan/attack-gec-metrics (read from the "
                          "user's copy)", "games": "the reference-free metric it was built for"}
    from gecscope.meta_eval.attacks import get_attack

    try:
        info = get_attack(o.attack).info()
    except ConfigError:
        return {}
    return {"source": info["source"], "games": info["games"]}


def _versus(paired: Any, attack: str, system: str, alpha: float) -> Versus:
    comp = paired.compare(attack, system)
    return Versus(system, comp.delta, comp.p_value, comp.delta > 0 and comp.p_value < alpha)


def _metric_cells(label: str, paired: Any, results: Mapping[str, SystemResult],
                  test: TestSet, attacks: Sequence[str], alpha: float,
                  refused: Mapping[str, str]) -> list[AttackCell]:
    real = {s: float(results[s].score.value) for s in test.real}
    best = max(real, key=lambda s: real[s])
    targets = {"best": best, "human": test.human_best, "source": test.source.name}
    out = []
    for a in attacks:
        if a in refused:
            out.append(AttackCell.refusal(label, a, len(real) + 1, refused[a]))
            continue
        score = float(results[a].score.value)
        versus = {k: _versus(paired, a, s, alpha) for k, s in targets.items() if s is not None}
        out.append(AttackCell(label, a, score, 1 + sum(v > score for v in real.values()),
                              len(real) + 1, all(score > v for v in real.values()), versus))
    return out


def _ensemble_cells(members: Sequence[str], tests: Mapping[str, Any],
                    scores: Mapping[str, Mapping[str, float]], test: TestSet,
                    attacks: Sequence[str], alpha: float,
                    refused: Mapping[str, Mapping[str, str]]) -> list[AttackCell]:
    """Per attack: the rank ensemble over the real systems, the source and that attack (each
    attack ranked alone with them), tested on the members' shared bootstrap resamples.

    An attack a member refused is not ranked (its cell is refused, naming the members): a
    rank over the other members would be another ensemble than the column's, one without the
    member that would not score the attack, and its place could not be compared with the
    other attacks'."""
    import numpy as np

    from gecscope.meta_eval.ensemble import negative_ranks, rank_ensemble
    from gecscope.stats.paired import p_value

    first = tests[members[0]]
    shared = all(np.array_equal(tests[m].indices, first.indices) for m in members)
    base = [*test.real, test.source.name]
    out = []
    for a in attacks:
        by = [m for m in members if a in refused.get(m, {})]
        if by:
            out.append(AttackCell.refusal(
                ENSEMBLE, a, len(test.real) + 1,
                f"member{'s' if len(by) > 1 else ''} {', '.join(by)} refused this attack"))
            continue
        systems = [*base, a]
        ens = rank_ensemble({m: scores[m] for m in members}, systems)
        real = {s: ens[s] for s in test.real}
        best = max(real, key=lambda s: real[s])
        samples: np.ndarray | None = None
        if shared:
            samples = np.mean([negative_ranks(np.stack([tests[m].samples(s) for s in systems]))
                               for m in members], axis=0)
        targets = {"best": best, "human": test.human_best, "source": test.source.name}
        versus = {}
        for key, s in targets.items():
            if s is None:
                continue
            delta = ens[a] - ens[s]
            p = None
            if samples is not None:
                d = samples[systems.index(a)] - samples[systems.index(s)]
                p = p_value(np.abs(d - d.mean()), abs(delta))
            versus[key] = Versus(s, delta, p, delta > 0 and p is not None and p < alpha)
        out.append(AttackCell(ENSEMBLE, a, ens[a], 1 + sum(v > ens[a] for v in real.values()),
                              len(real) + 1, all(ens[a] > v for v in real.values()),
                              versus))
    return out


FLAGS = {"best": "B", "human": "H", "source": "S"}


def cell_text(c: AttackCell, note: str = "") -> str:
    """``rank/of`` and the flags of the significant wins (B: over the metric's best real
    system, H: over the human-preferred one, S: over the source); bold when no real system
    scores as much. A refused cell: ``refused`` and its footnote mark ``note``."""
    if c.refused:
        return f"refused{note}"
    rank = f"**{c.rank}**" if c.above_all else str(c.rank)
    flags = "".join(FLAGS[k] for k in TARGETS if k in c.versus and c.versus[k].significant)
    return f"{rank}/{c.of}" + (f" {flags}" if flags else "")


def render_markdown(results: Sequence[AuditResult]) -> str:
    """The audit tables: per test set, attacks x metrics (rank among the real systems and the
    significant wins), then the scores, the attacks' descriptions and what was skipped."""
    lines = ["# Attack audit", "",
             ("Cell: the attack's place among the real systems (1 + the number of real "
              "systems scoring strictly more, out of their number + 1; **bold**: above every "
              "real system) and the wins that are "
              "significant (paired bootstrap, p < alpha, delta > 0): B over the metric's best "
              "real system, H over the human-preferred system, S over the unchanged source. "
              f"`{ENSEMBLE}`: the rank ensemble of the metrics (Goto et al. 2025), each attack "
              "ranked alone with the real systems and the source. `refused`: the metric "
              "refused to score the attack (the footnote gives its reason); the ensemble does "
              "not rank an attack one of its members refused."), ""]
    for r in results:
        cols = [*r.metrics, *([ENSEMBLE] if r.ensemble_members else [])]
        attacks = [a["name"] for a in r.attacks]
        s = r.settings
        lines += [f"## {r.test_set}: {len(attacks)} attacks vs {len(r.real)} real systems", "",
                  (f"{s['sentences']} sentences; attacks built from {r.best}"
                   + (f"; human-preferred system {r.human_best} ({r.human_ranking})"
                      if r.human_best else "")
                   + f"; source {r.source}; {s['resamples']} bootstrap resamples, seed "
                     f"{s['seed']}, alpha {s['alpha']}."
                   + (f" {ENSEMBLE} = {' + '.join(r.ensemble_members)}."
                      if r.ensemble_members else "")), "",
                  "| Attack | " + " | ".join(cols) + " |",
                  "|---|" + "---|" * len(cols)]
        notes = footnotes(r)
        for a in attacks:
            cells = [r.cell(m, a) for m in cols]
            lines.append(f"| {a.removeprefix('attack:')} | "
                         + " | ".join(cell_text(c, notes.get((c.metric, c.refused), ("",))[0])
                                      if c else "–" for c in cells) + " |")
        if notes:
            lines.append("")
            lines += [f"{mark}: `{metric}` "
                      + ("did not rank " if metric == ENSEMBLE else "refused ")
                      + ", ".join(f"`{a.removeprefix('attack:')}`" for a in refused_attacks)
                      + f": {reason}"
                      for (metric, reason), (mark, refused_attacks) in notes.items()]
        lines += ["", f"### {r.test_set}: scores", "",
                  "| System | " + " | ".join(r.metrics) + " |",
                  "|---|" + "---|" * len(r.metrics)]
        for name, vals in score_rows(r):
            lines.append(f"| {name} | " + " | ".join(fmt_score(v) for v in vals) + " |")
        lines += ["", f"### {r.test_set}: attacks", ""]
        lines += [f"- `{a['name'].removeprefix('attack:')}`: {a['description']}"
                  + (f" ({attack_notes(a['notes'])})" if attack_notes(a["notes"]) else "")
                  for a in r.attacks]
        if r.skipped_attacks:
            lines += [f"- skipped `{k}`: {v}" for k, v in r.skipped_attacks.items()]
        if r.skipped_metrics:
            lines += ["", "Skipped metrics:", ""]
            lines += [f"- `{k}`: {v}" for k, v in r.skipped_metrics.items()]
        lines.append("")
    return "\n".join(lines)


def score_rows(r: AuditResult) -> list[tuple[str, list[float | None]]]:
    """The scores table of an audit: the best real system of each metric, the
    human-preferred system, the source and each attack (``None``: the metric refused it),
    one value per metric of ``r.metrics``."""
    best = {m: _top(r.real, r.scores[m]) for m in r.metrics}
    rows: list[tuple[str, list[float | None]]] = [
        ("best real (" + ", ".join(sorted(set(best.values()))) + ")",
         [r.scores[m][best[m]] for m in r.metrics])]
    if r.human_best:
        rows.append((f"human-preferred ({r.human_best})",
                     [r.scores[m][r.human_best] for m in r.metrics]))
    rows.append((f"source ({r.source})", [r.scores[m][r.source] for m in r.metrics]))
    rows += [(a["name"].removeprefix("attack:"), [r.scores[m].get(a["name"]) for m in r.metrics])
             for a in r.attacks]
    return rows


def footnotes(r: AuditResult) -> dict[tuple[str, str], tuple[str, list[str]]]:
    """Per (metric, reason) of the refused cells: its footnote mark (``[^<test set>-k]``,
    unique in a page of several test sets) and the attacks refused for it."""
    import re

    out: dict[tuple[str, str], tuple[str, list[str]]] = {}
    slug = re.sub(r"[^A-Za-z0-9]+", "-", r.test_set).strip("-") or "audit"
    for c in r.cells:
        if c.refused:
            key = (c.metric, c.refused)
            if key not in out:
                out[key] = (f"[^{slug}-{len(out) + 1}]", [])
            out[key][1].append(c.attack)
    return out


def _top(systems: Sequence[str], scores: Mapping[str, float]) -> str:
    """The system of ``systems`` with the highest score (the first of equals)."""
    return max(systems, key=lambda s: scores[s])


def attack_notes(notes: Mapping[str, Any]) -> str:
    keep = {k: v for k, v in notes.items() if k in ("kept_types", "best_system", "file")}
    if "kept_types" in keep:
        keep["kept_types"] = ", ".join(keep["kept_types"]) or "none"
    return "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in keep.items())


def fmt_score(v: float | None) -> str:
    """A score to 4 decimals; ``refused`` for an attack the metric refused (no score)."""
    if v is None:
        return "refused"
    return "–" if math.isnan(v) else f"{v:.4f}"

"""The report data model: everything a rendering (text, TSV, JSON, HTML) shows, in one place.

:func:`build_report` turns the results of an evaluation (one :class:`SystemResult` per system
and metric) into a :class:`Report`: scores and their fields, bootstrap intervals and paired
tests when resampling is asked for, reproducibility signatures, per-error-type tables and
per-sentence results with edit outcomes. Renderers only format a Report; they never score.
Any metric works: the report reads ``Score.value``/``fields``/``main``, per-type counts from
``Score.categories`` (``{type: [TP, FP, FN]}``) when a metric provides them, and
per-sentence scores from ``SystemResult.sentence_scores``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gecscope import __version__
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, GecscopeError
from gecscope.reports.attribution import AttributionRequest, AttributionTable
from gecscope.reports.headline import Reported, find_reported
from gecscope.reports.outcomes import OUTCOMES, EditOutcome, best_reference, count
from gecscope.reports.schemes import TypeView, type_view
from gecscope.stats.prf import prf

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.explain.corpus import CorpusCosts
    from gecscope.metrics.base import Metric, SentenceDetail, SystemResult
    from gecscope.types import Corpus

SCHEMA_VERSION = "1.2"  # 1.1: attributions; 1.2: reported, what intervals are over
SCHEMA_ID = "https://gecscope.invalid/schema/report-v1.json"
OUTCOME_TABLE = "edit-outcomes"


def clean(v: Any) -> Any:
    """JSON-safe number: ints stay ints, non-finite floats become ``None``."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if f.is_integer() and abs(f) < 2 ** 53 and type(v).__name__.startswith("int"):
        return int(f)
    return f if math.isfinite(f) else None


@dataclass
class MetricInfo:
    name: str
    main: str
    description: str
    options: dict[str, Any]
    signature: str
    signature_long: str
    #: What the scores name themselves (``Score.title``, e.g. "Span-Based Correction") and
    #: the fields a terminal table shows by default (``Score.display``; empty: all).
    title: str = ""
    display: tuple[str, ...] = ()
    #: printed under the table: which ``fix_*`` options moved the numbers away from the
    #: official scorer's (:meth:`~gecscope.metrics.base.Metric.fix_note`)
    notes: tuple[str, ...] = ()


def _fix_notes(metric: Any, results: Sequence[SystemResult],
               hyps: Sequence[Hypothesis], data: EvalData) -> tuple[str, ...]:
    """The note on the ``fix_*`` options a metric has switched on, if any, naming the systems
    whose numbers they changed where the metric can tell cheaply
    (:meth:`~gecscope.metrics.base.Metric.official_score`)."""
    if not hasattr(metric, "fix_note") or not metric.fixes_on():
        return ()
    by_name = {h.name: h for h in hyps}
    changed: dict[str, str] = {}
    for r in results:
        hyp = by_name.get(r.system)
        official = (metric.official_score(data, hyp, r.stats)
                    if hyp is not None and r.stats is not None else None)
        if official is None:
            note = metric.fix_note(None)
            return (note,) if note else ()
        here = {r.score.main: r.score.value, **r.score.fields}
        there = {official.main: official.value, **official.fields}
        moved = [k for k in here if here[k] != there.get(k)]
        if moved:
            changed[r.system] = ", ".join(f"{k} {here[k]:.6g} vs {there.get(k, float('nan')):.6g}"
                                          for k in moved[:3])
    note = metric.fix_note(changed)
    return (note,) if note else ()


@dataclass
class ScoreEntry:
    system: str
    metric: str
    value: float | None
    main: str
    fields: dict[str, Any]
    interval: dict[str, Any] | None = None
    field_intervals: dict[str, dict[str, Any]] = field(default_factory=dict)
    rank: int | None = None
    cluster: int | None = None
    #: One score per sentence where the metric defines one (``SystemResult.sentence_scores``).
    sentence_scores: list[float] | None = None


@dataclass
class TypeRow:
    """Counts of one error type for one system; ``fp_ne``/``fp_un`` only for edit outcomes."""

    type: str
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f: float
    fp_ne: int | None = None
    fp_un: int | None = None


@dataclass
class SystemSentence:
    hypothesis: str
    reference: int | None
    edits: list[EditOutcome]
    scores: dict[str, float | None]


@dataclass
class ReferenceText:
    annotator: int
    text: str
    edits: list[dict[str, Any]]


@dataclass
class SentenceEntry:
    index: int
    source: str
    references: list[ReferenceText]
    systems: dict[str, SystemSentence]


@dataclass
class Report:
    systems: list[str]
    metrics: list[MetricInfo]
    scores: list[ScoreEntry]
    per_type: dict[str, dict[str, list[TypeRow]]] = field(default_factory=dict)
    sentences: list[SentenceEntry] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    resampling: dict[str, Any] | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    created: str = field(default_factory=lambda: datetime.now(UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ"))
    gecscope_version: str = __version__
    schema_version: str = SCHEMA_VERSION
    #: Every pair of systems tested (bootstrap test only: its resamples are shared, so all
    #: pairs cost little more than the ranking), for the significance matrix.
    pairwise: list[dict[str, Any]] = field(default_factory=list)
    #: metric -> system -> its sentence listing (:meth:`Metric.details
    #: <gecscope.metrics.base.Metric.details>`, ``evaluate -v``), for metrics that give one.
    details: dict[str, dict[str, Sequence[SentenceDetail]]] = field(default_factory=dict)
    #: metric -> its edit attributions (per sentence and summed by type), for the metrics an
    #: :class:`~gecscope.reports.attribution.AttributionRequest` asked for.
    attributions: dict[str, AttributionTable] = field(default_factory=dict)
    #: which figure the references' test set reports (:func:`~gecscope.reports.headline.
    #: find_reported`), ``None`` when the references are not a known test set
    reported: Reported | None = None
    #: the corpus view of edit attribution per system and metric
    #: (:func:`gecscope.explain.corpus_costs`; ``evaluate --top N``), when asked for
    costs: list[CorpusCosts] = field(default_factory=list)

    def score(self, system: str, metric: str) -> ScoreEntry | None:
        for s in self.scores:
            if s.system == system and s.metric == metric:
                return s
        return None

    def metric(self, name: str) -> MetricInfo | None:
        return next((m for m in self.metrics if m.name == name), None)


def _type_rows(cats: Mapping[str, Sequence[Any]], beta: float = 0.5) -> list[TypeRow]:
    rows = []
    for name in sorted(cats):
        c = list(cats[name])
        tp, fp, fn = (int(x) for x in c[:3])
        p, r, f = prf(tp, fp, fn, beta)
        rows.append(TypeRow(name, tp, fp, fn, p, r, f))
    return rows


def _categories(cats: Mapping[str, Sequence[Any]] | None) -> Mapping[str, Sequence[Any]] | None:
    if not cats:
        return None
    for v in cats.values():
        if not isinstance(v, Sequence) or len(v) < 3:
            return None
    return cats


def _outcome_rows(per_type: Mapping[str, list[int]]) -> list[TypeRow]:
    rows = []
    for name in sorted(per_type):
        tp, fp_ne, fp_un, fn = per_type[name]
        p, r, f = prf(tp, fp_ne + fp_un, fn, 0.5)
        rows.append(TypeRow(name, tp, fp_ne + fp_un, fn, p, r, f, fp_ne, fp_un))
    return rows


def report_edits(data: EvalData, hyps: Sequence[Hypothesis], warnings: list[str], *,
                 extract: bool = True) -> dict[str, Corpus]:
    """Each system's edits for the report: its M2's, or those extracted before (cached in
    ``data``; with ``extract=False`` only those), else extracted now (a warning when that is
    impossible, e.g. without spaCy). :func:`with_edits` extracts them beforehand, all systems
    at once on several processes."""
    out: dict[str, Corpus] = {}
    for h in hyps:
        if not extract:
            known = data.known_hypothesis_m2(h)
            if known is not None:
                out[h.name] = known
            continue
        try:
            out[h.name] = data.hypothesis_m2(h)
        except (GecscopeError, ImportError) as exc:  # e.g. no spaCy for text hypotheses
            warnings.append(f"no edits for {h.name}: {exc}")
    return out


def with_edits(data: EvalData, hyps: Sequence[Hypothesis], *, jobs: int = 1) -> list[Hypothesis]:
    """The systems with their edits attached (:attr:`Hypothesis.m2`), for a report that shows
    edit outcomes: the edits extracted before (cached in ``data``) where there are some, the
    others extracted now, every system at once on ``jobs`` processes, ticking
    :mod:`gecscope.progress` (one tick per sentence). Scoring these (edit-based metrics read
    the attached edits, the scores are unchanged) and building the report from them extracts
    nothing more, however many systems ``data``'s bounded cache would have to hold. A system
    whose edits cannot be extracted (no spaCy) is returned as it is (the report says why)."""
    from gecscope.data import DERIVED_CACHE_SIZE
    from gecscope.execution.plan import extract_edits, resolve_jobs

    jobs = resolve_jobs(jobs)
    if data.m2 is None:  # plain-text references: no edit outcomes to show
        return list(hyps)
    known: dict[str, Corpus] = {}
    todo: list[Hypothesis] = []
    for h in hyps:
        corpus = data.known_hypothesis_m2(h)
        if corpus is not None:
            known[h.key] = corpus
        elif all(h.key != t.key for t in todo):
            todo.append(h)
    # in batches the data's cache holds whole (it keeps a bounded number of systems)
    size = max(1, DERIVED_CACHE_SIZE)
    for k in range(0, len(todo), size):
        batch = todo[k:k + size]
        try:
            extract_edits(data, batch, jobs, progress=_tick)
        except (GecscopeError, ImportError):
            continue  # the report names the systems without edits and why
        for h in batch:
            corpus = data.known_hypothesis_m2(h)
            if corpus is not None:
                known[h.key] = corpus
    return [h if h.m2 is not None or h.key not in known else
            Hypothesis(h.name, h.tokens, known[h.key], h.path) for h in hyps]


def _tick(n: int) -> None:
    from gecscope.progress import tick

    tick(n)


def _sentences(data: EvalData, hyps: Sequence[Hypothesis],
               results: Sequence[SystemResult], per_type: dict[str, dict[str, list[TypeRow]]],
               view: TypeView) -> list[SentenceEntry]:
    ref_m2 = view.reference
    sources = data.sources
    refs = data.references
    hyp_m2 = view.hypotheses
    sent_scores: dict[tuple[str, str], list[float] | None] = {
        (r.system, r.metric): r.sentence_scores for r in results}
    metric_names = list(dict.fromkeys(r.metric for r in results))
    type_counts: dict[str, dict[str, list[int]]] = {name: {} for name in hyp_m2}
    out: list[SentenceEntry] = []
    for i, src in enumerate(sources):
        references: list[ReferenceText] = []
        if ref_m2 is not None:
            rs = ref_m2[i]
            for ann in rs.annotations:
                references.append(ReferenceText(ann.annotator, " ".join(rs.reference(
                    ann.annotator)), [
                    {"start": e.start, "end": e.end, "original": " ".join(src[e.start:e.end]),
                     "correction": " ".join(e.correction), "type": e.type}
                    for e in ann.edits if e.type != "noop"]))
        else:
            for k, ref in enumerate(refs):
                references.append(ReferenceText(k, " ".join(ref[i]), []))
        systems: dict[str, SystemSentence] = {}
        for h in hyps:
            ref_id: int | None = None
            edits: list[EditOutcome] = []
            if h.name in hyp_m2 and ref_m2 is not None:
                ref_id, edits = best_reference(hyp_m2[h.name][i], ref_m2[i])
                tc = type_counts[h.name]
                for e in edits:
                    tc.setdefault(e.type or "-", [0, 0, 0, 0])[OUTCOMES.index(e.outcome)] += 1
            scores: dict[str, float | None] = {}
            for m in metric_names:
                ss = sent_scores.get((h.name, m))
                if ss is not None and i < len(ss):
                    scores[m] = clean(float(ss[i]))
            systems[h.name] = SystemSentence(" ".join(h.tokens[i]), ref_id, edits, scores)
        out.append(SentenceEntry(i, " ".join(src), references, systems))
    if hyp_m2 and ref_m2 is not None and view.refused is None:
        per_type[OUTCOME_TABLE] = {name: _outcome_rows(tc) for name, tc in type_counts.items()}
    return out


@dataclass
class TypeCounts:
    """Per-type counts of every metric that gives them, in one error-type scheme.

    ``categories``: metric -> system -> ``{type: [TP, FP, FN]}``; ``view``: the edits (and
    their scheme) behind them and behind the edit outcomes (:mod:`gecscope.reports.schemes`).
    """

    categories: dict[str, dict[str, Mapping[str, Sequence[Any]]]]
    view: TypeView


def _retype_with(data: EvalData) -> Callable[[Corpus], Corpus] | None:
    """The re-typing of :func:`~gecscope.reports.schemes.type_view` that takes the reference
    M2's ERRANT types from the workers of the scoring (:data:`~gecscope.execution.chunks.
    RETYPED_REFERENCE`, computed as the default re-typing computes them), or ``None`` (the
    default) when they did not compute it."""
    from gecscope.execution.chunks import RETYPED_REFERENCE
    from gecscope.reports.schemes import errant_retype

    done = data.peek(RETYPED_REFERENCE)
    if done is None or data.m2 is None:
        return None
    reference = data.m2
    return lambda corpus: done if corpus is reference else errant_retype(corpus)


def type_counts(data: EvalData, hyps: Sequence[Hypothesis], results: Sequence[SystemResult],
                metrics: Sequence[Metric], *, sentences: bool = False,
                progress: Callable[[str], None] | None = None,
                warnings: list[str] | None = None) -> TypeCounts:
    """The per-type counts every rendering shows (text, JSON, HTML), never mixing schemes.

    When the references and a system are typed in different schemes, the sides not in
    ERRANT's are re-typed with ERRANT, spans kept (:func:`~gecscope.reports.schemes.type_view`),
    and each metric's per-type counts are recounted on the re-typed edits: the metric is run
    again on them and its counts kept only when every field equals the scoring's (re-typing
    changes no span or correction, so a metric whose matching ignores types, ERRANT's ``cs``
    mode, gives the same; one that compares types, ``cse``, gets no per-type table, with
    the reason in ``warnings``). ``sentences``: the edit outcomes will be shown too. Every
    system's edits are looked at (extracted if nothing extracted them before, so that a
    system's scheme is never unknown)."""
    notes = warnings if warnings is not None else []
    metric_objs = {m.name: m for m in metrics}
    by_metric: dict[str, list[SystemResult]] = {}
    for r in results:
        if _categories(r.score.categories) is not None:
            by_metric.setdefault(r.metric, []).append(r)
    reference = data.m2
    if not by_metric and not (sentences and reference is not None):
        return TypeCounts({}, TypeView(reference, {}))
    edits = report_edits(data, hyps, notes, extract=reference is not None)
    view = type_view(reference, edits, errant=data.lang.edit_extractor.errant,
                     retype=_retype_with(data), progress=progress)
    if view.refused:
        notes.append(view.refused)
        return TypeCounts({}, view)
    if view.note:
        notes.append(view.note)
    categories: dict[str, dict[str, Mapping[str, Sequence[Any]]]] = {}
    typed_data: EvalData | None = None
    by_name = {h.name: h for h in hyps}
    for name, rs in by_metric.items():
        tables: dict[str, Mapping[str, Sequence[Any]]] = {}
        for r in rs:
            cats = _categories(r.score.categories)
            assert cats is not None
            if view.changed:
                h = by_name.get(r.system)
                if h is None or r.system not in view.hypotheses:
                    notes.append(f"no {name} per-type table for {r.system}: its edits are not "
                                 "at hand to re-type")
                    continue
                if typed_data is None:
                    assert view.reference is not None
                    typed_data = EvalData.from_m2(view.reference, lang=data.lang)
                    typed_data.cycle_references = data.cycle_references
                typed = Hypothesis(h.name, h.tokens, view.hypotheses[r.system], h.path)
                metric = metric_objs[name]
                # h as scored (the CLI's hypotheses passed the gate): the re-typed references
                # change no span, so it is scored again without the gate; a hypothesis the
                # gate would change (given raw to the API) goes through it, as when scored
                metric.check_inputs(typed_data)
                metric.check_hypothesis(typed_data, typed)
                again = metric.result(typed_data, typed).score
                if again.fields != r.score.fields:
                    again = metric.evaluate(typed_data, typed).score
                if again.fields != r.score.fields:
                    notes.append(f"no {name} per-type tables: its scores depend on the error "
                                 "types (re-typed, they change), so its counts cannot be "
                                 "shown by ERRANT type; re-annotate the references with "
                                 "ERRANT (gecscope annotate --retype) and score against those")
                    tables = {}
                    break
                cats = _categories(again.categories)
                if cats is None:
                    continue
            tables[r.system] = cats
        if tables:
            categories[name] = tables
    return TypeCounts(categories, view)


def metric_details(results: Sequence[SystemResult], metrics: Sequence[Metric]
                   ) -> dict[str, dict[str, Sequence[SentenceDetail]]]:
    """Each metric's sentence listing per system (:meth:`Metric.details
    <gecscope.metrics.base.Metric.details>`), for those of ``metrics`` that give one (results
    of other metrics are left out)."""
    metric_objs = {m.name: m for m in metrics}
    out: dict[str, dict[str, Sequence[SentenceDetail]]] = {}
    for r in results:
        if r.metric not in metric_objs:
            continue
        listing = metric_objs[r.metric].details(r.stats)
        if listing is not None:
            out.setdefault(r.metric, {})[r.system] = listing
    return out


def build_report(data: EvalData, hyps: Sequence[Hypothesis], results: Sequence[SystemResult],
                 metrics: Sequence[Metric], *, n_samples: int = 0, seed: int | None = 12345,
                 test: str = "bootstrap", confidence: float = 0.95, alpha: float = 0.05,
                 sentences: bool = True, types: bool = True, details: bool = False,
                 attribution: AttributionRequest | None = None,
                 progress: Callable[[str], None] | None = None) -> Report:
    """Assemble a :class:`Report` from evaluation results.

    ``n_samples > 0`` adds bootstrap intervals for every score and field (from per-sentence
    statistics, shared resamples across systems) and a ranking with significance clusters per
    metric (``test`` = ``bootstrap`` or ``ar``). ``sentences=False`` leaves out the
    per-sentence section (smaller JSON); ``types=False`` the per-metric per-type tables (and
    the re-typing they may need, see :func:`type_counts`) when no rendering shows them;
    ``details=True`` adds each metric's sentence listing (:func:`metric_details`);
    ``attribution`` each asked metric's edit attributions (per sentence and by type,
    :func:`~gecscope.reports.attribution.attribution_tables`; the costly part). Without
    resampling, sentences, types and attributions a report costs the signatures only.
    """
    by_metric: dict[str, list[SystemResult]] = {}
    for r in results:
        by_metric.setdefault(r.metric, []).append(r)
    metric_objs = {m.name: m for m in metrics}
    missing = [name for name in by_metric if name not in metric_objs]
    if missing:
        raise ConfigError(f"results for metric(s) {', '.join(missing)} but no metric object given")
    systems = list(dict.fromkeys([h.name for h in hyps] + [r.system for r in results]))

    from gecscope.signature import metric_signature

    # what was done to a system's text before scoring (--hyp-tokenise, --hyp-level...): kept
    # beside its numbers, under each table and in the inputs
    prepared = {h.name: "; ".join(h.notes) for h in hyps if getattr(h, "notes", ())}
    infos: list[MetricInfo] = []
    for name, metric_results in by_metric.items():
        m = metric_objs[name]
        sig = metric_signature(m, data, n_samples=n_samples or None, seed=seed,
                               test=test if n_samples else None)
        first = metric_results[0].score
        infos.append(MetricInfo(name, first.main, getattr(m, "description", "") or "",
                                {k: clean(v) if not isinstance(v, str) else v
                                 for k, v in _plain_options(m).items()},
                                sig.short(), sig.long(), first.title, tuple(first.display),
                                _fix_notes(m, metric_results, hyps, data)
                                + tuple(f"{r.system}: {prepared[r.system]}"
                                        for r in metric_results if r.system in prepared)))
    entries: list[ScoreEntry] = []
    comparisons: list[dict[str, Any]] = []
    pairwise: list[dict[str, Any]] = []
    for name, rs in by_metric.items():
        m = metric_objs[name]
        ranks: dict[str, tuple[int, int]] = {}
        intervals: dict[str, Any] = {}
        if n_samples:
            from gecscope.stats.paired import PairedTest

            if progress:
                progress(f"resampling {name} ({len(rs)} systems x {n_samples})")
            pt = PairedTest(m, rs, n_samples=n_samples, seed=seed, test=test,
                            confidence=confidence)
            for row in pt.ranking(alpha):
                ranks[row.system] = (row.rank, row.cluster)
                if row.versus_leader is not None:
                    comparisons.append({"metric": name, **_clean_dict(row.versus_leader.as_dict())})
            for r in rs:
                intervals[r.system] = (pt.interval(r.system),
                                       pt.field_intervals(r.system, r.score.fields))
            if test == "bootstrap":
                for a, b in itertools.combinations([r.system for r in rs], 2):
                    pairwise.append({"metric": name, **_clean_dict(pt.compare(a, b).as_dict())})
        for r in rs:
            iv = intervals.get(r.system)
            rank, cluster = ranks.get(r.system, (None, None))
            entries.append(ScoreEntry(
                r.system, name, clean(float(r.score.value)), r.score.main,
                {k: clean(v) for k, v in r.score.fields.items()},
                _clean_dict(iv[0].as_dict()) if iv else None,
                {k: _clean_dict(v.as_dict()) for k, v in iv[1].items()} if iv else {},
                rank, cluster, r.sentence_scores))
    warnings: list[str] = []
    counts = type_counts(data, hyps, results if types else [], metrics, sentences=sentences,
                         progress=progress, warnings=warnings)
    per_type: dict[str, dict[str, list[TypeRow]]] = {}
    for name, tables in counts.categories.items():
        beta = float(getattr(metric_objs[name].config, "beta", 0.5) or 0.5)
        per_type[name] = {system: _type_rows(c, beta) for system, c in tables.items()}
    if sentences and data.m2 is None:
        warnings.append("references are plain text: edit outcomes need the references as M2")
    sents = _sentences(data, hyps, results, per_type, counts.view) if sentences else []
    attributions: dict[str, AttributionTable] = {}
    if attribution is not None:
        from gecscope.reports.attribution import attribution_tables

        attributions = attribution_tables(data, hyps, results, metrics, attribution,
                                          notes=warnings, progress=progress)
    resampling = ({"n_samples": n_samples, "seed": seed, "test": test,
                   "confidence": confidence, "alpha": alpha} if n_samples else None)
    inputs: dict[str, Any] = {"references": list(data.reference_paths),
                              "source": data.source_path,
                              "hypotheses": {h.name: h.path for h in hyps},
                              "n_sentences": len(data), "warnings": warnings}
    if prepared:
        inputs["prepared"] = prepared
    if counts.view.note or counts.view.refused:
        inputs["type_scheme"] = counts.view.note or counts.view.refused
    return Report(systems, infos, entries, per_type, sents, comparisons, resampling, inputs,
                  pairwise=pairwise,
                  details=metric_details(results, metrics) if details else {},
                  attributions=attributions,
                  reported=find_reported(data, [metric_objs[n] for n in by_metric]))


def _plain_options(m: Metric) -> dict[str, Any]:
    try:
        opts = m.options()
    except TypeError:
        return {}
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}


def _clean_dict(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (clean(v) if not isinstance(v, str | list | tuple | dict) else
                [clean(x) for x in v] if isinstance(v, list | tuple) else v)
            for k, v in d.items()}


def outcome_totals(report: Report, system: str) -> dict[str, int]:
    """TP / FP necessary / FP unnecessary / FN over all sentences of ``system``."""
    totals = dict.fromkeys(OUTCOMES, 0)
    for s in report.sentences:
        ss = s.systems.get(system)
        if ss is not None:
            for k, v in zip(OUTCOMES, count(ss.edits), strict=True):
                totals[k] += v
    return totals

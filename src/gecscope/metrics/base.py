"""The metric interface: per-sentence sufficient statistics and their aggregation.

Every metric computes one statistics object per sentence (``sentence_stats``) and turns any
sequence of them into a corpus :class:`Score` (``aggregate``). Corpus scores, bootstrap
resampling, significance tests and per-type tables are all computed from these statistics, so
the expensive part (alignment, parsing) runs once per system.

What a metric needs and offers is declared on the class, not discovered by attribute probing:
``requires`` (the inputs), :meth:`Metric.tokenisation` and :meth:`Metric.signature_extras` (for
the reproducibility signature), :meth:`Metric.resampling` (an exact vectorised path for the
bootstrap, see :class:`gecscope.stats.fastpath.ResamplingCounts`) and :meth:`Metric.sentence_values`.
``docs/adding-a-metric.md`` walks through a new metric end to end.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import os
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.references import looks_like_m2
from gecscope.gate import GateOptions, admit, check_hypothesis, emit
from gecscope.languages import Tokeniser

#: the gate's options by name (Metric.evaluate/score/corpus_score keywords)
GATE_OPTIONS = frozenset(f.name for f in dataclasses.fields(GateOptions))

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.stats.fastpath import ResamplingCounts
    from gecscope.types import Corpus

__all__ = ["EvalData", "Hypothesis", "Metric", "Score", "SentenceDetail", "SystemResult",
           "looks_like_m2"]

S = TypeVar("S")

#: Inputs a metric may declare in ``Metric.requires``: ``hypothesis-edits`` says it reads
#: each system's edits (ERRANT-extracted from plain text), which ``jobs > 1`` extracts first,
#: for every system at once, on all workers.
REQUIREMENTS = frozenset({"sources", "references", "m2", "hypothesis-edits"})


@dataclass(frozen=True)
class Score:
    """A corpus-level result: the headline value and the named columns behind it.

    ``display`` optionally names the columns a terminal table shows by default (for metrics
    with many columns); JSON and TSV output always carry every field. ``title`` names what was
    computed (e.g. "Span-Based Correction"); ``categories`` holds per-error-type
    ``[TP, FP, FN]`` counts for metrics with typed edits; ``details`` anything else.
    """

    metric: str
    value: float
    fields: dict[str, float] = field(default_factory=dict)
    main: str = "score"
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    display: tuple[str, ...] = ()
    title: str = ""
    categories: Mapping[str, Sequence[int]] | None = field(default=None, compare=False)


@dataclass
class SystemResult:
    """One metric's result for one system: corpus score plus the per-sentence statistics."""

    system: str
    metric: str
    score: Score
    stats: list[Any]
    sentence_scores: list[float] | None = None


#: An edit in a sentence listing: ``(start, end, original text, correction)``.
SpanEdit = tuple[int, int, str, str]


class SentenceDetail(Protocol):
    """One sentence of a metric's listing (:meth:`Metric.details`; ``m2scorer -v``): the
    reference annotator the scoring kept, the edits proposed, gold and correct, and the counts
    ``(correct, proposed, gold)``."""

    @property
    def index(self) -> int: ...

    @property
    def annotator(self) -> int: ...

    @property
    def proposed(self) -> Sequence[SpanEdit]: ...

    @property
    def gold(self) -> Sequence[SpanEdit]: ...

    @property
    def correct(self) -> Sequence[SpanEdit]: ...

    @property
    def counts(self) -> tuple[int, int, int]: ...


MAX_OPTION_INT = 1_000_000  # no count-like option of any metric needs more


def check_option_values(metric: str, config: Any) -> None:
    """Refuse option values no metric can use: NaN or infinite numbers (they end in NaN scores
    or tracebacks) and integers beyond :data:`MAX_OPTION_INT` (they exhaust memory)."""
    import math

    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        if isinstance(v, bool):
            continue
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"{metric}: option {f.name} must be a finite number, not {v}")
        if isinstance(v, int) and abs(v) > MAX_OPTION_INT:
            raise ConfigError(f"{metric}: option {f.name}={v} is out of range (at most "
                              f"{MAX_OPTION_INT:,} in absolute value)")


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _type_name(hint: Any) -> str:
    if hint is bool:
        return "yes or no (a bool)"
    if hint is int:
        return "a whole number (int)"
    if hint is float:
        return "a number (float)"
    if hint is str:
        return "a string"
    return str(hint).replace("typing.", "")


def coerce_option(metric: str, key: str, value: Any, hint: Any) -> Any:
    """``value`` as the type ``hint`` of option ``key`` declares, read the way the command
    line reads ``-o key=value``: a string such as ``"1.0"``, ``"yes"`` or ``"a,b"`` becomes
    the number, bool or tuple; an int is a float where a float is expected; a path is a
    string. A value of another type raises a ConfigError naming the option and the type it
    expects (instead of a TypeError deep inside the metric). Hints other than bool, int,
    float, str, ``X | None`` and ``tuple[X, ...]`` pass values through unchecked."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and (value is None or (
                isinstance(value, str) and value.strip().lower() in ("none", "null", ""))):
            return None
        inner = [a for a in args if a is not type(None)]
        return coerce_option(metric, key, value, inner[0]) if len(inner) == 1 else value
    if origin is tuple:
        inner_hint = args[0] if args else str
        if isinstance(value, str):
            items: Sequence[Any] = [v.strip() for v in value.split(",") if v.strip()]
        elif isinstance(value, (list, tuple)):
            items = value
        else:
            raise ConfigError(f"{metric}: {key} must be a list of {_type_name(inner_hint)} "
                              f"values (or 'a,b'), not {value!r}")
        return tuple(coerce_option(metric, key, v, inner_hint) for v in items)
    if hint not in (bool, int, float, str):
        return value
    if isinstance(value, str) and hint is not str:
        text = value.strip().lower()
        try:
            if hint is bool:
                if text in _TRUE or text in _FALSE:
                    return text in _TRUE
            else:
                return hint(text)
        except ValueError:
            pass
    elif hint is str:
        if isinstance(value, str):
            return value
        if isinstance(value, os.PathLike):
            return os.fspath(value)
    elif isinstance(value, bool):
        if hint is bool:
            return value
    elif hint is bool and isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    elif hint is int and isinstance(value, numbers.Integral):
        return int(value)
    elif hint is float and isinstance(value, numbers.Real):
        return float(value)
    raise ConfigError(f"{metric}: {key} must be {_type_name(hint)}, not {value!r}")


def typed_config(config_cls: type, metric: str) -> None:
    """Make the frozen dataclass ``config_cls`` convert its fields on construction with
    :func:`coerce_option` (so ``beta="1.0"`` from an API caller is read as the command line
    reads it, before the config's own ``__post_init__`` checks compare it with numbers).
    Every metric's ``Config`` gets this (:meth:`Metric.__init_subclass__`), whether it is
    built by the metric, by ``dataclasses.replace`` or directly by the caller."""
    if not dataclasses.is_dataclass(config_cls) or "_typed_init" in vars(config_cls):
        return
    init = config_cls.__init__
    names = [f.name for f in dataclasses.fields(config_cls) if f.init]

    @functools.cache
    def hints() -> dict[str, Any]:
        try:
            return typing.get_type_hints(config_cls)
        except Exception:  # noqa: BLE001 - an unresolvable annotation is left unchecked
            return {}

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        h = hints()
        args = tuple(coerce_option(metric, n, v, h[n]) if n in h else v
                     for n, v in zip(names, args, strict=False)) + args[len(names):]
        kwargs = {k: coerce_option(metric, k, v, h[k]) if k in h else v
                  for k, v in kwargs.items()}
        init(self, *args, **kwargs)

    config_cls.__init__ = __init__  # type: ignore[method-assign]
    config_cls._typed_init = True  # type: ignore[attr-defined]


class Metric(ABC, Generic[S]):
    """Base class, generic in the per-sentence statistics type ``S``.

    Subclasses set ``name``, ``description``, ``requires``, a frozen dataclass ``Config``, and
    implement :meth:`sentence_stats` and :meth:`aggregate`; everything else has a default.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: The inputs the metric reads: ``sources``, ``references`` (texts or edits) or ``m2``
    #: (reference edits, from an M2 file or by annotating plain-text references).
    requires: ClassVar[frozenset[str]] = frozenset({"sources", "references"})
    #: Rough cost of scoring one system relative to the others (edits already extracted):
    #: with ``jobs > 1`` the costliest tasks start first, so the workers finish together.
    relative_cost: ClassVar[float] = 1.0
    #: Whether the statistics of any range of sentences, scored against
    #: :meth:`EvalData.subset <gecscope.data.EvalData.subset>` with :meth:`range_stats`, equal
    #: those the whole corpus gives for them: then scoring on several workers may split a
    #: system into sentence ranges and aggregate the gathered statistics. Off by default (a
    #: metric with cross-sentence state, or model batches whose floating-point sums depend on
    #: their composition, must not be split); each metric that sets it has a test holding
    #: ranged and whole statistics equal.
    sentence_ranges: bool = False
    #: The scorer whose numbers the defaults reproduce (``errant_compare 3.0.2``), named in
    #: the note under a table when a fix is on.
    official: ClassVar[str] = ""
    #: gecscope's corrections of the official scorer's known bugs: each a boolean ``Config``
    #: option ``fix_<what>``, false by default (the official number), mapped to what it
    #: corrects (docs/metrics.md, "Official numbers and fixes").
    fixes: ClassVar[Mapping[str, str]] = {}
    #: ``Config`` fields kept only so that an option's former spelling still works; the
    #: config's ``__post_init__`` turns them into the ``fix_*`` options and resets them to
    #: ``None``, and they are left out of :meth:`options` (and so of the signature).
    former_options: ClassVar[frozenset[str]] = frozenset()
    #: ``Config`` fields that say how the metric runs, not what it computes (requests in
    #: flight, where a cache lives): in :meth:`options` and the JSON, not in the signature,
    #: so two runs of one number share one signature.
    runtime_options: ClassVar[frozenset[str]] = frozenset()

    @dataclass(frozen=True)
    class Config:
        pass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        typed_config(cls.Config, cls.name or cls.__name__)

    def __init__(self, config: Any = None, **options: Any) -> None:
        known = {f.name for f in dataclasses.fields(self.Config)}
        unknown = [k for k in options if k not in known]
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{self.name}: unknown option {unknown[0]!r}{hint} (options: "
                              f"{', '.join(sorted(known)) or 'none'})")
        if config is None:
            try:
                config = self.Config(**options)
            except TypeError as exc:
                raise ConfigError(f"{self.name}: {exc}") from None
        elif options:
            config = dataclasses.replace(config, **options)
        check_option_values(self.name, config)
        self.config = config

    # -- what every metric implements ----------------------------------------------------

    @abstractmethod
    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[S]:
        """One statistics object per sentence."""

    @abstractmethod
    def aggregate(self, stats: Sequence[S]) -> Score:
        """The corpus score of a sequence of per-sentence statistics."""

    # -- declared extension points (defaults) ----------------------------------------------

    def sentence_values(self, stats: Sequence[S]) -> list[float] | None:
        """One score per sentence from its statistics, where the metric defines one."""
        return None

    def sentence_scorer(self, data: EvalData, hyp: Hypothesis) -> Metric[S]:
        """A metric whose :meth:`sentence_values` gives any sentence the score it has in
        ``hyp``'s corpus, whatever other sentences it is scored with (edit attribution scores
        variants of sentences in batches of its own): this metric, unless its sentence scores
        depend on the corpus (CLEME's length bias), which an override fixes from ``hyp``."""
        return self

    def details(self, stats: Sequence[S]) -> Sequence[SentenceDetail] | None:
        """Per sentence, what the scoring decided (the annotator kept, the edits proposed,
        gold and correct), for ``evaluate -v`` (:mod:`gecscope.reports.tables` prints it), or
        ``None`` when the metric has no such listing."""
        return None

    def signature_extras(self) -> dict[str, str]:
        """Extra signature entries: tool and model versions, compatibility modes."""
        return {}

    def tokenisation(self, data: EvalData) -> str:
        """How the scored tokens were obtained, for the signature."""
        return "pretokenised" if data.m2 is not None else "whitespace"

    def prepare_systems(self, data: EvalData, hyps: Sequence[Hypothesis]) -> None:
        """Called once with every system of a run before any is scored (``evaluate``,
        ``compare``, ``meta-eval``), for metrics whose scoring depends on the set of systems
        (GoToScorer's difficulty weights); state prepared here travels to worker processes
        with the metric."""

    def range_stats(self, data: EvalData, part: EvalData, hyp: Hypothesis,
                    start: int) -> list[S]:
        """The statistics of sentences ``start`` to ``start + len(part) - 1`` of ``data``:
        ``part`` is ``data.subset(...)`` of them and ``hyp`` the hypothesis' same subset.
        Metrics whose state is indexed by sentence (GoToScorer's weights) cut it here."""
        return self.sentence_stats(part, hyp)

    def resampling(self) -> ResamplingCounts | None:
        """An exact vectorised path for bootstrap resampling, or ``None`` (resampling then
        calls :meth:`aggregate` on every resample)."""
        return None

    # -- scoring -------------------------------------------------------------------------

    def score(self, data: EvalData, hyp: Hypothesis, options: GateOptions | None = None,
              **gate: Any) -> Score:
        """The corpus score of ``hyp`` against ``data``, after the gate
        (:func:`gecscope.gate.admit`; ``gate``: its options, as :func:`gecscope.evaluate`
        takes them)."""
        return self.evaluate(data, hyp, options, **gate).score

    def check_inputs(self, data: EvalData) -> None:
        """Refuse inputs that lack what :attr:`requires` declares."""
        if self.requires & {"references", "m2"} and not data.has_references:
            raise ConfigError(f"metric {self.name!r} needs references (only the sources were "
                              "given)")

    def check_hypothesis(self, data: EvalData, hyp: Hypothesis) -> None:
        """Refuse a hypothesis that does not fit ``data`` (one sentence per reference
        sentence, the same ids and sources: :func:`gecscope.gate.check_hypothesis`); a metric
        that checks against its own reference (I-measure's gold) overrides it."""
        check_hypothesis(data, hyp)

    def evaluate(self, data: EvalData, hyp: Hypothesis, options: GateOptions | None = None,
                 **gate: Any) -> SystemResult:
        """Score ``hyp`` and keep the per-sentence statistics (for resampling and reports).
        ``hyp`` passes the gate first (:func:`gecscope.gate.admit`: the checks, realignment
        and re-tokenisation of ``gecscope evaluate``; what it finds is an
        :class:`~gecscope.errors.InputWarning`); ``gate`` takes its options by name
        (``hyp_tokenise``, ``hyp_level``, ``hyp_normalise``, ``max_tokens``, ``long_lines``,
        ``allow``)."""
        self.check_inputs(data)
        hyp = self._admit(data, hyp, options, gate)
        self.check_hypothesis(data, hyp)
        return self.result(data, hyp)

    @staticmethod
    def _admit(data: EvalData, hyp: Hypothesis, options: GateOptions | None,
               gate: Mapping[str, Any]) -> Hypothesis:
        unknown = sorted(set(gate) - GATE_OPTIONS)
        if unknown:
            raise TypeError(f"unknown option {unknown[0]!r}; the gate takes "
                            f"{', '.join(sorted(GATE_OPTIONS))}")
        admitted = admit(data, [hyp], GateOptions.of(options, **gate))
        emit(admitted.findings, stacklevel=4)
        return admitted.hypotheses[0]

    def result(self, data: EvalData, hyp: Hypothesis) -> SystemResult:
        """:meth:`evaluate` without the gate and the checks, for a caller that made them once
        for every metric and system (:func:`gecscope.execution.plan.make_plan`)."""
        stats = self.sentence_stats(data, hyp)
        return SystemResult(hyp.name, self.name, self.aggregate(stats), stats,
                            self.sentence_values(stats))

    def _inputs(self, hypotheses: Sequence[str] | Hypothesis, data: EvalData | None,
                sources: Sequence[str] | None, references: Sequence[Sequence[str]] | None,
                m2: Corpus | str | None, tokenise: Tokeniser) -> tuple[EvalData, Hypothesis]:
        if data is None:
            if sources is None and m2 is None:
                raise ConfigError(f"{self.name}: give data=EvalData(...), or sources= (and "
                                  "references= or m2=)")
            if sources is None:
                data = EvalData.from_m2(m2)  # type: ignore[arg-type]
            else:
                data = EvalData.from_texts(sources, references, m2=m2, tokenise=tokenise)
        elif sources is not None or references is not None or m2 is not None:
            raise ConfigError(f"{self.name}: give either data= or sources/references/m2, "
                              "not both")
        hyp = (hypotheses if isinstance(hypotheses, Hypothesis)
               else Hypothesis.from_texts(hypotheses, tokenise=tokenise))
        return data, hyp

    def corpus_score(self, hypotheses: Sequence[str] | Hypothesis, data: EvalData | None = None,
                     *, sources: Sequence[str] | None = None,
                     references: Sequence[Sequence[str]] | None = None,
                     m2: Corpus | str | None = None,
                     tokenise: Tokeniser = "whitespace", options: GateOptions | None = None,
                     **gate: Any) -> Score:
        """Corpus score of a system output given as strings (or a :class:`Hypothesis`).

        References come as ``data`` (build it once when scoring repeatedly), or as
        ``sources`` plus ``references`` (``[reference][sentence]`` strings) or ``m2``. The
        output passes the gate as in :func:`gecscope.evaluate`, with the same options
        (``hyp_tokenise="auto"`` for detokenised text, ``hyp_level``, ``allow``...): a
        detokenised output against tokenised references is an
        :class:`~gecscope.errors.InputWarning` naming ``hyp_tokenise="auto"``.
        """
        return self.score(*self._inputs(hypotheses, data, sources, references, m2, tokenise),
                          options, **gate)

    def sentence_scores(self, hypotheses: Sequence[str] | Hypothesis,
                        data: EvalData | None = None, *, sources: Sequence[str] | None = None,
                        references: Sequence[Sequence[str]] | None = None,
                        m2: Corpus | str | None = None,
                        tokenise: Tokeniser = "whitespace", options: GateOptions | None = None,
                        **gate: Any) -> list[float]:
        """One score per sentence (see :meth:`corpus_score` for the arguments)."""
        result = self.evaluate(*self._inputs(hypotheses, data, sources, references, m2,
                                             tokenise), options, **gate)
        if result.sentence_scores is None:
            raise ConfigError(f"metric {self.name!r} defines no sentence-level score")
        return result.sentence_scores

    def options(self) -> dict[str, Any]:
        """The configuration as a plain dict (for signatures and JSON output)."""
        return {k: v for k, v in dataclasses.asdict(self.config).items()
                if k not in self.former_options}

    def fixes_on(self) -> list[str]:
        """The ``fix_*`` options switched on (each can move a number away from
        :attr:`official`'s)."""
        return [k for k in self.fixes if getattr(self.config, k, False) is True]

    def without_fixes(self) -> Metric[S]:
        """This metric with every ``fix_*`` option off: the official scorer's numbers."""
        return type(self)(dataclasses.replace(self.config, **{k: False for k in self.fixes_on()}))

    def official_score(self, data: EvalData, hyp: Hypothesis, stats: Sequence[S]) -> Score | None:
        """The score :attr:`official`'s scorer gives ``hyp`` (every fix off), where knowing it
        is cheap (``stats``: this metric's statistics of ``hyp``); ``None`` when it would mean
        scoring again. The note under a table uses it to say which numbers a fix changed."""
        return None

    def fix_note(self, changed: Mapping[str, str] | None = None) -> str | None:
        """The note printed under a table whose numbers used fixes (``None`` without any).
        ``changed``: system -> which of its numbers the fixes changed, e.g. ``"TP 1 vs 2"``
        (empty: none changed), or ``None`` when unknown."""
        on = self.fixes_on()
        if not on:
            return None
        which = "; ".join(f"{k}=true ({self.fixes[k]})" for k in on)
        tool = self.official or "the reference scorer"
        head = f"{which}: gecscope's {'correction' if len(on) == 1 else 'corrections'}"
        if changed is None:
            return f"{head}; the numbers can differ from {tool} and from published ones"
        if not changed:
            return f"{head}; no number here differs from {tool}'s"
        shown = [f"{k} ({v})" for k, v in list(changed.items())[:3]]
        more = f" and {len(changed) - 3} more systems" if len(changed) > 3 else ""
        return (f"{head}; it changed {', '.join(shown)}{more}: the second numbers are "
                f"{tool}'s, as in published tables")

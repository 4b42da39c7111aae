"""One obvious entry point: score systems with metrics, as ``gecscope evaluate`` does.

>>> from gecscope import EvalData, Hypothesis, evaluate
>>> data = EvalData.from_texts(["He go home ."], references=[["He goes home ."]])
>>> [r.score.value for r in evaluate("gleu", data, Hypothesis.from_texts(["He goes home ."]))]
[1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.gate import GateOptions
from gecscope.languages import Tokeniser
from gecscope.metrics.base import Metric, SystemResult

MetricSpec = str | Metric[Any]


def make_metrics(metrics: MetricSpec | Sequence[MetricSpec]) -> list[Metric[Any]]:
    """Metric objects from registry names (default options) or ready instances."""
    from gecscope.registry import get_metric

    try:
        items = [metrics] if isinstance(metrics, str | Metric) else list(metrics)
    except TypeError:
        raise TypeError("metrics must be a metric name (e.g. 'errant'), a Metric, or a list of "
                        f"them, not {type(metrics).__name__}") from None
    if not items:
        raise ConfigError("give at least one metric")
    for i, m in enumerate(items):
        if not isinstance(m, str | Metric):
            raise TypeError(f"metrics[{i}] is {type(m).__name__}; expected a metric name (e.g. "
                            "'errant', see gecscope.list_metrics()) or a Metric instance")
    return [m if isinstance(m, Metric) else get_metric(m)() for m in items]


def make_hypotheses(hypotheses: Hypothesis | Sequence[Hypothesis] | Mapping[str, Sequence[str]],
                    tokenise: Tokeniser = "whitespace") -> list[Hypothesis]:
    """Hypothesis objects from one or several of them, or ``{name: [sentence, ...]}`` strings."""
    from gecscope.languages import path_hint

    if isinstance(hypotheses, Hypothesis):
        return [hypotheses]
    hint = path_hint(hypotheses, "Hypothesis.from_file(path)")
    if hint:
        raise TypeError(f"hypotheses: {hint}")
    if isinstance(hypotheses, Mapping):
        return [Hypothesis.from_texts(texts, name, tokenise=tokenise)
                for name, texts in hypotheses.items()]
    try:
        out = list(hypotheses)
    except TypeError:
        raise TypeError("hypotheses must be a Hypothesis, a list of them or a {name: "
                        f"[sentence, ...]}} mapping, not {type(hypotheses).__name__}") from None
    for i, h in enumerate(out):
        if not isinstance(h, Hypothesis):
            hint = path_hint(h, "Hypothesis.from_file(path)")
            raise TypeError(f"hypotheses[{i}] is {hint or type(h).__name__}; hypotheses must be "
                            "Hypothesis objects or a {name: [sentence, ...]} mapping (build one "
                            "with Hypothesis.from_texts or Hypothesis.from_file)")
    return out


def evaluate(metrics: MetricSpec | Sequence[MetricSpec], data: EvalData,
             hypotheses: Hypothesis | Sequence[Hypothesis] | Mapping[str, Sequence[str]], *,
             tokenise: Tokeniser = "whitespace", hyp_tokenise: str | None = None,
             hyp_level: str | None = None, hyp_normalise: str | None = None,
             max_tokens: int | None = None, long_lines: str | None = None,
             allow: Iterable[str] | str | None = None, options: GateOptions | None = None,
             progress: Callable[[int], None] | None = None,
             jobs: int = 1, backend: str = "local",
             address: str | None = None) -> list[SystemResult]:
    """Score every hypothesis with every metric against ``data``.

    Returns one :class:`SystemResult` per (metric, system), metric-major, in the order given:
    the corpus :class:`~gecscope.metrics.base.Score`, the per-sentence statistics (for
    bootstrap and significance tests, :mod:`gecscope.stats`) and sentence scores.
    ``progress`` is called with numbers of sentences done (``len(data)`` per metric and
    system in all): from inside the metrics that report as they go
    (:func:`gecscope.progress.tick`), else once a result is complete.

    ``jobs`` processes share the work (``0``: every core; see :mod:`gecscope.execution.plan`);
    the results are identical to ``jobs=1``. ``backend="ray"`` runs it on ``jobs`` Ray
    actors (``0``: one per CPU of the cluster) at ``address`` (``None``: a local Ray
    instance; ``"auto"`` or ``HOST:PORT``: an existing cluster).

    Every hypothesis passes the gate first (:func:`gecscope.gate.admit`, the same code as
    ``gecscope evaluate``): refused with a typed error when its lines are another test set's,
    when lines were lost, added or moved, or when realignment is not certain; what looks
    wrong but can be scored is an :class:`~gecscope.errors.InputWarning`, the text the CLI
    prints. The options are the CLI's (:class:`~gecscope.gate.GateOptions`, or given one by
    one): ``hyp_tokenise`` (``--hyp-tokenise``: ``"none"`` by default, ``"auto"``,
    ``"spacy"``, ``"nltk"``), ``hyp_level`` (``--hyp-level``: ``"auto"`` by default,
    ``"paragraph"``, ``"sentence"``), ``hyp_normalise`` (``--hyp-normalise``), ``max_tokens``
    and ``long_lines`` (``--max-tokens`` 1000, ``--long-lines``), ``allow`` (``--allow``:
    what to score anyway). docs/raw-text.md and docs/check.md say what each does.
    """
    from gecscope.gate import admit, emit

    ms = make_metrics(metrics)
    if not isinstance(data, EvalData):
        raise TypeError(f"data must be an EvalData (EvalData.from_files, .from_texts or "
                        f".from_m2), not {type(data).__name__}")
    opts = GateOptions.of(options, hyp_tokenise=hyp_tokenise, hyp_level=hyp_level,
                          hyp_normalise=hyp_normalise, max_tokens=max_tokens,
                          long_lines=long_lines, allow=allow)
    admitted = admit(data, make_hypotheses(hypotheses, tokenise), opts)
    emit(admitted.findings)
    return score_admitted(ms, data, admitted.hypotheses, progress=progress, jobs=jobs,
                          backend=backend, address=address)


def score_admitted(metrics: Sequence[Metric[Any]], data: EvalData, hyps: Sequence[Hypothesis],
                   *, progress: Callable[[int], None] | None = None, jobs: int = 1,
                   backend: str = "local", address: str | None = None,
                   retype_reference: bool = False) -> list[SystemResult]:
    """:func:`evaluate` for hypotheses that passed the gate already
    (:func:`gecscope.gate.admit`, as the CLI's inputs do): every metric's needs are checked
    before any is run, then the plan runs (``retype_reference``: a per-type report follows,
    see :func:`~gecscope.execution.plan.make_plan`)."""
    ms = list(metrics)
    for m in ms:
        m.check_inputs(data)
    for m in ms:
        m.prepare_systems(data, list(hyps))
    from gecscope.execution.plan import make_plan, run

    return run(make_plan(ms, data, list(hyps), jobs, backend, address, retype_reference),
               progress)

"""One obvious entry point: score systems with metrics, as ``gecscope evaluate`` does.

>>> from gecscope import EvalData, Hypothesis, evaluate
>>> data = EvalData.from_texts(["He go home ."], references=[["He goes home ."]])
>>> [r.score.value for r in evaluate("gleu", data, Hypothesis.from_texts(["He goes home ."]))]
[1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
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
             tokenise: Tokeniser = "whitespace", hyp_tokenise: str = "none",
             hyp_level: str = "auto",
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

    Every hypothesis is checked first (:meth:`EvalData.align`: parallel-format rows matched
    to the references by id, sources compared line by line), and what looks wrong but can be
    scored (:func:`gecscope.checks.input_warnings`: a detokenised hypothesis, differences of
    Unicode form only...) is an :class:`~gecscope.errors.InputWarning`, the text the CLI prints.

    ``hyp_tokenise`` (``--hyp-tokenise``) re-tokenises the hypotheses before they are scored
    (:func:`gecscope.retokenise.retokenise`): ``"auto"`` one that looks detokenised against
    tokenised references, the way the references were tokenised; ``"spacy"`` or ``"nltk"``
    every one; ``"none"`` (default) none. What was done is an InputWarning too.

    ``hyp_level`` (``--hyp-level``): ``"paragraph"`` cuts hypothesis lines that are
    paragraphs or essays, or sentences merged or split, into the sources' sentences before
    anything else (:func:`gecscope.hypothesis.realign`); ``"auto"`` (default) does so for a
    plain hypothesis whose line count differs from the sources' or whose lines are mostly
    unlike their source line, and says so (an InputWarning, which also lists the sentences
    aligned with low confidence); ``"sentence"`` takes lines as sentences.
    """
    import warnings

    from gecscope.checks import input_warnings
    from gecscope.errors import InputWarning

    ms = make_metrics(metrics)
    if not isinstance(data, EvalData):
        raise TypeError(f"data must be an EvalData (EvalData.from_files, .from_texts or "
                        f".from_m2), not {type(data).__name__}")
    from gecscope.retokenise import check_mode, retokenise

    check_mode(hyp_tokenise)
    hyps = [data.align(h, hyp_level) for h in make_hypotheses(hypotheses, tokenise)]
    if hyp_tokenise != "none":
        done = [retokenise(data, h, hyp_tokenise) for h in hyps]
        hyps = [h for h, _ in done]
        for _, message in done:
            if message:
                warnings.warn(message, InputWarning, stacklevel=2)
    for message in input_warnings(data, hyps):
        warnings.warn(message, InputWarning, stacklevel=2)
    for m in ms:
        m.prepare_systems(data, hyps)
    from gecscope.execution.plan import make_plan, run

    return run(make_plan(ms, data, hyps, jobs, backend, address), progress)

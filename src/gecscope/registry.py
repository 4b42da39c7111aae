"""Metric registry: metric names mapped to ``"module:Class"`` strings, imported on first use.

Adding a metric means adding its module and one line here, calling :func:`register_metric`,
or declaring an entry point in the group ``gecscope.metrics`` in another package; the CLI and
reports find it through :func:`list_metrics` and :func:`get_metric` (docs/adding-a-metric.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from gecscope.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import Metric

_METRICS: dict[str, str] = {
    "errant": "gecscope.metrics.errant:ErrantMetric",
    "m2": "gecscope.metrics.m2.metric:M2Metric",
    "gleu": "gecscope.metrics.gleu:GLEUMetric",
    "green": "gecscope.metrics.green:GREENMetric",
    "imeasure": "gecscope.metrics.imeasure.metric:IMeasureMetric",
    "cleme": "gecscope.metrics.cleme.metric:CLEMEMetric",
    "cleme2": "gecscope.metrics.cleme.metric:CLEME2Metric",
    "usim": "gecscope.metrics.usim.metric:USimMetric",
    "gotoscorer": "gecscope.metrics.gotoscorer:GoToScorerMetric",
    "pterrant": "gecscope.metrics.pt_errant:PTErrantMetric",
    "ptm2": "gecscope.metrics.pt_errant:PTM2Metric",
    "some": "gecscope.metrics.learned.some:SOMEMetric",
    "impara": "gecscope.metrics.learned.impara:IMPARAMetric",
    "scribendi": "gecscope.metrics.learned.scribendi:ScribendiMetric",
    "llm_sent": "gecscope.metrics.llm_judge:LLMSentMetric",
    "llm_edit": "gecscope.metrics.llm_judge:LLMEditMetric",
}


ENTRY_POINT_GROUP = "gecscope.metrics"
_plugins_loaded = False


def register_metric(name: str, target: str) -> None:
    """Register a metric class under ``name``; ``target`` is ``"module:Class"``, imported when
    the metric is first used."""
    if ":" not in target:
        raise ConfigError(f"register_metric: target must be 'module:Class', got {target!r}")
    _METRICS[name] = target


def _load_plugins() -> None:
    """Metrics other packages declare as entry points (read once, imported only when used)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _METRICS.setdefault(ep.name, ep.value)


def list_metrics() -> list[str]:
    """Names of the metrics this installation provides (built in, registered, plug-ins)."""
    _load_plugins()
    return list(_METRICS)


def _lookup(name: str) -> str | None:
    """The target of ``name``: exact, else the one metric whose name differs only in case
    (``ERRANT`` is ``errant``; names are lower case, a plug-in's may not be)."""
    if name in _METRICS:
        return _METRICS[name]
    folded = [n for n in _METRICS if n.casefold() == name.casefold()]
    return _METRICS[folded[0]] if len(folded) == 1 else None


def get_metric(name: str) -> type[Metric]:
    """The metric class registered as ``name`` (case-insensitively when that is unambiguous),
    or named by ``module:Class`` (a metric that is not registered); an unknown name gets a
    "did you mean" and the list of metrics, a class that cannot be imported a ConfigError."""
    if ":" in name:
        try:
            return _import_target(name)
        except (ImportError, AttributeError):
            raise ConfigError(f"cannot import metric class {name!r}") from None
    target = _lookup(name)
    if target is None:
        _load_plugins()
        target = _lookup(name)
    if target is None:
        import difflib

        names = {n.casefold(): n for n in reversed(list_metrics())}
        close = difflib.get_close_matches(name.casefold(), list(names), n=1)
        hint = f" (did you mean {names[close[0]]!r}?)" if close else ""
        raise ConfigError(f"unknown metric {name!r}{hint}; available: "
                          f"{', '.join(list_metrics())}")
    return _import_target(target)


def _import_target(target: str) -> type[Metric]:
    """The class named by ``"module:Class"``."""
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]

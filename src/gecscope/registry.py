"""Metric registry: metric names mapped to ``"module:Class"`` strings, imported on first use.

Adding a metric means adding its module and one line here; the CLI and reports find it
through :func:`list_metrics` and :func:`get_metric`.
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
    "imeasure": "gecscope.metrics.imeasure.metric:IMeasureMetric",
    "cleme": "gecscope.metrics.cleme.metric:CLEMEMetric",
    "cleme2": "gecscope.metrics.cleme.metric:CLEME2Metric",
    "usim": "gecscope.metrics.usim.metric:USimMetric",
}


def list_metrics() -> list[str]:
    """Names of the metrics this installation provides."""
    return list(_METRICS)


def get_metric(name: str) -> type[Metric]:
    """The metric class registered as ``name``."""
    target = _METRICS.get(name)
    if target is None:
        raise ConfigError(f"unknown metric {name!r}; available: {', '.join(list_metrics())}")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]

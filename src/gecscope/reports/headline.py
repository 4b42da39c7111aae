"""The number to report: which of an evaluation's figures a test set's papers print.

A known test set's registry entry (:mod:`gecscope.testsets`) may carry a ``headline``: the
metric its papers report (at its defaults), the fields of their tables, how they print them
(x100, two decimals) and, per other metric, why that metric's number differs. Given the
references of an evaluation and the metrics run, :func:`find_reported` says which figure is
the one to report, or why none is (references not all known, a fourth JFLEG reference
missing, the metric run with non-default options...). It never guesses: a reference file it
cannot identify by hash gives no mark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError
from gecscope.testsets import Headline, KnownFile, parse_headline

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData
    from gecscope.metrics.base import Metric

__all__ = ["Headline", "Reported", "find_reported", "headline_for", "parse_headline"]


@dataclass
class Reported:
    """What :func:`find_reported` found: the test set's headline, the metric whose figure is
    the one to report (``None``: none of this run's), and the notes that say why."""

    headline: Headline
    marked: str | None
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {**self.headline.as_dict(), "marked": self.marked, "notes": list(self.notes)}


def _registry(registry: Sequence[KnownFile] | None) -> Sequence[KnownFile]:
    from gecscope.testsets import load_registry, shipped_registry

    if registry is not None:
        return registry
    try:
        return load_registry()
    except ConfigError:  # a broken user registry is reported by `check`; the shipped one holds
        return shipped_registry()


def headline_for(paths: Sequence[str], registry: Sequence[KnownFile] | None = None
                 ) -> Headline | None:
    """The headline of the first of ``paths`` that is a known test-set file with one (to
    choose ``--paper``'s metric before anything is read); ``None`` otherwise."""
    known, _ = _identify_paths(paths, _registry(registry))
    return next((h for h in map(parse_headline, known) if h is not None), None)


def _identify_paths(paths: Sequence[str], registry: Sequence[KnownFile]
                    ) -> tuple[list[KnownFile], list[str]]:
    """The registry entries of the reference files (by hash), and the files not known."""
    from gecscope.testsets import identify

    known, unknown = [], []
    for path in paths:
        p = Path(path)
        try:
            if path == "-" or path.startswith("<") or not p.is_file():
                unknown.append(path)
                continue
            match = identify(p.read_bytes(), registry)
        except OSError:
            unknown.append(path)
            continue
        if match is None:
            unknown.append(path)
        else:
            known.append(match.entry)
    return known, unknown


def _default_options(metric: Metric) -> dict[str, Any] | None:
    """The options ``metric`` has that differ from its class's defaults (``{}``: none),
    ``None`` when the defaults cannot be built to compare."""
    try:
        default = type(metric)().options()
    except Exception:  # noqa: BLE001 - a metric that needs arguments: cannot tell
        return None
    here = metric.options()
    return {k: v for k, v in here.items() if default.get(k) != v}


def find_reported(data: EvalData, metrics: Sequence[Metric],
                  registry: Sequence[KnownFile] | None = None) -> Reported | None:
    """The figure of this evaluation that the references' test set reports, when every
    reference file is a known one with a ``headline``; ``None`` when the test set is not
    known (nothing to say). ``registry``: default :func:`gecscope.testsets.load_registry`
    (the shipped one when the user's is broken)."""
    if not data.reference_paths:
        return None
    known, unknown = _identify_paths(data.reference_paths, _registry(registry))
    heads = [(e, parse_headline(e)) for e in known]
    with_head = [(e, h) for e, h in heads if h is not None]
    if not with_head:
        return None
    entry, head = with_head[0]
    notes: list[str] = []
    names = {m.name: m for m in metrics}
    if unknown or len(with_head) != len(heads) or any(h != head for _, h in with_head):
        notes.append(f"{head.test_set} is reported against {head.reference}; these references "
                     "mix it with other files, so no figure here is the reported one")
        return Reported(head, None, notes)
    size = entry.extra.get("set_size")
    if isinstance(size, int) and len({e.sha256 for e, _ in with_head}) != size:
        notes.append(f"{head.test_set} is reported against all {size} references "
                     f"({head.reference}); {len({e.sha256 for e, _ in with_head})} given, so "
                     "no figure here is the reported one")
        return Reported(head, None, notes)
    if data.source_path:
        src_known, _ = _identify_paths([data.source_path], _registry(registry))
        if src_known and src_known[0].warning:
            notes.append(f"the source is {src_known[0].name}: {src_known[0].warning}; so no "
                         "figure here is the reported one")
            return Reported(head, None, notes)
    metric = names.get(head.metric)
    fields = "/".join(head.fields)
    if metric is None:
        notes.append(f"{head.test_set}'s papers report {head.metric} {fields} (-m "
                     f"{head.metric}); it was not run here")
        return Reported(head, None, notes)
    lang = getattr(getattr(data, "lang", None), "code", "en")
    if (head.language or "en") != lang:
        notes.append(f"{head.test_set}'s papers report {head.metric} with --lang "
                     f"{head.language or 'en'}, not {lang}")
        return Reported(head, None, notes)
    changed = _default_options(metric)
    if changed is None or changed:
        what = ", ".join(f"{k}={v}" for k, v in (changed or {}).items()) or "its options"
        notes.append(f"{head.metric} ran with {what}: {head.test_set}'s papers report it at "
                     "its defaults, so no figure here is the reported one")
        return Reported(head, None, notes)
    notes.append(f"report: {head.metric} {head.figure} is {head.test_set}'s figure (its papers "
                 f"print {fields} x{head.scale:g} with {head.digits} decimals, against "
                 f"{head.reference}, -m {head.metric} at its defaults)")
    for name in names:
        if name != head.metric:
            why = head.differs.get(name) or (
                f"{name} measures something else; {head.test_set}'s papers do not report it")
            notes.append(f"{name} differs: {why}")
    return Reported(head, head.metric, notes)

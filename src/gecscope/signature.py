"""Reproducibility signatures: what a score depends on, printed next to it (as sacrebleu does).

A signature names the metric, its options (every Config field), the reference set (number of
references, number of sentences and a hash of their content), the tokenisation, the tool
versions the metric declares, the resampling setup when there is one, and the gecscope
version. The long form spells every key out; the short form abbreviates them and leaves out
options that are at their default for this gecscope version (the version is always there)::

    metric:errant|beta:0.5|mode:cs|...|refs:2|sents:1312|refhash:3f9a0c1b|tok:pretokenised|version:0.1.0
    m:errant|beta:0.5|mode:cs|...|r:2|n:1312|h:3f9a0c1b|t:pre|v:0.1.0

Two scores with the same long signature were computed the same way on the same references.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope import __version__
from gecscope._versions import ERRANT_PACKAGES
from gecscope.data import Slot

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData
    from gecscope.metrics.base import Metric

#: Abbreviations of fixed keys (short form). Option keys are abbreviated by their initials.
SHORT_KEYS = {"metric": "m", "refs": "r", "sents": "n", "refhash": "h", "tok": "t",
              "resample": "rs", "seed": "s", "version": "v", "lang": "l", "edits": "x"}
#: what ERRANT-based metrics report of their extractor (replaced for other languages)
ERRANT_EXTRAS = frozenset(ERRANT_PACKAGES)
TOKENISATION_SHORT = {"pretokenised": "pre", "whitespace": "ws"}


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "none"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, tuple | list):
        return ",".join(_value(x) for x in v) or "none"
    return str(v).replace("|", "/")


def reference_hash(data: EvalData) -> str:
    """SHA-256 (first 8 hex digits) of the reference set's content (not its path).

    M2 references hash every sentence block (sources, spans, types, corrections, annotator
    ids); plain-text references hash the source and each reference's tokens.
    """
    return data.slot(REFERENCE_HASH, lambda: _reference_hash(data))


#: :func:`reference_hash` of an evaluation's references, computed once.
REFERENCE_HASH: Slot[str] = Slot(__name__, "REFERENCE_HASH")


def _reference_hash(data: EvalData) -> str:
    h = hashlib.sha256()
    if data.m2 is not None:
        from gecscope.formats.m2 import format_sentence

        for s in data.m2:
            h.update(format_sentence(s).encode("utf-8"))
    else:
        for src in data.sources:
            h.update((" ".join(src) + "\n").encode("utf-8"))
        for ref in data.references:
            h.update(b"\x00")
            for toks in ref:
                h.update((" ".join(toks) + "\n").encode("utf-8"))
    return h.hexdigest()[:8]


def _n_refs(data: EvalData) -> int:
    if data.m2 is not None:
        return len(data.m2.annotators)
    return len(data.reference_paths)


def _short_key(name: str, taken: set[str]) -> str:
    """Initials of a multi-word key (``selection_rounding`` -> ``sr``); the key itself when it
    is one word or the initials are taken."""
    parts = [p for p in name.replace("-", "_").split("_") if p]
    short = "".join(p[0] for p in parts) if len(parts) > 1 else name
    return name if short in taken else short


@dataclass(frozen=True)
class Signature:
    """An ordered list of ``(key, value)`` pairs with short and long renderings."""

    items: tuple[tuple[str, str], ...]
    short_keys: Mapping[str, str] = field(default_factory=dict)
    defaults: frozenset[str] = frozenset()

    def long(self) -> str:
        return "|".join(f"{k}:{v}" for k, v in self.items)

    def short(self) -> str:
        out = []
        for k, v in self.items:
            if k in self.defaults:
                continue
            key = self.short_keys.get(k, k)
            if k == "tok":
                v = TOKENISATION_SHORT.get(v, v)
            out.append(f"{key}:{v}")
        return "|".join(out)

    def as_dict(self) -> dict[str, str]:
        return dict(self.items)

    def __str__(self) -> str:
        return self.short()


def metric_signature(metric: Metric, data: EvalData, *, n_samples: int | None = None,
                     seed: int | None = None, test: str | None = None) -> Signature:
    """The signature of ``metric`` scored against ``data`` (plus resampling when given).

    A metric adds entries (tool and model versions, compatibility modes) through
    :meth:`~gecscope.metrics.base.Metric.signature_extras` and names its tokenisation through
    :meth:`~gecscope.metrics.base.Metric.tokenisation`.
    """
    items: list[tuple[str, str]] = [("metric", metric.name)]
    short: dict[str, str] = dict(SHORT_KEYS)
    taken = set(SHORT_KEYS.values())
    try:
        default_options = dataclasses.asdict(type(metric.config)())
    except (TypeError, ValueError):  # a Config without defaults for every field
        default_options = {}
    at_default: set[str] = set()
    for k, v in metric.options().items():
        if k in metric.runtime_options:
            continue
        items.append((k, _value(v)))
        short[k] = _short_key(k, taken)
        taken.add(short[k])
        if k in default_options and default_options[k] == v:
            at_default.add(k)
    lang = getattr(data, "lang", None)
    extras = metric.signature_extras()
    if lang is not None and not lang.edit_extractor.errant:  # ERRANT's versions do not apply
        extras = {k: v for k, v in extras.items() if k not in ERRANT_EXTRAS}
        extras.update(lang.versions())
    for k, v in extras.items():
        items.append((str(k), _value(v)))
        short[str(k)] = _short_key(str(k), taken)
        taken.add(short[str(k)])
    tok = metric.tokenisation(data)
    if lang is not None and not lang.is_default:  # English + ERRANT says nothing more
        desc = lang.describe()
        items += [("lang", desc["lang"]), ("edits", desc["edits"])]
        tok = desc["tok"]
    items += [("refs", str(_n_refs(data))), ("sents", str(len(data))),
              ("refhash", reference_hash(data)), ("tok", str(tok))]
    if n_samples:
        items.append(("resample", f"{test or 'bootstrap'}{n_samples}"))
        items.append(("seed", _value(seed)))
    items.append(("version", __version__))
    return Signature(tuple(items), short, frozenset(at_default))


def signature(metric: Metric, data: EvalData, *, long: bool = False,
              n_samples: int | None = None, seed: int | None = None,
              test: str | None = None) -> str:
    """Short (default) or long signature string of a metric on a reference set."""
    sig = metric_signature(metric, data, n_samples=n_samples, seed=seed, test=test)
    return sig.long() if long else sig.short()

"""The metric interface: per-sentence sufficient statistics and their aggregation.

Every metric computes one statistics object per sentence (``sentence_stats``) and turns any
sequence of them into a corpus :class:`Score` (``aggregate``). Corpus scores, bootstrap
resampling, significance tests and per-type tables are all computed from these statistics, so
the expensive part (alignment, parsing) runs once per system.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from gecscope.errors import ConfigError, FormatError, LengthMismatchError
from gecscope.types import Corpus, Tokens


@dataclass(frozen=True)
class Score:
    """A corpus-level result: the headline value and the named columns behind it.

    ``display`` optionally names the columns a terminal table shows by default (for metrics
    with many columns); JSON and TSV output always carry every field.
    """

    metric: str
    value: float
    fields: dict[str, float] = field(default_factory=dict)
    main: str = "score"
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    display: tuple[str, ...] = ()


def looks_like_m2(text: str) -> bool:
    """True when the first non-blank line of ``text`` starts with ``S `` (M2)."""
    for line in text.split("\n"):
        if line.strip():
            return line.startswith("S ") or line == "S"
    return False


@dataclass
class Hypothesis:
    """One system's output: its corrected sentences, and its edits when they are known."""

    name: str
    tokens: list[Tokens]
    m2: Corpus | None = None
    path: str | None = None

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None,
                  expected: int | None = None, expected_from: str | None = None) -> Hypothesis:
        """Read a hypothesis from plain text (one sentence per line) or from an M2 of its edits."""
        from gecscope.formats.base import read_text
        from gecscope.formats.m2 import parse_m2
        from gecscope.formats.plain import read_tokens

        p = Path(path)
        label = name or p.stem
        text = read_text(p, allow_empty=True)
        if looks_like_m2(text):
            corpus = parse_m2(text, p)
            if expected is not None and len(corpus) != expected:
                raise LengthMismatchError(expected, len(corpus), p, "sentences", expected_from)
            return cls(label, corpus.hypotheses(), corpus, str(p))
        toks = read_tokens(p, expected=expected, expected_from=expected_from)
        return cls(label, toks, None, str(p))

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass
class EvalData:
    """The references of an evaluation, shared (and cached) across every system scored.

    ``reference_paths`` are the files the user gave: one M2 (gold edits of all annotators) or
    several plain-text references. ``source_path`` is a plain-text source when the references
    are plain text. Metrics read what they need through the cached properties.
    """

    reference_paths: tuple[str, ...]
    source_path: str | None = None
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_m2(cls, corpus: Corpus) -> EvalData:
        data = cls((corpus.path or "<m2>",))
        data.__dict__["m2"] = corpus
        return data

    @cached_property
    def m2(self) -> Corpus | None:
        """The gold M2 corpus, if the references are a single M2 file or I-measure gold XML.

        Gold XML is converted to M2 (every alternative of every annotator kept), so edit-based
        metrics can score against it too; the parsed XML stays in the cache for the I-measure.
        """
        from gecscope.formats.base import read_text
        from gecscope.formats.m2 import parse_m2

        if len(self.reference_paths) != 1:
            return None
        path = self.reference_paths[0]
        text = read_text(path, allow_empty=True)  # read once, parsed by what it looks like
        if looks_like_m2(text):
            return parse_m2(text, path)
        from gecscope.formats.imeasure_xml import gold_to_m2, looks_like_gold, parse_gold

        if looks_like_gold(text):
            gold = parse_gold(text, path)
            self.cache["imeasure-gold"] = gold
            corpus = gold_to_m2(gold)
            return Corpus(corpus.sentences, path)
        return None

    def require_m2(self, metric: str) -> Corpus:
        if self.m2 is None:
            raise ConfigError(f"metric {metric!r} needs the references as one M2 file "
                              f"(got {', '.join(self.reference_paths)})")
        return self.m2

    @cached_property
    def sources(self) -> list[Tokens]:
        from gecscope.formats.plain import read_tokens

        if self.m2 is not None:
            return self.m2.sources
        if self.source_path is None:
            raise ConfigError("plain-text references need the source file too (--source)")
        return read_tokens(self.source_path)

    @cached_property
    def references(self) -> list[list[Tokens]]:
        """References as ``[reference][sentence]`` token lists, length-checked."""
        from gecscope.formats.plain import read_tokens

        if self.m2 is not None:
            return [self.m2.references(k) for k in self.m2.annotators] or [self.m2.sources]
        n = len(self.sources)
        return [read_tokens(p, expected=n, expected_from=self.source_path)
                for p in self.reference_paths]

    def __len__(self) -> int:
        return len(self.sources)

    def hypothesis_m2(self, hyp: Hypothesis) -> Corpus:
        """The hypothesis' edits: read from its M2, or extracted with ERRANT (cached per system).

        Parsing is shared across systems: every distinct sentence is parsed once per run.
        """
        if hyp.m2 is not None:
            return hyp.m2
        key = f"hyp-m2:{hyp.path or hyp.name}:{id(hyp)}"
        if key not in self.cache:
            from gecscope.alignment.errant import shared_annotator

            annotator = shared_annotator(self.cache)
            self.cache[key] = annotator.annotate_corpus(self.sources, [hyp.tokens])
        corpus: Corpus = self.cache[key]
        return corpus

    def check(self, hyp: Hypothesis) -> None:
        if len(hyp) != len(self):
            origin = self.reference_paths[0] if self.m2 is not None else self.source_path
            raise LengthMismatchError(len(self), len(hyp), hyp.path, "sentences", origin)
        if hyp.m2 is not None and hyp.m2.sources != self.sources:
            for i, (a, b) in enumerate(zip(hyp.m2.sources, self.sources, strict=True)):
                if a != b:
                    raise FormatError(
                        f"sentence {i + 1}: source differs from the reference source "
                        f"({' '.join(a)[:50]!r} vs {' '.join(b)[:50]!r}); "
                        "hypothesis and reference M2 must share their S lines", hyp.path)


@dataclass
class SystemResult:
    """One metric's result for one system: corpus score plus the per-sentence statistics."""

    system: str
    metric: str
    score: Score
    stats: list[Any]
    sentence_scores: list[float] | None = None


class Metric(ABC):
    """Base class. Subclasses set ``name``, a frozen dataclass ``Config``, and the two methods."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @dataclass(frozen=True)
    class Config:
        pass

    def __init__(self, config: Any = None, **options: Any) -> None:
        if config is None:
            try:
                config = self.Config(**options)
            except TypeError as exc:
                raise ConfigError(f"{self.name}: {exc}") from None
        elif options:
            config = dataclasses.replace(config, **options)
        self.config = config

    @abstractmethod
    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[Any]:
        """One statistics object per sentence."""

    @abstractmethod
    def aggregate(self, stats: Sequence[Any]) -> Score:
        """The corpus score of a sequence of per-sentence statistics."""

    def sentence_scores(self, stats: Sequence[Any]) -> list[float] | None:
        """One score per sentence, where the metric defines one."""
        return None

    def score(self, data: EvalData, hyp: Hypothesis) -> Score:
        data.check(hyp)
        return self.aggregate(self.sentence_stats(data, hyp))

    def evaluate(self, data: EvalData, hyp: Hypothesis) -> SystemResult:
        """Score ``hyp`` and keep the per-sentence statistics (for resampling and reports)."""
        data.check(hyp)
        stats = self.sentence_stats(data, hyp)
        return SystemResult(hyp.name, self.name, self.aggregate(stats), stats,
                            self.sentence_scores(stats))

    def options(self) -> dict[str, Any]:
        """The configuration as a plain dict (for signatures and JSON output)."""
        return dataclasses.asdict(self.config)

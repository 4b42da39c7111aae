"""Loaders for the two human-ranking benchmarks of GEC metrics. Every path is explicit.

* **GJG15** (Grundkiewicz et al. 2015): 13 CoNLL-2014 outputs (12 systems + INPUT) ranked by
  8 judges (``judgments.xml``, 0-based ``src-id``). Metrics score the whole 1,312-sentence
  test set; the human system scores are the published Table 3 values (:data:`GJG15_HUMAN`).
* **SEEDA** (Kobayashi et al. 2024): 15 outputs (12 systems, INPUT, two human references
  REF-M/REF-F, GPT-3.5) on 391 judged CoNLL-2014 sentences, ranked at two granularities
  (``data/judgments_{sent,edit}.xml``, 1-based ``src-id``). Metrics score ``outputs/subset``;
  the human scores are ``scores/human/{EW,TS}_{sent,edit}.txt`` (one value per system, in
  alphabetical order).

References for the judged sentences come from the CoNLL-2014 M2 (both annotators), selected by
sentence position, so reference-based metrics see exactly the sentences the systems output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError
from gecscope.formats.base import PathLike, read_text, split_lines
from gecscope.judgments import Judgments
from gecscope.types import Corpus

SEEDA_SYSTEMS: tuple[str, ...] = (
    "BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE",
    "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS",
)
"""SEEDA's systems in the order of its score files (code-point order)."""

SEEDA_SYSTEM_SETS: dict[str, tuple[str, ...]] = {
    "base": tuple(s for s in SEEDA_SYSTEMS if s not in ("INPUT", "REF-F", "GPT-3.5")),
    "+INPUT": tuple(s for s in SEEDA_SYSTEMS if s not in ("REF-F", "GPT-3.5")),
    "+REF-F_GPT-3.5": tuple(s for s in SEEDA_SYSTEMS if s != "INPUT"),
    "all": SEEDA_SYSTEMS,
}
"""SEEDA's system sets (names as in its ``corr_system.py``): ``base`` = 12 systems (no INPUT,
REF-F, GPT-3.5); ``+INPUT``; ``+REF-F_GPT-3.5`` (the fluent corrections); ``all`` = 15."""

SEEDA_SET_ALIASES = {"+REF-F": "+REF-F_GPT-3.5", "+fluency": "+REF-F_GPT-3.5", "INPUT": "+INPUT"}

GJG15_SYSTEMS: tuple[str, ...] = (
    "AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC",
    "UMC",
)

GJG15_HUMAN: dict[str, dict[str, float]] = {
    "EW": {"AMU": .628, "RAC": .566, "CAMB": .561, "CUUI": .550, "POST": .539, "UFC": .513,
           "PKU": .506, "UMC": .495, "IITB": .485, "SJTU": .463, "INPUT": .456, "NTHU": .437,
           "IPN": .300},
    "TS": {"AMU": .273, "CAMB": .182, "RAC": .114, "CUUI": .105, "POST": .080, "PKU": -.001,
           "UMC": -.022, "UFC": -.041, "IITB": -.055, "INPUT": -.062, "SJTU": -.074,
           "NTHU": -.142, "IPN": -.358},
}
"""Published GJG15 human scores (Grundkiewicz et al. 2015, Table 3): Expected Wins and
TrueSkill. The TrueSkill values come from randomised runs and cannot be recomputed exactly."""

GJG15_TABLE3_ORDER: tuple[str, ...] = tuple(GJG15_HUMAN["EW"])
"""GJG15's systems in the order of Table 3's Expected Wins ranking (best first). gec-metrics'
``MetaEvalGJG`` lists its systems in this order, which decides the order of its metric-derived
pairwise comparisons (TrueSkill aggregation, and which system "loses" a metric tie)."""

CONLL14_SENTENCES = 1312


@dataclass
class Benchmark:
    """A human-ranking benchmark ready for meta-evaluation.

    ``hypotheses[system]`` has one line per row; ``sentences[row]`` is the 0-based CoNLL-2014
    position of that row. ``data`` holds the references (and sources) of the rows.
    ``human[key]`` are system scores (``EW``/``TS`` for GJG15, ``EW_sent``... for SEEDA) and
    ``judgments[level]`` the ranking items behind them (``levels[key]`` names the level).
    ``order`` is the system order in which metric-derived pairwise comparisons are made
    (:meth:`ordered`; empty = ``systems``): gec-metrics' order, so that order-dependent
    results (TrueSkill aggregation, SEEDA's metric-tie rule) are the same as there.
    """

    name: str
    systems: tuple[str, ...]
    hypotheses: dict[str, Hypothesis]
    judgments: dict[str, Judgments]
    human: dict[str, dict[str, float]]
    levels: dict[str, str]
    sentences: tuple[int, ...]
    data: EvalData
    system_sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    set_aliases: dict[str, str] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    def ordered(self, systems: Sequence[str]) -> tuple[str, ...]:
        """``systems`` (each once) sorted by the benchmark's comparison :attr:`order`; systems
        the order does not list keep their relative order after those it lists."""
        rank = {s: i for i, s in enumerate(self.order or self.systems)}
        names = list(dict.fromkeys(systems))
        return tuple(sorted(names, key=lambda s: (rank.get(s, len(rank)), names.index(s))))

    @property
    def rows(self) -> dict[int, int]:
        """0-based test-set sentence -> row of the hypotheses."""
        return {s: i for i, s in enumerate(self.sentences)}

    def select(self, name: str | None) -> tuple[str, ...]:
        """The systems of a named set (``None`` = the benchmark's default set)."""
        if name is None:
            name = "base" if "base" in self.system_sets else "all"
        name = self.set_aliases.get(name, name)
        if name == "all":
            return self.systems
        if name not in self.system_sets:
            raise ConfigError(f"{self.name} has no system set {name!r}; choose one of "
                              f"{', '.join(['all', *self.system_sets])}")
        return self.system_sets[name]


def _check_dir(path: PathLike, what: str, expected: str) -> Path:
    p = Path(path)
    if not p.is_dir():
        raise FormatError(f"{what} directory not found; expected {expected}", p)
    return p


def _hypothesis(path: Path, name: str, n: int, origin: str) -> Hypothesis:
    if not path.is_file():
        raise FormatError(f"system output of {name} not found", path)
    return Hypothesis.from_file(path, name=name, expected=n, expected_from=origin)


def _references(m2_path: PathLike | None, sentences: tuple[int, ...], source_path: Path,
                label: str) -> EvalData:
    if m2_path is None:
        return EvalData((), str(source_path))
    from gecscope.formats.m2 import read_m2

    corpus = read_m2(m2_path)
    if len(corpus) != CONLL14_SENTENCES:
        raise FormatError(f"expected the CoNLL-2014 test set M2 ({CONLL14_SENTENCES} sentences), "
                          f"found {len(corpus)} sentences", str(m2_path))
    if list(sentences) == list(range(len(corpus))):
        subset = corpus
    else:
        subset = Corpus(tuple(corpus[i] for i in sentences), path=f"{m2_path}[{label}]")
    return EvalData.from_m2(subset)


def _check_sources(data: EvalData, source: Hypothesis, label: str) -> None:
    if data.m2 is None:
        return
    for row, (a, b) in enumerate(zip(source.tokens, data.m2.sources, strict=True)):
        if a != b:
            raise FormatError(f"row {row + 1}: the INPUT output differs from the M2 source "
                              f"({' '.join(a)[:40]!r} vs {' '.join(b)[:40]!r}); is the M2 the "
                              f"CoNLL-2014 test set ({label})?", source.path)


def load_seeda(data_dir: PathLike, m2_path: PathLike | None = None) -> Benchmark:
    """Load SEEDA from its repository directory (``data/``, ``outputs/subset``, ``scores/human``).

    ``m2_path`` is the CoNLL-2014 test M2 (``official-2014.combined.m2``); without it the
    benchmark has sources but no references (enough for reference-less metrics).
    """
    root = _check_dir(data_dir, "SEEDA", "the SEEDA repository (data/, outputs/, scores/)")
    human_side = read_seeda_human(root)
    judgments = {level: j for level, (j, _) in human_side.items()}
    sentences = tuple(sorted(set(judgments["sent"].sentences) | set(judgments["edit"].sentences)))
    human = {f"{m}_{level}": pub[m] for m in ("EW", "TS") for level, (_, pub) in human_side.items()}
    levels = {f"{m}_{level}": level for m in ("EW", "TS") for level in human_side}
    subset = root / "outputs" / "subset"
    origin = str(root / "data" / "judgments_sent.xml")
    hyps = {s: _hypothesis(subset / f"{s}.txt", s, len(sentences), origin) for s in SEEDA_SYSTEMS}
    data = _references(m2_path, sentences, subset / "INPUT.txt", "SEEDA subset")
    _check_sources(data, hyps["INPUT"], "SEEDA")
    sets = {k: v for k, v in SEEDA_SYSTEM_SETS.items() if k != "all"}
    return Benchmark("seeda", SEEDA_SYSTEMS, hyps, judgments, human, levels, sentences, data,
                     sets, dict(SEEDA_SET_ALIASES))


def read_seeda_human(root: Path) -> dict[str, tuple[Judgments, dict[str, dict[str, float]]]]:
    """SEEDA's human side per level (``sent``, ``edit``): the Appraise judgments and the
    published Expected Wins and TrueSkill system scores (``{"EW": ..., "TS": ...}``)."""
    from gecscope.formats.appraise_xml import read_appraise

    out = {}
    for level in ("sent", "edit"):
        j = read_appraise(root / "data" / f"judgments_{level}.xml", index_base=1,
                          sentences=CONLL14_SENTENCES)
        pub = {m: _read_system_scores(root / "scores" / "human" / f"{m}_{level}.txt",
                                      SEEDA_SYSTEMS) for m in ("EW", "TS")}
        out[level] = (j, pub)
    return out


def read_gjg15_judgments(root: Path) -> Judgments:
    """GJG15's ``judgments.xml`` in ``root`` (0-based ``src-id`` s, each checked against the
    1,312 CoNLL-2014 test sentences)."""
    from gecscope.formats.appraise_xml import read_appraise

    return read_appraise(root / "judgments.xml", index_base=0, sentences=CONLL14_SENTENCES)


def load_gjg15(data_dir: PathLike, submissions_dir: PathLike,
               m2_path: PathLike | None = None) -> Benchmark:
    """Load GJG15: ``data_dir/judgments.xml`` and the 13 CoNLL-2014 outputs in
    ``submissions_dir`` (files named after the systems, 1,312 lines each)."""
    root = _check_dir(data_dir, "GJG15", "the folder holding GJG15's judgments.xml")
    subs = _check_dir(submissions_dir, "CoNLL-2014 submissions",
                      "one file per system (AMU, CAMB, ..., INPUT)")
    judgments = read_gjg15_judgments(root)
    unknown = sorted(set(judgments.systems) - set(GJG15_SYSTEMS))
    if unknown:
        raise FormatError(f"unexpected system(s) {', '.join(unknown)} in the GJG15 judgments",
                          judgments.path)
    hyps = {}
    for s in GJG15_SYSTEMS:
        path = subs / s
        if not path.is_file() and (subs / f"{s}.txt").is_file():
            path = subs / f"{s}.txt"
        hyps[s] = _hypothesis(path, s, CONLL14_SENTENCES, str(subs / "INPUT"))
    sentences = tuple(range(CONLL14_SENTENCES))
    data = _references(m2_path, sentences, Path(hyps["INPUT"].path or subs / "INPUT"),
                       "GJG15")
    _check_sources(data, hyps["INPUT"], "GJG15")
    human = {k: dict(v) for k, v in GJG15_HUMAN.items()}
    return Benchmark("gjg15", GJG15_SYSTEMS, hyps, {"rank": judgments}, human,
                     {"EW": "rank", "TS": "rank"}, sentences, data, {}, order=GJG15_TABLE3_ORDER)


def _read_system_scores(path: Path, systems: tuple[str, ...]) -> dict[str, float]:
    numbered = [(i + 1, ln.strip()) for i, ln in enumerate(split_lines(read_text(path)))
                if ln.strip()]
    if len(numbered) != len(systems):
        raise FormatError(f"expected {len(systems)} system scores (one per line, alphabetical "
                          f"system order), found {len(numbered)}", path)
    out = {}
    for s, (lineno, v) in zip(systems, numbered, strict=True):
        try:
            out[s] = float(v)
        except ValueError:
            raise FormatError(f"{v!r} is not a number", path, lineno) from None
    return out


def single_reference(corpus: Corpus, annotator: int) -> Corpus:
    """The corpus with only ``annotator``'s annotations (a sentence it did not annotate keeps
    no annotation, i.e. the source is the reference)."""
    from gecscope.types import Sentence

    sents = tuple(Sentence(s.source, tuple(a for a in s.annotations if a.annotator == annotator))
                  for s in corpus)
    return Corpus(sents, path=f"{corpus.path}[annotator {annotator}]")


def single_reference_view(bench: Benchmark, annotator: int) -> Benchmark:
    """The benchmark with one reference annotator only (for cross-validation over references).

    The view gets its own :class:`EvalData`, so metrics recompute what depends on the
    references; it takes the benchmark's systems' extracted edits (they do not depend on the
    references), so outputs are not parsed again.
    """
    import dataclasses

    m2 = bench.data.require_m2("single-reference evaluation")
    if annotator not in m2.annotators:
        raise ConfigError(f"annotator {annotator} not in the references "
                          f"(annotators: {', '.join(map(str, m2.annotators))})")
    data = EvalData.from_m2(single_reference(m2, annotator))
    data.adopt_hypothesis_edits(bench.data)
    return dataclasses.replace(bench, data=data)

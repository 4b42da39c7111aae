"""MAEGE (Choshen & Abend, ACL 2018): validating a GEC metric without human judgments.

From a gold M2, partial corrections are built whose order is known: a sentence with more of one
annotator's gold edits applied is better than the same sentence with fewer.

* **Chains** (sentence level): per sentence and annotator, the edits in a random order; node
  ``k`` applies the first ``k``. A metric should score later nodes higher: Kendall's tau over
  every pair of nodes of a chain. A metric tie is neither agreement nor disagreement (EoE's
  code ranks scores with ``argsort``, which turns a tie into an agreement, so a constant metric
  gets tau = 1 there; :attr:`KendallCounts.eoe_tau` is that figure, for comparison).
* **Corpora** (corpus level): corpora with increasing numbers of applied edits; the metric's
  corpus scores should rise with them (Pearson, Spearman).
* **Per type**: the mean change of the metric's score when one edit of a type is applied.

The lattice reproduces borgr/EoE (commit 68e8058, ``create_db.create_ranks``) for its settings:
Python's :mod:`random` seeded once, one ``sample`` call per (sentence, annotator, chain) in file
order (Python 3.6 and 3.11 give the same draws; Python 2 does not, and EoE is Python 3), a
sentence skipped when its source has over 300 characters and more than one full stop, or when
any annotator left it unchanged (``noop``), and kept when it has at least two chains. One
deliberate difference: a node applies its edits in M2 order, not in chain order, so that two
insertions at one position read as the annotator wrote them (EoE garbles 21 nodes this way).

EoE's corpus sampler (``create_corpora``, ``sampler="eoe"``) is degenerate: each of the 11
corpora draws an annotator per sentence and a binomial number of edits with mean 0-10, but the
eligible CoNLL-2014 sentences have 3 edits per annotator on average, so corpora 5-10 all apply
about 2.7-3.0 edits per sentence (corpus 8 fewer than corpus 7) and their order is noise; the binomial ``n`` is also truncated
(the mean-2 corpus applies 1.4 edits). The default ``sampler="nested"`` applies the fraction
``k/(levels-1)`` of each sentence's edits (randomised rounding, one annotator and one order per
sentence), so every corpus contains the previous one's edits and corpus ``k`` has, in
expectation, exactly ``k/(levels-1)`` of the edits.
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecscope.errors import ConfigError, FormatError
from gecscope.stats.resample import check_draws
from gecscope.types import Annotation, Corpus, Edit, Sentence, Tokens, apply_edits

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gecscope.data import EvalData
    from gecscope.metrics.base import Metric

EOE_COMMIT = "68e8058"
SAMPLERS = ("nested", "eoe")
REFERENCE_MODES = ("loo", "split", "given")
#: EoE's filter on long multi-sentence sources (``create_ranks``)
MAX_SOURCE_CHARS = 300


def _np() -> Any:
    from gecscope.stats.fastpath import _np as load

    return load()


# -- lattice -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Chain:
    """One annotator's edits of one sentence in the order they are applied; node ``k`` (``0``
    to ``len(edits)``) applies the first ``k`` (node 0 is the source)."""

    sentence: int
    annotator: int
    edits: tuple[Edit, ...]
    #: each edit's position in the annotator's M2 lines
    positions: tuple[int, ...] = ()

    @property
    def n_nodes(self) -> int:
        return len(self.edits) + 1

    def node(self, source: Tokens, k: int) -> Tokens:
        return _apply(source, self.edits[:k], self.positions[:k])


def _apply(source: Tokens, edits: Sequence[Edit], positions: Sequence[int]) -> Tokens:
    """``edits`` applied in M2 order: two insertions at one position keep the annotator's order
    whatever order the chain added them in (EoE applies them in chain order, so its node can
    read "have who" where the annotator wrote "who have")."""
    if not positions:
        return apply_edits(source, edits)
    return apply_edits(source, [e for _, e in sorted(zip(positions, edits, strict=True),
                                                     key=lambda pe: pe[0])])


@dataclass(frozen=True)
class Lattice:
    """The chains of every kept sentence (M2 order), with the settings that built them."""

    chains: tuple[Chain, ...]
    sentences: tuple[int, ...]
    annotations: int
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return sum(c.n_nodes for c in self.chains)

    def counts(self) -> dict[str, int]:
        return {"sentences": len(self.sentences), "chains": len(self.chains),
                "nodes": self.n_nodes, "annotations": self.annotations}


def _n_orders(edits: Sequence[Edit]) -> int:
    """Distinct orders of ``edits`` (identical edits are interchangeable), as EoE counts them."""
    den = 1
    for v in Counter(edits).values():
        den *= math.factorial(v)
    return math.factorial(len(edits)) // den


def _eligible(sentence: Sentence) -> bool:
    """EoE's sentence filter shared by chains and corpora: annotated, and no annotator who left
    the sentence unchanged (a noop reference would make every correction look wrong)."""
    return bool(sentence.annotations) and all(a.edits for a in sentence.annotations)


def _check_corpus(corpus: Corpus) -> None:
    if not any(a.edits for s in corpus for a in s.annotations):
        raise FormatError("the gold M2 has no edits, so no partial corrections can be built "
                          "(expected 'A start end|||type|||correction|||...' lines)", corpus.path)


def _check_annotators(corpus: Corpus, annotators: Sequence[int] | None, what: str) -> None:
    if annotators is None:
        return
    known = corpus.annotators
    bad = [a for a in annotators if a not in known]
    if bad:
        raise ConfigError(f"{what}: annotator {bad[0]} does not occur in "
                          f"{corpus.path or 'the gold M2'} (its annotators: "
                          f"{', '.join(map(str, known))})")
    if not annotators:
        raise ConfigError(f"{what}: give at least one annotator")


#: the most orders per (sentence, annotator) a lattice takes (EoE's -p; its default is 1): a
#: lattice holds one chain per order, so the bound keeps it within memory for any corpus
MAX_PERMUTATIONS = 1000
#: the most corpora :func:`sample_corpora` makes (EoE: 11); each is scored by every metric
MAX_LEVELS = 1000


def build_lattice(corpus: Corpus, *, max_permutations: int = 1, seed: int = 1,
                  annotators: Sequence[int] | None = None, min_chains: int = 2,
                  rng: random.Random | None = None) -> Lattice:
    """The sentence-level chains of ``corpus``, as EoE's ``create_ranks`` builds them.

    Per eligible sentence and annotator (``annotators``: only these; default all): every order
    of its edits when there are fewer than ``max_permutations`` of them, else
    ``max_permutations`` random orders (``random.Random(seed).sample``, EoE's draw). Sentences
    with fewer than ``min_chains`` chains are dropped (EoE: 2)."""
    _check_corpus(corpus)
    _check_annotators(corpus, annotators, "lattice annotators")
    check_draws("max_permutations", max_permutations, MAX_PERMUTATIONS, 1)
    rng = rng if rng is not None else random.Random(seed)
    chains: list[Chain] = []
    kept: list[int] = []
    total = 0
    for i, s in enumerate(corpus):
        text = " ".join(s.source)
        if len(text) > MAX_SOURCE_CHARS and text.count(".") > 1:
            continue
        if not _eligible(s):
            continue
        mine: list[Chain] = []
        for ann in s.annotations:
            if annotators is not None and ann.annotator not in annotators:
                continue
            total += 1
            n = len(ann.edits)
            orders: Any
            if _n_orders(ann.edits) < max_permutations:
                orders = itertools.permutations(range(n))
            else:
                orders = (rng.sample(range(n), n) for _ in range(max_permutations))
            for order in orders:
                mine.append(Chain(i, ann.annotator, tuple(ann.edits[j] for j in order),
                                  tuple(order)))
        if len(mine) >= min_chains and mine:
            kept.append(i)
            chains.extend(mine)
    settings = {"max_permutations": max_permutations, "seed": seed, "min_chains": min_chains,
                "annotators": list(annotators) if annotators is not None else "all"}
    return Lattice(tuple(chains), tuple(kept), total, settings)


# -- corpora -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class CorpusSentence:
    """A sentence of a sampled corpus: ``edits`` of ``annotator`` applied."""

    sentence: int
    annotator: int
    edits: tuple[Edit, ...]
    positions: tuple[int, ...] = ()

    def tokens(self, source: Tokens) -> Tokens:
        return _apply(source, self.edits, self.positions)


@dataclass(frozen=True)
class Corpora:
    """Corpora of increasing quality over the same sentences; ``levels`` is each corpus's
    intended rank (EoE: the binomial mean; nested: ``k``)."""

    sampler: str
    levels: tuple[float, ...]
    corpora: tuple[tuple[CorpusSentence, ...], ...]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def sentences(self) -> tuple[int, ...]:
        return tuple(cs.sentence for cs in self.corpora[0]) if self.corpora else ()

    def mean_applied(self) -> list[float]:
        return [sum(len(cs.edits) for cs in c) / len(c) if c else 0.0 for c in self.corpora]


def binomial_parameters(mean: float, var: float) -> tuple[float, float]:
    """``(n, p)`` of a binomial with this mean and variance (EoE's parametrisation; mean 0 is
    ``(1, 0)``). ``n`` is not an integer; numpy truncates it."""
    if mean == 0:
        return 1.0, 0.0
    p = (mean - var) / mean
    return mean / p, p


def sample_corpora(corpus: Corpus, *, sampler: str = "nested", levels: int = 11, seed: int = 1,
                   variance: float = 0.9, annotators: Sequence[int] | None = None) -> Corpora:
    """Corpora with increasing numbers of applied gold edits over the eligible sentences.

    ``sampler="eoe"`` is EoE's ``create_corpora`` (``np.random.RandomState(seed)``, the state
    ``compare_measures`` leaves it in; binomial means ``0..levels-1`` with ``variance``; an
    annotator drawn per sentence and corpus), ``"nested"`` the corrected default (see the
    module docstring)."""
    _check_corpus(corpus)
    _check_annotators(corpus, annotators, "corpus annotators")
    if sampler not in SAMPLERS:
        raise ConfigError(f"unknown sampler {sampler!r}; expected one of {', '.join(SAMPLERS)}")
    check_draws("levels", levels, MAX_LEVELS, 2)
    np = _np()
    rows: list[tuple[int, list[Annotation]]] = []
    for i, s in enumerate(corpus):
        if not _eligible(s):
            continue
        anns = [a for a in s.annotations if annotators is None or a.annotator in annotators]
        if anns:
            rows.append((i, anns))
    out: list[list[CorpusSentence]] = [[] for _ in range(levels)]
    if sampler == "eoe":
        rs = np.random.RandomState(seed)
        params = [binomial_parameters(float(m), variance) for m in range(levels)]
        for k, (n_b, p) in enumerate(params):
            for i, anns in rows:
                ann = anns[int(rs.randint(len(anns)))]
                order = rs.permutation(len(ann.edits))
                c = max(int(rs.binomial(n_b, p)), 0)
                out[k].append(CorpusSentence(i, ann.annotator,
                                             tuple(ann.edits[j] for j in order[:c]),
                                             tuple(int(j) for j in order[:c])))
        settings: dict[str, Any] = {"variance": variance, "binomial": [list(p) for p in params]}
    else:
        g = np.random.default_rng(seed)
        top = levels - 1
        for i, anns in rows:
            ann = anns[int(g.integers(len(anns)))]
            order = [int(j) for j in g.permutation(len(ann.edits))]
            u = float(g.random())
            n = len(ann.edits)
            for k in range(levels):
                c = min(n, math.floor(k * n / top + u))
                out[k].append(CorpusSentence(i, ann.annotator,
                                             tuple(ann.edits[j] for j in order[:c]),
                                             tuple(order[:c])))
        settings = {}
    settings.update({"seed": seed, "levels": levels,
                     "annotators": list(annotators) if annotators is not None else "all"})
    return Corpora(sampler, tuple(float(k) for k in range(levels)),
                   tuple(tuple(c) for c in out), settings)


# -- references --------------------------------------------------------------------------------

@dataclass(frozen=True)
class References:
    """What the nodes are scored against.

    ``loo`` (leave one out): a node built from annotator ``a`` against every other annotator
    of its sentence in the gold M2; ``split``: lattice from some annotators, references from
    ``annotators`` (disjoint); ``given``: the user's references (``data``, aligned with the
    gold M2's sentences). EoE used Bryant & Ng's ten references minus the two NUCLE
    annotators, which gecscope does not ship."""

    mode: str = "loo"
    annotators: tuple[int, ...] = ()
    data: EvalData | None = None
    label: str = ""

    def describe(self) -> str:
        if self.mode == "loo":
            return "leave-one-out: each node against the gold M2's other annotators"
        if self.mode == "split":
            return ("split: references are annotator(s) "
                    f"{', '.join(map(str, self.annotators))} of the gold M2")
        return f"given: {self.label or 'user references'}"


def _reference_row(corpus: Corpus, refs: References, i: int, annotator: int
                   ) -> tuple[Any, Sentence | None]:
    """``(key, sentence)`` of the references for a node of sentence ``i`` built from
    ``annotator``; ``None`` when there are none (the node is then dropped)."""
    s = corpus[i]
    if refs.mode == "loo":
        anns = tuple(a for a in s.annotations if a.annotator != annotator)
        return annotator, (Sentence(s.source, anns) if anns else None)
    if refs.mode == "split":
        anns = tuple(a for a in s.annotations if a.annotator in refs.annotators)
        return (), (Sentence(s.source, anns) if anns else None)
    return (), None  # given: rows index the user's references directly


# -- scoring -----------------------------------------------------------------------------------

@dataclass
class _Rows:
    """Every distinct (sentence, references, hypothesis) to score, one evaluation."""

    keys: dict[tuple[int, Any, Tokens], int] = field(default_factory=dict)
    sentence: list[int] = field(default_factory=list)
    refs: list[Sentence | None] = field(default_factory=list)
    hyps: list[Tokens] = field(default_factory=list)

    def add(self, i: int, key: Any, ref: Sentence | None, hyp: Tokens) -> int:
        k = (i, key, hyp)
        row = self.keys.get(k)
        if row is None:
            row = self.keys[k] = len(self.hyps)
            self.sentence.append(i)
            self.refs.append(ref)
            self.hyps.append(hyp)
        return row


def _eval_data(corpus: Corpus, refs: References, rows: _Rows) -> EvalData:
    from gecscope.data import EvalData

    if refs.mode != "given":
        data = EvalData.from_m2(Corpus(tuple(r for r in rows.refs if r is not None),
                                       corpus.path))
        data.cycle_references = True  # a sentence with fewer references repeats its own
        return data
    given = refs.data
    assert given is not None
    m2 = given.m2
    if m2 is not None:
        data = EvalData.from_m2(Corpus(tuple(m2[i] for i in rows.sentence), m2.path))
        data.cycle_references = given.cycle_references
        return data
    srcs = [" ".join(corpus[i].source) for i in rows.sentence]
    sets = [[" ".join(r[i]) for i in rows.sentence] for r in given.references]
    return EvalData.from_texts(srcs, sets, lang=given.lang)


def check_given_references(corpus: Corpus, data: EvalData) -> None:
    """The user's references must have the gold M2's sentences, in order."""
    n = len(data)
    if n != len(corpus):
        raise ConfigError(f"the references have {n} sentences, the gold M2 "
                          f"{corpus.path or ''} {len(corpus)}; they must be aligned")
    for i, (a, b) in enumerate(zip(data.sources, corpus.sources, strict=True), start=1):
        if tuple(a) != tuple(b):
            raise ConfigError(f"sentence {i}: the references' source differs from the gold "
                              f"M2's ({' '.join(a)[:60]!r} vs {' '.join(b)[:60]!r})")


@dataclass
class NodeScores:
    """A metric's scores of every chain node and the corpora's sentences, with the per-row
    statistics behind them (for corpus scores and their bootstrap)."""

    metric: Metric
    chains: list[Chain]
    chain_scores: list[list[float]]
    corpus_rows: list[list[int]]
    corpus_sentences: list[int]
    stats: list[Any]
    dropped_chains: int
    dropped_corpus_sentences: int


def score_nodes(metric: Metric, corpus: Corpus, lattice: Lattice, corpora: Corpora,
                refs: References, *, jobs: int = 1) -> NodeScores:
    """Score every node of ``lattice`` and every sentence of ``corpora`` with ``metric`` in one
    evaluation (identical rows scored once). Nodes without references are dropped: a whole
    chain (so its order is kept) or a sentence position of every corpus."""
    from gecscope.data import Hypothesis
    from gecscope.errors import InputWarning
    from gecscope.evaluation import evaluate

    rows = _Rows()
    chain_rows: list[list[int]] = []
    chains: list[Chain] = []
    dropped = 0
    for ch in lattice.chains:
        key, ref = _reference_row(corpus, refs, ch.sentence, ch.annotator)
        if ref is None and refs.mode != "given":
            dropped += 1
            continue
        src = corpus[ch.sentence].source
        chains.append(ch)
        chain_rows.append([rows.add(ch.sentence, key, ref, ch.node(src, k))
                           for k in range(ch.n_nodes)])
    positions = range(len(corpora.corpora[0]) if corpora.corpora else 0)
    keep = []
    for j in positions:
        ok = True
        for c in corpora.corpora:
            cs = c[j]
            if refs.mode != "given" and \
                    _reference_row(corpus, refs, cs.sentence, cs.annotator)[1] is None:
                ok = False
        if ok:
            keep.append(j)
    corpus_rows: list[list[int]] = []
    for c in corpora.corpora:
        r = []
        for j in keep:
            cs = c[j]
            key, ref = _reference_row(corpus, refs, cs.sentence, cs.annotator)
            r.append(rows.add(cs.sentence, key, ref, cs.tokens(corpus[cs.sentence].source)))
        corpus_rows.append(r)
    if not rows.hyps:
        raise ConfigError("no chain node has references to be scored against (with --refs "
                          "split, the reference annotators must annotate the lattice's "
                          "sentences)")
    data = _eval_data(corpus, refs, rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # partial corrections are not outputs
        [result] = evaluate(metric, data, Hypothesis("maege", list(rows.hyps)), jobs=jobs)
    if result.sentence_scores is None:
        raise ConfigError(f"metric {metric.name!r} has no sentence scores, which MAEGE's "
                          "chains need")
    scores = [float(x) for x in result.sentence_scores]
    return NodeScores(metric, chains, [[scores[r] for r in cr] for cr in chain_rows],
                      corpus_rows, [corpora.corpora[0][j].sentence for j in keep]
                      if corpora.corpora else [], list(result.stats), dropped,
                      len(positions) - len(keep))


# -- statistics --------------------------------------------------------------------------------

@dataclass(frozen=True)
class KendallCounts:
    """Pairs of nodes of the same chain: the later node should score higher."""

    concordant: int
    discordant: int
    ties: int

    @property
    def pairs(self) -> int:
        return self.concordant + self.discordant + self.ties

    @property
    def tau(self) -> float:
        """(C - D) / pairs: a metric tie counts as neither (a constant metric gets 0)."""
        return (self.concordant - self.discordant) / self.pairs if self.pairs else math.nan

    @property
    def tau_b(self) -> float:
        """Kendall's tau-b (the human order has no ties): undefined when every pair is tied."""
        untied = self.concordant + self.discordant
        if not untied:
            return math.nan
        return (self.concordant - self.discordant) / math.sqrt(self.pairs * untied)

    @property
    def eoe_tau(self) -> float:
        """EoE's figure (``kendall_partial_order_from_seq`` on ``np.argsort`` of the scores):
        a tie counts as agreement, so a constant metric gets 1."""
        if not self.pairs:
            return math.nan
        return 1 - 2 * self.discordant / self.pairs


def chain_counts(scores: Sequence[float]) -> KendallCounts:
    """Concordant, discordant and tied pairs ``i < j`` of one chain's node scores."""
    c = d = t = 0
    for i, a in enumerate(scores):
        for b in scores[i + 1:]:
            if b > a:
                c += 1
            elif b < a:
                d += 1
            else:
                t += 1
    return KendallCounts(c, d, t)


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson of each row of ``x`` (B, n) with ``y`` (n,); NaN for a constant row."""
    np = _np()
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    den = np.sqrt((xc ** 2).sum(axis=1) * (yc ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / den
    r[den == 0] = np.nan
    return np.asarray(r)


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share their mean rank) within each row of ``x`` (B, n)."""
    np = _np()
    below = (x[:, :, None] > x[:, None, :]).sum(axis=2)
    equal = (x[:, :, None] == x[:, None, :]).sum(axis=2)
    return np.asarray(below + (equal + 1) / 2.0)


def _spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman of each row of ``x`` (B, n) with ``y`` (n,): Pearson of the average ranks."""
    return _pearson(_ranks(x), _ranks(y[None, :])[0])


@dataclass
class Estimate:
    """A statistic with its percentile bootstrap interval over sentences."""

    value: float
    low: float
    high: float
    undefined: int = 0  # resamples where the statistic is undefined (e.g. constant scores)

    def as_dict(self) -> dict[str, Any]:
        return {"value": _num(self.value), "low": _num(self.low), "high": _num(self.high),
                "undefined_resamples": self.undefined}


def _num(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _estimate(value: float, samples: np.ndarray, confidence: float) -> Estimate:
    from gecscope.stats.resample import percentile_interval

    np = _np()
    s = np.asarray(samples, dtype=np.float64)
    ok = s[~np.isnan(s)]
    lo, hi = percentile_interval(ok, confidence) if len(ok) else (math.nan, math.nan)
    return Estimate(float(value), lo, hi, int(len(s) - len(ok)))


@dataclass
class MaegeResult:
    """Every MAEGE figure of one metric."""

    metric: str
    references: str
    lattice: dict[str, int]
    sampler: str
    corpus_scores: list[float]
    levels: list[float]
    mean_applied: list[float]
    pearson: Estimate
    spearman: Estimate
    kendall: KendallCounts
    tau: Estimate
    per_type: dict[str, dict[str, tuple[Estimate, int]]]
    dropped_chains: int = 0
    dropped_corpus_sentences: int = 0
    bootstrap: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        k = self.kendall
        return {
            "metric": self.metric, "references": self.references, "lattice": self.lattice,
            "dropped_chains": self.dropped_chains,
            "corpus": {"sampler": self.sampler, "levels": self.levels,
                       "mean_applied_edits": self.mean_applied,
                       "scores": self.corpus_scores, "pearson": self.pearson.as_dict(),
                       "spearman": self.spearman.as_dict(),
                       "dropped_sentences": self.dropped_corpus_sentences},
            "sentence": {"tau": self.tau.as_dict(), "tau_b": _num(k.tau_b),
                         "eoe_tau": _num(k.eoe_tau), "pairs": k.pairs,
                         "concordant": k.concordant, "discordant": k.discordant,
                         "ties": k.ties},
            "per_type": {scheme: {t: {**e.as_dict(), "n": n} for t, (e, n) in types.items()}
                         for scheme, types in self.per_type.items()},
            "bootstrap": self.bootstrap,
        }


def errant_types(corpus: Corpus, sentences: Sequence[int]) -> dict[tuple[int, int, Edit], str]:
    """ERRANT's type of every gold edit of ``sentences`` (spans and corrections kept, as
    ``errant_m2 -gold -no_min`` classifies them), keyed by (sentence, annotator, edit)."""
    from gecscope.alignment.errant import shared_annotator

    sub = Corpus(tuple(corpus[i] for i in sentences), corpus.path)
    typed = shared_annotator().retype_corpus(sub, auto=False, minimise=False)
    out: dict[tuple[int, int, Edit], str] = {}
    for i, s, t in zip(sentences, sub, typed, strict=True):
        for ann in s.annotations:
            new = {(e.start, e.end, e.correction): e.type for e in t.edits(ann.annotator)}
            for e in ann.edits:
                out[(i, ann.annotator, e)] = new.get((e.start, e.end, e.correction), "UNK")
    return out


def analyse(scores: NodeScores, corpora: Corpora, lattice: Lattice, refs: References, *,
            n_samples: int = 1000, seed: int = 12345, confidence: float = 0.95,
            types: dict[str, Callable[[Chain, Edit], str]] | None = None,
            corpus_samples: int | None = None) -> MaegeResult:
    """Corpus-level correlations, chain Kendall tau and per-type score changes, each with a
    percentile bootstrap interval over sentences (``seed``). ``corpus_samples`` (default
    ``n_samples``) resamples the corpus level alone: each one re-aggregates all corpora,
    which is slow for a metric without a vectorised path (GREEN, CLEME, I-measure)."""
    from gecscope.stats.resample import Scorer, make_rng

    np = _np()
    if n_samples < 1:
        raise ConfigError(f"the number of bootstrap samples must be positive, got {n_samples}")
    rng = make_rng(seed)
    types = types if types is not None else {"nucle": lambda ch, e: e.type}
    # sentence level: per-sentence pair counts and per-type deltas
    sent_ids = sorted({ch.sentence for ch in scores.chains})
    pos = {s: j for j, s in enumerate(sent_ids)}
    counts = np.zeros((len(sent_ids), 3))
    total = KendallCounts(0, 0, 0)
    type_names = {name: sorted({fn(ch, e) for ch in scores.chains for e in ch.edits})
                  for name, fn in types.items()}
    sums = {name: np.zeros((len(sent_ids), len(t))) for name, t in type_names.items()}
    cnts = {name: np.zeros((len(sent_ids), len(t))) for name, t in type_names.items()}
    for ch, sc in zip(scores.chains, scores.chain_scores, strict=True):
        kc = chain_counts(sc)
        j = pos[ch.sentence]
        counts[j] += (kc.concordant, kc.discordant, kc.ties)
        total = KendallCounts(total.concordant + kc.concordant,
                              total.discordant + kc.discordant, total.ties + kc.ties)
        for name, fn in types.items():
            idx = {t: m for m, t in enumerate(type_names[name])}
            for k, e in enumerate(ch.edits):
                m = idx[fn(ch, e)]
                sums[name][j, m] += sc[k + 1] - sc[k]
                cnts[name][j, m] += 1
    weights = np.zeros((n_samples, len(sent_ids)))
    if sent_ids:
        draws = rng.integers(0, len(sent_ids), size=(n_samples, len(sent_ids)))
        for b in range(n_samples):
            weights[b] = np.bincount(draws[b], minlength=len(sent_ids))
    cdt = weights @ counts
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_s = (cdt[:, 0] - cdt[:, 1]) / cdt.sum(axis=1)
    tau = _estimate(total.tau, tau_s, confidence)
    per_type: dict[str, dict[str, tuple[Estimate, int]]] = {}
    for name, tnames in type_names.items():
        s_b, c_b = weights @ sums[name], weights @ cnts[name]
        tot_s, tot_c = sums[name].sum(axis=0), cnts[name].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_b = s_b / c_b
        per_type[name] = {t: (_estimate(float(tot_s[m] / tot_c[m]), mean_b[:, m], confidence),
                              int(tot_c[m])) for m, t in enumerate(tnames)}
    # corpus level: the metric's own corpus score of each corpus, on resampled sentences
    scorer = Scorer(scores.metric, scores.stats)
    rows = np.asarray(scores.corpus_rows, dtype=np.int64)  # (corpora, sentences)
    levels = np.asarray(corpora.levels, dtype=np.float64)
    n_sent = rows.shape[1] if rows.ndim == 2 else 0
    if n_sent == 0:
        raise ConfigError("the corpora have no sentence with references to score against")
    full = np.array([float(scorer.values(rows[c][None, :])["value"][0])
                     for c in range(len(rows))])
    n_corpus = n_samples if corpus_samples is None else corpus_samples
    if n_corpus < 1:
        raise ConfigError(f"the number of corpus-level resamples must be positive, got "
                          f"{n_corpus}")
    draws = rng.integers(0, n_sent, size=(n_corpus, n_sent))
    boot = np.stack([scorer.values(rows[c][draws])["value"] for c in range(len(rows))], axis=1)
    pearson = _estimate(float(_pearson(full[None, :], levels)[0]), _pearson(boot, levels),
                        confidence)
    spearman = _estimate(float(_spearman(full[None, :], levels)[0]), _spearman(boot, levels),
                         confidence)
    return MaegeResult(
        metric=scores.metric.name, references=refs.describe(), lattice=lattice.counts(),
        sampler=corpora.sampler, corpus_scores=[float(x) for x in full],
        levels=list(corpora.levels), mean_applied=corpora.mean_applied(), pearson=pearson,
        spearman=spearman, kendall=total, tau=tau, per_type=per_type,
        dropped_chains=scores.dropped_chains,
        dropped_corpus_sentences=scores.dropped_corpus_sentences,
        bootstrap={"samples": n_samples, "corpus_samples": n_corpus, "seed": seed,
                   "confidence": confidence, "unit": "sentence"})


# -- one call ----------------------------------------------------------------------------------

def run_maege(m2: Corpus | str, metrics: Sequence[Metric | str], *,
              refs: References | None = None, lattice_annotators: Sequence[int] | None = None,
              sampler: str = "nested", levels: int = 11, seed: int = 1,
              max_permutations: int = 1, min_chains: int | None = None,
              n_samples: int = 1000, bootstrap_seed: int = 12345, confidence: float = 0.95,
              corpus_samples: int | None = None, type_schemes: Sequence[str] = ("nucle",), jobs: int = 1,
              progress: Callable[[str], None] | None = None) -> list[MaegeResult]:
    """MAEGE for every metric (registry names or instances) on the gold M2 ``m2``.

    ``refs`` defaults to leave-one-out; with ``split`` the lattice and the corpora use
    ``lattice_annotators`` (default: every annotator not among the references). A sentence
    needs ``min_chains`` chains: by default EoE's 2 when every annotator builds the lattice,
    else 1 (one annotator with one order gives one chain per sentence). ``type_schemes``:
    ``nucle`` (the M2's own types) and/or ``errant`` (gold edits classified by ERRANT)."""
    from gecscope.formats.m2 import read_m2
    from gecscope.registry import get_metric

    corpus = m2 if isinstance(m2, Corpus) else read_m2(m2)
    _check_corpus(corpus)
    refs = refs or References()
    if refs.mode not in REFERENCE_MODES:
        raise ConfigError(f"unknown reference mode {refs.mode!r}; expected one of "
                          f"{', '.join(REFERENCE_MODES)}")
    annotators = lattice_annotators
    if refs.mode == "split":
        _check_annotators(corpus, refs.annotators, "reference annotators")
        if annotators is None:
            annotators = [a for a in corpus.annotators if a not in refs.annotators]
        if set(annotators) & set(refs.annotators):
            raise ConfigError("split: the lattice and reference annotators must differ "
                              f"(both have {sorted(set(annotators) & set(refs.annotators))})")
    if refs.mode == "given":
        assert refs.data is not None
        check_given_references(corpus, refs.data)
    if n_samples < 1 or (corpus_samples is not None and corpus_samples < 1):
        raise ConfigError(f"the number of bootstrap resamples must be positive, got "
                          f"{n_samples if n_samples < 1 else corpus_samples}")
    bad = [t for t in type_schemes if t not in ("nucle", "errant")]
    if bad:
        raise ConfigError(f"unknown type scheme {bad[0]!r}; expected nucle or errant")
    if min_chains is None:  # EoE's 2 for its own setting (every annotator), else 1
        min_chains = 2 if annotators is None else 1
    lattice = build_lattice(corpus, max_permutations=max_permutations, seed=seed,
                            annotators=annotators, min_chains=min_chains)
    if not lattice.chains:
        raise ConfigError("no sentence of the gold M2 gives a chain with these settings")
    corpora = sample_corpora(corpus, sampler=sampler, levels=levels, seed=seed,
                             annotators=annotators)
    types: dict[str, Callable[[Chain, Edit], str]] = {}
    if "nucle" in type_schemes:
        types["nucle"] = lambda ch, e: e.type
    if "errant" in type_schemes:
        etypes = errant_types(corpus, lattice.sentences)
        types["errant"] = lambda ch, e: etypes.get((ch.sentence, ch.annotator, e), "UNK")
    out = []
    for spec in metrics:
        metric = get_metric(spec)() if isinstance(spec, str) else spec
        if progress:
            progress(f"scoring {len(lattice.chains)} chains and {levels} corpora with "
                     f"{metric.name}")
        scores = score_nodes(metric, corpus, lattice, corpora, refs, jobs=jobs)
        out.append(analyse(scores, corpora, lattice, refs, n_samples=n_samples,
                           seed=bootstrap_seed, confidence=confidence, types=types,
                           corpus_samples=corpus_samples))
    return out

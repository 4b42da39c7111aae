"""Whole-sentence correction by round-trip translation: translate, align, build the lattice,
apply the correction methods (Madnani et al., 2012).

:class:`RoundTripCorrector` batches the translations (one batch per pivot and direction) and
can also be fed round trips directly (:meth:`RoundTripCorrector.correct_from_round_trips`), which
is how the paper's Figure 1 example is checked without a translator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gecscope.errors import ConfigError
from gecscope.rtt import methods as M
from gecscope.rtt.lattice import Lattice, build_lattice
from gecscope.rtt.lm import LanguageModel
from gecscope.rtt.terp import Alignment, ParaphraseTable, TerpAligner, TerpConfig
from gecscope.rtt.tokenize import detokenize, tokenize
from gecscope.types import Tokens

DEFAULT_PIVOTS = ("spa", "cat", "glg", "epo", "hbs")
#: The default method: ``product`` (P) scored best of the six on JFLEG dev through the Apertium
#: pivots (GLEU, successes against the references, mean USIM; docs/rtt.md, section 5). It
#: needs the language model (the ``rtt`` extra); ``greedy`` and ``one_best`` need none.
DEFAULT_METHOD = "product"


@dataclass(frozen=True)
class CorrectorConfig:
    """Pivots, methods and search settings of the corrector."""

    pivots: tuple[str, ...] = DEFAULT_PIVOTS
    methods: tuple[str, ...] = (DEFAULT_METHOD,)
    n_best: int = 20
    capitalize_first: bool = True
    terp: TerpConfig = field(default_factory=TerpConfig)

    def __post_init__(self) -> None:
        if not self.pivots:
            raise ConfigError("at least one pivot language is needed")
        if self.n_best < 1:
            raise ConfigError(f"n_best must be >= 1, got {self.n_best}")
        object.__setattr__(self, "methods",
                           tuple(dict.fromkeys(M.canonical_method(m) for m in self.methods)))


@dataclass
class Correction:
    """Everything computed for one sentence."""

    original: Tokens
    round_trips: dict[str, Tokens]
    alignments: dict[str, Alignment]
    lattice: Lattice
    corrections: dict[str, Tokens]


class RoundTripCorrector:
    """Round-trip-translation corrector. ``translator`` may be ``None`` when round trips are
    supplied by the caller; ``lm`` is needed only by the LM methods (B, L, P, C)."""

    def __init__(self, translator: object | None = None, lm: LanguageModel | None = None,
                 config: CorrectorConfig | None = None,
                 paraphrases: ParaphraseTable | None = None):
        self.translator = translator
        self.config = config or CorrectorConfig()
        self.lm = lm
        self.aligner = TerpAligner(self.config.terp, paraphrases)
        if self.lm is None and M.LM_METHODS & set(self.config.methods):
            from gecscope.rtt.lm import load_lm

            self.lm = load_lm()

    def round_trips(self, sentences: Sequence[Tokens]) -> dict[str, list[Tokens]]:
        """Round trips of every sentence through every pivot (one batch per pivot)."""
        if self.translator is None:
            raise ConfigError("no translator given; pass round trips explicitly")
        texts = [detokenize(s) for s in sentences]
        out: dict[str, list[Tokens]] = {}
        for pivot in self.config.pivots:
            outs = self.translator.round_trip(texts, pivot)  # type: ignore[attr-defined]
            out[pivot] = [tokenize(o) for o in outs]
        return out

    def correct_from_round_trips(self, original: Sequence[str],
                                 round_trips: Mapping[str, Sequence[str]]) -> Correction:
        """Align the given round trips (label -> tokens), build the lattice, apply the methods."""
        orig = tuple(original)
        rts = {k: tuple(v) for k, v in round_trips.items()}
        aligns = {k: self.aligner.align(orig, v) for k, v in rts.items() if v}
        lat = build_lattice(orig, list(aligns.values()), list(aligns))
        corrections: dict[str, Tokens] = {}
        for m in self.config.methods:
            corrections[m] = self._fix_case(orig, self._apply(m, orig, list(aligns), rts, lat))
        return Correction(orig, rts, aligns, lat, corrections)

    def _apply(self, method: str, orig: Tokens, labels: list[str],
               rts: dict[str, Tokens], lat: Lattice) -> Tokens:
        if method == "greedy":
            return M.greedy(lat)
        if method == "one_best":
            return M.one_best(lat)
        if self.lm is None:
            raise ConfigError(f"method {method!r} needs a language model (lm=...)")
        if method == "baseline_lm":
            return M.baseline_lm(orig, [rts[k] for k in labels], self.lm)
        if method == "lm_reranked":
            return M.lm_reranked(lat, self.lm, self.config.n_best)
        if method == "product":
            return M.product_reranked(lat, self.lm, self.config.n_best)
        return M.lm_composition(lat, self.lm)

    def _fix_case(self, orig: Tokens, out: Tokens) -> Tokens:
        """Capitalise the first word when the original's was (a round trip may have moved a
        lower-case word to the front)."""
        if not (self.config.capitalize_first and orig and out):
            return out
        if orig[0][:1].isupper() and out[0][:1].islower():
            return (out[0][:1].upper() + out[0][1:], *out[1:])
        return out

    def correct(self, sentences: Sequence[Sequence[str] | str]) -> list[Correction]:
        """Correct tokenised sentences (strings are tokenised first)."""
        from gecscope.progress import tick

        toks = [tokenize(s) if isinstance(s, str) else tuple(s) for s in sentences]
        rts = self.round_trips(toks)
        out = []
        for k, t in enumerate(toks):
            out.append(self.correct_from_round_trips(t, {p: rts[p][k]
                                                         for p in self.config.pivots}))
            tick()
        return out

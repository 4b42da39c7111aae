"""Attack systems: outputs built to score well under a metric without correcting well.

Human validation (:mod:`~.runner`) asks which metric agrees with humans, MAEGE (:mod:`~.maege`)
which metric orders partial corrections; an attack audit asks whether a system can game a
metric. Each attack turns a test set (sources, references, the real systems' outputs) into one
more "system" that is scored beside the real ones (:mod:`~.audit`).

Built-in attacks (:data:`ATTACKS`; each class documents where it comes from and why it games
which kind of metric): ``copy-source``, ``precise-types``, ``union``, ``other-reference``,
``shuffled-reference``, ``truncated-reference``, ``chatter-prefix``, ``chatter-suffix``. The
published outputs of Goto et al. (2025) are read as systems by :func:`read_attack_dir`. A
user's attack is a subclass of :class:`Attack`, named as ``module:Class`` or registered with
:func:`register_attack`. Random attacks draw from a generator seeded by
:attr:`AttackContext.seed` and the attack's name, so every run builds the same output.
"""

from __future__ import annotations

import hashlib
import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError, LengthMismatchError
from gecscope.types import NOOP_TYPE, UNK_TYPE, Corpus, Edit, Tokens, apply_edits

PREFIX = "attack:"
"""Name prefix of every attack system (``attack:copy-source``), so it never shadows a real one."""


@dataclass(frozen=True)
class AttackContext:
    """What an attack may build from: the test set's ``sources`` and reference ``references``
    (an M2 of the same rows, or None), the real systems' outputs (``systems``, in the order
    given), the ``best`` of them (the human-preferred one when the test set has a human
    ranking), ``data`` (for the systems' ERRANT edits, extracted once and cached) and the
    ``seed`` of random attacks."""

    sources: tuple[Tokens, ...]
    references: Corpus | None
    systems: Mapping[str, Hypothesis]
    best: str
    data: EvalData
    seed: int = 0

    def __post_init__(self) -> None:
        if self.best not in self.systems:
            raise ConfigError(f"best system {self.best!r} is not one of the real systems "
                              f"({', '.join(self.systems)})")
        n = len(self.sources)
        for name, hyp in self.systems.items():
            if len(hyp) != n:
                raise LengthMismatchError(n, len(hyp), hyp.path or name, "sentences",
                                          "the test set's sources")
        if self.references is not None and len(self.references) != n:
            raise LengthMismatchError(n, len(self.references), self.references.path,
                                      "sentences", "the test set's sources")

    def edits(self, system: str) -> list[tuple[Edit, ...]]:
        """The system's edits per sentence (ERRANT's, noop and unknown-type edits left out)."""
        corpus = self.data.hypothesis_m2(self.systems[system])
        return [system_edits(s) for s in corpus]

    def require_references(self, attack: str) -> Corpus:
        if self.references is None:
            raise ConfigError(f"attack {attack!r} needs the references (give --m2)")
        return self.references

    def rng(self, attack: str) -> random.Random:
        """A generator of its own for ``attack``, from the seed and the attack's name."""
        digest = hashlib.sha256(f"{self.seed}\x1f{attack}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))


@dataclass(frozen=True)
class AttackOutput:
    """One attack system: its ``hypothesis`` (named ``attack:<name>``), the attack that made
    it, what it is, and, for attacks made of edits, the edits applied per sentence
    (``edits``, their provenance for the audit and the tests) and ``notes`` (e.g. the types
    kept)."""

    name: str
    attack: str
    hypothesis: Hypothesis
    description: str
    edits: tuple[tuple[Edit, ...], ...] | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "attack": self.attack, "description": self.description,
                "notes": self.notes}


class Attack(ABC):
    """An attack: ``build(ctx)`` returns the attack system. Subclasses set ``name`` (the id
    of ``--attacks``), ``description`` (what it outputs), ``source`` (where the attack comes
    from) and ``games`` (which kind of metric it games, and why); ``needs_references`` when it
    reads the references (it is then skipped, with the reason, when there are none)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""
    games: ClassVar[str] = ""
    needs_references: ClassVar[bool] = False

    @abstractmethod
    def build(self, ctx: AttackContext) -> AttackOutput:
        """The attack system for ``ctx``'s test set."""

    def output(self, ctx: AttackContext, tokens: Sequence[Sequence[str]],
               edits: Sequence[tuple[Edit, ...]] | None = None,
               notes: Mapping[str, Any] | None = None) -> AttackOutput:
        """An :class:`AttackOutput` of these sentences under ``attack:<name>``."""
        label = PREFIX + (self.name or type(self).__name__)
        hyp = Hypothesis(label, [tuple(t) for t in tokens])
        if len(hyp) != len(ctx.sources):
            raise LengthMismatchError(len(ctx.sources), len(hyp), label, "sentences",
                                      "the test set's sources")
        return AttackOutput(label, self.name, hyp, self.description,
                            tuple(edits) if edits is not None else None, dict(notes or {}))

    @classmethod
    def info(cls) -> dict[str, str]:
        return {"name": cls.name, "description": cls.description, "source": cls.source,
                "games": cls.games}


def system_edits(sentence: Any) -> tuple[Edit, ...]:
    """The edits of a system M2 sentence that change the text (no noop or unknown type)."""
    if not sentence.annotations:
        return ()
    return tuple(e for e in sentence.annotations[0].edits
                 if e.type not in (NOOP_TYPE, UNK_TYPE))


def edit_key(e: Edit) -> tuple[int, int, Tokens]:
    return (e.start, e.end, tuple(e.correction))


def reference_keys(sentence: Any) -> set[tuple[int, int, Tokens]]:
    """Every (start, end, correction) any reference annotator accepts (alternatives too)."""
    out: set[tuple[int, int, Tokens]] = set()
    for ann in sentence.annotations:
        for e in ann.all_edits:
            if e.type == NOOP_TYPE:
                continue
            for c in e.corrections:
                out.add((e.start, e.end, tuple(c)))
    return out


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether two edits of one source cannot both be applied: their spans share a token, or
    both insert at the same position, or one inserts strictly inside the other's span.
    Edits that only touch (one ends where the other starts) do not overlap."""
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


# --------------------------------------------------------------------- built-in attacks


class CopySource(Attack):
    name = "copy-source"
    description = "the unchanged source (a system that does nothing)"
    source = ("the do-nothing baseline of every GEC evaluation; GJG15's and SEEDA's INPUT "
              "system (Grundkiewicz et al. 2015; Kobayashi et al. 2024)")
    games = ("faithfulness metrics (USIM: meaning kept perfectly), reference-free metrics that "
             "reward similarity to the source (Scribendi's and IMPARA's similarity gates), "
             "precision-weighted F-scores that give 0/0 no penalty per sentence, and "
             "I-measure-like metrics that score the source as the baseline")

    def build(self, ctx: AttackContext) -> AttackOutput:
        return self.output(ctx, ctx.sources, [()] * len(ctx.sources))


@dataclass(frozen=True)
class TypePrecision:
    """One ERRANT type of a system: edits proposed, how many a reference accepts, precision."""

    type: str
    proposed: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.proposed if self.proposed else 0.0


def type_precision(edits: Sequence[tuple[Edit, ...]], references: Corpus
                   ) -> dict[str, TypePrecision]:
    """Per ERRANT type (full type, ``R:VERB:SVA``...): how many of the edits any reference
    annotator accepts (same span, same correction, or one of its alternatives)."""
    counts: dict[str, list[int]] = {}
    for sent_edits, ref in zip(edits, references, strict=True):
        keys = reference_keys(ref)
        for e in sent_edits:
            c = counts.setdefault(e.type, [0, 0])
            c[0] += 1
            c[1] += edit_key(e) in keys
    return {t: TypePrecision(t, p, c) for t, (p, c) in sorted(counts.items())}


class PreciseTypes(Attack):
    """Keep only the best system's edits of its most precise ERRANT types.

    A type is kept when at least :attr:`min_edits` of the best system's edits have it and at
    least :attr:`min_precision` of those are accepted by a reference (span and correction).
    The precision is measured on the test set's own references: an oracle, the upper bound of
    what a developer tuning on a development set could do."""

    name = "precise-types"
    description = "the best system's edits, restricted to its most precise ERRANT types"
    source = ("the precision/recall trade-off of F0.5 (Napoles et al. 2015; Choshen & Abend "
              "2018, 'conservatism' of GEC systems); a standard way to tune systems for "
              "CoNLL-2014")
    games = ("precision-weighted reference-based F-scores (M2, ERRANT, PT-M2/PT-ERRANT, CLEME "
             "at beta=0.5): dropping the risky edit types raises precision more than F0.5 "
             "loses on recall, though the output corrects fewer errors")
    needs_references = True
    min_precision: ClassVar[float] = 0.5
    min_edits: ClassVar[int] = 5

    def build(self, ctx: AttackContext) -> AttackOutput:
        refs = ctx.require_references(self.name)
        edits = ctx.edits(ctx.best)
        table = type_precision(edits, refs)
        keep = sorted(t for t, tp in table.items()
                      if tp.proposed >= self.min_edits and tp.precision >= self.min_precision)
        kept = [tuple(e for e in es if e.type in keep) for es in edits]
        tokens = [apply_edits(src, es) for src, es in zip(ctx.sources, kept, strict=True)]
        total = sum(t.proposed for t in table.values())
        right = sum(t.correct for t in table.values())
        return self.output(ctx, tokens, kept, {
            "best_system": ctx.best, "kept_types": keep,
            "min_precision": self.min_precision, "min_edits": self.min_edits,
            "edits_kept": sum(len(k) for k in kept), "edits_of_best": total,
            "precision_of_best": right / total if total else 0.0,
            "precision_kept": (sum(table[t].correct for t in keep)
                               / max(1, sum(table[t].proposed for t in keep)))})


class Union(Attack):
    """Every real system's edits merged: per sentence, the edits proposed by most systems
    first (ties: the first system in the given order), each kept unless it overlaps one kept
    before (:func:`overlaps`)."""

    name = "union"
    description = "the union of all real systems' edits (non-overlapping, most-voted first)"
    source = ("system combination by edit union (e.g. Susanto et al. 2014, Kantor et al. "
              "2019) pushed to its limit: no edit is filtered")
    games = ("recall-weighted metrics (F with beta > 1, GLEU's and GREEN's n-gram gain, CLEME "
             "recall): every error some system fixed is fixed, at the cost of precision; and "
             "metrics that reward any change")

    def build(self, ctx: AttackContext) -> AttackOutput:
        per_system = [ctx.edits(s) for s in ctx.systems]
        merged: list[tuple[Edit, ...]] = []
        for i, src in enumerate(ctx.sources):
            votes: dict[tuple[int, int, Tokens], list[Any]] = {}
            for rank, edits in enumerate(per_system):
                for e in edits[i]:
                    k = edit_key(e)
                    if k in votes:
                        votes[k][0] += 1
                    else:
                        votes[k] = [1, rank, e]
            kept: list[Edit] = []
            for _n, _rank, e in sorted(votes.values(), key=lambda v: (-v[0], v[1])):
                if not any(overlaps(e, k) for k in kept):
                    kept.append(e)
            kept.sort(key=lambda e: (e.start, e.end))
            merged.append(tuple(kept))
        tokens = [apply_edits(src, es) for src, es in zip(ctx.sources, merged, strict=True)]
        return self.output(ctx, tokens, merged, {
            "systems": list(ctx.systems), "edits": sum(len(m) for m in merged)})


def _derangement(n: int, rng: random.Random) -> list[int]:
    """A seeded permutation of ``range(n)`` with no fixed point (n >= 2)."""
    order = list(range(n))
    rng.shuffle(order)
    # a cyclic shift of the shuffled order maps every element to another
    target = order[1:] + order[:1]
    perm = [0] * n
    for a, b in zip(order, target, strict=True):
        perm[a] = b
    return perm


def _final_punct(tokens: Tokens) -> tuple[Tokens, Tokens]:
    if tokens and tokens[-1] in (".", "!", "?"):
        return tokens[:-1], tokens[-1:]
    return tokens, ()


class OtherReference(Attack):
    name = "other-reference"
    description = "another sentence's reference (fluent, grammatical, meaning destroyed)"
    source = ("the fluency-only failure of reference-free metrics (Asano et al. 2017; Goto et "
              "al. 2025, whose SOME and IMPARA attacks retrieve fluent sentences from a "
              "corpus)")
    games = ("reference-free metrics that judge grammaticality and fluency without tying the "
             "output to the source (SOME's grammaticality and fluency heads, LLM judges "
             "asked 'is this sentence correct?'); reference-based metrics should drop it to "
             "the bottom")
    needs_references = True

    def build(self, ctx: AttackContext) -> AttackOutput:
        refs = ctx.require_references(self.name)
        n = len(ctx.sources)
        if n < 2:
            raise ConfigError(f"attack {self.name!r} needs at least 2 sentences")
        perm = _derangement(n, ctx.rng(self.name))
        tokens = [refs[perm[i]].reference(refs.annotators[0] if refs.annotators else 0)
                  for i in range(n)]
        return self.output(ctx, tokens, None, {"permutation_first": perm[:5]})


class ShuffledReference(Attack):
    name = "shuffled-reference"
    description = "the reference's words in a random order (final punctuation kept)"
    source = "word-order scrambling, a standard adversarial probe of MT and GEC metrics"
    games = ("bag-of-words and low-order n-gram metrics (unigram overlap of GLEU/GREEN, "
             "embedding similarity of PT-ERRANT's BERTScore weights); a fluency-aware metric "
             "should reject it")
    needs_references = True

    def build(self, ctx: AttackContext) -> AttackOutput:
        refs = ctx.require_references(self.name)
        rng = ctx.rng(self.name)
        ann = refs.annotators[0] if refs.annotators else 0
        out = []
        for s in refs:
            body, end = _final_punct(s.reference(ann))
            words = list(body)
            rng.shuffle(words)
            out.append((*words, *end))
        return self.output(ctx, out)


class TruncatedReference(Attack):
    name = "truncated-reference"
    description = "the first half of the reference (rounded up), final punctuation kept"
    source = ("length gaming: perplexity and grammaticality scores favour short outputs "
              "(Scribendi's perplexity ratio, SOME's heads); deletions are also cheap under "
              "precision-weighted F when they match")
    games = ("reference-free metrics that reward low perplexity or 'no error found' in short "
             "text; reference-based metrics should punish the deleted content (recall)")
    needs_references = True

    def build(self, ctx: AttackContext) -> AttackOutput:
        refs = ctx.require_references(self.name)
        ann = refs.annotators[0] if refs.annotators else 0
        out = []
        for s in refs:
            body, end = _final_punct(s.reference(ann))
            out.append((*body[:(len(body) + 1) // 2], *end))
        return self.output(ctx, out)


CHATTER_PREFIX: Tokens = ("Here", "is", "the", "corrected", "sentence", ":")
CHATTER_SUFFIX: Tokens = ("I", "hope", "this", "helps", "!")


class ChatterPrefix(Attack):
    name = "chatter-prefix"
    description = ("the best system's output with an LLM preamble before it "
                   f"({' '.join(CHATTER_PREFIX)!r})")
    source = ("chatty LLM corrections (instruction-tuned models wrap the answer; Coyne et al. "
              "2023, Kobayashi et al. 2024's GPT-3.5 outputs needed clean-up); Goto et al. "
              "2025's LLM-S attack is an injected instruction in the same place")
    chatter: ClassVar[Tokens] = CHATTER_PREFIX
    games = ("metrics that ignore text outside the aligned correction, and LLM judges that "
             "read the chatter as part of the answer; edit-based metrics see one insertion "
             "per sentence (a false positive), n-gram metrics a few extra n-grams")

    def build(self, ctx: AttackContext) -> AttackOutput:
        best = ctx.systems[ctx.best]
        return self.output(ctx, [(*self.chatter, *t) for t in best.tokens], None,
                           {"best_system": ctx.best, "chatter": " ".join(self.chatter)})


class ChatterSuffix(ChatterPrefix):
    name = "chatter-suffix"
    description = ("the best system's output with LLM chatter after it "
                   f"({' '.join(CHATTER_SUFFIX)!r})")
    chatter = CHATTER_SUFFIX

    def build(self, ctx: AttackContext) -> AttackOutput:
        best = ctx.systems[ctx.best]
        return self.output(ctx, [(*t, *self.chatter) for t in best.tokens], None,
                           {"best_system": ctx.best, "chatter": " ".join(self.chatter)})


# --------------------------------------------------------------------- registry

ATTACKS: dict[str, str] = {
    "copy-source": f"{__name__}:CopySource",
    "precise-types": f"{__name__}:PreciseTypes",
    "union": f"{__name__}:Union",
    "other-reference": f"{__name__}:OtherReference",
    "shuffled-reference": f"{__name__}:ShuffledReference",
    "truncated-reference": f"{__name__}:TruncatedReference",
    "chatter-prefix": f"{__name__}:ChatterPrefix",
    "chatter-suffix": f"{__name__}:ChatterSuffix",
}
"""Attack names mapped to ``"module:Class"``, imported on first use (like the metrics')."""


def register_attack(name: str, target: str) -> None:
    """Register an attack class under ``name``; ``target`` is ``"module:Class"``."""
    if ":" not in target:
        raise ConfigError(f"register_attack: target must be 'module:Class', got {target!r}")
    ATTACKS[name] = target


def list_attacks() -> list[str]:
    return list(ATTACKS)


def get_attack(name: str) -> type[Attack]:
    """The attack class registered as ``name``, or named by ``module:Class``."""
    target = name if ":" in name else ATTACKS.get(name)
    if target is None:
        raise ConfigError(f"unknown attack {name!r}; available: {', '.join(ATTACKS)} (or "
                          "module:Class of an Attack subclass)")
    module, _, cls_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module), cls_name)
    except (ImportError, AttributeError):
        raise ConfigError(f"cannot import attack class {target!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, Attack)):
        raise ConfigError(f"{target!r} is not a subclass of gecscope.meta_eval.attacks.Attack")
    return cls


def build_attacks(ctx: AttackContext, names: Sequence[str]
                  ) -> tuple[list[AttackOutput], dict[str, str]]:
    """The attack systems of ``names``, and the attacks skipped with the reason (one that
    needs references when there are none). What a (user's) attack builds is checked: an
    :class:`AttackOutput` (else a :class:`~gecscope.errors.ConfigError`) of one sentence per
    source sentence (else a :class:`~gecscope.errors.LengthMismatchError` naming it)."""
    out: list[AttackOutput] = []
    skipped: dict[str, str] = {}
    for name in dict.fromkeys(names):
        cls = get_attack(name)
        if cls.needs_references and ctx.references is None:
            skipped[name] = "needs the references (give --m2)"
            continue
        built = cls().build(ctx)
        if not isinstance(built, AttackOutput):
            raise ConfigError(f"attack {name!r}: build() returned {type(built).__name__}, "
                              "expected an AttackOutput (make it with self.output(ctx, "
                              "tokens))")
        if len(built.hypothesis) != len(ctx.sources):
            raise LengthMismatchError(len(ctx.sources), len(built.hypothesis),
                                      f"attack {name!r} ({built.name})", "sentences",
                                      "the test set's sources")
        out.append(built)
    return out, skipped


# --------------------------------------------------------------------- published attacks

PAPER_NAMES = {"some": "Attack-SOME", "scribendi": "Attack-Scribendi",
               "impara": "Attack-IMPARA", "llmsent": "Attack-LLM"}
"""Goto et al. (2025)'s names of their attack outputs (``conll14-<id>.txt``)."""


def read_attack_dir(directory: str | Path, sentences: Sequence[int], total: int,
                    pattern: str = "*.txt") -> list[AttackOutput]:
    """Attack outputs a user fetched (e.g. gotutiyan/attack-gec-metrics'
    ``experiments/attack_results``, ``pattern="conll14-*.txt"``), read as systems.

    Every file matching ``pattern`` must be UTF-8 text with one sentence per line: ``total``
    lines (the whole test set, of which the rows ``sentences`` are taken) or
    ``len(sentences)`` lines (the rows themselves). Anything else is a
    :class:`~gecscope.errors.FormatError` naming the file (and the line, for bad text)."""
    root = Path(directory)
    if not root.is_dir():
        raise FormatError("attack directory not found; expected a folder of attack outputs "
                          "(one sentence per line)", root)
    files = sorted(p for p in root.glob(pattern) if p.is_file())
    if not files:
        raise FormatError(f"no attack output matches {pattern!r} in this folder", root)
    out = []
    for path in files:
        hyp = _read_attack_file(path, sentences, total)
        stem = path.stem
        tail = stem.split("-")[-1].lower()
        label = PAPER_NAMES.get(tail, stem)
        name = f"{PREFIX}{label}"
        out.append(AttackOutput(name, "published", hyp.renamed(name),
                                f"published attack output {path.name}",
                                notes={"file": str(path)}))
    return out


def _read_attack_file(path: Path, sentences: Sequence[int], total: int) -> Hypothesis:
    from gecscope.formats.base import read_text, split_lines
    from gecscope.formats.plain import split_tokens

    text = read_text(path)  # UTF-8 or a FormatError naming the file, line and byte
    if not text.strip():
        raise FormatError("attack output is empty; expected one sentence per line", path)
    n = len(split_lines(text))
    if n not in (total, len(sentences)):
        want = (f"{total} lines (the whole test set)" if total == len(sentences) else
                f"{total} lines (the whole test set) or {len(sentences)} (its judged rows)")
        if n < total:
            raise FormatError(f"has {n} lines, expected {want}; it stops at line {n}: "
                              "truncated, or the output of another test set?", path, n)
        raise FormatError(f"has {n} lines, more than the {want} expected: the output of "
                          "another test set, or lines added?", path, total + 1)
    toks = split_tokens(text, path)
    if n == total and total != len(sentences):
        toks = [toks[i] for i in sentences]
    return Hypothesis(path.stem, toks, path=str(path))

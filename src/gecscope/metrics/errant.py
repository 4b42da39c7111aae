"""ERRANT scoring, reproducing ``errant_compare`` 3.0.2 (Bryant et al. 2017).

Edits are compared as keys: span and correction (span-based correction, the default), span,
type and correction (``cse``), span only (``ds``) or single tokens (``dt``). For each sentence
every (hypothesis annotator, reference annotator) pair is a candidate; the corpus score picks,
sentence by sentence in order, the candidate that maximises the F of the *cumulative* counts,
ties going to more TP, then fewer FP, then fewer FN. ``errant_compare`` rounds P, R and F to
4 decimals before comparing; ``selection_rounding=4`` (the default) does the same so the
chosen references, and hence the counts, are identical to errant 3.0.2's.

Known bug of errant_compare (and of ChERRANT's ``compare_m2_for_evaluation.py``, which
copies it), reproduced by default: every edit that shares a comparison key counts separately,
so a reference with the same edit twice turns one matching hypothesis edit into two TP (errant
issue #49), an edit shared by two alternative alignments of a ChERRANT target counts twice,
and in token-based detection a token touched by two reference edits counts twice.
``fix_duplicate_edits=True`` counts each key once (a token is detected or not): MuCGEC dev
0.3610 instead of ChERRANT's 0.3622; the two agree on span-based correction for all 13
CoNLL-2014 systems. ``duplicate_ref_edits`` (``once``/``errant``) is its former spelling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.candidates import CandidateCounts, CountSpec
from gecscope.types import NOOP_TYPE, UNK_TYPE, Edit, Sentence

MODES = ("cs", "cse", "ds", "dt")
MODE_TITLES = {
    "cs": "Span-Based Correction",
    "cse": "Span-Based Correction + Classification",
    "ds": "Span-Based Detection",
    "dt": "Token-Based Detection",
}

Key = tuple[Any, ...]
CatCounts = dict[str, list[int]]


@dataclass(frozen=True, slots=True)
class Candidate:
    """Counts of one (hypothesis annotator, reference annotator) pairing of a sentence."""

    hyp: int
    ref: int
    tp: int
    fp: int
    fn: int
    cats: tuple[tuple[str, int, int, int], ...]

    @property
    def counts(self) -> tuple[int, int, int]:
        return (self.tp, self.fp, self.fn)


@dataclass(frozen=True, slots=True)
class SentenceStats:
    """All candidate pairings of one sentence, in errant_compare's iteration order."""

    candidates: tuple[Candidate, ...]


def edit_keys(edits: Sequence[Edit], mode: str, *, single: bool = False, multi: bool = False,
              filt: frozenset[str] = frozenset()) -> dict[Key, list[str]]:
    """Map each edit's comparison key to the list of its error types (errant's coder dict)."""
    out: dict[Key, list[str]] = {}
    detection = mode in ("ds", "dt")
    for e in edits:
        cat = e.type
        if not detection and cat == UNK_TYPE:
            continue
        n_cor = len(e.correction)
        if single and (e.end - e.start >= 2 or n_cor >= 2):
            continue
        if multi and e.end - e.start < 2 and n_cor < 2:
            continue
        if filt and cat in filt:
            continue
        if mode == "dt":
            if e.start == e.end:
                keys: list[Key] = [(e.start, e.start + 1)]
            else:
                keys = [(t, t + 1) for t in range(e.start, e.end)]
        elif mode == "ds":
            keys = [(e.start, e.end)]
        elif mode == "cse":
            keys = [(e.start, e.end, cat, e.corrections)]
        else:
            keys = [(e.start, e.end, e.corrections)]
        for k in keys:
            out.setdefault(k, []).append(cat)
    return out


def _coders(sentence: Sentence, mode: str, single: bool, multi: bool,
            filt: frozenset[str]) -> list[tuple[int, dict[Key, list[str]]]]:
    """Annotators of a sentence with their key dicts; a sentence with no annotation at all is
    annotator 0 with no edits, as in errant_compare."""
    if not sentence.annotations:
        return [(0, {})]
    return [(a.annotator, edit_keys([e for e in a.all_edits if e.type != NOOP_TYPE], mode,
                                    single=single, multi=multi, filt=filt))
            for a in sentence.annotations if not a.not_annotatable]


def compare(hyp: dict[Key, list[str]], ref: dict[Key, list[str]],
            errant_duplicates: bool = False) -> tuple[int, int, int, CatCounts]:
    """TP, FP, FN and per-type counts of one hypothesis coder against one reference coder."""
    tp = fp = fn = 0
    cats: CatCounts = {}
    for key, h_cats in hyp.items():
        r_cats = ref.get(key)
        if r_cats is not None:
            for cat in (r_cats if errant_duplicates else r_cats[:1]):
                tp += 1
                cats.setdefault(cat, [0, 0, 0])[0] += 1
        else:
            for cat in (h_cats if errant_duplicates else h_cats[:1]):
                fp += 1
                cats.setdefault(cat, [0, 0, 0])[1] += 1
    for key, r_cats in ref.items():
        if key not in hyp:
            for cat in (r_cats if errant_duplicates else r_cats[:1]):
                fn += 1
                cats.setdefault(cat, [0, 0, 0])[2] += 1
    return tp, fp, fn, cats


def category_table(cats: Mapping[str, Sequence[int]], level: int) -> dict[str, list[int]]:
    """Per-type counts at ERRANT's level 1 (operation), 2 (main type) or 3 (full type).

    A type that is not ERRANT's ``OP:TYPE`` (``UNK``, NUCLE's ``Nn``, an empty type) is kept
    whole at every level: errant_compare cuts it like an ERRANT type, which turns ``Nn`` into
    ``N`` at level 1 and an empty name at level 2."""
    out: dict[str, list[int]] = {}
    for cat, cnt in cats.items():
        if level == 3:
            out[cat or "(untyped)"] = list(cnt)
            continue
        errant_like = len(cat) > 2 and cat[0] in "MRU" and cat[1] == ":"
        name = cat if not errant_like else (cat[0] if level == 1 else cat[2:])
        name = name or "(untyped)"
        acc = out.setdefault(name, [0, 0, 0])
        for i in range(3):
            acc[i] += cnt[i]
    return out


class ErrantMetric(Metric[SentenceStats]):
    """ERRANT span-based correction/detection F-score with errant_compare's reference choice."""

    name = "errant"
    sentence_ranges = True
    description = "ERRANT edit F-score (errant_compare 3.0.2)"
    requires = frozenset({"m2", "hypothesis-edits"})
    official = "errant_compare 3.0.2 and ChERRANT's compare_m2_for_evaluation.py"
    fixes: ClassVar[Mapping[str, str]] = {
        "fix_duplicate_edits": "an edit listed twice by a reference, or by two alternative "
                               "alignments, counts once, not twice"}
    former_options = frozenset({"duplicate_ref_edits"})

    @dataclass(frozen=True)
    class Config:
        beta: float = 0.5
        mode: str = "cs"
        selection_rounding: int | None = 4
        fix_duplicate_edits: bool = False
        single: bool = False
        multi: bool = False
        filt: tuple[str, ...] = ()
        #: former spelling of ``fix_duplicate_edits``: ``once`` = true, ``errant`` = false
        duplicate_ref_edits: str | None = None

        def __post_init__(self) -> None:
            if self.duplicate_ref_edits is not None:
                if self.duplicate_ref_edits not in ("once", "errant"):
                    raise ConfigError("errant: duplicate_ref_edits (now fix_duplicate_edits) "
                                      "must be 'once' or 'errant'")
                object.__setattr__(self, "fix_duplicate_edits",
                                   self.duplicate_ref_edits == "once")
                object.__setattr__(self, "duplicate_ref_edits", None)
            if self.mode not in MODES:
                raise ConfigError(f"errant: mode must be one of {', '.join(MODES)}, "
                                  f"not {self.mode!r}")
            if self.beta <= 0:
                raise ConfigError(f"errant: beta must be positive, not {self.beta}")
            if self.single and self.multi:
                raise ConfigError("errant: single and multi exclude each other")

    def signature_extras(self) -> dict[str, str]:
        """Versions behind edits extracted from text hypotheses (M2 input uses none)."""
        from gecscope._versions import ERRANT_PACKAGES, package_versions

        return package_versions(*ERRANT_PACKAGES)

    def spec(self) -> CountSpec:
        """errant_compare's choice: F of the running totals plus the candidate (rounded to
        ``selection_rounding``), then more TP, fewer FP, fewer FN (the candidate's own)."""
        return CountSpec("errant", float(self.config.beta), self.config.selection_rounding)

    def resampling(self) -> CandidateCounts:
        return self.spec().resampling(lambda stats: [s.candidates for s in stats])

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[SentenceStats]:
        ref = data.reference_edits()
        hyp_m2 = data.hypothesis_m2(hyp)
        c = self.config
        filt = frozenset(c.filt)
        dup = not c.fix_duplicate_edits
        out: list[SentenceStats] = []
        for h_sent, r_sent in zip(hyp_m2, ref, strict=True):
            if r_sent.annotations and all(a.not_annotatable for a in r_sent.annotations):
                # ChERRANT's NA (无法标注): nobody could correct it; it counts nothing
                out.append(SentenceStats((Candidate(0, 0, 0, 0, 0, ()),)))
                continue
            h_coders = _coders(h_sent, c.mode, c.single, c.multi, filt)
            r_coders = _coders(r_sent, c.mode, c.single, c.multi, filt)
            cands = []
            for h_id, h_keys in h_coders:
                for r_id, r_keys in r_coders:
                    tp, fp, fn, cats = compare(h_keys, r_keys, dup)
                    cands.append(Candidate(h_id, r_id, tp, fp, fn, tuple(
                        (k, v[0], v[1], v[2]) for k, v in cats.items())))
            out.append(SentenceStats(tuple(cands)))
        return out

    def official_score(self, data: EvalData, hyp: Hypothesis,
                       stats: Sequence[SentenceStats]) -> Score | None:
        """errant_compare's score: the candidates counted again without the fix (the edits
        are at hand, so this is cheap)."""
        official = self.without_fixes()
        return official.aggregate(official.sentence_stats(data, hyp))

    def select(self, stats: Sequence[SentenceStats]) -> list[Candidate]:
        """The candidate errant_compare picks for each sentence, in corpus order."""
        cands = [s.candidates for s in stats]
        chosen = self.spec().select(cands)
        # every sentence has at least one candidate (sentence_stats guarantees it)
        return [c[i] for c, i in zip(cands, chosen, strict=True) if i is not None]

    def aggregate(self, stats: Sequence[SentenceStats]) -> Score:
        spec = self.spec()
        chosen = self.select(stats)
        fields = spec.fields(spec.total(chosen))
        cats: CatCounts = {}
        for c in chosen:
            for name, ctp, cfp, cfn in c.cats:
                acc = cats.setdefault(name, [0, 0, 0])
                acc[0] += ctp
                acc[1] += cfp
                acc[2] += cfn
        return Score(self.name, fields[spec.fname], fields, main=spec.fname,
                     title=MODE_TITLES[self.config.mode], categories=cats,
                     display=tuple(fields))  # every column is a main one (TP ... F)

    def sentence_values(self, stats: Sequence[SentenceStats]) -> list[float]:
        """Sentence F_beta with the best reference for that sentence alone (unrounded)."""
        spec = self.spec()
        cands = [s.candidates for s in stats]
        out = []
        for c, i in zip(cands, spec.best(cands), strict=True):
            best = c[i] if i is not None else Candidate(0, 0, 0, 0, 0, ())
            out.append(spec.prf(best.counts)[2])
        return out

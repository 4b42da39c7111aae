"""GoToScorer: edit F-score with every chunk weighted by how hard it is to correct.

Gotou, Nagata, Mita & Hanawa (2020), *Taking the Correction Difficulty into Account in
Grammatical Error Correction Evaluation*, COLING. The source is cut into chunks: each
reference edit is one chunk, each source token outside the edits is one chunk, and an empty
insertion slot stands between chunks wherever no insertion edit already does (and at both
ends). The hypothesis is cut the same way by its own edits. Every reference chunk is then
judged against the hypothesis chunks: *correct* when the hypothesis has a chunk with the same
span and the same text (an insertion slot the hypothesis has no chunk for, because one of its
edits covers it, also counts as correct); *tried* when that chunk, or failing an exact span
any overlapping one, is a hypothesis edit. Tried and correct is TP, tried and wrong FP (and FN
too when the reference chunk is an edit), left alone and correct TN, left alone and wrong FN.
Each count adds the chunk's weight: 1 without weights, else its difficulty, 1 minus the share
of a set of systems that got the chunk right (:func:`compute_weights`). The corpus score is
F_beta (beta = 0.5) of the summed weighted counts; accuracy = (TP + TN) / all is a column.
Only one reference is used (``ref_id``); its edits, like the hypothesis', are ERRANT's edits
of the corrected text (an M2 reference is re-annotated from its corrected sentences).

Numbers reproduce gec-metrics 0.1.1's ``GoToScorer`` (scores, sentence scores) and
``gecmetrics-gen-gotoscorer-weight`` (weight files), bugs included by default; see
docs/gotoscorer.md. gec-metrics' weight generator checks a chunk's correction but compares
the reference chunk's span with itself, so a system "corrects" a chunk when any of its chunks
anywhere in the sentence has the same text (every unchanged insertion slot thus weighs 0).
``fix_weight_positions=True`` judges a chunk right exactly as the scorer does (same span, same
text); ``compat`` is the former spelling (``compat=False`` was that fix, then the default).
Standard library only.
"""

from __future__ import annotations

import glob
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError, OutputError
from gecscope.gate.consistency import check_hypothesis
from gecscope.metrics.base import Metric, Score
from gecscope.metrics.candidates import CandidateCounts, CountSpec
from gecscope.stats.prf import prf
from gecscope.types import NOOP_TYPE, UNK_TYPE, Edit

__all__ = ["SCORED", "Chunk", "GoToScorerMetric", "GoToStats", "Weights", "chunks",
           "compute_weights", "hypothesis_chunks", "judge", "reference_chunks",
           "resolve_system_files", "weights_from_chunks"]

#: ``weight_systems`` value meaning "the systems scored in this run" (see :meth:`prepare_systems`)
SCORED = "@scored"
SLOT_TYPE = "DUMMY:DUMMY"  # gec-metrics' type of unchanged tokens and empty insertion slots


class Chunk(NamedTuple):
    """A source span ``[start, end)`` and its text after correction; ``edited``: the chunk is
    an edit (else an unchanged token or an empty insertion slot)."""

    start: int
    end: int
    text: str
    type: str = SLOT_TYPE
    edited: bool = False


def chunks(source: Sequence[str], edits: Sequence[Edit]) -> list[Chunk]:
    """The chunk sequence of ``source`` under ``edits`` (sorted, non-overlapping ERRANT edits;
    ``noop`` and ``UNK`` edits are ignored, as are edits overlapping an earlier one)."""
    todo = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.type in (NOOP_TYPE, UNK_TYPE) or e.start < pos or e.end > len(source):
            continue
        todo.append(e)
        pos = e.end
    base: list[Chunk] = []
    k = 0
    i = 0
    n = len(source)
    while i < n:
        if k < len(todo) and todo[k].start == i:
            e = todo[k]
            base.append(Chunk(e.start, e.end, " ".join(e.correction), e.type, True))
            k += 1
            i = e.end  # an insertion leaves i where it is: the token (or an edit) follows
        else:
            base.append(Chunk(i, i + 1, source[i]))
            i += 1
    for e in todo[k:]:  # an insertion after the last token
        base.append(Chunk(e.start, e.end, " ".join(e.correction), e.type, True))
    out: list[Chunk] = []
    after_slot = False
    for c in base:
        if c.start == c.end:
            out.append(c)
            after_slot = True
            continue
        if not after_slot:
            out.append(Chunk(c.start, c.start, ""))
        out.append(c)
        after_slot = False
    if not after_slot:
        end = base[-1].end if base else 0
        out.append(Chunk(end, end, ""))
    return out


def judge(ref: Chunk, hyp: Sequence[Chunk]) -> tuple[bool, bool]:
    """(correct, tried) of reference chunk ``ref`` against a hypothesis' chunks.

    The hypothesis chunk with the same span decides both: correct when its text is the same,
    tried when it is an edit. Without one, an insertion slot is correct and untried (an edit
    of the hypothesis spans it), and any other chunk is wrong, tried when an overlapping
    hypothesis chunk is an edit."""
    insertion = ref.start == ref.end
    tried = False
    for h in hyp:
        if h.start == ref.start and h.end == ref.end:
            return h.text == ref.text, h.edited
        if not insertion and (ref.start <= h.start < ref.end or h.start <= ref.start < h.end):
            tried = tried or h.edited
    return insertion and bool(hyp), tried


def judge_compat(ref: Chunk, hyp: Sequence[Chunk]) -> bool:
    """gec-metrics 0.1.1's weight generator: right when any hypothesis chunk, wherever it
    is, has the reference chunk's text."""
    return any(h.text == ref.text for h in hyp)


# --------------------------------------------------------------------------- weights


@dataclass(frozen=True)
class Weights:
    """Difficulty weights: per sentence, one weight per reference chunk.

    ``evaluations[sentence][chunk][system]`` is 1 when that system got the chunk right (as
    written by gec-metrics' ``gecmetrics-gen-gotoscorer-weight``); ``systems`` names them and
    ``origin`` says where the weights came from (neither is in the file, nor compared)."""

    weights: tuple[tuple[float, ...], ...]
    evaluations: tuple[tuple[tuple[int, ...], ...], ...] | None = None
    systems: tuple[str, ...] = field(default=(), compare=False)
    origin: str = field(default="", compare=False)

    def __len__(self) -> int:
        return len(self.weights)

    def to_json(self) -> list[dict[str, Any]]:
        """The JSON value gec-metrics' weight files hold: one ``{"evaluations", "weights"}``
        object per sentence."""
        out = []
        for i, w in enumerate(self.weights):
            ev = self.evaluations[i] if self.evaluations is not None else ()
            out.append({"evaluations": [list(e) for e in ev], "weights": list(w)})
        return out

    def dumps(self) -> str:
        """The JSON text, laid out as gec-metrics writes it (two-space indent)."""
        return json.dumps(self.to_json(), indent=2)

    def digest(self) -> str:
        """A short content digest of the weights (for signatures)."""
        return hashlib.sha256(json.dumps([list(w) for w in self.weights]).encode()
                              ).hexdigest()[:12]

    def write(self, path: str | Path) -> None:
        """Write a weight file gec-metrics' ``GoToScorer(weight_file=...)`` can read too."""
        try:
            Path(path).write_text(self.dumps(), encoding="utf-8")
        except OSError as exc:
            raise OutputError(exc.strerror or str(exc), path) from None

    @classmethod
    def read(cls, path: str | Path) -> Weights:
        """Read a weight file (gec-metrics' format: a list with one object per sentence whose
        ``weights`` lists a number per reference chunk; ``evaluations`` is optional)."""
        p = Path(path)
        try:
            value = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"gotoscorer: weight file {p} does not exist (write one with "
                              "gecscope.metrics.gotoscorer.compute_weights(...).write(path) or "
                              "gecmetrics-gen-gotoscorer-weight)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise FormatError(f"cannot read the weight file: {exc}", p) from None
        except json.JSONDecodeError as exc:
            raise FormatError(f"not JSON: {exc.msg}", p, exc.lineno) from None
        if not isinstance(value, list):
            raise FormatError("a weight file holds a JSON list with one object per sentence", p)
        weights: list[tuple[float, ...]] = []
        evaluations: list[tuple[tuple[int, ...], ...]] = []
        for i, item in enumerate(value):
            w = item.get("weights") if isinstance(item, dict) else None
            if not isinstance(w, list) or not all(
                    isinstance(x, int | float) and not isinstance(x, bool) for x in w):
                raise FormatError(f"sentence {i + 1}: expected an object with \"weights\", a "
                                  "list of numbers (one per reference chunk)", p)
            weights.append(tuple(float(x) for x in w))
            ev = item.get("evaluations")
            if isinstance(ev, list) and len(ev) == len(w) and all(
                    isinstance(e, list) for e in ev):
                evaluations.append(tuple(tuple(int(x) for x in e) for e in ev))
        return cls(tuple(weights),
                   tuple(evaluations) if len(evaluations) == len(weights) else None,
                   (), f"file:{p.name}")


def reference_chunks(data: EvalData, ref_id: int = 0) -> list[list[Chunk]]:
    """The chunks of reference ``ref_id`` for every sentence, from ERRANT's edits of its
    corrected text: the annotated plain-text references as they are, an M2 reference's
    corrected sentences annotated anew (as gec-metrics sees the M2, through its text)."""
    refs = data.references
    if not 0 <= ref_id < len(refs):
        raise ConfigError(f"gotoscorer: ref_id={ref_id} but there are {len(refs)} "
                          f"reference(s) (ref_id counts from 0)")
    if data.m2 is None:
        corpus = data.reference_edits()
        annotator = ref_id
    else:
        corpus = data.hypothesis_m2(Hypothesis(f"<reference {ref_id}>", refs[ref_id]))
        annotator = 0
    return [chunks(src, s.edits(annotator)) for src, s in zip(data.sources, corpus,
                                                                strict=True)]


def hypothesis_chunks(data: EvalData, hyp: Hypothesis) -> list[list[Chunk]]:
    """The chunks of a system output for every sentence, from its (ERRANT) edits."""
    corpus = data.hypothesis_m2(hyp)
    annotator = corpus.system_annotator
    return [chunks(src, s.edits(annotator)) for src, s in zip(data.sources, corpus,
                                                                strict=True)]


def weights_from_chunks(ref: Sequence[Sequence[Chunk]],
                        systems: Sequence[Sequence[Sequence[Chunk]]], *,
                        compat: bool = False) -> tuple[list[list[float]], list[list[list[int]]]]:
    """Weights and evaluations from reference chunks ``ref[sentence]`` and system chunks
    ``systems[system][sentence]``: a chunk weighs 1 - (systems right) / (systems)."""
    if not systems:
        raise ConfigError("gotoscorer: difficulty weights need at least one system output")
    weights: list[list[float]] = []
    evaluations: list[list[list[int]]] = []
    for i, r_chunks in enumerate(ref):
        ev: list[list[int]] = [[] for _ in r_chunks]
        for sys_chunks in systems:
            h = sys_chunks[i]
            for j, r in enumerate(r_chunks):
                right = judge_compat(r, h) if compat else judge(r, h)[0]
                ev[j].append(int(right))
        evaluations.append(ev)
        weights.append([1 - sum(e) / len(e) for e in ev])
    return weights, evaluations


def compute_weights(data: EvalData, systems: Sequence[Hypothesis], ref_id: int = 0, *,
                    fix_weight_positions: bool = False, compat: bool | None = None) -> Weights:
    """Difficulty weights of the chunks of reference ``ref_id`` from a set of system outputs:
    1 minus the share of the systems that got each chunk right, judged as gec-metrics 0.1.1's
    ``gecmetrics-gen-gotoscorer-weight`` does (text only, any position), or with
    ``fix_weight_positions=True`` as the scorer judges (same span, same text). ``compat``: the
    former spelling (true = the default, false = the fix)."""
    if compat is not None:
        fix_weight_positions = not compat
    if not systems:
        raise ConfigError("gotoscorer: difficulty weights need at least one system output")
    for h in systems:
        check_hypothesis(data, h)
    ref = reference_chunks(data, ref_id)
    sys_chunks = [hypothesis_chunks(data, h) for h in systems]
    w, ev = weights_from_chunks(ref, sys_chunks, compat=not fix_weight_positions)
    names = tuple(h.name for h in systems)
    return Weights(tuple(tuple(x) for x in w), tuple(tuple(tuple(e) for e in s) for s in ev),
                   names, f"systems:{len(names)}")


def resolve_system_files(patterns: Sequence[str]) -> list[Path]:
    """Files named by ``patterns`` (paths or glob patterns, each expanded in sorted order),
    without repeats; a pattern that names nothing is an error."""
    out: list[Path] = []
    for pat in patterns:
        if any(ch in pat for ch in "*?["):
            found = sorted(Path(p) for p in glob.glob(pat) if Path(p).is_file())
            if not found:
                raise ConfigError(f"gotoscorer: weight_systems pattern {pat!r} matches no file")
        else:
            if not Path(pat).is_file():
                raise ConfigError(f"gotoscorer: weight_systems file {pat!r} does not exist")
            found = [Path(pat)]
        out.extend(p for p in found if p not in out)
    return out


# --------------------------------------------------------------------------- the metric


@dataclass(frozen=True, slots=True)
class GoToStats:
    """Weighted TP, FP, FN, TN of one sentence (against reference ``ref_id``)."""

    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def counts(self) -> tuple[float, float, float, float]:
        return (self.tp, self.fp, self.fn, self.tn)


def sentence_counts(ref: Sequence[Chunk], hyp: Sequence[Chunk],
                    weights: Sequence[float] | None) -> GoToStats:
    """The weighted counts of one sentence. Sums run per error type of the reference chunks,
    then over the types in order of first appearance (so the floats equal gec-metrics')."""
    by_type: dict[str, list[float]] = {}
    for j, r in enumerate(ref):
        w = 1.0 if weights is None else weights[j]
        right, tried = judge(r, hyp)
        acc = by_type.setdefault(r.type, [0.0, 0.0, 0.0, 0.0])
        if tried:
            if right:
                acc[0] += w
            else:
                acc[1] += w
                if r.edited:
                    acc[2] += w
        elif right:
            acc[3] += w
        else:
            acc[2] += w
    tp = fp = fn = tn = 0.0
    for a in by_type.values():
        tp += a[0]
        fp += a[1]
        fn += a[2]
        tn += a[3]
    return GoToStats(tp, fp, fn, tn)


def _reference_key(data: EvalData, ref_id: int) -> str:
    """A digest of the sources and reference ``ref_id``: weights belong to these."""
    h = hashlib.sha256(str(ref_id).encode())
    refs = data.references
    for src, ref in zip(data.sources, refs[ref_id] if ref_id < len(refs) else (), strict=False):
        h.update("\x1f".join(src).encode("utf-8", "surrogatepass") + b"\x1e")
        h.update("\x1f".join(ref).encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()


class GoToScorerMetric(Metric[GoToStats]):
    """GoToScorer: difficulty-weighted chunk F_beta (Gotou et al. 2020; gec-metrics 0.1.1)."""

    name = "gotoscorer"
    sentence_ranges = True
    description = "GoToScorer difficulty-weighted chunk F-score (Gotou et al. 2020; gec-metrics " \
                  "0.1.1)"
    requires = frozenset({"references", "hypothesis-edits"})
    official = "gec-metrics 0.1.1's GoToScorer and gecmetrics-gen-gotoscorer-weight"
    fixes: ClassVar[Mapping[str, str]] = {
        "fix_weight_positions": "weights from systems judge a chunk right only at its own span"}
    former_options: ClassVar[frozenset[str]] = frozenset({"compat"})

    @dataclass(frozen=True)
    class Config:
        """``beta``: the F-beta weight; ``ref_id``: the one reference used (from 0);
        ``weight_file``: difficulty weights from a JSON file (gec-metrics' format);
        ``weight_systems``: compute them from these system outputs (files or glob patterns,
        comma-separated on the command line; ``@scored``, Python API: the systems given to
        :meth:`prepare_systems`); ``fix_weight_positions``: when computing them, judge a chunk
        right only at its own span (default: as gec-metrics 0.1.1's weight generator, at any
        position; ``compat`` is the former spelling, true = the default). Giving weights turns weighting on; without them every chunk weighs 1
        (what gec-metrics computes by default, ``no_weight=True``)."""

        beta: float = 0.5
        ref_id: int = 0
        weight_file: str = ""
        weight_systems: tuple[str, ...] = ()
        fix_weight_positions: bool = False
        compat: bool | None = None

        def __post_init__(self) -> None:
            if self.compat is not None:  # the former spelling; false was the fix
                object.__setattr__(self, "fix_weight_positions",
                                   not self.compat and bool(self.weight_systems))
                object.__setattr__(self, "compat", None)
            if isinstance(self.weight_systems, str):  # "a.txt,b.txt" from Python
                object.__setattr__(self, "weight_systems", tuple(
                    s for s in self.weight_systems.split(",") if s))
            else:
                object.__setattr__(self, "weight_systems", tuple(self.weight_systems))
            if not self.beta > 0:
                raise ConfigError(f"gotoscorer: beta must be positive, not {self.beta!r}")
            if isinstance(self.ref_id, bool) or not isinstance(self.ref_id, int) \
                    or self.ref_id < 0:
                raise ConfigError(f"gotoscorer: ref_id must be a reference number from 0, not "
                                  f"{self.ref_id!r}")
            if self.weight_file and self.weight_systems:
                raise ConfigError("gotoscorer: give the weights either as weight_file or as "
                                  "weight_systems, not both")
            if any(not isinstance(s, str) or not s.strip() for s in self.weight_systems):
                raise ConfigError("gotoscorer: weight_systems lists file names or glob patterns")
            if SCORED in self.weight_systems and len(self.weight_systems) > 1:
                raise ConfigError(f"gotoscorer: weight_systems={SCORED} stands alone (the "
                                  "systems scored in this run)")
            if self.fix_weight_positions and not self.weight_systems:
                raise ConfigError("gotoscorer: fix_weight_positions changes how weights are "
                                  "computed from weight_systems; without weight_systems it "
                                  "does nothing")

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        c = self.config
        self._files: list[Path] = ([] if SCORED in c.weight_systems
                                   else resolve_system_files(c.weight_systems))
        if c.weight_file and not Path(c.weight_file).is_file():
            raise ConfigError(f"gotoscorer: weight file {c.weight_file!r} does not exist")
        self._file_weights: Weights | None = None
        self._weights: dict[str, Weights] = {}  # by _reference_key
        self._scored: dict[str, tuple[str, ...]] = {}  # @scored: the systems behind them

    @property
    def weighted(self) -> bool:
        """Whether chunks carry difficulty weights (else every chunk weighs 1)."""
        return bool(self.config.weight_file or self.config.weight_systems)

    # -- weights ----------------------------------------------------------------------------

    def prepare_systems(self, data: EvalData, hyps: Sequence[Hypothesis]) -> None:
        """Compute the weights before scoring (once per reference set). With
        ``weight_systems=@scored`` they come from ``hyps``, the systems of the run: call this
        with every system before scoring any of them."""
        if not self.weighted:
            return
        if SCORED not in self.config.weight_systems:
            self.weights(data)
            return
        key = _reference_key(data, self.config.ref_id)
        systems = tuple(h.key for h in hyps)
        if key in self._weights and self._scored.get(key) == systems:
            return
        w = compute_weights(data, list(hyps), self.config.ref_id,
                            fix_weight_positions=self.config.fix_weight_positions)
        self._weights[key] = Weights(w.weights, w.evaluations, w.systems,
                                     f"scored:{len(w.systems)}")
        self._scored[key] = systems

    def weights(self, data: EvalData) -> Weights | None:
        """The weights used against ``data`` (``None`` when unweighted), computed or read on
        first use and checked against the reference's chunks."""
        if not self.weighted:
            return None
        c = self.config
        key = _reference_key(data, c.ref_id)
        if key in self._weights:
            return self._weights[key]
        if c.weight_file:
            if self._file_weights is None:
                self._file_weights = Weights.read(c.weight_file)
            w = self._file_weights
        elif SCORED in c.weight_systems:
            raise ConfigError(f"gotoscorer: weight_systems={SCORED} computes the weights from "
                              "the systems scored together: score them with gecscope.evaluate(), "
                              "or call metric.prepare_systems(data, hypotheses) with all of "
                              "them before scoring any")
        else:
            hyps = [Hypothesis.from_file(p, expected=len(data), lang=data.lang)
                    for p in self._files]
            w = compute_weights(data, hyps, c.ref_id,
                                fix_weight_positions=c.fix_weight_positions)
        self._weights[key] = w
        return w

    def _check_weights(self, w: Weights, ref: Sequence[Sequence[Chunk]]) -> None:
        if len(w) != len(ref):
            raise ConfigError(f"gotoscorer: the weights ({w.origin}) are for {len(w)} sentences, "
                              f"the references have {len(ref)}")
        for i, (ws, rs) in enumerate(zip(w.weights, ref, strict=True)):
            if len(ws) != len(rs):
                raise ConfigError(
                    f"gotoscorer: sentence {i + 1}: the weights ({w.origin}) have {len(ws)} "
                    f"chunks, reference {self.config.ref_id} has {len(rs)}; weights must be "
                    f"computed against the same reference (ref_id) and sources")

    # -- scoring ------------------------------------------------------------------------------

    def signature_extras(self) -> dict[str, str]:
        """ERRANT's versions and where the weights came from."""
        from gecscope._versions import ERRANT_PACKAGES, package_versions

        out = package_versions(*ERRANT_PACKAGES)
        if not self.weighted:
            out["weights"] = "none"
        elif len(self._weights) == 1:
            w = next(iter(self._weights.values()))
            out["weights"] = f"{w.origin}:{w.digest()}"
        else:
            out["weights"] = "file" if self.config.weight_file else "systems"
        return out

    def sentence_stats(self, data: EvalData, hyp: Hypothesis) -> list[GoToStats]:
        ref = reference_chunks(data, self.config.ref_id)
        w = self.weights(data)
        if w is not None:
            self._check_weights(w, ref)
        hyp_chunks = hypothesis_chunks(data, hyp)
        return [sentence_counts(r, h, w.weights[i] if w is not None else None)
                for i, (r, h) in enumerate(zip(ref, hyp_chunks, strict=True))]

    def range_stats(self, data: EvalData, part: EvalData, hyp: Hypothesis,
                    start: int) -> list[GoToStats]:
        """As the whole's: the weights are those of ``data`` (its systems, file or
        ``@scored`` run), cut to the range, so a range never computes weights of its own."""
        w = self.weights(data)
        if w is not None:
            self._check_weights(w, reference_chunks(data, self.config.ref_id))
            stop = start + len(part)
            ev = w.evaluations[start:stop] if w.evaluations is not None else None
            self._weights[_reference_key(part, self.config.ref_id)] = Weights(
                w.weights[start:stop], ev, w.systems, w.origin)
        return self.sentence_stats(part, hyp)

    def aggregate(self, stats: Sequence[GoToStats]) -> Score:
        spec = self.spec()
        fields = spec.fields(spec.total(stats))  # summed in order, as gec-metrics adds them
        fname = spec.fname
        return Score(self.name, fields[fname], fields, main=fname,
                     display=(fname, "P", "R", "Acc"),
                     title="difficulty-weighted" if self.weighted else "unweighted")

    def sentence_values(self, stats: Sequence[GoToStats]) -> list[float]:
        beta = self.config.beta
        return [prf(s.tp, s.fp, s.fn, beta)[2] for s in stats]

    def spec(self) -> CountSpec:
        """One candidate per sentence: its TP, FP, FN and TN, summed; P, R, F and accuracy."""
        return CountSpec("errant", self.config.beta, accuracy=True, zero=(0.0, 0.0, 0.0, 0.0),
                         fields_order=("F", "P", "R", "Acc", "TP", "FP", "FN", "TN"))

    def resampling(self) -> CandidateCounts | None:
        """Vectorised resampling when unweighted (whole counts, so sums are exact in any
        order); weighted counts resample through :meth:`aggregate`."""
        return None if self.weighted else self.spec().resampling(lambda stats: [(s,) for s in stats])

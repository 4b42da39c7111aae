"""One error-type scheme on both sides of every per-type table, or no table.

Per-type counts file hits and misses under the reference edit's type and false positives under
the hypothesis edit's type. When the two sides are typed in different schemes (the CoNLL-2014
gold in NUCLE's ``ArtOrDet``, ``Vt``; hypotheses annotated with ERRANT in ``M:DET``,
``R:VERB:TENSE``), every row holds one side's counts only: recall 0 in one scheme's rows,
recall 1 in the other's, and no row means anything.

:func:`type_view` detects a mismatch from the types themselves (no scheme's names are built
in): the two sides use different schemes when neither has at least half of its edits typed
with types the other side also uses. It then re-types with ERRANT every side not already in
ERRANT's scheme, keeping each edit's span and corrections (as ``errant_m2 -gold -no_min``, via
:meth:`~gecscope.alignment.errant.ErrantAnnotator.retype_corpus`): only the labels change, so
matching, counts and every score stay what they were. An edit ERRANT cannot classify (``UNK``)
is labelled ``UNK (<old type>)``, because ERRANT's scorer skips ``UNK`` edits and the counts
must not change. Where re-typing is impossible (a language without ERRANT, no spaCy) the view
says why, and the report shows no per-type table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from gecscope.errors import GecscopeError
from gecscope.formats.m2 import errant_typed
from gecscope.types import NOOP_TYPE, UNK_TYPE, Annotation, Corpus, Edit, Sentence

#: Below this share of one side's edits typed with the other side's types (on both sides),
#: the two sides use different schemes.
SHARED_MIN = 0.5


def edit_types(corpus: Corpus) -> Counter[str]:
    """How often each type occurs among the corpus' edits (``noop`` lines left out)."""
    return Counter(e.type for s in corpus for a in s.annotations for e in a.all_edits
                   if e.type != NOOP_TYPE)


def schemes_differ(reference: Counter[str], hypothesis: Counter[str]) -> bool:
    """Whether two sides' edit types come from different schemes: neither side has
    :data:`SHARED_MIN` of its edits typed with types the other uses (one side typing a few
    kinds of edit only, a system that only inserts articles, still shares all of its types).
    Two sides whose types are both ERRANT's never differ; a side without edits tells nothing."""
    if not reference or not hypothesis:
        return False
    if errant_typed(list(reference.elements())) and errant_typed(list(hypothesis.elements())):
        return False

    def shared(a: Counter[str], b: Counter[str]) -> float:
        return sum(n for t, n in a.items() if t in b) / sum(a.values())

    return max(shared(reference, hypothesis), shared(hypothesis, reference)) < SHARED_MIN


def _examples(types: Counter[str]) -> str:
    return ", ".join(t for t, _ in types.most_common(3))


@dataclass
class TypeView:
    """The edits a report's per-type tables and sentence browser show, in one scheme.

    ``reference`` and ``hypotheses`` (system name -> edits) are the inputs' edits, re-typed
    where :func:`type_view` had to; ``note`` says so (shown beside every per-type table) and
    ``refused`` why no per-type table can be shown (the edits are then the inputs')."""

    reference: Corpus | None
    hypotheses: dict[str, Corpus]
    retyped: list[str] = field(default_factory=list)
    note: str | None = None
    refused: str | None = None

    @property
    def changed(self) -> bool:
        """Whether any side was re-typed (per-type counts must then be recounted)."""
        return bool(self.retyped)


def relabel(corpus: Corpus, typed: Corpus) -> Corpus:
    """``corpus`` with each edit's type taken from ``typed``, the same edits re-typed (same
    annotators, same spans and corrections in (start, end) order); a type ``typed`` leaves
    unknown where ``corpus`` had one becomes ``UNK (old)``. Raises :class:`GecscopeError` when
    the two do not hold the same edits."""
    if len(corpus) != len(typed):
        raise GecscopeError("re-typing changed the number of sentences")
    out = []
    for i, (s, t) in enumerate(zip(corpus, typed, strict=True)):
        new = {a.annotator: a.edits for a in t.annotations}
        anns = []
        for a in s.annotations:
            edits = sorted(a.edits, key=lambda e: (e.start, e.end))
            types = new.get(a.annotator, ())
            if len(types) != len(edits) or any(
                    (e.start, e.end) != (n.start, n.end) for e, n in zip(edits, types,
                                                                         strict=True)):
                raise GecscopeError(f"re-typing changed the edits of sentence {i + 1}, "
                                    f"annotator {a.annotator}")
            relabelled = []
            for e, n in zip(edits, types, strict=True):
                label = n.type
                if label == UNK_TYPE and e.type != UNK_TYPE:
                    label = f"{UNK_TYPE} ({e.type})"
                relabelled.append(Edit(e.start, e.end, e.correction, label, e.alternatives,
                                       e.required, e.comment))
            anns.append(Annotation(a.annotator, tuple(relabelled), a.not_annotatable,
                                   a.alternatives))
        out.append(Sentence(s.source, tuple(anns)))
    return Corpus(tuple(out), corpus.path)


def type_view(reference: Corpus | None, hypotheses: Mapping[str, Corpus], *,
              errant: bool = True,
              retype: Callable[[Corpus], Corpus] | None = None,
              progress: Callable[[str], None] | None = None) -> TypeView:
    """The edits per-type output should use: the inputs' own when both sides share a scheme
    (see :func:`schemes_differ`), else every side not in ERRANT's scheme re-typed with
    ``retype`` (default: the process' ERRANT annotator, spans kept); ``errant=False`` (the
    language's extractor is not ERRANT) refuses instead. ``progress`` gets a line before a
    re-typing starts."""
    hyps = dict(hypotheses)
    view = TypeView(reference, hyps)
    if reference is None:
        return view
    ref_types = edit_types(reference)
    hyp_types = {name: edit_types(c) for name, c in hyps.items()}
    differ = [name for name, t in hyp_types.items() if schemes_differ(ref_types, t)]
    if not differ:
        return view
    first = hyp_types[differ[0]]
    why = (f"the references use types such as {_examples(ref_types)}, {differ[0]} types "
           f"such as {_examples(first)}")
    how = ("re-annotate the references with ERRANT first (gecscope annotate --retype REF.m2 "
           "--gold --no-min --output REF.errant.m2)")
    if not errant:
        view.refused = f"no per-type tables: {why}, and only ERRANT can re-type them; {how}"
        return view
    retype_ref = not errant_typed(list(ref_types.elements()))
    systems = [name for name, c in hyps.items()
               if hyp_types[name] and not errant_typed(list(hyp_types[name].elements()))]
    if retype is None:
        retype = errant_retype

    def retyped(what: str, corpus: Corpus) -> Corpus:
        if progress is not None:
            progress(f"re-typing the edits of {what} with ERRANT for the per-type tables "
                     f"({len(corpus)} sentences)")
        return relabel(corpus, retype(corpus))

    try:
        if retype_ref:
            view.reference = retyped("the references", reference)
        for name in systems:
            view.hypotheses[name] = retyped(name, hyps[name])
    except (GecscopeError, ImportError, OSError) as exc:
        view.reference, view.hypotheses = reference, dict(hypotheses)
        view.refused = f"no per-type tables: {why}, and re-typing them failed ({exc}); {how}"
        return view
    view.retyped = (["the references"] if retype_ref else []) + systems
    which = _join(view.retyped)
    view.note = (f"error types are ERRANT's: {why}, so {which} were re-typed with ERRANT "
                 "(spans and corrections kept: every count and score is unchanged; "
                 f"{UNK_TYPE} (X): ERRANT could not classify an edit typed X)")
    return view


def type_at_level(etype: str, level: int) -> str:
    """The name ``--cat LEVEL`` files an edit of type ``etype`` under (1 operation, 2 main
    type, 3 full type): the level mapping of ERRANT's per-type counts
    (:func:`gecscope.metrics.errant.category_table`, the one place it is defined), so that
    per-type attribution sums and per-type counts use the same rows."""
    from gecscope.metrics.errant import category_table

    return next(iter(category_table({etype: (0, 0, 0)}, level)))


def _join(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def errant_retype(corpus: Corpus) -> Corpus:
    """ERRANT's types of ``corpus``' edits, spans and corrections kept (errant_m2 -gold
    -no_min), ticking :mod:`gecscope.progress` per sentence."""
    from gecscope.alignment.errant import shared_annotator
    from gecscope.progress import tick

    return shared_annotator().retype_corpus(corpus, auto=False, minimise=False,
                                            progress=tick)

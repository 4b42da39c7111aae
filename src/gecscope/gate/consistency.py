"""A hypothesis lined up with the references: rows of a parallel file matched by id, and one
sentence per reference sentence with the references' ids and sources on every line
(:func:`align_hypothesis`, :func:`check_hypothesis`). Errors name the file, line and id.
"""

from __future__ import annotations

import unicodedata

from gecscope.data import EvalData
from gecscope.errors import FormatError, LengthMismatchError
from gecscope.hypothesis import Hypothesis


def align_hypothesis(data: EvalData, hyp: Hypothesis) -> Hypothesis:
    """``hyp`` with its sentences in the references' order, checked (:func:`check_hypothesis`).

    A parallel-format hypothesis (with ids) is matched by id when the references have ids
    (a parallel reference file whose ids are unique): rows in another order are put in
    the references' order; a duplicate, unknown or missing id is a :class:`FormatError`
    naming the file, line and id. Otherwise sentences are matched by position, and a
    hypothesis that carries its sources (M2 or parallel) must have the references' source
    on every line. Every input path goes through here (:func:`gecscope.gate.admit`),
    whatever the language."""
    len(data)  # reads the references (and their ids)
    if hyp.ids is not None and data.ids is not None and hyp.ids != data.ids:
        known = frozenset(data.ids)
        where = data.reference_paths[0] if data.reference_paths else "the references"
        position: dict[str, int] = {}
        for i, k in enumerate(hyp.ids):
            if k in position:
                raise FormatError(f"id {k!r} is given twice (lines {position[k] + 1} and "
                                  f"{i + 1}); each line needs its own id to be matched to "
                                  f"the references ({where})", hyp.path, i + 1)
            if k not in known:
                raise FormatError(f"id {k!r} is not an id of the references ({where})",
                                  hyp.path, i + 1)
            position[k] = i
        missing = [k for k in data.ids if k not in position]
        if missing:
            raise FormatError(f"has no line for id {missing[0]!r} of the references ({where}"
                              f"; {len(missing)} id(s) missing)", hyp.path or hyp.name)
        hyp = hyp.reordered([position[k] for k in data.ids])
    check_hypothesis(data, hyp)
    return hyp


def check_hypothesis(data: EvalData, hyp: Hypothesis) -> None:
    """The hypothesis has one sentence per reference sentence, in the references' order:
    its ids (parallel format) are the references' and its sources (M2 or parallel format)
    are the references' sources, on every line (see :func:`align_hypothesis`, which reorders by id)."""
    if len(hyp) != len(data):
        origin = data.reference_paths[0] if data.m2 is not None else data.source_path
        raise LengthMismatchError(len(data), len(hyp), hyp.path or hyp.name, "sentences",
                                  origin)
    if hyp.ids is not None and data.ids is not None and hyp.ids != data.ids:
        i = next(i for i, (a, b) in enumerate(zip(hyp.ids, data.ids, strict=True)) if a != b)
        raise FormatError(
            f"has id {hyp.ids[i]!r} where the references' sentence {i + 1} has id "
            f"{data.ids[i]!r}: its lines are in another order; gecscope.evaluate() and "
            "`gecscope evaluate`/`compare` match them by id (gecscope.gate.admit)", hyp.path,
            i + 1)
    sources = hyp.m2.sources if hyp.m2 is not None else hyp.sources
    if sources is not None and list(sources) != list(data.sources):
        parallel = hyp.sources is not None
        for i, (a, b) in enumerate(zip(sources, data.sources, strict=True)):
            # equal up to Unicode compatibility forms is the same source: ChERRANT's
            # demo references have ':' where its hypothesis M2 has the full-width '：'
            if a != b and unicodedata.normalize("NFKC", " ".join(a)) != \
                    unicodedata.normalize("NFKC", " ".join(b)):
                what = ("its source column differs from the references' source"
                        if parallel else "source differs from the reference source")
                fix = ("a parallel file's source column must be the references' source, "
                       "line by line" if parallel else
                       "hypothesis and reference M2 must share their S lines")
                j = next((j for j, ref in enumerate(data.sources) if ref == a), None)
                if j is not None:
                    why = ("a parallel reference file with unique ids; these references give "
                           f"id {data.repeated_id!r} twice" if data.repeated_id is not None
                           else "references with ids, a parallel reference file")
                    fix = (f"it is the source of the references' sentence {j + 1}: lines "
                           f"in another order? (matching by id needs {why})")
                raise FormatError(
                    f"sentence {i + 1}: {what} ({' '.join(a)[:50]!r} vs "
                    f"{' '.join(b)[:50]!r}); {fix}", hyp.path, i + 1 if parallel else None)

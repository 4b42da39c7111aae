"""The M2 format (Dahlmeier & Ng 2012), as written by the CoNLL shared tasks and ERRANT.

A sentence block is an ``S`` line with the tokenised source followed by ``A`` lines::

    S This are a sentence .
    A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0
    A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

``-NONE-`` (or an empty field) is the empty correction, ``||`` separates alternative
corrections, and ``A -1 -1|||noop...|||k`` says annotator ``k`` saw the sentence and changed
nothing. Blocks are separated by blank lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from gecscope.errors import FormatError
from gecscope.formats.base import PathLike, atomic_write, read_text, split_lines
from gecscope.types import (
    NA_TYPE,
    NOOP_TYPE,
    Annotation,
    Corpus,
    Edit,
    Sentence,
    Tokens,
    apply_edits,
)

NONE = "-NONE-"


def _parse_correction(text: str) -> Tokens:
    text = text.strip()
    if text in ("", NONE):
        return ()
    return tuple(text.split())


def parse_edit_line(line: str, n_tokens: int, path: PathLike | None = None,
                    lineno: int | None = None) -> tuple[int, Edit | None]:
    """Parse one ``A`` line; returns ``(annotator, edit)`` with ``edit=None`` for a noop."""
    body = line[2:] if line.startswith("A ") else line[1:]
    fields = body.split("|||")
    if len(fields) != 6:
        raise FormatError(
            f"malformed A line: expected 6 fields separated by '|||' "
            f"('start end|||type|||correction|||REQUIRED|||comment|||annotator'), found {len(fields)}",
            path, lineno)
    span, etype, cor, req, comment, coder = fields
    parts = span.split()
    try:
        if len(parts) != 2:
            raise ValueError
        start, end = int(parts[0]), int(parts[1])
    except ValueError:
        raise FormatError(f"malformed A line: expected 'start end' token offsets, found {span!r}",
                          path, lineno) from None
    try:
        annotator = int(coder.strip())
    except ValueError:
        raise FormatError(f"malformed A line: expected an integer annotator id, found {coder!r}",
                          path, lineno) from None
    if start == -1 and end == -1:
        if etype.strip() not in (NOOP_TYPE, NA_TYPE, "-NONE-", ""):
            raise FormatError(f"span -1 -1 is only valid for a noop line (or ChERRANT's NA), "
                              f"found type {etype!r}", path, lineno)
        return annotator, None
    if start < 0 or end < start or end > n_tokens:
        raise FormatError(
            f"edit span {start} {end} is out of range for a sentence of {n_tokens} tokens "
            f"(expected 0 <= start <= end <= {n_tokens})", path, lineno)
    alts = [_parse_correction(c) for c in cor.split("||")] if "||" in cor else [
        _parse_correction(cor)]
    edit = Edit(start=start, end=end, correction=alts[0], type=etype.strip(),
                alternatives=tuple(alts[1:]), required=req.strip() != "OPTIONAL",
                comment=comment.strip())
    return annotator, edit


def _build_sentence(source: Tokens, lines: list[tuple[int, str]], path: PathLike | None) -> Sentence:
    """A sentence from its A lines (and ChERRANT's ``T<k>-A<j>`` lines, which start the
    ``j``-th alternative edit set of annotator ``k``)."""
    per_annotator: dict[int, dict[int, list[Edit]]] = {}
    current: dict[int, int] = {}  # annotator -> alternative its A lines go to
    unannotatable: set[int] = set()
    with_a_lines: set[int] = set()
    for lineno, line in lines:
        target = CHERRANT_TARGET.match(line)
        if target:
            k, j = int(target.group(1)), int(target.group(2) or 0)
            current[k] = j
            per_annotator.setdefault(k, {}).setdefault(j, [])
            continue
        annotator, edit = parse_edit_line(line, len(source), path, lineno)
        with_a_lines.add(annotator)
        sets = per_annotator.setdefault(annotator, {})
        edits = sets.setdefault(current.get(annotator, 0), [])
        if edit is not None:
            edits.append(edit)
        elif line.split("|||")[1].strip() == NA_TYPE:
            unannotatable.add(annotator)
    annotations = []
    for k, sets in per_annotator.items():
        first, *more = [tuple(sets[j]) for j in sorted(sets)]
        if k not in with_a_lines:
            continue  # a T line with no A line: ChERRANT's scorer never sees this annotator
        annotations.append(Annotation(k, first, not_annotatable=k in unannotatable and not first,
                                      alternatives=tuple(m for m in more if m)))
    return Sentence(source=source, annotations=tuple(annotations))


#: ChERRANT's extra line after each S line: ``T<k>-A<j> <target>`` or ``T<k> 没有错误`` ("no error").
CHERRANT_TARGET = re.compile(r"T(\d+)(?:-A(\d+))?(?: |$)")


def parse_m2(text: str, path: PathLike | None = None) -> Corpus:
    """Parse M2 text (line ends already normalised) into a :class:`Corpus`."""
    sentences: list[Sentence] = []
    source: Tokens | None = None
    pending: list[tuple[int, str]] = []
    start = 0  # the line of the current block's S line
    for lineno, raw in enumerate(split_lines(text), start=1):
        line = raw.rstrip()
        if not line.strip():
            if source is not None:
                sentences.append(_build_sentence(source, pending, path))
                source, pending = None, []
            continue
        if line.startswith("S ") or line == "S":
            if source is not None:  # m2scorer and ERRANT read blocks by blank lines: they
                # would take this S line into the previous sentence's block, or drop it
                raise FormatError(f"found an S line where a blank line was expected: the block "
                                  f"of the sentence on line {start} has no blank line after "
                                  "it (each M2 block, an S line and its A lines, ends with "
                                  "one)", path, lineno)
            source, pending, start = tuple(line[2:].split()), [], lineno
        elif line.startswith(("A ", "A\t")):
            if source is None:
                raise FormatError("found an A line before any S line; expected 'S <tokens>' first",
                                  path, lineno)
            pending.append((lineno, line))
        elif CHERRANT_TARGET.match(line):
            # ChERRANT's target lines (``T0-A0 <corrected text>``, ``T0 没有错误``) restate
            # the correction; ``T<k>-A<j>`` with j > 0 starts an alternative edit set
            if source is None:
                raise FormatError("found a T line before any S line; expected 'S <tokens>' first",
                                  path, lineno)
            pending.append((lineno, line))
        else:
            raise FormatError(
                f"expected a line starting with 'S ' (source) or 'A ' (edit), found {line[:40]!r}",
                path, lineno)
    if source is not None:
        sentences.append(_build_sentence(source, pending, path))
    if not sentences:
        raise FormatError("no sentences found; expected M2 blocks starting with 'S '", path)
    return Corpus(tuple(sentences), str(path) if path is not None else None)


def read_m2(path: PathLike) -> Corpus:
    """Read an M2 file. Raises :class:`FormatError` with the line of the first problem."""
    return parse_m2(read_text(path), path)


def format_edit(edit: Edit, annotator: int) -> str:
    """One ``A`` line; the empty correction is written as an empty field, as ERRANT does.

    M2 has no escape for ``|``: a correction token containing ``||`` would read back as two
    alternatives (and ``|||`` as another field), so such a token is refused (ValueError)."""
    for c in edit.corrections:
        for tok in c:
            if "||" in tok:
                raise ValueError(f"token {tok!r} contains '||', which M2 cannot represent "
                                 "(it separates alternative corrections)")
    cor = "||".join(" ".join(c) for c in edit.corrections)
    req = "REQUIRED" if edit.required else "OPTIONAL"
    return f"A {edit.start} {edit.end}|||{edit.type}|||{cor}|||{req}|||{edit.comment}|||{annotator}"


def noop_line(annotator: int, not_annotatable: bool = False) -> str:
    """The edit-less line: ``noop``, or ChERRANT's ``NA`` (the annotator could not correct)."""
    kind = NA_TYPE if not_annotatable else NOOP_TYPE
    return f"A -1 -1|||{kind}|||-NONE-|||REQUIRED|||-NONE-|||{annotator}"


def format_sentence(sentence: Sentence) -> str:
    """An M2 block (with its trailing blank line)."""
    lines = ["S " + " ".join(sentence.source) if sentence.source else "S"]
    for ann in sentence.annotations:
        if ann.alternatives:  # ChERRANT's layout: each edit set after its T line
            target = " ".join(apply_edits(sentence.source, ann.edits))
            for j, edits in enumerate((ann.edits, *ann.alternatives)):
                lines.append(f"T{ann.annotator}-A{j} {target}")
                lines.extend(format_edit(e, ann.annotator) for e in edits)
        elif not ann.edits:
            lines.append(noop_line(ann.annotator, ann.not_annotatable))
        else:
            lines.extend(format_edit(e, ann.annotator) for e in ann.edits)
    return "\n".join(lines) + "\n\n"


def iter_m2(sentences: Iterable[Sentence]) -> Iterator[str]:
    for s in sentences:
        yield format_sentence(s)


def write_m2(path: PathLike, corpus: Corpus | Iterable[Sentence]) -> None:
    """Write an M2 file atomically (nothing is left behind if producing a sentence fails);
    a token M2 cannot represent is a :class:`FormatError` naming the sentence, and nothing is
    written."""
    def blocks() -> Iterator[str]:
        for i, s in enumerate(corpus, start=1):
            try:
                yield format_sentence(s)
            except ValueError as exc:
                raise FormatError(f"sentence {i}: {exc}", path) from None

    atomic_write(path, blocks())


_ERRANT_TYPE = re.compile(r"^(?:[MRU]:[A-Z]+(?::[A-Z]+)?|UNK)$")


def errant_typed(types: Sequence[str]) -> bool:
    """Whether most of these edit types are ERRANT's (``R:NOUN:NUM``, ``M:DET``, ``UNK``)."""
    types = [t for t in types if t and t != "noop"]
    return bool(types) and sum(1 for t in types if _ERRANT_TYPE.match(t)) >= len(types) / 2

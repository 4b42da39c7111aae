"""Files whose format is decided from their content: a reference file (an M2 corpus, I-measure
gold XML or ChERRANT-style parallel rows) and a hypothesis file (plain text, M2 or parallel).

:func:`sniff_format` looks at the whole file, so a damaged M2 reaches the M2 parser (which
names the bad line) rather than being scored as text, and a plain sentence that merely
starts like M2 stays text (with a note saying so).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gecscope.errors import ConfigError, FormatError, InputWarning, LengthMismatchError
from gecscope.formats.base import PathLike, read_text
from gecscope.formats.imeasure_xml import IMeasureGold, gold_to_m2, looks_like_gold, parse_gold
from gecscope.formats.m2 import CHERRANT_TARGET, parse_m2
from gecscope.formats.parallel import ParallelRow, parse_parallel
from gecscope.types import Corpus, Tokens

#: What a hypothesis file can be read as; ``auto`` decides from the whole file (see
#: :func:`sniff_format`).
HYPOTHESIS_FORMATS = ("auto", "plain", "m2", "parallel")


def looks_like_m2(text: str) -> bool:
    """True when the first non-blank line of ``text`` starts with ``S `` (M2): a first look
    only; :func:`sniff_format` decides from the whole file."""
    for line in text.split("\n"):
        if line.strip():
            return line.startswith("S ") or line == "S"
    return False


def sniff_format(text: str) -> tuple[str, str | None]:
    """The format of a file's ``text`` (``"m2"``, ``"parallel"`` or ``"plain"``) and a note
    when its first line suggested another one.

    A format is taken only when the whole file looks like it: M2 when every non-blank line is
    an ``S``, ``A`` or ChERRANT ``T`` line (with ``A``/``T`` lines, or blank lines between
    the ``S`` lines), parallel when every non-blank line has two TABs or more. A file most of
    whose lines fit is still that format, so its parser names the line that does not (a
    damaged M2 must not be scored as text). A plain file whose first line merely looks like
    a format (a sentence starting ``S ``, or with two TABs) is plain text, with a note."""
    lines = text.split("\n")
    content = [(i, ln) for i, ln in enumerate(lines, start=1) if ln.strip()]
    if not content:
        return "plain", None
    first = content[0][1]
    if first.startswith("S ") or first == "S":
        kinds = []
        for _, ln in content:
            if ln.startswith("S ") or ln == "S":
                kinds.append("S")
            elif ln.startswith(("A ", "A\t")) or CHERRANT_TARGET.match(ln):
                kinds.append("A")
            else:
                kinds.append("")
        fit = sum(1 for k in kinds if k)
        edits = "A" in kinds
        glued = any(kinds[j] == "S" and content[j][0] == content[j - 1][0] + 1
                    for j in range(1, len(content)))
        if fit == len(content) and (edits or not glued):
            return "m2", None
        if edits and 2 * fit > len(content):
            return "m2", None
        bad = next((i for (i, _), k in zip(content, kinds, strict=True) if not k), None)
        why = (f"line {bad} is not an S, A or T line" if bad is not None
               else "it has no A lines and no blank lines between its S lines")
        return "plain", (f"read as plain text, although line {content[0][0]} starts like M2 "
                         f"('S ...'): {why}")
    if first.count("\t") >= 2:
        fit = sum(1 for _, ln in content if ln.count("\t") >= 2)
        if 2 * fit > len(content):
            return "parallel", None
        bad = next(i for i, ln in content if ln.count("\t") < 2)
        return "plain", (f"read as plain text, although line {content[0][0]} has TABs like "
                         f"the parallel format (id<TAB>source<TAB>output): line {bad} has "
                         "fewer than two")
    return "plain", None


@dataclass(frozen=True)
class ReferenceFile:
    """What one reference file holds: an M2 corpus (``m2``; gold XML is converted to one,
    every alternative of every annotator kept, and the parsed XML kept as ``gold``), or
    ChERRANT-style parallel ``rows`` (raw text: the language's extractor finds their edits),
    or nothing (``note`` then says why the file, read as plain text, looked like a format).

    ``cycle``: the file lists every target of a sentence (ChERRANT's M2 with ``T`` lines, a
    parallel file), so a sentence with fewer targets than others reuses its own (see
    :attr:`gecscope.data.EvalData.references`)."""

    path: str
    m2: Corpus | None = None
    gold: IMeasureGold | None = None
    rows: tuple[ParallelRow, ...] | None = None
    cycle: bool = False
    note: str | None = None

    def subset(self, start: int, stop: int) -> ReferenceFile:
        """Sentences ``start`` to ``stop - 1`` of the file."""
        return replace(
            self,
            m2=self.m2.subset(start, stop) if self.m2 is not None else None,
            gold=self.gold.subset(start, stop) if self.gold is not None else None,
            rows=self.rows[start:stop] if self.rows is not None else None)


def read_references(path: PathLike, *, parallel: bool = True) -> ReferenceFile:
    """Read one reference file, its format decided by its content (:func:`sniff_format`):
    M2, I-measure gold XML, or (when ``parallel``: no separate source file was given) the
    parallel format ``id<TAB>source<TAB>target...``. Anything else is plain text, returned
    empty (with a ``note`` when it looked like a format)."""
    text = read_text(path, allow_empty=True)  # read once, parsed by what it looks like
    if not text.strip():
        raise FormatError("no sentences: the reference file is empty (expected an M2, gold "
                          "XML, parallel or plain-text reference file)", path)
    kind, note = sniff_format(text)
    if kind == "m2":
        # ChERRANT's M2 lists every target (T lines): a missing k-th one is no reference
        return ReferenceFile(str(path), m2=parse_m2(text, path),
                             cycle=re.search(r"^T\d+", text, re.MULTILINE) is not None)
    if looks_like_gold(text):
        gold = parse_gold(text, path)
        return ReferenceFile(str(path), m2=Corpus(gold_to_m2(gold).sentences, str(path)),
                             gold=gold)
    if parallel and kind == "parallel":
        return ReferenceFile(str(path), rows=tuple(parse_parallel(text, path)), cycle=True)
    return ReferenceFile(str(path), note=note)


def read_hypothesis_text(path: PathLike, format: str = "auto") -> tuple[str, str]:
    """The text of a hypothesis file and the format to read it as: ``format``, or with
    ``"auto"`` the one :func:`sniff_format` finds (a close call is an :class:`InputWarning`
    saying what was assumed)."""
    if format not in HYPOTHESIS_FORMATS:
        raise ConfigError(f"unknown hypothesis format {format!r}; choose one of "
                          f"{', '.join(HYPOTHESIS_FORMATS)}")
    text = read_text(path, allow_empty=True)
    if format == "auto":
        format, note = sniff_format(text)
        if note:
            warnings.warn(f"{path}: {note}; give the format to read it otherwise "
                          "(--hyp-format, or format= in Python)", InputWarning, stacklevel=3)
    return format, text


def corpus_references(corpus: Corpus, cycle: bool = False) -> list[list[Tokens]]:
    """The references of an M2 corpus as ``[reference][sentence]`` token lists.

    In an M2, an annotator without lines for a sentence changed nothing (its reference is the
    source), as the reference tools read it. Parallel files and ChERRANT's M2 instead list
    every target (``cycle``), and their sentences have different numbers of them (MuCGEC: one
    to seven): there reference ``k`` of a sentence with fewer is its reference ``k mod
    count``, so every reference set is a real correction."""
    ids = corpus.annotators
    if not cycle or all(s.annotators == ids for s in corpus):
        return [corpus.references(k) for k in ids] or [corpus.sources]
    per = [[s.reference(a) for a in s.annotators] or [s.source] for s in corpus]
    return [[refs[k % len(refs)] for refs in per] for k in range(len(ids))]


def check_m2_sources(sources: Sequence[Tokens], gold: Corpus,
                     path: str | None = None) -> None:
    """The sources given with a gold M2 (read from ``path``, or from memory) are its S lines,
    sentence by sentence, token for token up to Unicode compatibility forms (NFKC: ChERRANT's
    demo M2 has ':' where its source file has the full-width '：')."""
    if len(gold) != len(sources):
        raise LengthMismatchError(len(sources), len(gold), gold.path, "sentences",
                                  path or "sources")
    for i, (a, b) in enumerate(zip(sources, gold.sources, strict=True)):
        if a != b and (len(a) != len(b) or any(
                x != y and unicodedata.normalize("NFKC", x) != unicodedata.normalize("NFKC", y)
                for x, y in zip(a, b, strict=True))):
            what = (f"the source differs from the M2's S line ({' '.join(a)[:40]!r} vs "
                    f"{' '.join(b)[:40]!r}; {gold.path or 'the M2'})")
            if path is not None:
                raise FormatError(f"{what}: give the source the M2 was made from, or no source",
                                  path, i + 1)
            raise ConfigError(f"sentence {i + 1}: {what}")

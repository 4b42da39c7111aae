"""ChERRANT's parallel format: ``id <TAB> source <TAB> target1 <TAB> target2 ...`` per line.

MuCGEC's dev set is written so (one to seven targets per line), and ChERRANT's
``parallel_to_m2.py`` reads it; a system's output in it has exactly one target.
"""

from __future__ import annotations

from dataclasses import dataclass

from gecscope.errors import FormatError
from gecscope.formats.base import PathLike, read_text, split_lines

#: a target meaning "this sentence is correct" (ChERRANT)
NO_ERROR = "没有错误"


@dataclass(frozen=True)
class ParallelRow:
    id: str
    source: str
    targets: tuple[str, ...]


def looks_like_parallel(text: str) -> bool:
    """True when the first non-blank line has at least three tab-separated fields (a first
    look only; :func:`gecscope.formats.references.sniff_format` decides from the whole file)."""
    for line in text.split("\n"):
        if line.strip():
            return line.count("\t") >= 2
    return False


def parse_parallel(text: str, path: PathLike | None = None, *,
                   targets: int | None = None) -> list[ParallelRow]:
    """Rows of parallel text; a row without a target, or with an empty source or target, is a
    :class:`FormatError` naming its line.

    ``targets=None`` (references, as MuCGEC's: one to seven per row) accepts any number of
    targets and ignores blank lines at both ends, as the tool strips the file. ``targets=N``
    (a system output has one) requires exactly ``2 + N`` fields on every line, so a TAB
    inside a sentence (which would shift the columns) is an error, and only trailing blank
    lines are ignored, so line ``i`` is always sentence ``i``."""
    lines = split_lines(text.rstrip("\n") if targets is not None else text.strip("\n"))
    first = 1 if targets is not None else len(text) - len(text.lstrip("\n")) + 1
    rows = []
    for lineno, line in enumerate(lines, start=first):
        fields = line.rstrip("\r").split("\t")
        if targets is not None and len(fields) != 2 + targets:
            raise FormatError(
                f"has {len(fields)} tab-separated field(s) where every line of this file must "
                f"have {2 + targets} ('id<TAB>source<TAB>output'"
                f"{'' if targets == 1 else ', one output per target'})"
                + ("; a TAB inside a sentence?" if len(fields) > 2 + targets else ""),
                path, lineno)
        if len(fields) < 3:
            raise FormatError(f"expected 'id<TAB>source<TAB>target...' (at least 3 tab-separated "
                              f"fields), found {len(fields)}", path, lineno)
        if not "".join(fields[1].split()):
            raise FormatError("the source (field 2) is empty", path, lineno)
        for k, t in enumerate(fields[2:], start=3):
            if not "".join(t.split()):
                raise FormatError(f"field {k} (a target) is empty; write the source again, or "
                                  f"{NO_ERROR} for an unchanged sentence", path, lineno)
        rows.append(ParallelRow(fields[0], fields[1], tuple(fields[2:])))
    if not rows:
        raise FormatError("no lines found; expected 'id<TAB>source<TAB>target...'", path)
    return rows


def read_parallel(path: PathLike) -> list[ParallelRow]:
    """Read a parallel file (see :func:`parse_parallel`)."""
    return parse_parallel(read_text(path), path)

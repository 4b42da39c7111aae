"""MultiGEC-2025 essay files: ``### essay_id = <ID>`` then the essay's raw text, blank-line separated.

One file per subcorpus, split and text kind (``<lang>-<corpus>-orig-<split>.md``, ``-ref1-``,
``-ref2-``..., system outputs ``-hypo<n>-``). References are matched to the source essays by
id, not position, and a reference file may cover only some essays (data_format.md of
spraakbanken/multigec-2025). The shared task scored whole essays, each flattened to one line;
:func:`to_units` makes that choice, or paragraph units, explicit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from gecscope.errors import ConfigError, FormatError
from gecscope.formats.base import PathLike, atomic_write, read_text

HEADER = "### essay_id = "
#: a line that tries to be a header but is not exactly ``### essay_id = <ID>``
_NEAR_HEADER = re.compile(r"^\s*#+\s*essay_?id\b", re.IGNORECASE)

Level = Literal["essay", "paragraph"]
Missing = Literal["error", "skip"]
Kind = Literal["reference", "hypothesis"]


@dataclass(frozen=True)
class Essay:
    """One essay (or its reference, or a system's output) with its id kept as a string
    (ids may be zero-padded, e.g. UA-GEC's ``0002``)."""

    id: str
    text: str


class AlignedEssays(NamedTuple):
    """Essays matched by id: ``others`` is ``[file][essay]`` in the order of ``ids``."""

    ids: list[str]
    source: list[str]
    others: list[list[str]]


def parse_multigec(text: str, path: PathLike | None = None) -> list[Essay]:
    """Essays of a MultiGEC ``.md`` file, read as the task's ``md_to_dict`` reads them: the id is
    the rest of the header line, the text everything up to the next header with surrounding
    newlines stripped (other whitespace kept).

    Unlike ``md_to_dict``, which splits on the header string anywhere, malformed input is a
    :class:`FormatError` with the line: non-blank text before the first header, a header not
    at the start of a line, a near-miss header (``## essay_id = 3``, ``### essay_id=3``), an
    empty id, a duplicate id, or no essay at all.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    essays: list[Essay] = []
    first_line: dict[str, int] = {}
    current: str | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            essays.append(Essay(current, "\n".join(body).strip("\n")))

    for lineno, line in enumerate(text.split("\n"), start=1):
        if line.startswith(HEADER):
            close()
            current, body = line[len(HEADER):], []
            if not current.strip():
                raise FormatError(f"empty essay id in the header {line.rstrip()!r}", path, lineno)
            if current in first_line:
                raise FormatError(f"duplicate essay id {current!r} (first at line "
                                  f"{first_line[current]})", path, lineno)
            first_line[current] = lineno
            continue
        if HEADER in line:
            raise FormatError(f"{HEADER.strip()!r} inside a line: a header must start its line "
                              "(the task's parser would split the essay here)", path, lineno)
        if _NEAR_HEADER.match(line):
            raise FormatError(f"malformed header {line.strip()!r}; expected "
                              f"'{HEADER}<ID>'", path, lineno)
        if current is None:
            if line.strip():
                raise FormatError(f"text before the first '{HEADER}<ID>' header", path, lineno)
            continue
        body.append(line)
    close()
    if not essays:
        raise FormatError(f"no essays found; expected '{HEADER}<ID>' header lines", path)
    return essays


def read_multigec(path: PathLike) -> list[Essay]:
    """Read a MultiGEC ``.md`` file (see :func:`parse_multigec`)."""
    return parse_multigec(read_text(path), path)


def write_multigec(path: PathLike, essays: Iterable[Essay]) -> None:
    """Write essays as the task's ``dict_to_md`` does (``### essay_id = {}\\n{}\\n\\n``),
    atomically. Ids must be unique, non-empty and on one line, and no text line may start with
    the header, so that :func:`read_multigec` gives the essays back (texts without surrounding
    newlines)."""
    items = list(essays)
    seen: set[str] = set()
    for e in items:
        if not e.id.strip() or "\n" in e.id or "\r" in e.id:
            raise ConfigError(f"essay id {e.id!r} cannot be written: it must be non-empty and "
                              "on one line")
        if e.id in seen:
            raise ConfigError(f"essay id {e.id!r} occurs twice")
        seen.add(e.id)
        if any(HEADER in ln for ln in e.text.split("\n")):
            raise ConfigError(f"essay {e.id!r}: its text contains {HEADER.strip()!r} and would "
                              "read back as another essay")
    atomic_write(path, (f"{HEADER}{e.id}\n{e.text}\n\n" for e in items))


def align_essays(source: Sequence[Essay], others: Sequence[Sequence[Essay]],
                 names: Sequence[str], *, kinds: Sequence[Kind] | None = None,
                 missing: Missing = "error") -> AlignedEssays:
    """Match references and hypotheses to the source essays by id; essays in source order.

    ``names`` (file names, used in messages) and ``kinds`` (``"reference"`` or
    ``"hypothesis"``; default all references) go with ``others``. An essay a hypothesis lacks
    is always an error naming the id. An essay a reference lacks (allowed by the format) is an
    error too unless ``missing="skip"``, which drops that essay from the whole evaluation:
    substituting the source would count the essay as needing no correction, and the metrics
    need every reference set to cover every unit. An id absent from the source, or repeated
    within a file, is an error.
    """
    if len(names) != len(others):
        raise ConfigError(f"align_essays: {len(others)} files but {len(names)} names")
    kinds = list(kinds) if kinds is not None else ["reference"] * len(others)
    if len(kinds) != len(others) or any(k not in ("reference", "hypothesis") for k in kinds):
        raise ConfigError("align_essays: kinds must give 'reference' or 'hypothesis' per file")
    if missing not in ("error", "skip"):
        raise ConfigError(f"align_essays: missing must be 'error' or 'skip', not {missing!r}")
    src = _by_id(source, "source")
    maps = [_by_id(o, n) for o, n in zip(others, names, strict=True)]
    for m, name in zip(maps, names, strict=True):
        extra = [i for i in m if i not in src]
        if extra:
            raise FormatError(f"essay id {extra[0]!r} is not in the source"
                              + (f" (nor {len(extra) - 1} more)" if len(extra) > 1 else ""), name)
    ids = []
    for essay_id in src:
        lacking = [(n, k) for m, n, k in zip(maps, names, kinds, strict=True) if essay_id not in m]
        for name, kind in lacking:
            if kind == "hypothesis":
                raise FormatError(f"the hypothesis has no essay {essay_id!r}; every source essay "
                                  "needs an output (write the source text if unchanged)", name)
        if lacking and missing == "error":
            raise FormatError(f"the reference has no essay {essay_id!r}; pass missing='skip' "
                              "(--missing skip) to leave such essays out of the evaluation",
                              lacking[0][0])
        if not lacking:
            ids.append(essay_id)
    if not ids:
        raise FormatError("no essay is covered by every reference", names[0] if names else None)
    return AlignedEssays(ids, [src[i] for i in ids], [[m[i] for i in ids] for m in maps])


def _by_id(essays: Sequence[Essay], name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in essays:
        if e.id in out:
            raise FormatError(f"duplicate essay id {e.id!r}", name)
        out[e.id] = e.text
    return out


def to_units(texts: AlignedEssays, level: Level, *,
             names: Sequence[str] | None = None) -> AlignedEssays:
    """Evaluation units from aligned essays, at an explicitly chosen ``level``.

    ``"essay"``: one unit per essay, its lines joined by single spaces (the task's scorer put
    each essay on one line). ``"paragraph"``: one unit per non-empty line, ids ``<ID>:<k>``;
    the source and every other file must then have the same number of non-empty lines in
    each essay, else :class:`FormatError` naming the essay and the counts (``names`` label
    the other files in that message).
    """
    if level == "essay":
        return AlignedEssays(list(texts.ids), [_flat(t) for t in texts.source],
                             [[_flat(t) for t in o] for o in texts.others])
    if level != "paragraph":
        raise ConfigError(f"level must be 'essay' or 'paragraph', not {level!r}")
    labels = list(names) if names is not None else [f"file {k + 1}"
                                                    for k in range(len(texts.others))]
    ids: list[str] = []
    source: list[str] = []
    others: list[list[str]] = [[] for _ in texts.others]
    for j, essay_id in enumerate(texts.ids):
        src = _lines(texts.source[j])
        split = [_lines(o[j]) for o in texts.others]
        if any(len(s) != len(src) for s in split):
            counts = ", ".join(f"{n} {len(s)}" for n, s in zip(labels, split, strict=True))
            raise FormatError(f"essay {essay_id!r}: paragraph units need the same number of "
                              f"non-empty lines everywhere; source {len(src)}, {counts} "
                              "(use level='essay')")
        ids.extend(f"{essay_id}:{k}" for k in range(1, len(src) + 1))
        source.extend(src)
        for out, s in zip(others, split, strict=True):
            out.extend(s)
    return AlignedEssays(ids, source, others)


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.split("\n") if ln.strip()]


def _flat(text: str) -> str:
    return " ".join(_lines(text))

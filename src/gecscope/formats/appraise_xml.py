"""Appraise XML: human rankings of system outputs (GJG15 and SEEDA judgments).

::

    <appraise-results>
      <error-correction-ranking-result ...>
        <ranking-item src-id="12" doc-id="INPUT" id="1" duration="00:02:01" user="annotator1">
          <translation system="T5 Riken-Tohoku" rank="2" />
          <translation system="BERT-fuse" rank="1" />
        </ranking-item>

``system`` may name several systems separated by spaces: their outputs were identical and were
shown once, so they share the rank. ``rank`` 1 is best; equal ranks are ties. ``src-id`` is the
position of the judged sentence in the test set, 0-based in GJG15's file and 1-based in SEEDA's:
callers say which with ``index_base`` and get 0-based :attr:`RankingItem.sentence` values.
"""

from __future__ import annotations

from typing import Any
from xml.parsers import expat

from gecscope.errors import FormatError
from gecscope.formats.base import PathLike, read_text
from gecscope.judgments import Judgments, RankedOutput, RankingItem


def read_appraise(path: PathLike, *, index_base: int, sentences: int | None = None
                  ) -> Judgments:
    """Read an Appraise XML file of ranking items.

    ``index_base`` is 0 when ``src-id`` counts from 0 (GJG15) and 1 when it counts from 1
    (SEEDA). Raises :class:`FormatError` with the line number on malformed XML, a missing or
    non-integer ``src-id``/``rank``, a system listed twice in one item, or a file without items;
    with ``sentences`` (the test set's size), also on a ``src-id`` outside the test set.
    """
    if index_base not in (0, 1):
        raise ValueError(f"index_base must be 0 or 1, got {index_base!r}")
    return parse_appraise(read_text(path), index_base=index_base, path=str(path),
                          sentences=sentences)


def parse_appraise(text: str, *, index_base: int, path: str | None = None,
                   sentences: int | None = None) -> Judgments:
    """Parse Appraise XML given as a string (see :func:`read_appraise`)."""
    from gecscope.formats.xmltree import check_element, safe_parser

    parser = safe_parser(path)
    depth = 0
    items: list[RankingItem] = []
    current: dict[str, Any] | None = None

    def fail(message: str) -> FormatError:
        return FormatError(message, path, parser.CurrentLineNumber)

    def integer(attrs: dict[str, str], name: str, element: str) -> int:
        value = attrs.get(name)
        if value is None:
            raise fail(f"<{element}> has no {name} attribute")
        try:
            return int(value.strip())
        except ValueError:
            raise fail(f"<{element}> {name}={value!r} is not an integer") from None

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal current, depth
        depth += 1
        check_element(name, attrs, depth, path, parser.CurrentLineNumber)
        if name == "ranking-item":
            if current is not None:
                raise fail("<ranking-item> inside another <ranking-item>")
            src = integer(attrs, "src-id", name)
            if src < index_base:
                raise fail(f"src-id={src} is below {index_base}; this file's ids are "
                           f"{'0' if index_base == 0 else '1'}-based (check index_base)")
            if sentences is not None and src - index_base >= sentences:
                raise fail(f"src-id={src} is outside the test set: it has {sentences:,} "
                           f"sentences (src-id {index_base} to {sentences - 1 + index_base}); "
                           "are these the judgments of another test set?")
            current = {"sentence": src - index_base, "judge": attrs.get("user", ""),
                       "item_id": attrs.get("id", ""), "doc_id": attrs.get("doc-id", ""),
                       "duration": attrs.get("duration", ""), "line": parser.CurrentLineNumber,
                       "outputs": [], "seen": set()}
        elif name == "translation":
            if current is None:
                raise fail("<translation> outside a <ranking-item>")
            systems = tuple(attrs.get("system", "").split())
            if not systems:
                raise fail("<translation> has no system attribute (or it is empty)")
            rank = integer(attrs, "rank", name)
            if rank < 1:
                raise fail(f"rank={rank} is not a positive rank (1 is best)")
            for s in systems:
                if s in current["seen"]:
                    raise fail(f"system {s!r} appears twice in one <ranking-item>")
                current["seen"].add(s)
            current["outputs"].append(RankedOutput(systems, rank))

    def end(name: str) -> None:
        nonlocal current, depth
        depth -= 1
        if name == "ranking-item" and current is not None:
            items.append(RankingItem(current["sentence"], current["judge"],
                                     tuple(current["outputs"]), current["item_id"],
                                     current["doc_id"], current["duration"], current["line"]))
            current = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise FormatError(f"malformed XML: {expat.ErrorString(exc.code)} (column {exc.offset + 1})",
                          path, exc.lineno) from None
    if not items:
        raise FormatError("no <ranking-item> elements found; expected Appraise ranking results",
                          path)
    return Judgments(tuple(items), path)

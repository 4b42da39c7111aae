"""A small XML element tree with source line numbers, for the XML formats gecscope reads.

Built with expat (standard library); every element keeps the line it starts on so that format
errors can name it. Malformed XML raises :class:`~gecscope.errors.FormatError` with line and
column.
"""

from __future__ import annotations

import xml.parsers.expat
from dataclasses import dataclass, field

from gecscope.errors import FormatError
from gecscope.formats.base import PathLike


@dataclass(slots=True)
class XmlElement:
    """An element: tag, attributes, start line, child elements and its own character data."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[XmlElement] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def find(self, tag: str) -> XmlElement | None:
        """The first child with ``tag``."""
        for c in self.children:
            if c.tag == tag:
                return c
        return None


def parse_xml(data: str | bytes, path: PathLike | None, expected: str = "") -> XmlElement:
    """The root element of ``data``; ``expected`` (e.g. "a UCCA passage file") is named in
    the error message when the input is not well-formed XML."""
    parser = xml.parsers.expat.ParserCreate()
    stack: list[XmlElement] = []
    top: list[XmlElement] = []
    hint = f"; {expected} is expected" if expected else ""

    def start(tag: str, attrib: dict[str, str]) -> None:
        el = XmlElement(tag, dict(attrib), parser.CurrentLineNumber)
        (stack[-1].children if stack else top).append(el)
        stack.append(el)

    def end(tag: str) -> None:
        stack.pop()

    def chars(text: str) -> None:
        if stack:
            stack[-1].text.append(text)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise FormatError(f"malformed XML: {xml.parsers.expat.ErrorString(exc.code)} "
                          f"(column {exc.offset + 1}){hint}", path, exc.lineno) from None
    if not top:  # pragma: no cover - expat itself rejects a document without an element
        raise FormatError(f"no XML element found{hint}", path, 1)
    return top[0]

"""A small XML element tree with source line numbers, for the XML formats gecscope reads.

Built with expat (standard library); every element keeps the line it starts on so that format
errors can name it. Malformed XML raises :class:`~gecscope.errors.FormatError` with line and
column.
"""

from __future__ import annotations

import xml.parsers.expat
from dataclasses import dataclass, field
from typing import Any

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


MAX_DEPTH = 1_000  # element nesting (UCCA files nest about 20 deep)
MAX_ATTRIBUTE = 1_000_000  # characters in one attribute value


def safe_parser(path: PathLike | None) -> Any:
    """An expat parser that refuses any DTD (internal subset or external reference: a gold
    file that needs an entity would otherwise be read with text missing) and entity
    declarations, as defusedxml does, with errors naming the file and line."""
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def doctype(name: str, *_: Any) -> None:
        raise FormatError(f"<!DOCTYPE {name}>: DTDs are not allowed (gecscope reads plain XML; "
                          "remove the DOCTYPE and any entity it defines)", path,
                          parser.CurrentLineNumber)

    def entity(name: str, *_: Any) -> None:
        raise FormatError(f"entity declaration {name!r}: DTDs and entities are not allowed",
                          path, parser.CurrentLineNumber)

    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    def external(*_: Any) -> int:
        entity("external")
        return 0  # pragma: no cover - entity() raises

    parser.ExternalEntityRefHandler = external
    return parser


def check_element(tag: str, attrib: dict[str, str], depth: int, path: PathLike | None,
                  line: int) -> None:
    """Bound nesting depth and attribute size (a hostile file must not exhaust memory)."""
    if depth > MAX_DEPTH:
        raise FormatError(f"<{tag}> is nested {depth} deep; at most {MAX_DEPTH} levels are "
                          "read", path, line)
    for k, v in attrib.items():
        if len(v) > MAX_ATTRIBUTE:
            raise FormatError(f"<{tag}> attribute {k!r} has {len(v)} characters; at most "
                              f"{MAX_ATTRIBUTE} are read", path, line)


def parse_xml(data: str | bytes, path: PathLike | None, expected: str = "") -> XmlElement:
    """The root element of ``data``; ``expected`` (e.g. "a UCCA passage file") is named in
    the error message when the input is not well-formed XML. DTDs are refused."""
    parser = safe_parser(path)
    stack: list[XmlElement] = []
    top: list[XmlElement] = []
    hint = f"; {expected} is expected" if expected else ""

    def start(tag: str, attrib: dict[str, str]) -> None:
        check_element(tag, attrib, len(stack) + 1, path, parser.CurrentLineNumber)
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

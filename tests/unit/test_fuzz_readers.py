"""Property-based attacks on every reader: random mutations of valid files.

Whatever bytes come in, a reader either returns a value or raises one of gecscope's typed
errors (never a KeyError, IndexError, UnicodeDecodeError, RecursionError...), and what it
accepts holds exactly as many sentences as the text has. Bounded (400 examples per
reader, no deadline) so the suite stays fast; hypothesis's database is not used in CI.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the fuzzing suite needs the dev extra")
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gecscope.errors import GecscopeError
from gecscope.formats.appraise_xml import parse_appraise
from gecscope.formats.base import iter_lines, read_text, split_lines
from gecscope.formats.imeasure_xml import iter_gold_xml, m2_to_gold, parse_gold
from gecscope.formats.m2 import parse_m2, read_m2
from gecscope.formats.plain import read_lines
from gecscope.semantics.ucca import Passage, parse_passage, passage_to_xml

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
M2_TEXT = (DEMO / "references.m2").read_text(encoding="utf-8")
PLAIN_TEXT = (DEMO / "careful.txt").read_text(encoding="utf-8")
GOLD_TEXT = "".join(iter_gold_xml(m2_to_gold(read_m2(DEMO / "references.m2"))))
UCCA_TEXT = passage_to_xml(Passage.from_bracketed(
    "7", "[H [A John] [P gave] [A [E a] [C book]] [A [R to] [C Mary]]] [U .]"))
APPRAISE_TEXT = """<?xml version="1.0" encoding="UTF-8"?>
<set id="t" source-language="eng" target-language="eng">
  <ranking-item src-id="2" doc-id="INPUT" id="1" duration="00:01:00" user="ann1">
    <translation system="A B" rank="1">x</translation>
    <translation system="C" rank="2">y</translation>
  </ranking-item>
  <ranking-item src-id="1" doc-id="INPUT" id="2" duration="00:00:10" user="ann2">
    <translation system="A" rank="2">x</translation>
    <translation system="C" rank="1">y</translation>
  </ranking-item>
</set>
"""

SETTINGS = settings(max_examples=400, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
PIECES = st.sampled_from(["|||", "||", "\n", "\n\n", "A ", "S ", "-1", "<", ">", "</", "&",
                          "&amp;", "\"", "'", "=", " ", "\r", "\x00", "\ufeff", "\u2028",
                          "noop", "REQUIRED", "<!DOCTYPE x>", "]]>", "<![CDATA[", "99999"])


@st.composite
def mutated(draw: st.DrawFn, text: str) -> bytes:
    """``text`` with a few random edits: deletions, insertions of format-relevant pieces or
    random bytes, duplications, truncation."""
    data = bytearray(text.encode("utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "bytes", "duplicate", "truncate"]))
        i = draw(st.integers(0, len(data)))
        if op == "delete":
            del data[i:i + draw(st.integers(1, 20))]
        elif op == "insert":
            data[i:i] = draw(PIECES).encode("utf-8")
        elif op == "bytes":
            data[i:i] = draw(st.binary(min_size=1, max_size=4))
        elif op == "duplicate":
            data[i:i] = data[i:i + draw(st.integers(1, 40))]
        else:
            del data[i:]
    return bytes(data)


def _write(tmp_path_factory: pytest.TempPathFactory, data: bytes, name: str) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(data)
    return path


def _as_text(data: bytes) -> str:
    """Accepted bytes as the readers see them: UTF-8 without BOM, line ends as ``\\n``."""
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


@SETTINGS
@given(data=mutated(M2_TEXT))
def test_m2_reader(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = _write(tmp_path_factory, data, "x.m2")
    try:
        corpus = read_m2(path)
    except GecscopeError:
        return
    text = _as_text(data)
    # a line of only whitespace ends a block too, as an empty one does; an S line inside a
    # block (a blank line lost) starts another sentence
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip()]
    starts = sum(max(1, sum(1 for ln in b.split("\n") if ln.startswith("S ") or ln.rstrip() == "S"))
                 for b in blocks)
    assert len(corpus) == starts
    assert len(parse_m2(text)) == len(corpus)


@SETTINGS
@given(data=mutated(PLAIN_TEXT))
def test_plain_reader(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = _write(tmp_path_factory, data, "x.txt")
    try:
        lines = read_lines(path)
    except GecscopeError:
        return
    text = _as_text(data)
    assert len(lines) == len(split_lines(text)) == text.count("\n") + (not text.endswith("\n"))


@SETTINGS
@given(data=mutated(PLAIN_TEXT))
def test_streamed_lines_equal_the_whole_file_reader(tmp_path_factory: pytest.TempPathFactory,
                                                    data: bytes) -> None:
    # the streaming reader (annotate's shards) accepts and refuses exactly what read_text does,
    # with the same line in its errors, and yields the same lines
    path = _write(tmp_path_factory, data, "s.txt")
    try:
        whole: list[str] | GecscopeError = split_lines(read_text(path))
    except GecscopeError as exc:
        whole = exc
    try:
        streamed: list[str] | GecscopeError = list(iter_lines(path))
    except GecscopeError as exc:
        streamed = exc
    if isinstance(whole, GecscopeError):
        assert isinstance(streamed, GecscopeError)
        assert type(streamed) is type(whole)
        # the stream names the first bad line (read_text looks for NUL bytes before decoding,
        # and numbers lines by LF only, the stream by any line end)
        if whole.line is None:
            assert streamed.line is None
        elif b"\r" not in data:
            assert streamed.line is not None and streamed.line <= whole.line
    else:
        assert streamed == whole


@SETTINGS
@given(data=mutated(GOLD_TEXT))
def test_imeasure_xml_reader(data: bytes) -> None:
    try:
        gold = parse_gold(data.decode("utf-8", errors="strict"))
    except (GecscopeError, UnicodeDecodeError):  # decoding is read_text's job, tested there
        return
    # what was accepted is written back and read again unchanged
    again = parse_gold("".join(iter_gold_xml(gold)))
    assert again.sentences == gold.sentences


@SETTINGS
@given(data=mutated(UCCA_TEXT))
def test_ucca_xml_reader(data: bytes) -> None:
    try:
        passage = parse_passage(data)
    except GecscopeError:
        return
    xml = passage_to_xml(passage)
    assert passage_to_xml(parse_passage(xml)) == xml  # written back and read again unchanged


def count_ranking_items(text: str) -> int:
    """An independent count of the ``<ranking-item>`` elements (SAX, without namespace
    processing as XML 1.0 reads names). Namespaces in XML would refuse a name such as
    ``:duration`` or an unbound prefix (``x:user``), which ElementTree applies; but XML 1.0
    (section 2.3, "Names and Tokens") makes ``:`` a name start character that "XML processors
    must accept", and Appraise files declare no namespaces: the reader reads plain XML 1.0."""
    import xml.sax

    class Counter(xml.sax.ContentHandler):
        items = 0

        def startElement(self, name: str, attrs: object) -> None:
            self.items += name == "ranking-item"

    counter = Counter()
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)  # the declaration may lie
    xml.sax.parseString(text.encode("utf-8"), counter)
    return counter.items


# A name starting with ":" (once generated by the fuzzer) and an undeclared prefix: names that
# are well-formed XML 1.0 but not namespace-well-formed
COLON_NAMES = (APPRAISE_TEXT.replace(' duration="00:01:00"', ' :duration="00:01:00"')
               .replace(' user="ann2"', ' x:user="ann2"'))


def test_colon_names_are_plain_xml_names() -> None:
    judgments = parse_appraise(COLON_NAMES, index_base=1)
    assert count_ranking_items(COLON_NAMES) == len(judgments.items) == 2
    # the attributes so named are not the ones Appraise defines
    assert judgments.items[0].duration == "" and judgments.items[1].judge == ""
    assert judgments.items[0].judge == "ann1"


@SETTINGS
@given(data=mutated(APPRAISE_TEXT))
@example(data=COLON_NAMES.encode("utf-8"))
def test_appraise_xml_reader(data: bytes) -> None:
    try:
        judgments = parse_appraise(data.decode("utf-8"), index_base=1)
    except (GecscopeError, UnicodeDecodeError):
        return
    assert len(judgments.items) == count_ranking_items(data.decode("utf-8"))

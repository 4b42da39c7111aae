"""Appraise XML reader: collapsed systems, ties, 0/1-based src-id, errors with line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import FormatError
from gecscope.formats.appraise_xml import parse_appraise, read_appraise
from gecscope.judgments import LOSS, TIE, WIN, Comparison, RankedOutput

SAMPLE = """<?xml version="1.0" encoding="UTF-8"?>
<appraise-results>
<error-correction-ranking-result source-language="err" id="x" target-language="cor">
  <ranking-item src-id="12" doc-id="INPUT" id="1" duration="00:01:00" user="ann1">
    <translation system="B C" rank="2" />
    <translation system="A" rank="1" />
    <translation system="D" rank="2" />
  </ranking-item>
  <ranking-item src-id="3" doc-id="INPUT" id="2" duration="00:00:10" user="ann2">
    <translation rank="1" system="D"/>
    <translation rank="3" system="A"/>
  </ranking-item>
</error-correction-ranking-result>
</appraise-results>
"""


def test_items_systems_and_sentence_positions() -> None:
    j = parse_appraise(SAMPLE, index_base=1)
    assert len(j) == 2
    first = j.items[0]
    actual = (first.sentence, first.judge, first.item_id, first.line)
    assert actual == (11, "ann1", "1", 4)
    assert first.outputs == (RankedOutput(("B", "C"), 2), RankedOutput(("A",), 1),
                             RankedOutput(("D",), 2))
    assert first.ranks == {"B": 2, "C": 2, "A": 1, "D": 2}
    assert j.systems == ("A", "B", "C", "D")
    assert j.judges == ("ann1", "ann2")
    assert j.sentences == (2, 11)


def test_zero_based_ids_are_kept() -> None:
    j = parse_appraise(SAMPLE, index_base=0)
    actual = [it.sentence for it in j]
    assert actual == [12, 3]


def test_collapsed_systems_expand_into_ties_and_pairs() -> None:
    j = parse_appraise(SAMPLE, index_base=1)
    got = [(c.a, c.b, c.outcome) for c in j.items[0].comparisons()]
    assert got == [("B", "C", TIE), ("B", "A", LOSS), ("B", "D", TIE), ("C", "A", LOSS),
                   ("C", "D", TIE), ("A", "D", WIN)]
    assert j.comparisons(["A", "D"]) == [Comparison("A", "D", WIN, 11, "ann1"),
                                         Comparison("D", "A", WIN, 2, "ann2")]


def test_filter_by_judge() -> None:
    j = parse_appraise(SAMPLE, index_base=1)
    actual = [it.judge for it in j.filter(judges=["ann2"])]
    assert actual == ["ann2"]
    actual = [it.judge for it in j.filter(exclude_judges=["ann2"])]
    assert actual == ["ann1"]


def test_read_from_file_with_bom_and_crlf(tmp_path: Path) -> None:
    p = tmp_path / "j.xml"
    p.write_bytes(b"\xef\xbb\xbf" + SAMPLE.replace("\n", "\r\n").encode())
    j = read_appraise(p, index_base=1)
    actual = [it.sentence for it in j]
    assert actual == [11, 2]
    assert j.path == str(p)


@pytest.mark.parametrize(("text", "line", "message"), [
    (("<a>\n<ranking-item src-id='1' user='u'>\n<translation system='A' rank='1'>\n"
     "</ranking-item>\n</a>"), 4, "malformed XML"),
    ("<a>\n<ranking-item src-id='1'>\n<translation system='A' rank='x'/>\n</ranking-item>\n</a>",
     3, "rank='x' is not an integer"),
    ("<a>\n<ranking-item src-id='1'>\n<translation system='A'/>\n</ranking-item>\n</a>",
     3, "no rank attribute"),
    ("<a>\n<ranking-item src-id='1'>\n<translation system='A' rank='0'/>\n</ranking-item>\n</a>",
     3, "not a positive rank"),
    ("<a>\n<ranking-item>\n</ranking-item>\n</a>", 2, "no src-id attribute"),
    ("<a>\n<ranking-item src-id='0'>\n</ranking-item>\n</a>", 2, "1-based"),
    (("<a>\n<ranking-item src-id='1'>\n<translation system='A B' rank='1'/>\n"
     "<translation system='B' rank='2'/>\n</ranking-item>\n</a>"), 4, "'B' appears twice"),
    ("<a>\n<translation system='A' rank='1'/>\n</a>", 2, "outside a <ranking-item>"),
    ("<a>\n<ranking-item src-id='1'>\n<translation system=' ' rank='1'/>\n</ranking-item>\n</a>",
     3, "no system attribute"),
])
def test_errors_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_appraise(text, index_base=1, path="j.xml")
    assert info.value.line == line
    assert info.value.path == "j.xml"
    assert message in str(info.value)


def test_no_items_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "empty.xml"
    p.write_text("<appraise-results></appraise-results>\n")
    with pytest.raises(FormatError, match="no <ranking-item>"):
        read_appraise(p, index_base=0)


def test_missing_file_and_bad_base(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="file not found"):
        read_appraise(tmp_path / "nope.xml", index_base=0)
    with pytest.raises(ValueError, match="index_base"):
        read_appraise(tmp_path / "nope.xml", index_base=2)

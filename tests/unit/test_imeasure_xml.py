"""I-measure gold XML: reading, writing, errors with line numbers, M2 conversion both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import FormatError
from gecscope.formats.imeasure_xml import (
    Alternative,
    Correction,
    Error,
    cluster_edits,
    gold_to_m2,
    m2_to_gold,
    parse_gold,
    read_gold,
    treebank_tokenize,
    write_gold,
)
from gecscope.formats.m2 import parse_m2


def test_read_the_tool_example(shared_data: Path) -> None:
    gold = read_gold(shared_data / "imeasure" / "gold.xml")
    (s,) = gold.sentences
    actual = (s.id, s.numann, s.text)
    assert actual == ("1", 2, "This machines is designed for help people .")
    assert s.errors == (
        Error("1", "SVA", True, (
            Alternative("0", (Correction(0, 1, "These"), Correction(2, 3, "are"))),
            Alternative("1", (Correction(1, 2, "machine"),)))),
        Error("2", "Vform", True, (
            Alternative("0", (Correction(5, 6, "helping"),)),
            Alternative("1", (Correction(4, 5, "to"),)))))


def test_write_then_read_round_trip(shared_data: Path, tmp_path: Path) -> None:
    gold = read_gold(shared_data / "imeasure" / "gold.xml")
    out = tmp_path / "g.xml"
    write_gold(out, gold)
    assert read_gold(out).scripts == gold.scripts


def test_escaping_and_empty_corrections(tmp_path: Path) -> None:
    text = ('<scripts><script id="1"><sentence id="7" numann="1"><text>a &amp; &lt;b&gt;</text>'
            '<error-list><error id="1" req="no" type="X&quot;"><alt ann="0">'
            '<c start="1" end="2"/><c start="3" end="3">&amp; c</c></alt></error></error-list>'
            '</sentence></script></scripts>')
    gold = parse_gold(text)
    s = gold.sentences[0]
    assert s.tokens == ("a", "&", "<b>")
    assert s.errors[0].type == 'X"'
    assert s.errors[0].required is False
    assert s.errors[0].alternatives[0].corrections == (Correction(1, 2, ""),
                                                       Correction(3, 3, "& c"))
    write_gold(tmp_path / "x.xml", gold)
    assert read_gold(tmp_path / "x.xml").scripts == gold.scripts


@pytest.mark.parametrize("text,line,fragment", [
    ('<scripts>\n<script id="1">\n<sentence id="1" numann="1">\n<text>a b</text>\n</script>',
     5, "malformed XML"),
    (('<scripts>\n<script id="1">\n<sentence id="1">\n<text>a</text>\n</sentence></script>'
      '</scripts>'), 3, "numann"),
    (('<scripts><script id="1">\n<sentence id="1" numann="x"><text>a</text></sentence>'
      '</script></scripts>'), 2, "not an integer"),
    (('<scripts><script id="1"><sentence id="1" numann="1"><text>a b</text><error-list>\n'
      '<error id="1" req="yes"><alt ann="0">\n<c start="1" end="3">x</c></alt></error>'
      '</error-list></sentence></script></scripts>'), 3, "out of range"),
    (('<scripts><script id="1"><sentence id="1" numann="1"><text>a</text><error-list>\n'
      '<error id="1" req="maybe"></error></error-list></sentence></script></scripts>'), 2,
     "req"),
    ('<scripts>\n<bogus/></scripts>', 2, "unexpected <bogus>"),
    ('<doc/>', 1, "expected <scripts>"),
])
def test_malformed_input_names_the_line(tmp_path: Path, text: str, line: int,
                                        fragment: str) -> None:
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(FormatError) as exc:
        read_gold(path)
    actual = (exc.value.path, exc.value.line)
    assert actual == (str(path), line)
    assert fragment in str(exc.value)


M2 = """S A B C D E F
A 1 3|||R1|||x y|||REQUIRED|||-NONE-|||0
A 2 2|||M|||z|||REQUIRED|||-NONE-|||1
A 2 3|||R2|||w||v|||REQUIRED|||-NONE-|||1
A 5 6|||U||||||REQUIRED|||-NONE-|||1

S G H
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A 0 1|||R|||g|||REQUIRED|||-NONE-|||1

S I
"""


def test_m2_to_gold_clusters_like_the_reference_converter() -> None:
    gold = m2_to_gold(parse_m2(M2))
    s1, s2, s3 = gold.sentences
    assert s1.numann == 2
    # Longest first: (1,3) starts a cluster, (2,3) overlaps it, the insertion at 2 lies
    # strictly inside it: one required error with both annotators; (5,6) is annotator 1 only.
    assert s1.errors == (
        Error("1", "R1/R2/M", True, (
            Alternative("0", (Correction(1, 3, "x y"),)),
            Alternative("1", (Correction(2, 3, "w"), Correction(2, 2, "z"))))),
        Error("2", "U", False, (Alternative("1", (Correction(5, 6, ""),)),)))
    # a noop annotator counts in numann, so annotator 1's edit is optional
    actual = (s2.numann, [e.required for e in s2.errors])
    assert actual == (2, [False])
    actual = (s3.numann, s3.errors)
    assert actual == (0, ())


def test_cluster_edits_does_not_merge_adjacent_spans() -> None:
    from gecscope.formats.imeasure_xml import _M2Edit

    edits = [_M2Edit(0, 1, "a", "x", 0), _M2Edit(1, 2, "b", "y", 1), _M2Edit(1, 1, "c", "z", 0)]
    clusters = cluster_edits(edits)
    actual = [[(e.start, e.end) for e in c] for c in clusters]
    assert actual == [[(0, 1)], [(1, 1)], [(1, 2)]]


def test_gold_to_m2_and_back() -> None:
    corpus = parse_m2(M2)
    gold = m2_to_gold(corpus)
    back = gold_to_m2(gold)
    assert m2_to_gold(back).sentences == gold.sentences
    assert back.sentences[1].annotators == (0, 1)
    assert back.sentences[1].edits(0) == ()


def test_treebank_retokenisation_of_corrections() -> None:
    assert treebank_tokenize("known,the") == ["known", ",", "the"]
    assert treebank_tokenize("over the last few decades.") == ["over", "the", "last", "few",
                                                                "decades", "."]
    assert treebank_tokenize("one 's") == ["one", "'s"]
    assert treebank_tokenize("face-to-face") == ["face-to-face"]
    gold = m2_to_gold(parse_m2("S a b\nA 0 1|||P|||x,y|||REQUIRED|||-NONE-|||0\n"),
                      retokenize="treebank")
    assert gold.sentences[0].errors[0].alternatives[0].corrections == (Correction(0, 1, "x , y"),)


DTD_CASES = {
    "internal": '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e "text">]>\n<x>&e;</x>\n',
    "external": '<?xml version="1.0"?>\n<!DOCTYPE x SYSTEM "file:///etc/passwd">\n<x/>\n',
    "plain doctype": '<!DOCTYPE x>\n<x/>\n',
}


@pytest.mark.parametrize("case", sorted(DTD_CASES))
def test_every_xml_reader_refuses_dtds(tmp_path: Path, case: str) -> None:
    # a document with a DTD used to be parsed, its external entities silently dropped
    from gecscope.formats.appraise_xml import read_appraise
    from gecscope.formats.imeasure_xml import read_gold
    from gecscope.semantics.ucca import read_passage

    f = tmp_path / "doc.xml"
    f.write_text(DTD_CASES[case], encoding="utf-8")
    for reader in (read_gold, read_passage, lambda p: read_appraise(p, index_base=0)):
        with pytest.raises(FormatError, match="not allowed") as err:
            reader(f)
        assert err.value.path == str(f) and err.value.line == 2 - (case == "plain doctype")


def test_deep_nesting_is_bounded(tmp_path: Path) -> None:
    from gecscope.formats.imeasure_xml import read_gold

    f = tmp_path / "deep.xml"
    f.write_text("<a>" * 5000 + "</a>" * 5000, encoding="utf-8")
    with pytest.raises(FormatError, match="nested 1001 deep"):
        read_gold(f)

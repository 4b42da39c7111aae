"""UCCA XML reader/writer: data model, exact round trip, FormatError with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import FormatError
from gecscope.semantics.graph import EvalGraph
from gecscope.semantics.ucca import (
    Passage,
    parse_passage,
    passage_to_xml,
    read_passage,
    write_passage,
)

# "John moved to Paris ." with an implicit participant and a remote edge, in the layout of the
# UCCA corpora (categories, extra, an escaped remark and a non-ASCII token).
SAMPLE = """<root annotationID="0" passageID="77">
  <attributes userID="5" />
  <layer layerID="0">
    <attributes />
    <node ID="0.1" type="Word">
      <attributes paragraph="1" paragraph_position="1" text="John" />
    </node>
    <node ID="0.2" type="Word">
      <attributes paragraph="1" paragraph_position="2" text="moved" />
    </node>
    <node ID="0.3" type="Word">
      <attributes paragraph="1" paragraph_position="3" text="to" />
    </node>
    <node ID="0.4" type="Word">
      <attributes paragraph="1" paragraph_position="4" text="P&#233;ris" />
    </node>
    <node ID="0.5" type="Punctuation">
      <attributes paragraph="1" paragraph_position="5" text="." />
    </node>
  </layer>
  <layer layerID="1">
    <attributes />
    <node ID="1.1" type="FN">
      <attributes />
      <edge toID="1.2" type="H">
        <attributes />
        <category layer_name="UCCA's foundational layer (+restrictions)" slot="1" tag="H" />
      </edge>
      <edge toID="1.9" type="U">
        <attributes />
        <category tag="U" />
      </edge>
    </node>
    <node ID="1.2" type="FN">
      <attributes />
      <extra remarks="is &quot;to&quot; an R?" tree_id="1" />
      <edge toID="1.3" type="A">
        <attributes />
      </edge>
      <edge toID="1.4" type="P">
        <attributes />
      </edge>
      <edge toID="1.5" type="A">
        <attributes uncertain="True" />
      </edge>
      <edge toID="1.8" type="A">
        <attributes />
      </edge>
    </node>
    <node ID="1.3" type="FN">
      <attributes />
      <edge toID="0.1" type="Terminal">
        <attributes />
      </edge>
    </node>
    <node ID="1.4" type="FN">
      <attributes />
      <edge toID="0.2" type="Terminal">
        <attributes />
      </edge>
      <edge toID="1.3" type="A">
        <attributes remote="True" />
      </edge>
    </node>
    <node ID="1.5" type="FN">
      <attributes />
      <edge toID="1.6" type="R">
        <attributes />
      </edge>
      <edge toID="1.7" type="C">
        <attributes />
      </edge>
    </node>
    <node ID="1.6" type="FN">
      <attributes />
      <edge toID="0.3" type="Terminal">
        <attributes />
      </edge>
    </node>
    <node ID="1.7" type="FN">
      <attributes />
      <edge toID="0.4" type="Terminal">
        <attributes />
      </edge>
    </node>
    <node ID="1.8" type="FN">
      <attributes implicit="True" />
    </node>
    <node ID="1.9" type="PNCT">
      <attributes />
      <edge toID="0.5" type="Terminal">
        <attributes />
      </edge>
    </node>
  </layer>
</root>
"""


def test_data_model() -> None:
    p = parse_passage(SAMPLE, "sample.xml")
    assert p.id == "77"
    assert p.annotation_id == "0"
    assert p.attrib == {"userID": "5"}
    assert p.tokens == ("John", "moved", "to", "Péris", ".")
    actual = [t.punct for t in p.terminals]
    assert actual == [False, False, False, False, True]
    actual = [t.position for t in p.terminals]
    assert actual == [1, 2, 3, 4, 5]
    assert p.root().id == "1.1"
    assert p.units["1.8"].implicit
    assert not p.units["1.3"].implicit
    edges = [(e.parent, e.child, e.tag, e.remote) for e in p.edges() if e.tag != "Terminal"]
    assert edges == [("1.1", "1.2", "H", False), ("1.1", "1.9", "U", False),
                     ("1.2", "1.3", "A", False), ("1.2", "1.4", "P", False),
                     ("1.2", "1.5", "A", False), ("1.2", "1.8", "A", False),
                     ("1.4", "1.3", "A", True), ("1.5", "1.6", "R", False),
                     ("1.5", "1.7", "C", False)]
    h = p.units["1.1"].edges[0]
    assert h.tags == ("H",)
    assert h.categories[0].attrib == (("layer_name", "UCCA's foundational layer (+restrictions)"),
                                      ("slot", "1"), ("tag", "H"))
    assert p.units["1.2"].edges[2].attrib == {"uncertain": "True"}
    assert p.units["1.2"].extras == [{"remarks": 'is "to" an R?', "tree_id": "1"}]


def test_yields_exclude_punctuation_and_remote() -> None:
    g = EvalGraph(parse_passage(SAMPLE))
    assert {u: sorted(y) for u, y in g.yields.items()} == {
        "1.1": [0, 1, 2, 3], "1.2": [0, 1, 2, 3], "1.3": [0], "1.4": [1], "1.5": [2, 3],
        "1.6": [2], "1.7": [3], "1.8": [], "1.9": []}
    g2 = EvalGraph(parse_passage(SAMPLE), include_punct=True)
    assert sorted(g2.yields["1.1"]) == [0, 1, 2, 3, 4]
    actual = [(e.label, e.kind) for e in g.edges]
    assert actual == [
        ("H", "primary"), ("A", "primary"), ("P", "primary"), ("A", "primary"),
        ("A", "implicit"), ("A", "remote"), ("R", "primary"), ("C", "primary")]


def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    p = parse_passage(SAMPLE)
    assert passage_to_xml(p) == SAMPLE
    out = tmp_path / "77.xml"
    write_passage(p, out)
    assert out.read_text(encoding="ascii") == SAMPLE
    assert read_passage(out) == p


def test_builder_passage_round_trips() -> None:
    p = Passage.from_tokens("b", ["I", "ran", "."], [False, False, True])
    scene = p.add_unit("1.1", "H")
    a = p.add_unit(scene, "A")
    p.add_terminal(a, 1)
    v = p.add_unit(scene, "P")
    p.add_terminal(v, 2)
    imp = p.add_unit(scene, "D", implicit=True)
    u = p.add_unit("1.1", "U", unit_type="PNCT")
    p.add_terminal(u, 3)
    p.add_edge(v, a, "A", remote=True)
    q = parse_passage(passage_to_xml(p))
    assert q == p
    actual = (scene, a, v, imp, u)
    assert actual == ("1.2", "1.3", "1.4", "1.5", "1.6")
    assert q.units[imp].implicit


@pytest.mark.parametrize(("text", "message", "line"), [
    ("<root passageID='1'><layer layerID='0'>", "malformed XML", 1),
    ("<root passageID='1'>\n<layer layerID='0'>\n<node ID='0.1' type='Word'>\n</layer></root>",
     "malformed XML", 4),
    ("<passage passageID='1'/>", "expected <root>", 1),
    ("<root><layer layerID='0'/></root>", "passageID", 1),
    ("<root passageID='1'><layer layerID='1'/></root>", "layerID=\"0\"", 1),
    (("<root passageID='1'>\n<layer layerID='0'>\n<node ID='0.1' type='Word'>"
     "<attributes/></node></layer></root>"), "no text attribute", 3),
    (("<root passageID='1'><layer layerID='0'>\n<node ID='0.1' type='Token'>"
     "<attributes text='a'/></node></layer></root>"), "expected Word or Punctuation", 2),
    (("<root passageID='1'><layer layerID='0'/>\n<layer layerID='1'>\n<node ID='1.1' type='FN'>"
     "\n<edge toID='1.5' type='H'/></node></layer></root>"), "does not exist", 4),
    (("<root passageID='1'><layer layerID='0'/>\n<layer layerID='1'>\n<node ID='1.1' type='FN'>"
     "\n<edge toID='0.9' type='Terminal'/></node></layer></root>"), "not a token", 4),
    (("<root passageID='1'><layer layerID='0'/><layer layerID='1'>\n"
     "<node ID='1.1' type='FN'><edge toID='1.2' type='H'/></node>\n"
     "<node ID='1.2' type='FN'>\n<edge toID='1.1' type='A'/></node></layer></root>"),
     "cycle", 4),
    (("<root passageID='1'><layer layerID='0'/><layer layerID='1'>\n"
     "<node ID='1.1' type='FN'/>\n<node ID='1.1' type='FN'/></layer></root>"),
     "defined twice", 3),
    (("<root passageID='1'><layer layerID='0'/><layer layerID='1'>\n"
     "<node ID='1.1' type='FN'>\n<edge type='H'/></node></layer></root>"), "toID", 3),
])
def test_format_errors_name_file_and_line(text: str, message: str, line: int) -> None:
    with pytest.raises(FormatError) as info:
        parse_passage(text, "bad.xml")
    assert message in str(info.value)
    actual = (info.value.path, info.value.line)
    assert actual == ("bad.xml", line)


def test_remote_cycle_is_allowed() -> None:
    text = ("<root passageID='1'><layer layerID='0'><node ID='0.1' type='Word'>"
            "<attributes text='a'/></node></layer><layer layerID='1'>"
            "<node ID='1.1' type='FN'><edge toID='1.2' type='H'/></node>"
            "<node ID='1.2' type='FN'><edge toID='0.1' type='Terminal'/>"
            "<edge toID='1.1' type='A'><attributes remote='True'/></edge></node>"
            "</layer></root>")
    assert parse_passage(text).units["1.2"].edges[1].remote


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="file not found"):
        read_passage(tmp_path / "none.xml")
    with pytest.raises(FormatError, match="is a directory"):
        read_passage(tmp_path)


def test_shared_corpora_round_trip(shared_data: Path) -> None:
    files = sorted((shared_data / "ucca" / "learner-usim").glob("*.xml"))
    files += sorted((shared_data / "ucca" / "english-ewt").glob("*.xml"))[:10]
    files += sorted((shared_data / "ucca" / "english-20k").glob("*.xml"))[:10]
    assert len(files) == 42
    for f in files:
        assert passage_to_xml(read_passage(f)).encode("ascii") == f.read_bytes(), f.name

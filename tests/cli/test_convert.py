"""``gecscope convert``: M2 <-> I-measure gold XML, in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.formats.imeasure_xml import read_gold
from gecscope.formats.m2 import read_m2

M2 = """S This machines is designed for help people .
A 0 1|||SVA|||These|||REQUIRED|||-NONE-|||0
A 0 2|||SVA|||These machines|||REQUIRED|||-NONE-|||1
A 5 6|||Vform|||helping|||REQUIRED|||-NONE-|||0

S Fine .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""


def test_m2_to_ixml_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m2 = tmp_path / "in.m2"
    m2.write_text(M2)
    xml = tmp_path / "out.xml"
    assert main(["convert", "m2-to-ixml", str(m2), "--output", str(xml)]) == 0
    assert "2 sentences, 2 errors" in capsys.readouterr().err
    gold = read_gold(xml)
    s1, s2 = gold.sentences
    actual = [(e.required, [a.annotator for a in e.alternatives]) for e in s1.errors]
    assert actual == [
        (True, ["0", "1"]), (False, ["0"])]
    actual = (s2.numann, s2.errors)
    assert actual == (1, ())
    back = tmp_path / "back.m2"
    assert main(["convert", "ixml-to-m2", str(xml), "--output", str(back)]) == 0
    corpus = read_m2(back)
    actual = [(e.start, e.end, e.correction) for e in corpus[0].edits(1)]
    assert actual == [
        (0, 2, ("These", "machines"))]
    assert corpus[1].annotators == (0,)


def test_stdout_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m2 = tmp_path / "in.m2"
    m2.write_text(M2)
    assert main(["convert", "m2-to-ixml", str(m2)]) == 0
    out = capsys.readouterr().out
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<scripts>')
    assert '<c start="0" end="2">These machines</c>' in out


def test_malformed_xml_exit_code_and_message(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text("<scripts>\n<script id='1'>\n</scripts>\n")
    assert main(["convert", "ixml-to-m2", str(bad)]) == 65
    err = capsys.readouterr().err
    assert f"{bad}:3: malformed XML" in err


def test_conversion_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["convert"])
    assert "CONVERSION" in capsys.readouterr().err

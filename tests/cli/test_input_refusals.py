"""The smaller refusals of issue #41: each bad input stops with exit 65 and names its file
(and line), through the CLI and the Python API alike; gecscope's warnings print in its own
format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gecscope import EvalData
from gecscope.cli.main import main
from gecscope.errors import FormatError
from gecscope.formats.appraise_xml import read_appraise
from gecscope.formats.m2 import parse_m2

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"


@pytest.mark.parametrize("text", ["", "\n\n", "  \n"])
def test_an_empty_reference_file_has_no_sentences(tmp_path: Path, text: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "empty.m2"
    ref.write_text(text, encoding="utf-8")
    rc = main(["evaluate", "-m", "m2", "-r", str(ref), "--hyp", str(DEMO / "careful.txt")])
    err = capsys.readouterr().err
    assert rc == 65
    assert f"{ref}: no sentences: the reference file is empty" in err
    with pytest.raises(FormatError, match="no sentences"):
        EvalData.from_files(ref)
    # check says it once, as an error
    assert main(["check", "-r", str(ref), "--hyp", str(DEMO / "careful.txt")]) == 4
    out = capsys.readouterr().out
    assert out.count("error:") == 1 and "[empty-file]" in out


def test_an_m2_block_without_its_blank_line_is_an_error(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    blocks = (DEMO / "references.m2").read_text(encoding="utf-8").split("\n\n")
    # the blank line after the third block is lost: m2scorer would read blocks 3 and 4 as one
    text = "\n\n".join(blocks[:2]) + "\n\n" + blocks[2] + "\n" + "\n\n".join(blocks[3:])
    bad = tmp_path / "joined.m2"
    bad.write_text(text, encoding="utf-8")
    line = text.split("\n").index(blocks[3].split("\n")[0]) + 1
    first = text.split("\n").index(blocks[2].split("\n")[0]) + 1
    rc = main(["evaluate", "-m", "m2", "-r", str(bad), "--hyp", str(DEMO / "careful.txt")])
    err = capsys.readouterr().err
    assert rc == 65
    assert f"{bad}:{line}: found an S line where a blank line was expected" in err
    assert f"the block of the sentence on line {first} has no blank line" in err
    with pytest.raises(FormatError) as exc:
        parse_m2(text, str(bad))
    assert exc.value.line == line
    assert len(parse_m2((DEMO / "references.m2").read_text(encoding="utf-8"))) == 12


def _gjg15_with(shared_data: Path, tmp_path: Path, src_id: int) -> Path:
    text = (shared_data / "gjg15" / "judgments.xml").read_text(encoding="utf-8")
    text, n = re.subn(r'src-id="\d+"', f'src-id="{src_id}"', text, count=1)
    assert n == 1
    d = tmp_path / "gjg15"
    d.mkdir()
    (d / "judgments.xml").write_text(text, encoding="utf-8")
    return d


def test_a_judged_sentence_outside_the_test_set_names_its_file_and_line(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _gjg15_with(shared_data, tmp_path, 1312)  # 0-based: 1311 is the last sentence
    xml = d / "judgments.xml"
    line = next(i for i, ln in enumerate(xml.read_text(encoding="utf-8").split("\n"), 1)
                if 'src-id="1312"' in ln)
    want = f"{xml}:{line}: src-id=1312 is outside the test set: it has 1,312 sentences"
    for argv in (["meta-eval", "human", "--benchmark", "gjg15", "--data-dir", str(d)],
                 ["meta-eval", "sentence", "--benchmark", "gjg15", "--data-dir", str(d),
                  "--submissions", str(shared_data / "conll14" / "submissions"), "-m",
                  "gecscope.meta_eval.examples:CharLengthMetric"]):
        assert main(argv) == 65
        assert want in capsys.readouterr().err
    with pytest.raises(FormatError, match="outside the test set") as exc:
        read_appraise(xml, index_base=0, sentences=1312)
    assert exc.value.line == line
    assert len(read_appraise(xml, index_base=0))  # without the size: read as before


def test_gecscope_warnings_print_in_its_format(shared_data: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # meta-eval scores NTHU, whose lines 38, 40, 41, 43, 165 and 167 are other source
    # sentences' outputs (6 lines; worked out in tests/cli/test_check.py): the gate's
    # warning, as a line
    rc = main(["meta-eval", "sentence", "--benchmark", "gjg15", "--data-dir",
               str(shared_data / "gjg15"), "--submissions",
               str(shared_data / "conll14" / "submissions"), "-m",
               "gecscope.meta_eval.examples:CharLengthMetric", "--resamples", "10"])
    err = capsys.readouterr().err
    assert rc == 0
    assert "gecscope: warning: NTHU: 6 line(s) look like the output of another" in err
    assert "InputWarning" not in err and ".py:" not in err

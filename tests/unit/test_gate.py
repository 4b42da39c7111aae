"""The gate (#41): every entry point (the CLI, ``gecscope.evaluate``, ``Metric.*``) refuses or
names what would otherwise be scored wrong with exit 0: lines dropped, added or swapped at any
distance, another test set's output, a file far too large, an over-long source sentence,
typographic quotes an LLM writes. Real CoNLL-2014 data, each case through the CLI and the API.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from gecscope import get_metric
from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import FormatError, InputWarning
from gecscope.evaluation import evaluate
from gecscope.gate import GateOptions, admit
from gecscope.gate.findings import InputRefusedError

EXIT_WARNINGS, EXIT_ERRORS = 3, 4  # gecscope check


@pytest.fixture(scope="module")
def amu_lines(shared_data: Path) -> list[str]:
    text = (shared_data / "conll14" / "submissions" / "AMU").read_text(encoding="utf-8")
    return text.split("\n")[:1312]


@pytest.fixture(scope="module")
def official(shared_data: Path) -> EvalData:
    return EvalData.from_files(shared_data / "conll14" / "official-2014.combined.m2")


@pytest.fixture(scope="module")
def amu_f05(official: EvalData, amu_lines: list[str]) -> float:
    [r] = evaluate("m2", official, Hypothesis.from_texts(amu_lines, "AMU"))
    return r.score.value


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def detokenise(line: str) -> str:
    return re.sub(r" ([.,!?;:])", r"\1", re.sub(r" (n't|'s)\b", r"\1", line))


@pytest.mark.requires_data
@pytest.mark.parametrize("pair", [(3, 4), (100, 900), (1, 1312)])
def test_a_swap_at_any_distance_is_named(official: EvalData, amu_lines: list[str],
                                         conll14: Path, tmp_path: Path, capsys,
                                         pair: tuple[int, int]) -> None:
    """Two lines swapped passed unseen (``check``: 0 warnings). Now: a warning naming both
    lines, from evaluate, check and the API; scored as given (as m2scorer scores it)."""
    a, b = pair
    lines = list(amu_lines)
    lines[a - 1], lines[b - 1] = lines[b - 1], lines[a - 1]
    said = f"lines {a} and {b} are swapped"
    hyp = Hypothesis.from_texts(lines, "swapped")
    with pytest.warns(InputWarning, match=said):
        [r] = evaluate("m2", official, hyp)
    assert 0 < r.score.value
    path = write(tmp_path / "swapped", lines)
    m2 = str(conll14 / "official-2014.combined.m2")
    assert main(["evaluate", "-r", m2, "--hyp", str(path), "-m", "m2"]) == 0
    assert said in capsys.readouterr().err
    assert main(["check", "-r", m2, "--hyp", str(path)]) == EXIT_WARNINGS
    out = capsys.readouterr().out
    assert f"{path}:{a}" in out and said in out and "[misplaced-lines]" in out


@pytest.mark.requires_data
@pytest.mark.parametrize("drop", [2, 700, 1312])
def test_a_dropped_line_is_refused_naming_the_sentence(official: EvalData,
                                                       amu_lines: list[str], conll14: Path,
                                                       tmp_path: Path, capsys,
                                                       drop: int) -> None:
    """``sed '2d'`` gave source sentence 2 the fragment "Genetic", F0.5 0.3497, exit 0."""
    lines = amu_lines[:drop - 1] + amu_lines[drop:]
    with pytest.raises(InputRefusedError, match=rf"source sentence {drop} ") as caught:
        evaluate("m2", official, Hypothesis.from_texts(lines, "dropped"))
    assert caught.value.allow == "uncertain-alignment" and caught.value.exit_code == 65
    with pytest.raises(InputRefusedError):  # the Metric API: the same gate
        get_metric("m2")().corpus_score(lines, m2=str(conll14 / "official-2014.combined.m2"))
    path = write(tmp_path / "dropped", lines)
    m2 = str(conll14 / "official-2014.combined.m2")
    for level in ("auto", "sentence", "paragraph"):
        assert main(["evaluate", "-r", m2, "--hyp", str(path), "-m", "m2",
                     "--hyp-level", level]) == 65
        out, err = capsys.readouterr()
        assert f"{path}" in err and "F0.5" not in out
        if level == "sentence":  # line by line: the count, and where the lines diverge
            assert "has 1311 lines but 1312 were expected" in err
        else:  # realigned: the sentence left without a certain match
            assert f"without a certain match: source sentence {drop} " in err
    assert main(["check", "-r", m2, "--hyp", str(path)]) == EXIT_ERRORS
    if drop < 1312:  # the first place the lines diverge, as given
        assert f"first diverge at hypothesis line {drop}" in capsys.readouterr().out


@pytest.mark.requires_data
def test_one_drop_and_one_added_chatter_line_is_refused(official: EvalData,
                                                        amu_lines: list[str]) -> None:
    """Same line count, so it looked fine: every line after the drop is misplaced."""
    lines = [amu_lines[0], *amu_lines[2:], "Let me know if you need anything else!"]
    with pytest.raises(InputRefusedError, match=r"first diverge at hypothesis line 2.*"
                                                r"source sentence 2 has no line"):
        evaluate("m2", official, Hypothesis.from_texts(lines, "chatty"))


@pytest.mark.requires_data
def test_another_test_set_is_refused(official: EvalData, shared_data: Path, conll14: Path,
                                     capsys) -> None:
    """JFLEG's test sources against CoNLL-2014 scored F0.5 0.28, exit 0, check all clear."""
    jfleg = shared_data / "jfleg" / "test" / "test.src"
    lines = jfleg.read_text(encoding="utf-8").splitlines()
    with pytest.raises(InputRefusedError, match="looks like the output for another test set"):
        evaluate("m2", official, Hypothesis.from_texts(lines, "jfleg"))
    m2 = str(conll14 / "official-2014.combined.m2")
    assert main(["evaluate", "-r", m2, "--hyp", str(jfleg), "-m", "m2"]) == 65
    err = capsys.readouterr().err
    assert "another test set" in err and "--allow other-test-set" in err
    assert main(["check", "-r", m2, "--hyp", str(jfleg)]) == EXIT_ERRORS
    assert "[other-test-set]" in capsys.readouterr().out
    # the same line count (the first 1,312 of JFLEG dev+test), and allowed: scored, warned
    more = (lines + (shared_data / "jfleg" / "dev" / "dev.src").read_text(
        encoding="utf-8").splitlines())[:len(official)]
    with pytest.raises(InputRefusedError, match="another test set"):
        evaluate("m2", official, Hypothesis.from_texts(more, "jfleg"))
    with pytest.warns(InputWarning, match=r"another test set; scored line by line as asked"):
        evaluate("m2", official, Hypothesis.from_texts(more, "jfleg"), allow=["other-test-set"])


def test_a_file_far_larger_than_the_source_is_refused_before_aligning(tmp_path: Path) -> None:
    """A 106k-line JSON given as --hyp was OOM-killed at 12 GB while being realigned."""
    src = [f"Sentence number {i} is here ." for i in range(20)]
    data = EvalData.from_texts(src, [src])
    big = Hypothesis.from_texts([f'{{"key": {i}, "value": "something"}}' for i in range(500)])
    with pytest.raises(FormatError, match=r"more than 4 times the source.*nothing was aligned"):
        evaluate("gleu", data, big)


def test_max_tokens_covers_sources_and_references(tmp_path: Path) -> None:
    """A 100k-token source line ran 200 s at 10 GB: --max-tokens checked hypotheses only."""
    long = " ".join(["word"] * 1200)
    src = write(tmp_path / "src.txt", ["A short one .", long])
    ref = write(tmp_path / "ref.txt", ["A short one .", "Short now ."])
    hyp = write(tmp_path / "hyp.txt", ["A short one .", "Short now ."])
    data = EvalData.from_files(ref, source=src)
    with pytest.raises(FormatError, match=r"source sentence 2 has 1,200 tokens, more than "
                                          r"--max-tokens 1000"):
        evaluate("gleu", data, Hypothesis.from_file(hyp))
    assert main(["evaluate", "-m", "gleu", "-s", str(src), "-r", str(ref), "--hyp",
                 str(hyp)]) == 65
    [r] = evaluate("gleu", EvalData.from_files(ref, source=src), Hypothesis.from_file(hyp),
                   max_tokens=2000)
    assert r.score.value > 0
    refs_long = write(tmp_path / "ref2.txt", ["A short one .", long])
    with pytest.raises(FormatError, match=r"reference 0 sentence 2 has 1,200 tokens"):
        evaluate("gleu", EvalData.from_files(refs_long, source=ref), Hypothesis.from_file(hyp))


@pytest.mark.requires_data
@pytest.mark.requires_spacy
def test_the_api_warns_where_the_cli_warns(amu_lines: list[str], conll14: Path,
                                           amu_f05: float) -> None:
    """``get_metric("m2")().corpus_score(detokenised, m2=...)``, docs/python-api.md's first
    call, returned 0.16 silently; ``hyp_tokenise=`` was a TypeError."""
    detok = [detokenise(x) for x in amu_lines]
    m2 = str(conll14 / "official-2014.combined.m2")
    metric = get_metric("m2")()
    with pytest.warns(InputWarning, match="it looks detokenised"):
        low = metric.corpus_score(detok, m2=m2)
    with pytest.warns(InputWarning, match="re-tokenised"):
        fixed = metric.corpus_score(detok, m2=m2, hyp_tokenise="auto")
    assert low.value < amu_f05 - 0.1 and abs(fixed.value - amu_f05) < 0.002
    with pytest.warns(InputWarning, match="re-tokenised"):
        same = metric.corpus_score(detok, m2=m2, options=GateOptions(hyp_tokenise="auto"))
    assert same.value == fixed.value


@pytest.mark.requires_data
@pytest.mark.requires_spacy
def test_typographic_quotes_are_normalised(official: EvalData, amu_lines: list[str],
                                           amu_f05: float, conll14: Path, tmp_path: Path,
                                           capsys) -> None:
    """LLMs write ’ “ ”: AMU scored 0.3318 instead of 0.3490 under --hyp-tokenise auto."""
    def typo(line: str) -> str:
        line = re.sub(r'" (.*?) "', r"“\1”", detokenise(line))
        return line.replace("'", "’")

    lines = [typo(x) for x in amu_lines]
    assert sum("’" in x or "“" in x for x in lines) > 100
    hyp = Hypothesis.from_texts(lines, "typo")
    with pytest.warns(InputWarning, match=r"wrote '’' -> \"'\".* as the references do, on "
                                          r"\d+ line\(s\).*--hyp-normalise none keeps them"):
        [r] = evaluate("m2", official, hyp, hyp_tokenise="auto")
    assert abs(r.score.value - amu_f05) < 0.002
    [kept] = evaluate("m2", official, hyp, hyp_tokenise="auto", hyp_normalise="none")
    assert kept.score.value < r.score.value - 0.01
    path = write(tmp_path / "typo", lines)
    args = ["evaluate", "-r", str(conll14 / "official-2014.combined.m2"), "--hyp", str(path),
            "-m", "m2", "--hyp-tokenise", "auto"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "typography normalised" in out + err
    assert f"{r.score.value:.4f}" in out


def test_the_same_options_on_both_sides_and_bad_ones_refused() -> None:
    data = EvalData.from_texts(["A cat sat .", "A dog ran ."], [["A cat sat .", "A dog ran ."]])
    hyp = Hypothesis.from_texts(["A cat sat .", "A dog ran ."])
    for bad in ({"allow": ["no-such-code"]}, {"hyp_level": "word"}, {"hyp_normalise": "x"},
                {"max_tokens": -1}):
        with pytest.raises(Exception, match="unknown|choose|whole number") as caught:
            evaluate("gleu", data, hyp, **bad)  # type: ignore[arg-type]
        assert getattr(caught.value, "exit_code", None) == 64
    admitted = admit(data, [hyp], GateOptions())
    assert admitted.findings == [] and admitted.hypotheses[0].tokens == hyp.tokens
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        get_metric("gleu")().corpus_score(["A cat sat .", "A dog ran ."], data=data)

"""Paragraph-level and re-segmented hypotheses cut into the source's sentences
(gecscope.alignment.sentences, ``--hyp-level``, ``hyp_level=``; #33 item 3).

Real data: a sample of CoNLL-2014 (AMU's output joined into paragraphs, tokenised and
detokenised) must come back sentence by sentence and score as the sentence-level file does;
tampered paragraphs (a sentence dropped, a paragraph shuffled, two paragraphs swapped) must be
named by line or refused, never scored silently.
"""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest

from gecscope.alignment.sentences import (
    align_sentences,
    essay_sentences,
    looks_line_aligned,
    split_sentences,
)
from gecscope.cli.main import main
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import FormatError, InputWarning, LengthMismatchError
from gecscope.evaluation import evaluate
from gecscope.formats.multigec import align_essays, parse_multigec
from gecscope.gate import emit, source_index
from gecscope.gate.findings import InputRefusedError
from gecscope.gate.realign import realign as gate_realign

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
SAMPLE = 150  # CoNLL-2014 sentences used (the first ones)


def detokenise(line: str) -> str:
    """A simple detokeniser (no space before punctuation and clitics, quotes closed up), so
    the paragraphs differ from the source in whitespace as running text does."""
    text = re.sub(r" ([.,!?;:%)\]])", r"\1", line)
    text = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    text = re.sub(r"([(\[]) ", r"\1", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def realign(data: EvalData, hyp: Hypothesis, level: str,
            allow: frozenset[str] = frozenset()) -> Hypothesis:
    """``hyp`` as the gate scores it against ``data`` at ``level``, its findings warned."""
    out, found = gate_realign(hyp, source_index(data), level, allow)
    emit(found, stacklevel=2)
    return out


def paragraphs(lines: list[str], size: int = 5) -> list[str]:
    return [" ".join(lines[i:i + size]) for i in range(0, len(lines), size)]


@pytest.fixture(scope="module")
def amu(shared_data: Path) -> tuple[list[str], list[str]]:
    """The first SAMPLE source lines of CoNLL-2014 and AMU's output for them."""
    d = shared_data / "conll14" / "submissions"
    src = (d / "INPUT").read_text(encoding="utf-8").splitlines()[:SAMPLE]
    hyp = (d / "AMU").read_text(encoding="utf-8").splitlines()[:SAMPLE]
    return [" ".join(s.split()) for s in src], [" ".join(h.split()) for h in hyp]


@pytest.mark.requires_data
def test_paragraph_joined_sample_realigns_exactly(amu: tuple[list[str], list[str]]) -> None:
    src, hyp = amu
    for lines in (hyp, [detokenise(h) for h in hyp]):
        found = align_sentences(src, paragraphs(lines))
        assert found.failures == 0
        wrong = [i for i, (a, b) in enumerate(zip(found.texts, lines, strict=True)) if a != b]
        assert wrong == []


@pytest.mark.requires_data
def test_paragraph_hypothesis_scores_as_the_sentence_file(
        amu: tuple[list[str], list[str]], conll14: Path) -> None:
    """gecscope.evaluate with the default hyp_level="auto": a paragraph file of the sample
    gets the sentence-level file's M2 counts, and the InputWarning says what was done."""
    _, hyp = amu
    data = EvalData.from_files(conll14 / "official-2014.combined.m2").subset(0, SAMPLE)
    [whole] = evaluate("m2", data, Hypothesis.from_texts(hyp, "AMU"))
    with pytest.warns(InputWarning, match=r"30 lines for 150 source sentences of \S+: aligned"):
        [para] = evaluate("m2", data, Hypothesis.from_texts(paragraphs(hyp), "AMU"))
    assert whole.score.details["proposed"] > 0
    assert para.score.details == whole.score.details


@pytest.mark.requires_data
def test_a_saved_result_says_how_the_text_was_prepared(
        amu: tuple[list[str], list[str]], conll14: Path, tmp_path: Path, capsys) -> None:
    """A number made after cutting paragraphs and re-tokenising was recorded on stderr only;
    the JSON report's inputs and the note under the table now say it, per system."""
    import json

    _, hyp = amu
    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    ref = tmp_path / "ref.m2"
    ref.write_text("\n\n".join(blocks[:SAMPLE]) + "\n", encoding="utf-8")
    para = tmp_path / "llm.txt"
    para.write_text("\n".join(paragraphs([detokenise(h) for h in hyp])) + "\n",
                    encoding="utf-8")
    tok = tmp_path / "AMU"
    tok.write_text("\n".join(hyp) + "\n", encoding="utf-8")
    args = ["evaluate", "-r", str(ref), "--hyp", str(para), str(tok), "-m", "m2",
            "--hyp-tokenise", "auto"]
    assert main([*args, "--format", "json"]) == 0  # what --json-out writes, without sentences
    doc = json.loads(capsys.readouterr().out)
    prepared = doc["inputs"]["prepared"]
    note = ("cut from 30 paragraph lines (--hyp-level auto); re-tokenised (nltk, "
            "--hyp-tokenise auto)")
    assert prepared == {"llm": note}  # the tokenised file, untouched, has no entry
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.count(f"llm: {note}\n") == 1 and "AMU: " not in text  # under the table
    rows = {ln.split()[0]: ln.split()[1:4] for ln in text.splitlines()
            if ln.startswith(("llm ", "AMU "))}
    assert rows["llm"][0] == rows["AMU"][0] and int(rows["AMU"][0]) > 0  # same TP
    jsonschema = pytest.importorskip("jsonschema", reason="schema validation needs jsonschema")
    from gecscope.reports.json import load_schema

    jsonschema.validate(doc, load_schema())


@pytest.mark.requires_data
def test_llm_chatter_around_the_text_is_named_not_scored(
        amu: tuple[list[str], list[str]], conll14: Path) -> None:
    """An LLM's "Here is the corrected text:" or "Let me know if you need anything else."
    was glued to the first or last sentence (the sentence long enough to stay 'confident'):
    scored as part of it under auto, exit 0. It is text of no source sentence: the gate
    refuses the file naming the line (#41: a cut only where it is certain); allowed
    (``uncertain-alignment``), paragraph scores without it, listing it."""
    _, hyp = amu
    data = EvalData.from_files(conll14 / "official-2014.combined.m2").subset(0, SAMPLE)
    lines = list(hyp)
    [whole] = evaluate("m2", data, Hypothesis.from_texts(lines, "AMU"))
    for name, chatty, line in (
            ("trailer", [*lines, "", "Let me know if you need anything else."], SAMPLE + 2),
            ("preamble", ["Here is the corrected text:", *lines], 1),
            ("same line", [*lines[:-1], lines[-1] + " I hope this helps!"], SAMPLE)):
        hyp_ = Hypothesis.from_texts(chatty, name)
        said = f"hypothesis line {line}: text aligned to no source sentence"
        if len(chatty) != SAMPLE:
            with pytest.raises(InputRefusedError, match=said + ".*--allow uncertain-alignment"):
                realign(data, hyp_, "auto")
        with pytest.raises(InputRefusedError, match=said):
            evaluate("m2", data, hyp_, hyp_level="paragraph")
        with pytest.warns(InputWarning, match=said):
            [cut] = evaluate("m2", data, hyp_, hyp_level="paragraph",
                             allow=["uncertain-alignment"])
        assert cut.score.details == whole.score.details, name


@pytest.mark.requires_data
def test_a_dropped_sentence_is_named_in_a_long_file(amu: tuple[list[str], list[str]]) -> None:
    src, hyp = amu
    data = EvalData.from_texts(src)
    tampered = Hypothesis.from_texts(paragraphs(hyp[:40] + hyp[41:]), "dropped")
    with pytest.raises(InputRefusedError, match=r"left 1 sentence\(s\) or stretch\(es\) of "
                                                r"text without a certain match: source "
                                                r"sentence 41 \(.*nothing was scored"):
        realign(data, tampered, "paragraph")
    with pytest.warns(InputWarning, match=r"1 sentence\(s\) aligned with low confidence, "
                                          r"scored as aligned \(--allow uncertain-alignment\): "
                                          r"source sentence 41 \("):
        out = realign(data, tampered, "paragraph", frozenset({"uncertain-alignment"}))
    assert len(out) == SAMPLE


@pytest.mark.requires_data
def test_a_truncated_paragraph_file_is_refused(amu: tuple[list[str], list[str]]) -> None:
    """The last two paragraphs lost (10 of 150 sentences): refused, naming the first."""
    src, hyp = amu
    truncated = Hypothesis.from_texts(paragraphs(hyp)[:-2], "truncated")
    with pytest.raises(InputRefusedError, match=r"28 lines for 150 source sentences.*"
                                                r"left 10 sentence\(s\) or stretch\(es\) of "
                                                r"text without a certain match: source "
                                                r"sentence 141 \(.*source sentence 145 \(no "
                                                r"hypothesis.*more than 5% of the sentences"):
        realign(EvalData.from_texts(src), truncated, "auto")


@pytest.mark.requires_data
@pytest.mark.parametrize("tamper", ["drop", "repeat", "cut"])
def test_auto_refuses_a_sentence_file_with_one_line_lost_or_added(
        amu: tuple[list[str], list[str]], tamper: str) -> None:
    """Under auto, a sentence-level file one line short (a line dropped in the middle, or the
    last one cut) or long (a line repeated) is refused, never re-cut and scored: the sentence
    that would be mis-scored and the first place the lines diverge are named."""
    src, hyp = amu
    lines = {"drop": hyp[:70] + hyp[71:], "repeat": hyp[:71] + hyp[70:],
             "cut": hyp[:-1]}[tamper]
    first = {"drop": 71, "repeat": 71, "cut": 150}[tamper]
    with pytest.raises(InputRefusedError, match=rf"without a certain match: source "
                                                rf"sentence {first} ") as caught:
        realign(EvalData.from_texts(src), Hypothesis.from_texts(lines, tamper), "auto")
    if tamper != "cut":  # the first place the lines diverge, as given
        assert (f"the lines first diverge at hypothesis line {72 if tamper == 'repeat' else 71}"
                in str(caught.value))
    # allowed: scored, with the sentence named
    with pytest.warns(InputWarning, match=rf"low confidence, scored as aligned \(--allow "
                                          rf"uncertain-alignment\): source sentence {first} "):
        out = realign(EvalData.from_texts(src), Hypothesis.from_texts(lines, tamper),
                      "paragraph", frozenset({"uncertain-alignment"}))
    assert len(out) == len(src)


@pytest.mark.requires_data
def test_a_shuffled_or_swapped_paragraph_is_named(amu: tuple[list[str], list[str]]) -> None:
    src, hyp = amu
    shuffled = hyp[20:25]
    random.Random(3).shuffle(shuffled)
    assert shuffled != hyp[20:25]
    found = align_sentences(src, paragraphs(hyp[:20] + shuffled + hyp[25:]))
    assert found.low and set(found.low) <= set(range(19, 26))
    # the sentences that kept their order are the ones scored as aligned
    moved = {i for i in range(20, 25) if shuffled[i - 20] != hyp[i]}
    assert moved & set(found.low)
    swapped = paragraphs(hyp)
    swapped[6], swapped[7] = swapped[7], swapped[6]
    found = align_sentences(src, swapped)
    assert len(found.low) >= 5 and set(found.low) <= set(range(29, 41))


def test_two_sentences_merged_into_one() -> None:
    src = ["I has a cat .", "It are black .", "We goes home ."]
    found = align_sentences(src, ["I have a cat, and it is black. We go home."])
    assert [p.move for p in found.pieces] == ["2-1", "2-1", "1-1"]
    assert f"{found.texts[0]} {found.texts[1]}" == "I have a cat, and it is black."
    assert found.texts[2] == "We go home."
    assert found.failures == 0


def test_one_sentence_split_in_two_within_and_across_lines() -> None:
    src = ["He said that he would come , but he did not come .", "She left ."]
    found = align_sentences(src, ["He said he would come. But he did not.", "She left."])
    assert [p.move for p in found.pieces] == ["1-2", "1-1"]
    assert found.texts == ["He said he would come. But he did not.", "She left."]
    found = align_sentences(src, ["He said he would come.", "But he did not come.", "",
                                  "She left."])
    assert found.texts == ["He said he would come. But he did not come.", "She left."]
    assert [p.lines for p in found.pieces] == [(0, 1), (3,)]


def test_a_source_sentence_that_is_a_paragraph_takes_many_segments() -> None:
    """CoNLL-2014's sentence 333 is 227 tokens of sentences glued without spaces; a system
    that separates them returns more segments than a fixed 1-3 move would take."""
    src = ["One thing.Two things.Three more.Four here.Five now.Six at the end .", "Next one ."]
    para = "One thing. Two things. Three more. Four here. Five now. Six at the end. Next one."
    found = align_sentences(src, [para])
    assert [p.move for p in found.pieces] == ["1-6", "1-1"]
    assert found.texts == [para.removesuffix(" Next one."), "Next one."]
    assert found.failures == 0


def test_a_paragraph_without_inner_sentence_ends_is_cut_into_all_its_sentences() -> None:
    found = align_sentences(TEN[:6], [", ".join(t.removesuffix(" .") for t in TEN[:6]) + "."])
    assert [p.move for p in found.pieces] == ["6-1"] * 6
    assert found.texts[1:5] == [f"{t.removesuffix(' .')}," for t in TEN[1:5]]
    assert found.failures == 0


def test_quotes_at_a_cut_go_where_the_sources_put_them() -> None:
    """MuCGEC puts a closing quote at the start of the next sentence; RAC's CoNLL-2014 output
    closes a quote that the source opens again in the next sentence."""
    found = align_sentences(["我们俩投缘对劲！", "”这样注意的话，肯定对孩子好的影响。"],
                            ["我们俩真投缘！”这样注意的话，肯定对孩子有好的影响。"])
    assert found.texts == ["我们俩真投缘！", "”这样注意的话，肯定对孩子有好的影响。"]
    found = align_sentences(['It raises a question : " should he tell his relatives ?',
                             '" This issue is old .'],
                            [('It raises a question : " should he tell his relatives ? " " '
                              'This issue is old .')])
    assert found.texts == ['It raises a question : " should he tell his relatives ? "',
                           '" This issue is old .']


def test_empty_lines_between_paragraphs_are_ignored() -> None:
    src = ["This is one .", "This is two .", "Here is three .", "And four ."]
    lines = ["", "This is one. This is two.", "", "", "Here is three.  And four.", ""]
    found = align_sentences(src, lines)
    assert found.texts == ["This is one.", "This is two.", "Here is three.", "And four."]
    assert [p.lines for p in found.pieces] == [(1,), (1,), (4,), (4,)]


TEN = ["The weather was cold in the morning .", "My sister bought a new bicycle .",
       "Students should read more books about history .", "He plays the guitar every night .",
       "Our teacher gave us a difficult test .", "The river flooded the small village .",
       "Many people enjoy cooking at home .", "A cat slept on the warm windowsill .",
       "Governments must invest in public transport .", "I forgot my umbrella at the office ."]


def test_a_dropped_sentence_in_a_short_file_is_refused() -> None:
    data = EvalData.from_texts(TEN)
    hyp = Hypothesis.from_texts(paragraphs(TEN[:3] + TEN[4:]), "dropped")
    with pytest.raises(FormatError, match=r"without a certain match: source "
                                          r"sentence 4 \("):
        realign(data, hyp, "paragraph")
    # the same under auto, from the API
    with pytest.raises(InputRefusedError, match=r"2 lines for 10 source sentences.*"
                                                r"source sentence 4 \("):
        evaluate("gleu", EvalData.from_texts(TEN, [TEN]), hyp)


def test_a_shuffled_short_file_is_refused() -> None:
    order = [0, 1, 2, 3, 4, 9, 5, 8, 7, 6]
    hyp = Hypothesis.from_texts(paragraphs([TEN[i] for i in order]), "shuffled")
    with pytest.raises(FormatError, match="without a certain match") as caught:
        realign(EvalData.from_texts(TEN), hyp, "paragraph")
    named = {int(k) for k in re.findall(r"source sentence (\d+) \(", str(caught.value))}
    assert named and named <= {5, 6, 7, 8, 9, 10}  # 5 may take the moved text


def test_sentence_level_lines_are_left_alone() -> None:
    data = EvalData.from_texts(TEN, [TEN])
    same = Hypothesis.from_texts(TEN, "same")
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        assert realign(data, same, "auto") is same
    with pytest.raises(LengthMismatchError, match="has 2 lines but 10"):
        evaluate("gleu", data, Hypothesis.from_texts(paragraphs(TEN)), hyp_level="sentence")


def test_auto_realigns_resegmented_lines_of_the_same_count() -> None:
    """Two sentences merged at the top and one split at the bottom: as many lines as
    sentences, but most of them one sentence off."""
    lines = [f"{TEN[0]} {TEN[1]}", *TEN[2:9], "I forgot my umbrella", "at the office ."]
    data = EvalData.from_texts(TEN)
    with pytest.warns(InputWarning, match="8 of its 10 lines are other source sentences' "
                                          "outputs: aligned"):
        out = realign(data, Hypothesis.from_texts(lines), "auto")
    assert [" ".join(t) for t in out.tokens] == TEN


def test_lines_moved_on_by_one_are_refused_unless_allowed() -> None:
    """Lines moved on by one everywhere: realigning leaves two sentences unaligned, so the
    file is refused naming the first divergence (it was scored line by line, exit 0, before
    #41); ``misplaced-lines`` scores them as given, naming them; mostly empty output is line
    by line without a word."""
    data = EvalData.from_texts(TEN)
    rotated = Hypothesis.from_texts(TEN[1:] + TEN[:1])
    with pytest.raises(InputRefusedError, match=r"10 of its 10 lines are other source "
                                                r"sentences' outputs.*first diverge at "
                                                r"hypothesis line 1.*--allow misplaced-lines"):
        realign(data, rotated, "auto")
    with pytest.warns(InputWarning, match=r"10 line\(s\) look like the output of another "
                                          r"source sentence"):
        assert realign(data, rotated, "auto", frozenset({"misplaced-lines"})) is rotated
    with pytest.raises(FormatError, match="without a certain match"):
        realign(data, rotated, "paragraph")
    sparse = Hypothesis.from_texts(["", "", TEN[2], "", "", "", "", "", "", TEN[9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        assert realign(data, sparse, "auto") is sparse


@pytest.mark.requires_data
def test_auto_tells_shifted_lines_from_resegmented_ones(conll14: Path) -> None:
    """NTHU's official output (lines 41-43 shifted) stays line by line; the same lines moved
    on by one everywhere are not line-aligned."""
    src = (conll14 / "submissions" / "INPUT").read_text(encoding="utf-8").splitlines()
    nthu = (conll14 / "submissions" / "NTHU").read_text(encoding="utf-8").splitlines()
    assert looks_line_aligned(src, nthu)
    assert not looks_line_aligned(src, nthu[1:] + nthu[:1])


def test_split_sentences_cuts_after_final_punctuation() -> None:
    text = 'He left. "Why?" she asked! Then 3.5 km… 好。走吧\nnext line . . Done .'
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "He left.", '"Why?"', "she asked!", "Then 3.5 km…", "好。", "走吧", "next line . .",
        "Done ."]


def _demo_paragraphs(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "para.txt"
    path.write_text("\n".join(paragraphs(lines, 4)) + "\n", encoding="utf-8")
    return path


def test_cli_scores_a_paragraph_file_as_its_sentences(capsys, tmp_path: Path) -> None:
    careful = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    para = _demo_paragraphs(tmp_path, careful)
    ref = str(DEMO / "references.m2")
    assert main(["evaluate", "-r", ref, "--hyp", str(DEMO / "careful.txt"), "-m", "m2",
                 "--name", "x"]) == 0
    whole = capsys.readouterr().out
    assert main(["evaluate", "-r", ref, "--hyp", str(para), "-m", "m2", "--name", "x"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:4] == whole.splitlines()[:4]
    assert f"x: 3 lines for 12 source sentences of {ref}: aligned to the source's sentences" in err
    # --hyp-level sentence keeps the line check
    assert main(["evaluate", "-r", ref, "--hyp", str(para), "--hyp-level", "sentence"]) == 65
    assert f"{para}: has 3 lines but 12 were expected" in capsys.readouterr().err


def test_cli_refuses_a_paragraph_file_missing_sentences(capsys, tmp_path: Path) -> None:
    careful = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    para = _demo_paragraphs(tmp_path, careful[:5] + careful[7:])
    ref = str(DEMO / "references.m2")
    assert main(["evaluate", "-r", ref, "--hyp", str(para), "--hyp-level", "paragraph"]) == 65
    err = capsys.readouterr().err
    assert f"{para}: " in err and "without a certain match" in err
    assert "source sentence 6 (" in err and "nothing was scored" in err
    assert main(["evaluate", "-r", ref, "--hyp", str(DEMO / "references.m2"),
                 str(para), "--hyp-level", "paragraph", "--name", "a", "b"]) != 0
    m2 = tmp_path / "hyp.m2"
    m2.write_text((DEMO / "references.m2").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["evaluate", "-r", ref, "--hyp", str(m2), "--hyp-level", "paragraph"]) == 65
    assert "needs a plain-text hypothesis" in capsys.readouterr().err


ESSAYS = ("### essay_id = 1\nI has a cat. It are black.\nWe goes home!\n\n"
          "### essay_id = 2\nShort one. Another one here.\n")


def test_essays_score_per_sentence() -> None:
    hyp = ("### essay_id = 2\nShort one.\nAnother one is here.\n\n"
           "### essay_id = 1\nI have a cat, and it is black. We go home!\n")
    texts = align_essays(parse_multigec(ESSAYS), [parse_multigec(hyp)], ["hyp.md"],
                         kinds=["hypothesis"])
    units, messages = essay_sentences(texts, ["hyp.md"])
    assert units.ids == ["1#1", "1#2", "1#3", "2#1", "2#2"]
    assert units.source == ["I has a cat.", "It are black.", "We goes home!", "Short one.",
                            "Another one here."]
    [out] = units.others
    assert out[2:] == ["We go home!", "Short one.", "Another one is here."]
    assert f"{out[0]} {out[1]}" == "I have a cat, and it is black."
    assert messages == []


def test_an_essay_of_other_text_is_refused() -> None:
    hyp = ("### essay_id = 1\nI has a cat. It are black.\nWe goes home!\n\n"
           "### essay_id = 2\nCompletely different words entirely.\n")
    texts = align_essays(parse_multigec(ESSAYS), [parse_multigec(hyp)], ["hyp.md"],
                         kinds=["hypothesis"])
    with pytest.raises(FormatError, match=r"hyp.md: .*essay '2' sentence"):
        essay_sentences(texts, ["hyp.md"])


def test_normalised_ascii_shortcut_equals_the_walk() -> None:
    """:func:`normalised` skips the per-character walk for ASCII text; it must give what the
    walk gives for every ASCII character (the C0 separators \\x1c-\\x1f are whitespace too),
    runs of them, and mixed text that takes the walk."""
    import random

    from gecscope.alignment.sentences import _normalise, normalised

    for i in range(128):
        c = chr(i)
        assert normalised(f"A{c}b{c}{c}C") == _normalise(f"A{c}b{c}{c}C")[0], repr(c)
    pool = [chr(i) for i in range(128)] + list("éÉßİﬁ\u00a0\u2003ǅΣς\u3000Ａ")
    rnd = random.Random(7)
    for _ in range(20_000):
        text = "".join(rnd.choice(pool) for _ in range(rnd.randint(0, 10)))
        assert normalised(text) == _normalise(text)[0], repr(text)

"""TERp-style alignment: Porter stems, WordNet synonyms, TER shifts, paraphrases."""

from __future__ import annotations

import pytest

from gecscope.errors import ConfigError, FormatError
from gecscope.rtt.porter import stem
from gecscope.rtt.terp import ParaphraseTable, TerpAligner, TerpConfig
from gecscope.rtt.tokenize import detokenize, tokenize


def test_porter_examples_from_the_paper():
    # Examples given in Porter (1980), steps 1a-5b.
    words = ["caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered",
             "bled", "motoring", "sing", "conflated", "troubled", "sized", "hopping", "tanned",
             "falling", "hissing", "fizzed", "failing", "filing", "happy", "sky", "relational",
             "conditional", "rational", "triplicate", "formative", "formalize", "electrical",
             "hopeful", "goodness", "revival", "allowance", "inference", "airliner",
             "adjustable", "adoption", "effective", "probate", "rate", "cease", "controll",
             "roll", "generalizations", "oscillators"]
    stems = ["caress", "poni", "ti", "caress", "cat", "feed", "agre", "plaster", "bled",
             "motor", "sing", "conflat", "troubl", "size", "hop", "tan", "fall", "hiss", "fizz",
             "fail", "file", "happi", "sky", "relat", "condit", "ration", "triplic", "form",
             "formal", "electr", "hope", "good", "reviv", "allow", "infer", "airlin", "adjust",
             "adopt", "effect", "probat", "rate", "ceas", "control", "roll", "gener", "oscil"]
    actual = [stem(w) for w in words]
    assert actual == stems


NON_TER = TerpConfig(use_stems=False, use_synonyms=False)


def test_plain_ter_counts_and_shift():
    al = TerpAligner(NON_TER).align(["a", "b", "c", "d", "e"], ["c", "d", "a", "b", "e"])
    # one shift of "c d" (or "a b") then all words match: TER = 1 / 5
    assert al.shifts == 1
    assert al.cost == pytest.approx(1.0)
    assert al.ter == pytest.approx(0.2)
    assert {o.op for o in al.ops} == {"match"}
    assert al.shifted_hypothesis == ("a", "b", "c", "d", "e")


def test_no_shift_when_it_does_not_pay():
    al = TerpAligner(NON_TER).align(["the", "cat", "sat"], ["the", "dog", "sat", "down"])
    assert al.shifts == 0
    actual = [(o.code, o.ref, o.hyp) for o in al.ops]
    assert actual == [
        ("M", ("the",), ("the",)), ("S", ("cat",), ("dog",)), ("M", ("sat",), ("sat",)),
        ("I", (), ("down",))]
    assert al.cost == pytest.approx(2.0)


def test_empty_sides():
    a = TerpAligner(NON_TER)
    assert a.align((), ("x", "y")).counts()["insertion"] == 2
    assert a.align(("x",), ()).counts()["deletion"] == 1
    assert a.align((), ()).cost == 0


def test_figure_2_russian_alignment():
    """Madnani et al. (2012), Figure 2: the Russian round trip aligned to the original."""
    pytest.importorskip("gecscope.rtt.wordnet")
    from gecscope.errors import MissingDependencyError
    from gecscope.rtt.wordnet import find_wordnet_dir

    try:
        find_wordnet_dir()
    except MissingDependencyError as exc:
        pytest.skip(str(exc))
    al = TerpAligner().align(
        tokenize("Both experience and books are very important about living."),
        tokenize("And the experience, and a very important book about life."))
    got = [(" ".join(o.ref), " ".join(o.hyp), o.code, o.shifted) for o in al.ops]
    assert got == [
        ("", "And", "I", False), ("Both", "the", "S", False),
        ("experience", "experience", "M", False), ("", ",", "I", False),
        ("and", "and", "M", False), ("books", "book", "T", True), ("are", "a", "S", False),
        ("very", "very", "M", False), ("important", "important", "M", False),
        ("about", "about", "M", False), ("living", "life", "Y", False), (".", ".", "M", False)]
    assert al.shifts == 1
    # 3 substitutions/insertions + 1 more insertion + stem 0.2 + synonym 0.2 + 1 shift
    assert al.cost == pytest.approx(5.4)
    assert "[T] [*]" in al.table()


def test_wordnet_synonyms_and_morphy():
    from gecscope.errors import MissingDependencyError
    from gecscope.rtt.wordnet import load_wordnet

    try:
        wn = load_wordnet()
    except MissingDependencyError as exc:
        pytest.skip(str(exc))
    pairs = [("living", "life"), ("car", "automobile"), ("went", "go"), ("big", "large"),
             ("experiences", "experience"), ("the", "a"), ("cat", "table")]
    actual = [wn.are_synonyms(a, b) for a, b in pairs]
    assert actual == [True, True, True, True, True, False,
                                                         False]
    assert wn.lemmas("went", "verb") == ("go",)
    assert wn.lemmas("children", "noun") == ("child",)


def test_missing_wordnet_is_an_actionable_error(tmp_path):
    from gecscope.errors import MissingDependencyError
    from gecscope.rtt.wordnet import find_wordnet_dir

    with pytest.raises(MissingDependencyError, match="apt-get install wordnet-base"):
        find_wordnet_dir(tmp_path)


def test_paraphrase_table(tmp_path):
    p = tmp_path / "para.tsv"
    p.write_text("# comment\nvery important\tcrucial\t0.5\n", encoding="utf-8")
    table = ParaphraseTable.from_file(p)
    assert len(table) == 1
    al = TerpAligner(NON_TER, table).align(["it", "is", "very", "important", "."],
                                           ["it", "is", "crucial", "."])
    actual = [(o.code, o.ref, o.hyp) for o in al.ops]
    assert actual == [
        ("M", ("it",), ("it",)), ("M", ("is",), ("is",)),
        ("P", ("very", "important"), ("crucial",)), ("M", (".",), (".",))]
    assert al.cost == pytest.approx(0.2)
    bad = tmp_path / "bad.tsv"
    bad.write_text("only one column\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.tsv:1"):
        ParaphraseTable.from_file(bad)


def test_config_validation():
    with pytest.raises(ConfigError):
        TerpConfig(insertion=-1)
    with pytest.raises(ConfigError):
        TerpConfig(stem=2.0)


def test_tokenize_round_trip():
    text = 'I don\'t know, he can\'t say (it\'s) "fine".'
    toks = tokenize(text)
    assert toks == ("I", "do", "n't", "know", ",", "he", "ca", "n't", "say", "(", "it", "'s",
                    ")", '"', "fine", '"', ".")
    assert detokenize(toks) == text
    assert tokenize("did n't go , John 's") == ("did", "n't", "go", ",", "John", "'s")

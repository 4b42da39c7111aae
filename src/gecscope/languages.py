"""Languages: how text becomes tokens and which extractor finds (and types) the edits.

=========  ====================  =====================================================
language   tokens                edits
=========  ====================  =====================================================
``en``     whitespace (default)  ERRANT 3.0.2 with spaCy ``en_core_web_sm`` (full types)
``zh``     characters            ChERRANT char level (M/R/S/W), identical to the tool
any other  whitespace | chars |  Levenshtein (M/R/U with ORTH and WO); ERRANT-style
           spacy                 ``R:NOUN`` POS types when a spaCy model is given
=========  ====================  =====================================================

A :class:`Language` is a small frozen value (it travels to worker processes); its annotator is
built once per process. See docs/languages.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from gecscope.errors import ConfigError
from gecscope.types import Corpus, Tokens

TOKENISATIONS = ("whitespace", "chars", "spacy")
EXTRACTORS = ("errant", "cherrant", "levenshtein")
_CODE = re.compile(r"^([A-Za-z]{2,3})((?:[-_][A-Za-z0-9]{1,8})*)$")

_ISO_639_1_TEXT = """
    aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy
    da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht
    hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky
    la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny
    oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss
    st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo
    za zh zu"""
#: The ISO 639-1 codes: a two-letter ``--lang`` must be one of them (a typo such as ``xx``
#: would otherwise label the signature with a language that does not exist).
ISO_639_1 = frozenset(_ISO_639_1_TEXT.split())
#: Codes with their own defaults under other names: withdrawn ISO 639-1 codes and the
#: three-letter (ISO 639-2/3) codes of English and Chinese, which would otherwise silently
#: get the "any other language" extractor.
ALIASES = {"iw": "he", "in": "id", "ji": "yi", "mo": "ro", "eng": "en", "zho": "zh",
           "chi": "zh"}
#: Subtags of Chinese written in traditional characters (script, or region without script).
_TRADITIONAL = ({"hant"}, {"tw", "hk", "mo"})


def language_code(code: str) -> str:
    """The primary language of a BCP 47-style tag, in lower case: ``EN`` and ``en-US`` are
    ``en``, ``zh_CN`` and ``zh-Hans`` ``zh``, ``de-AT`` ``de`` (the edits depend on the
    language, not on the region). Two-letter codes must be ISO 639-1 codes; a three-letter
    code is taken as ISO 639-2/3 (``und`` for a language without a code). Chinese in
    traditional characters (``zh-TW``, ``zh-HK``, ``zh-Hant``) is refused: ChERRANT's tooling
    (OpenCC's t2s conversion of targets, its Cilin and confusion set) is for Simplified
    Chinese."""
    text = (code or "en").strip()
    m = _CODE.match(text)
    if not m:
        raise ConfigError(f"language code {code!r}: expected an ISO 639 code such as en, zh, "
                          "uk, de, cs (optionally with a region: en-US)")
    primary = ALIASES.get(m.group(1).lower(), m.group(1).lower())
    subtags = {t.lower() for t in re.split(r"[-_]", m.group(2)) if t}
    if len(primary) == 2 and primary not in ISO_639_1:
        import difflib

        close = difflib.get_close_matches(primary, sorted(ISO_639_1), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ConfigError(
            f"language code {code!r}: {primary!r} is not an ISO 639-1 language code{hint}; "
            "supported: en (ERRANT), zh (ChERRANT) and any other ISO 639 language (Levenshtein "
            "edits), e.g. uk, de, cs, sv, or a three-letter ISO 639-3 code (und: a language "
            "without one)")
    if primary == "zh" and (subtags & _TRADITIONAL[0] or (
            subtags & _TRADITIONAL[1] and "hans" not in subtags)):
        raise ConfigError(
            f"language code {code!r} is Chinese in traditional characters, which ChERRANT's "
            "tooling does not handle: its targets are converted to Simplified Chinese (OpenCC "
            "t2s) and its Cilin and confusion set are Simplified, so every traditional "
            "character would count as an edit. Convert the texts to Simplified Chinese and use "
            "--lang zh, or keep them as they are with --lang zh --no-simplified "
            "(simplified=False)")
    return primary


class Annotator(Protocol):
    """What every extractor offers: annotate sources against ``[annotator][sentence]``
    corrections into an M2 corpus."""

    def annotate_corpus(self, sources: Sequence[Tokens], corrections: Sequence[Sequence[Tokens]],
                        progress: Callable[[int], None] | None = None) -> Corpus: ...


@dataclass(frozen=True)
class Language:
    """A language code with its tokenisation and edit extractor (see :func:`language`)."""

    code: str = "en"
    tokenise: str = "whitespace"
    extractor: str = "errant"
    spacy_model: str | None = None
    zh_data: str | None = None
    simplified: bool = True
    alignments: str = "all"

    @property
    def is_default(self) -> bool:
        """English with ERRANT on whitespace tokens: the signature then says nothing more."""
        return self == Language()

    def tokeniser(self) -> Callable[[str], Tokens]:
        """The function from a line of text to its tokens."""
        return _tokeniser(self.tokenise, self.spacy_model, self.extractor == "cherrant")

    def tokens(self, text: str) -> Tokens:
        return self.tokeniser()(text)

    def annotator(self) -> Annotator:
        """The edit extractor (one per process and language)."""
        return _annotator(self)

    def versions(self) -> dict[str, str]:
        """Versions of the packages the extractor's output depends on."""
        from gecscope._versions import package_versions

        pkgs = {"cherrant": ("pypinyin", "opencc"), "errant": ("errant", "spacy")}.get(
            self.extractor, ("spacy",) if self.spacy_model else ())
        return package_versions(*pkgs)

    def describe(self) -> dict[str, str]:
        """Signature entries: language, tokenisation and extractor (with its model)."""
        edits = self.extractor
        if self.extractor == "cherrant":
            edits = ("cherrant-char" + ("" if self.simplified else "-nosimp")
                     + ("" if self.alignments == "all" else "-first"))
        elif self.spacy_model and self.extractor == "levenshtein":
            edits = f"levenshtein+{self.spacy_model}"
        tok = f"spacy:{self.spacy_model}" if self.tokenise == "spacy" else self.tokenise
        return {"lang": self.code, "tok": tok, "edits": edits}


def language(code: str = "en", *, tokenise: str | None = None, extractor: str | None = None,
             spacy_model: str | None = None, zh_data: str | None = None,
             simplified: bool = True, alignments: str = "all") -> Language:
    """A :class:`Language` with the defaults of ``code``: English = whitespace tokens and
    ERRANT; Chinese (``zh``) = characters and ChERRANT; any other code = whitespace tokens and
    Levenshtein edits (typed by POS when ``spacy_model`` names an installed spaCy pipeline).

    ChERRANT's own switches: ``zh_data`` (its resource folder), ``simplified=False`` (its
    ``--no_simplified``), ``alignments="first"`` (its ``-s first``). ``code`` is read by
    :func:`language_code`: any case, a region is dropped (``en-US`` is ``en``), an unknown
    two-letter code and traditional Chinese are refused."""
    code = language_code(code)
    if extractor is None:
        extractor = "errant" if code == "en" else "cherrant" if code == "zh" else "levenshtein"
    if extractor not in EXTRACTORS:
        raise ConfigError(f"unknown edit extractor {extractor!r}; choose from "
                          f"{', '.join(EXTRACTORS)}")
    if tokenise is None:
        tokenise = "chars" if extractor == "cherrant" else "whitespace"
    if tokenise not in TOKENISATIONS:
        raise ConfigError(f"unknown tokenisation {tokenise!r}; choose from "
                          f"{', '.join(TOKENISATIONS)}")
    if extractor == "errant" and code != "en":
        raise ConfigError("ERRANT's classifier is English only; for other languages use "
                          "extractor='levenshtein' (with a spaCy model for POS types)")
    if extractor == "cherrant" and tokenise != "chars":
        raise ConfigError("ChERRANT works on characters (tokenise='chars')")
    if tokenise == "spacy" and not spacy_model and code != "en":
        raise ConfigError(f"tokenise='spacy' for {code!r} needs a spaCy pipeline name "
                          "(spacy_model=..., --spacy-model NAME)")
    if alignments not in ("all", "first"):
        raise ConfigError(f"alignments must be 'all' or 'first' (ChERRANT's -s), not "
                          f"{alignments!r}")
    return Language(code, tokenise, extractor, spacy_model, zh_data, simplified, alignments)


ENGLISH = Language()


@lru_cache(maxsize=8)
def _nlp(model: str) -> Any:
    from gecscope._optional import require_spacy

    spacy = require_spacy("spacy", "spaCy tokenisation and POS types")
    try:
        return spacy.load(model)
    except OSError:
        raise ConfigError(f"spaCy pipeline {model!r} is not installed (pip install it; "
                          "docs/languages.md lists the pipelines known to install offline)"
                          ) from None


@lru_cache(maxsize=16)
def _tokeniser(kind: str, model: str | None, cherrant: bool) -> Callable[[str], Tokens]:
    if cherrant:
        from gecscope.alignment.cherrant import char_tokens

        return char_tokens
    if kind == "whitespace":
        return lambda text: tuple(text.split())
    if kind == "chars":
        return lambda text: tuple(c for c in text if not c.isspace())
    if model is None:
        from gecscope.alignment.errant import load_nlp

        nlp = load_nlp()
    else:
        nlp = _nlp(model)
    return lambda text: tuple(t.text for t in nlp.tokenizer(text) if not t.is_space)


@lru_cache(maxsize=8)
def _annotator(lang: Language) -> Annotator:
    if lang.extractor == "errant":
        from gecscope.alignment.errant import shared_annotator

        return shared_annotator()
    if lang.extractor == "cherrant":
        from gecscope.alignment.cherrant import CherrantAnnotator

        return CherrantAnnotator(lang.zh_data, simplified=lang.simplified,
                                 all_alignments=lang.alignments == "all")
    from gecscope.alignment.levenshtein import LevenshteinAnnotator

    return LevenshteinAnnotator(_nlp(lang.spacy_model) if lang.spacy_model else None)

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
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Protocol

from gecscope.errors import ConfigError, LengthMismatchError
from gecscope.types import Corpus, Sentence, Tokens

#: The named tokenisations (:func:`tokeniser`).
TOKENISATIONS = ("whitespace", "chars", "spacy", "nltk")
#: How strings become tokens: a named tokenisation or a function from a string to its tokens.
Tokeniser = str | Callable[[str], Sequence[str]]
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
           "chi": "zh", "cmn": "zh"}
#: ``zh-yue`` (the old tag of Cantonese, mostly written in traditional characters) is refused
#: like ``zh-Hant``: ChERRANT's tooling is for Simplified Mandarin (``yue`` itself is another
#: language, scored as any other).
_TRADITIONAL_LANGUAGES = frozenset({"yue"})
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
    text = code.strip() if isinstance(code, str) else code
    if not text:
        raise ConfigError("language code is empty: expected an ISO 639 code such as en, zh, "
                          "uk, de, cs")
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
    if primary == "zh" and (
            subtags & _TRADITIONAL[0] or subtags & _TRADITIONAL_LANGUAGES or (
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

    @property
    def edit_extractor(self) -> Extractor:
        """The edit extractor (:class:`Extractor`), chosen once from :attr:`extractor`: what
        it needs and offers is asked of it, never of its name."""
        return _EXTRACTORS[self.extractor]

    def tokeniser(self) -> Callable[[str], Tokens]:
        """The function from a line of text to its tokens (the extractor's own, if it has
        one: ChERRANT's characters)."""
        own = self.edit_extractor.tokeniser()
        return own if own is not None else _tokeniser(self.tokenise, self.spacy_model)

    def tokens(self, text: str) -> Tokens:
        return self.tokeniser()(text)

    def annotator(self) -> Annotator:
        """The edit extractor (one per process and language)."""
        return _annotator(self)

    def versions(self) -> dict[str, str]:
        """Versions of the packages the extractor's output depends on."""
        from gecscope._versions import package_versions

        return package_versions(*self.edit_extractor.packages(self))

    def describe(self) -> dict[str, str]:
        """Signature entries: language, tokenisation and extractor (with its model)."""
        tok = f"spacy:{self.spacy_model}" if self.tokenise == "spacy" else self.tokenise
        return {"lang": self.code, "tok": tok, "edits": self.edit_extractor.describe(self)}


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
        extractor = next((e.name for e in _EXTRACTORS.values() if code in e.codes),
                         "levenshtein")
    if extractor not in EXTRACTORS:
        raise ConfigError(f"unknown edit extractor {extractor!r}; choose from "
                          f"{', '.join(EXTRACTORS)}")
    chosen = _EXTRACTORS[extractor]
    if tokenise is None:
        tokenise = chosen.default_tokenise
    if tokenise not in TOKENISATIONS:
        raise ConfigError(f"unknown tokenisation {tokenise!r}; choose from "
                          f"{', '.join(TOKENISATIONS)}")
    chosen.check(code, tokenise)
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


def tokeniser(spec: Tokeniser, spacy_model: str | None = None) -> Callable[[str], Sequence[str]]:
    """The function behind a tokenisation choice: ``whitespace``, ``chars`` (every
    non-space character), ``spacy`` (the pipeline ``spacy_model``, by default ERRANT's English
    one), ``nltk`` (:func:`ptb_tokens`, CoNLL-2014's tokenisation) or a callable, returned
    as it is. The one registry of tokenisations: a
    :class:`Language` and ``tokenise=`` of the Python API both come here, so the same name
    always gives the same tokens."""
    if callable(spec):
        return spec
    if spec not in TOKENISATIONS:
        raise ConfigError(f"unknown tokenisation {spec!r}; choose one of "
                          f"{', '.join(TOKENISATIONS)} or pass a function from a string to its "
                          "tokens")
    return _tokeniser(spec, spacy_model)


@lru_cache(maxsize=16)
def _tokeniser(kind: str, model: str | None) -> Callable[[str], Tokens]:
    if kind == "whitespace":
        return lambda text: tuple(text.split())
    if kind == "chars":
        return lambda text: tuple(c for c in text if not c.isspace())
    if kind == "nltk":
        return ptb_tokens
    if model is None:
        from gecscope.alignment.errant import load_nlp

        nlp = load_nlp()
    else:
        nlp = _nlp(model)
    # spaCy makes a token of a run of spaces ("a  b": "a", " ", "b"); such a token cannot
    # be written to an M2 S line or seen by the edit extractor (which parses the space-joined
    # tokens), so it is dropped: the tokens scored are the tokens annotated
    return lambda text: tuple(t.text for t in nlp.tokenizer(text) if not t.is_space)


#: :func:`ptb_tokens`' rules, applied in this order to the text padded with a space each side
_PTB_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'"'), ' " '),  # straight double quotes stay straight (no `` and '')
    (re.compile(r"\.\.\."), " ... "),
    (re.compile(r"([,:])(?=\s)"), r" \1 "),  # "known,the" and "10:30" stay one token
    (re.compile(r"[;@#$%&?!]"), r" \g<0> "),
    (re.compile(r"[\][(){}<>]"), r" \g<0> "),
    (re.compile(r"--"), " -- "),
    (re.compile(r"([^'\s])' "), r"\1 ' "),  # a closing single quote; an opening one stays
    (re.compile(r"([^.])\.([\])}>\"'\s]*)$"), r"\1 . \2"),  # the final period only
    (re.compile(r"([^'\s])('[sSmMdD]|'ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
    (re.compile(r"\b([Cc]an)(not)\b"), r"\1 \2"),
)


def ptb_tokens(text: str) -> Tokens:
    """Penn-Treebank-style word tokens as NLTK's Treebank tokeniser made them for NUCLE and
    the CoNLL-2014 test set, quirks included: clitics split (``do n't``, ``it 's``,
    ``can not``), hyphenated words kept whole (``family-related``), brackets, ``;``, ``?``,
    ``!`` and ``--`` split off, commas and colons only before a space (``known,the`` stays,
    as in the test set), a period only at the end of the line (a line is one sentence), and
    straight double quotes kept as they are. Needs no data and no NLTK: ``--hyp-tokenise
    nltk`` (see docs/raw-text.md for how close it comes on the CoNLL-2014 submissions)."""
    text = f" {text} "
    for pattern, repl in _PTB_RULES:
        text = pattern.sub(repl, text)
    return tuple(text.split())


@lru_cache(maxsize=8)
def _annotator(lang: Language) -> Annotator:
    return lang.edit_extractor.build(lang)


class Extractor(ABC):
    """An edit extractor: what it needs (tokens, packages), what it offers (ERRANT's types,
    raw-text input) and how its annotator is built. One object per extractor, chosen once
    by a :class:`Language` (:attr:`Language.edit_extractor`)."""

    name: ClassVar[str]
    #: language codes it is the default for
    codes: ClassVar[frozenset[str]] = frozenset()
    default_tokenise: ClassVar[str] = "whitespace"
    #: its edits are ERRANT's (types such as ``R:NOUN:NUM``; ERRANT's versions in signatures)
    errant: ClassVar[bool] = False
    #: it loads a parser in every process, so extraction is worth worker processes (and the
    #: Ray actors, which run English ERRANT, can do it)
    pooled: ClassVar[bool] = False
    #: it annotates raw text itself, as its tool does (ChERRANT): rows reach it untokenised
    raw_text: ClassVar[bool] = False

    def check(self, code: str, tokenise: str) -> None:
        """Refuse a language or tokenisation it cannot work with (a ConfigError)."""

    def tokeniser(self) -> Callable[[str], Tokens] | None:
        """Its own tokenisation, which overrides the language's; ``None`` if it has none."""
        return None

    def packages(self, lang: Language) -> tuple[str, ...]:
        """The packages its output depends on (their versions go into signatures)."""
        return ("spacy",) if lang.spacy_model else ()

    def describe(self, lang: Language) -> str:
        """The signature's ``edits`` entry."""
        return self.name

    @abstractmethod
    def build(self, lang: Language) -> Annotator:
        """The annotator of ``lang`` (every extractor has its own)."""


class _Errant(Extractor):
    name, codes, errant, pooled = "errant", frozenset({"en"}), True, True

    def check(self, code: str, tokenise: str) -> None:
        if code != "en":
            raise ConfigError("ERRANT's classifier is English only; for other languages use "
                              "extractor='levenshtein' (with a spaCy model for POS types)")

    def packages(self, lang: Language) -> tuple[str, ...]:
        return ("errant", "spacy")

    def build(self, lang: Language) -> Annotator:
        from gecscope.alignment.errant import shared_annotator

        return shared_annotator()


class _Cherrant(Extractor):
    name, codes, default_tokenise, raw_text = "cherrant", frozenset({"zh"}), "chars", True

    def check(self, code: str, tokenise: str) -> None:
        if tokenise != "chars":
            raise ConfigError("ChERRANT works on characters (tokenise='chars')")

    def tokeniser(self) -> Callable[[str], Tokens] | None:
        from gecscope.alignment.cherrant import char_tokens

        return char_tokens

    def packages(self, lang: Language) -> tuple[str, ...]:
        return ("pypinyin", "opencc")

    def describe(self, lang: Language) -> str:
        return ("cherrant-char" + ("" if lang.simplified else "-nosimp")
                + ("" if lang.alignments == "all" else "-first"))

    def build(self, lang: Language) -> Annotator:
        from gecscope.alignment.cherrant import CherrantAnnotator

        return CherrantAnnotator(lang.zh_data, simplified=lang.simplified,
                                 all_alignments=lang.alignments == "all")


class _Levenshtein(Extractor):
    name = "levenshtein"

    def describe(self, lang: Language) -> str:
        return f"levenshtein+{lang.spacy_model}" if lang.spacy_model else self.name

    def build(self, lang: Language) -> Annotator:
        from gecscope.alignment.levenshtein import LevenshteinAnnotator

        return LevenshteinAnnotator(_nlp(lang.spacy_model) if lang.spacy_model else None)


_EXTRACTORS: dict[str, Extractor] = {e.name: e for e in (_Errant(), _Cherrant(), _Levenshtein())}


# --------------------------------------------------------------------------- texts


def path_hint(value: Any, loader: str) -> str | None:
    """When ``value`` is a file path (a :class:`~pathlib.Path`, or a one-line string naming
    an existing file) given where sentences are expected, a message saying so and naming
    ``loader``, the function that reads such a file; else ``None``."""
    import os

    if isinstance(value, os.PathLike):
        path = os.fspath(value)
    elif isinstance(value, str) and "\n" not in value and value.strip() and len(value) < 4096:
        try:
            is_file = os.path.isfile(value)
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            return None
        path = value
    else:
        return None
    return (f"a file path ({path!r}), not sentences; read the file with {loader}, or pass "
            "a list of strings")


def _check_texts(texts: Any, what: str, loader: str = "Hypothesis.from_file(path)") -> list[str]:
    """``texts`` as a list of strings, or a TypeError that says what was given instead (a
    file path is pointed at ``loader``)."""
    hint = path_hint(texts, loader)
    if hint:
        raise TypeError(f"{what}: {hint}")
    if isinstance(texts, str | bytes):
        raise TypeError(f"{what} must be a list of sentences (one string each), not a single "
                        "string; split it into lines first")
    try:
        items = list(texts)
    except TypeError:
        raise TypeError(f"{what} must be a list of strings, not {type(texts).__name__}") from None
    for i, t in enumerate(items):
        if not isinstance(t, str):
            kind = "a token list" if isinstance(t, list | tuple) else type(t).__name__
            raise TypeError(f"{what}: sentence {i + 1} is {kind}, not a string; pass strings "
                            "here, or pre-tokenised sentences to the token-list constructor")
    return items


def tokenise_texts(texts: Sequence[str], tokenise: Tokeniser = "whitespace",
                   what: str = "texts", loader: str = "Hypothesis.from_file(path)"
                   ) -> list[Tokens]:
    """Tokenise a list of sentences (checked to be strings; a file path is a TypeError that
    names ``loader``)."""
    items = _check_texts(texts, what, loader)
    fn = tokeniser(tokenise)
    return [tuple(fn(t)) for t in items]


def check_token_lists(sentences: Any, what: str) -> tuple[Tokens, ...]:
    """Pre-tokenised sentences as tuples, refusing strings where token lists are expected (a
    string would otherwise be read character by character)."""
    if isinstance(sentences, str | bytes):
        raise TypeError(f"{what} must be a list of token lists, not a string")
    out = []
    for i, s in enumerate(sentences):
        if isinstance(s, str):
            raise TypeError(
                f"{what}: sentence {i + 1} is a string, not a token list; build it from "
                "strings with from_texts(..., tokenise='whitespace' | 'spacy' | 'chars')")
        toks = tuple(s)
        for t in toks:
            if not isinstance(t, str):
                raise TypeError(f"{what}: sentence {i + 1} holds {type(t).__name__}, expected "
                                "string tokens")
        out.append(toks)
    return tuple(out)


def reference_sets(references: Any, n: int, loader: str) -> list[list[str]]:
    """In-memory references as ``[reference][sentence]`` lists of ``n`` strings each: a file
    path (pointed at ``loader``), a single reference not wrapped in a list and
    ``[sentence][reference]`` lists are refused with a message saying how to fix them."""
    hint = path_hint(references, loader)
    if hint:
        raise TypeError(f"references: {hint}")
    if isinstance(references, str | bytes) or (
            len(references) and all(isinstance(r, str) for r in references)):
        raise TypeError("references must be a list of reference sets ([reference][sentence]); "
                        "got a list of strings: for one reference write references=[refs]")
    sets = [list(r) for r in references]
    if sets and all(len(r) != n for r in sets) and len(sets) == n:
        raise ConfigError(
            f"references look like [sentence][reference] ({len(sets)} lists of "
            f"{len(sets[0])}); give them as [reference][sentence]: "
            "references=[list(r) for r in zip(*references)]")
    for k, r in enumerate(sets):
        if len(r) != n:
            raise LengthMismatchError(n, len(r), f"references[{k}]", "sentences", "sources")
    return sets


def as_language(lang: Language | str | None) -> Language:
    """``lang`` as a :class:`~gecscope.languages.Language` (a code gets its defaults)."""
    if lang is None:
        return ENGLISH
    if isinstance(lang, Language):
        return lang
    if isinstance(lang, str):
        return language(lang)
    raise TypeError(f"lang must be a language code or a Language, not {type(lang).__name__}")


def annotate_rows(lang: Language, rows: Sequence[tuple[str, Sequence[str]]]) -> tuple[
        Sentence, ...]:
    """Sentences from raw ``(source, targets)`` rows (any number of targets per row), the
    edits found by ``lang``'s extractor; ChERRANT's annotator sees the raw text, as the tool."""
    if lang.edit_extractor.raw_text:
        ann: Any = lang.annotator()
        return tuple(ann.annotate(src, targets).sentence() for src, targets in rows)
    fn = lang.tokeniser()
    annotator = lang.annotator()
    out = []
    for src, targets in rows:
        corpus = annotator.annotate_corpus([fn(src)], [[fn(t)] for t in targets])
        out.append(corpus.sentences[0])
    return tuple(out)

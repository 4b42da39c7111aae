"""M2 reading and writing: every format rule and every refusal, on small files and real CoNLL data."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import FormatError
from gecscope.formats.m2 import format_sentence, parse_m2, read_m2, write_m2
from gecscope.types import Annotation, Corpus, Edit, Sentence

SAMPLE = (
    "S This are a sentence .\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0\n"
    "A 3 4|||R:NOUN|||example||test|||OPTIONAL|||checked|||0\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S Good .\n"
    "\n"
    "S He go home\n"
    "A 1 2|||Vform|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 3 3|||Mec|||.|||REQUIRED|||-NONE-|||0\n"
    "A 0 1|||Pref|||-NONE-|||REQUIRED|||-NONE-|||1\n"
)


def write(tmp_path: Path, text: str | bytes, name: str = "f.m2") -> Path:
    p = tmp_path / name
    if isinstance(text, str):
        p.write_text(text, encoding="utf-8", newline="")
    else:
        p.write_bytes(text)
    return p


def test_parse_fields() -> None:
    c = parse_m2(SAMPLE)
    assert len(c) == 3
    s0 = c[0]
    assert s0.source == ("This", "are", "a", "sentence", ".")
    assert s0.annotators == (0, 1)
    assert s0.edits(0) == (
        Edit(1, 2, ("is",), "R:VERB:SVA"),
        Edit(3, 4, ("example",), "R:NOUN", alternatives=(("test",),), required=False,
             comment="checked"),
    )
    assert s0.edits(1) == ()  # noop: the annotator saw it and changed nothing
    assert c[1].annotations == ()
    assert c[2].edits(1) == (Edit(0, 1, (), "Pref"),)
    assert c.annotators == (0, 1)


def test_references_derived_per_annotator() -> None:
    c = parse_m2(SAMPLE)
    assert c.references(0) == [("This", "is", "a", "example", "."), ("Good", "."),
                               ("He", "goes", "home", ".")]
    assert c.references(1) == [("This", "are", "a", "sentence", "."), ("Good", "."),
                               ("go", "home")]


def test_round_trip(tmp_path: Path) -> None:
    c = parse_m2(SAMPLE)
    out = tmp_path / "out.m2"
    write_m2(out, c)
    assert read_m2(out) == c
    # Deletions are written as an empty field, like ERRANT does; noop lines as -NONE-.
    text = out.read_text(encoding="utf-8")
    assert "A 0 1|||Pref||||||REQUIRED|||-NONE-|||1\n" in text
    assert "A 3 4|||R:NOUN|||example||test|||OPTIONAL|||checked|||0\n" in text
    assert "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n" in text


@pytest.mark.parametrize("variant", ["crlf", "bom", "trailing", "no-final-newline", "extra-blanks"])
def test_real_world_quirks_accepted(tmp_path: Path, variant: str) -> None:
    text = SAMPLE
    if variant == "crlf":
        data: str | bytes = text.replace("\n", "\r\n")
    elif variant == "bom":
        data = b"\xef\xbb\xbf" + text.encode()
    elif variant == "trailing":
        data = "\n".join(line + "  " if line else line for line in text.split("\n"))
    elif variant == "no-final-newline":
        data = text.rstrip("\n")
    else:
        data = "\n\n" + text.replace("\n\n", "\n\n\n") + "\n\n"
    assert read_m2(write(tmp_path, data)) == parse_m2(SAMPLE)


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("S a b\nA 0 1|||X|||y|||REQUIRED|||-NONE-\n", 2, "expected 6 fields"),
    ("S a b\nA 0 x|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "start end"),
    ("S a b\nA 0 3|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "out of range"),
    ("S a b\nA 2 1|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "out of range"),
    ("S a b\nA 0 1|||X|||y|||REQUIRED|||-NONE-|||zero\n", 2, "annotator"),
    ("S a b\n\nS c\nA -1 -1|||R:X|||y|||REQUIRED|||-NONE-|||0\n", 4, "noop"),
    ("A 0 1|||X|||y|||REQUIRED|||-NONE-|||0\n", 1, "before any S line"),
    ("S a b\nB nonsense\n", 2, "expected a line starting with"),
])
def test_malformed_refused_with_line(tmp_path: Path, text: str, line: int, needle: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FormatError) as err:
        read_m2(p)
    assert err.value.line == line
    assert err.value.path == str(p)
    assert needle in str(err.value)
    assert f"{p}:{line}:" in str(err.value)


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(FormatError, match="empty"):
        read_m2(write(tmp_path, text))


def test_non_utf8_refused_with_line(tmp_path: Path) -> None:
    p = write(tmp_path, b"S a b\n\nS caf\xe9 noir\n")
    with pytest.raises(FormatError) as err:
        read_m2(p)
    assert err.value.line == 3
    assert "not valid UTF-8" in str(err.value)


def test_missing_file_refused(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="file not found"):
        read_m2(tmp_path / "nope.m2")


def test_failed_write_leaves_target_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out.m2"
    out.write_text("previous\n", encoding="utf-8")

    def sentences():
        yield Sentence(("a",), (Annotation(0, ()),))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_m2(out, sentences())
    assert out.read_text(encoding="utf-8") == "previous\n"
    actual = [p.name for p in tmp_path.iterdir()]
    assert actual == ["out.m2"]


def test_empty_source_sentence_round_trips() -> None:
    s = Sentence((), (Annotation(0, ()),))
    assert format_sentence(s) == "S\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
    assert parse_m2(format_sentence(s)) == Corpus((s,))


def test_conll14_official(conll14: Path) -> None:
    c = read_m2(conll14 / "official-2014.combined.m2")
    assert len(c) == 1312
    assert c.annotators == (0, 1)
    # grep counts of A lines ending in |||0 (2620, of which 229 noop) and |||1 (3207 non-noop)
    n0 = sum(len(s.edits(0)) for s in c)
    n1 = sum(len(s.edits(1)) for s in c)
    actual = (n0, n1)
    assert actual == (2620 - 229, 3207)
    single0 = read_m2(conll14 / "official-2014.0.m2")
    single1 = read_m2(conll14 / "official-2014.1.m2")
    assert n0 == sum(len(s.edits(0)) for s in single0)
    # The single-annotator files number their only annotator 0. Annotator 1's own file has
    # 3317 A lines (grep), 110 more than in the combined file: the releases differ.
    assert sum(len(s.edits(0)) for s in single1) == 3317
    # Sentence 8: annotator 0 wrote a noop, annotator 1 inserted "will" before "develop".
    s = c[7]
    assert s.edits(0) == ()
    assert s.edits(1) == (Edit(26, 26, ("will",), "Vt"),)
    assert s.reference(1)[25:28] == ("you", "will", "develop")


def test_errant_references_write_back_byte_identical(conll14: Path, tmp_path: Path) -> None:
    src = conll14 / "errant" / "references.m2"
    out = tmp_path / "refs.m2"
    write_m2(out, read_m2(src))
    assert out.read_text(encoding="utf-8").rstrip("\n") == src.read_text(
        encoding="utf-8").rstrip("\n")


def test_tokens_m2_cannot_represent_are_refused(tmp_path: Path) -> None:
    # a correction "cat||dog" used to be written as is and read back as two alternatives
    from gecscope.formats.m2 import write_m2
    from gecscope.types import Annotation, Corpus, Edit, Sentence

    bad = Corpus((Sentence(("a", "cat"), (Annotation(0, (Edit(1, 2, ("cat||dog",), "R:NOUN"),)),)),))
    out = tmp_path / "out.m2"
    with pytest.raises(FormatError, match="sentence 1: token 'cat\\|\\|dog' contains"):
        write_m2(out, bad)
    assert not out.exists()


def test_bad_command_line_exits_64() -> None:
    from gecscope.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["evaluate", "--no-such-flag"])
    assert stop.value.code == 64

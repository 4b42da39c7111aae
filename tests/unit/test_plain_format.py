"""Plain-text loading: real-world quirks accepted, broken input refused with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.errors import FormatError, LengthMismatchError
from gecscope.formats.plain import read_lines, read_tokens, write_lines


def test_quirks(tmp_path: Path) -> None:
    p = tmp_path / "h.txt"
    p.write_bytes(b"\xef\xbb\xbfA  b .  \r\n\r\nc d")
    assert read_tokens(p) == [("A", "b", "."), (), ("c", "d")]


def test_length_mismatch(tmp_path: Path) -> None:
    p = tmp_path / "h.txt"
    p.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(LengthMismatchError) as err:
        read_lines(p, expected=3, expected_from="src.txt")
    msg = str(err.value)
    actual = (err.value.expected, err.value.got)
    assert actual == (3, 2)
    assert str(p) in msg and "src.txt" in msg


def test_empty_and_non_utf8(tmp_path: Path) -> None:
    e = tmp_path / "e.txt"
    e.write_text("\n \n", encoding="utf-8")
    with pytest.raises(FormatError, match="empty"):
        read_lines(e)
    b = tmp_path / "b.txt"
    b.write_bytes(b"ok\nfine\n" + "caf\xe9\n".encode("latin-1"))
    with pytest.raises(FormatError) as err:
        read_lines(b)
    assert err.value.line == 3


def test_write_round_trip(tmp_path: Path) -> None:
    p = tmp_path / "o.txt"
    write_lines(p, [("a", "b"), "c d", ()])
    assert p.read_text(encoding="utf-8") == "a b\nc d\n\n"
    assert read_tokens(p) == [("a", "b"), ("c", "d"), ()]


@pytest.mark.parametrize("system", ["IITB", "PKU", "INPUT", "SJTU", "AMU"])
def test_conll14_submissions(conll14: Path, system: str) -> None:
    # IITB and PKU have CRLF line ends, INPUT and SJTU trailing spaces (data README).
    lines = read_lines(conll14 / "submissions" / system, expected=1312)
    assert all(ln == ln.strip() and "\r" not in ln for ln in lines)
    assert sum(1 for ln in lines if ln) >= 1300


def test_seeda_outputs_without_final_newline(shared_data: Path) -> None:
    out = shared_data / "seeda" / "outputs" / "subset"
    files = sorted(out.glob("*.txt"))
    assert len(files) == 15
    for f in files:
        assert not f.read_bytes().endswith(b"\n")  # no final newline (data README)
        assert len(read_lines(f)) == 391

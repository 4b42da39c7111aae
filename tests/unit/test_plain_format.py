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


# --- writing outputs: never replace what the path points to ----------------------------------

def test_writing_to_a_fifo_writes_into_it(tmp_path: Path) -> None:
    import os
    import threading

    from gecscope.formats.base import atomic_write

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    atomic_write(fifo, ["a b\n", "c\n"])
    reader.join(timeout=10)
    assert got == ["a b\nc\n"]
    assert fifo.is_fifo()  # still a pipe, not replaced by a regular file


def test_writing_through_a_symlink_keeps_the_link_and_the_mode(tmp_path: Path) -> None:
    import os
    import stat

    from gecscope.formats.base import atomic_write

    target = tmp_path / "real.txt"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write(link, ["new\n"])
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]


def test_writing_to_dev_stdout_and_dash(capfd) -> None:
    from gecscope.formats.base import atomic_write

    atomic_write("-", ["to stdout\n"])
    assert capfd.readouterr().out == "to stdout\n"
    import os

    if os.path.exists("/dev/stdout"):
        atomic_write("/dev/stdout", ["via the device\n"])
        assert capfd.readouterr().out == "via the device\n"


def test_unwritable_outputs_are_typed_errors(tmp_path: Path) -> None:
    import os

    from gecscope.errors import OutputError
    from gecscope.formats.base import atomic_write

    with pytest.raises(OutputError, match="is a directory"):
        atomic_write(tmp_path, ["x"])
    with pytest.raises(OutputError, match="does not exist"):
        atomic_write(tmp_path / "missing" / "f.txt", ["x"])
    if os.geteuid() != 0:  # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        with pytest.raises(OutputError, match="cannot write"):
            atomic_write(ro / "f.txt", ["x"])
    if os.path.exists("/dev/full"):
        with pytest.raises(OutputError, match="No space left"):
            atomic_write("/dev/full", ["x" * 100_000])


def test_nul_bytes_are_refused(tmp_path: Path) -> None:
    # a UTF-16 file without BOM used to be read as text with NULs and scored as garbage
    f = tmp_path / "utf16.txt"
    f.write_bytes("a b\nc d\n".encode("utf-16-le"))
    with pytest.raises(FormatError, match="NUL bytes") as err:
        read_lines(f)
    assert err.value.line == 1


def test_concurrent_writers_never_mix_their_outputs(tmp_path: Path) -> None:
    # two runs writing the same output: the file is always one run's whole output
    import threading

    from gecscope.formats.base import atomic_write

    out = tmp_path / "shared.m2"
    texts = {k: [f"{k} line {i}\n" for i in range(20_000)] for k in ("a", "b")}
    seen: list[str] = []

    def write(key: str) -> None:
        for _ in range(5):
            atomic_write(out, texts[key])

    def watch() -> None:
        for _ in range(200):
            if out.exists():
                seen.append(out.read_text(encoding="utf-8"))

    threads = [threading.Thread(target=write, args=(k,)) for k in texts]
    threads.append(threading.Thread(target=watch))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    whole = {"".join(v) for v in texts.values()}
    assert out.read_text(encoding="utf-8") in whole
    assert all(s in whole for s in seen)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.m2"]  # no temporary left

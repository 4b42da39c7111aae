"""Shared file handling: strict UTF-8 decoding, line splitting and atomic writes.

Real GEC files come with CRLF line ends, a UTF-8 byte-order mark, trailing spaces and no final
newline; all are accepted. Non-UTF-8 bytes and empty files are refused with a
:class:`~gecscope.errors.FormatError` naming the file and line.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from gecscope.errors import FormatError

PathLike = str | os.PathLike[str]


STDIN = "-"
_STREAMS: dict[str, bytes] = {}


def read_bytes(path: PathLike, what: str = "a file") -> bytes:
    """The bytes of ``path``; a missing file or a directory is a :class:`FormatError`.

    ``-`` is standard input. Standard input, pipes and process substitutions (``<(...)``)
    can be read only once, so their bytes are kept and a second read returns them again.
    """
    key = os.fspath(path)
    if key in _STREAMS:
        return _STREAMS[key]
    if key == STDIN:
        import sys

        _STREAMS[key] = sys.stdin.buffer.read()
        return _STREAMS[key]
    p = Path(path)
    try:
        if not p.is_file() and p.exists() and not p.is_dir():  # a pipe or a device
            _STREAMS[key] = p.read_bytes()
            return _STREAMS[key]
        return p.read_bytes()
    except FileNotFoundError:
        raise FormatError("file not found", p) from None
    except IsADirectoryError:
        raise FormatError(f"is a directory, expected {what}", p) from None


def read_text(path: PathLike, *, allow_empty: bool = False) -> str:
    """Read a whole file as UTF-8 (a leading BOM is dropped), normalising line ends to ``\\n``."""
    p = Path(path)
    data = read_bytes(p)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(
            f"byte 0x{data[exc.start]:02x} is not valid UTF-8 (byte offset {exc.start}); "
            "gecscope expects UTF-8 text, convert it first (e.g. iconv -t UTF-8)",
            p,
            line,
        ) from None
    if not allow_empty and not text.strip():
        raise FormatError("file is empty, expected at least one sentence", p)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Split normalised text into lines; a final newline does not start another line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def atomic_write(path: PathLike, chunks: Iterable[str]) -> None:
    """Write ``chunks`` to ``path`` through a temporary file, so a failure leaves nothing half-written.

    ``chunks`` may be a generator that raises; the target is then left untouched.
    """
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise FormatError(f"cannot write here: directory {str(directory)!r} does not exist", p)
    if p.is_dir():
        raise FormatError("is a directory, expected a file name to write", p)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    except PermissionError:
        raise FormatError(f"cannot write here: no permission in {str(directory)!r}", p) from None
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for chunk in chunks:
                fh.write(chunk)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise

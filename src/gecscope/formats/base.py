"""Shared file handling: strict UTF-8 decoding, line splitting and atomic writes.

Real GEC files come with CRLF line ends, a UTF-8 byte-order mark, trailing spaces and no final
newline; all are accepted. Non-UTF-8 bytes and empty files are refused with a
:class:`~gecscope.errors.FormatError` naming the file and line.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from gecscope.errors import FormatError, OutputError

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


NUL_BYTES = ("contains NUL bytes: not UTF-8 text (a UTF-16 file? convert it with iconv -f "
             "UTF-16 -t UTF-8)")


def _not_utf8(byte: int, where: str = "") -> str:
    return (f"byte 0x{byte:02x} is not valid UTF-8{where}; gecscope expects UTF-8 text, "
            "convert it first (e.g. iconv -t UTF-8)")


def read_text(path: PathLike, *, allow_empty: bool = False) -> str:
    """Read a whole file as UTF-8 (a leading BOM is dropped), normalising line ends to ``\\n``."""
    p = Path(path)
    return decode_text(read_bytes(p), p, allow_empty=allow_empty)


def decode_text(data: bytes, path: PathLike, *, allow_empty: bool = False) -> str:
    """Bytes read from ``path`` (a local file or any other source) as text, with the checks and
    line-end handling of :func:`read_text`."""
    p = Path(path) if "://" not in os.fspath(path) else path
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(NUL_BYTES, p, data[:nul].count(b"\n") + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(_not_utf8(data[exc.start], f" (byte offset {exc.start})"), p,
                          line) from None
    if not allow_empty and not text.strip():
        raise FormatError("file is empty, expected at least one sentence", p)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def iter_lines(path: PathLike, *, allow_empty: bool = False) -> Iterator[str]:
    """The lines of a UTF-8 file one at a time, with the checks and line-end handling of
    :func:`read_text` (BOM dropped, CRLF and CR are line ends, NUL bytes and invalid UTF-8
    refused with the line number), in memory independent of the file's size. Streams already
    read by :func:`read_bytes` are served from memory; ``-`` is standard input."""
    key = os.fspath(path)
    p = Path(path)
    if key in _STREAMS:
        fh: Any = io.BytesIO(_STREAMS[key])
    elif key == STDIN:
        fh = sys.stdin.buffer
    else:
        try:
            fh = open(p, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            raise FormatError("file not found", p) from None
        except IsADirectoryError:
            raise FormatError("is a directory, expected a file", p) from None
    number = 0
    content = False
    try:
        for raw in fh:
            if number == 0 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if b"\x00" in raw:
                raise FormatError(NUL_BYTES, p, number + 1)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise FormatError(_not_utf8(raw[exc.start]), p, number + 1) from None
            text = text.removesuffix("\n").removesuffix("\r")
            for line in text.split("\r"):  # a lone CR ends a line too
                number += 1
                content = content or bool(line.strip())
                yield line
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
    if not allow_empty and not content:
        raise FormatError("file is empty, expected at least one sentence", p)


def split_lines(text: str) -> list[str]:
    """Split normalised text into lines; a final newline does not start another line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_STDOUT_NAMES = frozenset({STDIN, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
_STDERR_NAMES = frozenset({"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"})


def atomic_write(path: PathLike, chunks: Iterable[str]) -> None:
    """Write ``chunks`` to ``path`` so that a failure leaves nothing half-written.

    A regular file (or a new one) is written through a temporary file in its directory and
    renamed over it, keeping an existing file's permissions; a symbolic link is followed and
    its target written that way. ``-``, devices (``/dev/stdout``, ``/dev/null``), FIFOs and
    sockets are written in place: renaming over them would replace the device or pipe with a
    regular file. ``chunks`` may be a generator that raises; the target is then left untouched
    (special files excepted: what was sent is sent). SIGTERM during the write removes the
    temporary file; on Linux it has no name until it is complete (``O_TMPFILE``), so even a
    SIGKILLed process leaves none behind. Every failure is an
    :class:`~gecscope.errors.OutputError` naming the path.
    """
    key = os.fspath(path)
    if key in _STDOUT_NAMES:  # "-" as an output, or stdout by name: the stream itself
        _write_stream(sys.stdout, chunks, "<stdout>" if key == STDIN else key)
        return
    if key in _STDERR_NAMES:
        _write_stream(sys.stderr, chunks, key)
        return
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()
    if p.exists() and not p.is_file() and not p.is_dir():  # device, FIFO, socket
        try:
            with open(p, "w", encoding="utf-8", newline="\n") as fh:
                _write_stream(fh, chunks, str(p))
        except OSError as exc:
            raise OutputError(f"cannot write: {exc.strerror or exc}", p) from None
        return
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"cannot write here: directory {str(directory)!r} does not exist", p)
    if p.is_dir():
        raise OutputError("is a directory, expected a file name to write", p)
    tmp: str | None = None
    try:
        fd = _unnamed_file(directory)
        if fd is None:
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"cannot write in {str(directory)!r}: {exc.strerror or exc}", p) from None
    try:
        mode = stat.S_IMODE(p.stat().st_mode)
    except OSError:  # a new file: the usual mode (mkstemp creates 0600)
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    previous = _terminate_as_exit()
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:  # closes fd on failure
            if tmp is None:
                os.fchmod(fh.fileno(), mode)
            else:
                os.chmod(tmp, mode)
            for chunk in chunks:
                fh.write(chunk)
            if tmp is None:  # complete: now it gets a name, then the target's
                fh.flush()
                tmp = _name_unnamed(fh.fileno(), directory, p.name)
        os.replace(tmp, p)
    except OSError as exc:
        _unlink(tmp)
        raise OutputError(f"cannot write: {exc.strerror or exc}", p) from None
    except BaseException:
        _unlink(tmp)
        raise
    finally:
        _restore_terminate(previous)


def _write_stream(fh: Any, chunks: Iterable[str], name: str) -> None:
    try:
        for chunk in chunks:
            fh.write(chunk)
        fh.flush()
    except (OSError, ValueError) as exc:  # ValueError: a closed stream
        raise OutputError(f"cannot write: {getattr(exc, 'strerror', None) or exc}", name) from None


def _unlink(path: str | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _unnamed_file(directory: Path) -> int | None:
    """A file without a name in ``directory`` (Linux ``O_TMPFILE``: the kernel frees it if
    the process dies, however), or None where that is unavailable (other systems, file
    systems without it, no ``/proc`` to name it by later)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY, 0o600)
    except OSError:  # EOPNOTSUPP, EISDIR (old kernel), EINVAL...: a named temporary file
        return None


def _name_unnamed(fd: int, directory: Path, name: str) -> str:
    """Give the unnamed file ``fd`` a temporary name in ``directory`` (to be renamed over
    the target at once: ``link`` cannot replace a file)."""
    import secrets

    proc = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        while True:
            tmp = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
            try:  # linkat(.., AT_SYMLINK_FOLLOW): the file the descriptor's link points to
                os.link(str(fd), tmp, src_dir_fd=proc, follow_symlinks=True)
                return tmp
            except FileExistsError:
                continue
    finally:
        os.close(proc)


def _terminate_as_exit() -> Any:
    """While writing, turn SIGTERM into SystemExit so the temporary file is removed (only in
    the main thread, where signal handlers can be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # pragma: no cover - not the main interpreter
        return None
    # None: the previous handler was not set from Python (the default action, as a rule)
    return signal.SIG_DFL if previous is None else previous


def _restore_terminate(previous: Any) -> None:
    import signal
    import threading

    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, previous)

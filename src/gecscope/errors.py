"""Typed errors. Library code raises these; only the CLI turns them into messages and exit codes."""

from __future__ import annotations

import os


class GecscopeError(Exception):
    """Base class of every error gecscope raises on purpose."""

    exit_code = 1


class FormatError(GecscopeError):
    """An input file does not follow its format. Knows the file and the 1-based line."""

    exit_code = 65

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class OutputError(GecscopeError):
    """An output cannot be written (missing directory, a directory, no permission, disk full,
    closed stream). Names the path; exit 73 (sysexits' EX_CANTCREAT)."""

    exit_code = 73

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        super().__init__(f"{self.path or '<output>'}: {message}")


class CacheBusyError(GecscopeError):
    """Another process kept a cache locked for longer than the time-out; names the file;
    exit 75 (sysexits' EX_TEMPFAIL: nothing is wrong with the input, try again)."""

    exit_code = 75

    def __init__(self, path: str | os.PathLike[str], what: str, timeout: float) -> None:
        self.path = str(path)
        super().__init__(f"{self.path}: the {what} is locked by another process (waited "
                         f"{timeout:g} s); run again when that process has finished, or give "
                         "this run another cache directory")


class LengthMismatchError(GecscopeError):
    """Parallel inputs (source, hypotheses, references) have different numbers of sentences."""

    exit_code = 65

    def __init__(self, expected: int, got: int, path: str | os.PathLike[str] | None, what: str = "sentences",
                 expected_from: str | os.PathLike[str] | None = None):
        self.expected = expected
        self.got = got
        self.path = str(path) if path is not None else None
        origin = f" (as in {expected_from})" if expected_from is not None else ""
        super().__init__(
            f"{self.path or '<input>'}: has {got} {what} but {expected} were expected{origin}; "
            "the inputs must have one sentence per line, aligned line by line"
        )


class MissingDependencyError(GecscopeError, ImportError):
    """An optional component is not installed; the message gives the install command
    (``install``: when it is more than ``pip install 'gecscope[EXTRA]'``, e.g. torch first)."""

    exit_code = 69

    def __init__(self, package: str, extra: str, feature: str = "", install: str = ""):
        self.package = package
        self.extra = extra
        what = f" for {feature}" if feature else ""
        install = install or f"pip install 'gecscope[{extra}]'"
        super().__init__(f"{package} is needed{what} but is not installed; install it with: "
                         f"{install}")


class ConfigError(GecscopeError, ValueError):
    """An option or configuration value is invalid."""

    exit_code = 64


class InputWarning(UserWarning):
    """An input that is read and scored, but probably not as meant (a detokenised hypothesis,
    an M2 with several annotators, differences of Unicode form only, a format guess). The
    Python API emits it with :func:`warnings.warn`; the CLI prints the same text."""

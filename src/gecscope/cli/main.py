"""Entry point: builds the parser from the subcommand modules and maps errors to exit codes.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``, which registers
the subcommand and sets ``func`` (a callable taking the parsed namespace and returning an exit
code). Modules listed here but not installed are skipped, so features can land one at a time.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

from gecscope import __version__
from gecscope.errors import GecscopeError

SUBCOMMANDS: tuple[str, ...] = (
    "gecscope.cli.annotate",
    "gecscope.cli.evaluate",
    "gecscope.cli.compare",
    "gecscope.cli.convert",
    "gecscope.cli.explain",
    "gecscope.cli.meta_eval",
    "gecscope.cli.usim",
    "gecscope.cli.correct",
    "gecscope.cli.demo",
    "gecscope.cli.errant_tools",
    "gecscope.cli.check",
)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the exit code the README promises for a bad option: 64 (EX_USAGE), not 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(64, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="gecscope",
        description="Evaluate, explain and compare grammatical error correction systems.",
    )
    parser.add_argument("--version", action="version", version=f"gecscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread (like KeyboardInterrupt for SIGINT) so that the
    command's clean-up runs: temporary files removed, worker processes ended."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


@contextmanager
def _signals() -> Iterator[None]:
    """SIGTERM as :class:`Terminated` while a command runs (in the main thread only, where
    handlers can be set); the previous handler afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """gecscope's own warnings (an :class:`~gecscope.errors.InputWarning`, or one raised in
    gecscope's code: a damaged cache set aside, a slow fallback) printed as the CLI's lines,
    ``gecscope: warning: ...``, not as Python's ``file:line: Category: ...``; other libraries'
    warnings are shown as usual."""
    import os
    import warnings

    from gecscope.errors import InputWarning

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        if issubclass(category, InputWarning) or os.path.abspath(filename).startswith(package):
            print(f"gecscope: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _stopped(command: str, what: str, code: int) -> int:
    """One line for an interrupted or terminated run (its clean-up done, its workers ended),
    and the shell's exit code for the signal (128 + its number)."""
    print(f"gecscope {command}: {what}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        from gecscope.cli._common import refuse_overwrites

        refuse_overwrites(parser, args)  # an output onto an input: refused before anything runs
        with _signals(), _warnings_as_lines():
            return int(args.func(args) or 0)
    except GecscopeError as exc:
        print(f"gecscope {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return _stopped(args.command, "interrupted", 130)
    except Terminated:
        return _stopped(args.command, "terminated", 143)
    except SystemExit as exc:  # SIGTERM while atomic_write's own handler was set
        if exc.code == 128 + signal.SIGTERM:
            return _stopped(args.command, "terminated", exc.code)
        raise
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())

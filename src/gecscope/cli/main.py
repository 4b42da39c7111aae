"""Entry point: builds the parser from the subcommand modules and maps errors to exit codes.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``, which registers
the subcommand and sets ``func`` (a callable taking the parsed namespace and returning an exit
code). Modules listed here but not installed are skipped, so features can land one at a time.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except GecscopeError as exc:
        print(f"gecscope {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())

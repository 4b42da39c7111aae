"""Helpers shared by the subcommands: option parsing, progress display, table rendering."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
import typing
from collections.abc import Sequence
from typing import Any, TextIO

from gecscope.errors import ConfigError, GecscopeError, OutputError


def parse_options(pairs: Sequence[str], config_cls: type, metric: str) -> dict[str, Any]:
    """Turn ``key=value`` (or ``metric.key=value``) pairs into Config keyword arguments.

    Values are read by the type of the Config field with
    :func:`~gecscope.metrics.base.coerce_option`, the one reader of option values (the API's
    ``Metric(beta="1.0")`` reads them the same way). Options addressed to another metric
    (``other.key=value``) and unprefixed keys this metric lacks are skipped here: another
    selected metric may have them (:func:`check_option_keys` refuses those none has).
    """
    from gecscope.metrics.base import coerce_option

    hints = typing.get_type_hints(config_cls)
    fields = {f.name for f in dataclasses.fields(config_cls)}
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ConfigError(f"--option expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        if "." in key:
            target, key = key.split(".", 1)
            if target != metric:
                continue
        elif key not in fields:
            continue
        if key not in fields:
            raise ConfigError(f"metric {metric!r} has no option {key!r}; options: "
                              f"{', '.join(sorted(fields))}")
        out[key] = coerce_option(metric, key, value, hints[key])
    return out


def check_option_keys(pairs: Sequence[str], metrics: Sequence[Any]) -> None:
    """Refuse an unprefixed ``key=value`` that none of ``metrics`` has (a misspelled option
    would otherwise run with the default and print a wrong number), with a "did you mean".
    A prefixed ``metric.key`` naming a metric that is not selected is refused too."""
    import difflib

    known: dict[str, set[str]] = {m.name: {f.name for f in dataclasses.fields(m.Config)}
                                  for m in metrics}
    every = sorted(set().union(*known.values())) if known else []
    for pair in pairs:
        key = pair.split("=", 1)[0]
        if "." in key:
            target = key.split(".", 1)[0]
            if target not in known:
                raise ConfigError(f"option {key!r} is for metric {target!r}, which is not "
                                  f"selected (metrics: {', '.join(known)})")
            continue
        if key in every:
            continue
        close = difflib.get_close_matches(key, every, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"no selected metric ({', '.join(known)}) has an option {key!r}{hint} "
                          f"(options: {', '.join(every)})")


class _NotAnOutputFlag(argparse.Action):
    """``-o`` on a command that writes a file: in gecscope ``-o`` is always a metric option."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error("-o is a metric option (KEY=VALUE) in gecscope; write the output file with "
                     f"--output {values if isinstance(values, str) else 'FILE'}")


def _jobs(text: str) -> int:
    """``--jobs N``: a whole number from 0 (every core) to :data:`gecscope.execution.pool.MAX_JOBS`
    (above it, a typo rather than a machine); values above the cores are capped, with a
    warning, where the workers start."""
    from gecscope.execution.pool import MAX_JOBS

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 (0 = every core), got {n}")
    if n > MAX_JOBS:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(f"must be at most {MAX_JOBS} (0 = every core; more "
                                         f"than the cores is capped at them), got {shown}")
    return n


def add_jobs_argument(p: argparse.ArgumentParser, what: str) -> None:
    """``--jobs N`` / ``-j N`` (default 0: every core this process may use), in its own
    help section."""
    g = p.add_argument_group("parallelism")
    g.add_argument("--jobs", "-j", type=_jobs, default=0, metavar="N",
                   help=f"worker processes for {what} (default 0: every core this process may "
                        "use, and never more, with a warning; small inputs run in one "
                        "process); results are the same for any N")


def add_backend_arguments(p: argparse.ArgumentParser) -> None:
    """``--backend local|ray`` and ``--address`` (the Ray cluster), in their own help section."""
    g = p.add_argument_group("Ray backend")
    g.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="where the work runs: local processes (default) or a Ray cluster "
                        "(pip install 'gecscope[ray]'); --jobs is then the number of actors "
                        "(0 = one per CPU of the cluster, and never more)")
    g.add_argument("--address", metavar="auto|HOST:PORT",
                   help="Ray cluster to join (default: start a local Ray instance; auto: the "
                        "cluster this machine belongs to); checked first, so an address "
                        "where no cluster answers fails in seconds (exit 69)")


def add_language_arguments(p: argparse.ArgumentParser) -> None:
    """``--lang`` and how text of that language is tokenised and its edits found."""
    g = p.add_argument_group("language (docs/languages.md)")
    g.add_argument("--lang", default="en", metavar="CODE",
                   help="language of the texts (default en: ERRANT on space-separated tokens; "
                        "zh: characters and ChERRANT's char-level edits; any other ISO 639 "
                        "code: Levenshtein edits); any case, a region is ignored (en-US is en)")
    g.add_argument("--tokenise", "--tokenize", dest="tokenise",
                   choices=["whitespace", "chars", "spacy", "nltk"],
                   help="how plain text becomes tokens (default: whitespace; chars for zh; "
                        "nltk: CoNLL-2014's Treebank-style tokens, docs/raw-text.md)")
    g.add_argument("--spacy-model", metavar="NAME",
                   help="an installed spaCy pipeline for --tokenise spacy and for POS-typed "
                        "edits (e.g. fr_core_news_sm)")
    g.add_argument("--zh-data", metavar="DIR",
                   help="ChERRANT's resource folder (cilin.txt, confusion_dict.txt); default: "
                        "$GECSCOPE_CHERRANT_DATA")
    g.add_argument("--no-simplified", "--no_simplified", dest="no_simplified",
                   action="store_true",
                   help="zh: keep traditional characters in targets (ChERRANT --no_simplified)")
    g.add_argument("--zh-alignments", choices=["all", "first"], default="all",
                   help="zh: every cheapest alignment (default) or the first (ChERRANT -s)")


def language_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~gecscope.languages.Language` the ``--lang`` arguments describe."""
    from gecscope.languages import language

    def arg(name: str, default: Any = None) -> Any:
        return getattr(args, name, default)

    return language(arg("lang", "en"), tokenise=arg("tokenise"), spacy_model=arg("spacy_model"),
                    zh_data=arg("zh_data"), simplified=not arg("no_simplified", False),
                    alignments=arg("zh_alignments", "all"))


def add_output_argument(p: argparse.ArgumentParser, help: str, *aliases: str,
                        **kwargs: Any) -> None:
    """``--output`` (plus ``aliases``, e.g. errant's ``-out``), and an ``-o`` that explains
    itself instead of meaning something else than in ``evaluate``."""
    p.add_argument("--output", *aliases, dest="output", help=help, **kwargs)
    p.add_argument("-o", action=_NotAnOutputFlag, help=argparse.SUPPRESS)


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` with an option's value named once after all its spellings
    (``-r, --ref, -ref REF [REF ...]`` rather than ``REF [REF ...]`` after each of them)."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        value = self._format_args(action, self._get_default_metavar_for_optional(action))
        return f"{', '.join(action.option_strings)} {value}"


_RST_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`]+)`")
_RST_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")


def plain_help(text: str) -> str:
    """A docstring as ``--help`` text: reStructuredText roles (``:func:`x```), literals
    (````x````) and the literal-block marker (``::``) become plain text."""
    text = _RST_ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2),
                         text)  # ~ shows the last name only, as Sphinx does
    text = _RST_LITERAL.sub(lambda m: m.group(1) or m.group(2), text)
    return re.sub(r"\s*::(?=\s|$)", ":", text)


class Progress:
    """Progress on stderr: done/total, rate and time left. On a terminal one line rewritten in
    place (after 2 seconds); elsewhere only with ``force`` (``--progress``), a line every 10
    seconds, so logs stay readable."""

    def __init__(self, total: int, desc: str, quiet: bool = False,
                 stream: TextIO | None = None, *, unit: str = "", force: bool = False) -> None:
        self.total = total
        self.desc = desc
        self.unit = unit
        self.done = 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.enabled = not quiet and (self.tty or force)
        self.start = time.monotonic()
        self._last = 0.0
        self._shown = False

    def line(self, now: float | None = None) -> str:
        """The progress text: ``desc: done/total unit (pct, rate/s, ETA m:ss)``."""
        now = time.monotonic() if now is None else now
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        pct = 100.0 * self.done / self.total if self.total else 100.0
        unit = f" {self.unit}" if self.unit else ""
        text = f"{self.desc}: {self.done}/{self.total}{unit} ({pct:.0f}%"
        if self.done:
            shown = f"{rate:.0f}" if rate >= 10 else f"{rate:.2g}"
            text += f", {shown}/s"
            if self.done < self.total:
                left = (self.total - self.done) / rate
                text += f", ETA {int(left // 60)}:{int(left % 60):02d}"
        return text + ")"

    def __call__(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self.start < 2.0 or now - self._last < 0.1:
                return
            self.stream.write("\r" + self.line(now) + "\033[K")
        else:
            if now - self._last < 10.0:
                return
            self.stream.write(self.line(now) + "\n")
        self._last = now
        self._shown = True
        self.stream.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self.tty and self._shown:
            self.stream.write("\r" + self.line() + "\033[K\n")
        elif not self.tty:
            self.stream.write(self.line() + "\n")
        self.stream.flush()


def make_metric(spec: str, options: Sequence[str] | None = None, *, alone: bool = True,
                **overrides: Any) -> Any:
    """A metric from a registry name or ``module:Class``, with ``key=value`` options; keyword
    ``overrides`` that are not None replace options (for dedicated command-line flags).
    ``alone``: this is the only metric of the command, so an option it lacks is an error
    (with several metrics the caller checks the keys against all of them)."""
    from gecscope.registry import get_metric

    cls = get_metric(spec)
    kwargs = parse_options(options or [], cls.Config, cls.name or spec)
    kwargs.update({k: v for k, v in overrides.items() if v is not None})
    metric = cls(**kwargs)
    if alone:
        check_option_keys(options or [], [metric])
    return metric


def draws(maximum: int | None = None, minimum: int = 0) -> Any:
    """An argparse ``type`` for a resample or permutation count: a whole number from
    ``minimum`` to ``maximum`` (default :data:`~gecscope.stats.resample.MAX_DRAWS`), refused
    with the limit in the message before anything runs."""
    from gecscope.stats.resample import MAX_DRAWS, check_draws

    top = MAX_DRAWS if maximum is None else maximum

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        try:
            return check_draws("the count", n, top, minimum)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("the count ")) from None

    parse.__name__ = "count"  # argparse names the type in "invalid count value"
    return parse


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


class InputOverwriteError(OutputError):
    """An output path is (after symlinks, hard links and ``..``) one of the command's input
    files, or another output of the same command. Raised before anything runs, so the input
    is never truncated.

    Exit 73 (sysexits' EX_CANTCREAT, as every :class:`~gecscope.errors.OutputError`) rather
    than 64 (EX_USAGE): each option is valid on its own and the command line parses; what is
    refused is creating that output file, because creating it would destroy an input.
    """

    def __init__(self, option: str, path: str, other: str, other_path: str) -> None:
        self.message = (f"{option} {path} is the same file as {other} {other_path}; "
                        "nothing was run")
        self.path = path
        GecscopeError.__init__(self, self.message)


#: Namespace attributes that name an output file written by a subcommand (``-`` = stdout).
#: ``json`` is an output only where it holds a path (``meta-eval table --json FILE``).
OUTPUT_FILE_DESTS: tuple[str, ...] = ("output", "json_out", "html", "plot", "json")

#: Namespace attributes that name input files (a path or a list of them; ``-`` = stdin),
#: with what the error message calls them.
INPUT_FILE_DESTS: dict[str, str] = {
    "hyp": "the hypothesis", "ref": "the reference", "source": "the source",
    "cor": "the corrected file", "para": "the parallel file", "retype": "the gold M2",
    "input": "the input", "m2": "the M2", "references": "the reference",
    "registry": "the registry", "hash": "the file", "paraphrases": "the paraphrase table",
    "lm": "the language model",
}


def _leaf_parser(parser: argparse.ArgumentParser,
                 args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub-)subparser that parsed ``args``: followed through each subparsers action by
    the name it stored in the namespace."""
    while True:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = getattr(args, action.dest or "", None)
                if chosen in action.choices:
                    parser = action.choices[chosen]
                    break
        else:
            return parser


def _option_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """dest -> how the message spells the option (its first ``--`` spelling, else its first,
    or the positional's name)."""
    names: dict[str, str] = {}
    for action in parser._actions:
        if action.dest in names or action.dest == argparse.SUPPRESS:
            continue
        if action.option_strings:
            long = [s for s in action.option_strings if s.startswith("--")]
            names[action.dest] = (long or action.option_strings)[0]
        else:
            names[action.dest] = str(action.metavar or action.dest)
    return names


def _paths(value: Any) -> list[str]:
    """The file paths of one namespace value: a string or a list of them, without ``-``."""
    values = value if isinstance(value, (list, tuple)) else [value]
    return [str(v) for v in values if isinstance(v, (str, os.PathLike)) and str(v) not in ("", "-")]


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: :func:`os.path.samefile` when both exist (hard links
    and symlinks), else their :func:`os.path.realpath`."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _errant_files(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``gecscope errant``'s own arguments: (outputs, inputs) as (option, path) pairs
    (``-out FILE`` is the output, every other value an input, except option values that are
    no files)."""
    outputs: list[tuple[str, str]] = []
    inputs: list[tuple[str, str]] = []
    flag = "input"
    for token in getattr(args, "args", None) or []:
        if token.startswith("-") and token != "-":
            flag = token
            continue
        if flag == "-out":
            outputs.append((flag, token))
            flag = "input"
        elif flag not in ("-merge", "-cat", "-b", "-beta", "-v"):
            inputs.append(("the input", token))
    return outputs, inputs


def _output_dir_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Files ``correct`` would write into ``--output-dir`` (METHOD.txt, with several methods)
    and ``--lattice-dir`` is left out: its names depend on the number of sentences."""
    out_dir = getattr(args, "output_dir", None)
    method = getattr(args, "method", None)
    if not isinstance(out_dir, str) or not isinstance(method, str):
        return []
    if method.strip().lower() == "all":
        try:
            from gecscope.rtt.methods import METHODS
        except Exception:  # noqa: BLE001 - the command itself reports a missing component
            return []
        methods = list(METHODS)
    else:
        methods = [m.strip() for m in method.split(",") if m.strip()]
    if len(methods) < 2:
        return []
    return [("--output-dir", os.path.join(out_dir, f"{m}.txt")) for m in methods]


def refuse_overwrites(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Raise :class:`InputOverwriteError` when an output path of the parsed command is one of
    its input files (or two outputs are one file), before anything runs. Generic over the
    subcommands: the outputs are the attributes of :data:`OUTPUT_FILE_DESTS`, the inputs those
    of :data:`INPUT_FILE_DESTS`, named as the subcommand's parser spells them."""
    names = _option_names(_leaf_parser(parser, args))
    outputs: list[tuple[str, str]] = []
    for dest in OUTPUT_FILE_DESTS:
        for path in _paths(getattr(args, dest, None)):
            outputs.append((names.get(dest, f"--{dest.replace('_', '-')}"), path))
    outputs += _output_dir_files(args)
    inputs: list[tuple[str, str]] = []
    for dest, what in INPUT_FILE_DESTS.items():
        for path in _paths(getattr(args, dest, None)):
            option = names.get(dest, dest)
            inputs.append((f"{what} {option}" if option != dest else what, path))
    if getattr(args, "command", None) == "errant":
        more_out, more_in = _errant_files(args)
        outputs += more_out
        inputs += more_in
    for k, (option, path) in enumerate(outputs):
        for other, other_path in inputs:
            if same_file(path, other_path):
                raise InputOverwriteError(option, path, other, other_path)
        for other, other_path in outputs[:k]:
            if same_file(path, other_path):
                raise InputOverwriteError(option, path, other, other_path)

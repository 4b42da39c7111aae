"""Arguments, inputs and report files shared by ``evaluate`` and ``compare``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gecscope.errors import ConfigError
from gecscope.metrics.base import EvalData, Hypothesis, Metric, SystemResult
from gecscope.registry import list_metrics

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.reports.model import Report


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments shared by evaluate-like subcommands (also used by ``compare``)."""
    p.add_argument("-m", "--metric", action="append", default=None,
                   help=f"metric name, repeatable (default: errant); available: "
                        f"{', '.join(list_metrics())}")
    p.add_argument("-r", "--ref", "-ref", nargs="+", default=[],
                   help="references: one M2 file, or several plain-text reference files "
                        "(omit for reference-less metrics such as usim, giving --source)")
    p.add_argument("-s", "--source", help="source text file (needed with plain-text references)")
    p.add_argument("--hyp", "-hyp", nargs="+", required=True,
                   help="hypothesis file(s): plain text or M2; one result row per file")
    p.add_argument("--name", nargs="+", help="system names (default: file names)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="metric option, e.g. beta=1.0 or errant.mode=ds (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    add_long_line_arguments(p)
    p.add_argument("--progress", action="store_true",
                   help="show progress on stderr even when it is not a terminal (logs, CI)")
    from gecscope.cli._common import (
        add_backend_arguments,
        add_jobs_argument,
        add_language_arguments,
    )

    add_jobs_argument(p, "ERRANT edit extraction and for scoring (one task per metric and "
                         "system)")
    add_backend_arguments(p)
    add_language_arguments(p)
    field = p.add_argument_group(
        "spellings of errant_compare and m2scorer (each sets the metric option of that name)")
    field.add_argument("-b", "--beta", type=float, help="F-beta (= -o beta=B)")
    field.add_argument("--max_unchanged_words", "--max-unchanged-words", type=int,
                       dest="max_unchanged_words", help="M2 (= -o max_unchanged_words=N)")
    for flag, mode in (("-cs", "cs"), ("-cse", "cse"), ("-ds", "ds"), ("-dt", "dt")):
        field.add_argument(flag, dest="errant_mode", action="store_const", const=mode,
                           help=f"ERRANT mode {mode} (= -o mode={mode})")


def add_long_line_arguments(p: argparse.ArgumentParser) -> None:
    """``--max-tokens N`` and ``--long-lines`` (see :func:`guard_long_lines`)."""
    p.add_argument("--max-tokens", type=int, default=1000, metavar="N",
                   help="refuse hypothesis lines longer than N tokens (a system stuck in a loop "
                        "would make some metrics run for hours; default 1000, 0 = no limit)")
    p.add_argument("--long-lines", choices=["error", "source"], default="error",
                   help="a line over --max-tokens: stop with an error naming it (default), or "
                        "score it as the unchanged source and say how many lines were")


def field_options(args: argparse.Namespace) -> list[str]:
    """``-o`` options plus those the field's flags (``--beta``, ``-ds``, ...) stand for."""
    extra = []
    if getattr(args, "beta", None) is not None:
        extra.append(f"beta={args.beta}")
    if getattr(args, "max_unchanged_words", None) is not None:
        extra.append(f"max_unchanged_words={args.max_unchanged_words}")
    if getattr(args, "errant_mode", None) is not None:
        extra.append(f"mode={args.errant_mode}")
    return [*args.option, *extra]


def build_metrics(args: argparse.Namespace) -> list[Metric]:
    from gecscope.cli._common import check_option_keys, make_metric

    options = field_options(args)
    metrics = [make_metric(name, options, alone=False) for name in args.metric or ["errant"]]
    check_option_keys(options, metrics)
    return metrics


def load_inputs(args: argparse.Namespace) -> tuple[EvalData, list[Hypothesis]]:
    if not args.ref and not args.source:
        raise ConfigError("give the references (--ref) or, for a reference-less metric, "
                          "the source (--source)")
    from gecscope.checks import glued_share, m2_role_warning, system_names, tokenisation_warning
    from gecscope.cli._common import language_from_args

    lang = language_from_args(args)
    data = EvalData(tuple(args.ref), args.source, lang)
    names = args.name or system_names(args.hyp)
    if len(names) != len(args.hyp):
        raise ConfigError(f"--name gives {len(names)} names for {len(args.hyp)} hypotheses")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"two systems are named {repeated[0]!r}: give --name with one name "
                          "per hypothesis file")
    n = len(data)
    origin = args.ref[0] if args.ref and data.m2 is not None else args.source
    hyps = [Hypothesis.from_file(h, nm, expected=n, expected_from=origin, lang=lang)
            for h, nm in zip(args.hyp, names)]
    limit = getattr(args, "max_tokens", 0) or 0
    if limit > 0:
        hyps = [guard_long_lines(h, data, limit, getattr(args, "long_lines", "error"))
                for h in hyps]
    ref_annotators = data.m2.annotators if data.m2 is not None else ()
    ref_share = (glued_share(data.references[0])
                 if data.has_references and data.references else None)
    for h in hyps:
        warnings = []
        if h.m2 is not None:
            warnings.append(m2_role_warning(h.name, h.m2.annotators, ref_annotators))
        if ref_share is not None:
            warnings.append(tokenisation_warning(h.name, h.tokens, ref_share))
        for w in warnings:
            if w:
                print(f"gecscope: warning: {w}", file=sys.stderr)
    return data, hyps


def guard_long_lines(hyp: Hypothesis, data: EvalData, limit: int, action: str) -> Hypothesis:
    """Refuse (or, with ``action="source"``, replace by the source) hypothesis lines longer
    than ``limit`` tokens; never a silent truncation."""
    from gecscope.errors import FormatError

    long = [i for i, toks in enumerate(hyp.tokens) if len(toks) > limit]
    if not long:
        return hyp
    i = long[0]
    if action == "error" or hyp.m2 is not None:
        how = ("raise the limit" if hyp.m2 is not None else "raise the limit, or score such "
               "lines as the unchanged source with --long-lines source")
        raise FormatError(f"has {len(hyp.tokens[i])} tokens, more than --max-tokens {limit} "
                          f"({len(long)} such line(s)); {how}", hyp.path, i + 1)
    tokens = list(hyp.tokens)
    for k in long:
        tokens[k] = tuple(data.sources[k])
    print(f"gecscope: warning: {hyp.name}: {len(long)} line(s) longer than {limit} tokens "
          f"(first: line {i + 1}) scored as the unchanged source (--long-lines source)",
          file=sys.stderr)
    return Hypothesis(hyp.name, tokens, None, hyp.path)


def evaluate_all(metrics: list[Metric], data: EvalData, hyps: list[Hypothesis],
                 quiet: bool = False, force: bool = False, jobs: int = 1,
                 backend: str = "local", address: str | None = None) -> list[SystemResult]:
    """:func:`gecscope.evaluate` with a progress display."""
    from gecscope.cli._common import Progress
    from gecscope.evaluation import evaluate

    progress = Progress(len(metrics) * len(hyps) * len(data), "scoring", quiet,
                        unit="sentences", force=force)
    try:
        return evaluate(metrics, data, hyps, progress=progress, jobs=jobs, backend=backend,
                        address=address)
    finally:
        progress.close()



MAX_SAMPLES = 100_000


def _samples(text: str) -> int:
    """``--bootstrap N``: 0 (none) to 100,000 resamples (each holds a row per sentence)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= n <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SAMPLES:,}, got {n}")
    return n


def add_report_arguments(p: argparse.ArgumentParser, bootstrap_default: int = 0) -> None:
    """``--html``, ``--json-out``, ``--bootstrap N`` and ``--seed`` (shared with evaluate)."""
    p.add_argument("--bootstrap", type=_samples, default=bootstrap_default, metavar="N",
                   help="bootstrap resamples for 95%% confidence intervals and significance "
                        f"clusters (default: {bootstrap_default}{'' if bootstrap_default else ', none'})")
    p.add_argument("--seed", type=int, default=12345,
                   help="seed of the local random generator used for resampling (default: 12345)")
    p.add_argument("--json-out", metavar="FILE",
                   help="write the full JSON report (schema report-v1) to FILE")
    p.add_argument("--html", metavar="FILE",
                   help="write a self-contained HTML report (scores, types, sentences) to FILE")


def write_reports(args: argparse.Namespace, data: EvalData, hyps: Sequence[Hypothesis],
                  results: Sequence[SystemResult], metrics: Sequence[Metric], *,
                  sentences: bool | None = None, title: str | None = None,
                  progress: Callable[[str], None] | None = None) -> Report | None:
    """Build the report when ``--html``, ``--json-out`` or ``--bootstrap`` asks for it and
    write the requested files; returns it (``None`` when nothing was asked for) so a caller
    can also print it, e.g. with :func:`gecscope.reports.text.format_report`. Per-sentence
    rows are included when ``sentences`` says so (default: for ``--html``, ``--json-out`` and
    ``--sentences``)."""
    from gecscope.reports.model import build_report

    n = int(getattr(args, "bootstrap", 0) or 0)
    html = getattr(args, "html", None)
    json_out = getattr(args, "json_out", None)
    if not (n or html or json_out):
        return None
    if n < 0:
        raise ConfigError(f"--bootstrap must be a positive number of samples, got {n}")
    if sentences is None:
        sentences = bool(html or json_out or getattr(args, "sentences", False))
    report = build_report(data, hyps, results, metrics, n_samples=n,
                          seed=getattr(args, "seed", 12345),
                          test=getattr(args, "test", "bootstrap"),
                          confidence=getattr(args, "confidence", 0.95),
                          alpha=getattr(args, "alpha", 0.05), sentences=sentences,
                          progress=progress)
    if json_out:
        from gecscope.reports.json import write_json_report

        write_json_report(json_out, report)
    if html:
        from gecscope.reports.html import write_report_html

        write_report_html(html, report, title=title)
    return report

"""Arguments, inputs and report files shared by ``evaluate`` and ``compare``."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gecscope.cli._common import draws
from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.metrics.base import Metric, SystemResult
from gecscope.registry import list_metrics

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.gate import Finding, GateOptions
    from gecscope.reports.attribution import AttributionRequest
    from gecscope.reports.model import Report


EVAL_USAGE = "%(prog)s [-r REF [REF ...]] [-s SOURCE] --hyp HYP [HYP ...] [-m METRIC] [options]"


@dataclasses.dataclass(frozen=True)
class EvalGroups:
    """The common help sections of evaluate-like commands, where each command adds its own
    options (``--format`` to ``output``, ``--test`` to ``report``, ...)."""

    inputs: argparse._ArgumentGroup
    metrics: argparse._ArgumentGroup
    output: argparse._ArgumentGroup
    report: argparse._ArgumentGroup


def add_eval_arguments(p: argparse.ArgumentParser) -> EvalGroups:
    """Arguments shared by evaluate-like subcommands (``evaluate``, ``compare``), in help
    sections: the common ones first (inputs, metrics, output), then report, parallelism,
    language, Ray backend and the reference tools' spellings. A parser made with
    ``add_help=False`` gets ``-h`` in the output section, so the common sections come first."""
    inputs = p.add_argument_group("inputs")
    inputs.add_argument("-r", "--ref", "-ref", nargs="+", default=[], metavar="REF",
                        help="references: one M2 file, or several plain-text reference files "
                             "(omit for reference-less metrics such as usim, giving --source)")
    inputs.add_argument("-s", "--source",
                        help="source text file (needed with plain-text references)")
    inputs.add_argument("--hyp", "-hyp", nargs="+", required=True, metavar="HYP",
                        help="hypothesis file(s): plain text, M2 or ChERRANT's parallel "
                             "format (see --hyp-format); one result row per file "
                             "(a file also given as -r is left out, with a note)")
    inputs.add_argument("--name", nargs="+", help="system names (default: file names)")
    inputs.add_argument("--hyp-format", choices=["auto", "plain", "m2", "parallel"],
                        default="auto",
                        help="read every --hyp file as plain text, M2 or ChERRANT's parallel "
                             "format (id<TAB>source<TAB>output, matched to the references by "
                             "id); default auto: a format only when the whole file looks like "
                             "it, with a warning when its first line suggested another")
    add_gate_arguments(inputs)
    metrics = p.add_argument_group("metrics")
    metrics.add_argument("-m", "--metric", action="append", default=None,
                         help=f"metric name, repeatable (default: errant); available: "
                              f"{', '.join(list_metrics())}")
    metrics.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                         help="metric option, e.g. beta=1.0 or errant.mode=ds (repeatable)")
    metrics.add_argument("-b", "--beta", type=float, help="F-beta (= -o beta=B)")
    output = p.add_argument_group("output")
    if not p.add_help:
        output.add_argument("-h", "--help", action="help", help="show this help and exit")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="no progress or other messages on stderr (warnings and errors "
                             "are still shown); the results printed are the same")
    output.add_argument("--progress", action="store_true",
                        help="show progress on stderr even when it is not a terminal (logs, "
                             "CI)")
    report = p.add_argument_group("report (intervals, significance, HTML and JSON files)")
    from gecscope.cli._common import (
        add_backend_arguments,
        add_jobs_argument,
        add_language_arguments,
    )

    add_jobs_argument(p, "ERRANT edit extraction and for scoring (one task per metric and "
                         "system)")
    add_language_arguments(p)
    add_backend_arguments(p)
    field = p.add_argument_group(
        "spellings of errant_compare and m2scorer (each sets the metric option of that name)")
    field.add_argument("--max_unchanged_words", "--max-unchanged-words", type=int, metavar="N",
                       dest="max_unchanged_words", help="M2 (= -o max_unchanged_words=N)")
    for flag, mode in (("-cs", "cs"), ("-cse", "cse"), ("-ds", "ds"), ("-dt", "dt")):
        field.add_argument(flag, dest="errant_mode", action="store_const", const=mode,
                           help=f"ERRANT mode {mode} (= -o mode={mode})")
    return EvalGroups(inputs, metrics, output, report)


def add_gate_arguments(p: argparse._ActionsContainer) -> None:
    """The gate's options (:class:`gecscope.gate.GateOptions`, the same in Python):
    ``--hyp-tokenise``, ``--hyp-level``, ``--hyp-normalise``, ``--max-tokens``,
    ``--long-lines`` and ``--allow``."""
    from gecscope.gate import ALLOWABLE, MAX_TOKENS

    p.add_argument("--hyp-tokenise", "--hyp-tokenize", dest="hyp_tokenise",
                   choices=["none", "spacy", "nltk", "auto"], default="none",
                   help="re-tokenise plain-text hypotheses before scoring: auto = one that "
                        "looks detokenised against tokenised references, the way the "
                        "references were made (nltk for CoNLL-2014's NUCLE tokens, spacy for "
                        "ERRANT/BEA-style M2); spacy or nltk = every one; default none "
                        "(docs/raw-text.md)")
    p.add_argument("--hyp-level", dest="hyp_level", default="auto",
                   choices=["sentence", "paragraph", "auto"],
                   help="paragraph: plain-text hypothesis lines are paragraphs or essays (or "
                        "sentences merged or split): cut them into the source's sentences by a "
                        "character alignment, only where that is certain; sentence: one line "
                        "per source sentence; default auto: lines as they are when there is "
                        "one per source sentence, else realigned where certain "
                        "(docs/raw-text.md)")
    p.add_argument("--hyp-normalise", "--hyp-normalize", dest="hyp_normalise",
                   choices=["auto", "none"], default="auto",
                   help="when --hyp-tokenise re-tokenises: auto (default) writes typographic "
                        "quotes and apostrophes, dashes, ellipses and non-breaking spaces the "
                        "way the references do; none keeps them")
    p.add_argument("--max-tokens", type=int, default=MAX_TOKENS, metavar="N",
                   help="refuse sentences longer than N tokens in the hypotheses, sources and "
                        "references (a system stuck in a loop would make some metrics run for "
                        f"hours; default {MAX_TOKENS}, 0 = no limit)")
    p.add_argument("--long-lines", choices=["error", "source"], default="error",
                   help="a hypothesis line over --max-tokens: stop with an error naming it "
                        "(default), or score it as the unchanged source and say how many "
                        "lines were")
    p.add_argument("--allow", action="append", default=[], metavar="CODE",
                   help="score anyway what the input checks refuse (repeatable or "
                        "comma-separated; the refusal names its code): "
                        + "; ".join(f"{k}: {v}".replace("%", "%%")  # argparse's %-format
                                    for k, v in sorted(ALLOWABLE.items())))


def gate_options(args: argparse.Namespace) -> GateOptions:
    """The :class:`~gecscope.gate.GateOptions` of parsed arguments (a command without one
    of them gets the value that changes nothing)."""
    from gecscope.gate import GateOptions

    allow = [c for given in getattr(args, "allow", None) or [] for c in given.split(",")]
    limit = getattr(args, "max_tokens", 0)
    if isinstance(limit, int) and limit < 0:
        raise ConfigError(f"--max-tokens must be >= 0 (0 = no limit), got {limit}")
    return GateOptions(hyp_tokenise=getattr(args, "hyp_tokenise", None) or "none",
                       hyp_level=getattr(args, "hyp_level", None) or "sentence",
                       hyp_normalise=getattr(args, "hyp_normalise", None) or "auto",
                       max_tokens=limit or 0,
                       long_lines=getattr(args, "long_lines", None) or "error",
                       allow=frozenset(allow))


def drop_reference_hyps(args: argparse.Namespace) -> list[str]:
    """Leave out of ``--hyp`` every file also given as ``-r`` (``--hyp dir/*.m2`` beside
    ``-r dir/references.m2`` would score the references as a system), saying so in a note on
    stderr; ``--name``, when it names every hypothesis, loses the same entries. Returns the
    hypothesis files kept; calling it again changes nothing."""
    import os

    refs = [r for r in getattr(args, "ref", None) or [] if r != "-"]

    def same(a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:  # a file that does not exist: the reader names it later
            return os.path.abspath(a) == os.path.abspath(b)

    hyps = list(args.hyp)
    dropped = [i for i, h in enumerate(hyps) if h != "-" and any(same(h, r) for r in refs)]
    if not dropped:
        return hyps
    if len(dropped) == len(hyps):
        raise ConfigError(f"every --hyp file is also a reference (-r): {', '.join(hyps)}; "
                          "give the system outputs to score")
    print(f"gecscope: note: left out of --hyp (also given as -r): "
          f"{', '.join(hyps[i] for i in dropped)}", file=sys.stderr)
    names = getattr(args, "name", None)
    if names and len(names) == len(hyps):
        args.name = [n for i, n in enumerate(names) if i not in dropped]
    args.hyp = [h for i, h in enumerate(hyps) if i not in dropped]
    return list(args.hyp)


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
    """The references and the hypotheses of evaluate-like commands, read and passed through
    the gate (:func:`gecscope.gate.admit`); what it found is printed on stderr, one line
    each (``gecscope: warning: ...``, ``gecscope: note: ...``)."""
    if not args.ref and not args.source:
        raise ConfigError("give the references (--ref) or, for a reference-less metric, "
                          "the source (--source)")
    drop_reference_hyps(args)
    from gecscope.cli._common import language_from_args
    from gecscope.gate import admit
    from gecscope.hypothesis import system_names

    options = gate_options(args)
    lang = language_from_args(args)
    data = EvalData(tuple(args.ref), args.source, lang)
    names = args.name or system_names(args.hyp)
    if len(names) != len(args.hyp):
        raise ConfigError(f"--name gives {len(names)} names for {len(args.hyp)} hypotheses")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"two systems are named {repeated[0]!r}: give --name with one name "
                          "per hypothesis file")
    with input_warnings_printed():
        len(data)  # the references are read (and what reading them found said) first
        fmt = getattr(args, "hyp_format", None) or "auto"
        hyps = [Hypothesis.from_file(h, nm, lang=lang, format=fmt)
                for h, nm in zip(args.hyp, names, strict=True)]
    admitted = admit(data, hyps, options)
    print_findings(admitted.findings)
    args.gate_findings = admitted.findings  # for the summary line (not repeated there)
    return data, admitted.hypotheses


def print_findings(findings: Sequence[Finding]) -> None:
    """The gate's findings as the CLI's lines on stderr (its errors were raised)."""
    for f in findings:
        if f.severity != "error":
            kind = "note" if f.severity == "info" else "warning"
            print(f"gecscope: {kind}: {f.message}", file=sys.stderr)


@contextlib.contextmanager
def input_warnings_printed() -> Iterator[None]:
    """Print the :class:`~gecscope.errors.InputWarning` s raised inside (what a file was read
    as, ...) as the CLI's warnings; other warnings are shown as usual."""
    from gecscope.errors import InputWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InputWarning)
        yield
    for w in caught:
        if issubclass(w.category, InputWarning):
            print(f"gecscope: warning: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def evaluate_all(metrics: list[Metric], data: EvalData, hyps: list[Hypothesis],
                 quiet: bool = False, force: bool = False, jobs: int = 1,
                 backend: str = "local", address: str | None = None,
                 per_type: bool = False) -> list[SystemResult]:
    """:func:`gecscope.evaluate` for hypotheses :func:`load_inputs` admitted (the gate is
    not run twice), with a progress display. ``per_type``: per-type tables will be shown
    (workers then also re-type the references when those need it)."""
    from gecscope.cli._common import Progress
    from gecscope.errors import InputWarning
    from gecscope.evaluation import score_admitted

    progress = Progress(len(metrics) * len(hyps) * len(data), "scoring", quiet,
                        unit="sentences", force=force)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputWarning)
            return score_admitted(metrics, data, hyps, progress=progress, jobs=jobs,
                                  backend=backend, address=address, retype_reference=per_type)
    finally:
        progress.close()



#: ``--bootstrap N``: 0 (none) to 100,000 resamples (each holds a row per sentence)
_samples = draws()


def add_report_arguments(p: argparse._ActionsContainer, bootstrap_default: int = 0) -> None:
    """``--html``, ``--json-out``, ``--bootstrap N`` and ``--seed`` (shared with evaluate), on
    a parser or in one of its help sections."""
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
                  progress: Callable[[str], None] | None = None,
                  attribution: AttributionRequest | None = None,
                  costs: Sequence[Any] = ()) -> Report | None:
    """Build the report when ``--html``, ``--json-out`` or ``--bootstrap`` asks for it and
    write the requested files; returns it (``None`` when nothing was asked for) so a caller
    can also print it, e.g. with :func:`gecscope.reports.text.format_report`. Per-sentence
    rows are included when ``sentences`` says so (default: for ``--html``, ``--json-out`` and
    ``--sentences``); ``attribution`` adds the edit attributions it asks for
    (``--attribution``), ``costs`` the corpus views of ``evaluate --top``
    (:func:`gecscope.explain.corpus_costs`)."""
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
                          attribution=attribution, progress=progress)
    report.costs = list(costs)
    if json_out:
        from gecscope.reports.json import write_json_report

        write_json_report(json_out, report)
    if html:
        from gecscope.reports.html import write_report_html

        write_report_html(html, report, title=title)
    return report

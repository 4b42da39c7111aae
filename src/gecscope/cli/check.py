"""``gecscope check``: what would make a score wrong, found before scoring.

Takes ``evaluate``'s inputs (its other options are accepted and ignored, so ``evaluate`` can
be replaced by ``check`` in a command line) and reports the findings of
:mod:`gecscope.gate.diagnostics`, each with its severity, file, lines and fix. Exit status: 0
when nothing at warning or error severity was found, :data:`EXIT_WARNINGS` for warnings,
:data:`EXIT_ERRORS` when ``evaluate`` would stop or score something else than meant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gecscope.cli._inputs import (
    EVAL_USAGE,
    add_eval_arguments,
    add_report_arguments,
    gate_options,
)
from gecscope.errors import ConfigError, GecscopeError

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.data import EvalData, Hypothesis
    from gecscope.gate.diagnostics import Finding

#: exit status when the worst finding is a warning
EXIT_WARNINGS = 3
#: exit status when there is an error finding (``evaluate`` would stop, or a file is unreadable)
EXIT_ERRORS = 4

_HINT = "run `gecscope check` with the same arguments for the lines and fixes"


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter

    p = sub.add_parser(
        "check", help="find what would make a score wrong (before trusting a number)",
        usage=EVAL_USAGE.replace("-m METRIC", "--format {text,json}"), add_help=False,
        formatter_class=HelpFormatter,
        description="Check evaluate's inputs without scoring: line counts and shifted lines, "
                    "empty, repeated and unchanged lines, a detokenised hypothesis, "
                    "full-/half-width and Unicode forms against the references, line ends "
                    "and BOMs, and which known test set each file is (by content hash). "
                    "Each finding gives its file, lines and fix. Exit status: 0 when nothing "
                    f"is wrong, {EXIT_WARNINGS} for warnings, {EXIT_ERRORS} for errors "
                    "(docs/check.md). evaluate's other options are accepted and ignored.")
    groups = add_eval_arguments(p)
    for action in p._actions:
        if action.dest == "hyp":
            action.required = False  # --hash needs none
    out = groups.output
    out.add_argument("--format", choices=["text", "json"], default="text",
                     help="text (default) or json (schema gecscope-check-1, docs/check.md)")
    out.add_argument("--registry", action="append", default=[], metavar="FILE",
                     help="more known test-set files (JSON, docs/check.md; repeatable), "
                          "besides $GECSCOPE_TESTSETS and ~/.config/gecscope/testsets.json")
    out.add_argument("--hash", nargs="+", metavar="FILE",
                     help="print registry entries (SHA-256 of the bytes and of the "
                          "normalised form) for FILE(s) and exit")
    for flag, kw in (("-v", {"action": "store_true"}), ("--verbose", {"action": "store_true"}),
                     ("--cat", {"type": int}), ("--sentences", {"action": "store_true"}),
                     ("--all-fields", {"action": "store_true"})):
        out.add_argument(flag, help=argparse.SUPPRESS, dest=f"_ignored_{flag.strip('-')}",
                         **kw)
    add_report_arguments(groups.report)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import language_from_args
    from gecscope.gate.diagnostics import check_files
    from gecscope.testsets import load_registry, registry_entry

    if args.hash:
        entries = []
        for path in args.hash:
            try:
                entries.append(registry_entry(path))
            except OSError as exc:
                raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
        print(json.dumps(entries, ensure_ascii=False, indent=1))
        return 0
    if not args.hyp:
        raise ConfigError("give the hypothesis file(s) (--hyp), as for evaluate")
    if not args.ref and not args.source:
        raise ConfigError("give the references (--ref) or, for a reference-less metric, "
                          "the source (--source)")
    if args.name and len(args.name) != len(args.hyp):
        raise ConfigError(f"--name gives {len(args.name)} names for {len(args.hyp)} "
                          "hypotheses")
    registry = load_registry(args.registry)
    findings = check_files(args.ref, args.source, args.hyp, args.name,
                           lang=language_from_args(args), hyp_format=args.hyp_format,
                           registry=registry, metrics=args.metric,
                           hyp_level=getattr(args, "hyp_level", None) or "auto",
                           hyp_tokenise=getattr(args, "hyp_tokenise", None) or "none",
                           allow=gate_options(args).allow)
    if args.format == "json":
        print(json.dumps(report_json(args, findings), ensure_ascii=False, indent=1))
    else:
        sys.stdout.write(format_text(findings))
    return exit_status(findings)


def exit_status(findings: Sequence[Finding]) -> int:
    """0, :data:`EXIT_WARNINGS` or :data:`EXIT_ERRORS` by the worst finding."""
    severities = {f.severity for f in findings}
    return EXIT_ERRORS if "error" in severities else \
        EXIT_WARNINGS if "warning" in severities else 0


def report_json(args: argparse.Namespace, findings: Sequence[Finding]) -> dict[str, Any]:
    """The ``--format json`` document (schema ``gecscope-check-1``, docs/check.md)."""
    from gecscope.gate.diagnostics import counts

    return {"schema": "gecscope-check-1",
            "inputs": {"references": list(args.ref), "source": args.source,
                       "hypotheses": list(args.hyp)},
            "counts": counts(findings), "exit_status": exit_status(findings),
            "findings": [f.to_json() for f in findings]}


def format_text(findings: Sequence[Finding]) -> str:
    """Findings, worst first, one block each: ``severity: where: message`` and ``fix:``."""
    from gecscope.gate.diagnostics import SEVERITIES, counts

    if not findings:
        return "gecscope check: nothing found\n"
    lines = []
    for f in sorted(findings, key=lambda f: SEVERITIES.index(f.severity)):
        where = f.where()
        lines.append(f"{f.severity}: {where + ': ' if where else ''}{f.message} [{f.code}]")
        if f.fix:
            lines.append(f"  fix: {f.fix}")
    c = counts(findings)
    lines.append(f"gecscope check: {c['error']} error(s), {c['warning']} warning(s), "
                 f"{c['info']} note(s)")
    return "\n".join(lines) + "\n"


def print_summary(data: EvalData, hyps: Sequence[Hypothesis],
                  shown: Sequence[Finding] = ()) -> None:
    """``gecscope evaluate``'s one line on stderr about what ``check`` would find (its cheap
    checks; ``shown``, the gate's findings printed in full, are not repeated). A broken
    user registry does not stop an evaluation: it is named instead."""
    from gecscope.gate.diagnostics import evaluation_findings, summary_line
    from gecscope.testsets import load_registry, shipped_registry

    problem = ""
    try:
        registry = load_registry()
    except ConfigError as exc:
        registry, problem = shipped_registry(), f"test-set registry not read: {exc}"
    try:
        line = summary_line(evaluation_findings(data, hyps, registry, shown), _HINT)
    except (GecscopeError, OSError) as exc:  # a summary never stops an evaluation
        line, problem = None, problem or f"the checks did not run ({exc})"
    if line:
        print(f"gecscope: check: {line}", file=sys.stderr)
    if problem:
        print(f"gecscope: warning: check: {problem}", file=sys.stderr)

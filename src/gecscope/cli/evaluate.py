"""``gecscope evaluate``: score one or more systems with any registered metric."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gecscope.cli._inputs import (
    EVAL_USAGE,
    add_eval_arguments,
    add_report_arguments,
    build_metrics,
    evaluate_all,
    load_inputs,
    write_reports,
)
from gecscope.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from gecscope.metrics.base import SystemResult
    from gecscope.reports.attribution import AttributionRequest
    from gecscope.reports.model import Report


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter

    p = sub.add_parser(
        "evaluate", help="score system outputs against references", usage=EVAL_USAGE,
        add_help=False, formatter_class=HelpFormatter,
        description="Score hypotheses (plain text, one sentence per line, or an M2 of their "
                    "edits) against references (one M2 with all annotators, or plain-text "
                    "references with --source). One row per system.")
    groups = add_eval_arguments(p)
    out = groups.output
    out.add_argument("--format", choices=["table", "json", "tsv", "markdown", "latex"],
                     default="table",
                     help="output format on stdout (default: table); json follows the "
                          "versioned report schema (docs/reports.md)")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="M2: print each sentence's chosen annotator and edits (m2scorer -v)")
    out.add_argument("--cat", "-cat", type=int, choices=[1, 2, 3],
                     help="also print per-error-type tables: 1 operation, 2 main type, 3 full "
                          "type: counts for metrics with typed edits (errant, m2), and for "
                          "every other metric with sentence scores the sum of its edits' "
                          "attributions by type (--attribution, default shapley)")
    out.add_argument("--sentences", action="store_true",
                     help="include per-sentence scores (json/tsv) where the metric defines them")
    out.add_argument("--all-fields", action="store_true",
                     help="table: show every column of metrics that display a summary")
    out.add_argument("--paper", action="store_true",
                     help="print the test set's standard table to paste into a paper: its "
                          "reported metric (the default -m for a known test set) as its papers "
                          "print it, a 95%% bootstrap interval over sentences and a paired "
                          "bootstrap test against --baseline, as Markdown and LaTeX (--format "
                          "markdown or latex: one; json: the table as data); --bootstrap "
                          "defaults to 1000 (0 is refused: the interval needs resamples)")
    out.add_argument("--baseline", metavar="SYSTEM",
                     help="--paper: the system every other is tested against (default: the "
                          "first --hyp)")
    add_report_arguments(groups.report)
    add_attribution_arguments(groups.report)
    groups.report.add_argument(
        "--top", type=_whole(1, 10**6), metavar="N",
        help="add to --html (a section 'What cost each system most'), --json-out and --format "
             "json, per system and metric with sentence scores, the N sentences, edits and "
             "error types that cost it most and the N that earned it most, as gecscope "
             "explain --top N shows them (docs/explain.md; edits attributed by --attribution, "
             "default shapley). Costs a leave-one-out pass per system and metric: every "
             "edited sentence's variants scored once (CoNLL-2014 under M2: about 30 s a "
             "system)")
    p.set_defaults(func=run, bootstrap=None)  # None: not given (--paper: 1000; else 0)


def _whole(low: int, high: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {value}")
        return value
    return parse


def add_attribution_arguments(p: argparse._ActionsContainer, *, cat: bool = True) -> None:
    """``--attribution METHOD``, ``--max-exact N``, ``--samples N`` and
    ``--attribution-seed S`` (evaluate and compare; the arguments of
    :func:`gecscope.explain.attribute`); ``cat``: the command has ``--cat`` (compare has not)."""
    shown = ("shown by --cat (per-type sums), coloured in --html, written to --json-out / "
             "--format json. Default: none, except shapley for --cat of metrics without counts"
             if cat else "coloured in --html, written to --json-out / --format json (compare "
             "prints no per-type tables). Default: none")
    from gecscope.explain import MAX_EXACT, METHODS, SAMPLES
    from gecscope.reports.attribution import MAX_EXACT_LIMIT, SAMPLES_LIMIT

    p.add_argument("--attribution", choices=METHODS, metavar="METHOD",
                   help="share each sentence's score change M(S, H) - M(S, S) among the "
                        "system's edits, for every metric with sentence scores: "
                        f"{', '.join(METHODS)} (docs/explain.md); {shown}")
    p.add_argument("--max-exact", type=_whole(0, MAX_EXACT_LIMIT), metavar="N",
                   help=f"exact Shapley values up to N edits in a sentence (2^N metric calls), "
                        f"sampled beyond (default: {MAX_EXACT})")
    p.add_argument("--samples", type=_whole(1, SAMPLES_LIMIT), metavar="N",
                   help=f"edit orders sampled for shapley_sampling (default: {SAMPLES})")
    p.add_argument("--attribution-seed", type=int, default=0, metavar="S",
                   help="seed of the sampled edit orders (default: 0)")


def attribution_request(args: argparse.Namespace, results: Sequence[SystemResult], *,
                        cat: bool = False, n_sentences: int = 0) -> AttributionRequest | None:
    """What ``--attribution`` asks for (every metric of the run), else, for ``--cat``
    (``cat``), Shapley values of the metrics whose per-type tables cannot be counts (their
    scores give no per-type counts); ``None`` when nothing is asked. With ``n_sentences``
    (per system) it carries a progress bar of the sentences to attribute; close it with
    :func:`close_progress`."""
    from gecscope.cli._common import Progress
    from gecscope.execution.plan import resolve_jobs
    from gecscope.reports.attribution import AttributionRequest

    method = getattr(args, "attribution", None)
    metrics: frozenset[str] | None = None
    if method is None:
        if not cat:
            return None
        metrics = frozenset(r.metric for r in results if not r.score.categories)
        if not metrics:
            return None
        method = "shapley"
    todo = sum(1 for r in results if r.sentence_scores is not None
               and (metrics is None or r.metric in metrics))
    bar = (Progress(n_sentences * todo, f"attributing ({method})", args.quiet,
                    unit="sentences", force=getattr(args, "progress", False))
           if n_sentences and todo else None)
    return AttributionRequest(method, metrics, getattr(args, "max_exact", None),
                              getattr(args, "samples", None),
                              getattr(args, "attribution_seed", 0),
                              resolve_jobs(getattr(args, "jobs", 1)), bar)


def close_progress(request: AttributionRequest | None) -> None:
    """End the progress bar :func:`attribution_request` gave ``request``, if it showed."""
    from gecscope.cli._common import Progress

    bar = request.progress if request is not None else None
    if isinstance(bar, Progress) and bar.done:
        bar.close()


def corpus_views(args: argparse.Namespace, metrics: Sequence[Any], data: Any,
                 hyps: Sequence[Any]) -> list[Any]:
    """``--top N``: :func:`gecscope.explain.corpus_costs` of every system under every metric
    with sentence scores (the others are named in a note), in metric-major order."""
    from gecscope.cli._common import Progress
    from gecscope.execution.plan import resolve_jobs
    from gecscope.explain import MAX_EXACT, SAMPLES, corpus_costs
    from gecscope.explain.attribution import hypothesis_edits
    from gecscope.metrics.base import Metric

    ranked = [m for m in metrics if type(m).sentence_values is not Metric.sentence_values]
    skipped = [m.name for m in metrics if m not in ranked]
    if skipped and not args.quiet:
        print(f"gecscope: note: --top: {', '.join(skipped)} define no sentence score; their "
              "edits cannot be attributed, so they have no corpus view", file=sys.stderr)
    method = getattr(args, "attribution", None) or "shapley"
    max_exact = getattr(args, "max_exact", None)
    samples = getattr(args, "samples", None)
    jobs = resolve_jobs(getattr(args, "jobs", 1))
    edited = sum(1 for h in hyps for e in hypothesis_edits(data, h) if e) if ranked else 0
    bar = Progress(edited * len(ranked), "corpus view (--top)", args.quiet, unit="sentences",
                   force=getattr(args, "progress", False))
    out = []
    try:
        for m in ranked:
            for h in hyps:
                out.append(corpus_costs(
                    m, data, h, args.top, method,
                    max_exact=MAX_EXACT if max_exact is None else max_exact,
                    samples=SAMPLES if samples is None else samples,
                    seed=getattr(args, "attribution_seed", 0), jobs=jobs, progress=bar))
    finally:
        bar.close()
    return out


def run(args: argparse.Namespace) -> int:
    """Score, build the report (cheap without resampling, per-type tables or sentences:
    the signatures only) and print it in the asked format."""
    from gecscope.reports.model import build_report, metric_details

    paper = getattr(args, "paper", False)  # demo's namespace has no --paper
    if paper:
        prepare_paper(args)
    elif getattr(args, "baseline", None) is not None:
        raise ConfigError("--baseline goes with --paper")
    if getattr(args, "bootstrap", 0) is None:
        args.bootstrap = 0
    if getattr(args, "top", None) is not None and not (
            getattr(args, "html", None) or getattr(args, "json_out", None)
            or args.format == "json"):
        raise ConfigError("--top N goes with --html FILE, --json-out FILE or --format json "
                          "(for the terminal: gecscope explain --top N -m METRIC)")
    metrics = build_metrics(args)
    data, hyps = load_inputs(args)
    from gecscope.cli.check import print_summary

    print_summary(data, hyps, getattr(args, "gate_findings", ()))  # one line on what `gecscope check` would find
    fmt = args.format
    per_type = bool(fmt == "json" or (args.cat and fmt != "tsv") or getattr(args, "html", None)
                    or getattr(args, "json_out", None) or getattr(args, "bootstrap", 0))
    results = evaluate_all(metrics, data, hyps, args.quiet, getattr(args, "progress", False),
                           getattr(args, "jobs", 1), getattr(args, "backend", "local"),
                           getattr(args, "address", None), per_type)
    types = fmt == "json" or bool(args.cat and fmt != "tsv")  # per-type tables are shown
    shown = bool(args.cat and fmt != "tsv") or fmt == "json" or bool(
        getattr(args, "html", None) or getattr(args, "json_out", None))
    if getattr(args, "attribution", None) and not shown:
        print("gecscope: warning: --attribution: nothing shows attributions here; give --cat N, "
              "--html, --json-out or --format json", file=sys.stderr)
    attribution = attribution_request(args, results, cat=bool(args.cat and fmt != "tsv"),
                                      n_sentences=len(data)) if shown else None

    def progress(msg: str) -> None:
        if not args.quiet and (getattr(args, "progress", False) or sys.stderr.isatty()):
            sys.stderr.write(msg + "\n")

    costs = corpus_views(args, metrics, data, hyps) if getattr(args, "top", None) else []
    try:
        report = write_reports(args, data, hyps, results, metrics, attribution=attribution,
                               progress=progress, costs=costs)
        if report is None:
            report = build_report(data, hyps, results, metrics,
                                  sentences=fmt == "json" and args.sentences, types=types,
                                  attribution=attribution, progress=progress)
            report.costs = list(costs)
    finally:
        close_progress(attribution)
    if (types or attribution or getattr(args, "html", None)) and not args.quiet:
        # the report's notes: why its per-type tables are re-typed, or why there are none
        for note in report.inputs.get("warnings", []):
            print(f"gecscope: note: {note}", file=sys.stderr)
    out = sys.stdout
    if paper:
        out.write(paper_text(args, report))
        return 0
    if fmt == "json":
        from gecscope.reports.json import dumps_report

        out.write(dumps_report(report, sentences=args.sentences) + "\n")
        return 0
    if args.cat and not any(r.score.categories for r in results) and \
            not any(t.rows for t in report.attributions.values()):
        print("gecscope: warning: --cat: none of the selected metrics "
              f"({', '.join(m.name for m in metrics)}) counts by error type or could be "
              "attributed to edits (see the notes); errant counts",
              file=sys.stderr)
    if fmt == "tsv":
        from gecscope.reports.tsv import report_to_tsv

        out.write(report_to_tsv(report, sentences=args.sentences))
        return 0
    from gecscope.reports.tables import format_evaluation
    from gecscope.reports.text import colour_enabled

    listed = [m for m in metrics
              if getattr(args, "verbose", False) or getattr(m.config, "verbose", False)]
    if listed and fmt == "table":
        report.details = metric_details(results, listed)
    style = "plain" if fmt == "table" else fmt
    out.write(format_evaluation(report, style=style,
                                colour=style == "plain" and colour_enabled(out), cat=args.cat,
                                sentences=args.sentences, all_fields=args.all_fields))
    return 0


def prepare_paper(args: argparse.Namespace) -> None:
    """``--paper``'s defaults: the known test set's reported metric when no ``-m`` is given
    (refused for references that are not a known test set), 1,000 bootstrap resamples."""
    from gecscope.reports.headline import headline_for

    if args.format == "tsv":
        raise ConfigError("--paper prints Markdown, LaTeX (the default: both) or json, not tsv")
    if not args.metric:
        head = headline_for(args.ref or ())
        if head is None:
            raise ConfigError("--paper: these references are not a known test set (gecscope "
                              "check --hash FILE makes a registry entry), so there is no "
                              "standard figure: name the metric with -m")
        args.metric = [head.metric]
    if args.bootstrap is None:
        args.bootstrap = 1000
    elif args.bootstrap == 0:
        raise ConfigError("--paper --bootstrap 0: the table's 95% interval and its test "
                          "against --baseline need resamples; give --bootstrap N (N >= 1), or "
                          "leave it out for 1000")


def paper_text(args: argparse.Namespace, report: Report) -> str:
    """The ``--paper`` output of ``report``: the reported figure's table when this run made
    it, else the first metric's scores with a warning that they are not that figure."""
    import json

    from gecscope.reports.paper import format_paper, generic_headline, paper_json, paper_output

    rep = report.reported
    if rep is not None and rep.marked is not None:
        head = rep.headline
    else:
        for note in rep.notes if rep is not None else ():
            print(f"gecscope: warning: --paper: {note}", file=sys.stderr)
        head = generic_headline(report, report.metrics[0].name)
        if rep is None:
            print("gecscope: note: --paper: the references are not a known test set; the "
                  f"table shows {head.metric} {'/'.join(head.fields)} x100", file=sys.stderr)
    baseline = args.baseline
    if baseline is None:
        baseline = report.systems[0]
        if len(report.systems) > 1 and not args.quiet:
            print(f"gecscope: note: --paper: the baseline is {baseline} (the first --hyp; "
                  "--baseline NAME for another)", file=sys.stderr)
    if args.format == "json":
        return json.dumps(paper_json(report, head, baseline), indent=2, ensure_ascii=False) + "\n"
    if args.format in ("markdown", "latex"):
        return format_paper(report, head, baseline, args.format)
    return paper_output(report, head, baseline)

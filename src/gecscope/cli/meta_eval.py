"""``gecscope meta-eval``: how well do metrics agree with human rankings (GJG15, SEEDA)?

Subcommands: ``human`` (Expected Wins / TrueSkill from the judgments), ``system`` (system-level
Pearson/Spearman/Kendall), ``sentence`` (pairwise agreement), ``window`` (window analysis,
optional plot), ``tradeoff`` (CLEME2.0 trade-off factor search), ``table`` (the paper-style
correlation table of every installed metric, written as Markdown; ``--ensemble`` adds rank
ensemble rows) and ``attack`` (the attack audit: can a system game a metric?).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from gecscope.cli._common import add_jobs_argument, add_output_argument, draws, make_metric
from gecscope.errors import ConfigError

TOY = "gecscope.meta_eval.examples:CharLengthMetric"
#: gecscope.meta_eval.ranking.AGGREGATIONS, repeated so the parser needs no import of it
AGGREGATIONS = ("default", "trueskill", "expected_wins")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "meta-eval", help="correlate metrics with human rankings (GJG15, SEEDA)",
        description="Meta-evaluate GEC metrics against human rankings: GJG15 (Grundkiewicz et "
                    "al. 2015) and SEEDA (Kobayashi et al. 2024). Data directories are given "
                    "explicitly; nothing is searched for.")
    msub = p.add_subparsers(dest="meta_command", metavar="WHAT")

    h = msub.add_parser("human", help="human system scores (Expected Wins, TrueSkill)",
                        description="Compute Expected Wins and TrueSkill from the judgments and "
                                    "show them next to the published scores.")
    h.add_argument("--data-dir", required=True,
                   help="SEEDA repository folder, or the folder of GJG15's judgments.xml")
    h.add_argument("--benchmark", choices=["seeda", "gjg15"],
                   help="which benchmark the folder holds (default: gjg15 if it has "
                        "judgments.xml, else seeda)")
    h.add_argument("--trueskill", choices=["none", "sequential", "wmt"], default="none",
                   help="also compute TrueSkill: 'sequential' plays every comparison once in "
                        "file order; 'wmt' is the randomised active-sampling protocol behind "
                        "the published values (see --ts-runs). Slow: about 5 s per 30,000 "
                        "comparisons per run")
    h.add_argument("--ts-runs", type=draws(1000, 1), default=1, metavar="N",
                   help="runs of the wmt protocol to average (default 1)")
    h.add_argument("--bootstrap", type=draws(), default=0, metavar="N",
                   help="also show Expected Wins averaged over N bootstrap resamples")
    h.add_argument("--seed", type=int, default=0, help="seed of the random protocols")
    h.add_argument("--json", action="store_true", help="JSON output")
    h.set_defaults(func=run_human)

    for name, helptext in (("system", "system-level correlations of one metric"),
                           ("sentence", "sentence-level pairwise agreement of one metric"),
                           ("window", "window analysis of one metric (optional plot)"),
                           ("tradeoff", "trade-off factor search (CLEME2.0) for one metric")):
        s = msub.add_parser(name, help=helptext, description=helptext)
        _bench_args(s)
        _metric_args(s)
        s.add_argument("--systems", default=None,
                       help="SEEDA system set: base (default), +INPUT, +REF-F_GPT-3.5, all")
        s.add_argument("--json", action="store_true", help="JSON output")
        if name == "tradeoff":
            s.add_argument("--level", choices=["corpus", "sentence"], default="corpus",
                           help="system score = corpus score, or mean sentence score")
        if name in ("system", "window"):
            s.add_argument("--level", choices=["corpus", "sentence"], default=None,
                           help="with --aggregation default: system score = corpus score "
                                "(default), or mean sentence score")
            s.add_argument("--aggregation", choices=list(AGGREGATIONS), default="default",
                           help="how system scores are formed: 'default' (see --level), or "
                                "'trueskill' / 'expected_wins' over the pairwise comparisons "
                                "the metric's sentence scores imply (Goto et al. 2025; "
                                "gec-metrics' rank_systems), made sentence by sentence in "
                                "gec-metrics' system order")
            s.add_argument("--lower-is-better", action="store_true",
                           help="with --aggregation trueskill/expected_wins: the metric's "
                                "sentence scores are better when lower")
        if name == "system":
            s.add_argument("--resamples", type=draws(), default=1000, metavar="N",
                           help="bootstrap resamples (over systems) of the 95%% intervals "
                                "(1000)")
            s.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
        if name == "sentence":
            s.add_argument("--ties", choices=["disagree", "first-loses"], default="disagree",
                           help="metric ties: disagreement (default), or SEEDA/gec-metrics' "
                                "rule (the pair's first system loses; first in gec-metrics' "
                                "order: alphabetical for SEEDA, GJG15's Table 3 order)")
            s.add_argument("--lower-is-better", action="store_true",
                           help="the metric's sentence scores are better when lower")
            s.add_argument("--resamples", type=draws(), default=1000, metavar="N",
                           help="bootstrap resamples of acc_eq's 95%% interval (1000)")
            s.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
        if name == "window":
            s.add_argument("--window", type=int, default=4, help="systems per window (4)")
            s.add_argument("--ranking", default=None,
                           help="human ranking to use (EW/TS for GJG15, EW_sent... for SEEDA; "
                                "default: all)")
            s.add_argument("--plot", metavar="FILE", help="write a plot (needs gecscope[plot])")
        if name == "tradeoff":
            s.add_argument("--fields", default="Hit,Wrong,Under,Over",
                           help="sub-scores combined (Score.fields names)")
            s.add_argument("--invert", default="0,1,1,1",
                           help="per field, 1 if lower is better (used as 1-x)")
            s.add_argument("--step", type=float, default=0.05, help="grid step (0.05)")
            s.add_argument("--include-zero", action="store_true",
                           help="allow zero weights (the paper requires 0 < weight < 1)")
            s.add_argument("--rescore", default="auto", metavar="OPTIONS",
                           help="comma-separated metric options that take the weights; each grid "
                                "point re-aggregates the metric with them (exact when the "
                                "weights steer reference choice; slower). 'auto' (default): "
                                "the factor options for cleme2, none for other metrics; "
                                "'none': combine the sub-scores linearly")
            s.add_argument("--cv", choices=["rankings", "references"], default="rankings",
                           help="cross-validation units: the human rankings, or the "
                                "reference annotators of the M2 (one fold per annotator)")
        s.set_defaults(func={"system": run_system, "sentence": run_sentence,
                             "window": run_window, "tradeoff": run_tradeoff}[name])

    t = msub.add_parser("table", help="correlation table of every installed metric",
                        description="Paper-style correlation tables (CLEME2.0 Tables 1-2) for "
                                    "every registered metric on GJG15 and SEEDA, as Markdown.")
    t.add_argument("--seeda", metavar="DIR", help="SEEDA repository folder")
    t.add_argument("--gjg15", metavar="DIR", help="folder of GJG15's judgments.xml")
    t.add_argument("--submissions", metavar="DIR",
                   help="CoNLL-2014 system outputs (needed with --gjg15)")
    t.add_argument("--m2", metavar="FILE", help="CoNLL-2014 test M2 (official-2014.combined.m2)")
    t.add_argument("--metrics", help="comma-separated metrics (default: all installed)")
    t.add_argument("--option", action="append", default=[], metavar="METRIC.KEY=VALUE",
                   help="an option of one metric of the table (repeatable), e.g. "
                        "scribendi.model=DIR or llm_sent.base_url=URL. A metric that needs a model "
                        "or an endpoint and is not given one is skipped, with the reason")
    t.add_argument("--systems", default="base", help="SEEDA system set (default: base)")
    t.add_argument("--ties", choices=["disagree", "first-loses"], default="disagree",
                   help="metric-tie rule of the sentence-level columns")
    t.add_argument("--aggregation", default="default", metavar="LIST",
                   help="comma-separated ways of forming system scores, one row each: "
                        "'default' (corpus score X and mean sentence score SentX), "
                        "'trueskill' (X+TS), 'expected_wins' (X+EW): ratings over the pairwise "
                        "comparisons the sentence scores imply (Goto et al. 2025). "
                        "Default: default")
    t.add_argument("--permutations", type=draws(), default=1000, metavar="N",
                   help="permutations of the soft pairwise accuracy and of the tests between "
                        "metrics (significance clusters); 0 leaves both out (default 1000)")
    t.add_argument("--resamples", type=draws(), default=1000, metavar="N",
                   help="bootstrap resamples of the 95%% intervals (default 1000)")
    t.add_argument("--seed", type=int, default=0,
                   help="seed of the tests between metrics and of the bootstrap (default 0; "
                        "SPA uses mt-metrics-eval's seed 4)")
    t.add_argument("--alpha", type=float, default=0.05,
                   help="p-value below which a metric beats another (clusters; default 0.05)")
    t.add_argument("--sentence-test", default="sign", metavar="{sign,mt-metrics-eval}",
                   help="draws of the permutation tests between the SentX rows' acc_eq "
                        "(sentence-level clusters): 'sign' (default) draws the pair swaps "
                        "in aggregate, exact and fast; 'mt-metrics-eval' replays its random "
                        "stream for equal p-values (seconds per pair of metrics)")
    t.add_argument("--no-statistics", action="store_true",
                   help="only the paper-style tables (no intervals, SPA, acc_eq, clusters)")
    t.add_argument("--json", metavar="FILE",
                   help="also write every figure as JSON (- = stdout, then no Markdown)")
    add_output_argument(t, "Markdown file to write (default: standard output; e.g. "
                           "docs/meta-eval-table.md)")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    add_jobs_argument(t, "scoring the systems (one task per system)")
    t.set_defaults(func=run_table)
    t.add_argument("--ensemble", action="append", default=[], metavar="LIST",
                   help="also a row of the rank ensemble (Goto et al. 2025) of these "
                        "comma-separated metrics: each ranks the systems by its corpus "
                        "score, the negative ranks are averaged (repeatable, one row each)")
    _add_attack_parser(msub)
    from gecscope.cli import maege  # MAEGE (#34 item 2): its own module

    maege.add_parser(msub)
    p.set_defaults(func=lambda args: _usage(p))


def _add_attack_parser(msub: Any) -> None:
    a = msub.add_parser(
        "attack", help="attack audit: can a system score well without correcting well?",
        description="Build attack systems (copy the source, the best system's most precise "
                    "edit types, the union of all systems' edits, fluent sentences with the "
                    "meaning destroyed, LLM chatter, the published attacks of Goto et al. 2025 "
                    "with --attack-dir, your own Attack classes) and score them with every "
                    "metric beside the real systems: each attack's place, and whether it beats "
                    "the best real system, the human-preferred one and the source by a "
                    "significant margin (paired bootstrap). docs/meta-eval.md#attack-audit")
    a.add_argument("--gjg15", metavar="DIR", help="folder of GJG15's judgments.xml (the "
                   "CoNLL-2014 test set with its human ranking; needs --submissions)")
    a.add_argument("--seeda", metavar="DIR", help="SEEDA repository folder")
    a.add_argument("--submissions", metavar="DIR",
                   help="with --gjg15: the 13 CoNLL-2014 outputs; without --gjg15/--seeda: "
                        "any folder of system outputs (every file a system, one sentence per "
                        "line), scored against --m2, with --source-name as the source")
    a.add_argument("--m2", metavar="FILE", help="the references (CoNLL-2014 test M2 for "
                   "GJG15 and SEEDA; needed by reference-based metrics and by the attacks "
                   "built from references)")
    a.add_argument("--source-name", default="INPUT", metavar="SYSTEM",
                   help="the system that is the unchanged source (default INPUT)")
    a.add_argument("--systems", default="base", help="SEEDA system set (default: base)")
    a.add_argument("--ranking", default=None,
                   help="human ranking naming the human-preferred system (default: the "
                        "benchmark's first: EW for GJG15, EW_sent for SEEDA)")
    a.add_argument("--best", metavar="SYSTEM",
                   help="the real system the attacks start from (default: the human-preferred "
                        "one; needed for a folder without a human ranking)")
    a.add_argument("--metrics", help="comma-separated metrics (default: all installed; one "
                   "that cannot run here is skipped with the reason; one that refuses an "
                   "attack has a 'refused' cell for it, with the reason; each scored once "
                   "when named twice)")
    a.add_argument("--option", action="append", default=[], metavar="METRIC.KEY=VALUE",
                   help="an option of one metric (repeatable), e.g. scribendi.model=DIR")
    a.add_argument("--attacks", default="all", metavar="LIST",
                   help="comma-separated attacks (names or module:Class of an "
                        "gecscope.meta_eval.attacks.Attack subclass; default: all built-in; "
                        "'none' for the --attack-dir outputs only)")
    a.add_argument("--attack-dir", metavar="DIR",
                   help="a folder of attack outputs to read as systems (e.g. your copy of "
                        "gotutiyan/attack-gec-metrics' experiments/attack_results); each file "
                        "one sentence per line, the whole test set (1,312 lines for CoNLL-2014)")
    a.add_argument("--attack-glob", default="*.txt", metavar="PATTERN",
                   help="which files of --attack-dir (default *.txt; conll14-*.txt for the "
                        "published attack_results folder)")
    a.add_argument("--ensemble", default="all", metavar="LIST",
                   help="members of the rank ensemble row: 'all' (default: every metric that "
                        "ran), 'none', or comma-separated metric names")
    a.add_argument("--resamples", type=draws(minimum=1), default=1000, metavar="N",
                   help="paired bootstrap resamples (default 1000)")
    a.add_argument("--seed", type=int, default=0,
                   help="seed of the bootstrap and of the random attacks (default 0)")
    a.add_argument("--alpha", type=float, default=0.05,
                   help="p-value below which a win is significant (default 0.05)")
    a.add_argument("--format", choices=["markdown", "json"], default="markdown",
                   help="what is printed (or written to --output): Markdown tables (default) "
                        "or the JSON of every figure")
    a.add_argument("--json-out", metavar="FILE", help="also write the JSON to FILE")
    a.add_argument("--html", metavar="FILE",
                   help="also write the audit as a self-contained HTML page (tables with CSV "
                        "and LaTeX downloads, refusals as notes) to FILE")
    add_output_argument(a, "file to write (default: standard output)")
    a.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    add_jobs_argument(a, "scoring the systems")
    a.set_defaults(func=run_attack)


def _attack_test_sets(args: argparse.Namespace) -> list[Any]:
    """The test sets of ``meta-eval attack``: GJG15 and/or SEEDA, or a folder of systems."""
    from gecscope.meta_eval.audit import benchmark_test_set
    from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda

    sets = []
    if args.gjg15:
        if not args.submissions:
            raise ConfigError("--gjg15 needs --submissions DIR (the 13 CoNLL-2014 outputs)")
        sets.append(benchmark_test_set(load_gjg15(args.gjg15, args.submissions, args.m2),
                                            None, args.ranking, args.source_name))
    if args.seeda:
        sets.append(benchmark_test_set(load_seeda(args.seeda, args.m2), args.systems,
                                            args.ranking, args.source_name))
    if not sets:
        if not (args.submissions and args.m2):
            raise ConfigError("give --gjg15 DIR --submissions DIR, --seeda DIR, or a folder of "
                              "system outputs (--submissions DIR) with its references (--m2)")
        sets.append(_folder_test_set(args.submissions, args.m2, args.source_name))
    return sets


def _folder_test_set(folder: str, m2_path: str, source: str) -> Any:
    """Every file of ``folder`` a system (named by its stem), ``source`` the source, scored
    against the M2 ``m2_path``."""
    from gecscope.data import EvalData, Hypothesis
    from gecscope.errors import FormatError
    from gecscope.formats.m2 import read_m2
    from gecscope.meta_eval.audit import TestSet

    root = Path(folder)
    if not root.is_dir():
        raise FormatError("system outputs folder not found", root)
    corpus = read_m2(m2_path)
    files = sorted(p for p in root.iterdir() if p.is_file() and not p.name.startswith("."))
    hyps = {}
    for p in files:
        name = p.stem
        if name in hyps:
            raise FormatError(f"two files are named system {name!r}", p)
        hyps[name] = Hypothesis.from_file(p, name=name, expected=len(corpus),
                                          expected_from=m2_path)
    if source not in hyps:
        raise ConfigError(f"no file of {root} is the source {source!r} (--source-name); "
                          f"systems: {', '.join(hyps) or 'none'}")
    for row, (a, b) in enumerate(zip(hyps[source].tokens, corpus.sources, strict=True)):
        if a != b:
            raise FormatError(f"line {row + 1} differs from the M2's source sentence; is "
                              f"{source!r} the source of {m2_path}?", hyps[source].path,
                              row + 1)
    real = {k: v for k, v in hyps.items() if k != source}
    return TestSet(root.name or str(root), EvalData.from_m2(corpus), real, hyps[source])


def run_attack(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json
    from gecscope.formats.base import atomic_write
    from gecscope.meta_eval.attacks import get_attack, list_attacks, read_attack_dir
    from gecscope.meta_eval.audit import render_markdown, run_audit
    from gecscope.registry import list_metrics

    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha must be between 0 and 1, got {args.alpha}")
    attacks = (list_attacks() if args.attacks == "all" else [] if args.attacks == "none" else
               [a.strip() for a in args.attacks.split(",") if a.strip()])
    for a in attacks:
        get_attack(a)  # an unknown attack is refused before anything is scored
    if not attacks and not args.attack_dir:
        raise ConfigError("no attacks: give --attacks or --attack-dir")
    # a metric named twice is scored once (the ensemble would weigh it twice otherwise)
    metrics = list(dict.fromkeys([m.strip() for m in args.metrics.split(",") if m.strip()]
                                 if args.metrics else list_metrics()))
    _check_table_options(args.option, metrics)
    ensemble = (None if args.ensemble == "all" else [] if args.ensemble == "none" else
                list(dict.fromkeys(m.strip() for m in args.ensemble.split(",") if m.strip())))
    test_sets = _attack_test_sets(args)

    def progress(msg: str) -> None:
        if not args.quiet:
            print(f"meta-eval attack: {msg}", file=sys.stderr)

    results = []
    for ts in test_sets:
        extra = (read_attack_dir(args.attack_dir, ts.sentences, ts.total, args.attack_glob)
                 if args.attack_dir else [])
        results.append(run_audit(
            ts, metrics, attacks=attacks, extra=extra,
            make_metric=lambda name: make_metric(name, args.option, alone=False),
            best=args.best, ensemble=ensemble, resamples=args.resamples, seed=args.seed,
            alpha=args.alpha, jobs=args.jobs, progress=progress))
    payload = {"audits": [r.as_dict() for r in results]}
    if args.json_out:
        atomic_write(args.json_out, [dump_json(payload)])
    if args.html:
        from gecscope.meta_eval.audit_html import write_audit_html

        write_audit_html(args.html, results)
    text = dump_json(payload) if args.format == "json" else render_markdown(results)
    if args.output in (None, "-"):
        print(text)
    else:
        atomic_write(args.output, [text])
    return 0


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _bench_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--benchmark", choices=["seeda", "gjg15"], default="seeda",
                   help="the human judgments: seeda (SEEDA, Kobayashi et al. 2024; --data-dir "
                        "is its repository folder; the default) or gjg15 (GJG15, Grundkiewicz "
                        "et al. 2015; --data-dir holds judgments.xml, and --submissions is "
                        "needed)")
    s.add_argument("--data-dir", required=True,
                   help="SEEDA repository folder, or the folder of GJG15's judgments.xml")
    s.add_argument("--submissions", metavar="DIR",
                   help="GJG15: folder of the 13 CoNLL-2014 outputs")
    s.add_argument("--m2", metavar="FILE",
                   help="CoNLL-2014 test M2 with both annotators (references; not needed by "
                        "reference-less metrics)")


def _metric_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("-m", "--metric", required=True,
                   help=f"registered metric name, or module:Class (e.g. {TOY})")
    s.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="metric option (repeatable)")
    add_jobs_argument(s, "scoring the systems (one task per system)")


def _load(args: argparse.Namespace) -> Any:
    from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda

    if args.benchmark == "gjg15":
        if not args.submissions:
            raise ConfigError("GJG15 needs --submissions DIR (the 13 CoNLL-2014 outputs)")
        return load_gjg15(args.data_dir, args.submissions, args.m2)
    return load_seeda(args.data_dir, args.m2)


def _print_json(obj: Any) -> None:
    from gecscope.cli._common import dump_json

    print(dump_json(obj))


def run_human(args: argparse.Namespace) -> int:
    from gecscope.meta_eval import ranking
    from gecscope.meta_eval.benchmarks import GJG15_HUMAN, read_gjg15_judgments, read_seeda_human
    from gecscope.reports.text import render_table

    root = Path(args.data_dir)
    bench = args.benchmark or ("gjg15" if (root / "judgments.xml").is_file() else "seeda")
    if bench == "gjg15":
        sets = {"rank": (read_gjg15_judgments(root), GJG15_HUMAN)}
    else:
        sets = read_seeda_human(root)
    out: dict[str, Any] = {}
    for level, (j, pub) in sets.items():
        cols: dict[str, dict[str, float]] = {
            "EW": ranking.expected_wins(j), "EW published": pub["EW"]}
        if args.bootstrap:
            cols["EW bootstrap"] = ranking.expected_wins_bootstrap(
                j, n_resamples=args.bootstrap, seed=args.seed)
        if args.trueskill == "sequential":
            cols["TS sequential"] = ranking.trueskill_scores(j)
        elif args.trueskill == "wmt":
            cols["TS wmt"] = ranking.trueskill_wmt_scores(j, n_runs=args.ts_runs, seed=args.seed)
        cols["TS published"] = pub["TS"]
        out[level] = cols
        if not args.json:
            systems = sorted(cols["EW"], key=lambda s: -cols["EW"][s])
            label = {"rank": "GJG15", "sent": "SEEDA-S", "edit": "SEEDA-E"}[level]
            print(f"{label}: {len(j)} ranking items, {len(j.comparisons())} comparisons")
            print(render_table(["system", *cols], [[s, *(c.get(s, math.nan) for c in
                                                        cols.values())] for s in systems], 3))
            print()
    if args.json:
        _print_json(out)
    return 0


def _scores(args: argparse.Namespace) -> tuple[Any, Any, Any, tuple[str, ...]]:
    from gecscope.meta_eval.runner import evaluate_systems

    bench = _load(args)
    metric = make_metric(args.metric, args.option)
    systems = bench.select(args.systems)
    results = evaluate_systems(metric, bench, systems, args.jobs)
    return bench, metric, results, systems


def _system_scores(args: argparse.Namespace, bench: Any, results: Any,
                   systems: tuple[str, ...]) -> tuple[dict[str, float], str]:
    """System scores as --level/--aggregation ask, and a description of how they were made."""
    from gecscope.meta_eval.runner import system_scores

    if args.aggregation != "default" and args.level is not None:
        raise ConfigError(f"--level applies to --aggregation default only; {args.aggregation} "
                          "always rates the sentence scores")
    level = args.level or "corpus"
    scores = system_scores(results, level, args.aggregation, systems=bench.ordered(systems),
                           higher_is_better=not args.lower_is_better)
    if args.aggregation == "default":
        return scores, f"{level} level"
    name = {"trueskill": "TrueSkill", "expected_wins": "Expected Wins"}[args.aggregation]
    return scores, f"{name} over sentence comparisons"


def run_system(args: argparse.Namespace) -> int:
    from gecscope.meta_eval.runner import system_correlations
    from gecscope.meta_eval.significance import CORRELATIONS, correlation_interval
    from gecscope.reports.text import render_table

    bench, metric, results, systems = _scores(args)
    scores, how = _system_scores(args, bench, results, systems)
    corrs = system_correlations(bench, scores, systems)
    intervals = {k: {st: correlation_interval(st, c.human, c.metric, resamples=args.resamples,
                                              seed=args.seed) for st in CORRELATIONS}
                 for k, c in corrs.items()}
    if args.json:
        _print_json({"benchmark": bench.name, "metric": metric.name,
                     "level": args.level or "corpus", "aggregation": args.aggregation,
                     "systems": list(systems), "scores": scores,
                     "correlations": {k: {**c.as_dict(), "intervals": {
                         st: iv.as_list() for st, iv in intervals[k].items()}}
                         for k, c in corrs.items()}})
        return 0
    print(f"{bench.name}: {metric.name} ({how}), {len(systems)} systems "
          "(95% bootstrap intervals over systems)")

    def cell(k: str, st: str, value: float) -> str:
        iv = intervals[k][st]
        return f"{value:.4f} [{iv.low:.3f}, {iv.high:.3f}]"

    print(render_table(["human ranking", "pearson", "spearman", "kendall"],
                       [[k, cell(k, "pearson", c.pearson), cell(k, "spearman", c.spearman),
                         cell(k, "kendall", c.kendall)] for k, c in corrs.items()], 6))
    print()
    print(render_table(["system", "metric", *corrs],
                       [[s, scores[s], *(bench.human[k][s] for k in corrs)] for s in systems],
                       4))
    return 0


def run_sentence(args: argparse.Namespace) -> int:
    from gecscope.meta_eval.runner import sentence_correlations, sentence_score_table
    from gecscope.meta_eval.ties import tie_calibrated_agreement
    from gecscope.reports.text import render_table

    bench, metric, results, systems = _scores(args)
    table = sentence_score_table(results)
    agreement = sentence_correlations(bench, table, systems, args.ties,
                                      not args.lower_is_better)
    calibrated = {k: tie_calibrated_agreement(j, table, bench.ordered(systems), rows=bench.rows,
                                              higher_is_better=not args.lower_is_better,
                                              resamples=args.resamples, seed=args.seed)
                  for k, j in bench.judgments.items()}
    if args.json:
        _print_json({"benchmark": bench.name, "metric": metric.name, "systems": list(systems),
                     "calibrated": {k: c.as_dict() for k, c in calibrated.items()},
                     "agreement": {k: a.as_dict() for k, a in agreement.items()}})
        return 0
    print(f"{bench.name}: {metric.name} sentence level, {len(systems)} systems")
    print("tie-calibrated (Deutsch et al. 2023; the metric-tie threshold epsilon is searched; "
          "95% bootstrap interval over ranking items):")
    print(render_table(["judgments", "acc_eq ★", "acc_eq 95% CI", "epsilon", "tau_eq",
                        "epsilon", "items", "pairs"],
                       [[k, c.acc_eq, f"[{c.acc_interval.low:.4f}, {c.acc_interval.high:.4f}]",
                         c.acc_epsilon, c.tau_eq, c.tau_epsilon, c.items, c.pairs]
                        for k, c in calibrated.items()], 6))
    print()
    print(f"uncalibrated (human ties left out; metric ties: {args.ties}):")
    print(render_table(["judgments", "accuracy", "kendall", "pairs", "agree", "disagree",
                        "metric ties"],
                       [[k, a.accuracy, a.kendall, a.pairs, a.agree, a.disagree, a.ties]
                        for k, a in agreement.items()], 6))
    from gecscope.meta_eval.runner import reported_legend

    print()
    print(reported_legend(args.ties))
    return 0


def run_window(args: argparse.Namespace) -> int:
    from gecscope.meta_eval.correlation import plot_windows, window_analysis
    from gecscope.reports.text import render_table

    bench, metric, results, systems = _scores(args)
    scores, _ = _system_scores(args, bench, results, systems)
    keys = [args.ranking] if args.ranking else list(bench.human)
    unknown = [k for k in keys if k not in bench.human]
    if unknown:
        raise ConfigError(f"unknown ranking {unknown[0]!r}; {bench.name} has "
                          f"{', '.join(bench.human)}")
    series = {k: window_analysis(scores, bench.human[k], systems, args.window) for k in keys}
    if args.plot:
        plot_windows(series, args.plot, f"{metric.name} on {bench.name} (window {args.window})")
    if args.json:
        _print_json({k: [{"start": w.start, "end": w.end, "systems": list(w.systems),
                          "pearson": w.pearson, "spearman": w.spearman, "kendall": w.kendall}
                         for w in ws] for k, ws in series.items()})
        return 0
    for k, ws in series.items():
        print(f"{bench.name} {k}: {metric.name}, windows of {args.window} systems "
              "(sorted by human score)")
        print(render_table(["window", "pearson", "spearman", "kendall", "systems"],
                           [[f"{w.start + 1}-{w.end + 1}", w.pearson, w.spearman, w.kendall,
                             " ".join(w.systems)] for w in ws], 3))
        print()
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def run_tradeoff(args: argparse.Namespace) -> int:
    from gecscope.meta_eval.runner import CLEME2_FACTOR_OPTIONS, tradeoff_folds
    from gecscope.meta_eval.tradeoff import LinearCombination, simplex_grid, tradeoff_search
    from gecscope.reports.text import render_table

    fields = tuple(f.strip() for f in args.fields.split(",") if f.strip())
    try:
        invert = tuple(bool(int(x)) for x in args.invert.split(","))
    except ValueError:
        raise ConfigError(f"--invert expects 0/1 flags, got {args.invert!r}") from None
    combo = LinearCombination(fields, invert)
    bench = _load(args)
    metric = make_metric(args.metric, args.option)
    systems = bench.select(args.systems)
    if args.rescore == "auto":
        rescore = list(CLEME2_FACTOR_OPTIONS) if metric.name == "cleme2" else None
    elif args.rescore == "none":
        rescore = None
    else:
        rescore = [o.strip() for o in args.rescore.split(",") if o.strip()]
    if rescore is not None and len(rescore) != len(fields):
        raise ConfigError(f"--rescore names {len(rescore)} options for {len(fields)} fields")
    folds = tradeoff_folds(bench, metric, systems, args.cv, args.level, rescore)
    grid = simplex_grid(len(fields), args.step, include_zero=args.include_zero)
    result = tradeoff_search(folds, grid=grid, combination=combo)
    if args.json:
        _print_json(result.as_dict())
        return 0
    how = f"re-aggregated with {', '.join(rescore)}" if rescore else "linear in the sub-scores"
    print(f"{bench.name}: {metric.name} ({args.level} level), {len(grid)} grid points, "
          f"{len(folds)} folds ({args.cv}), {how}")
    print("chosen factors: " + ", ".join(f"{f}={w:.2f}" for f, w in zip(fields, result.weights,
                                                                          strict=True)))
    print(f"cross-validated objective (mean held-out correlation): {result.cv_objective:.4f}")
    print()
    print(render_table(["held-out fold", *fields, "train", "held-out"],
                       [[f.name, *f.weights, f.train_objective, f.heldout_objective]
                        for f in result.folds], 3))
    print()
    rows = [[fold, ranking, c.get("pearson", math.nan), c.get("spearman", math.nan)]
            for fold, table in result.correlations.items() for ranking, c in table.items()]
    print(render_table(["fold", "ranking", "pearson", "spearman"], rows, 4))
    return 0


def run_table(args: argparse.Namespace) -> int:
    from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda
    from gecscope.meta_eval.ranking import check_aggregation
    from gecscope.meta_eval.runner import build_table, render_markdown
    from gecscope.registry import list_metrics

    benches = []
    if args.gjg15:
        if not args.submissions:
            raise ConfigError("--gjg15 needs --submissions DIR (the 13 CoNLL-2014 outputs)")
        benches.append(load_gjg15(args.gjg15, args.submissions, args.m2))
    if args.seeda:
        benches.append(load_seeda(args.seeda, args.m2))
    if not benches:
        raise ConfigError("give --gjg15 DIR --submissions DIR and/or --seeda DIR")
    metrics = ([m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics
               else list_metrics())
    aggregations = [a.strip() for a in args.aggregation.split(",") if a.strip()]
    for a in aggregations:
        check_aggregation(a)
    _check_table_options(args.option, metrics)

    def progress(msg: str) -> None:
        if not args.quiet:
            print(f"meta-eval table: {msg}", file=sys.stderr)

    def factory(name: str) -> Any:
        return make_metric(name, args.option, alone=False)

    if args.permutations < 0 or args.resamples < 1:
        raise ConfigError("--permutations must be >= 0 and --resamples >= 1")
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha must be between 0 and 1, got {args.alpha}")
    from gecscope.meta_eval.ensemble import parse_members

    ensembles = [parse_members(e) for e in args.ensemble]
    statistics = not args.no_statistics
    result = build_table(benches, metrics, make_metric=factory,
                         ties=args.ties, system_set=args.systems, aggregations=aggregations,
                         progress=progress, jobs=args.jobs,
                         statistics=statistics, permutations=args.permutations,
                         resamples=args.resamples, seed=args.seed, alpha=args.alpha,
                         sentence_test=args.sentence_test)
    if ensembles:
        from gecscope.meta_eval.ensemble import ensemble_row
        from gecscope.meta_eval.runner import add_wmt_statistics

        for members in ensembles:
            result.rows.append(ensemble_row(benches, members, make_metric=factory,
                                            system_set=args.systems, jobs=args.jobs,
                                            progress=progress))
        if statistics:  # again, with the ensemble rows (deterministic: the others' equal)
            progress("significance clusters and intervals, with the ensemble rows")
            add_wmt_statistics(result, permutations=args.permutations,
                               resamples=args.resamples, seed=args.seed, alpha=args.alpha,
                               sentence_test=args.sentence_test)
    if args.json:
        from gecscope.cli._common import dump_json
        from gecscope.formats.base import atomic_write

        if args.json == "-":
            _print_json(result.as_dict())
            return 0
        atomic_write(args.json, [dump_json(result.as_dict())])
    tie_rule = ("a metric tie counts as a disagreement" if args.ties == "disagree" else
                "a metric tie counts as a loss of the pair's first system (SEEDA's and "
                "gec-metrics' rule)")
    notes = [
        ("Generated by `gecscope meta-eval table`. γ = Pearson, ρ = Spearman. A row `X` "
         "scores a system by metric X's corpus score, `SentX` by the mean of X's sentence "
         "scores, `X+TS` and `X+EW` by TrueSkill and Expected Wins over the pairwise "
         "comparisons X's sentence scores imply (Goto et al. 2025, as gec-metrics' "
         "`rank_systems`)."),
        "",
        ("Sentence level (acc, τ): for every ranking item and every pair of systems the judge "
         "ranked differently, does the metric's sentence score order the pair the same way? "
         "acc = agreements / pairs, τ = (agreements − disagreements) / pairs; "
         f"{tie_rule}. They describe a metric's sentence scores, so they appear on the rows "
         "built from them; `–` marks a corpus-score row (and a metric that defines no "
         "sentence score has only that row)."),
        "",
        "GJG15: whole CoNLL-2014 test set (1,312 sentences), human scores of Grundkiewicz et "
        "al. (2015, Table 3). SEEDA: the 391 judged sentences (`outputs/subset`), human scores "
        "from SEEDA's `scores/human`. References: CoNLL-2014 M2, both annotators"
        + ("" if args.m2 else " (not given: reference-based metrics were skipped)") + ".",
    ]
    text = render_markdown(result, title="Meta-evaluation of gecscope's metrics", notes=notes)
    if args.output in (None, "-"):
        print(text)
    else:
        from gecscope.formats.base import atomic_write

        atomic_write(args.output, [text])
        print(f"wrote {args.output} ({len(result.rows)} rows, "
              f"{len(result.skipped)} metrics skipped)")
    return 0


def _check_table_options(options: list[str], metrics: list[str]) -> None:
    """Refuse a ``--option`` of ``table`` that is not ``METRIC.KEY=VALUE`` for a listed metric
    with that option, before hours of scoring. Metrics that cannot be resolved are not checked
    (the table skips them with the reason)."""
    import dataclasses

    from gecscope.registry import get_metric

    classes: dict[str, Any] = {}
    unresolved: set[str] = set()
    for spec in metrics:
        try:
            cls = get_metric(spec)
        except Exception:  # noqa: BLE001 - reported as a skipped metric by the table
            unresolved.add(spec)
            continue
        classes[getattr(cls, "name", "") or spec] = cls
        classes.setdefault(spec, cls)
    for pair in options:
        key, eq, _ = pair.partition("=")
        target, dot, field = key.partition(".")
        if not eq or not dot or not target or not field:
            raise ConfigError(f"--option expects METRIC.KEY=VALUE (the table has several "
                              f"metrics), got {pair!r}")
        if target in unresolved:
            continue
        if target not in classes:
            raise ConfigError(f"--option {pair!r} is for metric {target!r}, which is not in "
                              f"the table (metrics: {', '.join(metrics)})")
        fields = {f.name for f in dataclasses.fields(classes[target].Config)}
        if field not in fields:
            raise ConfigError(f"metric {target!r} has no option {field!r}; options: "
                              f"{', '.join(sorted(fields)) or '(none)'}")

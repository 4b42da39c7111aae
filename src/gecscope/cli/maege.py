"""``gecscope meta-eval maege``: validate metrics without human judgments (Choshen & Abend 2018).

Thin layer over :func:`gecscope.meta_eval.maege.run_maege`: a text table (or ``--format json``)
of the corpus-level Pearson/Spearman, the chain Kendall tau and the mean score change per error
type, each with a bootstrap interval over sentences.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from gecscope.cli._common import draws
from gecscope.errors import ConfigError, FormatError
from gecscope.meta_eval.maege import MAX_LEVELS, MAX_PERMUTATIONS


def _ints(text: str | None, what: str) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{what}: expected comma-separated annotator ids, got {text!r}"
                          ) from None


def add_parser(msub: Any) -> None:
    """Register the ``maege`` subcommand on ``gecscope meta-eval``'s subparsers."""
    from gecscope.cli._common import add_jobs_argument

    s = msub.add_parser(
        "maege", help="MAEGE: validate metrics on partial corrections of a gold M2",
        description="MAEGE (Choshen & Abend 2018): chains and corpora of partial corrections "
                    "built from a gold M2 (more gold edits applied = better); a metric should "
                    "rank them in that order. Reports corpus-level Pearson/Spearman, chain "
                    "Kendall tau (metric ties count as neither agreement nor disagreement) and "
                    "the mean score change per error type, with bootstrap intervals over "
                    "sentences.")
    s.add_argument("--m2", required=True, help="gold M2 (e.g. CoNLL-2014's "
                   "official-2014.combined-withalt.m2)")
    s.add_argument("-m", "--metric", action="append", required=True,
                   help="metric name(s), comma-separated or repeated")
    s.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="metric option (repeatable; only with a single metric)")
    s.add_argument("--refs", choices=["loo", "split", "given"], default="loo",
                   help="references: 'loo' (default) scores a node built from annotator A "
                        "against the M2's other annotators; 'split' builds the lattice from "
                        "--lattice-annotators and scores against --ref-annotators; 'given' "
                        "uses --references")
    s.add_argument("--ref-annotators", metavar="IDS", help="split: reference annotators (e.g. 1)")
    s.add_argument("--lattice-annotators", metavar="IDS",
                   help="annotators whose edits build the lattice and corpora (default: all; "
                        "with split, all but the reference annotators)")
    s.add_argument("--references", nargs="+", metavar="FILE",
                   help="given: one M2, or plain-text references aligned with the gold M2 "
                        "(the source is the gold M2's)")
    s.add_argument("--sampler", choices=["nested", "eoe"], default="nested",
                   help="corpus sampler: 'nested' (default; corpus k applies the fraction "
                        "k/(levels-1) of each sentence's edits) or EoE's binomial sampler, "
                        "whose upper corpora run out of edits")
    s.add_argument("--levels", type=draws(MAX_LEVELS, 2), default=11, help="number of corpora (11, as EoE)")
    s.add_argument("--seed", type=int, default=1, help="seed of the lattice and corpora (EoE: 1)")
    s.add_argument("--max-permutations", type=draws(MAX_PERMUTATIONS, 1), default=1,
                   help="orders per (sentence, annotator) (EoE's -p, default 1; at most "
                        f"{MAX_PERMUTATIONS:,})")
    s.add_argument("--min-chains", type=int, default=None,
                   help="chains a sentence needs (default: 2 as EoE when every annotator builds "
                        "the lattice, else 1)")
    s.add_argument("--types", default="nucle",
                   help="error-type schemes: nucle, errant or nucle,errant (default nucle)")
    s.add_argument("--bootstrap", type=draws(), default=1000, metavar="N",
                   help="bootstrap resamples of sentences (default 1000)")
    s.add_argument("--corpus-bootstrap", type=draws(), default=None, metavar="N",
                   help="resamples of the corpus level alone (default: --bootstrap); each "
                        "re-aggregates every corpus, slow for metrics without a vectorised "
                        "path (green, cleme, imeasure)")
    s.add_argument("--bootstrap-seed", type=int, default=12345)
    s.add_argument("--format", choices=["text", "json"], default="text")
    add_jobs_argument(s, "scoring the nodes")
    s.set_defaults(func=run)


def _is_m2(path: str) -> bool:
    """Whether ``path`` is an M2 file (its first line starts with 'S ')."""
    from gecscope.formats.base import read_text

    return read_text(path).startswith("S ")


def _refs(args: argparse.Namespace, corpus: Any) -> Any:
    from gecscope.data import EvalData
    from gecscope.meta_eval.maege import References

    if args.refs == "split":
        ids = _ints(args.ref_annotators, "--ref-annotators")
        if not ids:
            raise ConfigError("--refs split needs --ref-annotators (e.g. --ref-annotators 1)")
        return References("split", tuple(ids))
    if args.ref_annotators:
        raise ConfigError("--ref-annotators is only used with --refs split")
    if args.refs == "given":
        if not args.references:
            raise ConfigError("--refs given needs --references FILE...")
        if len(args.references) == 1 and _is_m2(args.references[0]):
            data = EvalData.from_files(args.references[0])
        else:  # plain-text references of the gold M2's sentences
            from gecscope.formats.base import read_text, split_lines

            texts = []
            for path in args.references:
                lines = split_lines(read_text(path))
                if len(lines) != len(corpus):
                    raise FormatError(f"has {len(lines)} lines; expected one reference per "
                                      f"sentence of the gold M2 ({len(corpus)})", path)
                texts.append(lines)
            data = EvalData.from_texts([" ".join(s) for s in corpus.sources], texts)
        return References("given", data=data, label=", ".join(args.references))
    if args.references:
        raise ConfigError("--references is only used with --refs given")
    return References()


def _cell(e: dict[str, Any]) -> str:
    if e["value"] is None:
        return "undefined"
    lo, hi = e["low"], e["high"]
    span = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"
    return f"{e['value']:.3f}{span}"


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json, make_metric
    from gecscope.formats.m2 import read_m2
    from gecscope.meta_eval.maege import run_maege
    from gecscope.reports.text import render_table

    names = [n.strip() for spec in args.metric for n in spec.split(",") if n.strip()]
    if not names:
        raise ConfigError("give at least one metric (-m NAME)")
    if args.option and len(names) > 1:
        raise ConfigError("-o/--option needs a single metric")
    metrics = [make_metric(n, args.option) for n in names]
    corpus = read_m2(args.m2)
    refs = _refs(args, corpus)
    schemes = [t.strip() for t in args.types.split(",") if t.strip()]
    results = run_maege(
        corpus, metrics, refs=refs,
        lattice_annotators=_ints(args.lattice_annotators, "--lattice-annotators"),
        sampler=args.sampler, levels=args.levels, seed=args.seed,
        max_permutations=args.max_permutations, min_chains=args.min_chains,
        n_samples=args.bootstrap, bootstrap_seed=args.bootstrap_seed,
        corpus_samples=args.corpus_bootstrap, type_schemes=schemes,
        jobs=args.jobs,
        progress=None if args.format == "json" else
        (lambda m: print(m, file=sys.stderr)))
    out = [r.as_dict() for r in results]
    if args.format == "json":
        print(dump_json({"m2": args.m2, "references": refs.describe(), "results": out}))
        return 0
    first = out[0]
    lat = first["lattice"]
    print(f"gold M2: {args.m2}")
    print(f"references: {refs.describe()}")
    print(f"lattice: {lat['sentences']} sentences, {lat['chains']} chains, {lat['nodes']} "
          f"nodes (seed {args.seed}, {args.max_permutations} order(s) per annotator)")
    applied = ", ".join(f"{x:.2f}" for x in first["corpus"]["mean_applied_edits"])
    print(f"corpora ({first['corpus']['sampler']} sampler): mean applied edits per sentence "
          f"{applied}")
    conf = round(first["bootstrap"]["confidence"] * 100)
    b = first["bootstrap"]
    print(f"intervals: {conf}% percentile bootstrap over sentences, {b['samples']} resamples "
          f"({b['corpus_samples']} at corpus level), seed {b['seed']}")
    print()
    rows = []
    for r in out:
        s = r["sentence"]
        ties = s["ties"] / s["pairs"] if s["pairs"] else math.nan
        rows.append([r["metric"], _cell(r["corpus"]["pearson"]), _cell(r["corpus"]["spearman"]),
                     _cell(s["tau"]), ties, s["eoe_tau"] if s["eoe_tau"] is not None
                     else math.nan])
    print(render_table(["metric", "corpus Pearson", "corpus Spearman", "chain tau",
                        "tie share", "EoE tau"], rows, 3))
    for r in out:
        for scheme, types in r["per_type"].items():
            print()
            print(f"{r['metric']}: mean score change per {scheme} type")
            trows = [[t, e["n"], _cell(e)] for t, e in
                     sorted(types.items(), key=lambda kv: -kv[1]["n"])]
            print(render_table(["type", "edits", "mean change"], trows, 4))
    return 0

"""``gecscope usim``: USIM faithfulness between sources and corrections, and UCCA IAA.

Modes:

* ``gecscope usim --gold-dir DIR --pair SRC_ID:COR_ID [...]``: gold UCCA passages;
* ``gecscope usim --source S.txt --hyp H.txt``: text files parsed by a parser backend (default
  the APPROXIMATE spaCy backend, clearly marked as not UCCA in the output);
* ``gecscope usim iaa --gold-dir DIR --pair A_ID:B_ID [...]``: DAG F-score (and USIM) between
  two annotations of the same text, micro-averaged over the pairs.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from gecscope.cli._inputs import add_gate_arguments
from gecscope.errors import ConfigError


def add_parser(sub: Any) -> None:
    from gecscope.metrics.usim.core import NODE_WEIGHTS, USimOptions

    default = USimOptions()  # the flags' defaults are USimOptions' (as USimMetric.Config's)
    p = sub.add_parser(
        "usim", help="USIM semantic faithfulness (reference-less) and UCCA agreement",
        description="USIM (Choshen & Abend 2018): compare the semantic graph of each source "
                    "with that of its correction. Use gold UCCA passages (--gold-dir with "
                    "--pair SRC:COR) or text files (--source/--hyp) parsed by --parser. "
                    "'gecscope usim iaa' computes the DAG F-score between two annotations.")
    p.add_argument("mode", nargs="?", choices=["score", "iaa"], default="score",
                   help="score (default): USIM; iaa: DAG F-score between annotators")
    p.add_argument("--gold-dir", help="directory of UCCA XML passages (<id>.xml)")
    p.add_argument("--pair", action="append", default=[], metavar="A:B",
                   help="two passage ids in --gold-dir (source:correction, or annotator "
                        "A:annotator B for iaa); repeatable")
    p.add_argument("--source", help="source text file (one tokenised sentence per line)")
    p.add_argument("--hyp", help="corrected text file, aligned line by line with --source")
    add_gate_arguments(p.add_argument_group("input checks (as for evaluate: docs/raw-text.md)"))
    p.add_argument("--parser", default="ucca",
                   help="parser backend for text input: ucca (default, gecscope's trained UCCA "
                        "parser) or approx-spacy (APPROXIMATE, not UCCA)")
    p.add_argument("--node-weight", choices=list(NODE_WEIGHTS), default=default.node_weight,
                   help="unit alignment: the paper's w(v,u) (default) or the tool's overlap F1")
    p.add_argument("--min-yield", type=int, default=default.min_yield,
                   help="count only units of at least this many tokens (USim tool: 2)")
    p.add_argument("--no-remote", dest="include_remote", action="store_false",
                   default=default.include_remote, help="ignore remote edges")
    p.add_argument("--counting", choices=["edges", "nodes"], default=default.counting,
                   help="count matched edges (paper, default) or units (USim tool)")
    p.add_argument("--tool-compat", action="store_true",
                   help="the USim tool's choices: --node-weight f1 --min-yield 2 "
                        "--counting nodes (its single score is shown as tool_f)")
    p.add_argument("--tool-exact", action="store_true",
                   help="the USim tool's whole protocol (USimOptions.tool_exact): every "
                        "non-root unit of 2+ terminals with punctuation, UCCA label "
                        "equivalences, per-sentence word alignment; see docs/usim.md")
    p.add_argument("--dagf-counting", choices=["edges", "yields"], default="edges",
                   help="iaa: count edges (paper, default) or distinct yields with "
                        "intersecting labels (UCCA evaluation tool)")
    p.add_argument("--flatten-centers", action="store_true",
                   help="iaa: the UCCA evaluation tool's removal of Centers inside Centers")
    p.add_argument("--weak-labels", action="store_true",
                   help="iaa: with --dagf-counting yields, P=S, H=C, N=L, F=R match "
                        "(the tool's weak-labelled score)")
    p.add_argument("--usim", action="store_true", help="iaa: also report USIM between the two")
    p.add_argument("--sentences", action="store_true",
                   help="text mode: print one line per sentence")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> Any:
    """The :class:`USimOptions` the flags choose."""
    from gecscope.metrics.usim.core import USimOptions

    if args.tool_compat and args.tool_exact:
        raise ConfigError("give --tool-compat or --tool-exact, not both")
    if args.tool_exact:
        return USimOptions.tool_exact()
    if args.tool_compat:
        return USimOptions.tool()
    return USimOptions(node_weight=args.node_weight, min_yield=args.min_yield,
                       include_remote=args.include_remote, counting=args.counting)


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    if not args.gold_dir or not args.pair:
        raise ConfigError("give --gold-dir DIR and at least one --pair A:B")
    out = []
    for pair in args.pair:
        if pair.count(":") != 1:
            raise ConfigError(f"--pair expects two ids as A:B, got {pair!r}")
        a, b = pair.split(":")
        out.append((a, b))
    return out


def run(args: argparse.Namespace) -> int:
    if args.mode == "iaa":
        return _run_iaa(args)
    if args.source or args.hyp:
        return _run_text(args)
    return _run_gold(args)


def _dir_row(name: str, r: Any) -> list[Any]:
    return [name, r.s2c.precision, r.s2c.recall, r.s2c.f, r.c2s.precision, r.c2s.recall,
            r.c2s.f, r.average, r.tool_f]


_HEADER = ["pair", "s2c_P", "s2c_R", "s2c_F", "c2s_P", "c2s_R", "c2s_F", "avg", "tool_f"]


def _run_gold(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json
    from gecscope.metrics.usim.core import distsim, usim_passages
    from gecscope.reports.text import render_table
    from gecscope.semantics.parser import GoldParser

    pairs = _pairs(args)
    gold = GoldParser(args.gold_dir)
    opts = _options(args)
    rows, results, passages = [], [], []
    for a, b in pairs:
        pa, pb = gold.get(a), gold.get(b)
        r = usim_passages(pa, pb, opts)
        passages.append((pa, pb))
        results.append(r)
        rows.append(_dir_row(f"{a}:{b}", r))
    n = len(results)
    mean = ["mean", *[sum(row[i] for row in rows) / n for i in range(1, len(_HEADER))]]
    ds = distsim(passages, options=opts)
    if args.json:
        print(dump_json({"parser": "gold", "approximate": False,
                         "options": dataclasses.asdict(opts),
                         "pairs": {f"{a}:{b}": r.as_dict() for (a, b), r in zip(pairs, results)},
                         "mean": dict(zip(_HEADER[1:], mean[1:], strict=True)),
                         "distsim": ds}))
        return 0
    print("USIM over gold UCCA passages")
    print(render_table(_HEADER, [*rows, mean]))
    print("DISTSIM (mean |count difference|): "
          + ", ".join(f"{k} {v:.2f}" for k, v in ds.items()))
    return 0


def _run_text(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json
    from gecscope.cli._inputs import gate_options, print_findings
    from gecscope.data import EvalData, Hypothesis
    from gecscope.gate import admit
    from gecscope.metrics.usim import USimMetric
    from gecscope.reports.text import render_table

    if not (args.source and args.hyp):
        raise ConfigError("text mode needs both --source and --hyp")
    opts = _options(args)  # every USimOptions field is a USimMetric.Config field
    metric = USimMetric(parser=args.parser, gold_dir=args.gold_dir or "",
                        **dataclasses.asdict(opts))
    data = EvalData((), source_path=args.source)
    hyp = Hypothesis.from_file(args.hyp)
    admitted = admit(data, [hyp], gate_options(args))  # the gate, as for evaluate
    print_findings(admitted.findings)
    hyp = admitted.hypotheses[0]
    metric.check_inputs(data)
    metric.check_hypothesis(data, hyp)
    result = metric.result(data, hyp)
    score = result.score
    if args.json:
        print(dump_json({"system": hyp.name, "score": score.value, "fields": score.fields,
                         **score.details, "sentences": result.sentence_scores}))
        return 0
    if score.details.get("approximate"):
        print(f"APPROXIMATE: parser {args.parser} derives a coarse scene structure from "
              "dependencies; these graphs are NOT UCCA and scores are not comparable to "
              "published USIM figures", file=sys.stderr)
    rows = [[k, v] for k, v in score.fields.items()]
    print(f"USIM of {hyp.name} (parser: {score.details['parser']}"
          f"{', approximate' if score.details.get('approximate') else ''})")
    print(render_table(["field", "value"], rows))
    if args.sentences:
        for i, s in enumerate(result.sentence_scores or [], 1):
            print(f"{i}\t{s:.4f}")
    return 0


def _run_iaa(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json
    from gecscope.metrics.usim.core import usim_passages
    from gecscope.reports.text import render_table
    from gecscope.semantics.dagf import DagFResult, dag_f
    from gecscope.semantics.parser import GoldParser

    pairs = _pairs(args)
    gold = GoldParser(args.gold_dir)
    opts = _options(args)
    total = DagFResult.zero()
    rows, usims, out = [], [], {}
    for a, b in pairs:
        pa, pb = gold.get(a), gold.get(b)
        r = dag_f(pa, pb, counting=args.dagf_counting, flatten=args.flatten_centers,
                  equivalents=args.weak_labels)
        total = total + r
        lp = r.primary
        row = [f"{a}:{b}", lp.precision, lp.recall, lp.f, r.unlabeled["primary"].f,
               r.labeled["remote"].f]
        out[f"{a}:{b}"] = {"labeled": {k: v.as_dict() for k, v in r.labeled.items()},
                           "unlabeled": {k: v.as_dict() for k, v in r.unlabeled.items()}}
        if args.usim:
            u = usim_passages(pa, pb, opts)
            usims.append(u)
            row += [u.s2c.f, u.c2s.f, u.average]
            out[f"{a}:{b}"]["usim"] = u.as_dict()
        rows.append(row)
    lp = total.primary
    micro = ["micro", lp.precision, lp.recall, lp.f, total.unlabeled["primary"].f,
             total.labeled["remote"].f]
    if args.usim:
        n = len(usims)
        micro += [sum(u.s2c.f for u in usims) / n, sum(u.c2s.f for u in usims) / n,
                  sum(u.average for u in usims) / n]
    header = ["pair", "LP", "LR", "LF", "UF", "remote_LF"]
    if args.usim:
        header += ["usim_s2c", "usim_c2s", "usim_avg"]
    if args.json:
        out["micro"] = {"labeled": {k: v.as_dict() for k, v in total.labeled.items()},
                        "unlabeled": {k: v.as_dict() for k, v in total.unlabeled.items()}}
        print(dump_json(out))
        return 0
    print("DAG F-score (labelled primary edges; first id = guessed, second = reference)")
    print(render_table(header, [*rows, micro]))
    return 0

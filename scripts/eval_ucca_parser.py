#!/usr/bin/env python
"""Evaluate a USIM parser backend on UCCA EWT dev/test with the standard UCCA measures.

Labelled and unlabelled precision/recall/F1 of primary and remote edges, edges matched by the
yield of their child (remote: of parent and child), punctuation out of yields
(:mod:`gecscope.semantics.dagf`); counts summed over passages. Each gold passage's tokens are
given to the backend as one token sequence (with the gold punctuation flags of layer 0 when
the backend accepts them, as UCCA parsers are given layer 0).

    python scripts/eval_ucca_parser.py --parser ucca --splits dev test
    python scripts/eval_ucca_parser.py --parser approx-spacy
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gecscope.semantics.dagf import DagFResult, dag_f
from gecscope.semantics.parser import get_parser
from gecscope.semantics.ucca_parser.data import ewt_split, load_passages


def table(r: DagFResult) -> dict[str, dict[str, float]]:
    out = {}
    for lab in (True, False):
        for kind in ("primary", "remote"):
            prf = (r.labeled if lab else r.unlabeled)[kind]
            out[f"{'labelled' if lab else 'unlabelled'} {kind}"] = {
                "P": round(prf.precision, 4), "R": round(prf.recall, 4), "F1": round(prf.f, 4),
                "matched": prf.matched, "guessed": prf.guessed, "gold": prf.reference}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data/ucca/english-ewt")
    ap.add_argument("--parser", default="ucca")
    ap.add_argument("--model-dir", default="", help="ucca backend: model directory")
    ap.add_argument("--splits", nargs="+", default=["dev", "test"])
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    opts = {"model_dir": args.model_dir} if args.model_dir else {}
    parser = get_parser(args.parser, **opts)
    split = ewt_split(args.data)
    results = {}
    for s in args.splits:
        gold = load_passages(args.data, split[s])
        t0 = time.time()
        toks = [list(p.tokens) for p in gold]
        if hasattr(parser, "parse_tokens"):  # give the gold layer 0 (which tokens are punctuation)
            pred = parser.parse_tokens(toks, [p.id for p in gold],
                                       punct=[[t.punct for t in p.terminals] for p in gold])
        else:
            pred = parser.parse(toks, [p.id for p in gold])
        secs = time.time() - t0
        total = DagFResult.zero()
        for p, g in zip(pred, gold, strict=True):
            total = total + dag_f(p, g)
        results[s] = {"passages": len(gold), "tokens": sum(len(p.tokens) for p in gold),
                      "parse_seconds": round(secs, 1)} | table(total)
        print(f"== {args.parser} on EWT {s}: {len(gold)} passages, parsed in {secs:.1f}s")
        for k, v in table(total).items():
            print(f"  {k:20} P {v['P']:.4f}  R {v['R']:.4f}  F1 {v['F1']:.4f}  "
                  f"({v['matched']}/{v['guessed']}/{v['gold']})")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

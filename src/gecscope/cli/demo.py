"""``gecscope demo``: evaluate three toy systems on a small built-in learner corpus.

The example (``gecscope/data/demo``) was written for gecscope: twelve learner-like sentences,
two annotators' corrections (``references.m2``, annotated with ERRANT from ``ref0.txt`` and
``ref1.txt``) and three systems: a careful corrector, a cautious one that fixes little, and a
rewriter that paraphrases freely.
"""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any

DEMO_SYSTEMS = ("careful", "cautious", "rewriter")
DEMO_METRICS = ("errant", "m2", "gleu", "cleme2", "imeasure")


def add_parser(sub: Any) -> None:
    from gecscope.cli._common import HelpFormatter, plain_help

    p = sub.add_parser("demo", help="evaluate the built-in example and print the table",
                       description=plain_help(__doc__ or ""), formatter_class=HelpFormatter)
    p.add_argument("--format", choices=["table", "json", "tsv"], default="table",
                   help="output format on stdout (default: table)")
    p.add_argument("--metric", action="append", default=None,
                   help="metric(s) to show (default: every installed one of "
                        f"{', '.join(DEMO_METRICS)})")
    p.add_argument("--cat", type=int, choices=[1, 2, 3], help="per-error-type tables")
    p.set_defaults(func=run)


def demo_dir() -> Any:
    return resources.files("gecscope") / "data" / "demo"


def run(args: argparse.Namespace) -> int:
    from gecscope.cli import evaluate

    base = demo_dir()
    metrics = args.metric or list(DEMO_METRICS)
    ns = argparse.Namespace(
        metric=metrics, ref=[str(base / "references.m2")], source=None,
        hyp=[str(base / f"{s}.txt") for s in DEMO_SYSTEMS], name=list(DEMO_SYSTEMS),
        option=[], format=args.format, cat=args.cat, sentences=False, quiet=False,
        all_fields=False, bootstrap=0, seed=12345, json_out=None, html=None)
    if args.format == "table":
        print("gecscope demo: 12 learner sentences, 2 annotators, 3 systems "
              f"(data in {base})\n")
    return evaluate.run(ns)

"""``gecscope convert``: convert between annotation formats.

Each conversion is a sub-subcommand registered in :data:`CONVERSIONS` (name, help, function),
so adding one means writing a function ``(args) -> int`` and one table entry::

    gecscope convert m2-to-ixml gold.m2 -o gold.xml     # M2 -> I-measure gold XML
    gecscope convert ixml-to-m2 gold.xml -o gold.m2     # I-measure gold XML -> M2
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from gecscope.cli._common import add_output_argument


def _m2_to_ixml(args: argparse.Namespace) -> int:
    from gecscope.formats.imeasure_xml import iter_gold_xml, m2_to_gold, write_gold
    from gecscope.formats.m2 import read_m2

    gold = m2_to_gold(read_m2(args.input), retokenize=args.retokenize,
                      all_annotators=args.all_annotators)
    if args.output in (None, "-"):
        sys.stdout.writelines(iter_gold_xml(gold))
    else:
        write_gold(args.output, gold)
        n_err = sum(len(s.errors) for s in gold.sentences)
        print(f"wrote {args.output}: {len(gold)} sentences, {n_err} errors", file=sys.stderr)
    return 0


def _ixml_to_m2(args: argparse.Namespace) -> int:
    from gecscope.formats.imeasure_xml import gold_to_m2, read_gold
    from gecscope.formats.m2 import iter_m2, write_m2

    corpus = gold_to_m2(read_gold(args.input))
    if args.output in (None, "-"):
        sys.stdout.writelines(iter_m2(corpus))
    else:
        write_m2(args.output, corpus)
        print(f"wrote {args.output}: {len(corpus)} sentences", file=sys.stderr)
    return 0


def _add_m2_to_ixml(p: argparse.ArgumentParser) -> None:
    p.add_argument("--retokenize", choices=["treebank"], default=None,
                   help="re-tokenise corrections like the reference converter's "
                        "nltk.word_tokenize call (default: keep the M2 tokens)")
    p.add_argument("--all-annotators", action="store_true",
                   help="count every annotator of the file in every sentence (numann), also "
                        "where a sentence block lists no edit or noop of that annotator")


CONVERSIONS: tuple[tuple[str, str, Callable[[argparse.Namespace], int],
                         Callable[[argparse.ArgumentParser], None] | None], ...] = (
    ("m2-to-ixml", ("M2 -> I-measure gold XML (edits clustered into errors as the "
                    "reference m2_to_ixml.py does)"), _m2_to_ixml, _add_m2_to_ixml),
    ("ixml-to-m2", ("I-measure gold XML -> M2 (each annotator's alternatives become its "
                    "edits)"), _ixml_to_m2, None),
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("convert", help="convert between annotation formats",
                       description="Convert annotation files between formats.")
    conv = p.add_subparsers(dest="conversion", metavar="CONVERSION", required=True)
    for name, help_text, func, extra in CONVERSIONS:
        c = conv.add_parser(name, help=help_text, description=help_text)
        c.add_argument("input", help="input file")
        add_output_argument(c, "output file (default: standard output)")
        if extra is not None:
            extra(c)
        c.set_defaults(func=func)

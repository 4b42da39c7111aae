"""``gecscope explain``: the CLEME chunk table of chosen sentences, in the terminal or as JSON.

For each sentence it shows every chunk's source, reference and hypothesis tokens, and how the
hypothesis chunk is labelled against each reference (TP, FP_ne, FP_un, FN, TN) with its weight,
followed by the per-reference sentence scores and the reference a sentence-level evaluation
picks.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

EMPTY = "\u2205"  # shown for an empty chunk (a deletion, or the source side of an insertion)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "explain", help="show the CLEME chunk table of sentences (why a system scored as it did)",
        description="Partition source, references and hypothesis into CLEME chunks and label "
                    "each hypothesis chunk TP, FP_ne (wrong correction), FP_un (unnecessary "
                    "correction), FN (missed) or TN, with its weight.")
    p.add_argument("-r", "--ref", nargs="+", required=True,
                   help="references: one M2 file, or several plain-text reference files")
    p.add_argument("-s", "--source", help="source text file (needed with plain-text references)")
    p.add_argument("--hyp", required=True, help="hypothesis: plain text or an M2 of its edits")
    p.add_argument("-n", "--sentence", type=int, nargs="+", default=None, metavar="N",
                   help="sentence numbers (1-based) to explain")
    p.add_argument("--all", action="store_true",
                   help="explain every sentence in which the hypothesis or a reference edits")
    p.add_argument("-m", "--metric", choices=["cleme2", "cleme"], default="cleme2",
                   help="scores shown per reference (default: cleme2)")
    p.add_argument("--assumption", choices=["dependent", "independent"], default=None,
                   help="correction assumption (default: dependent)")
    p.add_argument("--weighting", choices=["none", "length", "similarity", "llm"], default=None,
                   help="chunk weights (default: the metric's, none for cleme2, length for cleme)")
    p.add_argument("--level", choices=["corpus", "sentence"], default="sentence",
                   help="settings of this level (length-weight ranges, CLEME2.0 factors); "
                        "default: sentence")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="metric option, as for evaluate (repeatable)")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="output format (default: text)")
    p.add_argument("--full", action="store_true",
                   help="text format: do not shorten long unchanged chunks")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json, make_metric
    from gecscope.data import EvalData, Hypothesis
    from gecscope.errors import ConfigError
    from gecscope.metrics.cleme import explain

    metric = make_metric(args.metric, args.option, assumption=args.assumption,
                         weighting=args.weighting, level=args.level)
    data = EvalData(tuple(args.ref), args.source)
    origin = args.ref[0] if data.m2 is not None else args.source
    hyp = Hypothesis.from_file(args.hyp, expected=len(data), expected_from=origin)
    hyp = data.align(hyp)  # a parallel file's rows matched by id, sources checked
    if args.all:
        from gecscope.metrics.cleme import partitions

        parts = partitions(data, hyp, metric.config.merge_distance)
        indices = [i for i, p in enumerate(parts) if any(p.is_interval(j) for j in range(len(p)))]
    elif args.sentence:
        indices = [n - 1 for n in args.sentence]
    else:
        raise ConfigError("say which sentences to explain: --sentence N [N ...] or --all")
    tables = explain(metric, data, hyp, indices)
    if args.format == "json":
        sys.stdout.write(dump_json({"hypothesis_file": args.hyp, "references": list(args.ref),
                                    "options": metric.options(), "sentences": tables}) + "\n")
    else:
        sys.stdout.write("\n\n".join(render(t, args.full) for t in tables) + "\n")
    return 0


def _cell(text: str, width: int | None = None) -> str:
    """A chunk's text; long unchanged stretches are shortened to their ends."""
    if not text:
        return EMPTY
    if width is not None and len(text) > width:
        words = text.split()
        if len(words) > 4:
            return " ".join(words[:2]) + " \u2026 " + " ".join(words[-2:])
    return text


def render(t: dict[str, Any], full: bool = False) -> str:
    """One sentence's chunk table as aligned text (one row per chunk)."""
    from gecscope.reports.text import render_table

    refs = t["references"]
    title = (f"sentence {t['sentence']}  ({t['metric']}, {t['assumption']}, "
             f"weighting={t['weighting']}, {t['level']} settings)")
    lines = [title, f"  source:     {t['source']}"]
    for r in refs:
        lines.append(f"  ref {r['annotator']}:      {r['text']}")
    lines.append(f"  hypothesis: {t['hypothesis']}")
    header = ["#", "source", *[f"ref {r['annotator']}" for r in refs], "hypothesis",
              *[f"vs ref {r['annotator']}" for r in refs]]
    rows = []
    for c in t["chunks"]:
        mark = "" if c["kind"] == "unchanged" else ("+" if c["kind"] == "dummy" else "*")
        labels = []
        for lab in c["labels"]:
            if lab["label"] == "TN":
                labels.append("TN")
            else:
                labels.append(f"{lab['label']} ({lab['weight']:.3f})")
        width = None if full or c["kind"] != "unchanged" else 24
        rows.append([f"{c['index'] + 1}{mark}", _cell(c["source"], width),
                     *[_cell(x, width) for x in c["references"]], _cell(c["hypothesis"], width),
                     *labels])
    lines.append(render_table(header, rows, left=range(len(header))))
    score_rows = [[f"ref {s['reference']}", *[v for k, v in s.items() if k != "reference"]]
                  for s in t["scores"]]
    score_header = ["against", *[k for k in t["scores"][0] if k != "reference"]]
    lines.append("")
    lines.append(render_table(score_header, score_rows))
    extra = f"; length bias {t['length_bias']:.3f}" if t.get("length_bias") is not None else ""
    lines.append(f"best reference (sentence level): {t['best_reference']}{extra}")
    lines.append("(* corrected chunk, + dummy chunk = insertion point; weights in brackets)")
    return "\n".join(lines)

"""``gecscope explain``: why sentences scored as they did, in the terminal or as JSON.

By default it prints the CLEME chunk table of chosen sentences: every chunk's source,
reference and hypothesis tokens, and how the hypothesis chunk is labelled against each
reference (TP, FP_ne, FP_un, FN, TN) with its weight, followed by the per-reference sentence
scores and the reference a sentence-level evaluation picks.

With ``--attribution METHOD`` it works for any metric with a sentence score (``-m``): each of
the hypothesis' edits with its share of the sentence's score change
(:func:`gecscope.explain.attribute`; docs/explain.md).

With ``--top N -m METRIC`` it ranks the whole corpus (:func:`gecscope.explain.corpus_costs`):
the N sentences, edits and error types that cost the system most and that earned it most.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.cli._common import add_jobs_argument, add_language_arguments

EMPTY = "\u2205"  # shown for an empty chunk (a deletion, or the source side of an insertion)
#: ``--attribution`` methods (those of :data:`gecscope.explain.METHODS`, which a test keeps equal;
#: listed here so that ``--help`` imports nothing heavy)
ATTRIBUTION_METHODS = ("add", "sub", "shapley", "shapley_sampling")
#: ``--rank-by`` choices (:data:`gecscope.explain.RANK_BY`, kept equal by a test)
RANK_BY = ("corpus", "sentence")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "explain", help="why a system scored as it did: CLEME chunk tables, or each edit's "
                        "share of any metric's sentence score (--attribution)",
        description="Partition source, references and hypothesis into CLEME chunks and label "
                    "each hypothesis chunk TP, FP_ne (wrong correction), FP_un (unnecessary "
                    "correction), FN (missed) or TN, with its weight; with --attribution, "
                    "share each sentence's score change M(S, H) - M(S, S) under any metric "
                    "with sentence scores among the hypothesis' edits.")
    p.add_argument("-r", "--ref", nargs="+", default=[],
                   help="references: one M2 file, or several plain-text reference files "
                        "(with --attribution a reference-less metric needs only --source)")
    p.add_argument("-s", "--source", help="source text file (needed with plain-text references)")
    p.add_argument("--hyp", required=True, help="hypothesis: plain text or an M2 of its edits")
    p.add_argument("-n", "--sentence", type=int, nargs="+", default=None, metavar="N",
                   help="sentence numbers (1-based) to explain")
    p.add_argument("--all", action="store_true",
                   help="explain every sentence in which the hypothesis or a reference edits")
    p.add_argument("-m", "--metric", default=None, metavar="METRIC",
                   help="chunk tables: cleme2 (default) or cleme; with --attribution any "
                        "metric with a sentence score (gleu, green, errant, some...)")
    g = p.add_argument_group("edit attribution (docs/explain.md)")
    g.add_argument("--attribution", choices=list(ATTRIBUTION_METHODS), default=None,
                   help="share each sentence's score change among the hypothesis' edits: one "
                        "by one (add), leave-one-out (sub), Shapley values (shapley: exact up "
                        "to --max-exact edits, sampled beyond), or sampled Shapley values")
    g.add_argument("--max-exact", type=int, default=None, metavar="N",
                   help="shapley: exact for sentences with up to N edits (2^N sentences "
                        "scored each; default: 10)")
    g.add_argument("--samples", type=int, default=None, metavar="N",
                   help="edit orders sampled per sentence beyond --max-exact and by "
                        "shapley_sampling (default: 64)")
    g.add_argument("--seed", type=int, default=0,
                   help="seed of the sampled edit orders (default: 0)")
    c = p.add_argument_group("corpus view (docs/explain.md)")
    c.add_argument("--top", type=int, default=None, metavar="N",
                   help="rank the whole corpus instead of showing sentences: the N sentences, "
                        "edits and error types that cost the system most and the N that "
                        "earned it most under -m METRIC (edits attributed with "
                        "--attribution, default shapley)")
    c.add_argument("--rank-by", choices=list(RANK_BY), default=None,
                   help="--top: rank sentences by their effect on the corpus score (corpus: "
                        "the score minus the score with the sentence left as its source, "
                        "shared among its edits; default) or by their sentence score change, "
                        "shared among its edits (sentence)")
    c.add_argument("--html", default=None, metavar="FILE",
                   help="--top: also write the corpus view as a self-contained HTML page")
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
    add_jobs_argument(p, "scoring the sentences of --attribution")
    from gecscope.cli._inputs import add_gate_arguments

    add_gate_arguments(p.add_argument_group("input checks (as for evaluate: docs/raw-text.md)"))
    add_language_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.cli._common import dump_json, language_from_args, make_metric
    from gecscope.data import EvalData, Hypothesis
    from gecscope.errors import ConfigError
    from gecscope.metrics.cleme import explain

    if args.top is not None:
        return run_top(args)
    if args.rank_by is not None:
        raise ConfigError("--rank-by goes with --top N")
    if args.html is not None:
        raise ConfigError("--html goes with --top N (the corpus view as a page)")
    if args.attribution is not None:
        return run_attribution(args)
    for flag, value in (("--max-exact", args.max_exact), ("--samples", args.samples)):
        if value is not None:
            raise ConfigError(f"{flag} goes with --attribution")
    if args.metric is None:
        args.metric = "cleme2"
    if args.metric not in ("cleme2", "cleme"):
        raise ConfigError(f"explain shows CLEME chunk tables for -m cleme2 or cleme, not "
                          f"{args.metric!r}; for any other metric give --attribution "
                          f"{{{','.join(ATTRIBUTION_METHODS)}}}")
    if not args.ref:
        raise ConfigError("CLEME chunk tables need the references (--ref)")
    metric = make_metric(args.metric, args.option, assumption=args.assumption,
                         weighting=args.weighting, level=args.level)
    lang = language_from_args(args)
    data = EvalData(tuple(args.ref), args.source, lang)
    hyp = Hypothesis.from_file(args.hyp, lang=lang)
    hyp = _admitted(args, data, hyp)  # the gate, as for evaluate
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


def _admitted(args: argparse.Namespace, data: Any, hyp: Any) -> Any:
    """``hyp`` through the gate (:func:`gecscope.gate.admit`) with the command's options,
    what it found printed."""
    from gecscope.cli._inputs import gate_options, print_findings
    from gecscope.gate import admit

    admitted = admit(data, [hyp], gate_options(args))
    print_findings(admitted.findings)
    return admitted.hypotheses[0]


def run_attribution(args: argparse.Namespace) -> int:
    """``explain --attribution METHOD -m METRIC``: each hypothesis edit's share of its
    sentence's score change, as text or JSON."""
    from gecscope.cli._common import Progress, dump_json, make_metric
    from gecscope.cli._inputs import load_inputs
    from gecscope.errors import ConfigError
    from gecscope.execution.pool import default_jobs
    from gecscope.explain import MAX_EXACT, SAMPLES, attribute
    from gecscope.explain.attribution import hypothesis_edits

    if args.metric is None:
        raise ConfigError("--attribution needs the metric whose score is attributed: -m NAME "
                          "(any metric with a sentence score, e.g. gleu, green, errant, some)")
    for flag in ("assumption", "weighting"):
        if getattr(args, flag) is not None:
            raise ConfigError(f"--{flag} is a CLEME chunk-table option; give metric options "
                              "with -o KEY=VALUE")
    metric = make_metric(args.metric, args.option)
    inputs = argparse.Namespace(**{**vars(args), "hyp": [args.hyp], "name": None})
    data, hyps = load_inputs(inputs)
    hyp = hyps[0]
    metric.prepare_systems(data, [hyp])  # as evaluate of this one system (GoToScorer's weights)
    n = len(hyp)
    if args.all:
        edits = hypothesis_edits(data, hyp)
        indices = [i for i in range(n) if edits[i]]
    elif args.sentence:
        bad = [k for k in args.sentence if not 1 <= k <= n]
        if bad:
            raise ConfigError(f"--sentence {bad[0]}: the hypothesis has sentences 1 to {n}")
        indices = [k - 1 for k in args.sentence]
    else:
        raise ConfigError("say which sentences to explain: --sentence N [N ...] or --all")
    max_exact = MAX_EXACT if args.max_exact is None else args.max_exact
    samples = SAMPLES if args.samples is None else args.samples
    bar = Progress(len(indices), f"{metric.name} attribution", unit="sentences")
    try:
        found = attribute(metric, data, hyp, args.attribution, max_exact=max_exact,
                          samples=samples, seed=args.seed, jobs=args.jobs or default_jobs(),
                          progress=bar, sentences=indices)
    finally:
        bar.close()
    sources = data.sources
    sentences = [attribution_json(a, sources[a.index], hyp.tokens[a.index]) for a in found]
    if args.format == "json":
        sys.stdout.write(dump_json({
            "hypothesis_file": args.hyp, "references": list(args.ref), "source": args.source,
            "metric": metric.name, "options": metric.options(), "method": args.attribution,
            "max_exact": max_exact, "samples": samples, "seed": args.seed,
            "sentences": sentences}) + "\n")
    else:
        sys.stdout.write("\n\n".join(render_attribution(s, metric.name) for s in sentences)
                         + "\n")
    return 0


def attribution_json(a: Any, source: Any, hypothesis: Any) -> dict[str, Any]:
    """One :class:`~gecscope.explain.SentenceAttribution` as JSON (sentence numbers 1-based;
    edit spans in source tokens, end exclusive)."""
    return {"sentence": a.index + 1, "source": " ".join(source),
            "hypothesis": " ".join(hypothesis), "method": a.method, "samples": a.samples,
            "base": a.base, "full": a.full, "delta": a.delta,
            "edits": [{"start": e.edit.start, "end": e.edit.end,
                       "original": " ".join(source[e.edit.start:e.edit.end]),
                       "correction": e.edit.correction_str, "type": e.edit.type,
                       "value": e.value} for e in a.edits]}


def render_attribution(s: dict[str, Any], metric: str) -> str:
    """One sentence's edits and their attributions as aligned text."""
    from gecscope.reports.text import render_table

    how = s["method"] + (f", {s['samples']} sampled orders" if s["samples"] else "")
    lines = [(f"sentence {s['sentence']}  ({metric}, {how}: M(S,S) = {s['base']:.4f}, "
              f"M(S,H) = {s['full']:.4f}, change {s['delta']:+.4f})"),
             f"  source:     {s['source']}", f"  hypothesis: {s['hypothesis']}"]
    if not s["edits"]:
        lines.append("  (the hypothesis makes no edit)")
        return "\n".join(lines)
    rows = [[str(k + 1), f"{e['start']}-{e['end']}",
             f"{e['original'] or EMPTY} -> {e['correction'] or EMPTY}", e["type"],
             f"{e['value']:+.4f}"] for k, e in enumerate(s["edits"])]
    table = render_table(["#", "span", "edit", "type", "attribution"], rows, left=range(4))
    lines.extend("  " + line for line in table.splitlines())
    total = sum(e["value"] for e in s["edits"])
    lines.append(f"sum of attributions {total:+.4f} (change {s['delta']:+.4f})")
    return "\n".join(lines)


def run_top(args: argparse.Namespace) -> int:
    """``explain --top N -m METRIC``: the sentences, edits and error types that cost the
    system most and earned it most, as text or JSON (:func:`gecscope.explain.corpus_costs`)."""
    from gecscope.cli._common import Progress, dump_json, make_metric
    from gecscope.cli._inputs import load_inputs
    from gecscope.errors import ConfigError
    from gecscope.execution.pool import default_jobs
    from gecscope.explain import MAX_EXACT, SAMPLES, corpus_costs
    from gecscope.explain.attribution import check_options, hypothesis_edits
    from gecscope.explain.corpus import check_sentence_scores

    if args.top < 1:
        raise ConfigError(f"--top must be a whole number of at least 1, not {args.top}")
    if args.metric is None:
        raise ConfigError("--top needs the metric whose score is ranked: -m NAME (any metric "
                          "with a sentence score, e.g. m2, errant, gleu, green)")
    if args.all or args.sentence:
        raise ConfigError("--top ranks every sentence of the corpus; it does not go with "
                          "--sentence or --all")
    for flag in ("assumption", "weighting"):
        if getattr(args, flag) is not None:
            raise ConfigError(f"--{flag} is a CLEME chunk-table option; give metric options "
                              "with -o KEY=VALUE")
    if args.html is not None:  # refuse an unwritable page before the scoring
        from pathlib import Path

        from gecscope.errors import OutputError

        where = Path(args.html)
        if where.is_dir() or not (where.parent if str(where.parent) else Path(".")).is_dir():
            raise OutputError("cannot write the page here (a folder, or its folder does not "
                              "exist)", where)
    method = args.attribution or "shapley"
    max_exact = MAX_EXACT if args.max_exact is None else args.max_exact
    samples = SAMPLES if args.samples is None else args.samples
    check_options(method, max_exact, samples)
    metric = make_metric(args.metric, args.option)
    check_sentence_scores(metric)
    inputs = argparse.Namespace(**{**vars(args), "hyp": [args.hyp], "name": None})
    data, hyps = load_inputs(inputs)
    hyp = hyps[0]
    metric.prepare_systems(data, [hyp])  # as evaluate of this one system (GoToScorer's weights)
    jobs = args.jobs or default_jobs()
    if jobs > 1 and data.known_hypothesis_m2(hyp) is None:
        from gecscope.execution.plan import extract_edits

        extract_edits(data, [hyp], jobs)
    edited = sum(1 for e in hypothesis_edits(data, hyp) if e)
    bar = Progress(edited, f"{metric.name} attribution", unit="sentences")
    try:
        costs = corpus_costs(metric, data, hyp, args.top, method,
                             rank_by=args.rank_by or "corpus", max_exact=max_exact,
                             samples=samples, seed=args.seed, jobs=jobs, progress=bar)
    finally:
        bar.close()
    if args.html is not None:
        from gecscope.reports.html import write_costs_html

        write_costs_html(args.html, [costs], references=args.ref)
    if args.format == "json":
        sys.stdout.write(dump_json({
            "hypothesis_file": args.hyp, "references": list(args.ref), "source": args.source,
            "options": metric.options(), "samples": samples, "seed": args.seed,
            **costs.as_dict()}) + "\n")
    else:
        sys.stdout.write(render_costs(costs, max_exact) + "\n")
    return 0


def excerpt_text(source: str, edits: Any, context: int = 2, limit: int = 3) -> str:
    """A sentence's first ``limit`` edits inline, ``[original -> correction]``, with a few
    unchanged tokens around each (``…`` for the rest), and how many more there are."""
    from gecscope.explain.corpus import excerpt

    parts = []
    for kind, a, b in excerpt(source, edits[:limit], context):
        if kind == "gap":
            parts.append("\u2026")
        elif kind == "edit":
            parts.append(f"[{a or EMPTY} -> {b or EMPTY}]")
        else:
            parts.append(a)
    if len(edits) > limit:
        more = len(edits) - limit
        parts.append(f"(+{more} more edit{'s' if more > 1 else ''})")
    return " ".join(parts)


def render_costs(costs: Any, max_exact: int = 10) -> str:
    """:class:`~gecscope.explain.CorpusCosts` as text: a headline, the ranked sentences,
    edits and error types (the N costliest, then the N most earning, of each)."""
    from gecscope.reports.text import render_table

    c = costs
    how = c.method
    if c.sampled:
        how += (f"; Shapley values sampled for {c.sampled} sentence"
                f"{'s' if c.sampled != 1 else ''} with more than {max_exact} edits")
    lines = [(f"{c.system}: {c.metric} {c.score:.4f} over {c.sentences} sentences, "
             f"{c.edited} edited; edits attributed by {how}")]
    if c.rank_by == "corpus":
        lines.append(f"sentence change: {c.metric} of the corpus minus {c.metric} with that "
                     "sentence left as its source (leave-one-out); edit attribution: its "
                     f"share of that corpus change (a sentence's edits sum to it)")
    else:
        lines.append(f"sentence change: the sentence's {c.metric} minus the source's; edit "
                     "attribution: its share of that change")
    if c.undefined:
        lines.append(f"{c.undefined} sentences with an undefined (NaN) score or attribution "
                     "left out")
    corpus = c.rank_by == "corpus"
    digits = 6 if corpus else 4  # shares of a corpus score change are small
    for what, items in (("cost", c.sentence_cost), ("earned", c.sentence_gain)):
        lines += ["", f"-- sentences that {what} {c.system} most --"]
        if not items:
            lines.append("(none)")
            continue
        header = ["rank", "sentence", *(["corpus change"] if corpus else []),
                  "sentence change", "source -> hypothesis"]
        rows = [[str(k), str(s.index + 1), *([f"{s.change:+.6f}"] if corpus else []),
                 f"{s.delta:+.4f}", excerpt_text(s.source, s.edits)]
                for k, s in enumerate(items, 1)]
        lines.append(render_table(header, rows, left=(len(header) - 1,)))
    for what, edits in (("cost", c.edit_cost), ("earned", c.edit_gain)):
        lines += ["", f"-- edits that {what} {c.system} most --"]
        if not edits:
            lines.append("(none)")
            continue
        rows = [[str(k), str(e.index + 1), f"{e.start}-{e.end}",
                 f"{e.original or EMPTY} -> {e.correction or EMPTY}", e.type,
                 f"{e.value:+.{digits}f}"] for k, e in enumerate(edits, 1)]
        lines.append(render_table(["rank", "sentence", "span", "edit", "type", "attribution"],
                                  rows, left=(2, 3, 4)))
    for what, types in (("cost", c.type_cost), ("earned", c.type_gain)):
        lines += ["", f"-- error types that {what} {c.system} most (sum of attributions) --"]
        if not types:
            lines.append("(none)")
            continue
        rows = [[str(k), t.type, str(t.edits), f"{t.total:+.{digits}f}",
                 f"{t.total / t.edits:+.{digits}f}"] for k, t in enumerate(types, 1)]
        lines.append(render_table(["rank", "type", "edits", "sum", "mean"], rows, left=(1,)))
    return "\n".join(lines)

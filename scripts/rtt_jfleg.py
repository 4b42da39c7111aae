"""Run the six round-trip correction methods on JFLEG dev with the Apertium pivots and write the
automatic success/draw/failure table (and GLEU when gecscope's GLEU metric is installed).

    python scripts/rtt_jfleg.py [--data ../shared/data/jfleg/dev] [--limit N]
        [--cache-dir D] [--out-dir D] [--doc docs/rtt.md]

The input is ``dev.spellchecked.src`` by default (the paper corrected spelling by hand before
translating); GLEU is computed against the four references with ``dev.src`` as the source, as
the JFLEG scripts do. The table replaces the block between the ``rtt-jfleg-dev`` markers of the
doc page.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from gecscope.types import Tokens

ROOT = Path(__file__).resolve().parent.parent
START_MARK = "<!-- rtt-jfleg-dev:start -->"
END_MARK = "<!-- rtt-jfleg-dev:end -->"


def main(argv: list[str] | None = None) -> int:
    from gecscope.formats.plain import read_tokens, write_lines
    from gecscope.rtt.correct import CorrectorConfig, RoundTripCorrector
    from gecscope.rtt.evaluation import EvalConfig, evaluate_methods
    from gecscope.rtt.lm import PocketSphinxLM
    from gecscope.rtt.methods import METHODS
    from gecscope.rtt.translator import ApertiumTranslator, CachedTranslator, RoundTripCache

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "jfleg" / "dev"))
    ap.add_argument("--input", default="dev.spellchecked.src")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--pivots", default="")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--out-dir", default="")
    ap.add_argument("--doc", default="")
    ap.add_argument("--delta", type=float, default=EvalConfig.delta)
    ap.add_argument("--faithfulness", type=float, default=EvalConfig.faithfulness_threshold)
    ap.add_argument("--usim", action="store_true",
                    help="judge meaning by USIM (gecscope's trained UCCA parser) instead of "
                         "token overlap, and report the mean USIM of every output")
    ap.add_argument("--usim-threshold", type=float, default=0.7,
                    help="USIM at or above which a correction keeps the meaning (default 0.7: "
                         "JFLEG dev references average 0.81-0.86, corrupted corrections "
                         "0.16-0.60, docs/ucca-parser.md)")
    args = ap.parse_args(argv)

    data = Path(args.data)
    src = read_tokens(data / args.input)
    refs_paths = sorted(str(p) for p in data.glob("*.ref*"))
    refs = [read_tokens(p, expected=len(src)) for p in refs_paths]
    n = len(src) if not args.limit else min(args.limit, len(src))
    src = src[:n]
    refs = [r[:n] for r in refs]
    translator = ApertiumTranslator()
    pivots = tuple(p for p in args.pivots.split(",") if p) or translator.available_pivots()
    cached = CachedTranslator(translator, RoundTripCache(args.cache_dir))
    lm = PocketSphinxLM()
    corrector = RoundTripCorrector(cached, lm, CorrectorConfig(pivots=pivots, methods=METHODS))

    t0 = time.perf_counter()
    rts = corrector.round_trips(src)
    t1 = time.perf_counter()
    results = [corrector.correct_from_round_trips(s, {p: rts[p][k] for p in pivots})
               for k, s in enumerate(src)]
    t2 = time.perf_counter()
    corrections = {m: [r.corrections[m] for r in results] for m in METHODS}
    t1b = t2
    errorful = [not any(r[k] == s for r in refs) for k, s in enumerate(src)]
    meaning_fn = None
    meaning_label = "token-overlap F1"
    threshold = args.faithfulness
    usim_scores: dict[str, list[float]] = {}
    if args.usim:
        from gecscope.metrics.base import EvalData, Hypothesis
        from gecscope.registry import get_metric

        usim = get_metric("usim")()
        ed = EvalData((), str(data / args.input))
        ed.__dict__["sources"] = list(src)
        outputs = {m: list(corrections[m]) for m in METHODS}
        outputs.update({f"round trip {p}": list(rts[p]) for p in pivots})
        lookup: dict[tuple[Tokens, Tokens], float] = {}
        for name, out in outputs.items():
            res = usim.evaluate(ed, Hypothesis(name, out))
            usim_scores[name] = list(res.sentence_scores or [])
            lookup.update({(tuple(o), tuple(c)): v
                           for o, c, v in zip(src, out, usim_scores[name], strict=True)})

        def meaning_fn(o: Tokens, c: Tokens) -> bool:
            return lookup[(tuple(o), tuple(c))] >= args.usim_threshold

        meaning_label = "USIM (trained UCCA parser)"
        threshold = args.usim_threshold
        t1b = time.perf_counter()
    ev = evaluate_methods(src, corrections, lm, errorful,
                          EvalConfig(args.delta, args.faithfulness), meaning_fn=meaning_fn,
                          meaning_label=meaning_label)
    ev_ref = evaluate_methods(src, corrections, lm, errorful,
                              EvalConfig(args.delta, args.faithfulness, "reference"),
                              references=refs, meaning_fn=meaning_fn,
                              meaning_label=meaning_label)
    t3 = time.perf_counter()

    gleu_rows: dict[str, float] = {}
    if importlib.util.find_spec("gecscope.metrics.gleu") is not None:
        from gecscope.metrics.base import EvalData, Hypothesis
        from gecscope.registry import get_metric

        if n == len(read_tokens(data / "dev.src")):
            metric = get_metric("gleu")()
            ed = EvalData(tuple(refs_paths), str(data / "dev.src"))
            gleu_rows["source (dev.src)"] = metric.score(
                ed, Hypothesis("src", read_tokens(data / "dev.src"))).value
            gleu_rows[f"input ({args.input})"] = metric.score(ed, Hypothesis("in", src)).value
            for m in METHODS:
                gleu_rows[m] = metric.score(ed, Hypothesis(m, list(corrections[m]))).value
            for p in pivots:
                gleu_rows[f"round trip {p}"] = metric.score(ed, Hypothesis(p, rts[p])).value
    ev_ref.gleu = gleu_rows

    usim_rows = {k: sum(v) / len(v) for k, v in usim_scores.items() if v}

    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for m in METHODS:
            write_lines(out / f"{m}.txt", corrections[m])
        for p in pivots:
            write_lines(out / f"round-trip.{p}.txt", rts[p])

    words = sum(len(s) for s in src)
    table = ("**Grammaticality judged by the CMU trigram LM** (the LM methods B, L, P, C "
             "optimise this very judge):\n\n" + ev.to_markdown() +
             "\n**Grammaticality judged against the four references** (closer to the nearest "
             "reference = better; independent of the LM):\n\n" + ev_ref.to_markdown())
    summary = (f"JFLEG dev, input `{args.input}`, {n} sentences ({words} tokens), pivots "
               f"{', '.join(pivots)} (Apertium, cache hits {cached.hits}, misses "
               f"{cached.misses}); meaning proxy: {ev.meaning_proxy} >= {threshold}; "
               f"grammaticality proxy: CMU trigram log10 prob per token, delta {args.delta}. "
               f"Times: translation {t1 - t0:.1f} s, alignment + lattice + 6 methods "
               f"{t2 - t1:.1f} s, evaluation {t3 - t2:.1f} s.")
    if not gleu_rows:
        summary += " GLEU: not computed (gecscope.metrics.gleu not installed)."
    if usim_rows:
        table += ("\nMean USIM of each output against the input (gecscope.metrics.usim, "
                  f"trained UCCA parser; computed with the meaning judge, {t1b - t2:.0f} s):\n\n"
                  "| Output | USIM |\n|---|---|\n" +
                  "".join(f"| {k} | {v:.3f} |\n" for k, v in usim_rows.items()))
    print(summary)
    print(table)
    if args.doc:
        doc = Path(args.doc)
        text = doc.read_text(encoding="utf-8")
        if START_MARK not in text or END_MARK not in text:
            print(f"{doc}: markers {START_MARK} / {END_MARK} not found", file=sys.stderr)
            return 1
        head, rest = text.split(START_MARK, 1)
        _, tail = rest.split(END_MARK, 1)
        doc.write_text(f"{head}{START_MARK}\n{summary}\n\n{table}{END_MARK}{tail}",
                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

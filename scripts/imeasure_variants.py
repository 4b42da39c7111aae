"""Which scoring variant reproduces the published CoNLL-2014 I-measure column? (issue #4)

Computes, once per system and sentence, every distinct outcome (count vector) of the candidate
references with gecscope's I-measure search, then re-runs only the cheap part (the choice of
reference and the corpus aggregation) under each variant and prints correction I x100 for the
13 systems next to the published values, with the number of systems within 0.1 and the mean
absolute difference. Usage::

    python scripts/imeasure_variants.py [--data ../shared/data/conll14] [--cache opts.pkl]
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from gecscope.formats.imeasure_xml import GoldSentence, IMeasureGold, m2_to_gold
from gecscope.formats.m2 import read_m2
from gecscope.formats.plain import read_tokens
from gecscope.metrics.imeasure import IMeasureMetric
from gecscope.metrics.imeasure.core import IMeasureCounts, aspect_scores, improvement, selection_key
from gecscope.metrics.imeasure.search import n_candidates_upper

PUBLISHED = {"UFC": 1.35, "INPUT": 0.00, "IITB": -0.25, "SJTU": -1.16, "CUUI": -2.18,
             "PKU": -2.38, "AMU": -2.47, "UMC": -2.84, "IPN": -3.04, "POST": -4.18,
             "RAC": -4.41, "CAMB": -5.15, "NTHU": -5.29}

Outcomes = list[list[tuple[IMeasureCounts, tuple[int, ...]]]]  # per sentence: (counts, witness), in order


def _lower(gold: IMeasureGold) -> IMeasureGold:
    """The gold standard with every token lower-cased (case-insensitive comparison)."""
    def sent(s: GoldSentence) -> GoldSentence:
        errs = tuple(replace(e, alternatives=tuple(
            replace(a, corrections=tuple(replace(c, text=c.text.lower()) for c in a.corrections))
            for a in e.alternatives)) for e in s.errors)
        return replace(s, text=s.text.lower(), errors=errs)
    return replace(gold, scripts=tuple(replace(sc, sentences=tuple(sent(s) for s in sc.sentences))
                                       for sc in gold.scripts))


def compute(data: Path, gold: IMeasureGold, lowercase: bool = False,
            baseline: str = "separate") -> dict[str, Outcomes]:
    """Distinct outcomes of every sentence for every system (the expensive part)."""
    if lowercase:
        gold = _lower(gold)
    metric = IMeasureMetric(baseline=baseline)
    caches: list[dict] = [{} for _ in range(len(gold))]
    out: dict[str, Outcomes] = {}
    for name in PUBLISHED:
        hyps = read_tokens(data / "submissions" / name, expected=len(gold))
        if lowercase:
            hyps = [[tok.lower() for tok in h] for h in hyps]
        out[name] = [[(o.counts, o.witness) for o in metric.sentence_options(s, h, caches[i])]
                     for i, (s, h) in enumerate(zip(gold.sentences, hyps, strict=True))]
    return out


def _i(c: IMeasureCounts, aspect: str, w: float, tie: str = "zero") -> float:
    return aspect_scores(c, aspect, 1.0, w, tie).i


def choose(opts: Sequence[tuple[IMeasureCounts, tuple[int, ...]]], key: Callable[[IMeasureCounts], tuple],
           last: bool = False) -> IMeasureCounts:
    """The option with the largest key; the first (or, with ``last``, the last) on a tie."""
    best = opts[0][0]
    bk = key(best)
    for c, _ in opts[1:]:
        k = key(c)
        if k > bk or (last and k == bk):
            best, bk = c, k
    return best


def variant(outcomes: Outcomes, *, maximise: str = "cwacc", w: float = 2.0, beta: float = 1.0,
            tie: str = "zero", report: str = "c", optimise: str = "sent", last: bool = False,
            baseline: str = "chosen", average: str = "micro",
            sizes: Sequence[int] = (), max_candidates: int | None = None) -> float:
    """Corpus I x100 of one system under one variant. With ``max_candidates``, sentences whose
    candidate product (``sizes``) exceeds it are left out, as a run of the reference tool that
    skipped the sentences it cannot finish would do."""
    a, m = maximise[0], maximise[1:]
    total = IMeasureCounts()
    chosen: list[IMeasureCounts] = []
    if max_candidates is not None:
        outcomes = [o for o, n in zip(outcomes, sizes, strict=True) if n <= max_candidates]
    for opts in outcomes:
        if optimise == "corpus":
            c = choose(opts, lambda c, t=total: selection_key(t + c, a, m, beta, w, tie), last)
        else:
            c = choose(opts, lambda c: selection_key(c, a, m, beta, w, tie), last)
        total = total + c
        chosen.append(c)
    if average == "macro":
        return 100 * sum(_i(c, report, w, tie) for c in chosen) / len(chosen)
    if baseline == "best":  # baseline chosen separately: the reference best for the source
        tn_b = fn_b = 0
        for opts in outcomes:
            cb = choose(opts, lambda c: (c.tn_b / max(1, c.tn_b + c.fn_b), -c.fn_b))
            tn_b += cb.tn_b
            fn_b += cb.fn_b
        total = IMeasureCounts(total.tp_d, total.tp_c, total.tn, total.fp_d, total.fn_d, tn_b, fn_b)
    s = aspect_scores(total, report, beta, w, tie)
    return 100 * improvement(s.wacc, s.wacc_b, tie)


VARIANTS: dict[str, dict] = {
    "default (cwacc, w=2, sent)": {},
    "tie_i=floor": {"tie": "floor"},
    "last of fully tied refs": {"last": True},
    "detection row": {"report": "d"},
    "maximise dwacc, detection row": {"maximise": "dwacc", "report": "d"},
    "maximise dwacc, correction row": {"maximise": "dwacc"},
    "maximise ci": {"maximise": "ci"},
    "maximise cf": {"maximise": "cf"},
    "maximise cf, beta=0.5": {"maximise": "cf", "beta": 0.5},
    "maximise cacc": {"maximise": "cacc"},
    "maximise ctp": {"maximise": "ctp"},
    "w=1": {"w": 1.0},
    "w=3": {"w": 3.0},
    "w=1.5": {"w": 1.5},
    "optimise=corpus": {"optimise": "corpus"},
    "baseline: best ref for source": {"baseline": "best"},
    "macro mean of sentence I": {"average": "macro"},
    "skip sentences > 2^16 candidates": {"max_candidates": 1 << 16},
    "skip sentences > 1024 candidates": {"max_candidates": 1024},
}


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(here.parent / "shared" / "data" / "conll14"))
    ap.add_argument("--cache", default=None, help="pickle file for the computed outcomes")
    ap.add_argument("--all-annotators", action="store_true")
    ap.add_argument("--m2", default="official-2014.combined.m2", help="gold file in --data")
    ap.add_argument("--lowercase", action="store_true", help="compare tokens case-insensitively")
    ap.add_argument("--baseline", default="separate", choices=["separate", "recount"],
                    help="how the baseline is counted (the metric's baseline option)")
    args = ap.parse_args()
    gold = m2_to_gold(read_m2(Path(args.data) / args.m2), all_annotators=args.all_annotators)
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        with cache.open("rb") as fh:
            outcomes = pickle.load(fh)
    else:
        outcomes = compute(Path(args.data), gold, args.lowercase, args.baseline)
        if cache:
            with cache.open("wb") as fh:
                pickle.dump(outcomes, fh)
    sizes = [n_candidates_upper(s) for s in gold.sentences]
    names = list(PUBLISHED)
    sys.stdout.write(f"{'variant':32}" + "".join(f"{n:>7}" for n in names)
                     + f"{'<=0.1':>6}{'MAD':>6}\n")
    sys.stdout.write(f"{'published':32}" + "".join(f"{PUBLISHED[n]:7.2f}" for n in names) + "\n")
    for label, kw in VARIANTS.items():
        vals = {n: variant(outcomes[n], sizes=sizes, **kw) for n in names}
        diffs = [abs(vals[n] - PUBLISHED[n]) for n in names]
        close = sum(d <= 0.1 + 1e-9 for d in diffs)
        mad = sum(diffs) / len(diffs)
        row = "".join(f"{vals[n]:7.2f}" if math.isfinite(vals[n]) else f"{'nan':>7}"
                      for n in names)
        sys.stdout.write(f"{label:32}{row}{close:6d}{mad:6.2f}\n")


if __name__ == "__main__":
    main()

"""GoToScorer on every CoNLL-2014 submission and every SEEDA output: equality with gec-metrics
0.1.1, and speed.

For each set (``conll14``: the 13 submissions; ``seeda``: SEEDA's 15 outputs in ``outputs/all``;
both on the 1,312 sentences of ``official-2014.combined.m2``, reference = annotator 0):

* difficulty weights from all the set's systems: gecscope's default against the file
  ``gecmetrics-gen-gotoscorer-weight`` writes (byte for byte), and how many chunk weights
  ``fix_weight_positions=true`` (gecscope's corrected judgement) changes;
* every system scored unweighted and weighted with gec-metrics' weight file, by both tools:
  every field of the corpus score and every sentence score compared (to 1e-12 and to 4
  decimals), F0.5 printed side by side with the weighted F0.5 under the fixed weights;
* CPU seconds beside wall time for both (gec-metrics: its own venv through
  ``tests/gec_metrics_ref.py``; its script is the regression test's, all sentences).

    python benchmarks/gotoscorer_conll14.py [--data ../shared/data] [--sets conll14 seeda]
                                            [-n 1312]

Exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "regression"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _clock import Clock

DEFAULT_DATA = ROOT.parent / "shared" / "data"
CONLL14_SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC",
                   "SJTU", "UFC", "UMC")
SEEDA_SYSTEMS = ("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT",
                 "LM-Critic", "PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC",
                 "TransGEC", "UEDIN-MS")
FIELDS = ("TP", "FP", "FN", "TN", "P", "R", "Acc")


def outputs(data_dir: Path, name: str) -> dict[str, Path]:
    """The system output files of a set."""
    if name == "conll14":
        return {s: data_dir / "conll14" / "submissions" / s for s in CONLL14_SYSTEMS}
    return {s: data_dir / "seeda" / "outputs" / "all" / f"{s}.txt" for s in SEEDA_SYSTEMS}


def same(ours: dict[str, float], theirs: dict[str, Any], tol: float) -> bool:
    """Every field equal within ``tol`` (F under gecscope's name F0.5)."""
    pairs = [(ours[k], theirs[k]) for k in FIELDS] + [(ours["F0.5"], theirs["F"])]
    return all(abs(a - b) <= tol for a, b in pairs)


def same4(ours: dict[str, float], theirs: dict[str, Any]) -> bool:
    """Every field equal once rounded to 4 decimals."""
    pairs = [(ours[k], theirs[k]) for k in FIELDS] + [(ours["F0.5"], theirs["F"])]
    return all(round(a, 4) == round(b, 4) for a, b in pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the shared data folder (default: %(default)s)")
    parser.add_argument("--sets", nargs="+", choices=("conll14", "seeda"),
                        default=["conll14", "seeda"])
    parser.add_argument("-n", type=int, default=0, help="first N sentences (default: all)")
    args = parser.parse_args(argv)
    m2 = args.data / "conll14" / "official-2014.combined.m2"
    if not m2.is_file():
        print(f"data not found: {m2}", file=sys.stderr)
        return 1

    from gec_metrics_ref import run_gec_metrics
    from test_gotoscorer_conll14 import GEC_METRICS_SCRIPT

    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.gotoscorer import GoToScorerMetric, compute_weights
    from gecscope.types import Corpus

    full = EvalData((str(m2),))
    assert full.m2 is not None
    n = args.n or len(full)
    payload: dict[str, Any] = {"sets": {}}
    sets = {}
    for name in args.sets:
        data = EvalData.from_m2(Corpus(full.m2.sentences[:n])) if n < len(full) else \
            EvalData((str(m2),))
        hyps = []
        for s, path in outputs(args.data, name).items():
            toks = Hypothesis.from_file(path, s, expected=len(full)).tokens
            hyps.append(Hypothesis(s, toks[:n]))
        sets[name] = (data, hyps)
        payload["sets"][name] = {
            "src": [" ".join(t) for t in data.sources],
            "refs": [[" ".join(t) for t in r] for r in data.references],
            "systems": {h.name: [" ".join(t) for t in h.tokens] for h in hyps}, "ref1": []}

    with Clock() as ref_clock:
        ref = run_gec_metrics(GEC_METRICS_SCRIPT, payload, timeout=86400)

    all_equal = True
    for name, (data, hyps) in sets.items():
        theirs = ref[name]
        with tempfile.TemporaryDirectory() as tmp, Clock() as clock:
            with Clock() as w_clock:  # ERRANT on every system and the reference, then weights
                compat = compute_weights(data, hyps)  # the default: gec-metrics' generator
                default = compute_weights(data, hyps, fix_weight_positions=True)
            path = Path(tmp) / "w.json"
            compat.write(path)
            metrics = {"unweighted": GoToScorerMetric(),
                       "weighted": GoToScorerMetric(weight_file=str(path))}
            default_path = Path(tmp) / "default.json"
            default.write(default_path)
            corrected = GoToScorerMetric(weight_file=str(default_path))
            results = {k: {h.name: m.evaluate(data, h) for h in hyps} for k, m in metrics.items()}
            corr = {h.name: corrected.score(data, h).fields for h in hyps}
        file_equal = compat.dumps() == theirs["weight_file"]
        changed = sum(a != b for ws, cs in zip(default.weights, compat.weights, strict=True)
                      for a, b in zip(ws, cs, strict=True))
        total = sum(len(ws) for ws in compat.weights)
        print(f"\n## {name}: {len(hyps)} systems x {len(data)} sentences\n")
        print(f"weight file (default options) identical to gecmetrics-gen-gotoscorer-weight's: "
              f"{'yes' if file_equal else 'NO'}; fix_weight_positions changes "
              f"{changed} of {total} chunk weights")
        print("\n| system | F0.5 gecscope | F0.5 gec-metrics | weighted F0.5 gecscope | "
              "weighted F0.5 gec-metrics | weighted F0.5, fixed weights | equal (1e-12) | "
              "equal (4 dp) |")
        print("|---|---:|---:|---:|---:|---:|---|---|")
        set_equal = file_equal
        for h in hyps:
            ok12 = ok4 = True
            for kind in ("unweighted", "weighted"):
                r = results[kind][h.name]
                t = theirs[kind][h.name]
                ok12 &= same(r.score.fields, t, 1e-12) and r.sentence_scores is not None and \
                    len(r.sentence_scores) == len(t["sentences"]) and all(
                        abs(a - b) <= 1e-12 for a, b in zip(r.sentence_scores, t["sentences"],
                                                            strict=True))
                ok4 &= same4(r.score.fields, t)
            set_equal &= ok12 and ok4
            u, w = results["unweighted"][h.name].score.fields, results["weighted"][h.name].score
            print(f"| {h.name} | {u['F0.5']:.4f} | {theirs['unweighted'][h.name]['F']:.4f} | "
                  f"{w.fields['F0.5']:.4f} | {theirs['weighted'][h.name]['F']:.4f} | "
                  f"{corr[h.name]['F0.5']:.4f} | {'yes' if ok12 else 'NO'} | "
                  f"{'yes' if ok4 else 'NO'} |")
        all_equal &= set_equal
        n_sys = len(hyps)
        print(f"\ngecscope: {clock} in all ({w_clock} of it ERRANT + both weight sets; then "
              f"{2 * n_sys} scorings + {n_sys} with fixed weights); gec-metrics: "
              f"{theirs['wall']:.2f}s wall, {theirs['cpu']:.2f}s CPU (weight file + "
              f"{2 * n_sys} scorings, the same work minus the fixed weights)")
    print(f"\ngec-metrics run in all: {ref_clock} with its start-up (CPU = the child process)")
    print("weight files, every corpus field and sentence score equal:",
          "yes" if all_equal else "NO")
    return 0 if all_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())

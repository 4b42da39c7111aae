"""PT-ERRANT on CoNLL-2014 and SEEDA outputs: equality with gec-metrics 0.1.1, and speed.

gecscope's ``pterrant`` and gec-metrics' ``PTERRANT`` (its own venv, ``tests/gec_metrics_ref.py``)
score the same texts with the same local encoder (default: the bundled all-MiniLM-L6-v2,
layer 6, no baseline; ``--model DIR --layer L`` for another one) and one torch thread each.
Sources and references: ``official-2014.combined.m2`` (both annotators, as text: both tools
extract the edits with ERRANT). Systems: the 13 CoNLL-2014 submissions, and with ``--seeda``
the 15 SEEDA outputs (``seeda/outputs/all``). For every system the script prints both corpus
F0.5 values, the largest sentence-score difference, and CPU seconds beside wall time for each
tool; the last line says whether all agree to 4 decimals.

    python benchmarks/pt_errant_conll14.py [-n 1312] [--systems AMU CAMB ...] [--seeda]
                                           [--no-reference] [--model DIR --layer L]

``--no-reference`` times gecscope alone (gec-metrics needs about 6x its CPU time). PT-M2 has no
gec-metrics counterpart; ``--ptm2`` prints gecscope's PT-M2 (sentence and corpus level) beside,
and ``--ptm2-official DIR`` (a checkout of pygongnlp/PT-M2) also runs the official code on the
same sentences (against ``official-2014.combined.m2``) and prints its values.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _clock import Clock
from gec_metrics_ref import SUBMODULES_ONLY

from gecscope.types import Corpus

DATA = ROOT.parent / "shared" / "data"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")

REFERENCE = SUBMODULES_ONLY + r"""
import time
import torch
torch.set_num_threads(1)
from gec_metrics.metrics.bertscore import BertScore
from gec_metrics.metrics.pt_errant import PTERRANT
t0, c0 = time.perf_counter(), time.process_time()
cfg = BertScore.Config(model_type=PAYLOAD["model"], num_layers=PAYLOAD["layer"],
                       rescale_with_baseline=False)
scorer = PTERRANT(PTERRANT.Config(beta=0.5, weight_model_name="bertscore",
                                  weight_model_config=cfg))
tok = scorer.weight_model.scorer._tokenizer
if not hasattr(tok, "build_inputs_with_special_tokens"):
    # bert-score encodes an empty sentence with this method, gone in transformers 5: give it
    # back what transformers 4 returned ([CLS] [SEP]) so that gec-metrics can run at all
    type(tok).build_inputs_with_special_tokens = (
        lambda self, ids, ids2=None: [self.cls_token_id, *ids, self.sep_token_id])
out = {"load": [time.perf_counter() - t0, time.process_time() - c0], "systems": {}}
for name, hyp in PAYLOAD["systems"].items():
    t0, c0 = time.perf_counter(), time.process_time()
    # score_base once (it runs ERRANT and BERTScore); corpus and sentence scores from it,
    # aggregated by gec-metrics' own score_corpus_verbose / score_sentence
    base = scorer.score_base(PAYLOAD["src"], hyp, PAYLOAD["refs"])
    scorer.score_base = lambda *a, _b=base: _b
    v = scorer.score_corpus_verbose(PAYLOAD["src"], hyp, PAYLOAD["refs"])
    sents = scorer.score_sentence(PAYLOAD["src"], hyp, PAYLOAD["refs"])
    del scorer.score_base
    out["systems"][name] = {"TP": v.tp, "FP": v.fp, "FN": v.fn, "F": v.f, "sentences": sents,
                            "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
print(json.dumps(out))
"""


#: The official PT-M2 (a checkout of pygongnlp/PT-M2, run in the gec-metrics venv, which has
#: bert-score and errant): its ``compute_sentm2`` and ``compute_m2`` with the same encoder.
#: bert-score knows no layer and no baseline for a local path: the layer is given, and no
#: rescaling is used (a baseline divides every weight by the same 1 - b: no effect on F).
OFFICIAL_PTM2 = r"""
import os, pathlib, tempfile, time
repo = PAYLOAD["repo"]
os.chdir(repo)
sys.path[:0] = [repo, os.path.join(repo, "m2score")]
import torch
torch.set_num_threads(1)
import metrics
from bert_score import BERTScorer
class Args:
    beta, device, model_type = 0.5, "cpu", PAYLOAD["model"]
    scorer = "bertscore"
def plm_scorer(self, corpus=None):
    scorer = BERTScorer(device="cpu", model_type=PAYLOAD["model"], num_layers=PAYLOAD["layer"],
                        lang="en", rescale_with_baseline=False)
    tok = scorer._tokenizer
    if not hasattr(tok, "build_inputs_with_special_tokens"):  # gone in transformers 5
        type(tok).build_inputs_with_special_tokens = (
            lambda self, ids, ids2=None: [self.cls_token_id, *ids, self.sep_token_id])
    return scorer
metrics.PTM2.get_plm_scorer = plm_scorer
m = metrics.PTM2(Args())
tmp = pathlib.Path(tempfile.mkdtemp())
(tmp / "ref.m2").write_text(PAYLOAD["m2"], encoding="utf8")
refs = [{int(k): v for k, v in r.items()} for r in PAYLOAD["refs"]]
out = {}
for name, lines in PAYLOAD["systems"].items():
    hyp = tmp / "hyp.txt"
    hyp.write_text("\n".join(lines) + "\n", encoding="utf8")
    c0 = time.process_time()
    kw = dict(m2_file=str(tmp / "ref.m2"), hyp_file=str(hyp), sources=PAYLOAD["src"],
              references=refs)
    out[name] = {"sentence": m.compute_sentm2(**kw), "corpus": m.compute_m2(**kw),
                 "cpu": time.process_time() - c0}
print(json.dumps(out))
"""


def load_gold() -> Corpus:
    from gecscope.formats.m2 import parse_m2

    path = DATA / "conll14" / "official-2014.combined.m2"
    return parse_m2(path.read_text(encoding="utf-8"), path)


def load(n: int, systems: list[str], seeda: bool) -> tuple[list[str], list[list[str]],
                                                           dict[str, list[str]]]:
    gold = load_gold()
    n = min(n, len(gold))
    src = [" ".join(s) for s in gold.sources[:n]]
    refs = [[" ".join(r) for r in gold.references(k)[:n]] for k in gold.annotators]
    paths = {s: DATA / "conll14" / "submissions" / s for s in systems}
    if seeda:
        for p in sorted((DATA / "seeda" / "outputs" / "all").glob("*.txt")):
            paths[f"seeda:{p.stem}"] = p
    hyps = {name: [" ".join(ln.split()) for ln in p.read_text(encoding="utf-8").splitlines()[:n]]
            for name, p in paths.items()}
    return src, refs, hyps


def compare_official_ptm2(repo: str, model: str, layer: int, gold: Any,
                          hyps: dict[str, list[str]], ours: dict[str, tuple[float, float]]
                          ) -> None:
    """Print gecscope's PT-M2 beside the official code's (sentence and corpus level)."""
    from gec_metrics_ref import run_gec_metrics

    corpus = gold.m2
    text = (DATA / "conll14" / "official-2014.combined.m2").read_text(encoding="utf-8")
    blocks = [b for b in text.split("\n\n") if b.strip()]
    m2 = "\n\n".join(blocks[:len(corpus)]) + "\n\n"  # the file's own first blocks
    refs = [{str(a.annotator): " ".join(s.reference(a.annotator)) for a in s.annotations}
            or {"0": " ".join(s.source)} for s in corpus]
    with Clock() as c:
        theirs = run_gec_metrics(OFFICIAL_PTM2, {
            "repo": str(Path(repo).resolve()), "model": model, "layer": layer, "m2": m2,
            "src": [" ".join(s.source) for s in corpus], "refs": refs, "systems": hyps},
            timeout=36000)
    print(f"official PT-M2 (pygongnlp/PT-M2): {c}")
    print(f"{'system':24s} {'sentence':>9s} {'official':>9s} {'corpus':>9s} {'official':>9s}")
    for name, (s, k) in ours.items():
        r = theirs[name]
        flag = "" if (round(s, 4), round(k, 4)) == (round(r["sentence"], 4),
                                                    round(r["corpus"], 4)) else "  DIFFERENT"
        print(f"{name:24s} {s:9.4f} {r['sentence']:9.4f} {k:9.4f} {r['corpus']:9.4f}{flag}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=1312, help="first N sentences (default all 1,312)")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS))
    ap.add_argument("--seeda", action="store_true", help="add the 15 SEEDA outputs")
    ap.add_argument("--model", default="", help="local encoder directory (default bundled)")
    ap.add_argument("--layer", type=int, default=None, help="encoder layer (default last)")
    ap.add_argument("--no-reference", action="store_true", help="skip gec-metrics")
    ap.add_argument("--ptm2", action="store_true", help="also print gecscope's PT-M2")
    ap.add_argument("--ptm2-official", metavar="DIR",
                    help="a checkout of pygongnlp/PT-M2: compare PT-M2 with it (implies --ptm2)")
    args = ap.parse_args()
    args.ptm2 = args.ptm2 or bool(args.ptm2_official)

    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.bertscore import BERTScorer
    from gecscope.metrics.pt_errant import SCORERS, PTErrantMetric, PTM2Metric

    src, refs, hyps = load(args.n, args.systems, args.seeda)
    print(f"{len(src)} sentences, {len(refs)} references, {len(hyps)} systems")
    with Clock() as c:
        probe = BERTScorer(args.model, args.layer)
        data = EvalData.from_texts(src, refs)
        data.reference_edits()
    layer, path = probe.layer, probe.path
    print(f"encoder {path} layer {layer}; gecscope load + reference edits: {c}")
    metric = PTErrantMetric(model=args.model, layer=layer)
    gold = EvalData.from_m2(Corpus(load_gold().sentences[:len(src)]))  # PT-M2: the official M2
    gold.put(SCORERS, data.slot(SCORERS, dict))  # the same encoder
    ours: dict[str, Any] = {}
    ptm2: dict[str, tuple[float, float]] = {}
    total = Clock()
    total.wall = total.cpu = 0.0
    for name, lines in hyps.items():
        hyp = Hypothesis.from_texts(lines, name)
        with Clock() as c:
            stats = metric.sentence_stats(data, hyp)
            score = metric.aggregate(stats)
            sents = metric.sentence_values(stats)
        total.wall, total.cpu = total.wall + c.wall, total.cpu + c.cpu
        ours[name] = (score.fields, sents, c)
        extra = ""
        if args.ptm2:
            s = PTM2Metric(model=args.model, layer=layer).score(gold, hyp).value
            k = PTM2Metric(model=args.model, layer=layer, level="corpus").score(gold, hyp).value
            ptm2[name] = (s, k)
            extra = f"  PT-M2 sentence {s:.4f} corpus {k:.4f}"
        print(f"  gecscope {name:22s} F0.5 {score.value:.4f}  ({c}){extra}", flush=True)
    print(f"gecscope total: {total.wall:.2f}s wall, {total.cpu:.2f}s CPU")
    if args.ptm2_official:
        compare_official_ptm2(args.ptm2_official, path, layer, gold, hyps, ptm2)
    if args.no_reference:
        return

    from gec_metrics_ref import run_gec_metrics

    with Clock() as c:
        theirs = run_gec_metrics(REFERENCE, {"model": path, "layer": layer, "src": src,
                                             "refs": refs, "systems": hyps}, timeout=36000)
    wall_sum = sum(r["wall"] for r in theirs["systems"].values())
    cpu_sum = sum(r["cpu"] for r in theirs["systems"].values())
    print(f"gec-metrics 0.1.1 total: {wall_sum:.2f}s wall, {cpu_sum:.2f}s CPU scoring "
          f"(whole run incl. loading: {c})")
    print(f"{'system':24s} {'gecscope':>9s} {'gec-metrics':>11s} {'max sent diff':>13s} "
          f"{'gecscope s':>10s} {'gec-m. s':>9s}")
    agree = True
    for name, (fields, sents, clock) in ours.items():
        r = theirs["systems"][name]
        diff = max((abs(a - b) for a, b in zip(sents, r["sentences"], strict=True)), default=0.0)
        same = round(fields["F0.5"], 4) == round(r["F"], 4) and diff < 5e-5 and all(
            abs(fields[k] - r[k]) < 1e-3 for k in ("TP", "FP", "FN"))
        agree &= same
        print(f"{name:24s} {fields['F0.5']:9.4f} {r['F']:11.4f} {diff:13.2e} "
              f"{clock.cpu:10.2f} {r['cpu']:9.2f}{'' if same else '  DIFFERENT'}")
    print("all equal to 4 decimals (corpus F0.5, sentence scores, TP/FP/FN weights):", agree)


if __name__ == "__main__":
    main()

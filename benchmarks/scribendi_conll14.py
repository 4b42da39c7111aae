"""Scribendi on the CoNLL-2014 systems: equality with gec-metrics 0.1.1, and speed.

No GPT-2 checkpoint can be downloaded here, so a random one is built with a fixed seed
(``tests/learned_gpt2.py``: a byte-level BPE trained on the CoNLL-2014 sources and system
outputs; ``--size tiny``: 2 layers of width 32, the test model; ``--size base``: GPT-2 small's
shape, 12 layers of width 768, for a realistic CPU speed). gecscope scores the systems
(13 x 1,312 sentences by default); gec-metrics 0.1.1 (its own venv, ``tests/gec_metrics_ref.py``)
scores the same inputs with the same checkpoint and thread count; the script prints CPU seconds
beside wall time for both and whether every perplexity (as floats, bit for bit), sentence
score and corpus score is equal. gecscope runs with its defaults (gec-metrics' handling of
an empty sentence); the last column gives the score with ``fix_empty_sentences=true`` from the
same perplexities, which differs only where a source or hypothesis is empty (NaN perplexity).

    python benchmarks/scribendi_conll14.py [--size tiny|base] [-n 1312] [--threads 1]
                                           [--systems AMU CAMB ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _clock import Clock
from gec_metrics_ref import SUBMODULES_ONLY

DEFAULT_DIR = ROOT.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")

REFERENCE = SUBMODULES_ONLY + """
import time
import torch
torch.set_num_threads(PAYLOAD["threads"])
from gec_metrics.metrics.scribendi import Scribendi


class Recording(Scribendi):
    def ppl(self, sents):
        out = super().ppl(sents)
        self.calls.append(out)
        return out


m = Recording(Scribendi.Config(model=PAYLOAD["model"], no_cuda=True,
                               batch_size=PAYLOAD["batch_size"]))
out = {"sentence": {}, "ppl": {}, "seconds": 0.0}
for name, hyp in PAYLOAD["systems"].items():
    m.calls = []
    t = time.perf_counter()
    out["sentence"][name] = m.score_sentence(PAYLOAD["src"], hyp)
    out["seconds"] += time.perf_counter() - t
    out["ppl"][name] = m.calls
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR,
                        help="the conll14 folder of the shared data (default: %(default)s)")
    parser.add_argument("--size", choices=("tiny", "base"), default="tiny")
    parser.add_argument("-n", type=int, default=1312, help="first N sentences (default: all)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS))
    args = parser.parse_args(argv)
    m2 = args.data / "official-2014.combined.m2"
    if not m2.is_file():
        print(f"data not found: {m2}", file=sys.stderr)
        return 1

    from gec_metrics_ref import run_gec_metrics
    from learned_gpt2 import build_tiny_gpt2

    from gecscope.data import EvalData, Hypothesis
    from gecscope.metrics.learned.scribendi import ScribendiMetric, sentence_score

    full = EvalData((str(m2),))
    src = [" ".join(t) for t in full.sources[:args.n]]
    hyps = {s: [" ".join(t) for t in Hypothesis.from_file(args.data / "submissions" / s,
                                                          s).tokens[:args.n]]
            for s in args.systems}
    data = EvalData.from_texts(src)
    with tempfile.TemporaryDirectory() as tmp:
        texts = src + [h for hs in hyps.values() for h in hs]
        with Clock() as build:
            if args.size == "tiny":
                model = build_tiny_gpt2(Path(tmp) / "gpt2-tiny", texts)
            else:
                model = build_tiny_gpt2(Path(tmp) / "gpt2-base", texts, vocab_size=8000,
                                        n_embd=768, n_layer=12, n_head=12,
                                        initializer_range=0.02)
        print(f"built the {args.size} random GPT-2: {build}")

        metric = ScribendiMetric(model=str(model), threads=args.threads,
                                 batch_size=args.batch_size)
        ours = {}
        with Clock() as clock:
            for s, h in hyps.items():
                ours[s] = metric.evaluate(data, Hypothesis.from_texts(h, s)).stats
        with Clock() as ref_clock:
            ref = run_gec_metrics(REFERENCE, {"model": str(model), "src": src, "systems": hyps,
                                              "threads": args.threads,
                                              "batch_size": args.batch_size}, timeout=86400)

    all_equal = True
    print("| system | gecscope | gec-metrics | accepted | unchanged | rejected | equal "
          "| gecscope fix_empty_sentences |")
    print("|---|---|---|---|---|---|---|---|")
    for s, hyp_texts in hyps.items():
        stats = ours[s]
        scores = [x.score for x in stats]
        changed = [x for x in stats if x.ppl_source is not None]
        calls = ref["ppl"][s]
        ppl_equal = (json.dumps([x.ppl_source for x in changed]) == json.dumps(calls[0])
                     and json.dumps([x.ppl_hypothesis for x in changed]) == json.dumps(calls[1])
                     ) if calls else not changed
        equal = scores == ref["sentence"][s] and ppl_equal
        all_equal &= equal
        default = [0 if x.ppl_source is None or x.ppl_hypothesis is None else
                   sentence_score(a, b, x.ppl_source, x.ppl_hypothesis, metric.config.threshold
                                  ).score
                   for a, b, x in zip(src, hyp_texts, stats, strict=True)]
        print(f"| {s} | {sum(scores)} | {sum(ref['sentence'][s])} | {scores.count(1)} | "
              f"{scores.count(0)} | {scores.count(-1)} | {'yes' if equal else 'NO'} | "
              f"{sum(default)} |")
    n = len(src) * len(hyps)
    print(f"gecscope: {n} sentence pairs, {clock} ({clock.wall / len(hyps):.2f}s wall per "
          f"system); gec-metrics: {ref['seconds']:.2f}s wall scoring, {ref_clock} with its "
          "start-up (CPU = the child process)")
    print("every perplexity, sentence score and corpus score equal:",
          "yes" if all_equal else "NO")
    return 0 if all_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())

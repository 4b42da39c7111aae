"""Cost of edit attribution on CoNLL-2014: exact Shapley values for the 13 submissions under
GLEU and GREEN, a SOME-size model on a sample, and the exact/sampling cut-off they suggest.

    python benchmarks/attribution_conll14.py [--data ../shared/data/conll14] [--cap 14]
        [--model-sample 20] [--no-model] [--jobs 1]

The systems' edits are the ERRANT M2 files of ``conll14/errant/`` (the same outputs annotated
with ERRANT, so no parser runs here; ``gecscope explain`` extracts them from the text with the
same ERRANT). For each system and metric, :func:`gecscope.explain.attribute` computes exact
Shapley values of every sentence with up to ``--cap`` edits (2^n sentences scored each) and
sampled ones (``SAMPLES`` orders) beyond; the script prints wall and CPU seconds, the
sentences scored and the cost per scored sentence. The model part builds three randomly
initialised BERT-base-size regressors (hidden 768, 12 layers: the size of SOME's
``gfm-models``, whose weights are not available offline; the cost of a forward pass does not
depend on the weights) and attributes SOME's score on the first ``--model-sample`` AMU
sentences that have edits. Last, per number of edits n, the sentences exact Shapley scores
(2^n) beside those ``SAMPLES`` sampled orders score (the distinct prefixes), which is where
:data:`gecscope.explain.MAX_EXACT` comes from (docs/explain.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from _clock import Clock

from gecscope.data import EvalData, Hypothesis
from gecscope.explain import MAX_EXACT, SAMPLES, attribute
from gecscope.explain.attribution import _orders, hypothesis_edits
from gecscope.metrics.gleu import GLEUMetric
from gecscope.metrics.green import GREENMetric

DEFAULT = HERE.parent.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")


def variants(n: int, cap: int) -> int:
    """Sentences scored for a sentence with ``n`` edits (source and hypothesis included):
    2^n when exact, else the distinct prefixes of the sampled orders plus the source."""
    if n == 0:
        return 1
    if n <= cap:
        return 1 << n
    found = set()
    for order in _orders(n, SAMPLES, random.Random(f"0:{n}")):
        mask = 0
        for i in order:
            mask |= 1 << i
            found.add(mask)
    return len(found) + 1


def some_size_models(root: Path, texts: list[str]) -> dict[str, str]:
    """Three random BERT-base-size regressors with a tokenizer (SOME's g, f and m)."""
    import torch
    from learned_models import build_vocab, write_tokenizer
    from transformers import BertConfig, BertForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # save_pretrained's "Writing model shards" bar
    vocab = build_vocab(texts, max_words=20000)
    out = {}
    for k, name in enumerate(("model_g", "model_f", "model_m")):
        torch.manual_seed(k)
        config = BertConfig(vocab_size=len(vocab), hidden_size=768, num_hidden_layers=12,
                            num_attention_heads=12, intermediate_size=3072, num_labels=1)
        path = root / name
        BertForSequenceClassification(config).eval().save_pretrained(str(path))
        write_tokenizer(path, vocab)
        out[name] = str(path)
    return out


def row(label: str, clock: Clock, scored: int, extra: str = "") -> str:
    per = clock.cpu / scored * 1e6 if scored else 0.0
    return (f"| {label} | {clock.wall:.1f} | {clock.cpu:.1f} | {scored:,} | {per:,.0f} |"
            f"{extra}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    ap.add_argument("--cap", type=int, default=14,
                    help="exact Shapley up to this many edits (default 14: every CoNLL-2014 "
                         "sentence but the few longest)")
    ap.add_argument("--model-sample", type=int, default=20,
                    help="AMU sentences with edits attributed under the SOME-size model")
    ap.add_argument("--no-model", action="store_true", help="skip the model part")
    ap.add_argument("--no-ngram", action="store_true", help="skip GLEU and GREEN")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = ap.parse_args()

    data = EvalData.from_files(args.data / "official-2014.combined.m2")
    hyps = {name: Hypothesis.from_file(args.data / "errant" / f"{name}.m2", name,
                                       expected=len(data)) for name in SYSTEMS}
    counts = {name: [len(e) for e in hypothesis_edits(data, h)] for name, h in hyps.items()}
    histogram = Counter(n for c in counts.values() for n in c)
    total = sum(histogram.values())
    print(f"CoNLL-2014: {len(SYSTEMS)} systems x {len(data):,} sentences; edits per sentence:")
    print("\n| edits | sentences | share | scored for exact Shapley |")
    print("|---:|---:|---:|---:|")
    for n in sorted(histogram):
        print(f"| {n} | {histogram[n]:,} | {histogram[n] / total:.2%} | {1 << n:,} |")

    print(f"\nExact Shapley up to {args.cap} edits, {SAMPLES} sampled orders beyond "
          f"(--jobs {args.jobs}):\n")
    print("| metric, systems | wall s | CPU s | sentences scored | CPU us per scored |")
    print("|---|---:|---:|---:|---:|")
    for metric in () if args.no_ngram else (GLEUMetric(), GREENMetric()):
        scored = sum(variants(n, args.cap) for c in counts.values() for n in c)
        with Clock() as clock:
            for hyp in hyps.values():
                attribute(metric, data, hyp, "shapley", max_exact=args.cap, jobs=args.jobs)
        print(row(f"{metric.name}, all 13", clock, scored))
    worst = max((n, name, i) for name, c in counts.items() for i, n in enumerate(c))
    print(f"\nThe sentence with the most edits: {worst[1]} sentence {worst[2] + 1}, {worst[0]} "
          f"edits (2^{worst[0]} = {1 << worst[0]:,} sentences exact).")

    if not args.no_model:
        from gecscope.metrics.learned.some import SOMEMetric

        hyp = hyps["AMU"]
        picked = [i for i, n in enumerate(counts["AMU"]) if n][:args.model_sample]
        texts = [" ".join(t) for t in data.sources] + [" ".join(t) for t in hyp.tokens]
        with tempfile.TemporaryDirectory(prefix="some-size-") as root:
            models = some_size_models(Path(root), texts)
            metric = SOMEMetric(**models)
            edits = [counts["AMU"][i] for i in picked]
            scored = sum(variants(n, args.cap) for n in edits)
            with Clock() as clock:
                attribute(metric, data, hyp, "shapley", sentences=picked, jobs=args.jobs)
            print(f"\nSOME-size model (3 x random BERT-base, CPU), {len(picked)} AMU sentences "
                  f"with {min(edits)}-{max(edits)} edits ({sum(edits)} edits):\n")
            print("| metric, sample | wall s | CPU s | sentences scored | CPU us per scored |")
            print("|---|---:|---:|---:|---:|")
            print(row("some (BERT-base size)", clock, scored))

    print(f"\nSentences scored per sentence with n edits: exact 2^n, or {SAMPLES} sampled "
          "orders (distinct prefixes + source):\n")
    print("| n | exact | sampled | exact / sampled |")
    print("|---:|---:|---:|---:|")
    for n in range(1, 17):
        exact, sampled = 1 << n, variants(n, 0)
        print(f"| {n} | {exact:,} | {sampled:,} | {exact / sampled:.2f} |")
    print(f"\n(gecscope.explain.MAX_EXACT = {MAX_EXACT})")


if __name__ == "__main__":
    main()

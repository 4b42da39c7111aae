"""SOME and IMPARA on every CoNLL-2014 system: equality with gec-metrics 0.1.1, and speed.

The official checkpoints cannot be downloaded here, so random BERT checkpoints are built with
fixed seeds (``tests/learned_models.py``; ``--size tiny``: hidden 32, 2 layers, the test
models; ``--size base``: BERT-base's shape, hidden 768, 12 layers, for a realistic CPU
speed). gecscope scores the 13 submissions x 1,312 sentences; gec-metrics 0.1.1 (its own venv,
``tests/gec_metrics_ref.py``) scores the same inputs with the same checkpoints; the script
prints CPU seconds beside wall time for both and whether every sentence and corpus score is
equal to 1e-6. IMPARA's threshold is set between two neighbouring similarities near the
median (``--threshold auto``), so that the gate matters on random models too.

    python benchmarks/learned_some_impara.py [--size tiny|base] [-n 1312] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _clock import Clock
from gec_metrics_ref import SUBMODULES_ONLY

DEFAULT_DIR = ROOT.parent / "shared" / "data" / "conll14" / "submissions"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")

REFERENCE = SUBMODULES_ONLY + """
import time
import torch
torch.nn.Module.cuda = lambda self, *a, **k: self  # SOME.__init__ calls .cuda() regardless
torch.set_num_threads(PAYLOAD["threads"])
from gec_metrics.metrics.impara import IMPARA
from gec_metrics.metrics.some import SOME


def recording(cls):
    \"\"\"The class, keeping the sentence scores its score_corpus computes (one pass).\"\"\"

    class Recording(cls):
        def score_sentence(self, sources, hypotheses):
            self.sentences = super().score_sentence(sources, hypotheses)
            return self.sentences

    return Recording


d, src = PAYLOAD["dirs"], PAYLOAD["src"]
some = recording(SOME)(SOME.Config(model_g=d["model_g"], model_f=d["model_f"],
                                   model_m=d["model_m"], no_cuda=True))
impara = recording(IMPARA)(IMPARA.Config(model_qe=d["model_qe"], model_se=d["model_se"],
                                         no_cuda=True, threshold=PAYLOAD["threshold"]))
out = {"some": {}, "impara": {}, "some_corpus": {}, "impara_corpus": {}, "seconds": {},
       "cpu": {}}
for name, hyp in PAYLOAD["systems"].items():
    for key, m in (("some", some), ("impara", impara)):
        t, c = time.perf_counter(), time.process_time()
        out[key + "_corpus"][name] = m.score_corpus(src, hyp)
        out["seconds"][key] = out["seconds"].get(key, 0.0) + time.perf_counter() - t
        out["cpu"][key] = out["cpu"].get(key, 0.0) + time.process_time() - c
        out[key][name] = m.sentences
print(json.dumps(out))
"""


def build(root: Path, text: list[str], size: str) -> dict[str, str]:
    import learned_models as lmod

    if size == "tiny":
        return {**lmod.build_some_models(root, text), **lmod.build_impara_models(root, text)}
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    vocab = lmod.build_vocab(text, max_words=8000)
    out = {}
    for seed, name in enumerate(("model_g", "model_f", "model_m", "model_qe", "model_se")):
        torch.manual_seed(seed)
        # BERT-base's shape; num_labels goes through **kwargs (no type hint for it)
        config = BertConfig(vocab_size=len(vocab), num_labels=1)  # type: ignore[call-arg]
        model = (BertModel if name == "model_se" else BertForSequenceClassification)(config)
        path = root / name
        model.save_pretrained(str(path))
        lmod.write_tokenizer(path, vocab)
        out[name] = str(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--size", choices=("tiny", "base"), default="tiny")
    parser.add_argument("-n", type=int, default=1312, help="sentences per system")
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--threshold", default="auto")
    parser.add_argument("--no-reference", action="store_true", help="gecscope timing only")
    args = parser.parse_args(argv)
    if not (args.data / "INPUT").is_file():
        print(f"data not found: {args.data}/INPUT", file=sys.stderr)
        return 1
    from gec_metrics_ref import run_gec_metrics
    from learned_models import split_threshold

    from gecscope import EvalData, Hypothesis
    from gecscope.metrics.learned.impara import IMPARAMetric
    from gecscope.metrics.learned.some import SOMEMetric

    def read(name: str) -> list[str]:
        return (args.data / name).read_text(encoding="utf-8").splitlines()[:args.n]

    src = read("INPUT")
    systems = {name: read(name) for name in args.systems}
    tmp = Path(tempfile.mkdtemp(prefix="learned-bench-"))
    with Clock() as c:
        dirs = build(tmp, src + [s for h in systems.values() for s in h], args.size)
    print(f"{args.size} checkpoints built in {c}")
    data = EvalData.from_texts(src)
    hyps = {n: Hypothesis.from_texts(h, n) for n, h in systems.items()}
    common = {"threads": args.threads}
    some = SOMEMetric(**{k: dirs[k] for k in ("model_g", "model_f", "model_m")}, **common)
    impara_opts = {"model_qe": dirs["model_qe"], "model_se": dirs["model_se"], **common}
    if args.threshold == "auto":
        probe = IMPARAMetric(**impara_opts).evaluate(data, hyps[args.systems[0]])
        threshold = split_threshold([s.sim for s in probe.stats])
    else:
        threshold = float(args.threshold)
    impara = IMPARAMetric(**impara_opts, threshold=threshold)
    ours: dict[str, dict[str, tuple[float, list[float]]]] = {"some": {}, "impara": {}}
    for metric in (some, impara):
        with Clock() as c:
            for name, hyp in hyps.items():
                r = metric.evaluate(data, hyp)
                ours[metric.name][name] = (r.score.value, r.sentence_scores or [])
        total = len(hyps) * len(src)
        print(f"gecscope {metric.name}: {len(hyps)} systems x {len(src)} sentences in {c} "
              f"({total / max(c.wall, 1e-9):.0f} sentences/s wall; incl. model loading; distinct "
              "inputs scored once)")
    if args.no_reference:
        return 0
    payload = {"dirs": dirs, "src": src, "systems": systems, "threshold": threshold,
               "threads": args.threads}
    with Clock() as c:
        ref = run_gec_metrics(REFERENCE, payload, timeout=36000)
    print(f"gec-metrics 0.1.1 (both metrics, incl. start-up and model loading): {c}; scoring "
          + ", ".join(f"{k} {ref['seconds'][k]:.2f}s wall, {ref['cpu'][k]:.2f}s CPU"
                      for k in ("some", "impara")))
    ok = True
    for key in ("some", "impara"):
        worst_sent = max(abs(a - b) for n in systems
                         for a, b in zip(ours[key][n][1], ref[key][n], strict=True))
        worst_corpus = max(abs(ours[key][n][0] - ref[key + "_corpus"][n]) for n in systems)
        equal = worst_sent <= 1e-6 and worst_corpus <= 1e-6
        ok &= equal
        extra = ""
        if key == "impara":
            gated = sum(s == 0.0 for n in systems for s in ref["impara"][n])
            extra = f"; threshold {threshold:.6f}, {gated} sentences gated by gec-metrics"
        print(f"{key}: max |difference| sentence {worst_sent:.2e}, corpus {worst_corpus:.2e}: "
              f"{'EQUAL' if equal else 'DIFFERENT'} (1e-6){extra}")
    print("every number equal to gec-metrics:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

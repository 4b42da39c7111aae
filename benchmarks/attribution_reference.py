"""gec-metrics' edit attributors (HEAD 320c830) on a CoNLL-2014 sample: the values pinned in
``tests/regression/test_attribution_gec_metrics.py``, printed again by the reference itself.

    python benchmarks/attribution_reference.py [--data ../shared/data/conll14]
        [--repo /work/.mirror/gotutiyan+gec-metrics/repo] [--write FILE]

gec-metrics added ``analysis/attributor`` (``add``, ``sub``, ``shapley``, ``shapley_sampling``)
after its 0.1.1 release, so the reference venv (``tests/gec_metrics_ref.py``) runs the
repository's HEAD: this script exports it (``git archive``) to a temporary folder and puts its
``src`` first on ``PYTHONPATH``. The sample is the first sentences of CoNLL-2014 where one of a
few systems makes 2 to 5 ERRANT edits (at most :data:`N_ITEMS`). The metrics: GLEU and GREEN
(gec-metrics' defaults; GLEU is gecscope's ``gleu -o variant=corrected``), ERRANT (sentence
F0.5), and SOME, IMPARA and Scribendi on tiny random checkpoints built here with fixed seeds
from the sample's sentences (``tests/learned_models.py``, ``tests/learned_gpt2.py``; the test
builds the same ones).

Two things in gec-metrics have to be worked around to run it at all (the script says how, in
:data:`SCRIPT`): its attributors call ``metric.score_sentence(sources, hypotheses)``, which
reference-based metrics (GLEU, GREEN, ERRANT) do not accept without ``references``, so those
metrics are wrapped to pass the sentence's two references; and ``AttributorShapleySampling``
cannot run (it calls ``self.apply_edits``, which no class defines, and reads
``config.num_samples``, which its ``Config`` lacks). Its sampling regime has two more bugs
(every sampled order is the same list object, shuffled in place, so all orders end up the
last one; edits are applied in the sampled order, which ``gecommon.apply_edits`` does not
support), so only ``add``, ``sub`` and ``shapley`` are compared; gecscope's
``shapley_sampling`` is tested against exact Shapley values instead.

``--write FILE`` stores the inputs and gec-metrics' values as JSON (the test's pinned file);
without it the script prints, per metric and method, the largest difference from gecscope.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from _clock import Clock
from gec_metrics_ref import SUBMODULES_ONLY, run_gec_metrics

DEFAULT = HERE.parent.parent / "shared" / "data" / "conll14"
REPO = Path("/work/.mirror/gotutiyan+gec-metrics/repo")
COMMIT = "320c830"
SYSTEMS = ("AMU", "CAMB", "CUUI", "POST", "UMC")
N_ITEMS = 8
METHODS = ("add", "sub", "shapley")
#: gec-metrics' metric names -> gecscope's metric and options (besides model directories)
METRICS = {"gleu": ("gleu", {"variant": "corrected"}), "green": ("green", {}),
           "errant": ("errant", {}), "some": ("some", {}), "impara": ("impara", {}),
           "scribendi": ("scribendi", {})}

#: gec-metrics' side. PAYLOAD = {"items": [{"src", "hyp", "refs"}], "dirs": {...}}.
SCRIPT = SUBMODULES_ONLY + r"""
import types, importlib
import torch
torch.nn.Module.cuda = lambda self, *a, **k: self  # SOME.__init__ calls .cuda() regardless
torch.set_num_threads(1)
from gec_metrics.metrics import base as _base
sys.modules["gec_metrics.metrics"].MetricBase = _base.MetricBase  # what attributor/base imports
_root = sys.modules["gec_metrics"].__path__[0]
for _name, _sub in (("gec_metrics.analysis", "/analysis"),
                    ("gec_metrics.analysis.attributor", "/analysis/attributor")):
    _pkg = types.ModuleType(_name)
    _pkg.__path__ = [_root + _sub]
    sys.modules[_name] = _pkg
from gec_metrics.analysis.attributor.add import AttributorAdd
from gec_metrics.analysis.attributor.sub import AttributorSub
from gec_metrics.analysis.attributor.shapley import AttributorShapley
from gec_metrics.metrics.gleu import GLEU
from gec_metrics.metrics.green import GREEN
from gec_metrics.metrics.errant import ERRANT
from gec_metrics.metrics.some import SOME
from gec_metrics.metrics.impara import IMPARA
from gec_metrics.metrics.scribendi import Scribendi


def bound(cls, config):
    # the attributors call score_sentence(sources, hypotheses): give the sentence's references
    class Bound(cls):
        refs = None
        def score_sentence(self, sources, hypotheses, references=None):
            if references is None:
                references = [[r] * len(sources) for r in self.refs]
            return super().score_sentence(sources, hypotheses, references)
    return Bound(config)


d = PAYLOAD["dirs"]
metrics = {
    "gleu": bound(GLEU, GLEU.Config()),
    "green": bound(GREEN, GREEN.Config()),
    "errant": bound(ERRANT, ERRANT.Config()),
    "some": SOME(SOME.Config(model_g=d["model_g"], model_f=d["model_f"], model_m=d["model_m"],
                             no_cuda=True)),
    "impara": IMPARA(IMPARA.Config(model_qe=d["model_qe"], model_se=d["model_se"],
                                   no_cuda=True)),
    "scribendi": Scribendi(Scribendi.Config(model=d["gpt2"], no_cuda=True)),
}
classes = {"add": AttributorAdd, "sub": AttributorSub, "shapley": AttributorShapley}
out = {}
for mname, metric in metrics.items():
    for meth, cls in classes.items():
        att = cls(cls.Config(metric=metric))
        rows = []
        for item in PAYLOAD["items"]:
            metric.refs = item["refs"]
            o = att.attribute(src=item["src"], hyp=item["hyp"])
            rows.append({"src_score": o.src_score, "sent_score": o.sent_score,
                         "values": list(o.attribution_scores),
                         "edits": [[e.o_start, e.o_end, e.c_str, e.type] for e in o.edits]})
        out[f"{mname} {meth}"] = rows
print(json.dumps(out))
"""


def sample(data_dir: Path) -> list[dict[str, Any]]:
    """The first CoNLL-2014 (sentence, system) pairs with 2 to 5 ERRANT edits, one per
    sentence, at most :data:`N_ITEMS`; each item with its source, hypothesis and the two
    annotators' corrected sentences (whitespace-normalised strings)."""
    from gecscope.data import EvalData, Hypothesis
    from gecscope.formats.m2 import read_m2

    gold = read_m2(data_dir / "official-2014.combined.m2")
    src = [" ".join(s) for s in gold.sources]
    refs = [[" ".join(r) for r in gold.references(k)] for k in gold.annotators]
    data = EvalData.from_texts(src[:50], [r[:50] for r in refs])
    hyps = {}
    for name in SYSTEMS:
        lines = (data_dir / "submissions" / name).read_text(encoding="utf-8").splitlines()[:50]
        hyps[name] = Hypothesis.from_texts([" ".join(ln.split()) for ln in lines], name)
    edits = {name: data.hypothesis_m2(h) for name, h in hyps.items()}
    items: list[dict[str, Any]] = []
    for i in range(50):
        for name in SYSTEMS:
            ann = edits[name].sentences[i].annotations
            n = len([e for e in ann[0].edits if e.type != "noop"]) if ann else 0
            if 2 <= n <= 5:
                items.append({"system": name, "sentence": i, "src": src[i],
                              "hyp": " ".join(hyps[name].tokens[i]),
                              "refs": [r[i] for r in refs]})
                break
        if len(items) == N_ITEMS:
            break
    return items


def checkpoints(root: Path, items: list[dict[str, Any]]) -> dict[str, str]:
    """SOME's and IMPARA's tiny BERTs and Scribendi's tiny GPT-2, over the sample's words."""
    from learned_gpt2 import build_tiny_gpt2
    from learned_models import build_impara_models, build_some_models

    texts = [s for it in items for s in (it["src"], it["hyp"], *it["refs"])]
    return {**build_some_models(root, texts), **build_impara_models(root, texts),
            "gpt2": str(build_tiny_gpt2(root / "gpt2", texts, seed=3))}


def gecscope_values(items: list[dict[str, Any]], dirs: dict[str, str], name: str,
                    method: str) -> list[Any]:
    """gecscope's attributions of the sample: per item ``(base, delta, values, edits)``."""
    from gecscope.data import EvalData, Hypothesis
    from gecscope.explain import attribute
    from gecscope.registry import get_metric

    metric_name, options = METRICS[name]
    if metric_name == "some":
        options = {k: dirs[k] for k in ("model_g", "model_f", "model_m")}
    elif metric_name == "impara":
        options = {k: dirs[k] for k in ("model_qe", "model_se")}
    elif metric_name == "scribendi":
        options = {"model": dirs["gpt2"]}
    metric = get_metric(metric_name)(**options)
    data = EvalData.from_texts([it["src"] for it in items],
                               [[it["refs"][k] for it in items] for k in range(2)])
    hyp = Hypothesis.from_texts([it["hyp"] for it in items])
    out = []
    for a in attribute(metric, data, hyp, method):
        out.append((a.base, a.delta, [e.value for e in a.edits],
                    [[e.edit.start, e.edit.end, e.edit.correction_str, e.edit.type]
                     for e in a.edits]))
    return out


def run_reference(repo: Path, items: list[dict[str, Any]], dirs: dict[str, str]) -> Any:
    """gec-metrics HEAD's attributions, in the reference venv, with HEAD's ``src`` first."""
    with tempfile.TemporaryDirectory(prefix="gec-metrics-head-") as tmp:
        archive = subprocess.run(["git", f"--git-dir={repo}", "archive", COMMIT],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join([f"{tmp}/src", *([old] if old else [])])
        try:
            return run_gec_metrics(SCRIPT, {"items": items, "dirs": dirs}, timeout=3600)
        finally:
            if old is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = old


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    ap.add_argument("--repo", type=Path, default=REPO, help="gec-metrics' git directory")
    ap.add_argument("--write", type=Path, help="store inputs and reference values as JSON")
    args = ap.parse_args()
    items = sample(args.data)
    with tempfile.TemporaryDirectory(prefix="attribution-ref-") as root:
        dirs = checkpoints(Path(root), items)
        with Clock() as clock:
            theirs = run_reference(args.repo, items, dirs)
        print(f"gec-metrics {COMMIT} attributors on {len(items)} sentences ({clock})")
        if args.write:
            args.write.write_text(json.dumps(
                {"commit": COMMIT, "items": items, "reference": theirs}, indent=1) + "\n",
                encoding="utf-8")
        print("| metric | method | edits equal | max abs difference |")
        print("|---|---|---|---|")
        for key, rows in theirs.items():
            name, method = key.split()
            ours = gecscope_values(items, dirs, name, method)
            same_edits = all(r["edits"] == o[3] for r, o in zip(rows, ours, strict=True))
            diff = max(max([abs(r["src_score"] - o[0]), abs(r["sent_score"] - o[1])]
                           + [abs(x - y) for x, y in zip(r["values"], o[2], strict=True)])
                       for r, o in zip(rows, ours, strict=True))
            print(f"| {name} | {method} | {same_edits} | {diff:.3g} |")


if __name__ == "__main__":
    main()

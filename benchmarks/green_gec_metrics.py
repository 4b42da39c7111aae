"""GREEN of gec-metrics 0.1.1 on the 13 CoNLL-2014 submissions: the numbers pinned in
``tests/regression/test_green_conll14.py``, printed again by the reference itself.

    python benchmarks/green_gec_metrics.py [--data ../shared/data/conll14]

gec-metrics' ``GREEN`` (its ``metrics/green.py``, default options: n = 4, beta = 2, word
n-grams) runs in the reference venv (``tests/gec_metrics_ref.py``; ``bash scripts/setup.sh
--dev`` builds it) on every submission against the corrected sentences of both annotators of
``official-2014.combined.m2``, plus ``unit='char'`` for AMU and AMU's first five sentence
scores. Prints a Markdown table of gec-metrics' value (full precision) beside gecscope's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from _clock import Clock
from gec_metrics_ref import SUBMODULES_ONLY, run_gec_metrics

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.green import GREENMetric

DEFAULT = HERE.parent.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")

#: gec-metrics' side: PAYLOAD = {"src", "refs", "systems": {name: lines}}.
SCRIPT = SUBMODULES_ONLY + r"""
from gec_metrics.metrics.green import GREEN
word, char = GREEN(GREEN.Config()), GREEN(GREEN.Config(unit="char"))
src, refs, out = PAYLOAD["src"], PAYLOAD["refs"], {}
for name, hyp in PAYLOAD["systems"].items():
    out[name] = word.score_corpus(src, hyp, refs)
amu = PAYLOAD["systems"]["AMU"]
out["AMU char"] = char.score_corpus(src, amu, refs)
out["AMU sentences 1-5"] = word.score_sentence(src, amu, refs)[:5]
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    args = ap.parse_args()
    gold = read_m2(args.data / "official-2014.combined.m2")
    src = [" ".join(s) for s in gold.sources]
    refs = [[" ".join(r) for r in gold.references(k)] for k in gold.annotators]
    systems = {name: [" ".join(ln.split()) for ln in (args.data / "submissions" / name)
                      .read_text(encoding="utf-8").splitlines()] for name in SYSTEMS}
    with Clock() as clock:
        theirs = run_gec_metrics(SCRIPT, {"src": src, "refs": refs, "systems": systems})
    data = EvalData.from_texts(src, refs)
    print(f"gec-metrics 0.1.1 GREEN ({clock})\n")
    print("| system | gec-metrics | gecscope |")
    print("|---|---:|---:|")
    for name in SYSTEMS:
        ours = GREENMetric().evaluate(data, Hypothesis.from_texts(systems[name], name))
        print(f"| {name} | {theirs[name]!r} | {ours.score.value!r} |")
        if name == "AMU":
            amu = ours
    char = GREENMetric(unit="char").evaluate(data, Hypothesis.from_texts(systems["AMU"], "AMU"))
    print(f"| AMU, unit=char | {theirs['AMU char']!r} | {char.score.value!r} |")
    print(f"| AMU, sentences 1-5 | {theirs['AMU sentences 1-5']!r} | "
          f"{list(amu.sentence_scores[:5])!r} |")


if __name__ == "__main__":
    main()

"""LLM judges (llm_sent, llm_edit) vs gec-metrics 0.1.1 on all of SEEDA, against one local server.

    python benchmarks/llm_judge_seeda.py [--data ../shared/data] [-n 391] [--singles all|T5,...]

Starts the deterministic chat-completions server of tests/unit/test_llm_judge.py on 127.0.0.1
(each target line of a prompt gets a score 1-5 from its SHA-256), then on the SEEDA subset (the
391 judged CoNLL-2014 sentences, 15 systems) runs, at both levels (sentence, edit):

* every system alone: gec-metrics' ``score_pairwise`` with that one system (one target per
  prompt) against gecscope's metric (``evaluate``);
* all 15 systems together: gec-metrics' ``score_pairwise`` against
  ``LLMJudgeMetric.judge_systems`` (up to five distinct corrections per prompt).

gec-metrics runs in its reference venv (tests/gec_metrics_ref.py), its OpenAI client pointed at
the server. Prints, per run, whether the request bodies are equal one by one (model, messages
with the prompt, response format, seed) and whether the scores (single system: the sentence
scores, against gec-metrics' parsed answers) or the pairwise tables are equal; then the CPU
beside the wall time of each side (the machine is shared; CPU is the steadier figure).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "unit")]

from _clock import Clock
from gec_metrics_ref import run_gec_metrics
from test_llm_judge import GEC_METRICS_SCRIPT, start_server

from gecscope import EvalData, Hypothesis
from gecscope.metrics.llm_judge import LLMEditMetric, LLMSentMetric

DEFAULT = HERE.parent.parent / "shared" / "data"


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the shared data folder")
    ap.add_argument("-n", type=int, default=0, help="first N sentences only (default: all)")
    ap.add_argument("--singles", default="all",
                    help="systems to judge alone: all, none, or names separated by commas")
    args = ap.parse_args()
    folder = args.data / "seeda" / "outputs" / "subset"
    if not (folder / "INPUT.txt").is_file():
        print(f"SEEDA not found under {folder}", file=sys.stderr)
        return 1

    def lines(path: Path) -> list[str]:
        rows = [" ".join(ln.split()) for ln in path.read_text(encoding="utf-8").splitlines()]
        return rows[:args.n] if args.n else rows

    sources = lines(folder / "INPUT.txt")
    systems = {p.stem: lines(p) for p in sorted(folder.glob("*.txt"))}
    names = (list(systems) if args.singles == "all" else [] if args.singles == "none"
             else args.singles.split(","))
    runs: list[list[str]] = [[n] for n in names] + [list(systems)]
    url, handler, httpd = start_server()
    all_equal = True
    try:
        with tempfile.TemporaryDirectory() as tmp:
            with Clock() as theirs_clock:
                ref = run_gec_metrics(GEC_METRICS_SCRIPT, {
                    "url": url, "dir": tmp, "sources": sources,
                    "runs": [[systems[s] for s in run] for run in runs]}, timeout=7200)
            theirs: dict[str, list[Any]] = {}
            for req in handler.requests:
                theirs.setdefault(req["body"]["model"], []).append(req["body"])
            handler.requests.clear()
            data = EvalData.from_texts(sources)
            hyps = {name: Hypothesis.from_texts(t, name) for name, t in systems.items()}
            print(f"SEEDA subset: {len(sources)} sentences, {len(systems)} systems\n")
            print("| level | systems | requests | bodies | scores |")
            print("|---|---|---|---|---|")
            with Clock() as ours_clock:
                for level, cls in (("sent", LLMSentMetric), ("edit", LLMEditMetric)):
                    for k, run in enumerate(runs):
                        model = f"judge-{level}-{k}"
                        metric = cls(base_url=url, model=model, cache_dir=tmp)
                        if len(run) == 1:
                            got = metric.evaluate(data, hyps[run[0]]).sentence_scores
                            want = [float(a["target_score1"]) for a in ref[model]["answers"]]
                            same_scores = got == want
                        else:
                            joint = metric.judge_systems(data, [hyps[s] for s in run])
                            same_scores = joint.pairwise() == ref[model]["pairwise"]
                        ours = [r["body"] for r in handler.requests
                                if r["body"]["model"] == model]
                        same_bodies = ours == theirs.get(model)
                        all_equal &= same_bodies and same_scores
                        label = run[0] if len(run) == 1 else f"all {len(run)} (joint)"
                        print(f"| {level} | {label} | {len(ours)} | "
                              f"{'equal' if same_bodies else 'DIFFERENT'} | "
                              f"{'equal' if same_scores else 'DIFFERENT'} |")
    finally:
        httpd.shutdown()
        httpd.server_close()
    print(f"\ngec-metrics: {theirs_clock}; gecscope: {ours_clock} (same server, both sides "
          "include ERRANT and the HTTP round trips)")
    print("every request body and score equal" if all_equal else "SOME DIFFERENCES")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())

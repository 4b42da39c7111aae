"""Detokenised CoNLL-2014 submissions scored raw and with ``--hyp-tokenise auto``: the table of
docs/raw-text.md.

    python benchmarks/detok_conll14.py [--data ../shared/data/conll14] [--systems AMU,CAMB]
                                       [--metrics m2,errant,gleu] [--jobs N]

Each of the 13 official CoNLL-2014 outputs (tokenised as the test set, NUCLE's tokens) is
detokenised with sacremoses' Moses detokeniser (``sacremoses==0.1.1``, pinned in the dev
dependencies: another version may detokenise differently), as running text from an LLM would
look, and scored three ways against the official references: the tokenised original, the
detokenised text as it is (``hyp_tokenise="none"``) and the detokenised text re-tokenised by
``hyp_tokenise="auto"``. M2 and GLEU use ``official-2014.combined.m2``, ERRANT the ERRANT-typed
``errant/references.m2`` (the same sentences and tokens). The last columns are auto minus
tokenised (target: within 0.005 of F0.5 for every system) and the lines whose tokens differ
from the original after auto; a second table compares auto with the tokenised original
re-tokenised as NUCLE (``hyp_tokenise="nltk"``), which takes out a system's own departures
from NUCLE's tokens (RAC writes ``cannot`` where NUCLE has ``can not``). Markdown tables;
wall and CPU seconds are printed per system.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _clock import Clock

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")
SACREMOSES = "0.1.1"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated systems")
    ap.add_argument("--metrics", default="m2,errant,gleu", help="comma-separated metrics")
    ap.add_argument("--jobs", type=int, default=1, help="processes for ERRANT (0: every core)")
    args = ap.parse_args()
    try:
        import sacremoses
        from sacremoses import MosesDetokenizer
    except ImportError:
        sys.exit("sacremoses is not installed: pip install sacremoses==" + SACREMOSES)
    if sacremoses.__version__ != SACREMOSES:
        print(f"note: sacremoses {sacremoses.__version__}, not {SACREMOSES}: the detokenised "
              "text (and so the numbers) may differ from docs/raw-text.md", file=sys.stderr)
    import gecscope
    from gecscope import EvalData, Hypothesis
    from gecscope.errors import InputWarning
    from gecscope.gate.retokenise import retokenise

    official = EvalData.from_files(args.data / "official-2014.combined.m2")
    errant_refs = EvalData.from_files(args.data / "errant" / "references.m2")
    detok = MosesDetokenizer(lang="en")
    metrics = args.metrics.split(",")
    label = {"m2": "M2", "errant": "ERRANT", "gleu": "GLEU"}
    print(f"gecscope {gecscope.__version__}, sacremoses {sacremoses.__version__}\n")
    print("| system | " + " | ".join(f"{label.get(m, m)} tokenised | detok. | detok. + auto | "
                                     "auto - tok." for m in metrics) + " | lines | time |")
    print("|---" * (2 + 4 * len(metrics)) + "|---|")
    worst: dict[str, tuple[float, str]] = {}
    own: list[str] = []
    total = Clock().__enter__()
    for name in args.systems.split(","):
        with Clock() as clock:
            tokenised = Hypothesis.from_file(args.data / "submissions" / name, name)
            raw = Hypothesis.from_texts([detok.detokenize(list(t)) for t in tokenised.tokens],
                                        name)
            auto, _ = retokenise(official, raw, "auto")  # what evaluate() scores with auto
            differ = sum(1 for a, b in zip(auto.tokens, tokenised.tokens, strict=True) if a != b)
            cells, gaps = [], []
            for metric in metrics:
                data = errant_refs if metric == "errant" else official
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", InputWarning)
                    t, r, a, n = (gecscope.evaluate(metric, data, h, hyp_tokenise=mode,
                                                    jobs=args.jobs)[0].score.value
                                  for h, mode in ((tokenised, "none"), (raw, "none"),
                                                  (raw, "auto"), (tokenised, "nltk")))
                cells += [f"{t:.4f}", f"{r:.4f}", f"{a:.4f}", f"{a - t:+.4f}"]
                gaps.append(f"{a - n:+.4f}")
                if abs(a - t) > worst.get(metric, (-1.0, ""))[0]:
                    worst[metric] = (abs(a - t), name)
        print(f"| {name} | " + " | ".join(cells)
              + f" | {differ} | {clock.wall:.0f}s wall, {clock.cpu:.0f}s CPU |", flush=True)
        own.append(f"| {name} | " + " | ".join(gaps) + " |")
    total.__exit__(None, None, None)
    print("\nauto - the tokenised original re-tokenised as NUCLE (--hyp-tokenise nltk): what is "
          "left once a system's own departures from NUCLE's tokens are taken out\n")
    print("| system | " + " | ".join(label.get(m, m) for m in metrics) + " |")
    print("|---" * (1 + len(metrics)) + "|")
    print("\n".join(own))
    print()
    for metric, (gap, name) in worst.items():
        print(f"worst {label.get(metric, metric)}: {name}, |auto - tokenised| = {gap:.4f}")
    print(f"total: {total}")

if __name__ == "__main__":
    main()

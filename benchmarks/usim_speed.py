"""Speed of USIM for one 25-token sentence pair, given parsed graphs.

Parses one learner sentence and its correction (25 tokens each) with the approximate spaCy
backend when available (else builds the same flat structure by hand), then times:

* ``usim_graphs``: alignment + scoring of two prepared graphs (the per-pair cost in the metric);
* ``usim``: the functional API from two passages (graph preparation included).

Usage: ``python benchmarks/usim_speed.py [repeats]``. Prints milliseconds per pair, wall
and CPU.
"""

from __future__ import annotations

import sys
import time

from gecscope.metrics.usim import usim
from gecscope.metrics.usim.core import USimGraph, USimOptions, usim_graphs
from gecscope.semantics.ucca import Passage


def _words(text: str) -> list[str]:
    return text.split(" ")


SOURCE = _words("In my opinion , the carrier should tells his relatives about it because they "
                "have right to knew the genetic risk of there family .")
CORRECTION = _words("In my opinion the carrier should tell his relatives about it because they "
                    "have the right to know the genetic risk of their family .")


def _flat(tokens: list[str], pid: str) -> Passage:
    p = Passage.from_tokens(pid, tokens, [t in ",." for t in tokens])
    scene = p.add_unit("1.1", "H")
    for i, tok in enumerate(tokens, 1):
        if tok in ",.":
            u = p.add_unit(scene, "U", unit_type="PNCT")
        else:
            u = p.add_unit(scene, "A" if i % 3 else "P")
        p.add_terminal(u, i)
    return p


def passages() -> tuple[Passage, Passage, str]:
    try:
        from gecscope.semantics.parser import get_parser

        src, cor = get_parser("approx-spacy").parse([SOURCE, CORRECTION])
        return src, cor, "approx-spacy parse"
    except Exception as exc:  # noqa: BLE001 - fall back when spaCy is absent
        print(f"(spaCy backend unavailable: {exc}; using a hand-built structure)")
        return _flat(SOURCE, "s"), _flat(CORRECTION, "c"), "hand-built"


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    src, cor, how = passages()
    try:
        import rapidfuzz  # noqa: F401

        lev = "rapidfuzz"
    except ImportError:
        lev = "pure Python"
    print(f"pair: {len(SOURCE)} / {len(CORRECTION)} tokens ({how}); edit distance: {lev}")
    for weight in ("paper", "f1"):
        opts = USimOptions(node_weight=weight)
        labels: dict[str, int] = {}
        gs, gc = USimGraph(src, opts, labels), USimGraph(cor, opts, labels)
        usim_graphs(gs, gc, opts)
        t, c = time.perf_counter(), time.process_time()
        for _ in range(repeats):
            r = usim_graphs(gs, gc, opts)
        per = (time.perf_counter() - t) / repeats * 1000
        per_cpu = (time.process_time() - c) / repeats * 1000
        t, c = time.perf_counter(), time.process_time()
        for _ in range(repeats // 4):
            usim(src, cor, opts)
        per_full = (time.perf_counter() - t) / (repeats // 4) * 1000
        per_full_cpu = (time.process_time() - c) / (repeats // 4) * 1000
        print(f"node_weight={weight}: usim_graphs {per:.3f} ms/pair ({per_cpu:.3f} ms CPU); "
              f"usim() from passages {per_full:.3f} ms/pair ({per_full_cpu:.3f} ms CPU); "
              f"USIM avg {r.average:.4f}")


if __name__ == "__main__":
    main()

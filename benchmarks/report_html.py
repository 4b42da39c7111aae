#!/usr/bin/env python
"""What ``gecscope compare --html`` adds to a comparison (CoNLL-2014).

Runs ``gecscope compare`` in a child process with and without ``--html`` for each metric
(default m2 and errant) on the first K CoNLL-2014 outputs (plain text, default 4) against the
official NUCLE-typed gold, and prints wall and CPU seconds (children included) of each run and
the report's extra cost. The HTML report shows every system's edits: with errant they are the
scoring's (extracted once, before scoring), with m2 (which needs none) they are extracted for
the report; the NUCLE-typed gold is re-typed with ERRANT for the per-type tables in both.

    python benchmarks/report_html.py [--data ../shared/data] [--systems K]
        [--metrics m2 errant] [--gold official|errant] [--jobs N] [--bootstrap N]

``--gold errant`` uses the ERRANT-typed references (nothing to re-type).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

GOLD = {"official": "official-2014.combined.m2", "errant": "errant/references.m2"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--systems", type=int, default=4, help="the first K outputs (default 4)")
    ap.add_argument("--metrics", nargs="+", default=["m2", "errant"])
    ap.add_argument("--gold", choices=sorted(GOLD), default="official")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    conll = Path(args.data) / "conll14"
    hyps = sorted(str(p) for p in (conll / "submissions").iterdir())[:args.systems]
    gold = conll / GOLD[args.gold]
    print(f"CoNLL-2014: {len(hyps)} systems ({', '.join(Path(h).name for h in hyps)}), "
          f"gold {GOLD[args.gold]}, --jobs {args.jobs}, --bootstrap {args.bootstrap}")
    print("| metric | compare | compare --html | extra |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for metric in args.metrics:
            clocks = []
            for html in (False, True):
                argv = [sys.executable, "-m", "gecscope", "compare", "-m", metric, "-r",
                        str(gold), "--hyp", *hyps, "-q", "--jobs", str(args.jobs),
                        "--bootstrap", str(args.bootstrap)]
                if html:
                    argv += ["--html", str(Path(tmp) / f"{metric}.html")]
                with Clock() as c:
                    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
                clocks.append(c)
            plain, full = clocks
            print(f"| {metric} | {plain} | {full} | {full.wall - plain.wall:+.2f}s wall, "
                  f"{full.cpu - plain.cpu:+.2f}s CPU |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

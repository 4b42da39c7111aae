#!/usr/bin/env python
"""The whole CoNLL-2014 evaluation with 1 and N processes (``gecscope evaluate --jobs``).

All 13 outputs of CoNLL-2014 (the 12 teams and INPUT) scored with errant, m2, gleu, imeasure,
cleme and cleme2 against the official two-annotator M2, as ``gecscope evaluate`` in a child
process per ``--jobs`` value. Prints wall and CPU seconds (children included), the speed-up,
and checks that the JSON reports are identical.

    python benchmarks/evaluate_jobs.py [--data ../shared/data] [--jobs 1 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

METRICS = ("errant", "m2", "gleu", "imeasure", "cleme", "cleme2")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--metrics", nargs="+", default=list(METRICS))
    args = ap.parse_args()
    conll = Path(args.data) / "conll14"
    hyps = sorted(str(p) for p in (conll / "submissions").iterdir())
    reports = {}
    walls = {}
    print(f"CoNLL-2014: {len(hyps)} systems x {len(args.metrics)} metrics "
          f"({', '.join(args.metrics)})")
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in args.jobs:
            out = Path(tmp) / f"jobs{jobs}.json"
            argv = [sys.executable, "-m", "gecscope", "evaluate", "-r",
                    str(conll / "official-2014.combined.m2"), "--hyp", *hyps, "-q",
                    "--jobs", str(jobs), "--json-out", str(out)]
            for m in args.metrics:
                argv += ["-m", m]
            with Clock() as c:
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            report = json.loads(out.read_text(encoding="utf-8"))
            report.pop("created", None)
            reports[jobs] = report
            walls[jobs] = c.wall
            print(f"--jobs {jobs}: {c}")
    base = args.jobs[0]
    for jobs in args.jobs[1:]:
        same = reports[jobs] == reports[base]
        print(f"--jobs {jobs} vs {base}: speed-up {walls[base] / walls[jobs]:.2f}x (wall), "
              f"reports {'identical' if same else 'DIFFER'}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

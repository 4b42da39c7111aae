#!/usr/bin/env python
"""Time and peak memory of every metric on degenerate hypothesis lines (issue #20's table).

The 12-sentence demo set with one hypothesis line replaced by a runaway output: ``the a ,``
repeated to 501 tokens, a real sentence repeated to 500 tokens, 2,000 tokens, 100,000 and
1,000,000 tokens. Each (case, metric) runs ``gecscope evaluate --max-tokens 0`` in its own
process (the guard off, to measure the metric itself) with a time limit; the script prints
wall and CPU seconds and the child's peak resident memory, or "limit" when it was stopped.
The unchanged demo is measured first (the start-up: Python, spaCy, the parser's encoder),
and the 1,000,000-token case once more with the default guard (``--max-tokens 1000``), which
ends at once with exit 65.

    python benchmarks/degenerate_inputs.py [--limit 60] [--metrics m2 errant ...] [--cases ...]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "src" / "gecscope" / "data" / "demo"
METRICS = ("m2", "errant", "gleu", "imeasure", "cleme", "cleme2", "usim")
REAL = "I has went to the shop yesterday and buyed two apple ."


def cases() -> dict[str, str]:
    real = REAL.split()
    return {
        "501 x 'the a ,'": " ".join(["the", "a", ","] * 167),
        "500 real": " ".join((real * 50)[:500]),
        "2,000": " ".join(["the", "a", ","] * 667),
        "100,000": " ".join(["the", "a", ","] * 33_334),
        "1,000,000": " ".join(["the", "a", ","] * 333_334),
    }


# the child reports its own peak resident memory when it finishes
CHILD = ("import resource, sys\nfrom gecscope.cli.main import main\nrc = main(sys.argv[1:])\n"
         "sys.stderr.write('\\nMAXRSS %d\\n' % resource.getrusage(resource.RUSAGE_SELF)"
         ".ru_maxrss)\nsys.exit(rc)\n")


def run(metric: str, hyp: Path, limit: float, max_tokens: int = 0
        ) -> tuple[str, float, float, str]:
    """(status, wall s, CPU s, peak MB or "-") of one evaluation in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = [sys.executable, "-c", CHILD, "evaluate", "-m", metric, "--max-tokens",
            str(max_tokens), "-q", "--jobs", "1", "--hyp", str(hyp)]
    argv += (["--source", str(DEMO / "source.txt")] if metric == "usim"
             else ["-r", str(DEMO / "references.m2")])
    t0 = time.perf_counter()
    peak = "-"
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=limit, check=False, text=True)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
        for line in proc.stderr.splitlines():
            if line.startswith("MAXRSS "):
                peak = f"{int(line.split()[1]) / 1024:.0f}"  # KB on Linux
    except subprocess.TimeoutExpired:
        status = "limit"
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return status, wall, cpu, peak


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--metrics", nargs="+", default=list(METRICS))
    ap.add_argument("--cases", nargs="+", help="case names (default: all)")
    args = ap.parse_args()
    lines = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    print("| case | metric | status | wall s | CPU s | CPU s above start-up | peak MB |")
    print("|---|---|---|---:|---:|---:|---:|")
    start: dict[str, float] = {}
    for metric in args.metrics:  # the unchanged demo: starting Python and loading models
        status, wall, cpu, peak = run(metric, DEMO / "careful.txt", args.limit)
        start[metric] = cpu
        print(f"| unchanged demo | {metric} | {status} | {wall:.1f} | {cpu:.1f} | 0.0 | {peak} |",
              flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        hyp = Path(tmp) / "hyp.txt"
        for name, line in cases().items():
            if args.cases and name not in args.cases:
                continue
            hyp.write_text("\n".join([*lines[:4], line, *lines[5:]]) + "\n", encoding="utf-8")
            for metric in args.metrics:
                status, wall, cpu, peak = run(metric, hyp, args.limit)
                print(f"| {name} | {metric} | {status} | {wall:.1f} | {cpu:.1f} | "
                      f"{cpu - start[metric]:.1f} | {peak} |", flush=True)
        # the default guard (--max-tokens 1000) on the longest case: exit 65 at once
        big = cases()["1,000,000"]
        hyp.write_text("\n".join([*lines[:4], big, *lines[5:]]) + "\n", encoding="utf-8")
        for metric in args.metrics:
            status, wall, cpu, peak = run(metric, hyp, args.limit, max_tokens=1000)
            print(f"| 1,000,000, default guard | {metric} | {status} | {wall:.1f} | {cpu:.1f} | "
                  f"{cpu - start[metric]:.1f} | {peak} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Peak memory and throughput of ``gecscope annotate`` as the corpus grows (streaming).

Builds corpora of N distinct sentence pairs from the shared data (CoNLL-2014 INPUT with AMU,
CAMB and CUUI, JFLEG dev and test with their references; each copy made distinct by a
numbered token at the end of both sides), annotates each in a child process and prints wall
and CPU seconds (the driver and its workers), the driver's own CPU seconds, pairs per second
and the peak resident memory of the run (the largest process: the main one or a worker).

With more ``--jobs`` than cores the wall time says nothing, but the CPU seconds still do: work
repeated in every worker would grow them with the worker count, and the driver's share bounds
the speed-up on more cores (Amdahl's law).

    python benchmarks/annotate_stream.py [--data ../shared/data] [--sizes 10000 100000]
        [--jobs 1 2] [--unique-sources]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

PAIRS = [("conll14/submissions/INPUT", f"conll14/submissions/{s}") for s in ("AMU", "CAMB", "CUUI")]
PAIRS += [(f"jfleg/{d}/{d}.src", f"jfleg/{d}/{d}.ref{k}") for d in ("dev", "test") for k in (0, 1)]


# Runs `gecscope` in this interpreter and prints its own CPU seconds (the driver: reading,
# handing out and writing; the workers are its children) and the peak RSS in kB.
PROBE = """
import resource, sys
from gecscope.cli.main import main
if main(sys.argv[1:]) != 0:
    sys.exit(1)
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(me.ru_utime + me.ru_stime, max(me.ru_maxrss, kids.ru_maxrss))
"""


def build(data: Path, n: int, src: Path, cor: Path, unique: bool = False) -> None:
    pairs = []
    for a, b in PAIRS:
        xs = (data / a).read_text(encoding="utf-8").splitlines()
        ys = (data / b).read_text(encoding="utf-8").splitlines()
        pairs.extend((x.strip(), y.strip()) for x, y in zip(xs, ys, strict=True) if x.strip())
    with open(src, "w", encoding="utf-8") as fs, open(cor, "w", encoding="utf-8") as fc:
        for i in range(n):
            x, y = pairs[i % len(pairs)]
            copy = i if unique else i // len(pairs)
            tag = f" n{copy}" if copy else ""
            fs.write(x + tag + "\n")
            fc.write(y + tag + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--unique-sources", action="store_true",
                    help="number every pair, so no source repeats (by default a copy of the "
                         "base pairs shares its numbered sources: CoNLL-2014's three systems "
                         "share INPUT, and one process parses such a source once where two "
                         "workers may each parse it)")
    args = ap.parse_args()
    print("| pairs | jobs | wall s | CPU s | driver CPU s | pairs/s | peak RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            src, cor = Path(tmp) / "src.txt", Path(tmp) / "cor.txt"
            build(Path(args.data), n, src, cor, args.unique_sources)
            for jobs in args.jobs:
                # a fresh interpreter per run, the driver itself (so its own CPU time is
                # told apart from its workers'); ru_maxrss: the largest process of the run
                argv = [sys.executable, "-c", PROBE, "annotate", "-s", str(src), "-c",
                        str(cor), "--output", str(Path(tmp) / "out.m2"), "--jobs", str(jobs),
                        "-q"]
                with Clock() as c:
                    out = subprocess.run(argv, check=True, capture_output=True, text=True)
                driver, peak = out.stdout.split()[-2:]
                print(f"| {n:,} | {jobs} | {c.wall:.1f} | {c.cpu:.1f} | {float(driver):.1f} | "
                      f"{n / c.wall:.0f} | {int(peak) / 1024:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

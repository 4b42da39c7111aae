#!/usr/bin/env python
"""ERRANT annotation with 1 and N worker processes (``gecscope annotate --jobs``).

Builds a corpus of sentence pairs from the shared data (2,813 sources: CoNLL-2014 INPUT, JFLEG
dev and test; their corrections: CoNLL-2014 system outputs AMU, CAMB, ... and JFLEG references
0, 1, ..., ``--corrections`` of each, default 2, at most 12 (JFLEG's four references are then
reused in turn), annotates it with each
``--jobs`` value in a child process, checks the M2 outputs are byte-identical and prints wall
and CPU seconds (children included) and the speed-up. ``--ray`` also runs the largest
``--jobs`` through ``--backend ray`` (a local Ray instance started by the run, actors of one CPU
each) and compares it with the process pool (issue #17: within 1.3x). Ray's own daemons are
not children of the run, so its CPU column counts the driver only; compare the wall times.

    python benchmarks/annotate_jobs.py [--data ../shared/data] [--jobs 1 2] [--ray]
                                       [--corrections 12]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

SOURCES = ["conll14/submissions/INPUT", "jfleg/dev/dev.src", "jfleg/test/test.src"]
SYSTEMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC",
           "UMC"]


def parts(corrections: int) -> dict[str, list[str]]:
    """Input files: the sources, then ``corrections`` correction files."""
    out = {"src": SOURCES}
    for k in range(corrections):
        out[f"c{k + 1}"] = [f"conll14/submissions/{SYSTEMS[k]}", f"jfleg/dev/dev.ref{k % 4}",
                            f"jfleg/test/test.ref{k % 4}"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--ray", action="store_true", help="also the largest --jobs through Ray")
    ap.add_argument("--corrections", type=int, default=2, choices=range(1, 13),
                    metavar="N", help="corrections per source (1-12, default 2)")
    args = ap.parse_args()
    data = Path(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, paths in parts(args.corrections).items():
            lines = [ln for p in paths for ln in (data / p).read_text(encoding="utf-8").splitlines()]
            files[name] = Path(tmp) / f"{name}.txt"
            files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
        n = len(files["src"].read_text(encoding="utf-8").splitlines())
        outputs, clocks = {}, {}
        runs: list[tuple[int | str, list[str]]] = [(j, ["--jobs", str(j)]) for j in args.jobs]
        if args.ray:
            runs.append(("ray", ["--jobs", str(max(args.jobs)), "--backend", "ray"]))
        for jobs, extra in runs:
            out = Path(tmp) / f"jobs{jobs}.m2"
            with Clock() as clock:
                subprocess.run([sys.executable, "-m", "gecscope", "annotate", "-s",
                                str(files["src"]), "-c",
                                *(str(f) for k, f in files.items() if k != "src"),
                                "--output", str(out), *extra, "-q"], check=True)
            outputs[jobs], clocks[jobs] = out.read_bytes(), clock
            pairs = n * args.corrections
            print(f"{' '.join(extra)}: {n} sources x {args.corrections} corrections in {clock} "
                  f"({pairs / clock.wall:.0f} pairs/s)")
        base = args.jobs[0]
        for jobs in args.jobs[1:]:
            print(f"--jobs {jobs} vs {base}: {clocks[base].wall / clocks[jobs].wall:.2f}x wall; "
                  f"M2 identical: {outputs[jobs] == outputs[base]}")
        if args.ray:
            top = max(args.jobs)
            print(f"ray vs process pool at {top} workers: "
                  f"{clocks['ray'].wall / clocks[top].wall:.2f}x the wall time; "
                  f"M2 identical: {outputs['ray'] == outputs[base]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

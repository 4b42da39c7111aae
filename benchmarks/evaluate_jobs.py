#!/usr/bin/env python
"""The whole CoNLL-2014 evaluation with 1 and N processes (``gecscope evaluate --jobs``).

All 13 outputs of CoNLL-2014 (the 12 teams and INPUT) scored with errant, m2, gleu, imeasure,
cleme and cleme2 against the official two-annotator M2, as ``gecscope evaluate`` in a child
process per ``--jobs`` value. Prints wall and CPU seconds (children included), the speed-up,
and checks that the JSON reports are identical.

    python benchmarks/evaluate_jobs.py [--data ../shared/data] [--jobs 1 2] [--ray]
        [--systems K] [--metrics errant m2 ...]

``--ray`` also runs the largest ``--jobs`` through ``--backend ray`` (a local Ray instance
with that many CPUs); ``--systems K`` scores the first K outputs only (with one, the ranged
metrics are cut into sentence ranges so that every worker has work). Every run starts from
an empty cache directory (``GECSCOPE_CACHE``): nothing computed by an earlier run is reused.

``--before REV`` runs the same jobs first with the code of git revision REV (a temporary
worktree of this repository), then with this checkout's, in one invocation, and prints both
(paired on the same machine and load) with the ratio, and whether every score's value is the
same in both (the reports themselves differ where the JSON schema grew).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

METRICS = ("errant", "m2", "gleu", "imeasure", "cleme", "cleme2")


def one_corpus(gold: Path, hyps: list[str], folder: Path) -> tuple[Path, list[str]]:
    """The outputs as one system (their lines one after the other) and the references repeated
    as often, written in ``folder``."""
    m2 = gold.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    (folder / "gold.m2").write_text(m2 * len(hyps), encoding="utf-8")
    lines = []
    for h in hyps:
        lines.extend(Path(h).read_text(encoding="utf-8").rstrip("\n").split("\n"))
    (folder / "all.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "gold.m2", [str(folder / "all.txt")]


def _values(report: dict) -> dict[tuple[str, str], object]:
    """(system, metric) -> the score's value, as the report gives it."""
    return {(s["system"], s["metric"]): s["value"] for s in report["scores"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--metrics", nargs="+", default=list(METRICS))
    ap.add_argument("--systems", type=int, default=0, help="the first K outputs (0: all)")
    ap.add_argument("--ray", action="store_true", help="also the largest --jobs through Ray")
    ap.add_argument("--one-corpus", action="store_true",
                    help="score the chosen outputs as ONE system on the references repeated "
                         "as often (one large corpus: the ranged metrics are cut into "
                         "sentence ranges)")
    ap.add_argument("--before", metavar="REV",
                    help="also run the jobs with the code of git revision REV, first (paired)")
    args = ap.parse_args()
    conll = Path(args.data) / "conll14"
    gold = conll / "official-2014.combined.m2"
    hyps = sorted(str(p) for p in (conll / "submissions").iterdir())
    if args.systems:
        hyps = hyps[:args.systems]
    runs: list[tuple[str, list[str]]] = [(f"--jobs {j}", ["--jobs", str(j)]) for j in args.jobs]
    if args.ray:
        top = max(args.jobs)
        runs.append((f"--jobs {top} --backend ray", ["--jobs", str(top), "--backend", "ray"]))
    reports = {}
    walls = {}
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        if args.one_corpus:
            gold, hyps = one_corpus(gold, hyps, Path(tmp))
        print(f"CoNLL-2014: {len(hyps)} system(s) x {len(args.metrics)} metrics "
              f"({', '.join(args.metrics)}), a cold cache per run")
        codes = [("after", str(root / "src"))]
        if args.before:
            tree = Path(tmp) / "before"
            subprocess.run(["git", "-C", str(root), "worktree", "add", "-q", "--detach",
                            str(tree), args.before], check=True)
            codes.insert(0, (f"before ({args.before})", str(tree / "src")))
        clocks: dict[tuple[str, str], Clock] = {}
        try:
            for code, src in codes:
                # untimed: numba compiles its kernels into the code's own __pycache__ once (a
                # fresh worktree would pay that in its first timed run); no result is reused
                warm = [sys.executable, "-m", "gecscope", "evaluate", "-r", str(gold), "--hyp",
                        hyps[0], "-q", "--jobs", "1", "--format", "tsv"]
                for m in args.metrics:
                    warm += ["-m", m]
                subprocess.run(warm, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": src,
                                    "GECSCOPE_CACHE": str(Path(tmp) / f"warm-{code[:6]}")})
                for k, (label, extra) in enumerate(runs):
                    out = Path(tmp) / f"{code[:6]}{k}.json"
                    argv = [sys.executable, "-m", "gecscope", "evaluate", "-r",
                            str(gold), "--hyp", *hyps, "-q",
                            *extra, "--json-out", str(out)]
                    for m in args.metrics:
                        argv += ["-m", m]
                    env = {**os.environ, "PYTHONPATH": src,
                           "GECSCOPE_CACHE": str(Path(tmp) / f"cache-{code[:6]}{k}")}
                    with Clock() as c:
                        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
                    report = json.loads(out.read_text(encoding="utf-8"))
                    report.pop("created", None)
                    clocks[(code, label)] = c
                    if code == "after":
                        reports[label] = report
                        walls[label] = c.wall
                    else:
                        reports[(code, label)] = report
                    print(f"{code}, {label}: {c}", flush=True)
        finally:
            if args.before:
                subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force",
                                str(Path(tmp) / "before")], check=False)
    if args.before:
        print()
        print("| run | before: wall | CPU | after: wall | CPU | after/before CPU |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, _ in runs:
            b, a = clocks[(codes[0][0], label)], clocks[("after", label)]
            print(f"| {label} | {b.wall:.1f} s | {b.cpu:.1f} s | {a.wall:.1f} s | {a.cpu:.1f} s "
                  f"| {a.cpu / b.cpu:.2f} |")
        values = {label: _values(reports[label]) for label, _ in runs}
        old = _values(reports[(codes[0][0], runs[0][0])])
        print("every score's value the same before and after:",
              "yes" if values[runs[0][0]] == old else "NO")
        if values[runs[0][0]] != old:
            return 1
    base = runs[0][0]
    for label, _ in runs[1:]:
        same = reports[label] == reports[base]
        print(f"{label} vs {base}: speed-up {walls[base] / walls[label]:.2f}x (wall), "
              f"reports {'identical' if same else 'DIFFER'}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Chinese edit extraction on MuCGEC dev: gecscope vs ChERRANT's ``parallel_to_m2.py -g char``.

    python benchmarks/cherrant_mucgec.py [--data ../shared/data/mucgec]
        [--cherrant DIR --python PY [--pythonpath STUBS]]

gecscope annotates the references (``MuCGEC_dev.txt``) and the example prediction; with
``--cherrant`` (ChERRANT's folder) the tool is run on the same files by ``PY`` (an environment
with pypinyin, OpenCC, python-Levenshtein, numpy, tqdm; ``--pythonpath`` may hold stub ``torch``
and ``ltp`` modules, which char level imports but never uses), and the outputs are compared
byte for byte. Prints wall and CPU seconds of each run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _clock import Clock

from gecscope.alignment.cherrant import CherrantAnnotator
from gecscope.formats.parallel import read_parallel

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "mucgec"
FILES = ("MuCGEC_dev.txt", "example_pred_dev.txt")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the mucgec data folder")
    ap.add_argument("--cherrant", type=Path, help="ChERRANT's folder (scorers/ChERRANT)")
    ap.add_argument("--python", default=sys.executable, help="Python that runs ChERRANT")
    ap.add_argument("--pythonpath", help="extra PYTHONPATH for ChERRANT (stub modules)")
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="cherrant-bench-"))
    with Clock() as load:
        ann = CherrantAnnotator(args.data / "cherrant-data")
    print(f"resources loaded: {load}")
    print("| file | sentences | gecscope | ChERRANT | M2 identical |")
    print("|---|---:|---|---|---|")
    for name in FILES:
        rows = read_parallel(args.data / name)
        mine = out / f"{name}.gecscope.m2"
        with Clock() as ours, open(mine, "w", encoding="utf-8") as fh:
            fh.writelines(ann.annotate(r.source, r.targets).m2() for r in rows)
        theirs, same = "not run", "-"
        if args.cherrant is not None:
            ref = out / f"{name}.cherrant.m2"
            env = dict(os.environ)
            if args.pythonpath:
                env["PYTHONPATH"] = args.pythonpath
            with Clock() as tool:
                subprocess.run([args.python, "parallel_to_m2.py", "-f", str(args.data / name),
                                "-o", str(ref), "-g", "char"], cwd=args.cherrant, env=env,
                               check=True, capture_output=True)
            theirs = str(tool)
            same = "yes" if ref.read_bytes() == mine.read_bytes() else "NO"
        print(f"| {name} | {len(rows)} | {ours} | {theirs} | {same} |")
    print(f"outputs in {out}")


if __name__ == "__main__":
    main()

"""errant_compare 3.0.2 on the CoNLL-2014 ERRANT files: the numbers pinned in
``tests/regression/test_errant_conll14.py``, printed again by the reference itself.

    python benchmarks/errant_compare_conll14.py [--data ../shared/data/conll14]

Runs errant's own ``errant_compare -hyp errant/SYSTEM.m2 -ref errant/references.m2`` (PyPI
errant==3.0.2, installed by the ``spacy`` extra; it needs no spaCy model) for the 13 systems,
and for AMU with ``-ds``, ``-dt``, ``-cse`` and ``-cat 2``, and prints its output (TP FP FN
Prec Rec F0.5) under each command line. Span-based correction and beta 0.5 are its defaults.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")
AMU_FLAGS = (["-ds"], ["-dt"], ["-cse"], ["-cat", "2"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    args = ap.parse_args()
    tool = shutil.which("errant_compare")
    if tool is None:
        sys.exit("errant_compare not found: pip install 'gecscope[spacy]' (errant==3.0.2)")
    print(f"errant {metadata.version('errant')}: {tool}")
    errant = args.data / "errant"
    runs = [[] for _ in SYSTEMS]
    names = list(SYSTEMS) + ["AMU"] * len(AMU_FLAGS)
    runs += list(AMU_FLAGS)
    for name, flags in zip(names, runs, strict=True):
        argv = ["errant_compare", "-hyp", str(errant / f"{name}.m2"), "-ref",
                str(errant / "references.m2"), *flags]
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        print(f"\n$ {' '.join(argv)}\n{out.rstrip()}")


if __name__ == "__main__":
    main()

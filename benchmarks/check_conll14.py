"""``gecscope check`` on the 13 CoNLL-2014 submissions, and the cost of ``evaluate``'s summary.

    python benchmarks/check_conll14.py [--data ../shared/data/conll14]

Prints, per system, the findings at warning or error severity of
:func:`gecscope.gate.diagnostics.check_files` against ``official-2014.combined.m2`` (expected: NTHU's
shifted lines 40-43, INPUT being the source, nothing else), then the time of the whole check
and of :func:`gecscope.gate.diagnostics.evaluation_findings` (the checks ``gecscope evaluate`` runs
for its one-line summary) on inputs already read, per system. Wall and CPU seconds are both
printed (the machine is shared; CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

from gecscope.data import EvalData, Hypothesis
from gecscope.gate.diagnostics import check_files, evaluation_findings
from gecscope.meta_eval.benchmarks import GJG15_SYSTEMS
from gecscope.testsets import load_registry

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    args = ap.parse_args()
    m2 = str(args.data / "official-2014.combined.m2")
    hyps = [str(args.data / "submissions" / n) for n in GJG15_SYSTEMS]
    registry = load_registry(environment=False)
    with Clock() as whole:
        found = check_files([m2], None, hyps, list(GJG15_SYSTEMS), registry=registry)
    print("| system | warnings and errors |")
    print("|---|---|")
    for name, path in zip(GJG15_SYSTEMS, hyps, strict=True):
        serious = [f"{f.code} {f.where()}" for f in found
                   if f.file == path and f.severity != "info"]
        print(f"| {name} | {'; '.join(serious) or '-'} |")
    print(f"\ngecscope check, 13 systems: {whole}")
    data = EvalData((m2,))
    read = [Hypothesis.from_file(h, n) for h, n in zip(hyps, GJG15_SYSTEMS, strict=True)]
    data.references  # noqa: B018 - read before timing, as evaluate has
    with Clock() as summary:
        evaluation_findings(data, read, registry)
    print(f"evaluate's summary checks, 13 systems: {summary} "
          f"({1000 * summary.cpu / len(read):.0f} ms CPU per system)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

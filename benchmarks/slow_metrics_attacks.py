"""CPU seconds of USIM, PT-ERRANT and PT-M2 on the attack audit's systems, and a digest of
every score they give there.

    python benchmarks/slow_metrics_attacks.py [--data ../shared/data] --attack-dir DIR
        [--metrics usim,pterrant,ptm2] [--test-sets gjg15,seeda] [--sentences N] [--json FILE]

Builds the systems :func:`gecscope.meta_eval.audit.run_audit` scores (the real systems, the
source, every built-in attack and the published attack outputs in ``--attack-dir``,
``conll14-*.txt``) for each test set, in the audit's order (GJG15 then SEEDA, the metrics in
the order given), and scores them with each metric, one process, as the audit does. Prints per
metric and test set the CPU seconds (this process; the machine may be shared, wall seconds are
shown but not the figure to compare) and a SHA-256 of every corpus score and sentence score
(``repr`` of the floats): run it on two versions of the code (e.g. a ``git worktree`` of the
old one first on ``PYTHONPATH``) and the digests must be equal. ``--sentences N`` keeps the
first N rows of each test set (0: all) for a quicker comparison.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

from gecscope.errors import GecscopeError, OutputError
from gecscope.evaluation import score_admitted
from gecscope.meta_eval.attacks import AttackContext, build_attacks, list_attacks, read_attack_dir
from gecscope.meta_eval.audit import admit_systems, benchmark_test_set
from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def audit_systems(data: Path, name: str, attack_dir: Path | None, sentences: int
                  ) -> tuple[object, list[object]]:
    """The test set's data and its systems as the audit admits them (real, source, attacks),
    cut to the first ``sentences`` rows when that is positive."""
    c = data / "conll14"
    m2 = c / "official-2014.combined.m2"
    bench = (load_gjg15(data / "gjg15", c / "submissions", m2) if name == "gjg15"
             else load_seeda(data / "seeda", m2))
    ts = benchmark_test_set(bench)
    extra = (read_attack_dir(attack_dir, ts.sentences, ts.total, "conll14-*.txt")
             if attack_dir else [])
    best = ts.human_best
    assert best is not None
    ctx = AttackContext(tuple(ts.source.tokens), ts.data.m2, ts.real, best, ts.data, 0)
    outputs, _ = build_attacks(ctx, list_attacks())
    outputs += extra
    hyps = admit_systems(ts.data, [*ts.real.values(), ts.source],
                         [o.hypothesis for o in outputs])
    if sentences > 0:
        return ts.data.subset(0, sentences), [h.subset(0, sentences) for h in hyps]
    return ts.data, list(hyps)


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 64 (sysexits' EX_USAGE), as gecscope's commands do."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(64, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--attack-dir", type=Path, help="published attack outputs (conll14-*.txt)")
    ap.add_argument("--metrics", default="usim,pterrant,ptm2")
    ap.add_argument("--test-sets", default="gjg15,seeda")
    ap.add_argument("--sentences", type=int, default=0, help="first N rows only (0: all)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if args.sentences < 0:
        ap.error(f"--sentences must be 0 (all) or positive, not {args.sentences}")
    sets = [t for t in args.test_sets.split(",") if t]
    unknown = [t for t in sets if t not in ("gjg15", "seeda")]
    if unknown or not sets:
        ap.error(f"--test-sets: expected gjg15 and/or seeda, not {args.test_sets!r}")
    if not (args.data / "conll14").is_dir():
        print(f"error: {args.data / 'conll14'}: the shared data sets are not there (expected "
              "conll14/, gjg15/, seeda/; give --data)", file=sys.stderr)
        return 69
    try:
        return _run(args, sets)
    except GecscopeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code


def _run(args: argparse.Namespace, sets: list[str]) -> int:
    """Score and time every metric on every test set (see the module)."""
    from gecscope.registry import get_metric

    metrics = [m for m in args.metrics.split(",") if m]
    for m in metrics:
        get_metric(m)  # an unknown name fails here, not after the first test set
    if args.json and not args.json.parent.is_dir():
        raise OutputError(f"cannot write {args.json}: no such directory", args.json)
    figures: list[dict[str, object]] = []
    for name in sets:
        data, hyps = audit_systems(args.data, name, args.attack_dir, args.sentences)
        edits = False
        for spec in metrics:
            metric = get_metric(spec)()
            with Clock() as clock:
                if not edits and "hypothesis-edits" in metric.requires:
                    from gecscope.reports.model import with_edits

                    hyps = with_edits(data, hyps)  # type: ignore[arg-type]
                    edits = True
                results = score_admitted([metric], data, hyps)  # type: ignore[arg-type]
            digest = hashlib.sha256()
            for r in results:
                values = metric.sentence_values(r.stats)
                digest.update(repr((r.system, float(r.score.value), values)).encode())
            row = {"test_set": name, "metric": spec, "systems": len(hyps),
                   "sentences": len(data.sources), "cpu": round(clock.cpu, 1),
                   "wall": round(clock.wall, 1), "digest": digest.hexdigest()}
            figures.append(row)
            print(f"{name} {spec}: {len(hyps)} systems x {len(data.sources)} sentences, "
                  f"{clock} (with edit extraction when first needed), digest "
                  f"{row['digest'][:16]}", flush=True)
    if args.json:
        try:
            args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        except OSError as exc:
            raise OutputError(f"cannot write {args.json}: {exc.strerror}", args.json) from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""gecscope's I-measure against the reference tool's own output, system by system.

Runs (or reads the stored output of) ``ieval.py`` from mfelice/imeasure (HEAD fc79fdf, Python 2)
and gecscope on the same gold XML and hypotheses, and compares the overall table of both
aspects (TP, TN, FP, FN, FPN, P, R, F, Acc, Acc_b, WAcc, WAcc_b, I; the tool prints percentages
with two decimals). Prints CPU and wall seconds of each side.

    # the first 300 CoNLL-2014 sentences, all 13 systems, both modes (ieval takes hours in mix)
    python benchmarks/imeasure_vs_ieval.py --gold c300.xml --hyp-dir hyps/ \\
        --ieval /path/to/imeasure --modes nomix mix [--ieval-out DIR]

With ``--ieval-out DIR`` the tool's output for system S and mode M is read from
``DIR/S.M.out`` when present, and written there otherwise.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

COLUMNS = ("tp", "tn", "fp", "fn", "fpn", "p", "r", "f", "acc", "acc_b", "wacc", "wacc_b", "i")
COUNTS = ("tp", "tn", "fp", "fn", "fpn")


def parse_ieval(text: str) -> dict[str, list[float]]:
    """The OVERALL RESULTS rows of ieval's output: aspect letter -> 13 values."""
    rows: dict[str, list[float]] = {}
    overall = text.split("OVERALL RESULTS", 1)[-1]
    for line in overall.splitlines():
        parts = line.split()
        if parts and parts[0] in ("Detection", "Correction") and len(parts) == 14:
            rows[parts[0][0].lower()] = [float(x) for x in parts[1:]]
    if set(rows) != {"d", "c"}:
        raise ValueError("no OVERALL RESULTS table in ieval's output")
    return rows


def parse_ieval_sentences(text: str) -> list[dict[str, list[float]]]:
    """The ``-per-sent`` rows, in order (a run cut short still yields its finished sentences)."""
    rows: list[dict[str, list[float]]] = []
    head = text.split("OVERALL RESULTS", 1)[0]
    for line in head.splitlines():
        parts = line.split()
        if len(parts) == 15 and parts[1] in ("Det", "Cor"):
            if parts[1] == "Det":
                rows.append({})
            rows[-1][parts[1][0].lower()] = [float(x) for x in parts[2:]]
    return [r for r in rows if set(r) == {"d", "c"}]


def run_ieval(ieval_dir: Path, gold: Path, hyp: Path, mode: str) -> tuple[str, float]:
    cmd = ["python2", "ieval.py", f"-ref:{gold.resolve()}", f"-hyp:{hyp.resolve()}", "-per-sent"]
    if mode == "nomix":
        cmd.append("-nomix")
    env = dict(os.environ, PYENV_VERSION=os.environ.get("PYENV_VERSION", "2.7.18"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, cwd=ieval_dir, env=env, capture_output=True, text=True,
                         check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _pct(fields: dict[str, float], a: str) -> list[float]:
    return [fields[f"{a}_{k}"] if k in COUNTS else round(100 * fields[f"{a}_{k}"], 2)
            for k in COLUMNS]


def gecscope_rows(gold: Path, hyp: Path, mode: str
                  ) -> tuple[dict[str, list[float]], list[dict[str, list[float]]], float, float]:
    from gecscope.formats.imeasure_xml import read_gold
    from gecscope.metrics.imeasure import IMeasureMetric

    g = read_gold(gold)
    hyps = [line.split() for line in hyp.read_text(encoding="utf-8").split("\n")[:len(g)]]
    t0, c0 = time.perf_counter(), time.process_time()
    metric = IMeasureMetric(mix=mode == "mix")  # the defaults: ieval's I on a tie
    stats = metric.sentence_stats_gold(g, hyps)
    fields = metric.aggregate(stats).fields
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    per_sentence = [{a: _pct(row, a) for a in ("d", "c")} for row in metric.sentence_rows(stats)]
    return {a: _pct(fields, a) for a in ("d", "c")}, per_sentence, wall, cpu


def _same(x: dict[str, list[float]], y: dict[str, list[float]]) -> bool:
    return all(abs(a - b) < 0.005 + 1e-9 for asp in ("d", "c")
               for a, b in zip(x[asp], y[asp], strict=True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gold", type=Path, required=True, help="I-measure gold XML")
    ap.add_argument("--hyp-dir", type=Path, required=True, help="one file per system")
    ap.add_argument("--ieval", type=Path, help="checkout of mfelice/imeasure (ieval.py)")
    ap.add_argument("--ieval-out", type=Path, help="directory of stored ieval outputs")
    ap.add_argument("--modes", nargs="+", default=["nomix", "mix"], choices=["nomix", "mix"])
    ap.add_argument("--systems", nargs="*", help="default: every file in --hyp-dir")
    args = ap.parse_args(argv)
    systems = args.systems or sorted(p.name for p in args.hyp_dir.iterdir() if p.is_file())
    mismatches = compared = 0
    for mode in args.modes:
        print(f"mode {mode}")
        print(f"  {'system':8} {'c_I ieval':>10} {'c_I ours':>10} {'d_I ieval':>10} "
              f"{'d_I ours':>10}  equal  ieval cpu s  ours cpu s  ours wall s")
        for s in systems:
            hyp = args.hyp_dir / s
            stored = args.ieval_out / f"{s}.{mode}.out" if args.ieval_out else None
            cpu_tool = float("nan")
            if stored is not None and stored.exists():
                text = stored.read_text()
                timing = stored.with_suffix(".time")  # `/usr/bin/time -f "%U %S %e"`, if kept
                if timing.exists() and len(timing.read_text().split()) == 3:
                    user, system, _ = timing.read_text().split()
                    cpu_tool = float(user) + float(system)
            elif args.ieval is not None:
                text, cpu_tool = run_ieval(args.ieval, args.gold, hyp, mode)
                if stored is not None:
                    stored.write_text(text)
            else:
                print(f"  {s:8} (no ieval output)")
                continue
            ours, ours_sent, wall, cpu = gecscope_rows(args.gold, hyp, mode)
            tool_sent = parse_ieval_sentences(text)
            bad = [i + 1 for i, (t, o) in enumerate(zip(tool_sent, ours_sent, strict=False))
                   if not _same(t, o)]
            sent_note = f"{len(tool_sent) - len(bad)}/{len(tool_sent)} sentences equal"
            if bad:
                sent_note += f" (differ: {bad[:10]})"
            try:
                tool = parse_ieval(text)
            except ValueError:
                print(f"  {s:8} (ieval unfinished) {sent_note}")
                mismatches += bool(bad)
                compared += 1
                continue
            same = _same(tool, ours) and not bad
            compared += 1
            mismatches += not same
            print(f"  {s:8} {tool['c'][-1]:10.2f} {ours['c'][-1]:10.2f} {tool['d'][-1]:10.2f} "
                  f"{ours['d'][-1]:10.2f}  {'yes' if same else 'NO':5}  {cpu_tool:11.1f} "
                  f"{cpu:11.2f} {wall:11.2f}  {sent_note}")
            if not same:
                for asp in ("d", "c"):
                    print(f"      ieval {asp}: {tool[asp]}\n      ours  {asp}: {ours[asp]}")
    print(f"{compared} comparisons, {mismatches} differ")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

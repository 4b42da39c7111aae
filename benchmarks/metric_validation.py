"""Validate every offline gecscope metric against GJG15 and SEEDA with WMT-grade statistics
(issue #34 item 3): the figures of docs/metric-validation.md and its plot.

    python benchmarks/metric_validation.py [--metrics a,b] [--maege] [--jobs 2]
        [--json OUT.json] [--markdown OUT.md] [--plot docs/metric-validation.png]

Runs ``gecscope.meta_eval.runner.build_table`` (system correlations with bootstrap intervals,
soft pairwise accuracy, tie-calibrated acc_eq/tau_eq, significance clusters) on both
benchmarks, prints the Markdown tables, and draws a metrics x validation-methods heat map
(matplotlib). With ``--maege``, also MAEGE (corpus Pearson/Spearman, chain tau, per NUCLE type,
each with a bootstrap interval) on CoNLL-2014's M2 with alternatives, for every metric; the
JSON then carries those figures too. Metrics that need a model or an endpoint are skipped with
the reason. Prints wall and CPU seconds, per task and in all: the whole validation must stay
under 10 minutes on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from _clock import Clock

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MAEGE: dict[str, Any] = {}
"""MAEGE results per metric name (filled with --maege)."""
COLUMNS = (
    ("GJG15 EW γ", "gjg15", "EW", "pearson"),
    ("GJG15 TS γ", "gjg15", "TS", "pearson"),
    ("SEEDA-S TS γ", "seeda", "TS_sent", "pearson"),
    ("SEEDA-E TS γ", "seeda", "TS_edit", "pearson"),
    ("GJG15 SPA", "gjg15", "rank", "spa"),
    ("SEEDA-S SPA", "seeda", "sent", "spa"),
    ("SEEDA-E SPA", "seeda", "edit", "spa"),
    ("GJG15 acc_eq", "gjg15", "rank", "acc_eq"),
    ("SEEDA-S acc_eq", "seeda", "sent", "acc_eq"),
    ("SEEDA-E acc_eq", "seeda", "edit", "acc_eq"),
)


MAEGE_COLUMNS = (("MAEGE corpus ρ", "maege", "", "maege_spearman"),
                 ("MAEGE chain τ", "maege", "", "maege_tau"))


def cell(row: Any, bench: str, key: str, stat: str) -> float:
    if stat.startswith("maege_"):
        res = MAEGE.get(row.label.removeprefix("Sent")) if row.kind == "sentence" else \
            MAEGE.get(row.label)
        if res is None:
            return math.nan
        return res.spearman.value if stat == "maege_spearman" else res.tau.value
    if stat == "pearson":
        c = row.correlations.get(bench, {}).get(key)
        return c.pearson if c else math.nan
    if stat == "spa":
        s = row.spa.get(bench, {}).get(key)
        return s.spa if s else math.nan
    t = row.calibrated.get(bench, {}).get(key)
    return t.acc_eq if t else math.nan


def plot(result: Any, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in result.rows if r.kind in ("corpus", "sentence")]
    columns = COLUMNS + (MAEGE_COLUMNS if MAEGE else ())
    mat = np.array([[cell(r, b, k, s) for _, b, k, s in columns] for r in rows])
    fig, ax = plt.subplots(figsize=(1.0 * len(columns) + 2, 0.38 * len(rows) + 1.5))
    im = ax.imshow(mat, cmap="viridis", vmin=np.nanmin(mat), vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(columns)), [c[0] for c in columns], rotation=40, ha="right")
    ax.set_yticks(range(len(rows)), [r.label for r in rows])
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            if not math.isnan(mat[i, j]):
                ax.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if mat[i, j] < 0.6 else "black")
    fig.colorbar(im, ax=ax, fraction=0.03)
    ax.set_title("gecscope metrics x validation methods (blank: not defined for the row)")
    fig.tight_layout()
    fig.savefig(str(path), dpi=110)
    plt.close(fig)


# Expected CPU seconds per task, table + MAEGE (measured 2026-11-27 after the caches of #34),
# to start the longest first. Metrics of one family run in one task, one after the other, so
# that they share the process's caches (pterrant and ptm2: one BERTScore encoder and its
# embeddings; errant: the ERRANT edits pterrant annotated on the same EvalData; a metric's
# table and its MAEGE: USIM's parses, the I-measure's sentence cache).
COST = {"usim": 290, "pterrant": 215, "ptm2": 55, "imeasure": 145, "cleme": 130, "gleu": 30,
        "green": 36, "m2": 20, "gotoscorer": 16, "cleme2": 8, "errant": 55}
FAMILIES: tuple[tuple[str, ...], ...] = (("pterrant", "ptm2", "errant"),)
_BENCHES: list[Any] = []


def _benches(data: Path) -> list[Any]:
    """GJG15 and SEEDA, loaded once per process."""
    if not _BENCHES:
        from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda

        m2 = data / "conll14" / "official-2014.combined.m2"
        _BENCHES.extend([load_gjg15(data / "gjg15", data / "conll14" / "submissions", m2),
                         load_seeda(data / "seeda", m2)])
    return _BENCHES


def _progress(verbose: bool) -> Any:
    return (lambda msg: print(f"  {msg}", file=sys.stderr, flush=True)) if verbose else None


#: (module, function, stage) timed by --stages; metrics' own statistics are one stage each
STAGES = (
    ("gecscope.meta_eval.benchmarks", "load_gjg15", "reading the benchmarks"),
    ("gecscope.meta_eval.benchmarks", "load_seeda", "reading the benchmarks"),
    ("gecscope.meta_eval.significance", "correlation_interval", "system correlations (intervals)"),
    ("gecscope.meta_eval.significance", "batch_correlation", "system correlations (intervals)"),
    ("gecscope.meta_eval.significance", "metric_spa", "SPA"),
    ("gecscope.meta_eval.significance", "pairwise_p_values", "SPA"),
    ("gecscope.meta_eval.significance", "human_pairwise_p_values", "SPA"),
    ("gecscope.meta_eval.significance", "spa_interval", "SPA"),
    ("gecscope.meta_eval.ties", "tie_calibrated_agreement", "tie calibration (acc_eq, tau_eq)"),
    ("gecscope.meta_eval.sentence", "sentence_agreement", "sentence agreement (acc, tau)"),
    ("gecscope.meta_eval.significance", "permutation_sig_diff", "significance clusters"),
    ("gecscope.meta_eval.significance", "compare_metrics", "significance clusters"),
    ("gecscope.meta_eval.ties", "compare_calibrated", "significance clusters"),
    ("gecscope.meta_eval.ranking", "aggregate_sentence_scores", "rankings from sentences (TS, EW)"),
    ("gecscope.meta_eval.maege", "build_lattice", "MAEGE lattice and corpora"),
    ("gecscope.meta_eval.maege", "sample_corpora", "MAEGE lattice and corpora"),
    ("gecscope.meta_eval.maege", "score_nodes", "MAEGE node scoring (other than statistics)"),
    ("gecscope.meta_eval.maege", "analyse", "MAEGE correlations (intervals)"),
)
TIMER: Any = None
"""This process's StageTimer (--stages), else None."""


def _instrument(names: tuple[str, ...]) -> Any:
    """A StageTimer around :data:`STAGES` and the metrics' statistics (once per process)."""
    global TIMER
    if TIMER is None:
        import importlib

        from profile_stages import StageTimer, instrument_metrics, wrap_everywhere

        import gecscope.meta_eval.maege
        import gecscope.meta_eval.runner  # noqa: F401 - loads the modules that import by name

        TIMER = StageTimer()
        for module, name, stage in STAGES:
            wrap_everywhere(TIMER, importlib.import_module(module), name, stage)
    from profile_stages import instrument_metrics

    from gecscope.registry import list_metrics

    instrument_metrics(TIMER, [n for n in names if n in list_metrics()],
                       "metric statistics: {}")
    return TIMER


def metric_task(data: Path, names: tuple[str, ...], maege: tuple[str, ...], permutations: int,
                resamples: int, verbose: bool, stages: bool = False
                ) -> dict[tuple[str, str], tuple[Any, float]]:
    """The table rows (scores, correlations, SPA, tie calibration) of every metric of
    ``names``, then MAEGE for those in ``maege``, in one process; per part its result (an
    exception for a failed MAEGE) and its CPU seconds (with ``stages``, under ``("stages",
    "")`` the CPU seconds per stage this process spent)."""
    from _clock import cpu_seconds

    timer = _instrument(names) if stages else None
    before = dict(timer.seconds) if timer is not None else {}

    from gecscope.meta_eval.maege import run_maege
    from gecscope.meta_eval.runner import build_table

    out: dict[tuple[str, str], tuple[Any, float]] = {}
    for name in names:
        c0 = cpu_seconds()
        res = build_table(_benches(data), [name], permutations=permutations,
                          resamples=resamples, progress=_progress(verbose))
        out[("table", name)] = (res, cpu_seconds() - c0)
    withalt = data / "conll14" / "official-2014.combined-withalt.m2"
    for name in names:
        if name not in maege or name in out[("table", name)][0].skipped:
            continue  # a metric without its model is skipped by the table, with the reason
        c0 = cpu_seconds()
        try:
            [m] = run_maege(str(withalt), [name], progress=_progress(verbose))
        except Exception as exc:  # noqa: BLE001 - raised by the driver
            out[("maege", name)] = (exc, cpu_seconds() - c0)
            continue
        out[("maege", name)] = (m, cpu_seconds() - c0)
    if timer is not None:
        out[("stages", ",".join(names))] = ({k: v - before.get(k, 0.0)
                                             for k, v in timer.seconds.items()}, 0.0)
    return out


def merge(parts: list[Any], permutations: int, resamples: int) -> Any:
    """One table from per-metric tables (in the given order), with the intervals and the
    significance clusters computed over all rows, as one ``build_table`` call would."""
    from gecscope.meta_eval.runner import TableResult, add_wmt_statistics

    first = parts[0]
    result = TableResult([r for p in parts for r in p.rows],
                         {k: v for p in parts for k, v in p.skipped.items()},
                         {k: v for p in parts for k, v in p.seconds.items()},
                         first.system_sets, first.ties, levels=first.levels)
    add_wmt_statistics(result, permutations=permutations, resamples=resamples)
    return result


def print_stages(done: dict[tuple[str, str], tuple[Any, float]], parent: Any,
                 before: dict[str, float], merging: Clock, total: Clock) -> None:
    """The CPU seconds per stage, summed over the workers and the final merge (the
    intervals and significance clusters over all rows), against the run's CPU seconds."""
    seconds: dict[str, float] = {}
    for key, (part, _) in done.items():
        if key[0] == "stages":
            for stage, sec in part.items():
                seconds[stage] = seconds.get(stage, 0.0) + sec
    for stage, sec in parent.seconds.items():
        seconds[stage] = seconds.get(stage, 0.0) + sec - before.get(stage, 0.0)
    named = sum(seconds.values())
    print(f"stages (CPU seconds, all processes; the merge: {merging}):")
    print("| stage | CPU s | share |")
    print("|---|---:|---:|")
    for stage, sec in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"| {stage} | {sec:.1f} | {sec / total.cpu:.0%} |")
    print(f"| other (imports, model loading, glue) | {total.cpu - named:.1f} | "
          f"{(total.cpu - named) / total.cpu:.0%} |")
    print(f"| **total** | **{total.cpu:.1f}** | 100% |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--metrics", default="", help="comma-separated (default: all registered)")
    ap.add_argument("--permutations", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--maege", action="store_true",
                    help="add MAEGE columns (corpus Spearman, chain tau on CoNLL-2014's M2 "
                         "with alternatives) when gecscope.meta_eval.maege is installed")
    ap.add_argument("--maege-skip", default="",
                    help="comma-separated metrics left out of MAEGE (default: none)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="worker processes, each running one metric family at a time (its "
                         "tables, then its MAEGE), longest first; the figures are those of "
                         "--jobs 1 (every task runs the one-process code path)")
    ap.add_argument("--stages", action="store_true",
                    help="also print the CPU seconds per stage (reading, each metric's "
                         "statistics, spaCy parse, each meta-eval statistic, MAEGE), summed "
                         "over the workers")
    args = ap.parse_args()

    from gecscope.registry import list_metrics

    metrics = [m for m in args.metrics.split(",") if m] or list_metrics()
    skip = set(args.maege_skip.split(","))
    maege_set = tuple(m for m in metrics if m not in skip) if args.maege else ()
    families: list[tuple[str, ...]] = []
    for fam in FAMILIES:
        members = tuple(m for m in fam if m in metrics)
        if members:
            families.append(members)
    grouped = {m for fam in families for m in fam}
    families += [(m,) for m in metrics if m not in grouped]
    families.sort(key=lambda f: -sum(COST.get(m, 1) for m in f))
    done: dict[tuple[str, str], tuple[Any, float]] = {}
    verbose = True

    with Clock() as total:
        if args.jobs == 1:
            for fam in families:
                done.update(metric_task(args.data, fam, maege_set, args.permutations,
                                        args.resamples, verbose, args.stages))
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=args.jobs or None,
                                     mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [pool.submit(metric_task, args.data, fam, maege_set,
                                       args.permutations, args.resamples, verbose, args.stages)
                           for fam in families]
                for fut in futures:
                    done.update(fut.result())
        parent = _instrument(()) if args.stages else None
        before = dict(parent.seconds) if parent is not None else {}
        with Clock() as merging:
            result = merge([done[("table", m)][0] for m in metrics], args.permutations,
                           args.resamples)
    if args.stages:
        print_stages(done, parent, before, merging, total)
    # MAEGE ran for the metrics the table ran (a metric without its model is skipped there
    # with the reason); any other MAEGE failure stops the run
    maege_metrics = [m for m in metrics if ("maege", m) in done]
    for name in maege_metrics:
        res = done[("maege", name)][0]
        if isinstance(res, Exception):
            raise res
        MAEGE[res.metric] = res
        print(f"MAEGE {name}: corpus spearman {res.spearman.value:.3f} "
              f"[{res.spearman.low:.3f}, {res.spearman.high:.3f}], chain tau "
              f"{res.tau.value:.3f} [{res.tau.low:.3f}, {res.tau.high:.3f}]")
    text = render_markdown_of(result)
    print(text)
    if args.markdown:
        from gecscope.meta_eval.runner import render_wmt_sections

        # the WMT-grade section only (the paper-layout tables are docs/meta-eval-table.md)
        part = render_wmt_sections(result)[4:]
        part += ["Skipped: " + "; ".join(f"`{m}` ({why})" for m, why in result.skipped.items())
                 if result.skipped else "Skipped: none.", ""]
        args.markdown.write_text("\n".join(part), encoding="utf-8")
    if args.json:
        from gecscope.cli._common import dump_json

        doc = result.as_dict()
        doc["maege"] = {name: MAEGE[name].as_dict() for name in MAEGE}
        doc["cpu_seconds"] = {f"{kind}:{name}": round(sec, 1)
                              for (kind, name), (_, sec) in done.items()}
        args.json.write_text(dump_json(doc), encoding="utf-8")
    if args.plot:
        try:
            plot(result, args.plot)
            print(f"plot written to {args.plot}")
        except ImportError as exc:
            print(f"no plot: {exc}")
    print(json.dumps({name: round(sec, 1) for name, sec in result.seconds.items()}))
    print("CPU seconds per task: " + json.dumps(
        {f"{kind}:{name}": round(sec, 1) for (kind, name), (_, sec) in done.items()}))
    print(f"whole validation ({len(metrics)} metrics, {len(result.skipped)} skipped"
          f"{f'; MAEGE for {len(maege_metrics)}' if args.maege else '; without MAEGE'}; "
          f"{args.jobs} job(s)): {total}")
    return 0


def render_markdown_of(result: Any) -> str:
    from gecscope.meta_eval.runner import render_markdown

    return render_markdown(result, title="Metric validation")


if __name__ == "__main__":
    sys.exit(main())

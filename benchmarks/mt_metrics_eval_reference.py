"""mt-metrics-eval's own functions on SEEDA and GJG15 inputs, beside gecscope's (issue #34).

Prints, for a few metrics, the soft pairwise accuracy (``pce.compute_pairwise_p_values`` +
``compute_one_minus_pce``), acc_eq / tau_eq with tie calibration (``stats.KendallWithTiesOpt``,
``average_by="item"``, ``sample_rate=1``) and the metric-comparison p-values and clusters
(``data.CompareMetrics`` = ``stats.PermutationSigDiff`` + ``AssignRanks``), each next to
gecscope's value (``gecscope.meta_eval.significance`` / ``ties``). The values pinned in
tests/regression/test_meta_eval_wmt_stats.py were printed by this script with mt-metrics-eval
at commit 68a481a (google-research/mt-metrics-eval).

    python benchmarks/mt_metrics_eval_reference.py --mme /work/.mirror/google-research+mt-metrics-eval/repo
    python benchmarks/mt_metrics_eval_reference.py --mme ... --clusters   # the cluster cases

``--mme`` is a bare git directory (exported to a temporary folder) or a checkout holding the
``mt_metrics_eval`` package. Its ``data.py`` imports ``apache_beam`` (parallel runs) and
``ratings.py`` imports ``dacite``; neither is used by the functions called here, so empty
stand-in modules are registered when they are not installed. Needs numpy and scipy only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from _clock import Clock

SPA_PERMUTATIONS = 1000
SIG_PERMUTATIONS = 1000
SIG_SEED = 0
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def import_mme(path: Path, tmp: Path) -> Any:
    if (path / "mt_metrics_eval").is_dir():
        root = path
    else:
        root = tmp / "mme"
        root.mkdir()
        archive = subprocess.run(["git", "--git-dir", str(path), "archive", "HEAD"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        head = subprocess.run(["git", "--git-dir", str(path), "rev-parse", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()
        print(f"mt-metrics-eval commit {head}")
    for name in ("apache_beam", "dacite"):
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
    sys.path.insert(0, str(root))
    from mt_metrics_eval import data, pce, stats

    return data, pce, stats


def cases(data_dir: Path) -> list[dict[str, Any]]:
    """The inputs: benchmark, systems, sentence-score tables and system scores per metric."""
    from gecscope.meta_eval.benchmarks import load_gjg15, load_seeda
    from gecscope.meta_eval.examples import CharLengthMetric
    from gecscope.meta_eval.runner import evaluate_systems, sentence_score_table
    from gecscope.registry import get_metric

    m2 = data_dir / "conll14" / "official-2014.combined.m2"
    benches = [load_seeda(data_dir / "seeda", m2),
               load_gjg15(data_dir / "gjg15", data_dir / "conll14" / "submissions", m2)]
    out = []
    for bench in benches:
        systems = bench.ordered(bench.select(None))
        sentence: dict[str, dict[str, list[float]]] = {}
        system: dict[str, dict[str, float]] = {}
        for metric in (CharLengthMetric(), get_metric("gleu")(), get_metric("m2")()):
            results = evaluate_systems(metric, bench, systems)
            table = sentence_score_table(results)
            sentence[metric.name] = table
            system[metric.name] = {s: float(r.score.value) for s, r in results.items()}
            system[f"Sent{metric.name}"] = {s: sum(v) / len(v) for s, v in table.items()}
        out.append({"bench": bench, "systems": systems, "sentence": sentence,
                    "system": system})
    return out


#: Where each benchmark's judgment files are, and the base of their ``src-id``.
JUDGMENT_FILES = {"seeda": ({"sent": "seeda/data/judgments_sent.xml",
                             "edit": "seeda/data/judgments_edit.xml"}, 1),
                  "gjg15": ({"rank": "gjg15/judgments.xml"}, 0)}


def appraise_items(path: Path, base: int, limit: int | None = None
                   ) -> list[tuple[int, dict[str, int]]]:
    """The ranking items of an Appraise XML file, read here without gecscope (so that the
    comparison checks gecscope's reader and judgment conversion too): (0-based test-set
    sentence, {system: rank}) in file order; a ``system`` attribute naming several systems
    (identical outputs) gives each the rank."""
    import xml.etree.ElementTree as ET

    out = []
    for item in ET.parse(path).getroot().iter("ranking-item"):
        ranks = {name: int(t.get("rank", "")) for t in item.iter("translation")
                 for name in t.get("system", "").split()}
        out.append((int(item.get("src-id", "")) - base, ranks))
        if limit is not None and len(out) == limit:
            break
    return out


def human_metric_matrices(items: list[tuple[int, dict[str, int]]], table: dict[str, list[float]],
                          systems: list[str], rows: dict[int, int]
                          ) -> tuple[list[list[float | None]], list[list[float | None]]]:
    """(items x systems) human scores as mt-metrics-eval's sentence-level task takes them
    (minus the rank: higher is better) and the metric's sentence scores; None where the item
    did not rank the system."""
    human = [[-float(r[s]) if s in r else None for s in systems] for _, r in items]
    metric = [[float(table[s][rows[k]]) if s in r else None for s in systems] for k, r in items]
    return human, metric


def pair_outcomes(items: list[tuple[int, dict[str, int]]], systems: list[str]
                  ) -> dict[tuple[str, str], list[int]]:
    """For every pair (systems[i], systems[j]), i < j: +1 / -1 / 0 per item ranking both
    (the first better / worse / tied), in file order."""
    out: dict[tuple[str, str], list[int]] = {}
    for _, r in items:
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                if a in r and b in r:
                    out.setdefault((a, b), []).append((r[a] < r[b]) - (r[a] > r[b]))
    return out


def reference(mme: Any, case: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    import numpy as np
    import scipy.stats

    data, pce, stats = mme
    bench, systems = case["bench"], case["systems"]
    rows = bench.rows
    files, base = JUDGMENT_FILES[bench.name]
    out: dict[str, Any] = {"spa": {}, "acc_eq": {}, "tau_eq": {}, "compare": {}}
    for level in bench.judgments:
        items = appraise_items(data_dir / files[level], base)
        outcomes = pair_outcomes(items, systems)
        human_p = np.full((len(systems), len(systems)), np.nan)
        for i, a in enumerate(systems):
            for j in range(i + 1, len(systems)):
                d = np.asarray(outcomes[a, systems[j]], dtype=float)
                human_p[i, j] = pce.compute_pairwise_p_values(
                    np.vstack([d, np.zeros(len(d))]), num_permutations=SPA_PERMUTATIONS)[0, 1]
        for name, table in case["sentence"].items():
            mat = np.asarray([[table[s][rows[k]] for k in sorted(rows)] for s in systems])
            metric_p = pce.compute_pairwise_p_values(mat, num_permutations=SPA_PERMUTATIONS)
            out["spa"][f"{level}/{name}"] = float(pce.compute_one_minus_pce(human_p, metric_p))
            human, metric = human_metric_matrices(items, table, systems, rows)
            # packed system-major vectors, as mt-metrics-eval's Correlation holds them
            gold = [human[i][s] for s in range(len(systems)) for i in range(len(human))]
            scores = [metric[i][s] for s in range(len(systems)) for i in range(len(metric))]
            for variant, key in (("acc23", "acc_eq"), ("23", "tau_eq")):
                value, eps, _ = stats.KendallWithTiesOpt(gold, scores, variant, len(systems),
                                                          "item", sample_rate=1.0)
                out[key][f"{level}/{name}"] = [float(value), float(eps)]
    for key, human in bench.human.items():
        gold = [human[s] for s in systems]
        corrs = {m: stats.Correlation(len(systems), gold, [v[s] for s in systems])
                 for m, v in case["system"].items()}
        for kind, fn in (("pearson", scipy.stats.pearsonr), ("spearman", scipy.stats.spearmanr)):
            np.random.seed(SIG_SEED)
            ranks, sig, _, _ = data.CompareMetrics(corrs, fn, "none", k=SIG_PERMUTATIONS)
            out["compare"][f"{key}/{kind}"] = {
                "order": list(ranks), "values": [float(ranks[m][0]) for m in ranks],
                "ranks": [int(ranks[m][1]) for m in ranks],
                "p": [[float(x) for x in row] for row in sig]}
    return out


def ours(case: dict[str, Any]) -> dict[str, Any]:
    from gecscope.meta_eval.significance import PermutationParams, compare_metrics, metric_spa
    from gecscope.meta_eval.ties import tie_calibrated_agreement

    bench, systems = case["bench"], case["systems"]
    rows = bench.rows
    out: dict[str, Any] = {"spa": {}, "acc_eq": {}, "tau_eq": {}, "compare": {}}
    for level, judgments in bench.judgments.items():
        for name, table in case["sentence"].items():
            spa = metric_spa(judgments, table, systems, rows=[rows[k] for k in sorted(rows)],
                             permutations=SPA_PERMUTATIONS)
            out["spa"][f"{level}/{name}"] = spa.spa
            t = tie_calibrated_agreement(judgments, table, systems, rows=rows, resamples=10)
            out["acc_eq"][f"{level}/{name}"] = [t.acc_eq, t.acc_epsilon]
            out["tau_eq"][f"{level}/{name}"] = [t.tau_eq, t.tau_epsilon]
    for key, human in bench.human.items():
        gold = [human[s] for s in systems]
        metrics = {m: [v[s] for s in systems] for m, v in case["system"].items()}
        for kind in ("pearson", "spearman"):
            r = compare_metrics(gold, metrics, kind, seed=SIG_SEED,
                                params=PermutationParams(SIG_PERMUTATIONS))
            out["compare"][f"{key}/{kind}"] = {
                "order": list(r.labels), "values": list(r.values), "ranks": list(r.ranks),
                "p": [list(row) for row in r.p]}
    return out


#: The sentence-level cluster cases of tests/regression/test_meta_eval_sentence_clusters.py:
#: the first CLUSTER_ITEMS ranking items of each SEEDA file, CLUSTER_PERMUTATIONS draws, blocks
#: of 1000 (no early stop) and 50 (its early stop at p 0.05 / 0.3).
CLUSTER_ITEMS = 30
CLUSTER_PERMUTATIONS = 200
CLUSTER_BLOCKS = (1000, 50)


def cluster_case(data_dir: Path) -> dict[str, Any]:
    """SEEDA's base systems and the four sentence-score tables of the cluster cases: GLEU,
    character length and two tied variants (GLEU rounded to 0.1, length // 10), scored by
    gecscope (the inputs both sides share)."""
    from gecscope.meta_eval.benchmarks import load_seeda
    from gecscope.meta_eval.examples import CharLengthMetric
    from gecscope.meta_eval.runner import evaluate_systems, sentence_score_table
    from gecscope.registry import get_metric

    bench = load_seeda(data_dir / "seeda", data_dir / "conll14" / "official-2014.combined.m2")
    systems = bench.ordered(bench.select("base"))
    tables = {
        "charlen": sentence_score_table(evaluate_systems(CharLengthMetric(), bench, systems)),
        "gleu": sentence_score_table(evaluate_systems(get_metric("gleu")(), bench, systems))}
    tables["gleu1"] = {s: [round(v, 1) for v in t] for s, t in tables["gleu"].items()}
    tables["len10"] = {s: [float(v // 10) for v in t] for s, t in tables["charlen"].items()}
    return {"bench": bench, "systems": systems, "tables": tables, "data_dir": data_dir}


def clusters(mme: Any, case: dict[str, Any]) -> dict[str, Any]:
    """mt-metrics-eval's item-level acc_eq clusters (``data.CompareMetrics`` with
    ``KendallWithTiesOpt``, ``perm_test="pairs"``, after ``np.random.seed(0)``) of a
    :func:`cluster_case`, the judgments read from the XML here: what the test pins as
    ``PINNED``."""
    import numpy as np

    data, _pce, stats = mme
    bench, systems, tables = case["bench"], case["systems"], case["tables"]
    data_dir = case["data_dir"]
    files, base = JUDGMENT_FILES["seeda"]
    out: dict[str, Any] = {}
    for level in ("sent", "edit"):
        items = appraise_items(data_dir / files[level], base, limit=CLUSTER_ITEMS)
        corrs = {}
        for name, table in tables.items():
            human, metric = human_metric_matrices(items, table, systems, bench.rows)
            n = len(systems)
            gold = [human[i][s] for s in range(n) for i in range(len(human))]
            scores = [0.0 if metric[i][s] is None else metric[i][s]
                      for s in range(n) for i in range(len(human))]
            corrs[name] = stats.Correlation(n, gold, scores)
        for block in CLUSTER_BLOCKS:
            np.random.seed(0)
            ranks, sig, _, _ = data.CompareMetrics(
                corrs, stats.KendallWithTiesOpt, "item", CLUSTER_PERMUTATIONS,
                stats.PermutationSigDiffParams(block, 0.05, 0.3), 0.05, perm_test="pairs",
                sample_rate=1.0)
            out[f"{level}/{block}"] = {
                "labels": list(ranks), "values": [float(v) for v, _ in ranks.values()],
                "ranks": [int(r) for _, r in ranks.values()],
                "p": [[float(x) for x in row] for row in sig]}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mme", type=Path, required=True,
                    help="mt-metrics-eval bare git dir or checkout")
    ap.add_argument("--data", type=Path, default=DATA, help="shared data folder")
    ap.add_argument("--clusters", action="store_true",
                    help="print the sentence-level cluster cases the regression test pins "
                         "(tests/regression/test_meta_eval_sentence_clusters.py) and stop")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mme = import_mme(args.mme, Path(tmp))
        if args.clusters:
            with Clock() as c_cl:
                found = clusters(mme, cluster_case(args.data))
            print(json.dumps(found, sort_keys=True))
            print(f"clusters: {c_cl}")
            return 0
        with Clock() as c_in:
            all_cases = cases(args.data)
        print(f"inputs (metric scores): {c_in}")
        same = True
        for case in all_cases:
            with Clock() as c_ref:
                ref = reference(mme, case, args.data)
            with Clock() as c_ours:
                got = ours(case)
            name = case["bench"].name
            print(f"== {name}: mt-metrics-eval {c_ref}; gecscope {c_ours}")
            print(json.dumps({"reference": ref}, sort_keys=True))
            for key in ("spa", "acc_eq", "tau_eq", "compare"):
                for k, v in ref[key].items():
                    ok = v == got[key][k]
                    same &= ok
                    print(f"{name} {key} {k}: {'equal' if ok else 'DIFFERENT'}"
                          + ("" if ok else f"\n  reference {v}\n  gecscope  {got[key][k]}"))
        print("all equal" if same else "SOME DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

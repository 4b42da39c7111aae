"""GoToScorer against gec-metrics 0.1.1, live, on samples of CoNLL-2014 and SEEDA.

gec-metrics' own ``GoToScorer`` and its weight generator ``gecmetrics-gen-gotoscorer-weight``
(``cli/gen_gotoscorer_weight.main``) run in their venv through ``tests/gec_metrics_ref.py`` on
the same sentences, and gecscope must give the same weight file (by default, byte for byte)
and the same numbers (every field of the corpus score and every sentence score, weighted with
gec-metrics' weight file and unweighted). Samples keep it fast: every 60th CoNLL-2014 sentence
with the 13 submissions, every 120th sentence with SEEDA's 15 outputs (``outputs/all``, the same
1,312 sentences), reference = annotator 0 of ``official-2014.combined.m2``. All sentences and
systems: ``benchmarks/gotoscorer_conll14.py``.

To stay fast the script loads gec-metrics' ``metrics/base.py``, ``metrics/errant.py``,
``metrics/gotoscorer.py`` and ``cli/gen_gotoscorer_weight.py`` on their own, without the package
``__init__`` that imports every model-based metric, and lets its scorers share one spaCy model
and ERRANT's parse/edit caches (as gecscope's do); gec-metrics' own code computes everything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gec_metrics_ref import SUBMODULES_ONLY, run_gec_metrics

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.gotoscorer import GoToScorerMetric, compute_weights
from gecscope.types import Corpus

pytestmark = pytest.mark.requires_spacy

#: gec-metrics' side: PAYLOAD = {"sets": {name: {"src", "refs", "systems", "ref1"}},
#: "example": {...}}; prints, per set, the weight file its generator writes, every system's
#: weighted (that file) and unweighted scores, and the given systems against reference 1.
GEC_METRICS_SCRIPT = SUBMODULES_ONLY + r"""
import importlib, pathlib, tempfile, time
import errant
_errant_load, _errant = errant.load, {}
errant.load = lambda lang, nlp=None: _errant.setdefault(lang, _errant_load(lang, nlp))
from gec_metrics.metrics.gotoscorer import GoToScorer as _GoToScorer
PARSES, EDITS = {}, {}

class GoToScorer(_GoToScorer):  # gec-metrics' class, sharing ERRANT's caches
    def __init__(self, config=None):
        super().__init__(config)
        self.cache_parse, self.cache_annotate = PARSES, EDITS

sys.modules["gec_metrics.metrics"].GoToScorer = GoToScorer
gen = importlib.import_module("gec_metrics.cli.gen_gotoscorer_weight")

def verbose(scorer, src, hyp, refs):
    v = scorer.score_corpus_verbose(src, hyp, refs)
    return {"TP": v.tp, "FP": v.fp, "FN": v.fn, "TN": v.tn, "P": v.precision,
            "R": v.recall, "F": v.f, "Acc": v.accuracy,
            "sentences": scorer.score_sentence(src, hyp, refs)}

out = {}
for set_name, P in PAYLOAD["sets"].items():
    t0, c0 = time.perf_counter(), time.process_time()
    tmp = pathlib.Path(tempfile.mkdtemp())
    files = {"src": P["src"], "ref": P["refs"][0], **P["systems"]}
    for name, lines in files.items():
        (tmp / name).write_text("\n".join(lines) + "\n")
    # the console script gecmetrics-gen-gotoscorer-weight, as a user runs it
    sys.argv = ["gecmetrics-gen-gotoscorer-weight", "--src", str(tmp / "src"), "--ref",
                str(tmp / "ref"), "--out", str(tmp / "w.json"), "--hyps",
                *[str(tmp / n) for n in P["systems"]]]
    gen.main()
    res = {"weight_file": (tmp / "w.json").read_text(), "weighted": {}, "unweighted": {}}
    weighted = GoToScorer(GoToScorer.Config(no_weight=False, weight_file=str(tmp / "w.json")))
    plain = GoToScorer(GoToScorer.Config(no_weight=True))
    for name, hyp in P["systems"].items():
        res["weighted"][name] = verbose(weighted, P["src"], hyp, P["refs"])
        res["unweighted"][name] = verbose(plain, P["src"], hyp, P["refs"])
    second = GoToScorer(GoToScorer.Config(no_weight=True, ref_id=1))
    res["ref_id_1"] = {n: verbose(second, P["src"], P["systems"][n], P["refs"])
                       for n in P["ref1"]}
    res["wall"], res["cpu"] = time.perf_counter() - t0, time.process_time() - c0
    out[set_name] = res
ex = PAYLOAD.get("example")
if ex:
    out["example"] = {str(b): verbose(GoToScorer(GoToScorer.Config(beta=b)), ex["src"],
                                      ex["hyp"], ex["refs"]) for b in (0.5, 2.0)}
print(json.dumps(out))
"""

CONLL14_SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC",
                   "SJTU", "UFC", "UMC")
SEEDA_SYSTEMS = ("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT",
                 "LM-Critic", "PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC",
                 "TransGEC", "UEDIN-MS")
FIELDS = ("TP", "FP", "FN", "TN", "P", "R", "Acc")
CONLL14_EVERY, SEEDA_EVERY = 60, 120  # 22 and 11 sentences

# gec-metrics' own GoToScorer test example (metrics/gotoscorer_test.py)
EX_SRCS = ["This sentences contain gramamtical error .", "This is a sentence .",
           "This is no change ."]
EX_HYPS = ["This sentence contains a grammatical error .",
           "this was corrected into completely different one .", "This is no change ."]
EX_REFS = [["This sentence contains a gramamtical error .", "dummy sentence .",
            "This is no change ."],
           ["These sentences contain grammatical errors .", "another dummy sentence .",
            "This is no change ."]]


def text(sents: Any) -> list[str]:
    """Token lists as gec-metrics' space-joined lines."""
    return [" ".join(t) for t in sents]


def sample_set(m2: Path, outputs: dict[str, Path], every: int) -> tuple[EvalData,
                                                                        list[Hypothesis]]:
    """Every ``every``-th sentence of ``m2`` and of each system output."""
    full = EvalData((str(m2),))
    assert full.m2 is not None
    keep = range(0, len(full), every)
    data = EvalData.from_m2(Corpus(tuple(full.m2.sentences[i] for i in keep)))
    hyps = []
    for name, path in outputs.items():
        toks = Hypothesis.from_file(path, name, expected=len(full)).tokens
        hyps.append(Hypothesis(name, [toks[i] for i in keep]))
    return data, hyps


def payload_set(data: EvalData, hyps: list[Hypothesis], ref1: tuple[str, ...]) -> dict[str, Any]:
    return {"src": text(data.sources), "refs": [text(r) for r in data.references],
            "systems": {h.name: text(h.tokens) for h in hyps}, "ref1": list(ref1)}


@pytest.fixture(scope="module")
def live(shared_data: Path) -> dict[str, Any]:
    """Both sides on both samples: gecscope's data and systems, and gec-metrics' output."""
    m2 = shared_data / "conll14" / "official-2014.combined.m2"
    sets = {
        "conll14": (*sample_set(m2, {s: shared_data / "conll14" / "submissions" / s
                                     for s in CONLL14_SYSTEMS}, CONLL14_EVERY), ("AMU", "UFC")),
        "seeda": (*sample_set(m2, {s: shared_data / "seeda" / "outputs" / "all" / f"{s}.txt"
                                   for s in SEEDA_SYSTEMS}, SEEDA_EVERY), ("T5",)),
    }
    payload = {"sets": {k: payload_set(d, h, r1) for k, (d, h, r1) in sets.items()},
               "example": {"src": EX_SRCS, "hyp": EX_HYPS, "refs": EX_REFS}}
    return {"sets": sets, "ref": run_gec_metrics(GEC_METRICS_SCRIPT, payload)}


def expected_fields(ref: dict[str, Any], beta: float = 0.5) -> dict[str, float]:
    out = {k: ref[k] for k in FIELDS}
    out[f"F{beta:g}"] = ref["F"]
    return out


@pytest.mark.parametrize("name", ["conll14", "seeda"])
def test_weight_file_is_gec_metrics_own_by_default(live: dict[str, Any], name: str) -> None:
    data, hyps, _ = live["sets"][name]
    compat = compute_weights(data, hyps)  # the default: gec-metrics' generator
    assert compat.dumps() == live["ref"][name]["weight_file"]  # byte for byte
    assert compute_weights(data, hyps, compat=True) == compat  # the former spelling
    default = compute_weights(data, hyps, fix_weight_positions=True)
    # gec-metrics' position-blind check counts chunks as right that gecscope does not
    default_sizes = [len(s) for s in default.weights]
    assert default_sizes == [len(s) for s in compat.weights]
    assert default.weights != compat.weights


@pytest.mark.parametrize("name", ["conll14", "seeda"])
def test_scores_equal_gec_metrics(live: dict[str, Any], name: str, tmp_path: Path) -> None:
    data, hyps, ref1 = live["sets"][name]
    ref = live["ref"][name]
    path = tmp_path / "w.json"
    path.write_text(ref["weight_file"], encoding="utf-8")  # gec-metrics' own weight file
    weighted = GoToScorerMetric(weight_file=str(path))
    plain = GoToScorerMetric()
    for h in hyps:
        for metric, expected in ((weighted, ref["weighted"][h.name]),
                                 (plain, ref["unweighted"][h.name])):
            result = metric.evaluate(data, h)
            assert result.score.fields == pytest.approx(expected_fields(expected), abs=1e-12)
            assert result.sentence_scores == pytest.approx(expected["sentences"], abs=1e-12)
    by_name = {h.name: h for h in hyps}
    for system in ref1:
        got = GoToScorerMetric(ref_id=1).evaluate(data, by_name[system])
        assert got.score.fields == pytest.approx(expected_fields(ref["ref_id_1"][system]),
                                                 abs=1e-12)


def test_weights_from_system_files_by_default_equal_gec_metrics(live: dict[str, Any],
                                                                 tmp_path: Path) -> None:
    """The user's route: ``weight_systems`` = the systems' files, default options."""
    data, hyps, _ = live["sets"]["conll14"]
    ref = live["ref"]["conll14"]
    for i, h in enumerate(hyps):
        (tmp_path / f"{i:02d}_{h.name}").write_text("\n".join(text(h.tokens)) + "\n",
                                                     encoding="utf-8")
    metric = GoToScorerMetric(weight_systems=str(tmp_path / "[0-9]*"))
    for h in hyps[:3]:
        got = metric.evaluate(data, h)
        assert got.score.fields == pytest.approx(expected_fields(ref["weighted"][h.name]),
                                                 abs=1e-12)


def test_beta_equals_gec_metrics_on_its_example(live: dict[str, Any]) -> None:
    example = EvalData.from_texts(EX_SRCS, EX_REFS)
    hyp = Hypothesis.from_texts(EX_HYPS)
    for beta in (0.5, 2.0):
        got = GoToScorerMetric(beta=beta).evaluate(example, hyp)
        expected = live["ref"]["example"][str(beta)]
        assert got.score.fields == pytest.approx(expected_fields(expected, beta), abs=1e-12)
        assert got.sentence_scores == pytest.approx(expected["sentences"], abs=1e-12)

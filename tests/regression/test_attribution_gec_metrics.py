"""Edit attribution equal to gec-metrics' attributors, on a CoNLL-2014 sample.

Expected values: ``AttributorAdd``, ``AttributorSub`` and ``AttributorShapley`` of gec-metrics
at commit 320c830 (HEAD; the attributors came after the 0.1.1 release, so the reference venv
cannot run them in CI), run here by ``python benchmarks/attribution_reference.py --write
tests/regression/attribution_gec_metrics_320c830.json``, which stores the inputs (8 CoNLL-2014
sentences with 2 to 5 ERRANT edits, their two references) and the printed values. The
reference-based metrics are gec-metrics' GLEU, GREEN and ERRANT (defaults; its GLEU is
gecscope's ``variant=corrected``) given the sentence's references; SOME, IMPARA and Scribendi
run on tiny random checkpoints that this test builds again from the same sentences and seeds.

Tolerances: exact arithmetic metrics to 1e-12; model scores differ by float noise (~1e-7),
which ``add`` and ``sub`` multiply by ``delta / sum`` of the raw changes (up to ~50 here), so
those are compared to a relative 1e-3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.explain import attribute
from gecscope.registry import get_metric

pytestmark = pytest.mark.requires_spacy  # the hypotheses' ERRANT edits

PINNED = Path(__file__).with_name("attribution_gec_metrics_320c830.json")
EXACT = ("gleu", "green", "errant")
LEARNED = ("some", "impara", "scribendi")
METHODS = ("add", "sub", "shapley")
OPTIONS: dict[str, dict[str, Any]] = {"gleu": {"variant": "corrected"}, "green": {},
                                      "errant": {}}


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(PINNED.read_text(encoding="utf-8"))
    assert out["commit"] == "320c830"
    return out


@pytest.fixture(scope="module")
def inputs(pinned: dict[str, Any]) -> tuple[EvalData, Hypothesis]:
    items = pinned["items"]
    data = EvalData.from_texts([it["src"] for it in items],
                               [[it["refs"][k] for it in items] for k in range(2)])
    return data, Hypothesis.from_texts([it["hyp"] for it in items])


def check(metric: Any, inputs: tuple[EvalData, Hypothesis], rows: list[dict[str, Any]],
          method: str, tolerance: dict[str, float], score_abs: float) -> None:
    """``score_abs``: the tolerance of the sentence's base and corrected scores (1e-12 for the
    exact metrics, float noise for the model scores); ``tolerance`` that of the values."""
    found = attribute(metric, *inputs, method)
    assert len(found) == len(rows) == 8
    for a, r in zip(found, rows, strict=True):
        edits = [[e.edit.start, e.edit.end, e.edit.correction_str, e.edit.type]
                 for e in a.edits]
        assert edits == r["edits"]
        assert a.base == pytest.approx(r["src_score"], abs=score_abs)
        assert a.delta == pytest.approx(r["sent_score"], abs=score_abs)
        values = [e.value for e in a.edits]
        assert values == pytest.approx(r["values"], **tolerance)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", EXACT)
def test_attribution_equals_gec_metrics(name: str, method: str, pinned: dict[str, Any],
                                        inputs: tuple[EvalData, Hypothesis]) -> None:
    rows = pinned["reference"][f"{name} {method}"]
    # the sample exercises the methods: several edits, values of both signs
    assert sum(len(r["values"]) for r in rows) >= 20
    check(get_metric(name)(**OPTIONS[name]), inputs, rows, method, {"abs": 1e-12},
          score_abs=1e-12)


@pytest.fixture(scope="module")
def checkpoints(pinned: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
                ) -> dict[str, str]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from learned_gpt2 import build_tiny_gpt2
    from learned_models import build_impara_models, build_some_models

    root = tmp_path_factory.mktemp("attribution-models")
    texts = [s for it in pinned["items"] for s in (it["src"], it["hyp"], *it["refs"])]
    return {**build_some_models(root, texts), **build_impara_models(root, texts),
            "gpt2": str(build_tiny_gpt2(root / "gpt2", texts, seed=3))}


@pytest.mark.slow
@pytest.mark.parametrize("name", LEARNED)
def test_attribution_of_learned_metrics_equals_gec_metrics(
        name: str, pinned: dict[str, Any], inputs: tuple[EvalData, Hypothesis],
        checkpoints: dict[str, str]) -> None:
    keys = {"some": ("model_g", "model_f", "model_m"), "impara": ("model_qe", "model_se"),
            "scribendi": ()}[name]
    options = {k: checkpoints[k] for k in keys} or {"model": checkpoints["gpt2"]}
    metric = get_metric(name)(**options)
    for method in METHODS:
        tolerance = {"abs": 1e-6} if method == "shapley" else {"rel": 1e-3, "abs": 1e-6}
        check(metric, inputs, pinned["reference"][f"{name} {method}"], method, tolerance,
              score_abs=1e-6)

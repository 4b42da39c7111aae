"""UA-GEC (Ukrainian) from the ``ua-gec`` package: corpus sizes and properties of M2, GLEU and
CLEME with ``lang="uk"`` that must hold whatever the exact numbers.

Provenance of the sizes: ua-gec 2.1.3 (PyPI), counted with the package's own API (not
gecscope's reader) by ``python benchmarks/uagec_sizes.py``: test has 166 documents, each
annotated by annotators 1 and 2 (332 items), with 2,696 source sentences in gec-only and 2,690
in gec-fluency; in train 43 of 1,706 documents have two annotators (1,749 items), and annotator
1's documents hold 31,037 source sentences.
"""

from __future__ import annotations

import pytest

from gecscope import EvalData, Hypothesis
from gecscope.formats.uagec import UAGECData, load_uagec
from gecscope.registry import get_metric

pytest.importorskip("ua_gec", reason="needs the ua-gec package (pip install 'gecscope[uk]')")

N = 300  # sentences scored: the first 300 keep the test well under a second


@pytest.fixture(scope="module")
def test_set() -> UAGECData:
    return load_uagec("test", "gec-only")


def test_version() -> None:
    import ua_gec

    assert ua_gec.__version__ == "2.1.3"  # the sizes below are for this version


def test_sizes(test_set: UAGECData) -> None:
    d = test_set
    assert d.annotators == (1, 2)
    assert len(d.documents) == 166
    assert len(d) == len(d.doc_ids) == len(d.sentence_index) == 2696
    reference_lengths = [len(r) for r in d.references]
    assert reference_lengths == [2696, 2696]
    assert d.skipped_docs == () and d.skipped_sentences == 0
    assert d.documents == sorted(d.documents)
    assert d.doc_ids[:1] == ["0002"] and d.sentence_index[:2] == [0, 1]
    fluency = load_uagec("test", "gec-fluency")
    assert len(fluency.documents) == 166
    assert len(fluency) == 2690


def test_sizes_are_the_packages_own_count(test_set: UAGECData) -> None:
    # the provenance script counts with ua_gec's API alone; gecscope's reader must agree
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "uagec_sizes.py"
    spec = importlib.util.spec_from_file_location("uagec_sizes", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    own = script.sizes("test", "gec-only")
    assert own["items"] == 332 and own["documents"] == own["by 1 and 2"] == 166
    assert own["their sentences"] == len(test_set) == 2696
    assert len(test_set.documents) == own["documents"]


def test_train_keeps_doubly_annotated_documents() -> None:
    train = load_uagec("train")
    assert train.annotators == (1, 2)
    assert len(train.documents) == 43
    assert len(train.skipped_docs) == 1706 - 43
    # 1749 items = 1706 documents + 43 second annotations: annotator 1 did every document, so
    # its sentences are the README's 31,037 unique train source sentences
    first = load_uagec("train", annotators=[1])
    assert len(first.documents) == 1706
    assert len(first) == 31037


def test_bad_arguments() -> None:
    from gecscope.errors import ConfigError

    with pytest.raises(ConfigError, match="partition"):
        load_uagec("dev")
    with pytest.raises(ConfigError, match="layer"):
        load_uagec("test", "fluency")
    with pytest.raises(ConfigError, match="annotators"):
        load_uagec("test", annotators=[3])


def test_metrics_in_ukrainian(test_set: UAGECData) -> None:
    src = test_set.sources[:N]
    ref1, ref2 = (r[:N] for r in test_set.references)
    # toy system: annotator 1's corrections for the first half, the source for the rest
    toy = ref1[: N // 2] + src[N // 2:]
    both = EvalData.from_texts(src, [ref1, ref2], lang="uk")
    alone = EvalData.from_texts(src, [ref1], lang="uk")

    def score(metric: str, data: EvalData, texts: list[str]) -> tuple[float, dict[str, float]]:
        s = get_metric(metric)().score(data, Hypothesis.from_texts(texts, lang="uk"))
        return s.value, s.fields

    for metric in ("m2", "cleme"):
        f, fields = score(metric, alone, ref1)
        assert f == pytest.approx(1.0) and fields["FP"] == 0 and fields["FN"] == 0, metric
        f, upper = score(metric, both, ref1)
        assert f == pytest.approx(1.0), metric
        f, lower = score(metric, both, src)
        assert lower["TP"] == 0 and lower["FP"] == 0 and f == 0.0, metric
        f, mid = score(metric, both, toy)
        assert 0 < mid["TP"] < upper["TP"], metric
        assert 0 < f < 1, metric
    # the toy's edits are annotator 1's: M2 picks that reference wherever they were made
    _, m2_toy = score("m2", both, toy)
    assert m2_toy["FP"] == 0 and m2_toy["P"] == 1.0

    assert score("gleu", alone, ref1)[0] == pytest.approx(1.0)
    g_src, g_toy, g_ref = (score("gleu", both, h)[0] for h in (src, toy, ref1))
    assert 0 < g_src < g_toy < g_ref < 1

"""Reproducibility signatures: content hash of the references, options, short and long forms."""

from __future__ import annotations

import json
from pathlib import Path

from test_stats_metric import EditF, toy_corpus

from gecscope import __version__
from gecscope.data import EvalData
from gecscope.signature import metric_signature, reference_hash, signature
from gecscope.types import Annotation, Corpus, Edit, Sentence


def test_long_and_short_forms() -> None:
    data, _ = toy_corpus()
    long = signature(EditF(), data, long=True)
    h = reference_hash(data)
    assert long == (f"metric:toy-editf|beta:0.5|refs:2|sents:5|refhash:{h}|tok:pretokenised|"
                    f"version:{__version__}")
    assert signature(EditF(beta=1.0), data) == \
        f"m:toy-editf|beta:1|r:2|n:5|h:{h}|t:pre|v:{__version__}"
    with_rs = metric_signature(EditF(), data, n_samples=1000, seed=7, test="ar")
    assert with_rs.as_dict()["resample"] == "ar1000" and with_rs.as_dict()["seed"] == "7"
    assert "|rs:ar1000|s:7|" in with_rs.short()


def test_reference_hash_depends_on_content_not_path(tmp_path: Path) -> None:
    data, _ = toy_corpus()
    h = reference_hash(data)
    assert len(h) == 8 and int(h, 16) >= 0
    same = EvalData.from_m2(Corpus(data.m2.sentences, path="elsewhere.m2"))
    assert reference_hash(same) == h
    s0 = data.m2.sentences[0]
    changed = Sentence(s0.source, (Annotation(0, (Edit(1, 2, ("went",), "R:VERB"),)),
                                   *s0.annotations[1:]))
    other = EvalData.from_m2(Corpus((changed, *data.m2.sentences[1:])))
    assert reference_hash(other) != h


def test_plain_text_references_hash_and_tokenisation(tmp_path: Path) -> None:
    src = tmp_path / "src.txt"
    ref = tmp_path / "ref.txt"
    src.write_text("a b\nc d\n", encoding="utf-8")
    ref.write_text("a B\nc d\n", encoding="utf-8")
    data = EvalData((str(ref),), str(src))
    sig = metric_signature(EditF(), data).as_dict()
    assert sig["tok"] == "whitespace" and sig["refs"] == "1" and sig["sents"] == "2"
    ref.write_text("a b\nc d\n", encoding="utf-8")
    assert reference_hash(EvalData((str(ref),), str(src))) != sig["refhash"]


def test_metric_extras_enter_the_signature() -> None:
    class Versioned(EditF):
        def tokenisation(self, data: EvalData) -> str:
            return "spacy"

        def signature_extras(self) -> dict[str, str]:
            return {"spacy_model": "en_core_web_sm-3.8.0"}

    data, _ = toy_corpus()
    long = signature(Versioned(), data, long=True)
    assert "|spacy_model:en_core_web_sm-3.8.0|" in long and "|tok:spacy|" in long
    assert "|sm:en_core_web_sm-3.8.0|" in signature(Versioned(), data)


def test_usim_signature_names_the_parser_model() -> None:
    # USIM's signature used to say nothing about the graphs' parser model
    from gecscope.metrics.usim import USimMetric

    data, _ = toy_corpus()
    meta = json.loads((Path(__file__).resolve().parents[2] / "src" / "gecscope" / "semantics"
                       / "ucca_parser" / "model" / "ucca_parser.json").read_text())
    assert f"|model:{meta['version']}|" in signature(USimMetric(), data, long=True)
    gold = signature(USimMetric(parser="gold", gold_dir="/nonexistent"), data, long=True)
    assert "|model:" not in gold and "|parser:gold|" in gold

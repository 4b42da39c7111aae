"""Translation backends and the round-trip cache, each exercised for real (no downloads):
a LibreTranslate-style HTTP server on 127.0.0.1, Apertium when installed, and tiny randomly
initialised Marian / CTranslate2 / Argos models built on the fly."""

from __future__ import annotations

import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from gecscope.errors import ConfigError
from gecscope.rtt.translator import (
    ApertiumTranslator,
    CachedTranslator,
    HttpTranslator,
    RoundTripCache,
    TranslationError,
    Translator,
    make_translator,
)


# A toy English<->"pig" translator: en->pig reverses each word, pig->en reverses back and
# corrects "go" to "goes" after "he" (so a round trip changes something).
def _pig(text: str) -> str:
    return " ".join(w[::-1] for w in text.split())


def _back(text: str) -> str:
    return _pig(text).replace("he go ", "he goes ")


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, code: int, obj: object) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/languages":
            self._send(200, [{"code": "en", "name": "English", "targets": ["pg", "xx"]},
                             {"code": "pg", "name": "Pig", "targets": ["en"]},
                             {"code": "xx", "name": "One-way", "targets": []}])
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(payload)
        if payload.get("target") == "zz":
            self._send(400, {"error": "zz is not supported"})
            return
        fn = _pig if payload["source"] == "en" else _back
        q = payload["q"]
        self._send(200, {"translatedText": [fn(t) for t in q] if isinstance(q, list) else fn(q)})


@pytest.fixture()
def server():
    _Handler.requests = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


SENTS = ["he go to school", "", "the cat  sat", "he go home", "a b c"]


def test_http_backend_batches_and_round_trips(server):
    tr = make_translator(f"http:{server}")
    assert isinstance(tr, HttpTranslator)
    assert isinstance(tr, Translator)
    assert tr.available_pivots() == ("pg",)
    out = tr.round_trip(SENTS, "pg")
    assert out == ["he goes to school", "", "the cat sat", "he goes home", "a b c"]
    # one request per direction for the whole batch; the empty sentence is not sent
    actual = [(r["source"], r["target"], len(r["q"])) for r in _Handler.requests]
    assert actual == [
        ("en", "pg", 4), ("pg", "en", 4)]
    small = HttpTranslator(server, batch_size=3)
    small.translate(SENTS, "en", "pg")
    actual = [len(r["q"]) for r in _Handler.requests[2:]]
    assert actual == [3, 1]


def test_http_errors(server):
    tr = HttpTranslator(server)
    with pytest.raises(TranslationError, match="HTTP 400.*zz is not supported"):
        tr.translate(["x"], "en", "zz")
    with pytest.raises(ConfigError, match="pivot 'xx' is not available"):
        tr.round_trip(["x"], "xx")
    dead = HttpTranslator("http://127.0.0.1:9", timeout=2)
    with pytest.raises(TranslationError, match="cannot connect"):
        dead.translate(["x"], "en", "pg")


def test_cache_reuses_round_trips(server, tmp_path):
    cache = RoundTripCache(tmp_path)
    cached = CachedTranslator(HttpTranslator(server), cache)
    assert isinstance(cached, Translator)
    first = cached.round_trip(SENTS, "pg")
    n_req = len(_Handler.requests)
    assert n_req == 2
    assert cached.round_trip(SENTS, "pg") == first
    assert len(_Handler.requests) == n_req          # served from the cache
    actual = (cached.hits, cached.misses)
    assert actual == (5, 5)
    # a new sentence only: one batch with just that sentence
    assert cached.round_trip(["he go out", "a b c"], "pg") == ["he goes out", "a b c"]
    actual = [len(r["q"]) for r in _Handler.requests[n_req:]]
    assert actual == [1, 1]
    # persisted on disk, keyed by backend too
    again = RoundTripCache(tmp_path)
    assert again.get_many(f"http:{server}", "pg", ["he go home"]) == {"he go home": "he goes home"}
    assert again.get_many("apertium", "pg", ["he go home"]) == {}
    assert len(again) == 6


def test_unknown_backend():
    with pytest.raises(ConfigError, match="unknown translation backend"):
        make_translator("babelfish")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("apertium") is None,
                    reason="apertium is not installed (apt-get install apertium apertium-eng-spa)")
def test_apertium_batch_equals_one_by_one():
    tr = ApertiumTranslator()
    if "spa" not in tr.available_pivots():
        pytest.skip("apertium-eng-spa is not installed")
    sents = ["Both experience and books are very important about living.", "",
             "I saw the red", "car is big"]
    batch = tr.round_trip(sents, "spa")
    single = [tr.round_trip([s], "spa")[0] for s in sents]
    assert batch == single
    assert batch[1] == ""
    # apertium 3.8.3 with apertium-eng-spa 0.8.1 (Debian 12)
    assert batch[0] == "Both experience and the books are very important on living."
    assert tr.check_pivot("es") == "spa"
    with pytest.raises(ConfigError, match="unknown pivot"):
        tr.check_pivot("klingon")


# -- tiny neural models ----------------------------------------------------------------------
def _build_marian(d, seed):
    import json as _json

    import sentencepiece as spm
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    d.mkdir(parents=True)
    corpus = d / "corpus.txt"
    corpus.write_text("\n".join(["the cat sat on the mat .", "el gato se sienta .",
                                 "both experience and books are very important",
                                 "he goes to school every day"] * 10) + "\n")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(d / "sp"),
                                   vocab_size=40, model_type="unigram",
                                   character_coverage=1.0, minloglevel=2)
    (d / "sp.model").rename(d / "source.spm")
    shutil.copy(d / "source.spm", d / "target.spm")
    vocab: dict[str, int] = {}
    for line in (d / "sp.vocab").read_text(encoding="utf-8").splitlines():
        vocab.setdefault(line.split("\t")[0], len(vocab))
    vocab["<pad>"] = len(vocab)  # Marian convention: pad is the last id
    (d / "vocab.json").write_text(_json.dumps(vocab))
    for f in ("sp.vocab", "corpus.txt"):
        (d / f).unlink()
    tok = MarianTokenizer(str(d / "source.spm"), str(d / "target.spm"), str(d / "vocab.json"))
    torch.manual_seed(seed)
    cfg = MarianConfig(vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1,
                       encoder_attention_heads=2, decoder_attention_heads=2,
                       encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                       pad_token_id=vocab["<pad>"], eos_token_id=vocab["</s>"],
                       decoder_start_token_id=vocab["<pad>"],
                       forced_eos_token_id=vocab["</s>"])
    model = MarianMTModel(cfg)
    # never stop early nor emit special tokens, so outputs are non-empty and comparable
    with torch.no_grad():
        for t in ("</s>", "<pad>", "<unk>", "<s>"):
            if t in vocab:
                model.final_logits_bias[0, vocab[t]] = -1e4
    model.save_pretrained(d)
    tok.save_pretrained(d)


@pytest.fixture(scope="module")
def marian_dir(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("sentencepiece")
    root = tmp_path_factory.mktemp("marian")
    _build_marian(root / "en-xx", 0)
    _build_marian(root / "opus-mt-xx-en", 1)
    return root


@pytest.mark.slow
def test_marian_directory_backend(marian_dir):
    from gecscope.rtt.translator import MarianTranslator

    tr = make_translator(f"marian:{marian_dir}")
    assert isinstance(tr, MarianTranslator)
    assert tr.available_pivots() == ("xx",)
    tr.max_length = 8
    sents = ["the cat sat on the mat .", "", "he goes to school", "both"]
    fwd = tr.translate(sents, "en", "xx")
    assert fwd[1] == ""
    assert all(fwd[k] for k in (0, 2, 3))
    # padded batches (of 4, of 2) give what a one-sentence batch gives
    assert tr.translate(sents[:1], "en", "xx") == fwd[:1]
    tr.batch_size = 2
    assert tr.translate(sents, "en", "xx") == fwd
    assert len(tr.round_trip(sents, "xx")) == 4
    with pytest.raises(ConfigError, match="no model for en->yy"):
        tr.translate(["x"], "en", "yy")


@pytest.mark.slow
def test_ctranslate2_and_argos_backends(marian_dir, tmp_path):
    ct2 = pytest.importorskip("ctranslate2")
    from ctranslate2.converters import TransformersConverter

    from gecscope.rtt.translator import CTranslate2Translator

    root = tmp_path / "ct2"
    for name in ("en-xx", "opus-mt-xx-en"):
        TransformersConverter(str(marian_dir / name),
                              copy_files=["source.spm", "target.spm"]).convert(
            str(root / name), force=True)
    tr = make_translator(f"ct2:{root}")
    assert isinstance(tr, CTranslate2Translator)
    assert tr.available_pivots() == ("xx",)
    tr.max_length = 8
    sents = ["the cat sat on the mat .", "", "he goes to school"]
    out = tr.translate(sents, "en", "xx")
    assert out[1] == "" and out[0] and out[2]
    assert out == [tr.translate([s], "en", "xx")[0] for s in sents]
    assert len(tr.round_trip(sents, "xx")) == 3
    assert ct2.__version__

    # An Argos package is a CTranslate2 model plus a SentencePiece model and metadata.json.
    pytest.importorskip("argostranslate.package")
    from gecscope.rtt.translator import ArgosTranslator

    pkgs = tmp_path / "argos"
    for src, tgt, name in (("en", "xx", "en-xx"), ("xx", "en", "opus-mt-xx-en")):
        pdir = pkgs / f"translate-{src}_{tgt}"
        shutil.copytree(root / name, pdir / "model")
        shutil.copy(root / name / "source.spm", pdir / "sentencepiece.model")
        (pdir / "metadata.json").write_text(json.dumps(
            {"package_version": "0.1", "argos_version": "1.0", "from_code": src,
             "to_code": tgt, "from_name": src, "to_name": tgt}))
    argos = make_translator(f"argos:{pkgs}")
    assert isinstance(argos, ArgosTranslator)
    assert argos.available_pivots() == ("xx",)
    argos.max_length = 8
    got = argos.translate(sents, "en", "xx")
    assert got[1] == "" and got[0] and got[2]
    assert len(argos.round_trip(sents, "xx")) == 3


def test_a_corrupt_round_trip_cache_is_set_aside_and_rebuilt(tmp_path) -> None:
    # an unreadable cache file used to end every `correct` run in a sqlite3 traceback
    from gecscope.rtt.translator import RoundTripCache

    (tmp_path / "rtt-round-trips.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.warns(RuntimeWarning, match="was unreadable; moved it"):
        cache = RoundTripCache(tmp_path)
    cache.put_many("apertium", "spa", [("a b", "a b .")])
    assert cache.get_many("apertium", "spa", ["a b"]) == {"a b": "a b ."}
    cache.close()
    assert len(list(tmp_path.glob("rtt-round-trips.sqlite.corrupt-*"))) == 1


class _RunsCode:
    """Unpickling this calls ``open(marker, "w")``: a stand-in for arbitrary code."""

    def __init__(self, marker) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["unsafe pickle", "truncated safetensors"])
def test_a_damaged_marian_checkpoint_is_a_format_error(marian_dir, tmp_path, damage) -> None:
    """The Marian backend loads through the same offline guard as the learned metrics: a
    pickle that would run code or a truncated safetensors file is a FormatError naming the
    file (exit 65), not a traceback (#31 item 9)."""
    import pickle

    from gecscope.errors import FormatError

    root = tmp_path / "models"
    for name in ("en-xx", "opus-mt-xx-en"):
        shutil.copytree(marian_dir / name, root / name)
    d = root / "en-xx"
    weights = d / "model.safetensors"
    marker = tmp_path / "code-ran"
    if damage == "unsafe pickle":
        weights.unlink()
        with (d / "pytorch_model.bin").open("wb") as fh:
            pickle.dump({"model.shared.weight": _RunsCode(marker)}, fh)
        expected, named = "not a safe checkpoint", d / "pytorch_model.bin"
    else:
        weights.write_bytes(weights.read_bytes()[:-10])
        expected, named = "truncated or damaged safetensors file", weights
    tr = make_translator(f"marian:{root}")
    with pytest.raises(FormatError, match=expected) as info:
        tr.translate(["the cat sat on the mat ."], "en", "xx")
    assert info.value.path == str(named)
    assert not marker.exists()


@pytest.mark.slow
def test_a_marian_directory_without_its_config_is_a_config_error(marian_dir, tmp_path) -> None:
    root = tmp_path / "models"
    for name in ("en-xx", "opus-mt-xx-en"):
        shutil.copytree(marian_dir / name, root / name)
    (root / "en-xx" / "config.json").unlink()
    tr = make_translator(f"marian:{root}")
    with pytest.raises(ConfigError, match=f"cannot load a Marian model from {root / 'en-xx'}"):
        tr.translate(["the cat sat on the mat ."], "en", "xx")

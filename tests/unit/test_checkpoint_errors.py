"""Damaged or foreign checkpoints give a typed error naming the file (#31 item 9), not a
traceback from torch or safetensors: a pickle whose ``__reduce__`` would run code, a truncated
safetensors file, a ``hidden_size`` that does not match the weights, and a checkpoint without
the trained head the metric needs. Tiny real checkpoints (tests/learned_models.py), tampered."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from learned_models import DEMO, build_bert, build_vocab

from gecscope.cli.main import main
from gecscope.errors import FormatError
from gecscope.metrics.learned.models import load_encoder, load_sequence_classifier

VOCAB = build_vocab(["The cat sat on the mat .", "A small test sentence ."])


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An untouched tiny regressor (SOME's kind) and bare encoder."""
    root = tmp_path_factory.mktemp("checkpoints")
    return {"classifier": build_bert(root / "classifier", VOCAB, 0),
            "encoder": build_bert(root / "encoder", VOCAB, 1, kind="encoder")}


def tampered(good: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "model"
    shutil.copytree(good, copy)
    return copy


class RunsCode:
    """Unpickling this calls ``open(marker, "w")``: a stand-in for arbitrary code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def test_untouched_checkpoints_load(good: dict[str, Path]) -> None:
    _, model = load_sequence_classifier(good["classifier"], metric="some", option="model_g")
    assert model.config.hidden_size == 32


def test_a_pickle_that_would_run_code_is_not_a_safe_checkpoint(good: dict[str, Path],
                                                              tmp_path: Path) -> None:
    d = tampered(good["classifier"], tmp_path)
    (d / "model.safetensors").unlink()
    marker = tmp_path / "code-ran"
    with (d / "pytorch_model.bin").open("wb") as fh:
        pickle.dump({"bert.embeddings.word_embeddings.weight": RunsCode(marker)}, fh)
    with pytest.raises(FormatError, match="not a safe checkpoint") as info:
        load_sequence_classifier(d, metric="some", option="model_g")
    assert info.value.path == str(d / "pytorch_model.bin")
    assert not marker.exists()


@pytest.mark.parametrize("keep, expected", [
    (0.5, "truncated or damaged safetensors file: its header describes"),
    (lambda n: n - 1, "truncated or damaged safetensors file"),
    (lambda n: 5, "not a complete safetensors file: 5 bytes"),
    (lambda n: 100, "truncated safetensors file: its header is"),
])
def test_a_truncated_safetensors_file_is_named(good: dict[str, Path], tmp_path: Path,
                                               keep: Any, expected: str) -> None:
    d = tampered(good["encoder"], tmp_path)
    weights = d / "model.safetensors"
    data = weights.read_bytes()
    size = int(len(data) * keep) if isinstance(keep, float) else keep(len(data))
    weights.write_bytes(data[:size])
    with pytest.raises(FormatError, match=expected) as info:
        load_encoder(d, metric="impara", option="model_se")
    assert info.value.path == str(weights)


@pytest.mark.parametrize("key, value, expected", [
    ("hidden_size", 64, "hidden_size=64 but the weights in model.safetensors have 32"),
    ("vocab_size", len(VOCAB) + 7,
     f"vocab_size={len(VOCAB) + 7} but the weights in model.safetensors have {len(VOCAB)}"),
])
def test_a_config_that_does_not_match_the_weights_is_named(
        good: dict[str, Path], tmp_path: Path, key: str, value: int, expected: str) -> None:
    d = tampered(good["classifier"], tmp_path)
    config = json.loads((d / "config.json").read_text(encoding="utf-8"))
    config[key] = value
    (d / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(FormatError, match=expected) as info:
        load_sequence_classifier(d, metric="some", option="model_g")
    assert info.value.path == str(d / "config.json")


def test_an_encoder_is_not_taken_for_a_trained_regressor(good: dict[str, Path]) -> None:
    """A bare encoder given where SOME wants its regressor: the head would be random."""
    with pytest.raises(FormatError, match="no weights for classifier.bias, classifier.weight"):
        load_sequence_classifier(good["encoder"], metric="some", option="model_g")


def test_bertscore_encoder_faults_are_typed_too(good: dict[str, Path], tmp_path: Path) -> None:
    """pterrant's BERTScore loads through the same offline loader."""
    from gecscope.metrics.bertscore import BERTScorer

    d = tampered(good["encoder"], tmp_path)
    weights = d / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-10])
    with pytest.raises(FormatError, match="damaged safetensors"):
        BERTScorer(str(d))


def test_cli_exit_65_without_a_traceback(good: dict[str, Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = tampered(good["classifier"], tmp_path)
    data = (d / "model.safetensors").read_bytes()
    (d / "model.safetensors").write_bytes(data[:len(data) // 2])
    options = ["-o", f"model_g={d}", "-o", f"model_f={good['classifier']}",
               "-o", f"model_m={good['classifier']}"]
    rc = main(["evaluate", "-m", "some", *options, "--source", str(DEMO / "source.txt"),
               "--hyp", str(DEMO / "careful.txt"), "-q"])
    err = capsys.readouterr().err
    assert rc == 65
    assert f"{d / 'model.safetensors'}: truncated or damaged safetensors file" in err
    assert "Traceback" not in err


def unsafe_pickle(good: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of ``good`` whose weights are a pickle that would run code; and its marker."""
    d = tampered(good, tmp_path)
    (d / "model.safetensors").unlink()
    marker = tmp_path / "code-ran"
    with (d / "pytorch_model.bin").open("wb") as fh:
        pickle.dump({"embeddings.word_embeddings.weight": RunsCode(marker)}, fh)
    return d, marker


@pytest.mark.parametrize("encoder", ["bertscore", "cleme-similarity"])
def test_bertscore_encoders_name_the_refused_file(good: dict[str, Path], tmp_path: Path,
                                                  encoder: str) -> None:
    """BERTScore (pterrant) and CLEME's similarity weighting pass their model directory to the
    offline loader, so the error names the pickle, not 'the checkpoint being loaded'."""
    from gecscope.metrics.bertscore import BERTScorer
    from gecscope.metrics.cleme.weights import BERTScoreF1

    d, marker = unsafe_pickle(good["encoder"], tmp_path)
    load = BERTScorer if encoder == "bertscore" else BERTScoreF1
    with pytest.raises(FormatError, match="not a safe checkpoint") as info:
        load(str(d))
    assert info.value.path == str(d / "pytorch_model.bin")
    assert not marker.exists()

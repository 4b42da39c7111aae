"""Local Hugging Face models for the learned metrics (SOME, IMPARA, Scribendi).

The learned metrics are "bring your own checkpoint": the user gives local model directories
(``save_pretrained`` output: ``config.json``, weights, tokenizer files); nothing is ever
downloaded (``HF_HUB_OFFLINE=1`` and ``local_files_only`` while loading). This module is the
one place that loads them, so every learned metric reports a missing directory, a missing extra
or an unreadable checkpoint the same way.

API (all that a metric needs):

* :func:`load_sequence_classifier`, :func:`load_encoder`, :func:`load_causal_lm`: each takes
  a local directory and returns a :class:`LoadedModel` ``(tokenizer, model)`` (a named tuple,
  so ``tokenizer, model = load_encoder(path, ...)`` works), on ``device``, in eval mode;
  :func:`load_tokenizer` loads a tokenizer alone.
* :func:`inference`: ``with inference(threads):`` runs model calls without gradients and with
  at most ``threads`` torch threads (``None`` or 0: torch's own setting).
* :func:`batches`: cut a list into batches; :func:`by_length`: an order (shortest first) that
  keeps padding small; :func:`model_signature`: a short, stable description of a checkpoint
  for the reproducibility signature; :func:`torch`: the torch module (lazily imported).

Example::

    from gecscope.metrics.learned.models import batches, inference, load_causal_lm

    tokenizer, model = load_causal_lm(path, metric="scribendi", option="model")
    with inference(threads=1):
        for batch in batches(texts, 16):
            ...

Errors: a missing or unreadable directory raises :class:`~gecscope.errors.ConfigError` naming
the metric and option (``-o OPTION=DIR``); a checkpoint that is an unsafe pickle, a truncated
safetensors file or weights that do not fit its ``config.json`` raise
:class:`~gecscope.errors.FormatError` naming the file (:func:`gecscope._hf.checkpoint_errors`);
missing torch/transformers raise :class:`~gecscope.errors.MissingDependencyError` naming the
extra :data:`EXTRA`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from gecscope._hf import checkpoint_errors, offline
from gecscope.errors import ConfigError, FormatError

#: The extra that installs torch and transformers (shared with BERTScore).
EXTRA = "sim"

T = TypeVar("T")


class LoadedModel(NamedTuple):
    """A tokenizer and its model (a transformers ``PreTrainedModel``), ready for inference."""

    tokenizer: Any
    model: Any


def torch() -> Any:
    """The torch module (imported on first use; a clear error names the extra)."""
    from gecscope._optional import require

    return require("torch", EXTRA, "the learned metrics (SOME, IMPARA, Scribendi)")


def _transformers() -> Any:
    from gecscope._optional import require

    return require("transformers", EXTRA, "the learned metrics (SOME, IMPARA, Scribendi)")


def check_model_dir(path: str | os.PathLike[str], metric: str, option: str) -> Path:
    """``path`` as a :class:`Path` if it is a local model directory, else a ConfigError that
    says which option to give."""
    if not str(path):
        raise ConfigError(f"{metric}: needs a local model directory: give -o {option}=DIR "
                          "(a Hugging Face save_pretrained directory; nothing is downloaded)")
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ConfigError(f"{metric}: {option}={str(path)!r} is not a directory; give a local "
                          "Hugging Face model directory (save_pretrained output with "
                          "config.json); model names are not downloaded")
    if not (p / "config.json").is_file():
        raise ConfigError(f"{metric}: {option}={str(path)!r} has no config.json; it must be a "
                          "Hugging Face model directory (save_pretrained output)")
    return p


def load_tokenizer(path: str | os.PathLike[str], *, metric: str, option: str) -> Any:
    """A tokenizer (``AutoTokenizer``) from a local directory."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ConfigError(f"{metric}: {option}={str(path)!r} is not a directory; give a local "
                          "Hugging Face tokenizer directory")
    transformers = _transformers()
    with offline(transformers):
        try:
            return transformers.AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{metric}: cannot load a tokenizer from {option}="
                              f"{str(path)!r}: {exc}") from None


def _load(kind: str, path: str | os.PathLike[str], metric: str, option: str,
          device: str) -> LoadedModel:
    p = check_model_dir(path, metric, option)
    transformers = _transformers()
    auto = getattr(transformers, kind)
    with offline(transformers, p):
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(p),
                                                                   local_files_only=True)
            with checkpoint_errors(p):  # inside: transformers 4 wraps them in an OSError
                model, info = auto.from_pretrained(str(p), local_files_only=True,
                                                   output_loading_info=True)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{metric}: cannot load {option}={str(path)!r} as {kind}: "
                              f"{exc}") from None
    _check_head(model, info, p, kind)
    try:
        model.to(device)
    except (RuntimeError, AssertionError, ValueError) as exc:
        raise ConfigError(f"{metric}: cannot move the model to device {device!r}: {exc}") \
            from None
    model.eval()
    return LoadedModel(tokenizer, model)


def _check_head(model: Any, info: dict[str, Any], path: Path, kind: str) -> None:
    """Refuse a checkpoint without weights for the task head it is loaded with (a bare
    encoder such as bert-base-cased given where SOME's or IMPARA's trained regressor is
    expected): transformers would initialise the head at random and every score would be
    noise. Missing weights inside the encoder (an unused pooler) are left to transformers."""
    if kind == "AutoModel":
        return
    prefix = f"{getattr(model, 'base_model_prefix', '')}."
    head = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(prefix))
    if head:
        shown = ", ".join(head[:4]) + (f" and {len(head) - 4} more" if len(head) > 4 else "")
        raise FormatError(f"has no weights for {shown}: it is not a checkpoint of a "
                          f"trained {kind.removeprefix('AutoModelFor')} model (those weights "
                          "would be random)", path)


def load_sequence_classifier(path: str | os.PathLike[str], *, metric: str, option: str,
                             device: str = "cpu") -> LoadedModel:
    """Tokenizer + ``AutoModelForSequenceClassification`` from a local directory."""
    return _load("AutoModelForSequenceClassification", path, metric, option, device)


def load_encoder(path: str | os.PathLike[str], *, metric: str, option: str,
                 device: str = "cpu") -> LoadedModel:
    """Tokenizer + ``AutoModel`` (the bare encoder: ``last_hidden_state``) from a local
    directory."""
    return _load("AutoModel", path, metric, option, device)


def load_causal_lm(path: str | os.PathLike[str], *, metric: str, option: str,
                   device: str = "cpu") -> LoadedModel:
    """Tokenizer + ``AutoModelForCausalLM`` from a local directory."""
    return _load("AutoModelForCausalLM", path, metric, option, device)


@contextmanager
def inference(threads: int | None) -> Iterator[None]:
    """Run the block without gradients and with at most ``threads`` torch threads
    (``None`` or 0 leaves torch's setting alone)."""
    from gecscope._optional import torch_threads

    t = torch()
    with torch_threads(threads or None), t.no_grad():
        yield


def batches(items: Sequence[T], size: int) -> Iterator[list[T]]:
    """Consecutive batches of at most ``size`` items."""
    if size < 1:
        raise ValueError(f"batch size must be >= 1, got {size}")
    for i in range(0, len(items), size):
        yield list(items[i:i + size])


def by_length(texts: Sequence[str]) -> list[int]:
    """Indices of ``texts`` ordered by length (characters), so batches pad little."""
    return sorted(range(len(texts)), key=lambda i: len(texts[i]))


def model_signature(path: str | os.PathLike[str]) -> str:
    """``dirname@hash`` for the reproducibility signature: the directory's name and a short
    SHA-256 over its files' names, sizes and first and last MiB (cheap for gigabyte weights,
    yet two trainings of the same architecture differ in those bytes)."""
    p = Path(path).expanduser()
    h = hashlib.sha256()
    if p.is_dir():
        for f in sorted(p.iterdir()):
            if not f.is_file():
                continue
            size = f.stat().st_size
            h.update(f"{f.name}:{size}\n".encode())
            with f.open("rb") as fh:
                h.update(fh.read(_EDGE))
                if size > 2 * _EDGE:
                    fh.seek(size - _EDGE)
                    h.update(fh.read(_EDGE))
                else:
                    h.update(fh.read())
    return f"{p.name}@{h.hexdigest()[:12]}"


_EDGE = 1 << 20


def weight_hashes(config: Any, options: Sequence[str]) -> dict[str, str]:
    """``{option}_hash`` for each checkpoint option: the directories are in the signature as
    options already; these hashes identify the weights in them."""
    return {f"{o}_hash": model_signature(getattr(config, o)).rpartition("@")[2]
            for o in options}


def library_versions() -> dict[str, str]:
    """The versions of the libraries that run the models, for the signature."""
    from gecscope._versions import package_versions

    return package_versions("torch", "transformers")

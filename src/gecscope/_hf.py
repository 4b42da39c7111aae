"""Loading Hugging Face models offline and quietly (every model gecscope loads is local), with
a damaged or mismatched checkpoint reported as a :class:`~gecscope.errors.FormatError` naming
the file, never a traceback from deep inside torch or safetensors."""

from __future__ import annotations

import json
import os
import pickle
import re
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gecscope.errors import FormatError

#: Files that hold weights in a save_pretrained directory.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")
#: config.json entries giving the hidden size, under the names model families use.
HIDDEN_SIZE_KEYS = ("hidden_size", "n_embd", "d_model", "dim")
#: Checkpoint tensors holding the token embeddings ([vocab, hidden]).
_EMBEDDINGS = re.compile(r"(^|\.)(word_embeddings|wte|embed_tokens|shared)\.weight$")


@contextmanager
def offline(transformers: Any, checkpoint: str | os.PathLike[str] | None = None
            ) -> Iterator[None]:
    """``HF_HUB_OFFLINE=1`` (a missing model fails at once instead of being fetched), no
    progress bars and no warnings while loading; everything restored afterwards.

    A checkpoint fault escaping the block becomes a FormatError (:func:`checkpoint_errors`);
    ``checkpoint``, the model directory being loaded, lets the message name the file."""
    old = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    hf_logging = transformers.utils.logging
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # no "some weights were not used" chatter
    try:
        with checkpoint_errors(checkpoint), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's pickle-protocol notes and the like
            yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
        if old is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = old


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the errors it was raised from or while handling (transformers 4 wraps
    torch's and safetensors' errors in an OSError)."""
    seen: BaseException | None = exc
    for _ in range(32):  # a chain is short; the bound guards against a cycle
        if seen is None:
            return
        yield seen
        seen = seen.__cause__ or seen.__context__


def _files(directory: Path | None, suffixes: tuple[str, ...]) -> list[Path]:
    if directory is None or not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix in suffixes and p.is_file())


def _where(directory: Path | None, files: list[Path]) -> Path | str:
    """The one file at fault when there is one candidate, else the directory (else words:
    the loader did not say which directory it was loading)."""
    if len(files) == 1:
        return files[0]
    return directory if directory is not None else "the checkpoint being loaded"


def safetensors_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The tensor table of a safetensors file (``{name: {"dtype", "shape", "data_offsets"}}``),
    after checking that the file is complete: an 8-byte header length, a JSON header of that
    length, and tensor data that ends exactly where the file ends. Raises FormatError naming the
    file and what was expected (a truncated download, a file cut by a full disk...)."""
    p = Path(path)
    size = p.stat().st_size
    with p.open("rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise FormatError(f"not a complete safetensors file: {size} bytes, fewer than the "
                              "8-byte header length it starts with", p)
        (length,) = struct.unpack("<Q", head)
        if length > size - 8:
            raise FormatError(f"truncated safetensors file: its header is {length:,} bytes long "
                              f"but the file has {size:,} bytes", p)
        try:
            table = json.loads(fh.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise FormatError("not a safetensors file: its header is not JSON", p) from None
    if not isinstance(table, dict):
        raise FormatError("not a safetensors file: its header is not a JSON object", p)
    tensors = {k: v for k, v in table.items() if k != "__metadata__"}
    try:
        end = max((int(v["data_offsets"][1]) for v in tensors.values()), default=0)
    except (TypeError, KeyError, IndexError, ValueError):
        raise FormatError("not a safetensors file: a tensor entry has no data_offsets", p) \
            from None
    if 8 + length + end != size:
        raise FormatError(f"truncated or damaged safetensors file: its header describes "
                          f"{end:,} bytes of tensor data, the file holds {size - 8 - length:,}", p)
    return tensors


def _hidden_size_mismatch(directory: Path) -> str:
    """What in ``config.json`` disagrees with the checkpoint's embedding matrix (hidden size or
    vocabulary size), or "" when that cannot be told from the safetensors headers."""
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    for f in _files(directory, (".safetensors",)):
        try:
            table = safetensors_header(f)
        except (FormatError, OSError):
            continue
        for name, entry in table.items():
            shape = entry.get("shape") if isinstance(entry, dict) else None
            if not _EMBEDDINGS.search(name) or not isinstance(shape, list) or len(shape) != 2:
                continue
            for key in HIDDEN_SIZE_KEYS:
                if isinstance(config.get(key), int) and config[key] != shape[1]:
                    return (f"config.json has {key}={config[key]} but the weights in {f.name} "
                            f"have {shape[1]} ({name}: {shape})")
            if isinstance(config.get("vocab_size"), int) and config["vocab_size"] != shape[0]:
                return (f"config.json has vocab_size={config['vocab_size']} but the weights in "
                        f"{f.name} have {shape[0]} ({name}: {shape})")
    return ""


@contextmanager
def checkpoint_errors(checkpoint: str | os.PathLike[str] | None) -> Iterator[None]:
    """Turn the faults of a damaged or foreign checkpoint, raised by torch, safetensors or
    transformers while loading, into a FormatError naming the file and what was expected:

    * a pickle (``pytorch_model.bin``) that torch's safe ``weights_only`` loader refuses
      because it would run code or build objects other than tensors: "not a safe checkpoint";
    * a truncated or damaged safetensors file (:func:`safetensors_header` says which and how);
    * weights whose shapes differ from the model ``config.json`` describes (a ``hidden_size``
      or ``vocab_size`` that does not match the weights).

    ``checkpoint`` is the model directory (None: the message cannot name the file)."""
    directory = Path(checkpoint).expanduser() if checkpoint is not None else None
    try:
        yield
    except FormatError:
        raise
    except Exception as exc:
        chain = list(_chain(exc))
        if any(isinstance(e, pickle.UnpicklingError) for e in chain):  # torch refused it
            where = _where(directory, _files(directory, PICKLE_SUFFIXES))
            raise FormatError(
                "not a safe checkpoint: torch's weights-only loader refused this pickle (it "
                "would run code or build objects other than tensors), so it is not loaded; "
                "use a checkpoint saved as model.safetensors, or re-save one you trust with "
                "save_pretrained(safe_serialization=True)", where) from None
        if any(type(e).__name__ == "SafetensorError" for e in chain):
            files = _files(directory, (".safetensors",))
            for f in files:
                safetensors_header(f)  # raises, naming the file and what it lacks
            raise FormatError(f"damaged safetensors file: {exc}", _where(directory, files)) \
                from None
        if isinstance(exc, RuntimeError) and "mismatch" in str(exc):
            detail = _hidden_size_mismatch(directory) if directory is not None else ""
            if not detail:
                found = re.search(r"size mismatch for [^\n]*", str(exc))
                detail = found.group(0) if found else str(exc).splitlines()[0]
            config = [directory / "config.json"] if directory is not None else []
            raise FormatError(f"the weights do not fit the model config.json describes: "
                              f"{detail}", _where(directory, config)) from None
        raise

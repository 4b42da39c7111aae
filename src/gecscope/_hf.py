"""Loading Hugging Face models offline and quietly (every model gecscope loads is local)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def offline(transformers: Any) -> Iterator[None]:
    """``HF_HUB_OFFLINE=1`` (a missing model fails at once instead of being fetched), no
    progress bars and no warnings while loading; everything restored afterwards."""
    old = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    hf_logging = transformers.utils.logging
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # no "some weights were not used" chatter
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
        if old is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = old

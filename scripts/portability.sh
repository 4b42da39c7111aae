#!/usr/bin/env bash
# Run the float-sensitive tests (tests/conftest.py FLOAT_SENSITIVE) under numerical settings
# other than this machine's defaults, so that a test asserting bits a CPU decides fails here
# and not on a newcomer's machine (issue #42). Each profile changes what can change on another
# x86-64 machine: OpenBLAS's kernel (numpy, scipy), MKL's and oneDNN's instruction set and
# ATen's vector width (torch), the BLAS/OpenMP thread counts, numba compiled or not.
#   bash scripts/portability.sh            both profiles
#   bash scripts/portability.sh narrow     one (narrow | wide); extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

narrow() {  # SSE-era kernels, one thread, numba off
  env OPENBLAS_CORETYPE=Prescott MKL_ENABLE_INSTRUCTIONS=SSE4_2 ONEDNN_MAX_CPU_ISA=SSE41 \
      ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
      OPENBLAS_NUM_THREADS=1 NUMBA_DISABLE_JIT=1 "$@"
}
wide() {  # AVX2 kernels (not this machine's AVX-512 ones), two threads, numba on
  env OPENBLAS_CORETYPE=Haswell MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 \
      ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 "$@"
}

profiles=(narrow wide)
if [ $# -gt 0 ] && { [ "$1" = narrow ] || [ "$1" = wide ]; }; then
  profiles=("$1")
  shift
fi
for p in "${profiles[@]}"; do
  echo "portability: profile $p"
  "$p" "$PY" -m pytest -p no:cacheprovider -q -n 2 --dist loadgroup -m float_sensitive "$@"
done

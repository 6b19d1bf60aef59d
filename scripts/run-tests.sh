#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors; CUDA code too when nvcc exists) and runs
# the whole test suite with ctest. Usage: scripts/run-tests.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/setup.sh"
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then export PATH="/usr/local/cuda/bin:$PATH"; fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
